"""The sequence-of-play driver (`engine.core.turns`) with a toy host: steps that do not apply,
standing orders that leave a seat's own choices to it, and ``done`` through the end."""

from __future__ import annotations

import msgspec
import pytest

from engine.core import standing
from engine.core.ruleset import Actor, Event, Seat, StepKind, Violation
from engine.core.sequence import (
    Phase,
    SequenceData,
    SequenceError,
    SequenceOfPlay,
    Step,
    decode_sequence,
)
from engine.core.turn_orders import Done, Standing
from engine.core.turns import Turns


class ToyState(msgspec.Struct, frozen=True):
    seats: tuple[Seat, ...] = ("north", "south")
    step: int = 0
    answered: tuple[Seat, ...] = ()
    backs: int = 0
    over: bool = False
    standing: tuple[tuple[Seat, tuple[str, ...]], ...] = ()
    last_actor: Seat = ""
    turn: int = 1


def _step(sid: str, actor: Actor, kind: StepKind, *applies: str, phase: str = "1") -> Step:
    decision = kind in (StepKind.DECISION, StepKind.AUTOMATIC)
    return Step(
        sid,
        phase,
        f"step {sid}",
        actor,
        kind,
        area="toy" if decision else "",
        orders=("act",) if kind == StepKind.DECISION else (),
        applies=applies,
    )


SEQUENCE = SequenceOfPlay(
    SequenceData(
        rule="1.0",
        phases=(Phase("1", "First", "1.1"), Phase("2", "Second", "1.2")),
        headings=(),
        steps=(
            _step("a", Actor.PHASING, StepKind.MANUAL),
            _step("b", Actor.PHASING, StepKind.DECISION, "never"),
            _step("c", Actor.BOTH, StepKind.SECRET, "always", "never"),
            _step("d", Actor.PHASING, StepKind.MANUAL, "never|always"),
            _step("e", Actor.PHASING, StepKind.DECISION),
            _step("f", Actor.NON_PHASING, StepKind.DECISION),
            _step("g", Actor.PHASING, StepKind.MANUAL, phase="2"),
        ),
    )
)


class ToyHost:
    """Two seats, one player turn each per game turn, two game turns; "always" holds and
    "never" fails; the phasing seat's decisions are its own-turn choices."""

    def sequence(self) -> SequenceOfPlay:
        return SEQUENCE

    def steps(self, state: ToyState) -> tuple[Step, ...]:
        return SEQUENCE.main

    def part_id(self, state: ToyState) -> tuple[object, ...]:
        return (state.turn,)

    def phase(self, state: ToyState, step: Step) -> Phase:
        return SEQUENCE.phases[step.phase]

    def phasing(self, state: ToyState) -> Seat:
        return state.seats[0]

    def key(self, state: ToyState) -> str:
        return f"T{state.turn}"

    def next_part(self, state: ToyState, events: list[Event]) -> ToyState:
        if state.turn >= 2:
            return msgspec.structs.replace(state, over=True)
        return msgspec.structs.replace(state, turn=state.turn + 1, step=0)

    def phase_begins(self, state: ToyState, step: Step, events: list[Event]) -> ToyState:
        return state

    def phase_ends(self, state: ToyState, last: Step, events: list[Event]) -> ToyState:
        return state

    def automatic(self, state: ToyState, step: Step, events: list[Event]) -> ToyState:
        return state

    def skip(self, state: ToyState, step: Step) -> str:
        return ""

    def unmet(self, state: ToyState, step: Step, condition: str) -> str:
        holds = any(part == "always" for part in condition.split("|"))
        return "" if holds else "it never holds"

    def own_turn_choice(self, step: Step) -> bool:
        return step.actor == Actor.PHASING

    def records_only(self, step: Step) -> bool:
        return False

    def decides(self, state: ToyState, step: Step, seat: Seat) -> bool:
        return False

    def asks_seat(self, state: ToyState, step: Step, seat: Seat) -> bool:
        return False

    def by_policy(self, state: ToyState, step: Step, events: list[Event]) -> ToyState | None:
        return None

    def finish(self, state: ToyState, seat: Seat, step: Step) -> list[Violation]:
        return []

    def on_done(self, state: ToyState, seat: Seat, step: Step, events: list[Event]) -> ToyState:
        return state

    def back_problems(self, state: ToyState, step: Step, target: Step | None) -> list[Violation]:
        return []

    def answering(self, state: ToyState, step: Step, seats: tuple[Seat, ...]) -> tuple[Seat, ...]:
        return seats


TURNS: Turns[ToyState] = Turns(ToyHost())


def _current(state: ToyState) -> str:
    step = TURNS.current(state)
    assert step is not None
    return step.id


def test_steps_whose_conditions_fail_pass_by_themselves_whatever_their_kind() -> None:
    events: list[Event] = []
    state = TURNS.apply_done(ToyState(), "north", Done(), events)
    # b (a decision) and c (a secret step) pass; d holds by its second alternative.
    assert _current(state) == "d"
    passed = [(e.kind, e.step, e.text) for e in events if e.kind == "step-passed"]
    assert passed == [
        ("step-passed", "b", "b step b: does not apply (it never holds)"),
        ("step-passed", "c", "c step c: does not apply (it never holds)"),
    ]
    assert next(e.data for e in events if e.kind == "step-passed") == {
        "reason": "does not apply (it never holds)"
    }


def test_a_phase_name_leaves_the_seats_own_choices_unless_named_by_id() -> None:
    ids, problem = TURNS.expand_standing(["1"])
    # b and e are the phasing seat's decisions, c is secret; f is the other seat's decision.
    assert problem == "" and ids == ["a", "d", "f"]
    assert (
        TURNS.expand_standing(["c"])[1]
        == "standing order: step c is secret and needs a real choice"
    )


def test_a_standing_order_names_an_own_choice_by_id_to_cover_it() -> None:
    assert TURNS.expand_standing(["1", "e"])[0] == ["a", "d", "e", "f"]
    events: list[Event] = []
    state = TURNS.apply_standing(ToyState(), "north", Standing(["1"]), events)
    event = events[0]
    assert event.kind == "standing" and event.data["left"] == ["b", "e"]
    assert event.text.endswith("; north still decides b, e itself")
    assert _current(state) == "e", "a and d were completed for north, e is left to it"
    rows = TURNS.rows(state, SEQUENCE.main, ["todo"] * len(SEQUENCE.main))
    assert {row.step: row.standing for row in rows}["e"] == ()
    assert {row.step: row.standing for row in rows}["d"] == ("north",)


def test_manual_names_every_manual_step_and_no_decision() -> None:
    """``manual`` reaches the manual steps of every phase (a, d, g), never a decision
    (b, e, f) nor the secret step; with a phase it adds what that phase covers."""
    assert TURNS.expand_standing(["manual"]) == (["a", "d", "g"], "")
    assert TURNS.expand_standing(["manual", "1"])[0] == ["a", "d", "f", "g"]
    events: list[Event] = []
    state = TURNS.apply_standing(ToyState(), "north", Standing(["manual"]), events)
    assert events[0].data["left"] == [] and "of manual (3 steps" in events[0].text
    assert _current(state) == "e", "a and d done for north; e is its own decision"


def test_manual_in_a_sequence_without_manual_steps_is_refused_by_name() -> None:
    steps = (_step("x", Actor.PHASING, StepKind.DECISION),)
    data = SequenceData(rule="1.0", phases=(Phase("1", "First", "1.1"),), headings=(), steps=steps)
    ids, problem = standing.expand(SequenceOfPlay(data), ["manual"], lambda step: True)
    assert ids == [] and problem == "standing order: this sequence of play has no manual step"


def test_no_sequence_table_may_name_a_step_manual() -> None:
    """A standing order's ``manual`` must mean the same in every ruleset's table."""
    steps = (_step("manual", Actor.PHASING, StepKind.MANUAL),)
    data = SequenceData(rule="1.0", phases=(Phase("1", "First", "1.1"),), headings=(), steps=steps)
    with pytest.raises(SequenceError, match="'manual' is empty, not unique or reserved"):
        decode_sequence(msgspec.json.encode(data))


def test_done_through_the_end_stops_where_the_other_seat_decides_and_says_why() -> None:
    events: list[Event] = []
    state = TURNS.apply_done(ToyState(), "north", Done(through="end"), events)
    assert _current(state) == "f"
    (stop,) = [e for e in events if e.kind == "through-stopped"]
    assert stop.text == "north's done through the end stopped at f (step f): it is south's"
    assert stop.data == {"through": "end", "stopped": "f", "reason": "it is south's"}
    assert [e.step for e in events if e.kind == "step-done"] == ["a", "d", "e"]
    # south answers f; north's through the end then runs into the next part and says so.
    state = TURNS.apply_done(state, "south", Done(), [])
    events = []
    state = TURNS.apply_done(state, "north", Done(through="end"), events)
    assert state.turn == 2
    assert (
        events[-1].text == "north's done through the end completed its steps to the end of the part"
    )


def test_done_through_the_end_is_refused_only_where_a_plain_done_is() -> None:
    assert TURNS.check_done(ToyState(), "north", SEQUENCE.steps["a"], Done(through="end")) == []
    (problem,) = TURNS.check_done(ToyState(), "north", SEQUENCE.steps["a"], Done(through="zz"))
    assert "no such step" in problem.message
