"""Step 9A played with the board: reserve fleets (507.1, 203.7) and their markers' lifetime."""

from __future__ import annotations

import functools

from engine.core.ruleset import Event
from engine.fe.forces import Unit
from engine.fe.model import FeState
from engine.fe.steps import reserves
from tests.engine.fe.steps.tutorial_states import (
    after_setup,
    orders,
    placed,
    refusals,
    run_to,
    texts,
)

STRIKE_FORCE = ["KLI-0001", "KLI-0002", "KLI-0003", "KLI-0004"]


def _reserve(units: list[str]) -> dict[str, object]:
    return {"type": "reserve", "units": units}


@functools.cache
def _at_9a() -> FeState:
    """Turn 1, the coalition's 9A, the Strike Force in 1307 and the Flank Patrol in 1607."""
    return run_to(after_setup(), "9A")


def _escorts(h: int, count: int) -> list[Unit]:
    """``count`` new Klingon F5 frigates (command rating 4) in hex ``h``."""
    return [Unit(f"KLI-01{n:02d}", "KLI", "F5", h) for n in range(count)]


def test_a_reserve_fleet_is_designated_and_recorded() -> None:
    state, events = orders(_at_9a(), "coalition", _reserve(["KLI-0002", "KLI-0001"]))
    assert texts(events, "reserve") == [
        "KLI designates D7C KLI-0001, D7 KLI-0002 in 1307 a reserve fleet; its flagship "
        "D7C KLI-0001 commands 9, the fleet counts 2 (507.1, 203.7)"
    ]
    assert state.reserves == ("KLI-0001", "KLI-0002")
    (event,) = [e for e in events if e.kind == "reserve"]
    assert event.data["fleet"] == ["KLI-0001", "KLI-0002"]
    assert event.data["flagship"] == "KLI-0001"


def test_a_second_order_joins_the_fleet_in_that_hex() -> None:
    state, _ = orders(_at_9a(), "coalition", _reserve(["KLI-0001", "KLI-0002"]))
    state, events = orders(state, "coalition", _reserve(["KLI-0004", "KLI-0003"]))
    assert texts(events, "reserve") == [
        "KLI designates D7 KLI-0003, F5S KLI-0004 in 1307 a reserve fleet, joining the reserve "
        "there (4 units now); its flagship D7C KLI-0001 commands 9, the fleet counts 3 "
        "(507.1, 203.7)"
    ]
    assert state.reserves == tuple(STRIKE_FORCE)
    assert refusals(state, "coalition", _reserve(["KLI-0001"])) == [
        "KLI-0001 is already in the reserve fleet in 1307 (203.7)"
    ]


def test_a_reserve_fleet_is_one_battle_force() -> None:
    five = _escorts(1507, 5)
    state = placed(_at_9a(), {}, *five)
    assert refusals(state, "coalition", _reserve([u.id for u in five])) == [
        "a reserve fleet is one battle force: its flagship F5 KLI-0100 has command rating 4, "
        "so it holds at most 4 units plus one free scout; this one would count 5 (203.7)"
    ]


def test_one_scout_rides_free() -> None:
    four = _escorts(1507, 4)
    scout = Unit("KLI-0199", "KLI", "F5S", 1507)
    state = placed(_at_9a(), {}, *four, scout)
    assert not refusals(state, "coalition", _reserve([u.id for u in (*four, scout)]))
    assert reserves.fleet_size([*four, scout])[1:] == (4, 4)


def test_joining_counts_the_fleet_already_there() -> None:
    four = _escorts(1507, 4)
    state = placed(_at_9a(), {}, *four, *_escorts(1507, 5)[4:])
    state, _ = orders(state, "coalition", _reserve([u.id for u in four]))
    assert refusals(state, "coalition", _reserve(["KLI-0104"])) == [
        "a reserve fleet is one battle force: its flagship F5 KLI-0100 has command rating 4, "
        "so it holds at most 4 units plus one free scout; this one with the reserve already "
        "there would count 5 (203.7)"
    ]


def test_unit_limits_name_their_rule() -> None:
    state = _at_9a()
    cases = {
        ("KLI-0001", "KLI-0005"): "a reserve fleet stands in one hex; these units are in 1307, "
        "1607 (203.7)",
        ("KLI-B002",): "KLI-B002 (BATS) cannot move by itself, so it cannot be a reserve (203.7)",
        ("KZI-0001",): "KZI-0001 is a unit of KZI, not of coalition (203.7)",
    }
    for units, message in cases.items():
        assert refusals(state, "coalition", _reserve(list(units))) == [message]
    pinned = placed(state, {"KZI-0001": 1307})
    assert refusals(pinned, "coalition", _reserve(["KLI-0001"])) == [
        "1307 holds enemy units: KLI-0001 is pinned there and cannot be a reserve (203.7)"
    ]
    cut_off = placed(state, {"KLI-0001": 1302})
    assert refusals(cut_off, "coalition", _reserve(["KLI-0001"])) == [
        "KLI-0001 in 1302 is out of supply: a reserve must be in supply (203.7)"
    ]


def test_a_fleet_not_yet_released_cannot_be_a_reserve() -> None:
    state = run_to(run_to(_at_9a(), "10A"), "9A")
    assert state.player_turn == 1
    assert refusals(state, "alliance", _reserve(["KZI-0006", "KZI-0007"])) == [
        "KZI-0006 (BC) belongs to Starbase Squadron, which is not released (600.3)",
        "KZI-0007 (SF) belongs to Starbase Squadron, which is not released (600.3)",
    ]
    assert not refusals(state, "alliance", _reserve(["KZI-0001", "KZI-0002"]))


def test_markers_last_until_the_owner_s_next_economic_phase() -> None:
    state, _ = orders(_at_9a(), "coalition", _reserve(STRIKE_FORCE))
    state = run_to(state, "1B")
    assert (state.turn, state.player_turn) == (1, 1)
    assert state.reserves == tuple(STRIKE_FORCE)
    state = run_to(state, "9A")
    state, _ = orders(state, "alliance", _reserve(["KZI-0001"]))
    events: list[Event] = []
    state = run_to(state, "1B", events)
    assert (state.turn, state.player_turn) == (2, 0)
    assert texts(events, "reserve-markers") == [
        "coalition removes its reserve markers: 4 units no longer reserves (507.1)"
    ]
    assert state.reserves == ("KZI-0001",)


def test_the_step_passes_when_no_unit_could_be_a_reserve() -> None:
    state = after_setup()
    ships = {u.id: 0 for u in state.board.units if u.empire == "KLI" and u.fleet}
    events: list[Event] = []
    run_to(placed(state, ships), "10A", events)
    assert texts(events, "step-passed")[-1] == (
        "9A Set up reserves: no KLI unit could be a reserve (released, able to move, in "
        "supply, free of enemy units) (203.7)"
    )


def test_the_quick_reserve_test_agrees_with_the_refusals_unit_by_unit() -> None:
    """`reserves.may_be_reserve` (the step's skip) is true exactly when `unit_problems`
    finds nothing, for every unit of a board where some are reserves already, some off the
    map, unreleased, out of supply or sharing a hex with the enemy."""
    state, _ = orders(_at_9a(), "coalition", _reserve(STRIKE_FORCE))
    kzi = next(u for u in state.board.units if u.empire == "KZI" and u.hex)
    kli = [u for u in state.board.units if u.empire == "KLI" and u.hex][:3]
    moved = [
        Unit(kli[0].id, "KLI", kli[0].cls, kzi.hex, fleet=kli[0].fleet),  # pinned
        Unit(kli[1].id, "KLI", kli[1].cls, 0, fleet=kli[1].fleet),  # off the map
        Unit(kli[2].id, "KLI", kli[2].cls, 6119, fleet=kli[2].fleet),  # far from supply
    ]
    state = state.with_units(moved)
    answers = {reserves.may_be_reserve(state, u) for u in state.board.units}
    assert answers == {True, False}
    for unit in state.board.units:
        fine = not reserves.unit_problems(state, unit)
        assert reserves.may_be_reserve(state, unit) is fine, unit.id
    whys = {v.message for u in state.board.units for v in reserves.unit_problems(state, u)}
    for part in ("already in the reserve", "not released", "not on the map", "out of supply"):
        assert any(part in why for why in whys), part
    assert any("is pinned there" in why for why in whys)


def test_the_steps_skip_judges_like_units_once_and_agrees_with_every_unit() -> None:
    """Step 9A passes by itself exactly when no unit of the phasing empires could be a
    reserve (203.7): the skip judges each (empire, hex, class, fleet) once, a unit already a
    reserve apart, and agrees with asking every unit, on The Wind's board with stacks moved
    onto enemies and far from supply, fleets held and released, and reserves designated, at
    random; boards where only a few units could be a reserve come up too."""
    import random

    import msgspec

    from engine.fe.forces import OFF_MAP
    from engine.fe.sequence import load_sequence
    from engine.fe.steps import base
    from tests.engine.fe.helpers import start

    step = next(s for s in load_sequence().part("") if s.id == "9A")
    rng = random.Random(507)
    state = start()
    fleets = sorted({(u.empire, u.fleet) for u in state.board.units if u.fleet})
    answers = set()
    for _ in range(40):
        board = state.board
        mine = base.phasing_empires(state)
        on_map = [u for u in board.units if u.hex != OFF_MAP]
        ours = [u for u in on_map if u.empire in mine]
        changed = []
        for unit in rng.sample(ours, min(len(ours), rng.randint(5, 200))):
            roll = rng.random()
            to = rng.choice(on_map).hex if roll < 0.6 else (OFF_MAP if roll < 0.8 else 6119)
            changed.append(msgspec.structs.replace(unit, hex=to))
        state = state.with_units(changed)
        released = tuple(f for f in fleets if rng.random() < 0.5)
        picked = rng.sample(ours, min(len(ours), rng.randint(0, 40)))
        state = msgspec.structs.replace(
            state, released=released, reserves=tuple(sorted(u.id for u in picked))
        )
        expected = any(
            reserves.may_be_reserve(state, u) for u in state.board.units if u.empire in mine
        )
        passed = reserves.AREA.skip(state, step)
        assert (passed == "") is expected
        answers.add(expected)
    assert answers == {True, False}


def test_the_skip_still_asks_a_like_unit_when_the_first_is_a_reserve_or_a_base() -> None:
    """Two units alone could be a reserve: one sharing its empire, hex, class and fleet with
    a unit already a reserve (read first, by id), and one standing with a base of its fleet
    (read first): the step does not pass by itself in either case."""
    import msgspec

    from engine.fe.forces import OFF_MAP
    from engine.fe.sequence import load_sequence
    from engine.fe.steps import base
    from tests.engine.fe.helpers import start

    step = next(s for s in load_sequence().part("") if s.id == "9A")
    state = start()
    mine = base.phasing_empires(state)
    fleets = tuple(sorted({(u.empire, u.fleet) for u in state.board.units if u.fleet}))
    state = msgspec.structs.replace(state, released=fleets)
    ships = [u for u in state.board.units if u.empire in mine and u.hex and u.info().move]
    groups: dict[tuple[str, str], list[Unit]] = {}
    for unit in sorted(ships, key=lambda u: u.id):
        groups.setdefault((unit.cls, unit.fleet), []).append(unit)
    first, second = next(units for units in groups.values() if len(units) > 1)[:2]
    gone = [msgspec.structs.replace(u, hex=OFF_MAP) for u in state.board.units if u.empire in mine]
    alone = state.with_units(gone)
    assert reserves.AREA.skip(alone, step), "nobody on the map: the step passes"
    pair = alone.with_units([first, msgspec.structs.replace(second, hex=first.hex)])
    held = msgspec.structs.replace(pair, reserves=(first.id,))
    assert reserves.AREA.skip(held, step) == ""
    assert reserves.AREA.skip(
        msgspec.structs.replace(pair, reserves=(first.id, second.id)), step
    ), "both reserves already"
    base_unit = msgspec.structs.replace(first, id=f"{first.empire}-0000", cls="SB")
    beside = alone.with_units([base_unit, first])
    assert not reserves.may_be_reserve(beside, base_unit)
    assert reserves.AREA.skip(beside, step) == ""
