"""Moving through the sequence of play: who owes the current step, and what comes next.

Kept apart from the ruleset class so the turn structure (player turns, the Orion phase,
obsolete steps, the end of the scenario) can be read and tested on its own. Every function is
pure: it takes a state and returns a new one, appending what happened to an event list.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from engine.core.errors import NotPending
from engine.core.ruleset import Actor, Event, Seat, StepKind, Violation
from engine.fe import steps as areas
from engine.fe.model import FeState
from engine.fe.scenario import turn_date
from engine.fe.sequence import Phase, SequenceOfPlay, Step, load_sequence
from engine.fe.steps import base
from engine.fe.steps.setup_stage import SETUP_PHASE, setup_steps

ORION = "orion"
"""Stands for the phasing seat in decision keys during the Orion phase."""


def sequence() -> SequenceOfPlay:
    return load_sequence()


def orion_on(state: FeState) -> bool:
    return state.option(ORION) is True and bool(sequence().orion)


def part(state: FeState) -> tuple[Step, ...]:
    """The steps of the current part: the set-up, this player turn, or the Orion phase."""
    if state.setup:
        return setup_steps(state.scenario)
    return sequence().part(state.orion)


def current(state: FeState) -> Step | None:
    """The step being played, or None once the game is over."""
    if state.over:
        return None
    return part(state)[state.step]


def phase_of(step: Step) -> Phase:
    return SETUP_PHASE if step.phase == SETUP_PHASE.id else sequence().phases[step.phase]


def phasing(state: FeState) -> Seat:
    """The phasing seat (during set-up: the seat placing; in the Orion phase the first seat of
    the turn order stands in)."""
    return base.phasing(state)


def answer_order(state: FeState, step: Step) -> tuple[Seat, ...]:
    """The seats that must complete ``step``, in the order they answer."""
    first = phasing(state)
    index = state.seats.index(first)
    rotated = state.seats[index:] + state.seats[:index]
    if step.actor == Actor.BOTH:
        return rotated
    if step.actor == Actor.NON_PHASING:
        return (rotated[1],)
    return (first,)


def owing(state: FeState, step: Step | None = None) -> tuple[Seat, ...]:
    """The seats that owe the current step now (all of them for a secret step).

    ``step`` may be given when the caller already looked up the current step.
    """
    step = step or current(state)
    if step is None:
        return ()
    seats = answer_order(state, step)
    if step.kind == StepKind.SECRET:
        return seats
    return tuple(s for s in seats if s not in state.answered)[:1]


def decision_key(state: FeState, step: Step, seat: Seat = "") -> str:
    """Unique in the game: turn, phasing seat (or ``orion``), step, pass through the step.

    The pass number is ``backs + 1``: between two ``back`` orders the step index only moves
    forward, so a step is reached at most once per pass. ``seat`` tells apart the halves of a
    "both" step.
    """
    who = ORION if state.orion else phasing(state)
    key = f"T{state.turn}/{who}/{step.id}/{state.backs + 1}"
    return f"{key}/{seat}" if seat else key


def describe(step: Step) -> str:
    return f"{step.id} ({step.title})"


def turn_text(turn: int) -> str:
    year, season = turn_date(turn)
    return f"Turn {turn}, {season} Y{year}"


def advance(state: FeState, events: list[Event]) -> FeState:
    """Leave the current step (completed) and settle on the next playable one."""
    left = current(state)
    moved = msgspec.structs.replace(state, step=state.step + 1, answered=())
    return settle(moved, left, events)


def settle(state: FeState, left: Step | None, events: list[Event]) -> FeState:
    """Play on to the next step a seat must act in.

    Skips obsolete steps, carries out automatic steps, passes decision steps their area
    says need nobody, and rolls over the set-up, player turns, the Orion phase and game turns.
    """
    while True:
        steps = part(state)
        if state.step >= len(steps):
            state = _next_part(state, events)
            if state.over:
                return state
            left = None
            continue
        step = steps[state.step]
        if step.obsolete:
            events.append(Event("step-skipped", f"{step.id} is obsolete and skipped", step=step.id))
            state = msgspec.structs.replace(state, step=state.step + 1)
            continue
        if left is None or left.phase != step.phase:
            state = _phase_begins(state, step, events)
            left = step
        if step.kind == StepKind.AUTOMATIC:
            state = areas.area(step.area).automatic(state, step, events)
            events.append(Event("step-auto", f"{step.id} {step.title}: done by the engine",
                                step=step.id))  # fmt: skip
            state = msgspec.structs.replace(state, step=state.step + 1, answered=())
            continue
        if step.kind == StepKind.DECISION:
            reason = areas.area(step.area).skip(state, step)
            if reason:
                events.append(Event("step-passed", f"{step.id} {step.title}: {reason}",
                                    step=step.id))  # fmt: skip
                state = msgspec.structs.replace(state, step=state.step + 1, answered=())
                continue
        return state


def _phase_begins(state: FeState, step: Step, events: list[Event]) -> FeState:
    phase = phase_of(step)
    who = "the Orions" if state.orion else phasing(state)
    events.append(
        Event(
            "phase",
            f"Phase {phase.id} ({phase.title}) begins for {who}",
            seat="" if state.orion else phasing(state),
            step=step.id,
            data={"phase": phase.id, "rule": phase.rule},
        )
    )
    if state.orion or state.setup:
        return state
    for each in areas.AREAS.values():
        state = each.on_phase(state, phase.id, events)
    return state


def _turn_begins(state: FeState, events: list[Event]) -> FeState:
    for each in areas.AREAS.values():
        state = each.on_turn(state, events)
    return state


def _next_part(state: FeState, events: list[Event]) -> FeState:
    """The part after the current one ends: next player turn, Orion phase, or next turn."""
    if state.setup:
        state = msgspec.structs.replace(state, setup=False, step=0, backs=0, answered=())
        events.append(Event("setup-over", "Set-up is complete", data={"turn": state.turn}))
        events.append(_player_turn_event(state))
        return _turn_begins(state, events)
    if not state.orion and state.player_turn + 1 < len(state.seats):
        state = msgspec.structs.replace(state, player_turn=state.player_turn + 1, step=0, backs=0)
        events.append(_player_turn_event(state))
        return state
    if not state.orion and orion_on(state):
        state = msgspec.structs.replace(state, orion=True, step=0, backs=0)
        events.append(
            Event("orion", f"{turn_text(state.turn)}: the Orion pirate phase begins", step="11A")
        )
        return state
    if state.turn >= state.last_turn:
        events.append(
            Event(
                "over",
                f"{turn_text(state.turn)} is over: the scenario ends",
                data={"turn": state.turn},
            )
        )
        return msgspec.structs.replace(state, over=True, answered=(), step=0, orion=False)
    state = msgspec.structs.replace(
        state, turn=state.turn + 1, player_turn=0, orion=False, step=0, backs=0
    )
    events.append(_player_turn_event(state))
    return _turn_begins(state, events)


def _player_turn_event(state: FeState) -> Event:
    seat = phasing(state)
    return Event(
        "player-turn",
        f"{turn_text(state.turn)}: {seat} player turn begins",
        seat=seat,
        data={"turn": state.turn, "phasing": seat},
    )


def finish_problems(state: FeState, seat: Seat, step: Step) -> list[Violation]:
    """Why ``seat`` may not end ``step`` with ``done`` yet (only decision steps say)."""
    if step.kind != StepKind.DECISION:
        return []
    return areas.area(step.area).finish(state, seat, step)


def complete(
    state: FeState,
    seat: Seat,
    note: str,
    adjustments: Sequence[str],
    events: list[Event],
    *,
    through: str = "",
    automatic: bool = False,
) -> FeState:
    """``seat`` completes its part of the current step; the step ends when every seat did."""
    step = current(state)
    if step is None:
        raise NotPending("the game is over")
    answered = (*state.answered, seat)
    left = [s for s in answer_order(state, step) if s not in answered]
    data: dict[str, Any] = {"note": note, "adjustments": list(adjustments)}
    if through:
        data["through"] = through
    if automatic:
        data["standing"] = True
    suffix = f": {note}" if note else (" (standing order)" if automatic else "")
    if left:
        events.append(
            Event(
                "step-part",
                f"{seat} completed its part of {step.id} {step.title}; {left[0]} to go{suffix}",
                seat,
                step.id,
                data,
            )
        )
        return msgspec.structs.replace(state, answered=answered)
    events.append(
        Event("step-done", f"{seat} completed {step.id} {step.title}{suffix}", seat, step.id, data)
    )
    if step.kind == StepKind.DECISION:
        moved = areas.area(step.area).on_done(state, seat, step, events)
        if moved.step != state.step:
            return settle(msgspec.structs.replace(moved, answered=()), step, events)
        state = moved
    return advance(state, events)
