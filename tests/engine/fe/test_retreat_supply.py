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
from engine.fe.blocking import adjacency
from engine.fe.forces import OFF_MAP, Board
from engine.fe.model import FeState
from engine.fe.steps import base, combat_retreat
from tests.engine.fe.helpers import start
from tests.engine.fe.steps.test_combat_retreat import fresh_supply_of


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
        assert found == fresh_supply_of(state, empire, asked), empire
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
