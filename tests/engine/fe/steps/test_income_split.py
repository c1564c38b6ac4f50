"""Phase 1C3 divides income between the treasury and partial grids (413.44) without looking
up each source when the grid has no partial grid.

`engine.fe.steps.economy.split_income` sends the whole income to the treasury when the
empire's supply grid holds no partial grid (no source can lie in one); otherwise it is
`provinces.split`. For grids with and without partial grids and random incomes (paying
provinces and planets anywhere, shares, off-map income), its answer is `provinces.split`'s.
"""

from __future__ import annotations

import random

from engine.fe import provinces
from engine.fe.economics import Income
from engine.fe.steps.economy import split_income
from engine.fe.supply import SupplyGrid, supply_grid
from tests.engine.fe.supply_boards import GALAXY, THO_ALONE, board

NZ_PLANET = 2214
"""A neutral-zone minor planet 8 hexes from Tholia: a partial grid of its own."""


def _grids() -> list[SupplyGrid]:
    with_partial = supply_grid(GALAXY, board(owners=(*THO_ALONE, (NZ_PLANET, "THO"))), "THO")
    assert provinces.grid_keys(with_partial)
    plain = [supply_grid(GALAXY, board(), empire) for empire in ("FED", "KLI", "KZI", "THO")]
    assert not any(provinces.grid_keys(grid) for grid in plain)
    return [with_partial, *plain]


def test_the_split_is_provinces_split_with_and_without_partial_grids() -> None:
    rng = random.Random(41344)
    province_ids = [p.id for p in GALAXY.provinces]
    planet_hexes = [info.hex for info in GALAXY.hexes if info.planets] + [NZ_PLANET]
    kept = 0
    for grid in _grids():
        for _ in range(60):
            earned = Income(
                grid.empire,
                total2=rng.randint(0, 400),
                permille=rng.choice((1000, 500, 250)),
                offmap2=rng.choice((0, 0, 7)),
                paying_provinces=tuple(rng.sample(province_ids, rng.randint(0, 12))),
                paying_planets=tuple(
                    (h, rng.randint(1, 10)) for h in rng.sample(planet_hexes, rng.randint(0, 6))
                ),
            )
            expected = provinces.split(
                GALAXY,
                grid,
                earned.total2,
                earned.permille,
                earned.paying_provinces,
                earned.paying_planets,
                earned.offmap2,
            )
            assert split_income(grid, earned) == expected
            kept += bool(expected.grids)
    assert kept > 5  # partial grids did keep income
