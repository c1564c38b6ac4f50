"""Planets: their defence units at set-up, planets as defenders, capture and devastation.

Planets are part of the map (`engine.fe.galaxy`), not counters; what changes in play is who
owns a planet's hex (``Board.owners``) and whether it is devastated (``Board.devastated``).
This module answers three questions the other areas ask about them:

- which planetary defence units (PDUs) stand on the board from set-up (759.0);
- where a planet makes a battle hex, fighting for its owner (508.0, 302.0);
- whether a planet may be captured or devastated now (508.2), for the ``adjust`` order that
  records it.

Readings, marked as in ``fe-rules-notes.md`` (S sourced, I inferred, C a choice):

- S (759.0): the capital systems' planets and starbases; the starred capital planet has
  "two defense brigades". S (760.1): MAJ is a major planet's defence system (a brigade), MIN a
  minor planet's (a regiment). I: each defence system is one counter of the tables' ``PDU``
  class (508.1), so a capital hex holds two PDUs on its capital planet and one on each other
  planet of its systems (the Federation's 2908: 15 planets, 16 PDUs). Planets outside capitals
  start without PDUs (the order of battle lists none). The starbases of 759.0 are already on
  the board (`engine.fe.steps.setup_stage`).
- S (756.3, 302.2): a planet, with or without PDUs, is a base-like unit in combat. I: an
  empire's ship in the hex of a planet owned by an empire it is at war with makes a battle
  hex even when no unit of the owner is there; the planet defends for its current owner.
  S (F&E Q&A, July 2007): a devastated planet keeps only a residual defence factor, which is
  no unit: a devastated planet makes no battle hex by itself.
- I (508.2): combat is still played by hand, so the engine cannot see a planet's defences
  fall in a combat round. It reads a planet as *defeated* by an empire when no unit of an
  empire at war with it is left in the hex (the defenders' losses are recorded by their
  owner with ``adjust destroy``), or only crippled planetary defence units are. Only then may
  the attacker capture or devastate the planet, with one of its own ships in the hex.
- I (508.2, 105.0): a planet falls in combat, so its capture or devastation is recorded in
  the combat phase (5) of the captor's own player turn; at any other step it is refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import itemgetter

from engine.core import caches
from engine.fe import board_views
from engine.fe.forces import Board, Unit
from engine.fe.galaxy import Galaxy, HexId, Planet
from engine.fe.unit_kinds import is_ship
from engine.fe.units import load_units

PLANET_RULE = "508.0"
CAPTURE_RULE = "508.2"
CAPITAL_RULE = "759.0"
PDU_CLASS = "PDU"

CAPITAL_PLANET_PDUS = 2
"""PDUs on a capital planet at set-up: its two defense brigades (759.0)."""
PLANET_PDUS = 1
"""PDUs on each other planet of a capital system at set-up: its defence system (760.1)."""

COMBAT_PHASE = "5"


def is_pdu(unit: Unit) -> bool:
    """A planetary defence unit (508.1): the ``PDU`` class or a variant (``PDUv.2``)."""
    return unit.cls.startswith(PDU_CLASS)


def pdus_on(planet: Planet) -> int:
    """PDUs a capital system's planet holds at set-up (759.0, 760.1)."""
    return CAPITAL_PLANET_PDUS if planet.capital else PLANET_PDUS


def starting_pdus(galaxy: Galaxy, empire: str, capitals: Sequence[HexId]) -> list[Unit]:
    """The PDUs of the empire's capital hexes the scenario gives it, ids ``EMP-P001`` on.

    Nothing when the empire has no ``PDU`` class in the unit tables (the data check names
    such gaps). The ids cannot clash with built units (``EMP-NNNN``) or map bases
    (``EMP-BNNN``).
    """
    if load_units().find(empire, PDU_CLASS) is None:
        return []
    units: list[Unit] = []
    for h in sorted(capitals):
        for planet in galaxy.hex(h).planets:
            for _ in range(pdus_on(planet)):
                units.append(Unit(f"{empire}-P{len(units) + 1:03d}", empire, PDU_CLASS, h))
    return units


def defending_owner(galaxy: Galaxy, board: Board, h: HexId) -> str:
    """The empire whose planet in ``h`` defends it ("" for no planet or a devastated one)."""
    if not galaxy.hex(h).planets or h in board.devastated:
        return ""
    return board.owner(galaxy, h)


def attackers(galaxy: Galaxy, board: Board, h: HexId) -> tuple[str, ...]:
    """Empires with a ship in ``h`` at war with the owner of its defending planet, sorted."""
    owner = defending_owner(galaxy, board, h)
    if not owner:
        return ()
    return tuple(
        sorted({u.empire for u in board.at(h) if is_ship(u) and board.enemies(u.empire, owner)})
    )


def planet_battles(galaxy: Galaxy, board: Board) -> dict[HexId, str]:
    """Hexes where a planet fights for its owner (508.0): hex -> the defending owner.

    A hex's units are read only where a planet defends and an empire at war with its owner
    stands (`board_views.empires_by_hex`, kept per board): most occupied hexes are an
    empire's own, and their stacks are passed over whole."""
    present = board_views.empires_by_hex(board)
    found: dict[HexId, str] = {}
    # The occupied hexes (the hex index's keys) that have planets, picked out in C.
    occupied = map(itemgetter(0), board.stacks())
    for h in sorted(planet_hexes(galaxy).intersection(occupied)):
        owner = defending_owner(galaxy, board, h) if h else ""
        if not owner or not any(board.enemies(e, owner) for e in present.get(h, ())):
            continue
        if attackers(galaxy, board, h):
            found[h] = owner
    return found


@caches.by_identity(maxsize=2, shipped=True)
def planet_hexes(galaxy: Galaxy) -> frozenset[HexId]:
    """The hexes of the map with planets (of a capital system or not): a battle with a
    planet can only be in one of them (`planet_battles`)."""
    return frozenset(info.hex for info in galaxy.hexes if info.planets)


def describe(galaxy: Galaxy, h: HexId) -> str:
    """The planets of a hex in words: ``"minor planet"``, ``"capital planets (8)"``."""
    info = galaxy.hex(h)
    if info.capital:
        return f"capital planets ({len(info.planets)})"
    if len(info.planets) == 1:
        return f"{info.planets[0].kind} planet"
    return f"{len(info.planets)} planets"


def standing_defenders(board: Board, h: HexId, empire: str) -> list[Unit]:
    """Units in ``h`` of empires at war with ``empire`` that still defend the planet: all
    but crippled planetary defence units (see the module notes on *defeated*)."""
    return [
        u for u in board.at(h) if board.enemies(u.empire, empire) and not (is_pdu(u) and u.crippled)
    ]


def fall_problems(
    galaxy: Galaxy, board: Board, empire: str, h: HexId, *, combat_phase: bool
) -> list[str]:
    """Why ``empire`` may not capture or devastate the planet in ``h`` now (508.2); empty
    when it may. ``combat_phase``: the current step is in the combat phase of the player
    turn of one of the seat's own empires. The caller checks ownership and war first."""
    text = f"{h:04d}"
    if not combat_phase:
        return [
            f"the planet in {text} falls in combat: record its capture or devastation in the "
            f"combat phase ({COMBAT_PHASE}) of {empire}'s own player turn"
        ]
    if not any(is_ship(u) and u.empire == empire for u in board.at(h)):
        return [f"{empire} has no ship in {text}"]
    left = standing_defenders(board, h, empire)
    if left:
        named = ", ".join(f"{u.cls} {u.id}" for u in left[:6])
        more = f" and {len(left) - 6} more" if len(left) > 6 else ""
        units = f"{len(left)} enemy units still defend" if len(left) > 1 else "1 enemy unit defends"
        return [f"the planet in {text} is not defeated: {units} it ({named}{more})"]
    return []
