"""Pinning (203.5): who may leave, or pass through, a hex that holds enemy ships.

Units in a hex with enemy ships are held there: a stack may leave (or move on through a hex
it entered) only if the friendly units that stay behind are enough to pin the enemy ships
one for one, in ship equivalents. Movement and reaction both ask the same question, so it
lives here: `pin_violation` says whether a given set of units may leave a hex, and why not.

The model, with each point marked as in ``fe-rules-notes.md`` (S sourced, I inferred,
C a choice to make configurable later):

- S (203.5, 203.54): pinning counts ship equivalents, not combat factors. An uncrippled ship
  is one, a crippled ship one half. Fighters pin too: every 6 standard fighter factors are one
  ship equivalent and 3 to 5 are a half; heavy fighters 8 and 4 to 7 (530.112); PFs 6 and 3
  (a flotilla, half a flotilla). The F&E Q&A of October 2007 gives this and the rule that
  **only like units combine**: cripples with cripples, fighters with fighters (standard and
  heavy halves may add up, 530.113), PFs with PFs, never a half of one kind with a half of
  another. Its example, three ships, one cripple and nine fighter factors pin four ships and
  two cripples, is what `covers` computes (tests/engine/fe/test_movement.py).
- S (203.53): a carrier cannot leave its fighters behind to satisfy a pin: fighters and PFs
  count only with the ship that carries them (their factors are read from that ship's side:
  a crippled carrier counts its crippled side's fighters).
- I: what has to be pinned are the enemy's *ships*: each uncrippled ship needs a whole pinning
  point, each cripple a half or a whole one. Fighters and PFs are never pinned themselves:
  they stay with their carrier. (The other reading, "the enemy's fighters pin as many of the
  mover's ships", would make a carrier with 12 factors hold three ships; the Q&A speaks only
  of the force that pins.)
- I: only ships pin or are pinned. Bases and PDUs cannot move and count nothing
  (`ship_equivalents2`); FRDs and convoys are non-ship units (531.212 lists FRDs with PDUs),
  so they neither pin nor hold anyone. Auxiliaries are non-ship units for pinning too
  (549.211), but the unit tables carry none yet, so nothing here can recognise one.
- I: a hex holding only enemy non-ship units (a base, a planet, an FRD) stops nobody.
- I: only the moving empire's own units in the hex pin for it; an ally's ships there do not.
- S (F&E Q&A, BGG thread 860090): the owner chooses which of his units are the pinned ones
  and may change the choice during the phase (move some in, move others out), so no unit is
  marked "pinned": every departure is checked against whoever stays.
- S: F-111 squadrons (527.111: 9 factors one ship equivalent, 5 to 8 a half) are not told
  apart from other fighters by the unit tables; they count as standard fighters.

Everything is in exact halves (integers); nothing here iterates a set.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

import msgspec

from engine.core.ruleset import Violation
from engine.fe import board_views
from engine.fe.forces import Board, Unit, ship_equivalents2
from engine.fe.galaxy import HexId

PIN_RULE = "203.5"
LIKE_UNITS_RULE = "203.54"

FIGHTER_HALF2 = 6
"""Doubled standard fighter factors per half ship equivalent (3 factors)."""
HEAVY_HALF2 = 8
"""Doubled heavy fighter factors per half ship equivalent (4 factors, 530.112)."""
PF_HALF = 3
"""PFs per half ship equivalent (half a flotilla of six)."""


class PinStrength(msgspec.Struct, frozen=True):
    """What a force can pin: whole pinning points, and halves that could not be paired.

    Halves of unlike units stay separate (203.54), so ``half`` counts them one by one; each
    of them can pin one crippled ship and nothing more.
    """

    whole: int = 0
    half: int = 0

    @property
    def se2(self) -> int:
        """Twice the ship equivalents, for messages."""
        return 2 * self.whole + self.half


class PinNeed(msgspec.Struct, frozen=True):
    """What it takes to pin a force: one whole point per ship, a half per cripple."""

    ships: int = 0
    cripples: int = 0

    @property
    def se2(self) -> int:
        return 2 * self.ships + self.cripples


def is_ship(unit: Unit) -> bool:
    """Whether the unit is a ship for pinning: it moves by itself and is not a non-ship unit
    (an FRD, which is towed, or a convoy, which carries cargo)."""
    info = unit.info()
    return ship_equivalents2(unit) > 0 and info.towable is None and info.cargo == 0


def _pair(halves: int) -> tuple[int, int]:
    return halves // 2, halves % 2


def pin_strength(units: Iterable[Unit]) -> PinStrength:
    """The pinning strength of a force (203.5, 203.54): ships, fighters and PFs, each kind
    paired only with its own kind."""
    ships = cripples = fighters2 = heavy2 = pfs = 0
    for unit in units:
        if not is_ship(unit):
            continue
        info = unit.info()
        side = info.shown(unit.crippled)
        if unit.crippled:
            cripples += 1
        else:
            ships += 1
        fighters2 += side.fighters2
        heavy2 += side.heavy2
        pfs += side.pfs
    cripple_whole, cripple_half = _pair(cripples)
    fighter_whole, fighter_half = _pair(fighters2 // FIGHTER_HALF2 + heavy2 // HEAVY_HALF2)
    pf_whole, pf_half = _pair(pfs // PF_HALF)
    return PinStrength(
        whole=ships + cripple_whole + fighter_whole + pf_whole,
        half=cripple_half + fighter_half + pf_half,
    )


def pin_need(units: Iterable[Unit]) -> PinNeed:
    """What pinning these units takes: their ships, cripples at one half each."""
    ships = cripples = 0
    for unit in units:
        if is_ship(unit):
            if unit.crippled:
                cripples += 1
            else:
                ships += 1
    return PinNeed(ships, cripples)


def covers(strength: PinStrength, need: PinNeed) -> bool:
    """Whether ``strength`` pins ``need`` one for one: every ship takes a whole point; every
    cripple a half, or a whole point left over (a whole ship equivalent pins two cripples)."""
    if strength.whole < need.ships:
        return False
    return 2 * (strength.whole - need.ships) + strength.half >= need.cripples


def enemies_in(board: Board, empire: str, h: HexId) -> tuple[Unit, ...]:
    """The units in ``h`` of empires at war with ``empire``, in id order.

    The board's empires-by-hex view (`engine.fe.board_views.empires_by_hex`, kept per board
    and carried over moves) says first whether any enemy is there at all: a stack leaving a
    hex of its own is not read unit by unit."""
    foes = [e for e in board_views.empires_by_hex(board).get(h, ()) if board.enemies(empire, e)]
    if not foes:
        return ()
    return tuple(u for u in board.at(h) if u.empire in foes)


def enemy_present(board: Board, empire: str, h: HexId) -> bool:
    """Whether units of an empire at war with ``empire`` stand in ``h`` (`enemies_in`
    would find some), told from the empires there alone."""
    return any(board.enemies(empire, e) for e in board_views.empires_by_hex(board).get(h, ()))


def se_text(se2: int) -> str:
    """Doubled ship equivalents as text: ``3``, ``1.5``."""
    return f"{se2 // 2}.5" if se2 % 2 else str(se2 // 2)


def _ship_equivalents(se2: int) -> str:
    return "ship equivalent" if se2 == 2 else "ship equivalents"


def pin_violation(
    board: Board, empire: str, h: HexId, leaving: Collection[str]
) -> Violation | None:
    """Why the units ``leaving`` may not leave ``h`` (None when they may).

    They may when ``h`` holds no enemy ship, or when ``empire``'s units that stay (those in
    ``h`` not in ``leaving``) pin every enemy ship there (203.5). The same test serves a stack
    leaving its starting hex and a stack moving on through a hex it has entered.
    """
    need = pin_need(enemies_in(board, empire, h))
    if need.se2 == 0:
        return None
    staying = [u for u in board.at(h) if u.empire == empire and u.id not in leaving]
    strength = pin_strength(staying)
    if covers(strength, need):
        return None
    held = f"{h:04d} holds {se_text(need.se2)} enemy {_ship_equivalents(need.se2)}"
    stay = f"{se_text(strength.se2)} {'stays' if strength.se2 <= 2 else 'stay'}"
    if strength.se2 >= need.se2:
        return Violation(
            f"{held}; {stay} to pin them, but halves of unlike units (a cripple, three "
            "fighter factors, three PFs) do not add up to a whole ship",
            LIKE_UNITS_RULE,
        )
    needed = f"{se_text(need.se2)} {'is' if need.se2 <= 2 else 'are'} needed"
    return Violation(f"{held}; {stay} to pin them, {needed}", PIN_RULE)


def free_to_leave(board: Board, unit: Unit) -> bool:
    """Whether ``unit`` alone may leave its hex: no enemy ship there, or its friends that stay
    pin them all (the unit is "in excess" of the enemy, 203.5)."""
    return pin_violation(board, unit.empire, unit.hex, (unit.id,)) is None
