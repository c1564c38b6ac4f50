"""Standing orders: steps a seat lets the engine complete for it whenever they come up.

Played by email, the sequence of play hands the move back and forth dozens of times per
player turn, mostly for steps where one side routinely has nothing to do (the non-phasing
seat's part of "both" steps, raids when nobody raids, the Orion phase...). A standing order,
signed in advance like any other order, names those steps; from then on the engine completes
them for that seat the moment they are owed, with an event saying so. Secret steps are never
completed this way, and a seat changes or cancels its standing order with a new one.
"""

from __future__ import annotations

import msgspec

from engine.core.ruleset import Event, Seat, StepKind, Violation
from engine.fe import flow
from engine.fe.model import FeState, Standing
from engine.fe.sequence import SequenceOfPlay, Step

STANDING_RULE = "105.0"


def _all_steps() -> tuple[Step, ...]:
    seq = flow.sequence()
    return seq.player_turn + seq.orion


def expand(names: list[str]) -> tuple[list[str], str]:
    """The non-secret step ids covered by ``names`` (steps, headings or phases), in play order.

    Returns the ids and, if a name is unknown or is itself a secret step, why it is refused.
    """
    seq = flow.sequence()
    steps = _all_steps()
    wanted: set[str] = set()
    for name in names:
        covered = [s for s in steps if name in (s.id, s.phase) or _under(seq, name, s)]
        if not covered:
            return [], f"standing order: no step, heading or phase {name!r}"
        if len(covered) == 1 and covered[0].kind == StepKind.SECRET:
            return [], f"standing order: step {name} is secret and needs a real choice"
        wanted.update(s.id for s in covered if s.kind != StepKind.SECRET and not s.obsolete)
    return [s.id for s in steps if s.id in wanted], ""


def _under(seq: SequenceOfPlay, name: str, step: Step) -> bool:
    return any(heading.id == name for heading in seq.heading_chain(step))


def check(state: FeState, order: Standing) -> list[Violation]:
    _, problem = expand(list(order.steps))
    return [Violation(problem, STANDING_RULE)] if problem else []


def apply(state: FeState, seat: Seat, order: Standing, events: list[Event]) -> FeState:
    """Replace ``seat``'s standing order (an empty list cancels it)."""
    ids, _ = expand(list(order.steps))
    others = tuple(entry for entry in state.standing if entry[0] != seat)
    entries = (*others, (seat, tuple(ids))) if ids else others
    standing = tuple(sorted(entries))
    if ids:
        named = ", ".join(order.steps)
        text = (
            f"{seat} standing order: the engine completes {seat}'s part of {named} "
            f"({len(ids)} steps, never secret ones) whenever it is owed"
        )
    else:
        text = f"{seat} cancelled its standing order"
    events.append(Event("standing", text, seat, data={"names": list(order.steps), "steps": ids}))
    return msgspec.structs.replace(state, standing=standing)


def run(state: FeState, events: list[Event]) -> FeState:
    """Complete, for their owners, every owed step their standing orders cover."""
    if not state.standing:
        return state
    while True:
        step = flow.current(state)
        if step is None or step.kind == StepKind.SECRET:
            return state
        owing = flow.owing(state)
        if not owing or step.id not in state.standing_for(owing[0]):
            return state
        if flow.finish_problems(state, owing[0], step):
            return state  # e.g. units still to place: the seat must act itself
        state = flow.complete(state, owing[0], "", [], events, automatic=True)
