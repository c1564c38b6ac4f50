"""The retreat's supply reading of a few hexes (`combat_retreat._supply_of`, a search from
each hex) gives what spreading the grid's points over the whole map gives (the reading it
replaced: two breadth-first searches from every grid point, then each hex or a neighbour).

Random boards of The Wind: units moved anywhere, crippled, destroyed, sent off the map, with
every pair of empires at war or not, so that enemy units block supply in many places; the
hexes asked about are all over the map, blocked ones included, and the off-map area too.
"""

from __future__ import annotations

import random

import msgspec
import pytest

from engine.fe import supply
from engine.fe.blocking import Blocking, adjacency
from engine.fe.forces import OFF_MAP, Board
from engine.fe.galaxy import HexId
from engine.fe.model import FeState
from engine.fe.steps import base, combat_retreat
from engine.fe.steps import supply as supply_step
from tests.engine.fe.helpers import start

_RANGE = supply.SUPPLY_RANGE


def _reference(
    state: FeState, empire: str, hexes: tuple[HexId, ...]
) -> dict[HexId, tuple[str, int]]:
    """The whole-map reading: spread from the grid's main points and from all its points,
    then a hex's own distance or a neighbour's plus one (the neighbour unblocked)."""
    galaxy = base.galaxy()
    blocked = Blocking(galaxy, state.board, empire, "supply")
    around = supply.neighbours_fn(galaxy, empire)
    points = [p for p in supply_step.grid_of(state, empire).points if p.grid >= 0]
    main = supply.spread(around, [(p.hex, 0) for p in points if p.main], blocked, _RANGE)
    every = supply.spread(around, [(p.hex, 0) for p in points], blocked, _RANGE)

    def distance(reach: dict[HexId, tuple[int, int]], h: HexId) -> int | None:
        found = [reach[h][0]] if h in reach else []
        found += [
            reach[n][0] + 1
            for n in around(h)
            if n in reach and reach[n][0] < _RANGE and not blocked(n)
        ]
        return min(found) if found else None

    out: dict[HexId, tuple[str, int]] = {}
    for h in hexes:
        to_main, to_any = distance(main, h), distance(every, h)
        out[h] = (
            ("main", to_main)
            if to_main is not None
            else ("partial", to_any)
            if to_any is not None
            else ("none", 0)
        )
    return out


def _random_state(rng: random.Random) -> FeState:
    state = start()
    spots = sorted(adjacency(base.galaxy()))
    units = []
    for original in state.board.units:
        unit = original
        roll = rng.random()
        if roll < 0.1:
            continue  # destroyed
        if roll < 0.4:
            unit = msgspec.structs.replace(unit, hex=rng.choice(spots))
        elif roll < 0.45:
            unit = msgspec.structs.replace(unit, hex=OFF_MAP)
        if rng.random() < 0.2:
            unit = msgspec.structs.replace(unit, crippled=True)
        units.append(unit)
    empires = sorted({u.empire for u in units})
    at_war = tuple(
        (a, b) for i, a in enumerate(empires) for b in empires[i + 1 :] if rng.random() < 0.6
    )
    board = state.board
    return state.with_board(
        Board(tuple(units), board.owners, at_war, board.released, board.devastated)
    )


@pytest.mark.parametrize("seed", range(6))
def test_the_supply_of_hexes_read_from_each_hex_is_the_whole_map_reading(seed: int) -> None:
    rng = random.Random(seed)
    state = _random_state(rng)
    galaxy = base.galaxy()
    every_hex = sorted(adjacency(galaxy))
    asked = (*rng.sample(every_hex, 60), OFF_MAP)
    kinds: set[str] = set()
    for empire in sorted({u.empire for u in state.board.units}):
        found = combat_retreat._supply_of(state, empire, asked)
        assert found == _reference(state, empire, asked), empire
        kinds |= {grid for grid, _ in found.values()}
    assert kinds >= {"main", "none"}


def test_supply_neighbours_are_symmetric() -> None:
    """The search from a hex reads paths backwards: it needs each step to be a step back."""
    galaxy = base.galaxy()
    table = adjacency(galaxy)
    for empire in ("FED", "KLI", "KZI", "LYR", "HYD"):
        around = supply.neighbours_fn(galaxy, empire)
        for h in [*table, OFF_MAP]:
            for n in around(h):
                assert h in around(n), (empire, h, n)
