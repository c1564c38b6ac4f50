"""A board `FeState.with_units` made derives its hex index and its empires by hex when first
asked, from the nearest board before it that holds them (`board_indexes.link_hex_index`,
`board_views.defer_empires_by_hex`), for every change since at once: each answer is what a
fresh board of the same units gives.

Random chains of changes (stacks moving, ships captured, crippled, destroyed or taken off
the map, new units built) are read at random points, now or after later boards were made,
and compared with a board that shares nothing with them.
"""

from __future__ import annotations

import random

import msgspec
import pytest

from engine.core import caches
from engine.fe import board_indexes, board_update, board_views
from engine.fe.board_indexes import LINK
from engine.fe.forces import OFF_MAP, Board, Unit
from engine.fe.model import FeState
from tests.engine.fe.helpers import fresh, start

EMPIRES = ("FED", "HYD", "KLI", "KZI", "LYR")


def _fresh_hex_index(board: Board) -> dict[int, tuple[Unit, ...]]:
    return Board(board.units)._by_hex


def _fresh_empires(board: Board) -> dict[int, tuple[str, ...]]:
    return board_views.empires_by_hex.__wrapped__(Board(board.units))  # type: ignore[attr-defined, no-any-return]


def _links(board: Board) -> int:
    """How many boards the chain of links from ``board`` keeps alive."""
    count = 0
    link = board.__dict__.get(LINK)
    while link is not None:
        count += 1
        link = link[0].__dict__.get(LINK)
    return count


def _stack(board: Board, h: int) -> list[Unit]:
    """The units in ``h``, read from the board's units (its hex index is not asked)."""
    return [u for u in board.units if u.hex == h]


def _change(state: FeState, rng: random.Random, serial: int) -> list[Unit]:
    """One change: a stack moves (whole or in part), a ship is captured (same id), crippled
    or repaired, destroyed or taken off the map, a unit is built where units stand or off
    the map, or a unit waiting off the map is set up."""
    board = state.board
    on_map = [u for u in board.units if u.hex != OFF_MAP]
    unit = rng.choice(on_map)
    kind = rng.randrange(7)
    if kind == 0:
        to = rng.choice(on_map).hex
        stack = [u for u in _stack(board, unit.hex) if rng.random() < 0.8]
        return [msgspec.structs.replace(u, hex=to) for u in stack][:15] or [unit]
    if kind == 1:
        other = rng.choice([e for e in EMPIRES if e != unit.empire])
        return [msgspec.structs.replace(unit, empire=other)]
    if kind == 2:
        return [msgspec.structs.replace(unit, crippled=not unit.crippled)]
    if kind == 3:  # destroyed, or gone off the map
        return [msgspec.structs.replace(unit, hex=OFF_MAP, crippled=False)]
    if kind == 4:
        empire = rng.choice(EMPIRES)
        where = unit.hex if rng.random() < 0.8 else OFF_MAP
        return [Unit(f"{empire}-6{serial:03d}", empire, "CA", where)]
    waiting = _stack(board, OFF_MAP)
    if kind == 5 and waiting:
        return [msgspec.structs.replace(rng.choice(waiting), hex=unit.hex)]
    return [msgspec.structs.replace(u, hex=rng.choice(on_map).hex) for u in _stack(board, unit.hex)]


def _check(board: Board, where: str, state: FeState | None = None) -> None:
    """The board's views against a fresh board's; with its ``state``, the release lookups
    of each empire's units too (`board_views.lookup_on`)."""
    if state is not None:  # first: a lookup may derive the hex index
        for forces in state.forces:
            lookup = board_views.lookup_on(board, forces.empire, forces.units)
            fresh_lookup = board_views.lookup_of.__wrapped__(forces.units)  # type: ignore[attr-defined]
            assert lookup == fresh_lookup, f"{where}: the release lookup of {forces.empire}"
    assert board._by_hex == _fresh_hex_index(board), f"{where}: the hex index"
    assert LINK not in board.__dict__, f"{where}: the link outlived the index"
    assert board_views.empires_by_hex(board) == _fresh_empires(board), f"{where}: empires"


@pytest.mark.parametrize(("seed", "under_way"), [(21, True), (22, True), (23, False)])
def test_boards_read_at_random_points_of_a_chain_give_a_fresh_reading(
    seed: int, under_way: bool
) -> None:
    """Chains of random changes, read now (often, seldom), later or never: every board's
    hex index and empires by hex are those of a fresh board of its units, and long chains
    of unread boards are derived at once when one is read."""
    rng = random.Random(seed)
    state = start() if under_way else fresh()
    _check(state.board, "start", state)
    kept: list[FeState] = []
    longest = derived_across = lookups_derived = 0
    for number in range(160):
        state = state.with_units(_change(state, rng, number))
        board = state.board
        longest = max(longest, _links(board))
        read_often = (number // 40) % 2 == 0  # runs read at most boards, then at few
        roll = rng.random()
        if roll < (0.6 if read_often else 0.08):
            derived_across += _links(board) > 1
            lookups_derived += len(board.__dict__.get(board_views._LOOKUPS_SINCE, {}))
            _check(board, f"change {number}", state)
        elif roll < 0.2:  # a reader that reads the hexes itself unless they are at hand
            held = board_views.held_empires_by_hex(board)
            assert held is None or held == _fresh_empires(board), f"change {number}: held"
        elif roll < 0.35:
            kept.append(state)
    rng.shuffle(kept)
    for number, old in enumerate(kept):
        _check(old.board, f"kept board {number}", old)
    _check(state.board, "the last board", state)
    assert longest > 5, "no long chain of unread boards"
    assert derived_across > 3, "hardly any index was derived across several boards"
    assert lookups_derived > 10, "hardly any release lookup was derived"


def test_a_packet_of_builds_derives_one_index_when_read() -> None:
    """Thirty builds nobody reads in between (a build packet) make no hex index, no empires
    by hex and no release lookups of their own; the last, read, derives them from the
    first board's at once, and they are a fresh reading's."""
    state = start()
    first = state.board
    first.at(OFF_MAP)
    board_views.empires_by_hex(first)
    for forces in state.forces:
        board_views.lookup_of(forces.units)
    yard = next(u.hex for u in first.units if u.empire == "KLI" and u.hex != OFF_MAP)
    boards = []
    for n in range(30):
        state = state.with_units([Unit(f"KLI-8{n:03d}", "KLI", "CA", yard)])
        boards.append(state.board)
    assert all("_by_hex" not in b.__dict__ for b in boards), "an index was made unasked"
    assert all(caches.peek(board_views.empires_by_hex, b) is None for b in boards)
    last = boards[-1]
    assert _links(last) == 30
    assert "KLI" in last.__dict__[board_views._LOOKUPS_SINCE], "the lookups are not left"
    _check(last, "the last build", state)
    assert all("_by_hex" not in b.__dict__ for b in boards[:-1]), "a board between was made"
    assert len(last.at(yard)) == len(first.at(yard)) + 30


def test_a_chain_keeps_at_most_the_limit_of_boards_alive(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past `board_indexes.LINK_LIMIT` unread boards, the board made from makes its index and the
    chain starts again there: no board keeps more than the limit of boards alive, and
    every index is still a fresh reading's."""
    monkeypatch.setattr(board_indexes, "LINK_LIMIT", 5)
    rng = random.Random(31)
    state = start()
    state.board.at(OFF_MAP)
    boards = []
    for number in range(40):
        state = state.with_units(_change(state, rng, number))
        boards.append(state.board)
        assert _links(state.board) <= 5, f"change {number}: the chain is too long"
    assert sum("_by_hex" in b.__dict__ for b in boards) >= 40 // 6, "the chain never restarted"
    for number, board in enumerate(boards):
        _check(board, f"board {number}")


def test_runs_past_the_limit_are_read_afresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """A run of unread boards whose changes touch more than `board_views.SINCE_LIMIT`
    hexes leaves nothing to derive the empires by hex from, nor one of more units an
    empire's release lookup: they are read afresh, the same."""
    monkeypatch.setattr(board_views, "SINCE_LIMIT", 3)
    state = start()
    board_views.empires_by_hex(state.board)
    for forces in state.forces:
        board_views.lookup_of(forces.units)
    on_map = sorted({u.hex for u in state.board.units if u.hex != OFF_MAP})
    for n, h in enumerate(on_map[:6]):
        state = state.with_units([Unit(f"HYD-8{n:03d}", "HYD", "CA", h)])
    for n in range(6):  # in one hex
        state = state.with_units([Unit(f"KLI-8{n:03d}", "KLI", "CA", on_map[0])])
    assert board_views.held_empires_by_hex(state.board) is None
    pending = state.board.__dict__.get(board_views._LOOKUPS_SINCE, {})
    assert "HYD" not in pending and "KLI" not in pending, "a run past the limit was kept"
    _check(state.board, "past the limit", state)


def test_a_board_of_the_same_units_shares_the_links() -> None:
    """`share_unit_views` hands on a link and the pending empires by hex (a fleet released
    on a board whose index waits): the board released reads what a fresh board gives."""
    state = start()
    state.board.at(OFF_MAP)
    board_views.empires_by_hex(state.board)
    mover = next(u for u in state.board.units if u.hex != OFF_MAP)
    state = state.with_units([msgspec.structs.replace(mover, hex=OFF_MAP)])
    board = state.board
    assert LINK in board.__dict__
    released = msgspec.structs.replace(board, released=(("LYR", "Home Fleet"),))
    board_update.share_unit_views(board, released)
    assert LINK in released.__dict__
    _check(released, "the released board")
    _check(board, "the board released from")
