"""The supply searches against plain versions of themselves, on random points and blockades.

`supply.spread_in_range` (the strategic legs' search) must give what `supply.spread` over
`supply.neighbours_fn` gives, in the same order; `supply._components` (which stops once every
point is joined) must group the points as a plain pass over every pair of neighbouring hexes
does. The random boards reach both ends: one grid for every point, and many small ones.
"""

from __future__ import annotations

import random

import pytest

from engine.fe import supply
from engine.fe.galaxy import HexId, load_galaxy

EMPIRES = ("KLI", "FED", "KZI", "LYR", "HYD", "ROM", "GOR", "THO")


def _case(rng: random.Random) -> tuple[str, list[HexId], frozenset[HexId]]:
    empire = rng.choice(EMPIRES)
    hexes = sorted(supply._neighbour_table(load_galaxy(), empire))
    blocked = frozenset(rng.sample(hexes, rng.choice([0, 5, 40, 200, 600])))
    return empire, hexes, blocked


@pytest.mark.parametrize("seed", range(4))
def test_the_legs_search_is_spread_over_the_supply_neighbours(seed: int) -> None:
    rng = random.Random(seed)
    galaxy = load_galaxy()
    for _ in range(100):
        empire, hexes, blocked = _case(rng)
        sources = [(rng.choice(hexes), i) for i in range(rng.choice([1, 1, 3, 10]))]
        if blocked and rng.random() < 0.2:
            sources[0] = (rng.choice(sorted(blocked)), 0)  # a source in a blocked hex
        plain = supply.spread(
            supply.neighbours_fn(galaxy, empire),
            sources,
            blocked.__contains__,
            supply.SUPPLY_RANGE,
        )
        found = supply.spread_in_range(galaxy, empire, sources, blocked)
        assert list(found.items()) == list(plain.items())


def _plain_components(
    table: dict[HexId, tuple[HexId, ...]],
    reach: dict[HexId, tuple[int, int]],
    blocked: frozenset[HexId],
    count: int,
) -> list[int]:
    """Every pair of neighbouring hexes read, points linked when their paths add up to the
    range at most, grids found by a search over the links; each point's smallest partner."""
    links: dict[int, set[int]] = {i: set() for i in range(count)}
    for h, (d, a) in reach.items():
        for n in table.get(h, ()):
            if n in reach and h not in blocked and n not in blocked:
                e, b = reach[n]
                if a != b and d + 1 + e <= supply.SUPPLY_RANGE:
                    links[a].add(b)
                    links[b].add(a)
    root = list(range(count))
    for start in range(count):
        if root[start] != start:
            continue
        todo = [start]
        while todo:
            i = todo.pop()
            for j in links[i]:
                if root[j] == j and j > start:
                    root[j] = start
                    todo.append(j)
    return root


@pytest.mark.parametrize("seed", range(4))
def test_the_grids_are_the_points_linked_within_range(seed: int) -> None:
    rng = random.Random(100 + seed)
    sizes: set[int] = set()
    for _ in range(100):
        empire, hexes, blocked = _case(rng)
        table = supply._neighbour_table(load_galaxy(), empire)
        # Points a few hexes apart (one grid, mostly) or anywhere (many grids).
        spot = rng.choice(hexes)
        near = [h for h in hexes if abs(h // 100 - spot // 100) + abs(h % 100 - spot % 100) < 9]
        pool = near if rng.random() < 0.5 else hexes
        count = rng.choice([1, 2, 5, 20, 40])
        sources = [(rng.choice(pool), i) for i in range(count)]
        if blocked and rng.random() < 0.3:
            sources[-1] = (rng.choice(sorted(blocked)), count - 1)
        reach = supply._reach(table, sources, blocked)
        roots = supply._components(table, reach, blocked, count)
        assert roots == _plain_components(table, reach, blocked, count)
        sizes.add(len(set(roots)))
    assert 1 in sizes and max(sizes) > 5  # both ends were reached
