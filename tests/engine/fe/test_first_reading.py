"""A player turn's first readings of a board against fresh computations on random boards
(moves, captures, destruction, crippling):

- the occupancy index and presence flags carried over a change of units
  (`occupancy.carry_index`) from the board before, moves of whole or part stacks, some of
  their units crippled on the way, destruction, crippling and captures included;
- the release lookup of an empire's tuple told in id order by one sort in C, two units of
  one id included (`board_views.lookup_of`);
- the units grouped by hex (`forces.units_by_hex`, the groups a state's hex index is
  joined from).
"""

from __future__ import annotations

import random

import msgspec
import pytest

from engine.core import caches
from engine.fe import blocking, board_views, forces, occupancy
from engine.fe.board_indexes import own_unit_index
from engine.fe.forces import OFF_MAP, Board, Unit
from engine.fe.galaxy import load_galaxy
from tests.engine.fe.helpers import start
from tests.engine.fe.test_board_census import _lookup_reference


def _fresh_index(galaxy: object, board: Board) -> object:
    """`occupancy.board_index` of a board that knows nothing of where it came from."""
    bare = Board(board.units, board.owners, board.at_war, board.released, board.devastated)
    return occupancy.board_index.__wrapped__(galaxy, bare)  # type: ignore[attr-defined]


def _changed(rng: random.Random, board: Board, on_map: list[int]) -> list[Unit]:
    """One random change of ``board``: a stack of one empire (or part of it) moves to
    another hex, some of its units crippled on the way; or a few units are destroyed
    (taken off the map), crippled, or captured (another empire's, its class written as the
    builder's)."""
    stack = board.at(rng.choice(on_map))
    empire = rng.choice(sorted({u.empire for u in stack}))
    moving = [u for u in stack if u.empire == empire]
    if rng.random() < 0.3:
        moving = moving[: rng.randint(1, len(moving))]
    roll = rng.random()
    if roll < 0.6:  # a move, now and then with a unit crippled (a retreat's damage)
        to = rng.choice(on_map)
        hurt = rng.random() < 0.4
        return [
            msgspec.structs.replace(u, hex=to, crippled=u.crippled or (hurt and rng.random() < 0.3))
            for u in moving
        ]
    picked = rng.sample(moving, min(len(moving), rng.randint(1, 3)))
    if roll < 0.75:  # destroyed
        return [msgspec.structs.replace(u, hex=OFF_MAP) for u in picked]
    if roll < 0.9:  # crippled where they stand
        return [msgspec.structs.replace(u, crippled=True) for u in picked]
    captor = "KZI" if empire != "KZI" else "KLI"
    return [
        msgspec.structs.replace(u, empire=captor, cls=f"{u.empire}:{u.cls.split(':')[-1]}")
        for u in picked
    ]


@pytest.mark.parametrize("seed", [21, 22, 23])
def test_the_occupancy_index_carried_over_random_changes_is_a_fresh_one(seed: int) -> None:
    """Stacks move (whole or in part, some of their units crippled), units are destroyed,
    crippled and captured, on The Wind's board with every unit there twice and some
    crippled from the start: the occupancy index (and each empire's presence flags) that
    `carry_index` derives from the board before is the one a fresh reading gives."""
    rng = random.Random(seed)
    galaxy = load_galaxy()
    state = start()
    units = [msgspec.structs.replace(u, crippled=rng.random() < 0.05) for u in state.board.units]
    units += [msgspec.structs.replace(u, id=f"{u.id}-2") for u in units]
    board = Board(tuple(sorted(units, key=lambda u: u.id)), at_war=(("KLI", "KZI"),))
    empires = sorted({u.empire for u in board.units})
    hurt = {False: 0, True: 0}  # stacks of one empire moved, without or with cripples
    for number in range(80):
        occupancy.board_index(galaxy, board)
        for empire in empires:
            blocking.presence_set(galaxy, board, empire)
        own_unit_index(board)  # the unit index `carry_index` reads
        on_map = sorted({u.hex for u in board.units if u.hex != OFF_MAP})
        changed = _changed(rng, board, on_map)
        after = board.with_units(changed)
        by_id = {u.id: u for u in changed}
        occupancy.carry_index(
            galaxy, board, after, by_id, empires, carry_along=blocking.carry_presence
        )
        carried = caches.peek(occupancy.board_index, galaxy, after)
        assert carried is not None, number
        assert carried == _fresh_index(galaxy, after), f"change {number}"
        for empire in empires:
            flags = caches.peek(blocking.presence_set, galaxy, after, empire)
            fresh = blocking.presence_set.__wrapped__(galaxy, _bare(after), empire)  # type: ignore[attr-defined]
            assert flags == fresh, (number, empire)
        moved = [u for u in changed if u.hex != OFF_MAP]
        if len(moved) > 2 and len({u.empire for u in moved}) == 1:
            hurt[any(u.crippled for u in moved)] += 1
        board = after
    assert min(hurt.values()) > 2, f"few stacks of one empire moved, hurt or not: {hurt}"


def _bare(board: Board) -> Board:
    return Board(board.units, board.owners, board.at_war, board.released, board.devastated)


def test_a_lookup_with_two_units_of_one_id_is_the_reference() -> None:
    """Units of one empire in id order with two of one id (not a state's, whose ids are
    unique, but told as sorted by one sort): each hex's stand and the starbases come as
    the reference reads them, in the units' order, with the kinds held or not."""
    units = (
        Unit("KLI-0001", "KLI", "SB", 1202),
        Unit("KLI-0002", "KLI", "SB", 1101),
        Unit("KLI-0002", "KLI", "D7", 1101),
        Unit("KLI-0002", "KLI", "D7", 1202),
        Unit("KLI-0003", "KLI", "SB", 1202),
    )
    starbases = (  # twin starbases, the second in a hex found first by another starbase
        Unit("KLI-0001", "KLI", "SB", 1202),
        Unit("KLI-0002", "KLI", "SB", 1101),
        Unit("KLI-0002", "KLI", "SB", 1202),
    )
    for case in (units, starbases):
        expected = _lookup_reference(case)
        assert board_views.lookup_of.__wrapped__(case) == expected  # type: ignore[attr-defined]
        board_views.kinds_of(case)
        assert board_views.lookup_of.__wrapped__(case) == expected  # type: ignore[attr-defined]
    rng = random.Random(8)
    state = start()
    for _ in range(20):
        part = state.forces[rng.randrange(len(state.forces))].units
        twins = sorted(
            [*part, *(msgspec.structs.replace(u, hex=rng.choice(part).hex) for u in part[::7])],
            key=lambda u: u.id,
        )
        twinned = tuple(twins)
        assert board_views.lookup_of.__wrapped__(twinned) == _lookup_reference(twinned)  # type: ignore[attr-defined]
        board_views.kinds_of(twinned)
        assert board_views.lookup_of.__wrapped__(twinned) == _lookup_reference(twinned)  # type: ignore[attr-defined]


def test_units_grouped_by_hex_are_read_unit_by_unit() -> None:
    """Each hex's units in their order, the hexes in the order the units first show them,
    on The Wind's empires' tuples with random moves, destruction and units out of order."""
    rng = random.Random(9)
    state = start()
    hexes = sorted({u.hex for u in state.board.units})
    for _ in range(30):
        units = [
            msgspec.structs.replace(u, hex=rng.choice(hexes)) if rng.random() < 0.2 else u
            for u in state.forces[rng.randrange(len(state.forces))].units
        ]
        if rng.random() < 0.3:
            rng.shuffle(units)
        reference: dict[int, list[Unit]] = {}
        for unit in units:
            reference[unit.hex] = [*reference.get(unit.hex, []), unit]
        grouped = forces.units_by_hex.__wrapped__(tuple(units))  # type: ignore[attr-defined]
        assert list(grouped.items()) == [(h, tuple(here)) for h, here in reference.items()]
