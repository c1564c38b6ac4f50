"""Reaction movement (205.0, Phase 3B3): the non-phasing side answers an enemy's move.

When a phasing unit enters a hex, or stops in one, non-phasing units within reaction range
of that hex may move toward it, once per phase. The game flow (not wired yet) will call
`reaction_candidates` after each hex a phasing stack enters, with the board showing the stack
there, and `check_reaction` / `apply_reaction` for the reactions the non-phasing player orders.
Reactions reuse movement's `Move` (a stack and its path) and its checks.

Rules, each marked as in ``fe-rules-notes.md`` (S sourced, I inferred, C a choice):

- S (205.0): reaction range is 1 hex; a unit may react when an enemy moves within its range,
  but not when the enemy moves away from it, and when an enemy stops within its range (an
  F&E Q&A ruling: "movement within reaction range that is not away from the unit, or
  stopping within reaction range"; being pinned by itself provokes nothing). "Away" is
  measured in hexes: the enemy's new hex is farther from the unit than the one it left. I: a
  move that keeps the distance (sliding past) is not away. Pass ``from_hex == moved_to`` for
  "the enemy stopped here".
- C: extended reaction (2 hexes) exists (the April 2011 F&E Q&A shows a frigate using it),
  but the sources at hand do not say which units have it. Callers name the units that do in
  ``extended``; by default none. Auxiliaries react one hex, extended or not (549.23), and no
  unit reacts farther than its own movement allowance.
- S (205.0, 203.51): reaction is movement and is subject to pinning: a pinned unit (in a hex
  with enemy ships that its friends staying behind would not pin) may not react, and a
  reacting stack stops in a hex with enemy ships unless it leaves enough behind to pin them.
- S (April 2011 Q&A, "ripple reaction"): no chain reactions: a unit reacts at most once per
  phase (the caller keeps ``reacted``; `mark_reacted` updates it), and only phasing moves open
  reactions, never another reaction.
- I: every step of a reaction brings the stack one hex closer to the hex the enemy entered;
  a unit already in that hex has nothing to react with.
- S (600.3): units of an unreleased fleet may not react.
- I: a reaction is opened only by units of a phasing empire at war with the reacting unit's
  empire being in ``moved_to``; non-phasing units of several empires may each react.
- Not modelled: reaction by fighters and PFs alone (205.7), restrictions caused by enemy
  ships beyond pinning (205.6), the Federation and Tholian reaction rules (318.3, 318.5),
  police ships (531.x), reaction against raids (314.241).
"""

from collections.abc import Collection, Iterable
from itertools import pairwise
from typing import Literal

import msgspec

from engine.core import hexgrid
from engine.core.ruleset import Violation
from engine.fe import board_views
from engine.fe.forces import OFF_MAP, Board, Unit, allowance
from engine.fe.galaxy import Galaxy, HexId
from engine.fe.movement import (
    RELEASE_RULE,
    Move,
    apply_move,
    check_path,
    check_pins,
    check_units,
)
from engine.fe.pinning import PIN_RULE, pin_violation

REACTION_RULE = "205.0"
REACTION_RANGE = 1
EXTENDED_REACTION_RANGE = 2


class ReactionPolicy(msgspec.Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True):
    """What a seat signed in advance for its reaction windows (3B3), so that the phasing
    player's movement batches need no email from it (`engine.fe.steps.reaction_policy`).
    Public, like every order: the phasing player reads it before moving.

    ``mode`` "never": the seat never reacts (every window passes); "react": ``units`` (empty:
    any of the seat's units) react to an enemy entering ``hexes`` (empty: any hex within
    their reaction range), the hexes named first preferred; "ask" (the default) cancels the
    policy. ``otherwise`` says what happens when a unit could react where the policy does not
    cover it (a unit or a hex it does not name): "stay" (it does not react) or "ask" (the seat
    is asked). Units are kept sorted, hexes in the order named."""

    mode: Literal["ask", "never", "react"] = "ask"
    units: tuple[str, ...] = ()
    hexes: tuple[str, ...] = ()
    otherwise: Literal["stay", "ask"] = "stay"


class Candidate(msgspec.Struct, frozen=True):
    """A unit that may react now: where it is and how many hexes it may react."""

    unit_id: str
    hex: HexId
    reach: int


def reach(unit: Unit, extended: Collection[str] = ()) -> int:
    """Hexes ``unit`` may react: 1, or 2 if it has extended reaction, never more than its
    allowance (an FRD 1, a base 0)."""
    base = EXTENDED_REACTION_RANGE if unit.id in extended else REACTION_RANGE
    return min(base, allowance(unit))


def _enemy_entered(board: Board, phasing: Collection[str], unit: Unit, moved_to: HexId) -> bool:
    """Whether a phasing enemy of ``unit`` stands in ``moved_to``: read from the empires
    there (`board_views.empires_by_hex`, kept per board), not unit by unit."""
    return any(
        e in phasing and board.enemies(e, unit.empire)
        for e in board_views.empires_by_hex(board).get(moved_to, ())
    )


def _not_eligible(
    board: Board,
    phasing_empires: Collection[str],
    moved_to: HexId,
    from_hex: HexId,
    unit: Unit,
    reacted: Collection[str],
    extended: Collection[str],
) -> Violation | None:
    """`why_not` without the pin, which `check_reaction` judges for the whole stack."""
    uid = unit.id
    if unit.empire in phasing_empires:
        return Violation(
            f"{uid} belongs to a phasing empire; only the other side reacts", REACTION_RULE
        )
    if uid in reacted:
        return Violation(f"{uid} has already reacted this phase", REACTION_RULE)
    if unit.hex == OFF_MAP:
        return Violation(f"{uid} is not on the map", REACTION_RULE)
    if not board.is_released(unit):
        return Violation(
            f"{uid}: fleet {unit.fleet} ({unit.empire}) is not released "
            "(600-series scenario rules)",
            RELEASE_RULE,
        )
    if not _enemy_entered(board, phasing_empires, unit, moved_to):
        return Violation(f"no enemy of {unit.empire} has entered {moved_to:04d}", REACTION_RULE)
    distance = hexgrid.distance(unit.hex, moved_to)
    hexes = reach(unit, extended)
    if distance == 0:
        return Violation(f"{uid} is already in {moved_to:04d}", REACTION_RULE)
    if distance > hexes:
        return Violation(
            f"{uid} in {unit.hex:04d} is {distance} hexes from {moved_to:04d}; "
            f"its reaction range is {hexes}",
            REACTION_RULE,
        )
    if from_hex != moved_to and hexgrid.distance(unit.hex, from_hex) < distance:
        return Violation(
            f"the enemy moved away from {uid} ({from_hex:04d}->{moved_to:04d})", REACTION_RULE
        )
    return None


def why_not(
    board: Board,
    phasing_empires: Collection[str],
    moved_to: HexId,
    from_hex: HexId,
    unit: Unit,
    reacted: Collection[str] = (),
    extended: Collection[str] = (),
) -> Violation | None:
    """Why ``unit`` may not react to the enemy entering ``moved_to`` from ``from_hex``, or
    None when it may. The pin is judged for the unit alone (`check_reaction` judges stacks).
    """
    found = _not_eligible(board, phasing_empires, moved_to, from_hex, unit, reacted, extended)
    if found is not None:
        return found
    pinned = pin_violation(board, unit.empire, unit.hex, (unit.id,))
    if pinned is not None:
        return Violation(f"{unit.id} is pinned: {pinned.message}", pinned.rule or PIN_RULE)
    return None


def stack_reactors(
    board: Board,
    phasing_empires: Collection[str],
    here: Iterable[Unit],
    steps: Iterable[tuple[HexId, HexId]],
    reacted: Collection[str] = (),
) -> list[Unit]:
    """The units of the stack ``here`` (in its order) that may react to one of ``steps``,
    each a move ``(from, to)`` of the batch (205.0, `why_not`).

    Whether a unit may react reads, besides its hex, only its side, fleet, class and the side
    of the counter shown, and whether it reacted already: the pin counts the like units that
    stay with it, whichever of them it is. So like units of a stack are judged once. No
    unit here has extended reaction: none reacts farther than `REACTION_RANGE`.
    """
    steps = list(steps)
    judged: dict[tuple[str, str, str, bool, bool], bool] = {}
    found: list[Unit] = []
    for unit in here:
        if unit.empire in phasing_empires:
            continue
        key = (unit.empire, unit.fleet, unit.cls, unit.crippled, unit.id in reacted)
        may = judged.get(key)
        if may is None:
            # A step out of the unit's reach is refused whatever else holds (`_not_eligible`):
            # only the steps within it are judged in full.
            hexes = reach(unit)
            may = judged[key] = any(
                0 < hexgrid.distance(unit.hex, to) <= hexes
                and why_not(board, phasing_empires, to, frm, unit, reacted) is None
                for frm, to in steps
            )
        if may:
            found.append(unit)
    return found


def reaction_candidates(
    galaxy: Galaxy,
    board: Board,
    phasing_empires: Collection[str],
    moved_to: HexId,
    from_hex: HexId,
    reacted: Collection[str] = (),
    extended: Collection[str] = (),
) -> list[Candidate]:
    """The non-phasing units that may react to an enemy entering ``moved_to`` from
    ``from_hex`` (or stopping there, when both are the same), in unit id order.

    ``board`` shows the enemy in ``moved_to``; ``reacted`` lists units that have reacted this
    phase; ``extended`` the units with extended reaction (2 hexes).
    """
    if not hexgrid.valid(moved_to, galaxy.width, galaxy.height):
        return []
    out = []
    for unit in sorted(board.units, key=lambda u: u.id):
        if why_not(board, phasing_empires, moved_to, from_hex, unit, reacted, extended) is None:
            out.append(Candidate(unit.id, unit.hex, reach(unit, extended)))
    return out


def check_reaction(
    galaxy: Galaxy,
    board: Board,
    phasing_empires: Collection[str],
    moved_to: HexId,
    from_hex: HexId,
    reaction: Move,
    reacted: Collection[str] = (),
    extended: Collection[str] = (),
) -> list[Violation]:
    """Every reason ``reaction`` is refused (empty: legal).

    The stack's units must each be eligible (`why_not`), belong to one empire and stand in
    the path's first hex; the path must step to adjacent on-map hexes, each one hex closer to
    ``moved_to``, no longer than the shortest reach in the stack; the units staying behind
    must pin the enemy in the hex they leave and in any hex they pass (203.5).
    """
    units, out = check_units(board, reaction)
    start = reaction.path[0] if reaction.path else None
    empires = sorted({u.empire for u in units})
    if len(empires) > 1:
        out.append(
            Violation(f"a reacting stack is of one empire, not {', '.join(empires)}", REACTION_RULE)
        )
    for unit in units:
        if start is not None and unit.hex != start:
            where = f"{unit.hex:04d}" if unit.hex else "off the map"
            out.append(Violation(f"{unit.id} is in {where}, not in {start:04d}", REACTION_RULE))
            continue
        found = _not_eligible(board, phasing_empires, moved_to, from_hex, unit, reacted, extended)
        if found is not None:
            out.append(found)
    path_problems = check_path(galaxy, reaction.path)
    out.extend(path_problems)
    if path_problems or not units or out:
        return out
    shortest = min(reach(u, extended) for u in units)
    if reaction.hexes > shortest:
        out.append(
            Violation(
                f"{reaction.path[0]:04d}->{reaction.path[-1]:04d} is {reaction.hexes} hexes; "
                f"the stack may react {shortest}",
                REACTION_RULE,
            )
        )
    for a, b in pairwise(reaction.path):
        if hexgrid.distance(b, moved_to) != hexgrid.distance(a, moved_to) - 1:
            out.append(
                Violation(
                    f"a reaction moves toward {moved_to:04d}; {a:04d}->{b:04d} does not",
                    REACTION_RULE,
                )
            )
    out.extend(check_pins(board, empires[0], reaction))
    return out


def apply_reaction(board: Board, reaction: Move) -> Board:
    """The board after a reaction `check_reaction` accepted: its units stand at the end."""
    return apply_move(board, reaction)


def mark_reacted(reacted: Iterable[str], reaction: Move) -> tuple[str, ...]:
    """The sorted ids that have reacted this phase, once ``reaction`` is made."""
    return tuple(sorted({*reacted, *reaction.unit_ids}))
