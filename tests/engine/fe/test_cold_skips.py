"""The repair step's pass-by-itself (`repairs.repairable`) skips an empire whose classes or
kinds, when held, show no cripple (`repairs._may_hold_cripples`): the answer is the one a
pass over every unit gives, whether those views are held, carried over moves or not read,
on boards changed at random (cripples made and repaired, units moved and taken off)."""

from __future__ import annotations

import random

import msgspec
import pytest

from engine.core import caches
from engine.fe import board_update, board_views, occupancy
from engine.fe.forces import OFF_MAP, Unit
from engine.fe.galaxy import load_galaxy
from engine.fe.model import FeState
from engine.fe.steps import repairs
from tests.engine.fe.helpers import start


def _cripples_of(state: FeState) -> dict[str, bool]:
    return {f.empire: any(u.crippled for u in f.units) for f in state.forces}


def _changed(state: FeState, rng: random.Random) -> FeState:
    """A few units crippled or repaired, moved onto others or taken off the map, every
    cripple of an empire repaired, or a stack moved (a move order: `with_units` told
    ``moved``, which carries the classes as held)."""
    units = [u for u in state.board.units if u.hex != OFF_MAP]
    if rng.random() < 0.4:
        mover = rng.choice(units)
        stack = [u for u in units if u.empire == mover.empire and u.hex == mover.hex]
        to = rng.choice(units).hex
        moves = [msgspec.structs.replace(u, hex=to) for u in stack]
        return board_update.with_units(state, moves, moved=True)
    if rng.random() < 0.3:  # every cripple of an empire repaired
        empire = rng.choice(state.forces).empire
        cripples = [u for u in state.board.units if u.empire == empire and u.crippled]
        if cripples:
            return state.with_units([msgspec.structs.replace(u, crippled=False) for u in cripples])
    changed: list[Unit] = []
    for unit in rng.sample(units, rng.randint(1, 6)):
        roll = rng.random()
        if roll < 0.5:
            changed.append(msgspec.structs.replace(unit, crippled=not unit.crippled))
        elif roll < 0.7:
            changed.append(msgspec.structs.replace(unit, hex=OFF_MAP))
        else:
            changed.append(msgspec.structs.replace(unit, hex=rng.choice(units).hex))
    return state.with_units(changed)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_may_hold_cripples_matches_every_unit(seed: int) -> None:
    rng = random.Random(seed)
    state = start()
    seen = {True: 0, False: 0}
    for _ in range(30):
        state = _changed(state, rng)
        roll = rng.random()
        if roll < 0.3:  # the board's first reading: every empire's kinds held
            occupancy.board_index(load_galaxy(), state.board)
        elif roll < 0.6:  # the classes of some empires
            for forces in state.forces:
                if rng.random() < 0.5:
                    board_views.unit_classes(forces.units)
        expected = _cripples_of(state)
        for forces in state.forces:
            may = repairs._may_hold_cripples(forces.units)
            assert may or not expected[forces.empire], forces.empire
            held = caches.peek(board_views.unit_classes, forces.units) is not None
            if held or caches.peek(board_views.kinds_of, forces.units) is not None:
                assert may == expected[forces.empire]  # told exactly from a held view
                seen[may] += 1
    assert seen[True] and seen[False], seen
