"""Battle hexes (302.0): every hex holding units of two empires at war is a battle hex, and so
is every hex where a ship meets an enemy planet (508.0: planets defend, with or without PDUs).

The phasing player then chooses the order in which they are fought (302.9). Combat itself is
a later rules area; until then the combat phase stays manual, and this list tells the players
where they have to fight. Which planets fight is `engine.fe.planets`' reading (a devastated
planet does not).
"""

from __future__ import annotations

from itertools import compress

import msgspec

from engine.fe import board_views, planets
from engine.fe.forces import OFF_MAP, Board
from engine.fe.galaxy import Galaxy, HexId

_SEVERAL = (1).__lt__
"""Whether a count is more than one (called in C)."""


class BattleHex(msgspec.Struct, frozen=True):
    """A hex where empires at war meet, with the empires present (sorted); ``planet`` names
    the empire whose planet defends the hex ("" when no planet fights there)."""

    hex: HexId
    empires: tuple[str, ...]
    planet: str = ""


def battle_hexes(board: Board, galaxy: Galaxy | None = None) -> list[BattleHex]:
    """Every battle hex on the board, in hex-id order; planets count when ``galaxy`` is given."""
    # Which empires stand in each hex, kept per board (`board_views.empires_by_hex`).
    present = board_views.empires_by_hex(board)
    defended = planets.planet_battles(galaxy, board) if galaxy is not None else {}
    battles = []
    # An empire alone in its hex makes no battle there (nor do the units off the map): the
    # hexes of several empires or of a defending planet are picked out first.
    contested = compress(present, map(_SEVERAL, map(len, present.values())))
    for h in sorted({*contested, *defended} - {OFF_MAP}):
        owner = defended.get(h, "")
        empires = sorted({*present[h], owner} if owner else present[h])
        if owner or any(
            board.enemies(a, b) for i, a in enumerate(empires) for b in empires[i + 1 :]
        ):
            battles.append(BattleHex(h, tuple(empires), owner))
    return battles
