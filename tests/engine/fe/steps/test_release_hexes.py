"""The release check after a move reads only the hexes that changed (`releases.hot_hexes`,
`board_views.defer_hexes`): on random runs of changes it finds what a reading of the whole
board finds, reasons included.

The Wind after its set-up is changed at random by a seeded generator: stacks move (into
other empires' space, fleets' set-up areas, starbase hexes, anywhere), units are destroyed
(off the map), captured (same id, another empire), crippled, and new units appear (starbases
too); now and then a hex changes hands, fleets are released, or a board is regrouped in full.
After each change, most of the time, `fired_releases` is compared with the check as it read
every stand of the board, and the hot hexes it kept with a fresh reading of a copy of the
board that shares nothing with it.
"""

from __future__ import annotations

import random

import msgspec
import pytest

from engine.core import caches
from engine.fe import board_update, board_views
from engine.fe.board_indexes import own_unit_index
from engine.fe.forces import OFF_MAP, Board, Unit
from engine.fe.model import FeState
from engine.fe.oob import Release, ScenarioSetup, Target, Trigger
from engine.fe.steps import base, releases
from tests.engine.fe.helpers import start

CHANGES = 60
EMPIRES = ("FED", "HYD", "KLI", "KZI", "LYR")


def _whole_board_check(state: FeState) -> list[tuple[str, str, str]]:
    """`releases.fired_releases` as it read the board before the hot hexes: every stand of
    every empire (`TriggerBoard`), every held fleet's trigger."""
    galaxy = base.galaxy()
    released = set(state.released)
    found: dict[tuple[str, str], str] = {}
    lookup = releases.TriggerBoard(state)
    for setup in base.scenario_setup(state).empires:
        for release in setup.releases:
            key = (setup.empire, release.fleet)
            if key in released or key in found:
                continue
            reason = releases.trigger_reason(state, galaxy, setup, release.trigger, lookup)
            if reason:
                found[key] = reason
    return [(empire, fleet, reason) for (empire, fleet), reason in sorted(found.items())]


def _hot_by_reasons(state: FeState) -> frozenset[int]:
    """The hot hexes as the triggers' reasons give them, hex by hex: those where a held
    fleet's trigger finds a reason among the stands of that hex alone (read afresh from a
    copy of the board, without `releases._watchers`)."""
    board = _plain(state.board)
    galaxy = base.galaxy()
    released = set(board.released)
    found = set()
    for h, _ in board.stacks():
        lookup = releases.TriggerBoard.local(board, [h])
        for setup in base.scenario_setup(state).empires:
            for release in setup.releases:
                if (setup.empire, release.fleet) in released:
                    continue
                if releases.trigger_reason(state, galaxy, setup, release.trigger, lookup):
                    found.add(h)
    return frozenset(found)


def _plain(board: Board) -> Board:
    """A copy of ``board`` with none of its indexes, notes or cache entries."""
    return Board(board.units, board.owners, board.at_war, board.released, board.devastated)


def _targets(state: FeState) -> list[int]:
    """Hexes where a trigger may fire: every watched hex and fleet area, and starbase hexes
    (a move elsewhere may enter an empire's space)."""
    setups = base.scenario_setup(state)
    hexes: set[int] = set()
    for setup in setups.empires:
        for release in setup.releases:
            for watch in releases._plan(setup, release.trigger, setups).watches:
                hexes.update(watch.hexes)
    board = state.board
    hexes.update(u.hex for u in board.units if u.cls in releases.STARBASE_CLASSES)
    hexes.discard(OFF_MAP)
    return sorted(hexes)


def _change(state: FeState, rng: random.Random, serial: int) -> FeState:
    board = state.board
    on_map = [u for u in board.units if u.hex != OFF_MAP]
    unit = rng.choice(on_map)
    kind = rng.randrange(10)
    if kind <= 3:  # a stack (or part of it) moves
        roll = rng.random()
        if roll < 0.4:  # where another empire stands (its space, often)
            to = rng.choice([u.hex for u in on_map if u.empire != unit.empire])
        else:
            to = rng.choice(_targets(state)) if roll < 0.7 else rng.choice(on_map).hex
        stack = [u for u in board.at(unit.hex) if u.empire == unit.empire]
        moved = rng.sample(stack, rng.randint(1, len(stack)))
        changed = [msgspec.structs.replace(u, hex=to) for u in moved]
    elif kind == 4:
        changed = [msgspec.structs.replace(unit, hex=OFF_MAP)]  # destroyed
    elif kind == 5:  # captured: another empire's now, same id
        other = rng.choice([e for e in EMPIRES if e != unit.empire])
        changed = [msgspec.structs.replace(unit, empire=other)]
    elif kind == 6:
        changed = [msgspec.structs.replace(unit, crippled=not unit.crippled)]
    elif kind == 7:  # a new ship, or a new starbase (now and then the lowest id of its hex)
        empire = rng.choice(EMPIRES)
        cls = "SB" if rng.random() < 0.5 else "CA"
        number = f"0000{serial:03d}" if cls == "SB" and rng.random() < 0.5 else f"9{serial:03d}"
        where = rng.choice(_targets(state) + [u.hex for u in on_map if u.empire == empire])
        changed = [Unit(f"{empire}-{number}", empire, cls, where)]
    elif kind == 8:  # a hex changes hands, or fleets are released
        if rng.random() < 0.5:
            owners = dict(state.owners)
            owners[unit.hex] = rng.choice(EMPIRES)
            return msgspec.structs.replace(state, owners=tuple(sorted(owners.items())))
        fired = releases.fired_releases(state)
        return releases.release_fired(state, "3B2", []) if fired else state
    else:  # the same kind of move, through a board (`FeState.with_board`)
        stack = [u for u in board.at(unit.hex) if u.empire == unit.empire]
        to = rng.choice(_targets(state))
        made = board.with_units(msgspec.structs.replace(u, hex=to) for u in stack)
        if rng.random() < 0.2:  # a board made otherwise: regrouped in full
            made = _plain(made)
        return state.with_board(made)
    return state.with_units(changed)


def _more_triggers(monkeypatch: pytest.MonkeyPatch, state: FeState) -> None:
    """Give the Kzinti two more held fleets, released by a Klingon or Lyran ship in a
    Federation or Kzinti starbase's hex, or in one of three listed hexes (The Wind's own
    triggers watch empires' space and fleets' areas)."""
    real = base.scenario_setup(state)
    kzi = real.empire("KZI")
    assert kzi is not None
    extra = (
        Release(
            "Test Starbase Watch",
            Trigger((Target("starbase", empires=("FED", "KZI")),), ("KLI", "LYR")),
        ),
        Release("Test Hex Watch", Trigger((Target("hexes", hexes=(1305, 1704, 2210)),), ("KLI",))),
    )
    changed = msgspec.structs.replace(kzi, releases=(*kzi.releases, *extra))
    empires = tuple(changed if e.empire == "KZI" else e for e in real.empires)
    setup = ScenarioSetup(setup_order=real.setup_order, empires=empires)
    monkeypatch.setattr(base, "scenario_setup", lambda state: setup)


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_the_check_after_a_change_finds_what_the_whole_board_gives(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(seed)
    state = start()
    if seed > 2:
        _more_triggers(monkeypatch, state)
    if seed % 2:  # some fleets released from the start
        held = [(s.empire, r.fleet) for s in base.scenario_setup(state).empires for r in s.releases]
        state = msgspec.structs.replace(state, released=tuple(sorted(rng.sample(held, 3))))
    setups = base.scenario_setup(state)
    derived = fired = 0
    for number in range(CHANGES):
        state = _change(state, rng, number)
        if rng.random() < 0.3:
            continue  # a board never asked: the next one carries its changes on
        board = state.board
        if rng.random() < 0.6:  # the empires by hex known (a move's pin check reads them)
            board_views.empires_by_hex(board)
        since = board_views.hexes_changed_since(board)
        carried = (
            since is not None and caches.peek(releases.hot_hexes, since[0], setups) is not None
        )
        found = releases.fired_releases(state)
        assert found == _whole_board_check(state), f"change {number}"
        hot = caches.peek(releases.hot_hexes, board, setups)
        fresh = releases.hot_hexes.__wrapped__(_plain(board), setups)  # type: ignore[attr-defined]
        assert hot == fresh, f"change {number}: the hot hexes"
        assert hot == _hot_by_reasons(state), f"change {number}: the hot hexes by reasons"
        assert board_views.hexes_changed_since(board) is None, "the run is dropped once read"
        derived += carried
        fired += bool(found)
    assert derived > CHANGES // 4, "the hot hexes were hardly ever derived from a board before"
    assert fired > 3, "the random boards hardly ever fired a trigger"


def test_releasing_the_fired_fleets_leaves_no_hot_hex_behind() -> None:
    """Once `release_fired` has released what fired, the board with those fleets released
    has its hot hexes already (derived, not read in full), and nothing fires there; it has
    the views of its units too (`board_update.share_unit_views`), as a fresh reading gives
    them."""
    state = start()
    unit = state.board.unit("LYR-0001")
    state = state.with_units([msgspec.structs.replace(unit, hex=1401)])  # Kzinti space
    setups = base.scenario_setup(state)
    assert releases.fired_releases(state)
    assert caches.peek(releases.hot_hexes, state.board, setups) == frozenset({1401})
    board = state.board
    own_unit_index(board)  # the unit and hex indexes and the empires by hex are built
    board.at(1401)
    board_views.empires_by_hex(board)
    after = releases.release_fired(state, "3B2", [])
    assert after.board is not board
    assert caches.peek(releases.hot_hexes, after.board, setups) == frozenset()
    assert releases.fired_releases(after) == [] == _whole_board_check(after)
    # The released board has the same units: it starts with their views, as built afresh.
    new, fresh = after.board, _plain(after.board)
    assert {"_by_id", "_by_hex", "_id_sorted"} <= new.__dict__.keys()
    assert (new._by_id, new._by_hex, new._id_sorted) == (
        fresh._by_id,
        fresh._by_hex,
        fresh._id_sorted,
    )
    empires = caches.peek(board_views.empires_by_hex, new)
    assert empires == board_views.empires_by_hex.__wrapped__(fresh)  # type: ignore[attr-defined]
    # Boards of other units share nothing.
    other = _plain(board.with_units([msgspec.structs.replace(unit, hex=1402)]))
    board_update.share_unit_views(board, other)
    assert "_by_id" not in other.__dict__


def test_a_long_run_of_changes_is_dropped() -> None:
    """Past `board_views.SINCE_LIMIT` hexes changed, a board notes no run: its hot hexes are
    read in full, as they are for a board made otherwise."""
    state = start()
    releases.fired_releases(state)
    movers = [u for u in state.board.units if u.hex != OFF_MAP]
    for n, unit in enumerate(movers):  # each to a hex of its own
        if n and board_views.hexes_changed_since(state.board) is None:
            break
        to = (n % 61 + 1) * 100 + n // 61 % 19 + 1
        state = state.with_units([msgspec.structs.replace(unit, hex=to)])
    else:
        pytest.fail("the run of changes was never dropped")
    setups = base.scenario_setup(state)
    assert caches.peek(releases.hot_hexes, state.board, setups) is None
    assert releases.fired_releases(state) == _whole_board_check(state)
    fresh = releases.hot_hexes.__wrapped__(_plain(state.board), setups)  # type: ignore[attr-defined]
    assert caches.peek(releases.hot_hexes, state.board, setups) == fresh


def _hot_now(state: FeState) -> frozenset[int]:
    setups = base.scenario_setup(state)
    releases.fired_releases(state)
    hot = caches.peek(releases.hot_hexes, state.board, setups)
    assert hot is not None
    return hot


def _held_change(state: FeState, rng: random.Random) -> FeState:
    """A change that leaves fired triggers held: a stack of an actor enters a watched hex
    (or a starbase's), a stack leaves a hot hex, or a fleet is released without its
    trigger (other fleets staying held, hot hexes may cool)."""
    board = state.board
    on_map = [u for u in board.units if u.hex != OFF_MAP]
    hot = sorted(_hot_now(state))
    kind = rng.randrange(8)
    if kind == 7:  # every fleet held again (a board made otherwise: read in full)
        return msgspec.structs.replace(state, released=())
    if kind <= 2 and hot:  # every unit that can move leaves a hot hex (or some of them)
        here = board.at(rng.choice(hot))
        movers = [u for u in here if board_views.can_move(u)]
        if rng.random() < 0.5:
            movers = rng.sample(movers, rng.randint(1, len(movers)))
        to = rng.choice(on_map).hex
        return state.with_units([msgspec.structs.replace(u, hex=to) for u in movers])
    if kind == 3:  # a fleet released as an adjustment would: the board's released grows
        setups = base.scenario_setup(state)
        held = [
            (s.empire, r.fleet)
            for s in setups.empires
            for r in s.releases
            if (s.empire, r.fleet) not in state.released
        ]
        if held:
            released = tuple(sorted({*state.released, rng.choice(held)}))
            return msgspec.structs.replace(state, released=released)
    unit = rng.choice([u for u in on_map if u.empire in ("KLI", "LYR") and u.cls != "SB"])
    stack = [u for u in board.at(unit.hex) if u.empire == unit.empire]
    to = rng.choice(_targets(state))
    return state.with_units([msgspec.structs.replace(u, hex=to) for u in stack])


@pytest.mark.parametrize("seed", [5, 6, 7])
def test_hot_hexes_follow_stands_in_and_out_and_fleets_released(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Triggers fired and left held: stands enter watched hexes and leave hot ones, fleets
    are released without their trigger; the hot hexes derived from the board before (only
    the hexes changed read again) are those the triggers' reasons give, hex by hex."""
    rng = random.Random(seed)
    state = start()
    _more_triggers(monkeypatch, state)
    cooled = warmed = 0
    hot = _hot_now(state)
    for number in range(CHANGES):
        state = _held_change(state, rng)
        now = _hot_now(state)
        assert now == _hot_by_reasons(state), f"change {number}"
        cooled += bool(hot - now)
        warmed += bool(now - hot)
        hot = now
    assert cooled > 3 and warmed > 3, "hot hexes hardly ever changed"


def test_hot_hexes_are_read_in_full_when_fleets_were_released_since() -> None:
    """A board noted as changed since another (`board_views.defer_hexes`) but with other
    fleets released: its hot hexes are not derived from the other's (a released fleet's
    hot hex cools without a unit moving there)."""
    state = start()
    unit = state.board.unit("LYR-0001")
    state = state.with_units([msgspec.structs.replace(unit, hex=1401)])  # Kzinti space
    assert _hot_now(state) == frozenset({1401})
    fired = releases.fired_releases(state)
    released = tuple(sorted({*state.released, *((e, f) for e, f, _ in fired)}))
    after = msgspec.structs.replace(state, released=released)
    board_views.defer_hexes(state.board, after.board, [2210])  # units changed there alone
    assert _hot_now(after) == frozenset() == _hot_by_reasons(after)
