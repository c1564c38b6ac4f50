"""What a ruleset gives the sequence-of-play driver (`engine.core.turns.Turns`): the fields of
its state the driver reads and replaces (`TurnState`), and the hooks of its game and rules
areas (`TurnHost`).

Both are protocols: a ruleset's state and its host match them by shape, and import nothing
from here (F&E's are `engine.fe.model.FeState` and `engine.fe.flow.FeTurns`).
"""

from __future__ import annotations

from typing import Protocol, TypeVar

from engine.core.ruleset import Event, Seat, Violation
from engine.core.sequence import Phase, SequenceOfPlay, Step


class TurnState(Protocol):
    """The fields of a ruleset's state that the driver reads and replaces."""

    @property
    def seats(self) -> tuple[Seat, ...]: ...
    @property
    def step(self) -> int: ...
    @property
    def answered(self) -> tuple[Seat, ...]: ...
    @property
    def backs(self) -> int: ...
    @property
    def over(self) -> bool: ...
    @property
    def standing(self) -> tuple[tuple[Seat, tuple[str, ...]], ...]: ...
    @property
    def last_actor(self) -> Seat:
        """The seat whose answer ended the last step a seat ended ("" before any): it holds
        the pen, so a "both" step asks it first (`Turns.answer_order`)."""
        ...


S = TypeVar("S", bound=TurnState)


class TurnHost(Protocol[S]):
    """What a ruleset tells the driver about its game; every method is pure."""

    def sequence(self) -> SequenceOfPlay:
        """The ruleset's checked sequence table."""
        ...

    def steps(self, state: S) -> tuple[Step, ...]:
        """The steps of the part being played (``state.step`` indexes them)."""
        ...

    def part_id(self, state: S) -> tuple[object, ...]:
        """Tells parts apart: ``done through`` never runs into the next part."""
        ...

    def phase(self, state: S, step: Step) -> Phase:
        """The phase ``step`` belongs to (a part outside the table may have its own)."""
        ...

    def phasing(self, state: S) -> Seat:
        """The seat whose part it is; it answers first."""
        ...

    def key(self, state: S) -> str:
        """Names this pass of the part in decision keys (e.g. turn and phasing seat)."""
        ...

    def next_part(self, state: S, events: list[Event]) -> S:
        """The part ended (``state.step`` ran past it): enter the next, or end the game."""
        ...

    def phase_begins(self, state: S, step: Step, events: list[Event]) -> S:
        """A phase begins with ``step``. The host may move ``state.step`` (a phase with
        nothing to do passes whole); the driver then goes on from there."""
        ...

    def phase_ends(self, state: S, last: Step, events: list[Event]) -> S:
        """The phase of ``last`` has just been played through. The host may move
        ``state.step`` back into it, to play it again (F&E fights its combat phase once per
        battle hex); moving back, it must count the pass in ``backs`` so decision keys stay
        unique. Unmoved, the next phase begins."""
        ...

    def automatic(self, state: S, step: Step, events: list[Event]) -> S:
        """Carry out an automatic step. The host may move ``state.step`` (a combat round
        that goes on returns to its start); otherwise the driver moves to the next step."""
        ...

    def skip(self, state: S, step: Step) -> str:
        """Why a decision or secret step may pass without its seats ("" to stop there)."""
        ...

    def unmet(self, state: S, step: Step, condition: str) -> str:
        """Why ``condition``, one of ``step.applies``, does not hold now, in words ("" when it
        holds). The conditions are the ruleset's vocabulary; the core only passes them on."""
        ...

    def own_turn_choice(self, step: Step) -> bool:
        """Whether the decision ``step`` is one where its seat, in its own turn, could do
        something (build, move): a standing order then covers it only when it names the step by
        its id, never through a phase or heading, so no routine standing order skips a
        player's builds or movement unawares."""
        ...

    def records_only(self, step: Step) -> bool:
        """Whether the decision ``step`` is one where a seat can only record what happened
        (the typed adjustments every step takes), the engine playing nothing of its choice:
        the standing order ``manual`` covers it as it covers the manual steps."""
        ...

    def decides(self, state: S, step: Step, seat: Seat) -> bool:
        """Whether a policy ``seat`` signed earlier makes its choice at the secret ``step``:
        the seat is then not asked (its opponents knew the policy before choosing)."""
        ...

    def asks_seat(self, state: S, step: Step, seat: Seat) -> bool:
        """Whether the rules want ``seat`` to answer the decision ``step`` itself now, though
        its standing order covers it: a standing order stops there (F&E: a battle whose last
        rounds changed nothing, which a standing order would fight on for ever)."""
        ...

    def by_policy(self, state: S, step: Step, events: list[Event]) -> S | None:
        """Answer a decision step for its seat, or a secret step no seat is asked, from the
        policies the seats signed earlier: the state after the answer (the driver then ends
        the step, unless the host moved ``state.step``), or None to stop there for the seat."""
        ...

    def finish(self, state: S, seat: Seat, step: Step) -> list[Violation]:
        """Why ``seat`` may not yet end a decision step with ``done``."""
        ...

    def on_done(self, state: S, seat: Seat, step: Step, events: list[Event]) -> S:
        """``seat`` ended a decision step; may move ``state.step`` itself."""
        ...

    def back_problems(self, state: S, step: Step, target: Step | None) -> list[Violation]:
        """Why the rules refuse ``back`` from ``step`` to ``target`` (None: the name given
        covers no step of this part); empty when the rules allow it."""
        ...

    def answering(self, state: S, step: Step, seats: tuple[Seat, ...]) -> tuple[Seat, ...]:
        """The seats that answer a "both" step that is not secret, from ``seats`` (all of
        them, in answer order): the rules may leave one seat no part in it (F&E's pursuer at
        5-8A is whichever side stayed). Return ``seats`` unchanged otherwise."""
        ...
