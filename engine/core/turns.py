"""The sequence-of-play driver: who owes the current step, and how play moves on.

Any ruleset whose turn is a printed list of steps (`engine.core.sequence`) uses this one
driver instead of writing its own: it knows the four kinds of step (the engine's *automatic*
steps, *decision* steps whose orders the ruleset checks, *secret* steps the protocol core
commits and reveals, *manual* bookkeeping), who answers a step (the phasing seat, the other
one, or both in turn), steps that do not apply (their ``applies`` conditions fail: they pass
by themselves), standing orders, ``done through`` a later step or the end of the part, and
going ``back`` to repeat a stretch of steps. The ruleset supplies a `TurnHost`: the parts of
its game (a set-up, player turns, a part played once per game turn), what happens between
parts and as phases begin, and its rules areas' hooks. Every function is pure: state in, new
state out, with what happened appended to an event list.

The state is the ruleset's own msgspec struct; the driver reads and replaces only the fields
`TurnState` names, so a ruleset keeps its state flat (and its state hash unchanged) while
sharing the machinery.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Generic

import msgspec

from engine.core import caches, standing
from engine.core import through as through_mod
from engine.core.errors import NotPending
from engine.core.face import ChecklistItem
from engine.core.ruleset import (
    Actor,
    Decision,
    DecisionKind,
    Event,
    Seat,
    StepKind,
    Violation,
)
from engine.core.sequence import Step
from engine.core.through import MAX_STEPS_PER_ORDER, THROUGH_END
from engine.core.turn_host import S, TurnHost, TurnState
from engine.core.turn_orders import Back, Done, Standing

_BOTH, _NON_PHASING = Actor.BOTH, Actor.NON_PHASING
_ROTATED = (_BOTH, _NON_PHASING)
_AUTOMATIC, _DECISION, _SECRET = StepKind.AUTOMATIC, StepKind.DECISION, StepKind.SECRET
_ASKED = (StepKind.DECISION, StepKind.SECRET)
_ORDERS, _SECRET_DECISION = DecisionKind.ORDERS, DecisionKind.SECRET
"""The enum members the driver compares at every step and order, read once here: in Python
3.11 reading a member off its enum class (``StepKind.SECRET``) costs a trip through the
enum's metaclass, several times a plain name's look-up."""


def describe(step: Step) -> str:
    return f"{step.id} ({step.title})"


_STRUCT_REPLACE: Any = msgspec.structs.replace
"""`msgspec.structs.replace`, typed loosely: a ruleset's state is a struct the `TurnState`
protocol only describes. Called directly rather than through `typing.cast`, a function call
at run time, as the driver replaces the state several times per order."""


def _replace(state: S, **changes: Any) -> S:
    replaced: S = _STRUCT_REPLACE(state, **changes)
    return replaced


def standing_for(state: TurnState, seat: Seat) -> tuple[str, ...]:
    for owner, steps in state.standing:
        if owner == seat:
            return steps
    return ()


@caches.by_identity(maxsize=1)
def _position(turns: Turns[Any], state: Any) -> tuple[Step | None, tuple[Seat, ...]]:
    """`Turns.position` of ``state``: a pure function of the immutable state, as every hook
    of the host is."""
    step = turns.current(state)
    return step, (() if step is None else turns.owing(state, step))


class Turns(Generic[S]):
    """The driver bound to one ruleset's host."""

    def __init__(self, host: TurnHost[S]) -> None:
        self.host = host

    @property
    def rule(self) -> str:
        """The sequence of play's own rule, cited when a step is refused."""
        return self.host.sequence().data.rule

    # --- where play stands ----------------------------------------------------------------

    def current(self, state: S) -> Step | None:
        """The step being played, or None once the game is over."""
        if state.over:
            return None
        return self.host.steps(state)[state.step]

    def answer_order(self, state: S, step: Step) -> tuple[Seat, ...]:
        """The seats that must complete ``step``, in the order they answer.

        A "both" step that is not secret asks first the seat that ended the step before (the
        one holding the pen), the phasing seat when none did: each seat then answers its part
        of one "both" step and the first part of the next in one packet, so a row of k such
        steps costs k + 1 packets and hand-offs rather than 2k. The order of the parts is
        bookkeeping; where a rule orders the players' acts, the step's own orders say so.
        Secret steps keep the phasing seat first: both commit before anything is revealed.
        """
        order = self._plain_order(state, step)
        if step.actor != _BOTH or step.kind == _SECRET:
            return order
        return self.host.answering(state, step, order) or order

    def _plain_order(self, state: S, step: Step) -> tuple[Seat, ...]:
        """`answer_order` before the host narrows a "both" step to the seats it asks."""
        first = self.host.phasing(state)
        actor = step.actor
        if actor not in _ROTATED:  # the phasing seat's step, or nobody's: it answers
            return (first,)
        index = state.seats.index(first)
        rotated = state.seats[index:] + state.seats[:index]
        if actor == _BOTH:
            if step.kind != _SECRET and state.last_actor in rotated:
                index = rotated.index(state.last_actor)
                rotated = rotated[index:] + rotated[:index]
            return rotated
        return (rotated[1],)

    def position(self, state: S) -> tuple[Step | None, tuple[Seat, ...]]:
        """The current step and the seats that owe it (`current`, `owing`), remembered for
        the last state asked about: a packet's order asks who owes it (`pending`), then
        whether its seat may act (`turn_problems`), about the same state."""
        return _position(self, state)

    def owing(self, state: S, step: Step | None = None) -> tuple[Seat, ...]:
        """The seats that owe the current step now (all of them for a secret step)."""
        step = step or self.current(state)
        if step is None:
            return ()
        seats = self.answer_order(state, step)
        if step.kind == _SECRET:
            return tuple(s for s in seats if not self.host.decides(state, step, s))
        answered = state.answered
        for seat in seats:  # the first seat still to answer (a loop: asked at every order)
            if seat not in answered:
                return (seat,)
        # Every seat the host still asks has answered, yet the step goes on: an order since
        # the last part (a policy that now declines, say) excused the seat that was to go.
        # That seat still owes the step, as it did before: its ``done`` ends it.
        for seat in self._plain_order(state, step):
            if seat not in answered:
                return (seat,)
        return ()

    def decision_key(self, state: S, step: Step, seat: Seat = "") -> str:
        """Unique in the game: the host's pass name, the step, and the pass through the step.

        The pass number is ``backs + 1``: between two ``back`` orders the step index only
        moves forward, so a step is reached at most once per pass. ``seat`` tells apart the
        halves of a "both" step.
        """
        key = f"{self.host.key(state)}/{step.id}/{state.backs + 1}"
        return f"{key}/{seat}" if seat else key

    def pending(self, state: S) -> list[Decision]:
        step, seats = _position(self, state)
        if step is None:
            return []
        key = f"{self.host.key(state)}/{step.id}/{state.backs + 1}"  # `decision_key`, inline
        if step.kind == _SECRET:
            return [Decision(seats, step.id, _SECRET_DECISION, key, step.title, step.rules)]
        seat_part = seats[0] if step.actor == _BOTH else ""
        if seat_part:  # the seat's half of a "both" step
            key = f"{key}/{seat_part}"
        return [Decision(seats, step.id, _ORDERS, key, step.title, step.rules)]

    def turn_problems(self, state: S, seat: Seat) -> tuple[Step | None, list[Violation]]:
        """The current step, and why ``seat`` may not give an order now (empty: it may)."""
        if seat not in state.seats:
            return None, [Violation(f"{seat!r} is not a seat in this game", self.rule)]
        step, owing = _position(self, state)
        if step is None:
            return None, [Violation("the game is over: no more orders", self.rule)]
        if seat not in owing:
            text = f"it is {owing[0]}'s step {describe(step)}, not {seat}'s"
            return step, [Violation(text, self.rule)]
        return step, []

    # --- moving on ------------------------------------------------------------------------

    def advance(self, state: S, events: list[Event]) -> S:
        """Leave the current step (completed) and settle on the next playable one."""
        left = self.current(state)
        return self.settle(_replace(state, step=state.step + 1, answered=()), left, events)

    def settle(self, state: S, left: Step | None, events: list[Event]) -> S:
        """Play on to the next step a seat must act in.

        Passes obsolete steps, carries out automatic steps, passes decision and secret steps
        the host says need nobody, and crosses into the next part when one ends.
        """
        host = self.host
        for _ in range(MAX_STEPS_PER_ORDER):
            steps = host.steps(state)
            if state.step >= len(steps):
                if left is not None:
                    moved = host.phase_ends(state, left, events)
                    if moved.step != state.step:
                        state, left = _replace(moved, answered=()), steps[moved.step]
                        continue
                state = host.next_part(state, events)
                if state.over:
                    return state
                left = None
                continue
            step = steps[state.step]
            if step.obsolete:
                text = f"{step.id} is obsolete and skipped"
                events.append(Event("step-skipped", text, step=step.id))
                state = _replace(state, step=state.step + 1)
                continue
            if left is not None and left.phase != step.phase:
                moved = host.phase_ends(state, left, events)
                if moved.step != state.step:  # the phase is played again
                    state, left = _replace(moved, answered=()), steps[moved.step]
                    continue
                state = moved
            if left is None or left.phase != step.phase:
                moved = host.phase_begins(state, step, events)
                left = step
                if moved.step != state.step:  # the host passed (part of) the phase
                    state = _replace(moved, answered=())
                    continue
                state = moved
            reason = self.inapplicable(state, step) if step.applies else ""
            if reason:
                text = f"{step.id} {step.title}: {reason}"
                events.append(Event("step-passed", text, step=step.id, data={"reason": reason}))
                state = _replace(state, step=state.step + 1, answered=())
                continue
            if step.kind == _AUTOMATIC:
                moved = host.automatic(state, step, events)
                text = f"{step.id} {step.title}: done by the engine"
                events.append(Event("step-auto", text, step=step.id))
                if moved.step != state.step:
                    state = _replace(moved, answered=())
                    continue
                state = _replace(moved, step=state.step + 1, answered=())
                continue
            if step.kind in _ASKED:
                reason = host.skip(state, step)
                if reason:
                    text = f"{step.id} {step.title}: {reason}"
                    events.append(Event("step-passed", text, step=step.id))
                    state = _replace(state, step=state.step + 1, answered=())
                    continue
            if step.kind in _ASKED:
                answered = host.by_policy(state, step, events)
                if answered is not None:
                    text = f"{step.id} {step.title}: answered for the seats (policies or rules)"
                    events.append(Event("step-policy", text, step=step.id))
                    if answered.step != state.step:
                        state = _replace(answered, answered=())
                        continue
                    state = _replace(answered, step=state.step + 1, answered=())
                    continue
            return state
        raise NotPending(
            f"the sequence passed {MAX_STEPS_PER_ORDER} steps without stopping for a seat"
        )

    def inapplicable(self, state: S, step: Step) -> str:
        """Why ``step`` does not apply now (the first of its conditions that fails), or ""."""
        for condition in step.applies:
            reason = self.host.unmet(state, step, condition)
            if reason:
                return f"does not apply ({reason})"
        return ""

    def resume(self, state: S, events: list[Event]) -> S:
        """Settle again on the current step: something it waited for (dice, say) came in, so
        the host may now pass it or answer it by policy; then run the standing orders."""
        step = self.current(state)
        if step is None:
            return state
        return self.run_standing(self.settle(state, step, events), events)

    def finish_problems(self, state: S, seat: Seat, step: Step) -> list[Violation]:
        """Why ``seat`` may not end ``step`` with ``done`` yet (only decision steps say)."""
        if step.kind != _DECISION:
            return []
        return self.host.finish(state, seat, step)

    def complete(
        self,
        state: S,
        seat: Seat,
        note: str,
        adjustments: Sequence[str],
        events: list[Event],
        *,
        through: str = "",
        automatic: bool = False,
    ) -> S:
        """``seat`` completes its part of the current step; the step ends when every seat did."""
        step = _position(self, state)[0]  # asked about this state already (who owes it)
        if step is None:
            raise NotPending("the game is over")
        answered = (*state.answered, seat)
        next_seat: Seat | None = None  # the first still to answer (a loop: asked at every done)
        for other in self.answer_order(state, step):
            if other not in answered:
                next_seat = other
                break
        data: dict[str, Any] = {"note": note, "adjustments": list(adjustments)}
        if through:
            data["through"] = through
        if automatic:
            data["standing"] = True
        suffix = f": {note}" if note else (" (standing order)" if automatic else "")
        if next_seat is not None:
            text = f"{seat} completed its part of {step.id} {step.title}; {next_seat} to go{suffix}"
            events.append(Event("step-part", text, seat, step.id, data))
            return _replace(state, answered=answered)
        text = f"{seat} completed {step.id} {step.title}{suffix}"
        events.append(Event("step-done", text, seat, step.id, data))
        if step.kind == _DECISION:
            state = _replace(state, last_actor=seat)
            moved = self.host.on_done(state, seat, step, events)
            if moved.step != state.step:
                return self.settle(_replace(moved, answered=()), step, events)
            return self.advance(moved, events)
        # No host hook ran: `advance` in one replacement, leaving the step just completed.
        state = _replace(state, step=state.step + 1, answered=(), last_actor=seat)
        return self.settle(state, step, events)

    # --- done, and done through -----------------------------------------------------------

    def check_done(self, state: S, seat: Seat, step: Step, order: Done) -> list[Violation]:
        if step.kind == _SECRET:
            return [Violation(f"step {step.id} is secret: send a secret choice", self.rule)]
        if not order.through or order.through == THROUGH_END:
            # Through the end stops, rather than fails, where a step blocks; the current step
            # is the seat's (the caller checked), so only its own ``done`` can be refused.
            return self.finish_problems(state, seat, step)
        last = self.last_index(state, order.through)
        if last is None:
            said = f"through {order.through!r}: no such step in this part of the game"
            hint = self.host.sequence().unknown_name(order.through)
            return [
                Violation(said + (hint or " (give a step, heading or phase id of it, or 'end')"))
            ]
        if last < state.step:
            text = f"through {order.through}: already behind the current step {step.id}"
            return [Violation(text, self.rule)]
        if last == state.step:
            return self.finish_problems(state, seat, step)  # the same as a plain ``done``
        _, _, blocker = through_mod.walked(self, state, order, seat)  # kept for apply_done
        if blocker:
            return [Violation(f"cannot complete through {order.through}: {blocker}", self.rule)]
        return []

    def apply_done(self, state: S, seat: Seat, order: Done, events: list[Event]) -> S:
        if not order.through:
            state = self.complete(state, seat, order.note, order.adjustments, events)
        elif order.through == THROUGH_END:
            state = self.walk_to_end(state, seat, order, events)
        else:
            state, walk_events, blocker = through_mod.walked(self, state, order, seat)
            events.extend(walk_events)
            if blocker:
                raise NotPending(f"cannot complete through {order.through}: {blocker}")
        return self.run_standing(state, events)

    def last_index(self, state: S, through: str) -> int | None:
        return through_mod.last_index(self, state, through)

    def walk_to_end(self, state: S, seat: Seat, order: Done, events: list[Event]) -> S:
        return through_mod.walk_to_end(self, state, seat, order, events)

    def walk_through(self, state: S, seat: Seat, order: Done, events: list[Event]) -> tuple[S, str]:
        return through_mod.walk_through(self, state, seat, order, events)

    def own_run(
        self, state: S, seat: Seat, stop: str = "", halt: Callable[[S], bool] | None = None
    ) -> list[str]:
        return through_mod.own_run(self, state, seat, stop, halt)

    # --- back -----------------------------------------------------------------------------

    def check_back(
        self, state: S, step: Step, order: Back, rule: str = "", *, settles: bool = False
    ) -> list[Violation]:
        """Why ``back`` is refused now; ``rule`` is the ruleset's rule for going back, and
        ``settles`` what `apply_back` is told."""
        rule = rule or self.rule
        steps = self.host.steps(state)
        span = self.host.sequence().span(order.step, steps)
        target = None if span is None else steps[span[0]]
        problems = self.host.back_problems(state, step, target)
        if problems:
            return problems
        if step.kind == _SECRET:
            return [Violation(f"step {step.id} is secret: finish it first", rule)]
        if span is None or target is None:
            hint = self.host.sequence().unknown_name(order.step)
            return [Violation(f"back {order.step!r}: no such step in this part{hint}", rule)]
        if span[0] >= state.step:
            text = f"back {order.step}: step {target.id} is not before the current step {step.id}"
            return [Violation(text, rule)]
        if target.obsolete:
            return [Violation(f"back {order.step}: step {target.id} is obsolete", rule)]
        if not settles and not self.owing(_replace(state, step=span[0], answered=()), target):
            # A secret step whose every seat's choice a policy or the rules make: going back
            # lands on it without settling, so the game would wait there for no one.
            text = (
                f"back {order.step}: step {describe(target)} would wait for no seat (the "
                "seats' policies or the rules make its choices); go back to a step before it"
            )
            return [Violation(text, rule)]
        return []

    def apply_back(
        self,
        state: S,
        seat: Seat,
        step: Step,
        order: Back,
        events: list[Event],
        *,
        why: str = "",
        rule: str = "",
        settles: bool = False,
    ) -> S:
        """Go back to the first step ``order.step`` covers; ``why`` ends the event's text and
        ``rule`` is the ruleset's rule for going back (cited in the event). ``settles``: go
        on from there as `settle` does when the sequence reaches a step (automatic steps
        carried out, steps that do not apply or that policies answer passed); without it
        (rulesets' earlier versions) the game waits at that step whatever its kind."""
        steps = self.host.steps(state)
        span = self.host.sequence().span(order.step, steps)
        if span is None:
            raise NotPending(f"back {order.step!r}: no such step")
        target = steps[span[0]]
        text = f"{seat} went back from {step.id} to {describe(target)}"
        text = f"{text} {why}" if why else text
        data = {"from": step.id, "to": target.id, "rule": rule or self.rule}
        events.append(Event("back", text, seat, target.id, data))
        state = _replace(state, step=span[0], answered=(), backs=state.backs + 1)
        if settles:
            return self.resume(state, events)
        return self.run_standing(state, events)

    # --- standing orders ------------------------------------------------------------------

    def expand_standing(self, names: Sequence[str]) -> tuple[list[str], str]:
        """The step ids a standing order for ``names`` covers (`engine.core.standing`), and
        why it is refused ("" when it is not)."""
        host = self.host
        return standing.expand(host.sequence(), names, host.own_turn_choice, host.records_only)

    def check_standing(self, order: Standing) -> list[Violation]:
        _, problem = self.expand_standing(order.steps)
        return [Violation(problem, self.rule)] if problem else []

    def apply_standing(self, state: S, seat: Seat, order: Standing, events: list[Event]) -> S:
        """Replace ``seat``'s standing order (an empty list cancels it), then run them."""
        ids, _ = self.expand_standing(order.steps)
        others = tuple(entry for entry in state.standing if entry[0] != seat)
        entries = (*others, (seat, tuple(ids))) if ids else others
        seq, choice = self.host.sequence(), self.host.own_turn_choice
        kept = standing.left_to_seat(seq, order.steps, ids, choice) if ids else []
        text = standing.describe_order(seat, order.steps, ids, kept)
        data = {"names": list(order.steps), "steps": ids, "left": kept}
        events.append(Event("standing", text, seat, data=data))
        return self.run_standing(_replace(state, standing=tuple(sorted(entries))), events)

    def run_standing(self, state: S, events: list[Event]) -> S:
        """Complete, for their owners, every owed step their standing orders cover."""
        if not state.standing:
            return state
        for _ in range(MAX_STEPS_PER_ORDER):
            step, owing = _position(self, state)
            if step is None or step.kind == _SECRET:
                return state
            if not owing or step.id not in standing_for(state, owing[0]):
                return state
            if self.finish_problems(state, owing[0], step):
                return state  # e.g. something still to place: the seat must act itself
            if step.kind == _DECISION and self.host.asks_seat(state, step, owing[0]):
                return state
            state = self.complete(state, owing[0], "", [], events, automatic=True)
        return state

    # --- the checklist --------------------------------------------------------------------

    def rows(
        self,
        state: S,
        steps: Sequence[Step],
        statuses: Sequence[str],
        policies: Mapping[str, tuple[Seat, ...]] | None = None,
        policy_orders: Mapping[str, str] | None = None,
    ) -> list[ChecklistItem]:
        """Checklist rows for ``steps`` with their statuses (obsolete steps show skipped), the
        seats whose standing order covers each and, from ``policies`` (step id -> seats: the
        ruleset's reading of its own policies), the seats whose signed policy answers it, and
        from ``policy_orders`` (step id -> order) the order that signs a policy able to."""
        policies = policies or {}
        policy_orders = policy_orders or {}
        phases = [self.host.phase(state, step) for step in steps]
        sequence = self.host.sequence()
        return [
            ChecklistItem(
                step.id,
                step.title,
                step.phase,
                step.actor,
                step.kind,
                step.rules,
                "skipped" if step.obsolete else status,
                phase.title,
                phase.rule,
                tuple(seat for seat, ids in state.standing if step.id in ids),
                tuple((h.id, h.title) for h in sequence.heading_chain(step)),
                step.obsolete,
                () if step.obsolete else policies.get(step.id, ()),
                "" if step.obsolete else policy_orders.get(step.id, ""),
                () if step.obsolete else step.orders,
            )
            for step, status, phase in zip(steps, statuses, phases, strict=True)
        ]
