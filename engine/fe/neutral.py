"""Neutral zones (503.6): who may enter the hexes the map marks as neutral.

The map gives the neutral zone's hexes and planets (158 hexes, six planets: sourced, the map
data and the rules notes). The rulebook summary names rule 503.6 but gives none of its text,
so the entry rule here is a choice (C in ``fe-rules-notes.md``), the game option
``neutral-zone``:

- ``at-war`` (default): the zones are buffers kept by treaty between the empires whose space
  they separate. A unit may enter a neutral-zone hex only when its empire is at war with one
  of the empires flanking that part of the zone: the owners (on the map as printed) of the
  non-neutral hexes within two hexes of it, the width of the widest zone. So the Kzinti may
  not cross the zone toward the Klingons before the two are at war, and may once they are.
- ``open``: any unit may enter (the engine's behaviour before this option).

I: only entering is checked (operational, reaction and reserve movement, through
`engine.fe.steps.movement`): a unit already in the zone may stay and leave. A hex annexed
out of the zone (448.17) belongs to its annexer and is no longer neutral: the board's owner
decides, not the printed map.
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.core import caches, hexgrid
from engine.core.ruleset import OptionSpec, OptionValue, Violation
from engine.fe.forces import Board
from engine.fe.galaxy import NEUTRAL_ZONE, Galaxy, HexId

NEUTRAL_ZONE_RULE = "503.6"
NEUTRAL_ZONE_OPTION = "neutral-zone"
AT_WAR = "at-war"
OPEN = "open"
FLANK_REACH = 2
"""How far from a neutral-zone hex the empires it separates are looked for."""

OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        NEUTRAL_ZONE_OPTION,
        AT_WAR,
        "Who may enter neutral-zone hexes: 'at-war' (an empire at war with one of the empires "
        "the zone separates there) or 'open' (anyone)",
        NEUTRAL_ZONE_RULE,
        choices=(AT_WAR, OPEN),
    ),
)
"""C in the rules notes: the entry rule of 503.6 (its text is not in the sources)."""


def zone_open(options: Mapping[str, OptionValue]) -> bool:
    """Whether the game lets anyone enter the neutral zone (option ``neutral-zone=open``)."""
    return options.get(NEUTRAL_ZONE_OPTION, AT_WAR) == OPEN


@caches.derived(maxsize=512, shipped=True)
def _flanking(galaxy: Galaxy, h: HexId) -> tuple[str, ...]:
    found = {
        galaxy.hex(n).empire
        for n in hexgrid.within(h, FLANK_REACH, galaxy.width, galaxy.height)
        if galaxy.hex(n).empire not in ("", NEUTRAL_ZONE)
    }
    return tuple(sorted(found))


def flanking(galaxy: Galaxy, h: HexId) -> tuple[str, ...]:
    """The empires whose printed space lies within two hexes of neutral-zone hex ``h``."""
    return _flanking(galaxy, h)


def entry_problem(
    galaxy: Galaxy,
    board: Board,
    empire: str,
    h: HexId,
    options: Mapping[str, OptionValue],
) -> Violation | None:
    """Why ``empire``'s units may not enter ``h`` under 503.6 (None when they may, or when
    ``h`` is not a neutral-zone hex now)."""
    if board.owner(galaxy, h) != NEUTRAL_ZONE or zone_open(options):
        return None
    sides = flanking(galaxy, h)
    others = [s for s in sides if s != empire]
    if not others or any(board.enemies(empire, s) for s in others):
        return None
    between = " and ".join(sides) if len(sides) < 3 else f"{', '.join(sides[:-1])} and {sides[-1]}"
    return Violation(
        f"{h:04d} is in the neutral zone between {between}; {empire} is at war with none of "
        f"{', '.join(others)} (option {NEUTRAL_ZONE_OPTION}={AT_WAR})",
        NEUTRAL_ZONE_RULE,
    )
