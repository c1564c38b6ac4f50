"""Rules area ``movement``: operational movement in batches, reaction, reserve movement.

Three decision steps of the sequence of play (105.0) are played here:

- 3B2, the phasing seat: ``move`` orders (operational movement, 203.0) and ``batch``. Every
  move is checked by `engine.fe.movement` against the board and the hexes each unit has
  already spent this phase (``state.moved``). What the stacks did is recorded in
  ``state.batch``; a ``batch`` order ends the batch and hands the other seat a reaction
  window (3B3), after which movement goes on in 3B2. Ending 3B2 with ``done`` opens the last
  window in the natural order of the steps.
- 3B3, the non-phasing seat: ``react`` orders (205.0), checked by `engine.fe.reaction`
  against what moved in the batch. The step passes by itself when nobody can react, and the
  seat's signed reaction policy answers it when it can (`engine.fe.steps.reaction_policy`).
- 4B, the non-phasing seat: ``move`` orders for reserve fleets (203.7).

Play by email cannot stop after every hex for the other side to answer, so the phasing
player chooses how often to give the reaction window: moving one hex and then ``batch``
gives the full hex-by-hex game; a long move before the window gives the other side only the
hexes the stacks stand in when it opens. That is the price of fewer emails, and the phasing
player's to pay.

Readings, marked as in ``fe-rules-notes.md`` (S sourced, I inferred, C a choice):

- S (105.0): the phasing seat moves in 3B2, the non-phasing seat reacts in 3B3 and moves
  reserve fleets in 4B; orders name the seat's own units only.
- I: a stack is of one empire (a seat playing several empires moves each one's units apart).
- I (503.0): a unit may not enter the space of an empire it is not at war with, unless that
  empire is on its own side; unowned hexes are open. Neutral-zone hexes follow 503.6
  (`engine.fe.neutral`: by default only an empire at war with an empire the zone separates
  there may enter them; the option ``neutral-zone=open`` opens them to all).
- I (205.0): a stack's last hex in a batch counts as a stop: it stands there while the other
  side reacts, so a unit within reach may react even if the stack moved away from it. The
  hexes a stack only passed through open reactions only while enemy units stand in them.
- S (205.0): a unit reacts once per player turn; reactions open no further reactions.
- S (410.31): a unit out of supply moves at half its allowance; operational movement reads
  the units the 3B1 check found out of supply (`halved`), reserve movement the board of the
  moment. I: reaction (205.0) keeps its one or two hexes: it is a range, not an allowance.
- 4B, reserve movement, kept simple (the rules notes say little: "one battle force, moves in
  Phase 4, must avoid enemy-occupied hexes when it can"):

  - S (203.7, 507.1): only units designated reserves (9A, ``state.reserves``) move in 4B.
  - I: a reserve unit moves once in the phase (a fleet left to pin on the way is a separate
    move from the same start), within its operational allowance (203.1); pinning as in 3B2.
  - S (203.74, F&E Q&A April 2011): the path may pass a hex holding enemy units only if no
    path within the allowance avoids them. I: "enemy-occupied" means any unit (bases too) of
    an empire at war with the mover; the last hex may hold enemies (that is the battle).
  - I (203.7, see `engine.fe.steps.reserves`): the move ends in a battle or target hex of
    this turn: a hex holding phasing enemy units that moved this turn or are in a battle,
    or one from which the fleet puts a unit of its empire in a battle hex back in supply;
    refused otherwise with the target hexes within reach and their distances. The step
    passes by itself when no reserve fleet is within reach (as the crow flies) of one.
  - Not checked: the battle force's size (507.0), X-ships reacting (523.222), the fewest
    battle hexes (549.22). The players see to them.
"""

from __future__ import annotations

from bisect import bisect_left
from itertools import pairwise, repeat
from operator import attrgetter, itemgetter
from typing import Any

import msgspec

from engine.core.ruleset import Event, Seat, Violation
from engine.fe import board_update, stacks
from engine.fe.forces import OFF_MAP, Board, Unit
from engine.fe.galaxy import HexId
from engine.fe.model import FeState
from engine.fe.movement import Move, check_move, hex_cost, remaining
from engine.fe.orders import Batch, BattlesOrder, MoveOrder, React, hex_id
from engine.fe.reaction import apply_reaction, check_reaction, mark_reacted
from engine.fe.sequence import ORION_PART, Step, load_sequence
from engine.fe.steps import access, base, combat, reserves
from engine.fe.steps.base import Area
from engine.fe.steps.reactors import reactors
from engine.fe.steps.releases import release_fired
from engine.fe.steps.supply import out_of_supply_at, status_of

SUPPLY_CHECK_STEP = "3B1"
OPERATIONAL_STEP = "3B2"
REACTION_STEP = "3B3"
RESERVE_STEP = "4B"
MOVE_RULE = "203.1"
REACTION_RULE = "205.0"
RESERVE_RULE = "203.7"
AVOID_ENEMY_RULE = "203.74"
OWN_UNITS_RULE = "105.0"


def _record(state: FeState, path: tuple[HexId, ...]) -> tuple[tuple[HexId, HexId], ...]:
    """``state.batch`` with a stack's path added: each step, and a stop in its last hex."""
    entries = set(state.batch)
    entries.update(pairwise(path))
    entries.add((path[-1], path[-1]))
    return tuple(sorted(entries))


def _other_seat(state: FeState) -> Seat:
    """The non-phasing seat: the one after the phasing seat in turn order."""
    seats = state.seats
    return seats[(seats.index(base.phasing(state)) + 1) % len(seats)]


def _part_index(state: FeState, step_id: str) -> int:
    """Where ``step_id`` stands in this player turn's steps (the flow's ``state.step``).

    Read from the sequence rather than `engine.fe.flow.part`, which imports the areas: the
    movement steps are never part of the set-up, so the two agree here."""
    steps = load_sequence().part(ORION_PART if state.orion else "")
    return next(i for i, s in enumerate(steps) if s.id == step_id)


# --- checking orders -------------------------------------------------------------------------


def _stack(
    state: FeState, seat: Seat, unit_ids: list[str], rule: str
) -> tuple[list[Unit], str, list[Violation]]:
    """The seat's units named, their one empire, and what is wrong with the list."""
    # The usual stack, told in C: every id on the board, named once, of one of the seat's
    # empires. Anything else is read id by id for the refusals.
    try:
        found = state.board.units_named(unit_ids)
    except KeyError:
        found = []
    one = {u.empire for u in found}
    unique = len(set(unit_ids)) == len(unit_ids)
    if found and len(one) == 1 and unique and one <= set(base.empires_of(state, seat)):
        return found, found[0].empire, []
    units, problems = base.own_units(state, seat, unit_ids, rule)
    empires = sorted({u.empire for u in units})
    if len(empires) > 1:
        problems.append(
            Violation(f"a stack moves as one empire's units, not {', '.join(empires)}", rule)
        )
    return units, (empires[0] if empires else ""), problems


_EMPIRE = attrgetter("empire")
_ID = attrgetter("id")


def _as_move(unit_ids: list[str], path: list[str]) -> Move:
    return Move(tuple(unit_ids), tuple(map(hex_id, path)))


def halved(state: FeState, units: list[Unit], reserve: bool) -> tuple[str, ...]:
    """Which of ``units`` move at half speed, being out of supply (410.31), sorted.

    Operational movement follows the 3B1 check (410.21): a unit out of supply then moves at
    half all phase, one it did not list (in supply, or not on the map then) at full speed.
    Reserve movement has no check of its own (I): the board of the moment decides; so does
    it for operational movement when no 3B1 check was made this player turn.
    """
    recorded = None if reserve else out_of_supply_at(state, SUPPLY_CHECK_STEP)
    if recorded is not None:
        return tuple(filter(frozenset(recorded).__contains__, map(_ID, units))) if recorded else ()
    return tuple(u.id for u in units if status_of(state, u) == "none")


def check_move_order(state: FeState, seat: Seat, step: Step, order: MoveOrder) -> list[Violation]:
    """Operational movement in 3B2, reserve movement in 4B; a stack or fleet named by the
    order is checked unit by unit (`engine.fe.stacks`)."""
    expanded = stacks.expand(state, seat, order)
    if isinstance(expanded, list):
        return expanded
    order = expanded
    reserve = step.id == RESERVE_STEP
    units, empire, problems = _stack(state, seat, order.units, OWN_UNITS_RULE)
    if problems:
        return problems
    if reserve:
        problems = _reserve_problems(state, units)
        if problems:
            return problems
    move = _as_move(order.units, order.path)
    cost = hex_cost(dict(state.options))
    slow = halved(state, units, reserve)
    # (the units `_stack` found, each once: `check_move` does not look them up again)
    found = sorted(units, key=_ID)
    out = check_move(base.galaxy(), state.board, empire, move, dict(state.moved), cost, slow, found)
    out.extend(access.neutral_entries(state, empire, move.path))
    if reserve and not out:
        reach = min(remaining(u, dict(state.moved), slow) for u in units) // cost
        out.extend(reserves.target_problems(state, empire, move, reach))
    if reserve and not out:
        out.extend(_avoidance_problems(state, empire, units, move, slow))
    return out


def _reserve_problems(state: FeState, units: list[Unit]) -> list[Violation]:
    out: list[Violation] = []
    for unit in units:
        if unit.id not in state.reserves:
            out.append(
                Violation(
                    f"{unit.id} is not a reserve unit; only reserve fleets (designated in 9A) "
                    "move in phase 4",
                    RESERVE_RULE,
                )
            )
        elif state.moved_by(unit.id):
            out.append(
                Violation(f"{unit.id} has already made its reserve move this phase", RESERVE_RULE)
            )
    return out


def _has_target(state: FeState, unit: Unit) -> bool:
    """Whether a reserve unit may have somewhere to go in 4B (203.7), as the crow flies."""
    slow = halved(state, [unit], True)
    reach = remaining(unit, dict(state.moved), slow) // hex_cost(dict(state.options))
    return reach > 0 and reserves.may_reach_a_target(state, unit.empire, unit, reach)


def _avoidance_problems(
    state: FeState, empire: str, units: list[Unit], move: Move, slow: tuple[str, ...]
) -> list[Violation]:
    passed = [h for h in move.path[1:-1] if access.enemy_held(state.board, empire, h)]
    if not passed:
        return []
    moved = dict(state.moved)
    hexes = min(remaining(u, moved, slow) for u in units) // hex_cost(dict(state.options))
    start, end = move.path[0], move.path[-1]
    if not access.clear_path_exists(state, empire, start, end, hexes):
        return []
    shown = ", ".join(f"{h:04d}" for h in sorted(set(passed)))
    return [
        Violation(
            f"{start:04d}->{end:04d} enters enemy-occupied {shown}, but a path within "
            f"{hexes} hexes avoids enemy-occupied hexes",
            AVOID_ENEMY_RULE,
        )
    ]


def check_batch(state: FeState) -> list[Violation]:
    if not state.batch:
        return [
            Violation(
                "nothing has moved since the last reaction window: move a stack first, "
                "or end movement with done",
                REACTION_RULE,
            )
        ]
    return []


def check_react(state: FeState, seat: Seat, order: React) -> list[Violation]:
    _, empire, problems = _stack(state, seat, order.units, REACTION_RULE)
    if problems:
        return problems
    trigger = hex_id(order.trigger)
    steps = state.batch
    into = sorted((frm for frm, to in steps if to == trigger), key=lambda frm: frm != trigger)
    if not into:
        entered = ", ".join(sorted({f"{to:04d}" for _, to in steps})) or "nothing"
        return [
            Violation(
                f"no enemy stack entered {order.trigger} in this batch (entered: {entered})",
                REACTION_RULE,
            )
        ]
    move = _as_move(order.units, order.path)
    galaxy = base.galaxy()
    phasing = base.phasing_empires(state)
    first: list[Violation] = []
    for frm in into:
        found = check_reaction(galaxy, state.board, phasing, trigger, frm, move, state.reacted)
        if not found:
            return access.neutral_entries(state, empire, move.path)
        first = first or found
    return first


# --- applying orders -------------------------------------------------------------------------


def _stack_text(board: Board, unit_ids: tuple[str, ...]) -> str:
    return ", ".join(f"{board.unit(uid).cls} {uid}" for uid in sorted(unit_ids))


def spent(
    moved: tuple[tuple[str, int], ...], unit_ids: tuple[str, ...], cost: int
) -> tuple[tuple[str, int], ...]:
    """``state.moved`` after ``unit_ids`` spent ``cost`` more: `engine.fe.movement.spend`
    for a tally kept sorted by id (as every state's is). A stack new to the tally whose ids
    all fall between the same two entries (its units have neighbouring ids) goes in as one
    block found by two bisections; otherwise units already in it keep their places and new
    ones are merged in by id."""
    order = sorted(unit_ids)
    if order and len(set(order)) == len(order):
        at = bisect_left(moved, order[0], key=_FIRST)
        last = bisect_left(moved, order[-1], lo=at, key=_FIRST)
        if at == last and (at == len(moved) or moved[at][0] != order[-1]):
            block = tuple(zip(order, repeat(cost)))
            return moved[:at] + block + moved[at:]
    out = dict(moved)
    for uid in unit_ids:
        out[uid] = out.get(uid, 0) + cost
    items = list(out.items())
    if len(items) == len(moved):
        return tuple(items)
    old, new = items[: len(moved)], sorted(items[len(moved) :])
    if old and new[0][0] < old[-1][0]:
        return tuple(sorted(items))
    return tuple(old + new)


_FIRST = itemgetter(0)


def _hexes_text(n: int) -> str:
    return "1 hex" if n == 1 else f"{n} hexes"


def apply_move_order(
    state: FeState, seat: Seat, step: Step, order: MoveOrder, events: list[Event]
) -> FeState:
    fleet = stacks.fleet_units(state, seat, order.fleet) if order.fleet else ""
    expanded = stacks.expand(state, seat, order)
    if isinstance(expanded, list):
        raise ValueError(expanded[0].message)  # check_move_order refused it already
    order = expanded
    move = _as_move(order.units, order.path)
    board = state.board
    placed = dict(zip(move.unit_ids, board.units_named(move.unit_ids), strict=True))
    ids = sorted(placed)
    empire = placed[move.unit_ids[0]].empire
    reserve = step.id == RESERVE_STEP
    route = f"{move.path[0]:04d}->{move.path[-1]:04d}"
    what = "moves reserve fleet" if reserve else "moves"
    what += f" {fleet[1]}:" if isinstance(fleet, tuple) else ""
    shown = ", ".join([f"{placed[uid].cls} {uid}" for uid in ids])  # as `_stack_text`
    events.append(
        Event(
            "reserve-move" if reserve else "move",
            f"{empire} {what} {shown} {route} ({_hexes_text(move.hexes)})",
            seat,
            step.id,
            {
                "empire": empire,
                "units": ids,
                "path": list(order.path),
                "hexes": move.hexes,
                "rule": RESERVE_RULE if reserve else MOVE_RULE,
            },
        )
    )
    moved = spent(state.moved, move.unit_ids, move.hexes * hex_cost(dict(state.options)))
    batch = state.batch if reserve else _record(state, move.path)
    # What `apply_move` does to the board, given to the state directly (`FeState.with_units`):
    # the board's own units with their hex alone changed (``moved``).
    end = move.path[-1]
    state = board_update.with_units(
        state,
        [msgspec.structs.replace(u, hex=end) for u in placed.values()],
        moved=True,
        priors=placed,
    )
    state = msgspec.structs.replace(state, moved=moved, batch=batch)
    return release_fired(state, step.id, events)


def apply_batch(state: FeState, seat: Seat, step: Step, events: list[Event]) -> FeState:
    """End the batch: open the reaction window (3B3), or go on if nobody can react."""
    other = _other_seat(state)
    can_react = reactors(state)
    data: dict[str, Any] = {"can_react": can_react, "rule": REACTION_RULE}
    if not can_react:
        events.append(
            Event(
                "batch",
                f"{seat} ends a movement batch; no {other} unit can react to it, "
                f"so movement goes on ({REACTION_RULE})",
                seat,
                step.id,
                data,
            )
        )
        return msgspec.structs.replace(state, batch=())
    events.append(
        Event(
            "batch",
            f"{seat} ends a movement batch: {other} may react ({REACTION_RULE}; "
            f"{len(can_react)} units can), then {seat} moves on",
            seat,
            step.id,
            data,
        )
    )
    return msgspec.structs.replace(
        state,
        step=_part_index(state, REACTION_STEP),
        answered=(),
        backs=state.backs + 1,
        window_from_batch=True,
    )


def apply_react(
    state: FeState, seat: Seat, step: Step, order: React, events: list[Event]
) -> FeState:
    move = _as_move(order.units, order.path)
    board = state.board
    empire = board.unit(move.unit_ids[0]).empire
    route = f"{move.path[0]:04d}->{move.path[-1]:04d}"
    events.append(
        Event(
            "react",
            f"{empire} reacts with {_stack_text(board, move.unit_ids)} {route} "
            f"toward the enemy in {order.trigger} ({REACTION_RULE})",
            seat,
            step.id,
            {
                "empire": empire,
                "units": sorted(move.unit_ids),
                "path": list(order.path),
                "trigger": order.trigger,
                "rule": REACTION_RULE,
            },
        )
    )
    state = state.with_board(apply_reaction(board, move))
    state = msgspec.structs.replace(state, reacted=mark_reacted(state.reacted, move))
    return release_fired(state, step.id, events)


# --- the area --------------------------------------------------------------------------------


class _Movement(Area):
    name = "movement"
    orders = ("move", "batch", "react", "battles")

    def check(self, state: FeState, seat: Seat, step: Step, order: Any) -> list[Violation]:
        if isinstance(order, BattlesOrder):  # the battles the moves made, in their order
            return combat.check_plan(state, seat, order)
        if isinstance(order, MoveOrder):
            return check_move_order(state, seat, step, order)
        if isinstance(order, Batch):
            return check_batch(state)
        if isinstance(order, React):
            return check_react(state, seat, order)
        return super().check(state, seat, step, order)

    def apply(
        self, state: FeState, seat: Seat, step: Step, order: Any, events: list[Event]
    ) -> FeState:
        if isinstance(order, BattlesOrder):
            return combat.apply_plan(state, seat, step, order, events)
        if isinstance(order, MoveOrder):
            return apply_move_order(state, seat, step, order, events)
        if isinstance(order, Batch):
            return apply_batch(state, seat, step, events)
        if isinstance(order, React):
            return apply_react(state, seat, step, order, events)
        return super().apply(state, seat, step, order, events)

    def skip(self, state: FeState, step: Step) -> str:
        other = _other_seat(state)
        if step.id == REACTION_STEP:
            if not state.batch:
                return "nothing moved since the last reaction window"
            if not reactors(state):
                return f"no {other} unit can react to what moved ({REACTION_RULE})"
        if step.id == RESERVE_STEP:
            empires = base.empires_of(state, other)
            held = base.units_by_id(state, state.reserves).values()  # not every unit read
            fleets = [u for u in held if u.empire in empires and u.hex != OFF_MAP]
            if not fleets:
                return f"{other} has no reserve fleet to move ({RESERVE_RULE})"
            if not any(_has_target(state, u) for u in fleets):
                return (
                    f"no {other} reserve fleet is within reach of a battle or target hex "
                    f"({RESERVE_RULE})"
                )
        return ""

    def on_done(self, state: FeState, seat: Seat, step: Step, events: list[Event]) -> FeState:
        """Closing a reaction window clears the batch; a window a ``batch`` order opened
        returns to 3B2, where the phasing seat moves on (under a new decision key)."""
        if step.id != REACTION_STEP:
            return state
        from_batch = state.window_from_batch
        state = msgspec.structs.replace(state, batch=(), window_from_batch=False)
        if not from_batch:
            return state
        mover = base.phasing(state)
        events.append(
            Event(
                "movement-resumes",
                f"{seat} closed its reaction window; {mover} goes on with operational movement "
                f"({OPERATIONAL_STEP})",
                mover,
                OPERATIONAL_STEP,
            )
        )
        return msgspec.structs.replace(
            state, step=_part_index(state, OPERATIONAL_STEP), backs=state.backs + 1
        )

    def on_phase(self, state: FeState, phase: str, events: list[Event]) -> FeState:
        """The hexes moved start afresh with phase 3 and last through phase 4, where they
        tell the reserves which enemy units moved this turn (203.7; the reserve units
        themselves have no phase 3 entries: reactions are tallied apart). The batch lasts
        one phase, reactions one player turn."""
        if phase == "3" and (state.moved or state.batch):
            return msgspec.structs.replace(state, moved=(), batch=())
        if phase == "4" and state.batch:
            return msgspec.structs.replace(state, batch=())
        if phase == "1" and state.reacted:
            return msgspec.structs.replace(state, reacted=())
        return state


AREA = _Movement()
