"""What a standing order covers: the steps a seat lets the engine complete for it.

A standing order names steps, headings or whole phases (`engine.core.turn_orders.Standing`).
What players mean by "complete phase 2 for me" is the routine of phase 2 (bookkeeping with
nothing to record, decisions where they pass), not their builds: so a name wider than one
step covers every non-secret step under it except the decisions where a seat, in its own
turn, could do something (the ruleset says which: `engine.core.turn_host.TurnHost.own_turn_choice`).
Those are covered only when the order names them by their own id.

One name is not the table's: ``manual`` (`MANUAL_NAME`) covers every manual step, the
checklist items the ruleset does not play, where ``done`` only records that nothing
happened, and the decisions the ruleset says are as much (`RecordsOnly`: F&E's 5-3B, where
a side organizes its forces with adjustments alone). It is the order most players want
first: it leaves every decision to them and takes away the email round trips of steps
nobody plays (an F&E player turn without a battle goes from 23 hand-offs to one,
`bench/handoffs.py`). Kept apart from the driver
(`engine.core.turns`) as plain functions over the sequence table, so they are tested and read
on their own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from engine.core.ruleset import Seat, StepKind
from engine.core.sequence import MANUAL_NAME, SequenceOfPlay, Step

OwnTurnChoice = Callable[[Step], bool]
"""The ruleset's word on whether a decision step is one where its seat could act."""
RecordsOnly = Callable[[Step], bool]
"""The ruleset's word on whether a decision step takes only records of what happened
(`engine.core.turn_host.TurnHost.records_only`)."""


def _nothing(step: Step) -> bool:
    return False


def choice_of_own_turn(step: Step, own_turn_choice: OwnTurnChoice) -> bool:
    """A decision step a standing order covers only when it names it by id."""
    return step.kind == StepKind.DECISION and own_turn_choice(step)


def covered_by(
    seq: SequenceOfPlay, name: str, records_only: RecordsOnly = _nothing
) -> tuple[Step, ...]:
    """The steps a standing order's ``name`` reaches: the table's (`SequenceOfPlay.covered`),
    or for `MANUAL_NAME` every manual step and every decision that takes only records."""
    if name == MANUAL_NAME:
        return tuple(
            s
            for s in seq.every_step()
            if s.kind == StepKind.MANUAL or (s.kind == StepKind.DECISION and records_only(s))
        )
    return seq.covered(name)


def expand(
    seq: SequenceOfPlay,
    names: Sequence[str],
    own_turn_choice: OwnTurnChoice,
    records_only: RecordsOnly = _nothing,
) -> tuple[list[str], str]:
    """The step ids covered by ``names``, in play order; and, if a name is unknown or is
    itself a secret step, why the order is refused."""
    steps = seq.every_step()
    wanted: set[str] = set()
    for name in dict.fromkeys(names):  # (each name once, however often a packet repeats it)
        covered = covered_by(seq, name, records_only)
        if not covered and name == MANUAL_NAME:
            return [], f"standing order: this sequence of play has no {MANUAL_NAME} step"
        if not covered:
            hint = (
                f"; its id is written {MANUAL_NAME!r}"
                if name.strip().casefold() == MANUAL_NAME
                else seq.unknown_name(name)
            )
            return [], f"standing order: no step, heading or phase {name!r}{hint}"
        if len(covered) == 1 and covered[0].kind == StepKind.SECRET:
            return [], f"standing order: step {name} is secret and needs a real choice"
        wanted.update(
            s.id
            for s in covered
            if s.kind != StepKind.SECRET
            and not s.obsolete
            and (s.id == name or not choice_of_own_turn(s, own_turn_choice))
        )
    return [s.id for s in steps if s.id in wanted], ""


def left_to_seat(
    seq: SequenceOfPlay, names: Sequence[str], ids: Sequence[str], own_turn_choice: OwnTurnChoice
) -> list[str]:
    """The own-turn decisions ``names`` reach but leave to the seat (not named by id)."""
    reached = {s.id for name in dict.fromkeys(names) for s in covered_by(seq, name)}
    named = set(ids)
    return [
        s.id
        for s in seq.every_step()
        if s.id in reached and s.id not in named and choice_of_own_turn(s, own_turn_choice)
    ]


def describe_order(
    seat: Seat, names: Sequence[str], ids: Sequence[str], kept: Sequence[str]
) -> str:
    """The event text for a standing order ``names`` expanded to ``ids``."""
    if not ids:
        return f"{seat} cancelled its standing order"
    left = f"; {seat} still decides {', '.join(kept)} itself" if kept else ""
    return (
        f"{seat} standing order: the engine completes {seat}'s part of {', '.join(names)} "
        f"({len(ids)} steps, never secret ones) whenever it is owed{left}"
    )
