"""Battle hexes (302.0): every hex holding units of two empires at war is a battle hex.

The phasing player then chooses the order in which they are fought (302.9). Combat itself is
a later rules area; until then the combat phase stays manual, and this list tells the players
where they have to fight.
"""

from __future__ import annotations

import msgspec

from engine.fe.forces import OFF_MAP, Board
from engine.fe.galaxy import HexId


class BattleHex(msgspec.Struct, frozen=True):
    """A hex where empires at war meet, with the empires present (sorted)."""

    hex: HexId
    empires: tuple[str, ...]


def battle_hexes(board: Board) -> list[BattleHex]:
    """Every battle hex on the board, in hex-id order."""
    present: dict[HexId, set[str]] = {}
    for unit in board.units:
        if unit.hex != OFF_MAP:
            present.setdefault(unit.hex, set()).add(unit.empire)
    battles = []
    for h in sorted(present):
        empires = sorted(present[h])
        if any(board.enemies(a, b) for i, a in enumerate(empires) for b in empires[i + 1 :]):
            battles.append(BattleHex(h, tuple(empires)))
    return battles
