"""Income reads disruption (430.22) only in the provinces' hexes that hold stacks.

`engine.fe.economics.income` reads the hexes of the paying provinces that the board has
units in, not all of them (an empty hex holds no foe's ship), and, when the board's
occupancy index is at hand (`occupancy.board_index`), asks about ships only in the hexes a
foe stands in. On random boards of ships, bases and cripples of three empires in and around
their provinces, at war or not, with captured provinces, with and without the index, every
income is the one computed from the disruption of every hex the provinces have.
"""

from __future__ import annotations

import random

from engine.core import caches
from engine.fe import economics, occupancy, provinces
from engine.fe.economics import EconomyOptions, income
from engine.fe.forces import Board
from engine.fe.galaxy import HexId
from tests.engine.fe.supply_boards import GALAXY, board, unit

KINDS = {"KLI": ["D7", "F5", "BATS", "D6"], "KZI": ["BC", "CL", "BATS"], "LYR": ["CA", "DD"]}
"""The classes of the random boards' units: ships and bases of three empires."""


def _random_board(rng: random.Random, hexes: list[HexId]) -> Board:
    units = [
        unit(f"{e}-{n}", rng.choice(KINDS[e]), rng.choice(hexes), crippled=rng.random() < 0.2)
        for n in range(rng.randint(0, 40))
        for e in [rng.choice(list(KINDS))]
    ]
    wars = tuple(p for p in (("KLI", "KZI"), ("KZI", "LYR"), ("KLI", "LYR")) if rng.random() < 0.7)
    owners = tuple(sorted({h: rng.choice(list(KINDS)) for h in rng.sample(hexes, 6)}.items()))
    return board(*{u.id: u for u in units}.values(), owners=owners, wars=wars)


def _every_hex_read(board_: Board, empire: str, captured: tuple[str, ...]) -> economics.Income:
    """`income` with the disruption of every hex of the paying provinces read."""
    watched = economics._given(GALAXY, empire, ())[3].union(
        *(GALAXY.province(pid).hexes for pid in captured)
    )
    hot = provinces.disrupting_hexes(board_, provinces.foes_of(board_, empire), watched)
    return economics._income(
        GALAXY,
        empire,
        "war",
        (),
        captured,
        frozenset(),
        frozenset(),
        True,
        EconomyOptions(),
        0,
        board_.owners,
        frozenset(hot),
    )


def test_income_reads_the_disruption_of_every_province_hex_on_random_boards() -> None:
    rng = random.Random(4302)
    hexes = [h for p in GALAXY.provinces if p.empire in KINDS for h in p.hexes]
    others = {
        e: [p.id for p in GALAXY.provinces if p.empire in KINDS and p.empire != e] for e in KINDS
    }
    disrupted = indexed = 0
    for trial in range(80):
        b = _random_board(rng, hexes)
        if trial % 2:
            occupancy.board_index(GALAXY, b)
            indexed += caches.peek(occupancy.board_index, GALAXY, b) is not None
        for empire in KINDS:
            captured = tuple(sorted(rng.sample(others[empire], rng.randint(0, 2))))
            earned = income(GALAXY, b, empire, "war", captured=captured)
            assert earned == _every_hex_read(b, empire, captured), (trial, empire)
            disrupted += earned.disrupted
    assert disrupted > 30  # the boards did disrupt provinces
    assert indexed == 40  # half of them read from the occupancy index
