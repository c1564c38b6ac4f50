"""``done`` through a later step, or through the end of the part: many steps in one order.

A seat completes, in one packet, every step from the current one up to a named step (a step,
heading or phase) or up to `THROUGH_END`, the end of the part (a player turn). Steps another
seat's standing order covers are completed for it on the way. Through a named step the order
is refused at the first step that blocks (another seat decides there, it is secret, or the
seat cannot end it yet); through the end it stops there instead, and one event says where and
why, so "play my turn as far as the rules let me" never needs to know where the other side
will have to answer. Functions of the driver (`engine.core.turns.Turns`), kept apart so the
driver stays short.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from engine.core import caches
from engine.core.ruleset import Event, Seat, StepKind
from engine.core.sequence import Step
from engine.core.turn_orders import Done

if TYPE_CHECKING:
    from engine.core.turn_host import TurnState
    from engine.core.turns import Turns

S = TypeVar("S", bound="TurnState")

THROUGH_END = "end"
"""``done`` ``through`` this completes the seat's steps up to the end of the part (a player
turn) as far as the rules allow: it stops, with an event saying where and why, at the first
step another seat really decides, a secret step, or a step the seat cannot end yet."""


MAX_STEPS_PER_ORDER = 5_000
"""The most steps one order (``done through``, standing orders) may complete: a phase played
again and again (F&E's combat rounds) must not let a packet make the engine loop for ever."""


def describe(step: Step) -> str:
    """A step named in a reason: its id and title (as `engine.core.turns.describe`)."""
    return f"{step.id} ({step.title})"


def last_index(turns: Turns[S], state: S, through: str) -> int | None:
    """The index in this part of the last step ``through`` covers (the part's last step
    for `THROUGH_END`); None when it names nothing in this part."""
    steps = turns.host.steps(state)
    if through == THROUGH_END:
        return len(steps) - 1
    span = turns.host.sequence().span(through, steps)
    return None if span is None else span[1]


def walk_to_end(turns: Turns[S], state: S, seat: Seat, order: Done, events: list[Event]) -> S:
    """``done`` through the end of the part: complete as far as the rules allow, then say
    in one event where the walk stopped and why (or that the part is over)."""
    part = turns.host.part_id(state)
    state, blocker = walk_through(turns, state, seat, order, events)
    data: dict[str, Any] = {"through": THROUGH_END}
    step = turns.current(state)
    if blocker and step is not None and turns.host.part_id(state) == part:
        rest = blocker.removeprefix(f"step {describe(step)}")
        reason = rest[2:] if rest.startswith(": ") else f"it{rest}"
        text = f"{seat}'s done through the end stopped at {describe(step)}: {reason}"
        data |= {"stopped": step.id, "reason": reason}
    else:
        text = f"{seat}'s done through the end completed its steps to the end of the part"
    events.append(Event("through-stopped", text, seat, step.id if step else "", data))
    return state


def walk_through(
    turns: Turns[S], state: S, seat: Seat, order: Done, events: list[Event]
) -> tuple[S, str]:
    """Complete steps up to ``order.through`` as ``seat``; say what blocks, if anything.

    Steps another seat's standing order covers are completed for it on the way. The one
    simulation serves both validation (events thrown away) and application.
    """
    found = last_index(turns, state, order.through)
    if found is None:
        return state, f"no such step {order.through!r}"
    last = found
    part = turns.host.part_id(state)
    for _ in range(MAX_STEPS_PER_ORDER):
        state = turns.run_standing(state, events)
        if state.over or turns.host.part_id(state) != part or state.step > last:
            return state, ""
        step, owing = turns.position(state)  # what `complete` reads again
        assert step is not None
        if step.kind == StepKind.SECRET:
            return state, f"step {describe(step)} is secret"
        if owing[0] != seat:
            if seat in turns.answer_order(state, step):
                return state, f"step {describe(step)} needs {owing[0]} too"
            return state, f"step {describe(step)} is {owing[0]}'s"
        problems = turns.finish_problems(state, seat, step)
        if problems:
            return state, f"step {describe(step)}: {problems[0].message}"
        final = state.step == last
        note = order.note if final else ""
        adjustments = order.adjustments if final else []
        state = turns.complete(state, seat, note, adjustments, events, through=order.through)
        if final:
            return turns.run_standing(state, events), ""
    return state, f"more than {MAX_STEPS_PER_ORDER} steps in one order"


@caches.by_identity(maxsize=2, identity=3)
def walked(turns: Turns[S], state: S, order: Done, seat: Seat) -> tuple[S, tuple[Event, ...], str]:
    """`walk_through` from ``state``, with the events it tells: the state it reaches, those
    events and what blocks ("" when nothing does).

    A ``done`` through a named step is walked twice over the same objects: once to check it
    (`Turns.check_done`, events thrown away) and once to apply it (`Turns.apply_done`),
    automatic steps and all. Kept for the last two (state, order) pairs by identity (the
    order too: its adjustments are a list), so applying repeats no step the check walked.
    The walk is a pure function of these arguments, so the events are those a fresh walk
    tells; callers copy them into their own list."""
    events: list[Event] = []
    after, blocker = walk_through(turns, state, seat, order, events)
    return after, tuple(events), blocker


def own_run(
    turns: Turns[S], state: S, seat: Seat, stop: str = "", halt: Callable[[S], bool] | None = None
) -> list[str]:
    """The steps ``seat`` can complete now, one plain ``done`` each, in a row.

    The run ends at the first step another seat owes, a secret step, a step that needs
    more than ``done``, or step ``stop``; and after a ``done`` whose state ``halt`` says
    asked for dice (the core arms them with that order, and the other seats owe their
    values before any order after it). Clients offer it as "complete all my steps up to
    here" in one packet.
    """
    return _run(turns, state, seat, stop, halt)[0]


def own_stops(
    turns: Turns[S], state: S, seat: Seat, halt: Callable[[S], bool] | None = None
) -> list[str]:
    """The steps a ``done`` can leave ``seat`` at, still the one to act there: the steps of
    its run (`own_run`) after the first, and the step the run ends at when it is the
    seat's (one that needs more than a ``done``, or a secret step of its own), not after
    dice (``halt``). A client lists them to play on to: the first is reached by a plain
    ``done``, each other by a ``done`` through the one before it, and no step past one
    another seat answers is offered, where the order would stop (or be refused)."""
    steps, after, halted = _run(turns, state, seat, "", halt)
    if not steps or halted or after.over:
        return steps[1:]
    step, owing = turns.position(after)
    ends_at_own = step is not None and bool(owing) and owing[0] == seat
    return [*steps[1:], step.id] if ends_at_own and step is not None else steps[1:]


def _run(
    turns: Turns[S], state: S, seat: Seat, stop: str, halt: Callable[[S], bool] | None
) -> tuple[list[str], S, bool]:
    """`own_run`'s steps, the state after them, and whether ``halt`` ended the run."""
    steps: list[str] = []
    while not state.over and len(steps) < MAX_STEPS_PER_ORDER:
        step, owing = turns.position(state)
        if step is None or step.kind == StepKind.SECRET or not owing or owing[0] != seat:
            break
        if step.id == stop or turns.finish_problems(state, seat, step):
            break
        steps.append(step.id)
        state = turns.apply_done(state, seat, Done(), [])
        if halt is not None and halt(state):
            return steps, state, True
    return steps, state, False
