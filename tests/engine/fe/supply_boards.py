"""Small hand-made boards on the real map for the supply, retrograde and strategic tests.

The real map is crowded with supply points (the Federation has 63), which makes distances
hard to see; `lone_capital` hands every other supply-point hex of an empire to a bystander
(the LDR, at war with nobody here), so the capital is the empire's only supply point and
every distance in a test is a distance from it.
"""

from __future__ import annotations

from engine.core import hexgrid
from engine.fe.forces import Board, Unit, war_pairs
from engine.fe.galaxy import HexId, load_galaxy

GALAXY = load_galaxy()
BYSTANDER = "LDR"


def line(start: HexId, direction: int, length: int) -> list[HexId]:
    """``start`` and the next ``length`` hexes straight on in ``direction`` (0 = north)."""
    out = [start]
    for _ in range(length):
        nxt = hexgrid.step(out[-1], direction, GALAXY.width, GALAXY.height)
        assert nxt is not None, "the line leaves the map"
        out.append(nxt)
    return out


def lone_capital(empire: str) -> tuple[tuple[HexId, str], ...]:
    """``Board.owners`` that leave ``empire`` only its capital hexes as supply points."""
    capitals = {c.hex for c in GALAXY.capitals_of(empire)}
    return tuple(
        (info.hex, BYSTANDER)
        for info in GALAXY.hexes
        if info.empire == empire and (info.planets or info.bases) and info.hex not in capitals
    )


def unit(uid: str, cls: str, h: HexId, *, crippled: bool = False, fleet: str = "") -> Unit:
    """A unit of the empire named by the id's prefix (``"FED-1"`` is Federation)."""
    return Unit(uid, uid.split("-", maxsplit=1)[0], cls, h, crippled, fleet)


def board(
    *units: Unit,
    owners: tuple[tuple[HexId, str], ...] = (),
    wars: tuple[tuple[str, str], ...] = (),
) -> Board:
    return Board(
        units=tuple(sorted(units, key=lambda u: u.id)), owners=owners, at_war=war_pairs(wars)
    )


# Federation, capital 2908 alone; SE_LINE[k] is k hexes straight south-east of it (unique
# shortest path), through space where nobody is at war with anybody unless a test says so.
FED_CAPITAL = 2908
FED_ALONE = lone_capital("FED")
SE_LINE = line(FED_CAPITAL, hexgrid.SOUTHEAST, 20)

# Tholia, 2919, alone; NORTH_LINE[k] is k hexes straight north of it.
THO_CAPITAL = 2919
THO_ALONE = lone_capital("THO")
NORTH_LINE = line(THO_CAPITAL, hexgrid.NORTH, 8)
