"""Fleet releases by trigger (600.3x), read from the board: `fired_releases`, `release_fired`."""

from __future__ import annotations

import random

import msgspec
import pytest

from engine.core import caches
from engine.core.ruleset import Event
from engine.fe import FE
from engine.fe.forces import OFF_MAP, Forces, Unit
from engine.fe.model import FeState
from engine.fe.oob import EmpireSetup, Release, ScenarioSetup, Target, Trigger
from engine.fe.steps import base, releases
from engine.fe.steps.releases import fired_releases, release_fired
from tests.engine.fe.helpers import start


def _start(scenario: str) -> FeState:
    return FE.initial_state(scenario, ["coalition", "alliance"], {})


def _put(state: FeState, unit_id: str, h: int) -> FeState:
    """``state`` with one unit standing in ``h``: all a trigger looks at is the board."""
    unit = msgspec.structs.replace(state.board.unit(unit_id), hex=h)
    return state.with_board(state.board.with_units([unit]))


def test_nothing_fires_on_the_starting_board() -> None:
    assert fired_releases(_start("tutorial")) == []
    assert fired_releases(_start("the-wind")) == []


def test_a_klingon_ship_in_1704_releases_the_starbase_squadron() -> None:
    state = _put(_start("tutorial"), "KLI-0005", 1704)
    assert fired_releases(state) == [("KZI", "Starbase Squadron", "KLI entered 1704")]


def test_a_released_fleet_is_not_released_again() -> None:
    state = _put(_start("tutorial"), "KLI-0005", 1704)
    state = msgspec.structs.replace(state, released=(("KZI", "Starbase Squadron"),))
    assert fired_releases(state) == []


def test_only_units_that_move_occupy_a_hex() -> None:
    assert fired_releases(_put(_start("tutorial"), "KLI-B001", 1704)) == []  # a battle station
    assert fired_releases(_put(_start("tutorial"), "KLI-0005", 1705)) == []


def test_release_fired_records_each_fleet_with_an_event() -> None:
    state = _put(_start("tutorial"), "KLI-0005", 1704)
    events: list[Event] = []
    after = release_fired(state, "3B2", events)
    assert ("KZI", "Starbase Squadron") in after.released
    assert list(after.released) == sorted(after.released)
    (event,) = events
    assert (event.kind, event.seat, event.step) == ("release", "alliance", "3B2")
    assert event.text == "KZI Starbase Squadron is released (KLI entered 1704, 600.3)"
    assert event.data["rule"] == "600.3"
    assert release_fired(after, "3B2", []) is after


def test_a_future_belligerent_in_kzinti_space_releases_the_marquis_and_the_fourth_fleet() -> None:
    state = _put(_start("the-wind"), "LYR-0001", 1401)
    assert fired_releases(state) == [
        ("FED", "Fourth Fleet", "LYR entered KZI space at 1401"),
        ("KZI", "Marquis' Fleet", "LYR entered KZI space at 1401"),
        ("KZI", "Marquis' Reserve Fleet", "LYR entered KZI space at 1401"),
    ]


def test_an_empire_that_is_no_future_belligerent_fires_nothing() -> None:
    assert fired_releases(_put(_start("the-wind"), "HYD-0002", 1401)) == []
    assert fired_releases(_put(_start("the-wind"), "KZI-0001", 1401)) == []


def test_a_fleets_set_up_area_is_a_target() -> None:
    state = _put(_start("the-wind"), "FED-0002", 1810)
    assert fired_releases(state) == [
        ("KLI", "Eastern Fleet", "FED entered the set-up area of KLI Eastern Fleet at 1810")
    ]


def test_a_listed_hex_fires_for_future_belligerents() -> None:
    state = _put(_start("the-wind"), "KLI-0002", 617)
    assert fired_releases(state) == [("HYD", "Old Colonies Squadron", "KLI entered 0617")]


def _with_trigger(monkeypatch: pytest.MonkeyPatch, trigger: Trigger) -> None:
    """Give the tutorial's Kzinti one release with ``trigger`` instead of the scenario's."""
    real = base.scenario_setup(_start("tutorial"))
    kzi = real.empire("KZI")
    assert kzi is not None
    changed = msgspec.structs.replace(kzi, releases=(Release("Starbase Squadron", trigger),))
    empires = tuple(changed if e.empire == "KZI" else e for e in real.empires)
    setup = ScenarioSetup(setup_order=real.setup_order, empires=empires)
    monkeypatch.setattr(base, "scenario_setup", lambda state: setup)


def test_a_starbase_target_fires_in_the_starbases_hex(monkeypatch: pytest.MonkeyPatch) -> None:
    _with_trigger(monkeypatch, Trigger(any_of=(Target(kind="starbase"),), actors=("KLI",)))
    state = _put(_start("tutorial"), "KLI-0005", 1704)
    assert fired_releases(state) == [
        ("KZI", "Starbase Squadron", "KLI entered 1704, the hex of a KZI starbase")
    ]
    assert fired_releases(_put(_start("tutorial"), "KLI-0005", 1605)) == []  # a BATS hex


def test_destroying_is_not_fired_by_movement(monkeypatch: pytest.MonkeyPatch) -> None:
    trigger = Trigger(any_of=(Target(kind="starbase"),), actors=("KLI",), action="destroys")
    _with_trigger(monkeypatch, trigger)
    assert fired_releases(_put(_start("tutorial"), "KLI-0005", 1704)) == []


def test_the_owning_empire_never_fires_its_own_release(monkeypatch: pytest.MonkeyPatch) -> None:
    hexes = Target(kind="hexes", hexes=(1305,))
    _with_trigger(monkeypatch, Trigger(any_of=(hexes,), actors=("KZI", "KLI")))
    assert fired_releases(_put(_start("tutorial"), "KZI-0001", 1305)) == []
    state = _put(_start("tutorial"), "KLI-0005", 1305)
    assert fired_releases(state) == [("KZI", "Starbase Squadron", "KLI entered 1305")]


# --- the triggers read once per scenario match a reading of the data on every check --------


def _reference_reason(state: FeState, setup: EmpireSetup, trigger: Trigger) -> str:
    """`releases.trigger_reason` read from the scenario data on the spot, unit by unit: the
    stands in id order (the smallest id of each empire and hex whose class moves), each
    target tried in turn, the fleets' areas looked up each time."""
    if trigger.action != "occupies":
        return ""
    galaxy = base.galaxy()
    board = state.board
    actors = set(trigger.actors)
    if trigger.future_belligerents:
        actors.update(setup.future_belligerents)
    actors.discard(setup.empire)
    firsts: dict[tuple[str, int], str] = {}
    for unit in sorted(board.units, key=lambda u: u.id):
        if unit.empire in actors and unit.hex != OFF_MAP and unit.info().move > 0:
            firsts.setdefault((unit.empire, unit.hex), unit.id)
    for empire, h in sorted(firsts, key=lambda key: firsts[key]):
        where = base.hex_text(h)
        for target in trigger.any_of:
            if target.kind == "hexes" and h in target.hexes:
                return f"{empire} entered {where}"
            if target.kind == "fleet-area":
                area: set[int] = set()
                for ref in target.fleets:
                    owner = base.empire_setup(state, ref.empire)
                    fleet = owner.fleet(ref.fleet) if owner is not None else None
                    area.update(fleet.hexes if fleet is not None else ())
                if h in area:
                    names = " or ".join(f"{r.empire} {r.fleet}" for r in target.fleets)
                    return f"{empire} entered the set-up area of {names} at {where}"
            if target.kind == "empire" and board.owner(galaxy, h) in target.empires:
                return f"{empire} entered {board.owner(galaxy, h)} space at {where}"
            if target.kind == "starbase":
                owners = target.empires or (setup.empire,)
                for other in board.at(h):
                    if other.cls in releases.STARBASE_CLASSES and other.empire in owners:
                        return f"{empire} entered {where}, the hex of a {other.empire} starbase"
    return ""


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_trigger_reads_as_the_scenario_data_says_on_random_boards(seed: int) -> None:
    rng = random.Random(seed)
    state = start()  # every empire's fleets on the map
    setups = base.scenario_setup(state)
    triggers = [
        (setup, trigger)
        for setup in setups.empires
        for trigger in [r.trigger for r in setup.releases] + [w.trigger for w in setup.war_entry]
    ]
    assert len(triggers) >= 8
    fired = 0
    for _ in range(20):
        on_map = [u for u in state.board.units if u.hex != OFF_MAP]
        movers = rng.sample([u for u in on_map if u.info().move > 0], 6)
        # Each goes where another empire's units stand (its space, a fleet's area) or
        # anywhere on the map.
        moved = [
            msgspec.structs.replace(
                u,
                hex=rng.choice([o.hex for o in on_map if o.empire != u.empire])
                if rng.random() < 0.5
                else rng.randrange(1, 40) * 100 + rng.randrange(1, 20),
            )
            for u in movers
        ]
        state = state.with_board(state.board.with_units(moved))
        lookup = releases.TriggerBoard(state)
        for setup, trigger in triggers:
            reason = releases.trigger_reason(state, base.galaxy(), setup, trigger, lookup)
            assert reason == _reference_reason(state, setup, trigger), (setup.empire, trigger)
            fired += bool(reason)
            plan = caches.peek(releases._plan, setup, trigger, setups)
            fresh = releases._plan.__wrapped__(setup, trigger, setups)  # type: ignore[attr-defined]
            assert plan is None or plan == fresh
    assert fired > 5, "the random boards hardly ever fired a trigger"


def _mixed(state: FeState, rng: random.Random) -> FeState:
    """``state`` with its units handed out to the empires' tuples at random (each tuple
    still sorted by id): the board is the same, but a tuple holds others' units, so
    `releases.TriggerBoard` cannot read one empire's part alone and reads them all."""
    forces = list(state.forces)
    shares: list[list[Unit]] = [[] for _ in forces]
    for unit in state.board.units:
        shares[rng.randrange(len(forces))].append(unit)
    mixed = tuple(
        Forces(f.empire, tuple(sorted(share, key=lambda u: u.id)))
        for f, share in zip(forces, shares, strict=True)
    )
    return msgspec.structs.replace(state, forces=mixed)


@pytest.mark.parametrize("seed", [4, 5])
def test_starbase_triggers_and_mixed_tuples_read_as_the_reference(seed: int) -> None:
    """`TriggerBoard` on random boards, with triggers watching starbases (of the empire
    itself or of two others, which The Wind's own triggers never do) besides the scenario's:
    its reasons are the reference's, and so are those of a board whose empires' tuples mix
    units of several empires (the stands in id order, the starbases in the board's)."""
    rng = random.Random(seed)
    state = start()
    setups = base.scenario_setup(state)
    triggers = [
        (setup, trigger)
        for setup in setups.empires
        for trigger in [r.trigger for r in setup.releases] + [w.trigger for w in setup.war_entry]
    ]
    empires = tuple(f.empire for f in state.forces)
    for setup in setups.empires:  # starbases, of the empire itself or of two others
        others = tuple(e for e in empires if e != setup.empire)
        for owners in [(), others[:2], others[-2:]]:
            target = Target(kind="starbase", empires=owners)
            triggers.append((setup, Trigger(any_of=(target,), actors=others)))
    fired = 0
    for _ in range(12):
        on_map = [u for u in state.board.units if u.hex != OFF_MAP]
        movers = rng.sample(on_map, 8)  # starbases too: they may be a trigger's target
        bases = [u.hex for u in on_map if u.cls in releases.STARBASE_CLASSES]
        moved = [  # half of them to a starbase's hex, a trigger's target
            msgspec.structs.replace(
                u, hex=rng.choice(bases if rng.random() < 0.5 else on_map_hexes)
            )
            for u in movers
            for on_map_hexes in [[o.hex for o in on_map]]
        ]
        state = state.with_board(state.board.with_units(moved))
        mixed = _mixed(state, rng)
        assert sorted(mixed.board.units, key=lambda u: u.id) == list(state.board.units)
        for setup, trigger in triggers:
            lookup = releases.TriggerBoard(state)
            reason = releases.trigger_reason(state, base.galaxy(), setup, trigger, lookup)
            assert reason == _reference_reason(state, setup, trigger), (setup.empire, trigger)
            lookup = releases.TriggerBoard(mixed)
            again = releases.trigger_reason(mixed, base.galaxy(), setup, trigger, lookup)
            assert again == _reference_reason(mixed, setup, trigger), (setup.empire, trigger)
            fired += bool(reason)
    assert fired > 5, "the random boards hardly ever fired a trigger"
