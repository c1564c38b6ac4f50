"""The supply check's reading of the board's occupancy index (`steps.supply._checked_on_board`)
against a reading of every unit, on random boards: an empire with no unit on the map, or
whose tuple changed with a move, a capture or a loss."""

from __future__ import annotations

import random

import msgspec
import pytest

from engine.fe import occupancy
from engine.fe.forces import OFF_MAP, Unit
from engine.fe.model import FeState
from engine.fe.steps import base
from engine.fe.steps import supply as supply_steps
from engine.fe.supply import SupplyGrid
from tests.engine.fe.test_board_census import _random_state


def _unit_by_unit(state: FeState, grid: SupplyGrid) -> supply_steps.Check:
    """The check of ``grid``'s empire read unit by unit from the board."""
    found: dict[str, list[Unit]] = {"main": [], "partial": [], "none": []}
    for unit in state.board.units:
        if unit.empire == grid.empire and unit.hex != OFF_MAP:
            found[grid.status(unit.hex)].append(unit)
    by_id = {status: tuple(sorted(units, key=lambda u: u.id)) for status, units in found.items()}
    return supply_steps.Check(len(found["main"]), by_id["partial"], by_id["none"])


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_the_check_read_off_the_occupancy_is_that_of_a_unit_by_unit_reading(seed: int) -> None:
    rng = random.Random(seed)
    state = _random_state(rng, False)
    units = list(state.board.units)
    changed: list[Unit] = []
    for _ in range(12):  # moves, a capture, losses (off the map), cripples
        unit = rng.choice(units)
        roll = rng.random()
        if roll < 0.4:
            changed.append(msgspec.structs.replace(unit, hex=rng.choice(units).hex))
        elif roll < 0.6:
            changed.append(msgspec.structs.replace(unit, hex=OFF_MAP))
        elif roll < 0.8:
            changed.append(msgspec.structs.replace(unit, crippled=not unit.crippled))
        else:
            captor = "FED" if unit.empire != "FED" else "KLI"
            changed.append(msgspec.structs.replace(unit, empire=captor))
    # An empire of the board with nothing on the map: its tuple all off it.
    gone = state.forces[-1].empire
    changed += [msgspec.structs.replace(u, hex=OFF_MAP) for u in units if u.empire == gone]
    state = state.with_units(changed)
    by_hex = occupancy.board_index(base.galaxy(), state.board)[0]
    for forces in state.forces:
        empire = forces.empire
        assert empire == gone or any(empire in here for here in by_hex.values())
        grid = supply_steps.grid_of(state, empire)
        on_board = supply_steps._checked_on_board.__wrapped__(  # type: ignore[attr-defined]
            state.board, tuple(u for u in state.board.units if u.empire == empire), grid
        )
        assert on_board == _unit_by_unit(state, grid), empire


def test_an_empire_standing_nowhere_has_no_unit_in_any_status() -> None:
    """An empire the occupancy index does not show (no unit on the map, no base of the map)
    is checked as having nothing on the map."""
    state = _random_state(random.Random(1), False)
    nowhere = (Unit("ZZZ-0001", "ZZZ", "CA", OFF_MAP),)
    state = state.with_units(nowhere)
    grid = SupplyGrid(empire="ZZZ", points=(), main=(), partial=(), partial_grids=())
    found = supply_steps._checked_on_board.__wrapped__(state.board, nowhere, grid)  # type: ignore[attr-defined]
    assert found == supply_steps.Check(0, (), ())
