"""What the orders panel needs besides the verdict: the board the drafts would make.

A plain function of the reading replica, run on the store thread (never on the event loop:
it reads the game's rules). It adds no rule of its own: `planned_board` turns the state a
dry run found (`tui.services.orders.check`) into the ruleset face's board
(`engine.core.face.Board`), the one the map draws, so the map can show the moved stacks
before anything is signed. The menus of the forms come with the face's choices (their
presets), in the game's record; only a list picked step by step (`step_menu`, the allocation
editor's) asks the face again after each pick, and the hexes a stack order may go to
(`destinations`) once its pieces are chosen.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from engine.core.face import (
    Board,
    Choice,
    Reach,
    StepMenu,
    destinations_of,
    menu_of,
    own_stops_of,
)
from engine.core.owed import pending
from engine.core.ruleset import DecisionKind
from engine.core.state import AnyState
from engine.core.turn_orders import TURN_ORDER_TYPES
from saves.registry import face_for
from saves.replica import GameRow, Replica
from tui.services.pace_tips import lacks_standing, ready_policy
from tui.services.show import ChecklistLine, checklist_lines, step_orders
from tui.widgets.step_picks import StepData

WHAT_IF_SKIPS = frozenset({*TURN_ORDER_TYPES, "secret"})
"""Order types of the sequence-of-play machinery, which move nothing on the board: a
what-if leaves drafts of only these out (``done`` could run the automatic steps after it,
which is not what the player is looking at)."""


def planned_board(
    replica: Replica, game_id: str, items: Sequence[Mapping[str, Any]], after: AnyState | None
) -> Board | None:
    """The board in the state ``after`` the dry run of ``items`` (None when none of them
    moves anything, or the game has no board)."""
    if after is None or after.rules is None:
        return None
    if all(item.get("type") in WHAT_IF_SKIPS for item in items):
        return None
    ruleset = replica.game(bytes.fromhex(game_id)).ruleset
    return face_for(ruleset).board(after.rules)


class NextStep(msgspec.Struct, frozen=True):
    """The seat's own step that legal drafts run into (`tui.services.orders.OrdersVerdict`'s
    ``then``), as the state after them has it: what the orders panel offers there, so that
    a player's own run of steps goes out in one packet, as from the command line."""

    step: str
    choices: tuple[Choice, ...]
    step_orders: tuple[str, ...]
    """Its own orders besides those every step takes (`tui.services.show.step_orders`)."""
    secret: bool
    """The step is a hidden choice."""
    board: Board | None
    """The board after the drafts (the pieces ``m`` finds in a hex there)."""
    checklist: tuple[ChecklistLine, ...]
    """The sequence of play after the drafts, that step current (``D`` plays on from it)."""


def next_step(replica: Replica, game_id: str, step: str, after: AnyState | None) -> NextStep | None:
    """`NextStep` for ``step``, the seat's own next step, in ``after``, the dry run's state
    (None without one, or before the game has begun)."""
    if not step or after is None or after.rules is None:
        return None
    gid = bytes.fromhex(game_id)
    row = replica.game(gid)
    face = face_for(row.ruleset)
    owed = pending(replica.ruleset(gid), after)
    choices = tuple(face.choices(after.rules, row.my_seat))
    secret = bool(owed) and owed[0].kind == DecisionKind.SECRET
    board = face.board(after.rules)
    lines = checklist_lines(face, after.rules) or ()
    return NextStep(step, choices, step_orders(choices), secret, board, lines)


def _seat_rules(replica: Replica, game_id: str, after: AnyState | None) -> tuple[GameRow, Any]:
    """The game's row (its seat and ruleset) and its rules state as it stands, or ``after``
    the drafts (None before the game has begun)."""
    gid = bytes.fromhex(game_id)
    return replica.game(gid), (after or replica.state(gid)).rules


def step_menu(
    replica: Replica,
    game_id: str,
    order: str,
    chosen: tuple[str, ...],
    after: AnyState | None = None,
) -> StepMenu | None:
    """The face's stepwise menu of ``order`` for this home's seat after the picks ``chosen``
    (`engine.core.face.menu_of`; None for a ruleset or a moment without one). It reads the
    game as it stands, or ``after`` the drafts when the panel offers the step they run into
    (`NextStep`), not after the drafts of the same step listed before the order: the orders
    that take such a list (F&E's allocation) come alone at their step."""
    row, rules = _seat_rules(replica, game_id, after)
    if rules is None:
        return None
    return menu_of(face_for(row.ruleset), rules, row.my_seat, order, chosen)


def destinations(
    replica: Replica,
    game_id: str,
    order: str,
    pieces: tuple[str, ...],
    path: tuple[str, ...] = (),
    after: AnyState | None = None,
) -> Reach | None:
    """The hexes the face says ``order`` may move ``pieces`` to now (one hex past ``path``
    for an order drawing one), for this home's seat (`engine.core.face.destinations_of`;
    None when the order has no such list). As `step_menu`, it reads the game as it stands
    (or ``after`` the drafts that run into the step offered): a draft of the same step
    listed before may change the answer, and the dry run of the whole list still has the
    last word."""
    row, rules = _seat_rules(replica, game_id, after)
    if rules is None:
        return None
    return destinations_of(face_for(row.ruleset), rules, row.my_seat, order, pieces, path)


def own_stops(
    replica: Replica, game_id: str, after: AnyState | None = None
) -> tuple[str, ...] | None:
    """The steps this home's seat may play on to now (or ``after`` the drafts) and still be
    the one to act at (`engine.core.face.own_stops_of`; None when the face cannot say)."""
    row, rules = _seat_rules(replica, game_id, after)
    if rules is None:
        return None
    return own_stops_of(face_for(row.ruleset), rules, row.my_seat)


def reach_words(order: str, path: tuple[str, ...], reach: Reach) -> tuple[str, str]:
    """What the player reads with the marks: the status line (the hexes, or why none, and
    the next key) and the note shown in full under the order being built (why none, the
    ruleset's note)."""
    why = reach.why or "the rules take none now"
    hexes = reach.hexes
    said = [reach.note] if reach.note else []
    if not hexes:
        said.insert(0, f"no hex{' further' if len(path) > 1 else ''}: {why}")
    note = "\n".join(said)
    if len(path) > 1 and not hexes:
        return f"{order}: Enter again on {path[-1]} ends it; no hex further: {why}", note
    if not hexes:
        return f"{order}: no hex for these units (Escape gives up): {why}", note
    if path:
        return f"{order}: next hex marked {{ }}: {' '.join(hexes)}; Enter again ends", note
    shown = " ".join(hexes[:4]) + (" ..." if len(hexes) > 4 else "")
    which = "the one hex" if len(hexes) == 1 else f"one of the {len(hexes)} hexes"
    return f"{order}: Enter on {which} marked {{ }}: {shown}", note


def policy_note(choices: Sequence[Choice], items: Sequence[Mapping[str, Any]]) -> str | None:
    """A line for the send confirmation when the seat may sign a ``policy`` (an order the
    rules keep in force until replaced), has none in force and is not signing one, and the
    face offers a ready one: each choice a policy would make waits for an email of theirs.
    The face offers its preset only while nothing is in force (F&E: the engine's picks)."""
    preset = ready_policy(choices, items)
    if preset is None:
        return None
    return (
        "You have no policy: each choice it would make waits for an email from you. "
        f"P, then ctrl+s, signs {preset.label}."
    )


def standing_note(
    checklist: Sequence[StepData], seat: str, items: Sequence[Mapping[str, Any]]
) -> str | None:
    """A line for the send confirmation when ``seat`` has no standing order and is not
    signing one: every step the engine does not play then waits for an email of theirs
    (pace.md). None when there is one, or no checklist to tell."""
    if not lacks_standing(checklist, seat, items):
        return None
    return (
        "You have no standing order: each step the engine does not play waits for an "
        "email from you. O offers one (manual, recommended)."
    )
