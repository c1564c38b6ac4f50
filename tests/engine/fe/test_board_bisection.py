"""A state's board in id order that has built no unit index finds units by bisection
(`Board.unit`, `Board.units_named`, and the units a change replaces in
`board_update.with_units`), and the occupancy index of a later board is derived from the
changed units' priors the chain of boards carries (`occupancy.defer_carry`), not from the
first board's unit index, which is then never built.

The Wind's set-up board is changed at random by a seeded generator: stacks move (as a move
order gives them, with their priors), units turn crippled, are destroyed (leave the map),
new units appear; late in the run ships change hands (a captured ship keeps its id, so the
board stops being in id order and the look-ups read a unit index again). After every change
the look-ups, the carried priors and the occupancy index are compared with a fresh
computation from the board's units.
"""

from __future__ import annotations

import random

import msgspec
import pytest

from engine.fe import board_update, id_search, occupancy
from engine.fe.forces import OFF_MAP, Board, Unit
from engine.fe.galaxy import load_galaxy
from engine.fe.model import FeState
from tests.engine.fe.helpers import start

CHANGES = 40
EMPIRES = ("FED", "HYD", "KLI", "KZI", "LYR")


def _fresh_board_index(board: Board) -> object:
    """`occupancy.board_index` built from the board's fields by the undecorated function."""
    fresh = Board(board.units, board.owners, board.at_war, board.released, board.devastated)
    return occupancy.board_index.__wrapped__(load_galaxy(), fresh)  # type: ignore[attr-defined]


def _changed(state: FeState, rng: random.Random, number: int) -> FeState:
    """``state`` after one random change (a move as a move order makes it, with priors)."""
    board = state.board
    on_map = [u for u in board.units if u.hex != OFF_MAP]
    unit = rng.choice(on_map)
    kind = rng.randrange(5 if number > CHANGES * 3 // 4 else 4)
    if kind == 0:  # a stack moves, as `apply_move_order` gives it
        here = [u for u in board.at(unit.hex) if u.empire == unit.empire]
        ids = [u.id for u in rng.sample(here, rng.randint(1, min(12, len(here))))]
        placed = dict(zip(ids, board.units_named(ids), strict=True))
        to = rng.choice(on_map).hex
        moved = [msgspec.structs.replace(u, hex=to) for u in placed.values()]
        return board_update.with_units(state, moved, moved=True, priors=placed)
    if kind == 1:
        return state.with_units([msgspec.structs.replace(unit, crippled=not unit.crippled)])
    if kind == 2:  # destroyed
        return state.with_units([msgspec.structs.replace(unit, hex=OFF_MAP)])
    if kind == 3:  # built
        empire = rng.choice(EMPIRES)
        return state.with_units([Unit(f"{empire}-9{number:03d}", empire, "CA", unit.hex)])
    other = rng.choice([e for e in EMPIRES if e != unit.empire])  # captured, same id
    return state.with_units([msgspec.structs.replace(unit, empire=other)])


def _check_look_ups(board: Board, rng: random.Random, number: int) -> bool:
    """The board's look-ups against a dict of its units; whether they bisected."""
    fresh = {u.id: u for u in board.units}
    ids = [u.id for u in rng.sample(board.units, 20)]
    bisected = "_by_id" not in board.__dict__ and board.__dict__.get("_id_sorted") is True
    assert board.units_named(ids) == [fresh[i] for i in ids], f"change {number}: units_named"
    assert all(board.unit(i) == fresh[i] for i in ids), f"change {number}: unit"
    for absent in ("AAA-0000", "ZZZ-9999", ids[0] + "x", ""):
        with pytest.raises(KeyError):
            board.unit(absent)
        with pytest.raises(KeyError):
            board.units_named([ids[1], absent])
    assert not bisected or "_by_id" not in board.__dict__, f"change {number}: index built"
    return bisected


def _check_pending(board: Board, number: int) -> bool:
    """The priors the chain carries against the units of its first board; whether any."""
    pending = board.__dict__.get(occupancy._PENDING)
    if pending is None:
        return False
    root, since, _, priors, _ = pending
    on_root = {u.id: u for u in root.units}
    expected = {uid: on_root[uid] for uid in since if uid in on_root}
    assert dict(priors) == expected, f"change {number}: the carried priors"
    return True


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_look_ups_and_carried_priors_give_the_fresh_answers(seed: int) -> None:
    rng = random.Random(seed)
    state = start()
    occupancy.board_index(load_galaxy(), state.board)  # the first board of the chain
    bisected = carried = 0
    for number in range(CHANGES):
        state = _changed(state, rng, number)
        board = state.board
        carried += _check_pending(board, number)
        bisected += _check_look_ups(board, rng, number)
        if rng.random() < 0.3:
            pending = board.__dict__.get(occupancy._PENDING)
            root = board if pending is None else pending[0]
            indexed = "_by_id" in root.__dict__
            index = occupancy.board_index(load_galaxy(), board)
            assert index == _fresh_board_index(board), f"change {number}: the occupancy index"
            assert ("_by_id" in root.__dict__) == indexed, "the derivation built a unit index"
    assert bisected > CHANGES // 2, "the units were hardly ever found by bisection"
    assert carried > CHANGES // 2, "the priors were hardly ever carried"


@pytest.mark.parametrize("seed", [5, 6, 7])
def test_a_search_by_id_finds_what_a_dict_does(seed: int) -> None:
    """`id_search.found_by_id` on units in id order, for ids in runs, at even gaps (a
    scaled board's copies), backwards, at random, repeated, and absent."""
    rng = random.Random(seed)
    units = tuple(
        Unit(f"KLI-{n:04d}{suffix}", "KLI", "CA") for n in range(300) for suffix in ("", "-2", "-3")
    )
    ids = [u.id for u in units]
    by_id = {u.id: u for u in units}
    for _ in range(60):
        start, step = rng.randrange(len(ids)), rng.choice([1, 2, 3, 5, -1, -3])
        count = rng.randint(1, 15)
        wanted = [ids[i] for i in range(start, start + step * count, step) if 0 <= i < len(ids)]
        wanted += rng.sample(ids, rng.randint(0, 3)) + wanted[:1]
        assert id_search.found_by_id(units, wanted) == [by_id[i] for i in wanted]
        for absent in ("KLI-0000-1", "KLI-9999", "AAA", wanted[0] + "x"):
            with pytest.raises(KeyError):
                id_search.found_by_id(units, [*wanted, absent])
    assert id_search.found_by_id((), []) == []
    with pytest.raises(KeyError):
        id_search.found_by_id((), ["KLI-0001"])
