"""Retreat (302.7), pursuit (302.8, 307.0) and capture (305.1): legality and dice, nothing more.

After each round the sides may retreat, in a fixed order of announcements; a retreating
ship goes to an adjacent hex chosen by the retreat priorities; the enemy may pursue, and a
pursuit or a battle may end with an attempt to capture a crippled ship. This module holds
those rules as pure functions of given facts and given dice: who announces next, which hexes
a retreat may enter (and why another is refused), whether a pursuit or capture roll succeeds.
Moving the units and rolling the dice belong to the sequence of play.

Readings, marked as in ``fe-rules-notes.md`` (S sourced, I inferred, C a choice):

- S (302.71, 5-7A1..A3): the defender announces first, then the attacker, then the defender
  has a last option; I: a defender who announced retreat at his first option has no last
  one. S (302.712, 5-7A4): when both retreat, the defender retreats first.
- S (play aid "Retreat Priorities", applied in the listed order; 302.72, 307.73):
  1. a ship may always retreat to neutral territory, for internment;
  2. it may not pick a hex where enemy units outnumber friendly ships, if it can avoid it;
  3. if any hex left is in supply: the hex must be in supply; the player may drop the
     partial-grid hexes when main-grid ones are left; the shortest supply path must be taken;
  4. it must pick a hex free of enemy units if it can, else it makes a fighting retreat.
  I: candidates are the hexes adjacent to the battle hex that the unit may enter at all
  (the caller rules out off-map, impassable and closed hexes: ``enterable``); each "if
  possible" step applies only when it leaves at least one hex; "may drop" makes both
  readings legal: the shortest among all supplied hexes, and the shortest among main-grid
  ones.
- S (play aid "Pursuit die roll modifiers", 5-8B): a pursuit succeeds when one die is less
  than the number of pursuing ships; +1 when the retreat follows a declined approach battle
  (302.23); -1 with X or fast ships in the pursuit (523.39, 525.133), success without a roll
  when all of them are.
- S (play aid "Capture die roll modifiers", 305.1): a capture succeeds when two dice total
  less than 3; -1 each for a pursuit, a Prime Team, a ground combat ship, a web caster in
  pursuit. (A mauler used in pursuit gives an extra roll: the caller rolls again.)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

import msgspec

from engine.core.ruleset import Violation
from engine.fe.galaxy import HexId

ANNOUNCE_RULE = "302.71"
BOTH_RULE = "302.712"
PRIORITY_RULE = "302.72"
PURSUIT_RULE = "307.0"
FIGHTING_RETREAT_RULE = "302.77"
CAPTURE_RULE = "305.1"

Role = Literal["defender", "attacker"]
Grid = Literal["main", "partial", "none"]


# --- who announces (302.71) ------------------------------------------------------------------


class Announcements(msgspec.Struct, frozen=True):
    """The retreat announcements of a round so far, in the order 302.71 asks them: each is
    None until made."""

    defender_first: bool | None = None
    attacker: bool | None = None
    defender_last: bool | None = None


def next_to_announce(made: Announcements) -> Role | Literal[""]:
    """Who announces next (302.71): defender, attacker, defender; "" when all is said."""
    if made.defender_first is None:
        return "defender"
    if made.attacker is None:
        return "attacker"
    if made.defender_first is False and made.defender_last is None:
        return "defender"
    return ""


def announce(made: Announcements, role: Role, retreat: bool) -> Announcements:
    """The announcements after ``role`` says whether it retreats (ValueError when it is not
    its turn: check `announce_problems` first)."""
    problems = announce_problems(made, role)
    if problems:
        raise ValueError(problems[0].message)
    if made.defender_first is None:
        return msgspec.structs.replace(made, defender_first=retreat)
    if made.attacker is None:
        return msgspec.structs.replace(made, attacker=retreat)
    return msgspec.structs.replace(made, defender_last=retreat)


def announce_problems(made: Announcements, role: Role) -> list[Violation]:
    """Why ``role`` may not announce now (302.71)."""
    turn = next_to_announce(made)
    if turn == role:
        return []
    if not turn:
        text = "the retreat announcements of this round are over (defender, attacker, defender)"
    else:
        text = f"the {turn} announces now, not the {role}: defender first, attacker, defender last"
    return [Violation(text, ANNOUNCE_RULE)]


def retreating(made: Announcements) -> tuple[Role, ...]:
    """Who retreats, in the order they conduct their retreats (the defender first, 302.712);
    empty while announcements are pending or when nobody retreats."""
    if next_to_announce(made):
        return ()
    defender = bool(made.defender_first) or bool(made.defender_last)
    roles: list[Role] = []
    if defender:
        roles.append("defender")
    if made.attacker:
        roles.append("attacker")
    return tuple(roles)


# --- where to (302.72) -----------------------------------------------------------------------


class RetreatHex(msgspec.Struct, frozen=True):
    """The facts the retreat priorities read about one hex adjacent to the battle hex."""

    hex: HexId
    enterable: bool = True
    """False: the unit may not enter it at all (off the map, impassable, closed border)."""
    neutral: bool = False
    """Neutral territory, where a ship may always go to be interned."""
    enemy_units: int = 0
    friendly_ships: int = 0
    grid: Grid = "main"
    supply_distance: int = 0
    """Length of the shortest supply path from the hex (read when it is in supply)."""


def _keep(hexes: list[RetreatHex], test: Callable[[RetreatHex], bool]) -> list[RetreatHex]:
    """The hexes passing ``test``, or all of them when none does ("if possible")."""
    kept = [h for h in hexes if test(h)]
    return kept or hexes


def _shortest(hexes: list[RetreatHex]) -> list[RetreatHex]:
    if not hexes:
        return []
    best = min(h.supply_distance for h in hexes)
    return [h for h in hexes if h.supply_distance == best]


def legal_retreat_hexes(candidates: Sequence[RetreatHex]) -> tuple[HexId, ...]:
    """The hexes a retreating ship may enter under the priorities (302.72), in hex order."""
    open_hexes = [h for h in candidates if h.enterable]
    neutral = {h.hex for h in open_hexes if h.neutral}
    rest = [h for h in open_hexes if not h.neutral]
    rest = _keep(rest, lambda h: h.enemy_units <= h.friendly_ships)
    supplied = [h for h in rest if h.grid != "none"]
    if supplied:
        main = [h for h in supplied if h.grid == "main"]
        rest = _shortest(supplied) + [h for h in _shortest(main) if h not in _shortest(supplied)]
    rest = _keep(rest, lambda h: h.enemy_units == 0)
    return tuple(sorted(neutral | {h.hex for h in rest}))


def fighting_retreat(hex_: RetreatHex) -> bool:
    """A retreat into a hex holding enemy units is a fighting retreat (302.77)."""
    return hex_.enemy_units > 0 and not hex_.neutral


def retreat_problems(target: HexId, candidates: Sequence[RetreatHex]) -> list[Violation]:
    """Why a retreat into ``target`` is refused, naming the priority and the numbers."""
    legal = legal_retreat_hexes(candidates)
    if target in legal:
        return []
    where = f"{target:04d}"
    allowed = ", ".join(f"{h:04d}" for h in legal) or "none"
    found = next((h for h in candidates if h.hex == target), None)
    if found is None:
        text = f"{where} is not adjacent to the battle hex; a retreat may enter {allowed}"
    elif not found.enterable:
        text = f"{where} cannot be entered; a retreat may enter {allowed}"
    else:
        why = _reason(found, candidates, legal)
        text = (
            f"a retreat into {where} breaks the retreat priorities: {why}; it may enter {allowed}"
        )
    return [Violation(text, PRIORITY_RULE)]


def _reason(found: RetreatHex, candidates: Sequence[RetreatHex], legal: tuple[HexId, ...]) -> str:
    """Which priority rules ``found`` out, with its numbers."""
    where = f"{found.hex:04d}"
    by_hex = {h.hex: h for h in candidates}
    chosen = [by_hex[h] for h in legal if h in by_hex and not by_hex[h].neutral]
    if found.enemy_units > found.friendly_ships and any(
        h.enemy_units <= h.friendly_ships for h in chosen
    ):
        return (
            f"{where} holds {found.enemy_units} enemy units against {found.friendly_ships} "
            f"friendly ships (priority 2)"
        )
    if found.grid == "none" and any(h.grid != "none" for h in chosen):
        return f"{where} is out of supply while other hexes are in supply (priority 3B)"
    best = min((h.supply_distance for h in chosen if h.grid != "none"), default=None)
    if found.grid != "none" and best is not None and found.supply_distance > best:
        return (
            f"its supply path is {found.supply_distance} hexes long, the shortest is "
            f"{best} (priority 3D)"
        )
    if found.enemy_units > 0:
        return (
            f"{where} holds {found.enemy_units} enemy units and a hex free of them is open "
            f"(priority 4)"
        )
    return f"{where} is ruled out by an earlier priority"


# --- pursuit and capture (307.0, 305.1) -----------------------------------------------------


def _check_die(die: int) -> None:
    if not 1 <= die <= 6:
        raise ValueError(f"a die shows 1 to 6, not {die}")


def pursuit_modifier(declined_approach: bool = False, x_or_fast: bool = False) -> int:
    """The pursuit die modifier: +1 after a declined approach battle, -1 with X or fast
    ships in the pursuit (play aid, 5-8B)."""
    return (1 if declined_approach else 0) - (1 if x_or_fast else 0)


def pursuit_succeeds(
    die: int,
    pursuing_ships: int,
    *,
    declined_approach: bool = False,
    x_or_fast: bool = False,
    all_x_or_fast: bool = False,
) -> bool:
    """Whether a pursuit succeeds: the modified die less than the number of pursuing ships
    (automatic when every pursuer is an X or fast ship)."""
    _check_die(die)
    if pursuing_ships <= 0:
        return False
    if all_x_or_fast:
        return True
    return die + pursuit_modifier(declined_approach, x_or_fast) < pursuing_ships


CAPTURE_TARGET = 3
"""A capture succeeds on two dice totalling less than this (305.1)."""


def capture_modifier(
    pursuit: bool = False,
    prime_team: bool = False,
    ground_combat_ship: bool = False,
    web_caster: bool = False,
) -> int:
    """The capture modifier: -1 for each of a pursuit, a Prime Team, a ground combat ship,
    a web caster in pursuit (play aid)."""
    return -sum((pursuit, prime_team, ground_combat_ship, web_caster))


def capture_succeeds(
    dice: tuple[int, int],
    *,
    pursuit: bool = False,
    prime_team: bool = False,
    ground_combat_ship: bool = False,
    web_caster: bool = False,
) -> bool:
    """Whether a capture attempt succeeds: two dice plus modifiers less than 3."""
    for die in dice:
        _check_die(die)
    modifier = capture_modifier(pursuit, prime_team, ground_combat_ship, web_caster)
    return dice[0] + dice[1] + modifier < CAPTURE_TARGET
