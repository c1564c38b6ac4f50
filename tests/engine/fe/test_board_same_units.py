"""A state whose units are the very tuples of the last state's (a turn begun, a war declared,
a fleet released, a hex taken) gets a board that shares what was read of those units
(`board_update.board_of`: `share_unit_views`, `occupancy.share_index`): the occupancy
index when the owners are the same, left on the board for when it is asked
(`occupancy.held_index`), and carried from there to the boards its moves make.

Random chains of unit changes, wars, releases, captures of hexes and devastation are read
at random points and compared with a board that shares nothing with them. A move's units
are found one by one in their empire's tuple (`board_update._replaced`): random edits of
tuples whose ids interleave give what a sort of the edited units gives.
"""

from __future__ import annotations

import random

import msgspec
import pytest

from engine.fe import blocking, board_update, board_views, occupancy
from engine.fe.forces import OFF_MAP, Board, Unit, war_pairs
from engine.fe.galaxy import Galaxy, load_galaxy
from engine.fe.model import FeState
from tests.engine.fe.helpers import start
from tests.engine.fe.test_board_links import _change

EMPIRES = ("FED", "HYD", "KLI", "KZI", "LYR", "ROM", "THO")


def _galaxy() -> Galaxy:
    return load_galaxy()


def _plain(board: Board) -> Board:
    """A copy of ``board`` with none of its views."""
    return Board(board.units, board.owners, board.at_war, board.released, board.devastated)


def _check(board: Board, where: str) -> None:
    """Every blocking view of ``board`` (held, shared or read now) against a fresh board's."""
    galaxy = _galaxy()
    plain = _plain(board)
    fresh_index = occupancy.board_index.__wrapped__(galaxy, plain)  # type: ignore[attr-defined]
    assert occupancy.board_index(galaxy, board) == fresh_index, f"{where}: the occupancy index"
    for empire in EMPIRES:
        fresh_flags = frozenset(blocking._presence(galaxy, plain, empire).items())
        flags = blocking.presence_set(galaxy, board, empire)
        assert flags == fresh_flags, f"{where}: {empire}'s presence flags"
        fresh_blocked = blocking._blocked_by.__wrapped__(  # type: ignore[attr-defined]
            galaxy, fresh_flags, "supply"
        )
        assert blocking.blocking_hexes(galaxy, board, empire, "supply") == fresh_blocked
    assert board._by_hex == Board(board.units)._by_hex, f"{where}: the hex index"
    fresh_empires = board_views.empires_by_hex.__wrapped__(Board(board.units))  # type: ignore[attr-defined]
    assert board_views.empires_by_hex(board) == fresh_empires, f"{where}: empires by hex"


def _other_part(state: FeState, rng: random.Random) -> FeState:
    """``state`` with a part of its board other than the units changed: a war declared or
    ended, a fleet released, a hex taken or given back, a planet devastated."""
    kind = rng.randrange(5)
    if kind == 0:
        a, b = rng.sample(EMPIRES, 2)
        return msgspec.structs.replace(state, at_war=war_pairs([*state.at_war, (a, b)]))
    if kind == 1 and state.at_war:
        gone = rng.choice(state.at_war)
        return msgspec.structs.replace(state, at_war=tuple(p for p in state.at_war if p != gone))
    if kind == 2:
        fleet = (rng.choice(EMPIRES), f"Fleet {rng.randrange(5)}")
        return msgspec.structs.replace(state, released=tuple(sorted({*state.released, fleet})))
    on_map = sorted({u.hex for u in state.board.units if u.hex != OFF_MAP})
    h = rng.choice(on_map)
    if kind == 3:
        owners = dict(state.owners)
        if h in owners and rng.random() < 0.5:
            del owners[h]
        else:
            owners[h] = rng.choice(EMPIRES)
        return msgspec.structs.replace(state, owners=tuple(sorted(owners.items())))
    return msgspec.structs.replace(state, devastated=tuple(sorted({*state.devastated, h})))


@pytest.mark.parametrize("seed", [41, 42, 43])
def test_boards_of_the_same_units_read_what_a_fresh_board_reads(seed: int) -> None:
    """Unit changes and changes of the other parts, in random order, read at random points
    (the blocking views of a board read before its successor is made, or not): every
    board's views are a fresh board's, and the occupancy index and presence flags were
    shared, not read again, for most boards of the same units as the one before."""
    rng = random.Random(seed)
    state = start()
    shared = flags_shared = 0  # (the second: carried on from a shared index)
    for number in range(120):
        before = state.board
        if rng.random() < 0.5:
            state = state.with_units(_change(state, rng, number))
            board = state.board
        else:
            state = _other_part(state, rng)
            board = state.board
            assert board is not before
            held_before = occupancy.held_index(_galaxy(), before)
            if held_before is not None:
                if board.owners == before.owners:
                    shared += occupancy.held_index(_galaxy(), board) is held_before
                # The boards its moves make carry it on (`occupancy.defer_carry`).
                after = state.with_units(_change(state, rng, 1000 + number)).board
                flags_shared += occupancy._PENDING in after.__dict__
        if rng.random() < 0.6:
            _check(board, f"change {number}")
    _check(state.board, "the last board")
    assert shared > 10, "hardly any occupancy index was shared"
    assert flags_shared > 10, "hardly any shared index was carried on"


def test_a_war_declared_shares_the_index_and_reads_the_flags_again() -> None:
    """A war between two empires leaves the occupancy index as it was (the very one), and
    every empire's presence flags read from it are a fresh board's."""
    state = start()
    board = state.board
    galaxy = _galaxy()
    held = occupancy.board_index(galaxy, board)
    pair = next((a, b) for a in EMPIRES for b in EMPIRES if a < b and (a, b) not in state.at_war)
    declared = msgspec.structs.replace(state, at_war=war_pairs([*state.at_war, pair]))
    assert occupancy.held_index(galaxy, declared.board) is held
    assert occupancy.board_index(galaxy, declared.board) is held
    _check(declared.board, "after the war")


def test_a_hex_taken_reads_the_occupancy_again() -> None:
    """The occupancy index reads the owners (the map's bases count for the hex's owner): a
    board whose owners changed shares none of it."""
    state = start()
    galaxy = _galaxy()
    occupancy.board_index(galaxy, state.board)
    base_hex = occupancy._map_bases(galaxy, ())[0][0]
    taken = msgspec.structs.replace(state, owners=((base_hex, "HYD"),))
    assert occupancy.held_index(galaxy, taken.board) is None
    _check(taken.board, "the hex taken")


def _interleaved(rng: random.Random, count: int) -> tuple[Unit, ...]:
    """One empire's units in id order, each original followed by copies of its id."""
    units = []
    for n in range(count):
        uid = f"LYR-{n:04d}"
        units.append(Unit(uid, "LYR", "CA", 100 + n % 7))
        units.extend(Unit(f"{uid}-{k}", "LYR", "FF", 100 + n % 7) for k in range(2, 5))
    return tuple(units)


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_edits_among_interleaved_ids_give_a_sorted_edit(seed: int) -> None:
    """`board_update._edited` of random edits (moves of scattered or neighbouring ids, new
    ids, ids taken out) is the units sorted by id with the edits made, and the very tuple
    when nothing changes; edits of ids all there are made in place (`_replaced`)."""
    rng = random.Random(seed)
    units = _interleaved(rng, 60)
    for _ in range(60):
        ids = [u.id for u in units]
        start_at = rng.randrange(len(ids))
        if rng.random() < 0.5:
            picked = rng.sample(ids, rng.randrange(1, 20))
        else:
            picked = ids[start_at : start_at + rng.randrange(1, 30)]
        edits: dict[str, Unit | None] = {
            uid: Unit(uid, "LYR", "CA", rng.randrange(100, 110)) for uid in picked
        }
        if rng.random() < 0.2:
            edits[f"LYR-{rng.randrange(60):04d}-9"] = Unit("x", "LYR", "CA", 101)
            edits = {
                uid: u if u is None else msgspec.structs.replace(u, id=uid)
                for uid, u in edits.items()
            }
        if rng.random() < 0.2:
            edits[rng.choice(ids)] = None
        expected = {u.id: u for u in units}
        for uid, unit in edits.items():
            if unit is None:
                expected.pop(uid, None)
            else:
                expected[uid] = unit
        got = board_update._edited(units, edits)
        assert got == tuple(expected[uid] for uid in sorted(expected))
        if all(unit is not None and unit.id in ids for unit in edits.values()):
            # Ids all there: found in place, not left to the general edit.
            assert board_update._replaced(units, edits) == got  # type: ignore[arg-type]
        assert board_update._edited(got, {u.id: u for u in got[:5]}) is got
        units = got
