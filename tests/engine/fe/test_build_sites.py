"""Where new units may appear (`production.build_sites`, its held capitals remembered per
captures tuple) is what reading each capital's owner off the board gives, on boards whose
captures change at random: capitals taken and given back, the same captures in a new tuple,
and boards that share a captures tuple while their units differ."""

from __future__ import annotations

import random

import msgspec
import pytest

from engine.fe import production
from engine.fe.forces import Board
from engine.fe.galaxy import HexId, load_galaxy
from tests.engine.fe.helpers import start


def _fresh_sites(board: Board, empire: str, shipyards: tuple[HexId, ...]) -> tuple[HexId, ...]:
    galaxy = load_galaxy()
    held = [c.hex for c in galaxy.capitals_of(empire) if board.owner(galaxy, c.hex) == empire]
    return tuple(dict.fromkeys([*held, *shipyards]))


@pytest.mark.parametrize("seed", range(4))
def test_build_sites_follow_the_captures_of_each_board(seed: int) -> None:
    rng = random.Random(seed)
    galaxy = load_galaxy()
    board = start().board
    empires = sorted({c.empire for c in galaxy.capitals})
    capitals = [c.hex for c in galaxy.capitals]
    owners: tuple[tuple[HexId, str], ...] = ()
    for _ in range(60):
        roll = rng.random()
        if roll < 0.4:  # a capital hex taken by some empire (or given back)
            owners = (*owners, (rng.choice(capitals), rng.choice(empires)))
        elif roll < 0.55:
            owners = tuple(owners)[1:]
        elif roll < 0.7:
            owners = tuple(list(owners))  # the same captures, a new tuple
        units = board.units[: rng.randrange(len(board.units))]
        changed = msgspec.structs.replace(board, owners=owners, units=units)
        shipyards = tuple(rng.sample(capitals, rng.randrange(3)))
        for empire in empires:
            found = production.build_sites(galaxy, changed, empire, shipyards)
            assert found == _fresh_sites(changed, empire, shipyards), (empire, owners)
    assert owners
