"""Shortcuts of a player turn's first readings of a board, each against a fresh computation
on random boards (moves, captures, destruction, crippling):

- the occupancy index carried over a change of units (`blocking.carry_index`) reads the
  kinds of a moved stack from its classes alone when it is one empire's and unhurt
  (`blocking._side_classes`);
- a province's disruption read from the board's occupancy index when held
  (`blocking.ship_hexes_held`) instead of each hex's stack;
- the release lookup of an empire's tuple told in id order by one sort in C, two units of
  one id included (`board_views.lookup_of`).
"""

from __future__ import annotations

import random

import msgspec
import pytest

from engine.core import caches
from engine.fe import blocking, board_views, provinces
from engine.fe.forces import OFF_MAP, Board, Unit, own_unit_index
from engine.fe.galaxy import load_galaxy
from tests.engine.fe.helpers import start
from tests.engine.fe.supply_boards import GALAXY
from tests.engine.fe.test_board_census import _lookup_reference
from tests.engine.fe.test_provinces import KINDS, _random_board


def _fresh_index(galaxy: object, board: Board) -> object:
    """`blocking.board_index` of a board that knows nothing of where it came from."""
    bare = Board(board.units, board.owners, board.at_war, board.released, board.devastated)
    return blocking.board_index.__wrapped__(galaxy, bare)  # type: ignore[attr-defined]


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
        blocking.board_index(galaxy, board)
        for empire in empires:
            blocking.presence_set(galaxy, board, empire)
        own_unit_index(board)  # the unit index `carry_index` reads
        on_map = sorted({u.hex for u in board.units if u.hex != OFF_MAP})
        changed = _changed(rng, board, on_map)
        after = board.with_units(changed)
        by_id = {u.id: u for u in changed}
        blocking.carry_index(galaxy, board, after, by_id, empires)
        carried = caches.peek(blocking.board_index, galaxy, after)
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


def test_the_kinds_of_a_stack_are_read_as_unit_by_unit() -> None:
    """`_side_classes` gives each (side, class, crippled) once, in the order the units
    first show it, for stacks of one empire or several, hurt or not."""
    rng = random.Random(7)
    classes = ["CA", "D7", "F5", "BATS", "SB", "FF"]
    for _ in range(300):
        empires = rng.sample(["KLI", "KZI", "LYR"], rng.randint(1, 2))
        units = [
            Unit(f"U-{n}", rng.choice(empires), rng.choice(classes), 1010, rng.random() < 0.1)
            for n in range(rng.randint(0, 12))
        ]
        expected = list(dict.fromkeys((u.empire, u.cls, u.crippled) for u in units))
        assert list(blocking._side_classes(units)) == expected


def test_disruption_read_from_a_held_occupancy_index_is_read_from_the_stacks() -> None:
    """With the board's occupancy index held, the hexes where a foe's ship stands are read
    from it (`blocking.ship_hexes_held`); on random boards of ships, bases and cripples of
    three empires they are those read stack by stack, and `economics.income` pays alike."""
    rng = random.Random(4303)
    hexes = [h for p in GALAXY.provinces if p.empire in KINDS for h in p.hexes]
    found = 0
    for trial in range(40):
        b = _random_board(rng, hexes)
        assert blocking.ship_hexes_held(GALAXY, b, frozenset(KINDS), hexes) is None
        for owner in KINDS:
            foes = provinces.foes_of(b, owner)
            by_stack = provinces.disrupting_hexes(b, foes, hexes)
            blocking.board_index(GALAXY, b)
            held = blocking.ship_hexes_held(GALAXY, b, foes, hexes)
            assert held == by_stack, (trial, owner)
            assert provinces.disrupting_hexes(b, foes, hexes, GALAXY) == by_stack
            found += len(by_stack)
    assert found > 20  # the boards did disrupt provinces


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
