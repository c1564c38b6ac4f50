"""Which hexes an empire's units may enter, read by movement, reaction and retreat.

A unit may not enter the space of an empire it is not at war with unless that empire is on its
own side (503.0); the neutral zone follows `engine.fe.neutral` (503.6). A reserve's path avoids
hexes held by enemies when some path within its allowance does (203.74): `clear_path_exists`.
The readings are listed in `engine.fe.steps.movement`'s docstring.
"""

from __future__ import annotations

from engine.core import hexgrid
from engine.core.ruleset import Violation
from engine.fe import neutral
from engine.fe.forces import Board
from engine.fe.galaxy import NEUTRAL_ZONE, HexId
from engine.fe.model import FeState
from engine.fe.steps import base

NEUTRAL_RULE = "503.0"


def side_of(state: FeState, empire: str) -> str:
    for entry in base.scenario(state).seats:
        if empire in entry.empires:
            return entry.side
    return ""


def closed_to(state: FeState, empire: str, h: HexId) -> str:
    """Whose space ``h`` is, if ``empire`` may not enter it ("" when it may, 503.0; the
    neutral zone, ``"NZ"``, by `engine.fe.neutral`, 503.6)."""
    owner = state.board.owner(base.galaxy(), h)
    if owner == NEUTRAL_ZONE:
        return NEUTRAL_ZONE if _zone_problem(state, empire, h) is not None else ""
    if owner in ("", empire) or state.board.enemies(empire, owner):
        return ""
    side = side_of(state, owner)
    return "" if side and side == side_of(state, empire) else owner


def _zone_problem(state: FeState, empire: str, h: HexId) -> Violation | None:
    return neutral.entry_problem(base.galaxy(), state.board, empire, h, dict(state.options))


def neutral_entries(state: FeState, empire: str, path: tuple[HexId, ...]) -> list[Violation]:
    out: list[Violation] = []
    board = state.board
    galaxy = base.galaxy()
    for h in path[1:]:
        if not base.on_map(h):
            return []  # the path check has said so already
        here = board.owner(galaxy, h)
        if here in ("", empire) or (here != NEUTRAL_ZONE and board.enemies(empire, here)):
            continue  # open (`closed_to`'s first answers, the usual ones, read once)
        owner = closed_to(state, empire, h)
        zone = _zone_problem(state, empire, h) if owner == NEUTRAL_ZONE else None
        if zone is not None:
            out.append(zone)
        elif owner:
            out.append(
                Violation(
                    f"{h:04d} is {owner} space and {empire} is not at war with {owner}",
                    NEUTRAL_RULE,
                )
            )
    return out


def enemy_held(board: Board, empire: str, h: HexId) -> bool:
    return any(board.enemies(empire, u.empire) for u in board.at(h))


def clear_path_exists(state: FeState, empire: str, start: HexId, end: HexId, hexes: int) -> bool:
    """Whether ``end`` can be reached from ``start`` in ``hexes`` steps without entering a
    hex held by an enemy of ``empire`` (or a closed one) on the way (203.74)."""
    galaxy = base.galaxy()
    board = state.board
    frontier = [start]
    seen = {start}
    for _ in range(hexes):
        following: list[HexId] = []
        for h in frontier:
            for n in hexgrid.neighbours(h, galaxy.width, galaxy.height):
                if n == end:
                    return True
                if n in seen or closed_to(state, empire, n) or enemy_held(board, empire, n):
                    continue
                seen.add(n)
                following.append(n)
        frontier = following
    return False
