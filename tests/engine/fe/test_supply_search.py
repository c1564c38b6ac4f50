"""The supply searches against plain versions of themselves, on random points and blockades.

`supply.spread_in_range` (the strategic legs' search) must give what `supply.spread` over
`supply.neighbours_fn` gives, in the same order; `supply_search.components` (which stops once every
point is joined) must group the points as a plain pass over every pair of neighbouring hexes
does. The random boards reach both ends: one grid for every point, and many small ones.
"""

from __future__ import annotations

import random

import msgspec
import pytest

from engine.fe import supply, supply_search
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
        reach = supply_search.reach(table, sources, blocked)
        roots = supply_search.components(table, reach, blocked, count)
        assert roots == _plain_components(table, reach, blocked, count)
        sizes.add(len(set(roots)))
    assert 1 in sizes and max(sizes) > 5  # both ends were reached


def _plain_grids(
    empire: str,
    blocked: frozenset[HexId],
    points: list[supply.SupplyPoint],
    tug_list: list[tuple[HexId, int, str]],
) -> supply.SupplyGrid:
    """`supply._grids` as it was made before its outer rings were found as sets: the whole
    search labelled, every label read where the grid is told from it."""
    table = supply._neighbour_table(load_galaxy(), empire)
    reach = supply_search.reach(table, [(p.hex, i) for i, p in enumerate(points)], blocked)
    roots = _plain_components(table, reach, blocked, len(points))
    capital = any(p.kind == "capital" for p in points)
    main_roots = sorted(
        {
            r
            for r, p in zip(roots, points, strict=True)
            if p.kind == ("capital" if capital else "offmap")
        }
    )
    number = {r: n for n, r in enumerate(main_roots + sorted(set(roots) - set(main_roots)))}
    points = [
        msgspec.structs.replace(p, grid=number[r], main=r in main_roots)
        for p, r in zip(points, roots, strict=True)
    ]
    main_reach = supply_search.reach(table, [(p.hex, p.grid) for p in points if p.main], blocked)
    tugs = []
    for h, limit, name in tug_list:
        to_main, to_any = main_reach.get(h), reach.get(h)
        grid, main = -1, False
        if to_main is not None and to_main[0] <= limit:
            grid, main = to_main[1], True
        elif to_any is not None and to_any[0] <= limit:
            grid = points[to_any[1]].grid
        tugs.append(supply.SupplyPoint(h, "tug", name, grid, main, limit))
    tug_main = supply_search.reach(table, [(t.hex, t.grid) for t in tugs if t.main], blocked)
    tug_partial = supply_search.reach(
        table, [(t.hex, t.grid) for t in tugs if t.grid >= 0 and not t.main], blocked
    )
    main_hexes = set(main_reach) | set(tug_main)
    partial = {h: points[label].grid for h, (_, label) in reach.items() if h not in main_hexes}
    for h, (_, grid) in tug_partial.items():
        if h not in main_hexes and h not in partial:
            partial[h] = grid
    return supply.SupplyGrid(
        empire,
        tuple(points + tugs),
        tuple(sorted(main_hexes)),
        tuple(sorted(partial)),
        tuple(partial[h] for h in sorted(partial)),
    )


@pytest.mark.parametrize("seed", range(4))
def test_the_grids_are_the_whole_search_read_plainly(seed: int) -> None:
    """`supply._grids` (its outer rings found as sets when every point is in a main grid
    and no transport extends it, else the whole search labelled) against `_plain_grids`:
    one main grid, partial grids, transports, points in blocked hexes."""
    rng = random.Random(200 + seed)
    galaxy = load_galaxy()
    kinds: set[tuple[bool, bool]] = set()
    for _ in range(60):
        empire, hexes, blocked = _case(rng)
        spot = rng.choice(hexes)
        near = [h for h in hexes if abs(h // 100 - spot // 100) + abs(h % 100 - spot % 100) < 9]
        pool = near if rng.random() < 0.5 else hexes
        count = rng.choice([1, 2, 5, 20, 40])
        kinds_of = ["capital"] + ["planet", "base"] * 3 if rng.random() < 0.8 else ["planet"]
        points = [
            supply.SupplyPoint(rng.choice(pool), rng.choice(kinds_of), f"p{i}")
            for i in range(count)
        ]
        if rng.random() < 0.7:  # a capital first (a main grid), and often one grid only
            points[0] = supply.SupplyPoint(points[0].hex, "capital", "capital")
        if blocked and rng.random() < 0.3:
            points[-1] = supply.SupplyPoint(rng.choice(sorted(blocked)), "planet", "stuck")
        tug_list = [
            (rng.choice(pool), rng.choice([supply.TUG_REACH, supply.LTT_REACH]), f"t{i}")
            for i in range(rng.choice([0, 0, 1, 3]))
        ]
        found = supply._grids(galaxy, empire, blocked, tuple(points), tuple(tug_list))
        assert found == _plain_grids(empire, blocked, points, tug_list)
        kinds.add((all(p.main for p in found.points), bool(tug_list)))
    # (every point main without transports: the sets; partial grids, transports: labels)
    assert (True, False) in kinds and (False, False) in kinds and any(t for _, t in kinds)
