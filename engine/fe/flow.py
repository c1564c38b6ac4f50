"""F&E's part of the sequence-of-play driver: its parts, its turns and its rules areas.

The driver itself (`engine.core.turns`) is the same for every ruleset with a sequence of play.
What is F&E's lives here, as the `FeTurns` host: the game has a set-up part (one step per
empire), then per game turn one player turn per seat (phases 1-10) and, with the ``orion``
option, the Orion pirate phase (11); a phase beginning and a game turn beginning call the
rules areas' hooks (`engine.fe.steps`), and automatic and decision steps are played by the
area the sequence data names. The module-level functions are the driver's, bound to F&E, for
the rules modules and tests that call them.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from engine.core import caches
from engine.core.ruleset import Actor, Event, Seat, Violation
from engine.core.turn_orders import Back
from engine.core.turns import Turns, describe
from engine.fe import applies
from engine.fe import steps as areas
from engine.fe.model import FeState
from engine.fe.scenario import turn_date
from engine.fe.sequence import ORION_PART, Phase, SequenceOfPlay, Step, load_sequence
from engine.fe.steps import base
from engine.fe.steps.setup_stage import SETUP_PHASE, setup_steps

ADJUST_ORDER = "adjust"
"""The typed adjustment's order type (`engine.fe.orders.Adjust`), taken at every step."""

ORION = "orion"
"""Stands for the phasing seat in decision keys during the Orion phase."""
COMBAT_RULE = "302.9"
COMBAT_PHASE = "5"
BACK_SETTLES_FROM = "5.2"
"""From this version a ``back`` order goes on from the step it names as the sequence does
when it reaches a step: an automatic step is carried out, a step that does not apply or
that every seat's policy answers is passed. Before, the game waited there for the phasing
seat's ``done``, which marked an automatic step done without carrying it out (5-3X4, the
variable BIR roll); there a secret step every policy answers is refused, as nobody would owe
it."""
FOLDED_STEPS = ("5-3C", "5-3D")
"""`engine.fe.steps.force_together.FOLDED_STEPS`, named here so that the flow imports no
combat module until a battle needs one."""
_PHASING = Actor.PHASING
"""Read off the enum once (a member read off its class goes through the enum's metaclass)."""

__all__ = ["ORION", "TURNS", "describe"]


def sequence() -> SequenceOfPlay:
    return load_sequence()


def orion_on(state: FeState) -> bool:
    return state.option(ORION) is True and bool(sequence().part(ORION_PART))


def turn_text(turn: int) -> str:
    year, season = turn_date(turn)
    return f"Turn {turn}, {season} Y{year}"


class FeTurns:
    """The `engine.core.turn_host.TurnHost` of F&E."""

    def sequence(self) -> SequenceOfPlay:
        return load_sequence()

    def steps(self, state: FeState) -> tuple[Step, ...]:
        """The steps of the current part: the set-up, this player turn, or the Orion phase."""
        if state.setup:
            return setup_steps(state.scenario)
        # `SequenceOfPlay.part`, read straight from its table: the driver asks several times
        # per order.
        return load_sequence().parts.get(ORION_PART if state.orion else "", ())

    def part_id(self, state: FeState) -> tuple[object, ...]:
        return (state.setup, state.turn, state.player_turn, state.orion)

    def phase(self, state: FeState, step: Step) -> Phase:
        return SETUP_PHASE if step.phase == SETUP_PHASE.id else load_sequence().phases[step.phase]

    phasing = staticmethod(base.phasing)
    """The seat placing in the set-up, the player turn's seat, or in the Orion phase the
    first seat of the turn order standing in (`steps.base.phasing` itself: the driver asks
    at every order, so no method stands in between)."""

    def key(self, state: FeState) -> str:
        who = ORION if state.orion else base.phasing(state)
        return f"T{state.turn}/{who}"

    def next_part(self, state: FeState, events: list[Event]) -> FeState:
        return _next_part(state, events)

    def phase_begins(self, state: FeState, step: Step, events: list[Event]) -> FeState:
        phase = self.phase(state, step)
        who = "the Orions" if state.orion else base.phasing(state)
        events.append(
            Event(
                "phase",
                f"Phase {phase.id} ({phase.title}) begins for {who}",
                seat="" if state.orion else base.phasing(state),
                step=step.id,
                data={"phase": phase.id, "rule": phase.rule},
            )
        )
        if state.orion or state.setup:
            return state
        for each in _phase_hooks()[0]:
            state = each.on_phase(state, phase.id, events)
        return state

    def phase_ends(self, state: FeState, last: Step, events: list[Event]) -> FeState:
        """The rules areas may play the phase again (the combat phase, once per battle hex:
        `engine.fe.steps.combat`)."""
        if state.orion or state.setup:
            return state
        for each in _phase_hooks()[1]:
            state = each.on_phase_end(state, last.phase, events)
        return state

    def automatic(self, state: FeState, step: Step, events: list[Event]) -> FeState:
        return areas.area(step.area).automatic(state, step, events)

    def skip(self, state: FeState, step: Step) -> str:
        if step.id in FOLDED_STEPS:  # chosen at 5-3E from 5.10
            from engine.fe.steps import force_together  # (combat: not for a first paint)

            return force_together.skip(state, step.id)
        return areas.area(step.area).skip(state, step) if step.area else ""

    def unmet(self, state: FeState, step: Step, condition: str) -> str:
        return applies.unmet(state, step, condition)

    def own_turn_choice(self, step: Step) -> bool:
        """The phasing player's decisions outside combat (builds, movement, retrograde,
        strategic movement, reserves...): a standing order covers them only by id. Combat
        decisions stay covered by a standing order for phase 5: there the seats say what they
        mean with their combat policies (`engine.fe.steps.combat_policy`)."""
        return step.actor == _PHASING and step.phase != COMBAT_PHASE

    def records_only(self, step: Step) -> bool:
        """A decision whose only order is the typed adjustment (5-3B, where each side
        organizes its forces; 5-8G, the pursuit's): the engine plays nothing a seat chooses
        there, the battle force and groups are chosen at the secret steps after it."""
        return step.orders == (ADJUST_ORDER,)  # (an adjustment is taken at every step)

    def decides(self, state: FeState, step: Step, seat: Seat) -> bool:
        from engine.fe.steps import combat_policy, combat_pursuit

        if step.id in combat_pursuit.POLICY_STEPS:
            return combat_pursuit.decides(state, step, seat)
        return combat_policy.decides(state, step, seat)

    def asks_seat(self, state: FeState, step: Step, seat: Seat) -> bool:
        """A retreat option of a stalled battle (`engine.fe.steps.combat_policy.stalled`):
        a standing order for phase 5 would stay there for ever, as a policy would."""
        from engine.fe.steps import combat_policy

        return step.id in combat_policy.RETREAT_STEPS and bool(combat_policy.stalled(state))

    def by_policy(self, state: FeState, step: Step, events: list[Event]) -> FeState | None:
        from engine.fe.steps import combat_policy, combat_pursuit, reaction_policy

        if step.id in combat_pursuit.POLICY_STEPS:
            return combat_pursuit.by_policy(state, step, events)
        answered = combat_policy.by_policy(state, step, events)
        return answered if answered is not None else reaction_policy.by_policy(state, step, events)

    def finish(self, state: FeState, seat: Seat, step: Step) -> list[Violation]:
        return areas.area(step.area).finish(state, seat, step)

    def on_done(self, state: FeState, seat: Seat, step: Step, events: list[Event]) -> FeState:
        return areas.area(step.area).on_done(state, seat, step, events)

    def answering(self, state: FeState, step: Step, seats: tuple[Seat, ...]) -> tuple[Seat, ...]:
        return areas.area(step.area).answering(state, step, seats) if step.area else seats

    def back_problems(self, state: FeState, step: Step, target: Step | None) -> list[Violation]:
        """``back`` serves the combat phase only (302.9): the next round or battle hex."""
        if state.orion or state.setup or step.phase != COMBAT_PHASE:
            return [
                Violation(
                    "back is only allowed in the combat phase (5), to fight the next round "
                    f"or battle hex; the current step {step.id} is in phase {step.phase}",
                    COMBAT_RULE,
                )
            ]
        if target is not None and target.phase != COMBAT_PHASE:  # (None: the core says it)
            return [
                Violation("back: the step named is not a step of the combat phase", COMBAT_RULE)
            ]
        return []


@caches.static
def _phase_hooks() -> tuple[tuple[base.Area, ...], tuple[base.Area, ...]]:
    """The areas whose ``on_phase``, then those whose ``on_phase_end``, do something (they
    override `base.Area`'s, which return the state as given), in the order of `areas.AREAS`:
    a phase's beginning and end call only these, not every area, on every phase."""
    every = tuple(areas.AREAS.values())
    begins = tuple(a for a in every if type(a).on_phase is not base.Area.on_phase)
    ends = tuple(a for a in every if type(a).on_phase_end is not base.Area.on_phase_end)
    return begins, ends


TURNS: Turns[FeState] = Turns(FeTurns())
"""The sequence-of-play driver bound to F&E."""


def part(state: FeState) -> tuple[Step, ...]:
    return TURNS.host.steps(state)


def current(state: FeState) -> Step | None:
    return TURNS.current(state)


def dice_armed(state: FeState) -> bool:
    """A ``done`` asked for dice: the core arms them with its order, and the other seats
    owe their values before any order after it, so a run of one seat's steps ends there
    (`engine.core.through.own_run`'s and ``own_stops``' halt)."""
    return bool(state.queued_rolls)


def settled(state: FeState, seat: Seat, step: Step) -> str:
    """Why ``seat``'s orders left it nothing to decide at ``step`` (`engine.fe.steps.base.
    Area.settled`), or ""."""
    return areas.area(step.area).settled(state, seat, step) if step.area else ""


def phase_of(step: Step) -> Phase:
    return SETUP_PHASE if step.phase == SETUP_PHASE.id else sequence().phases[step.phase]


def phasing(state: FeState) -> Seat:
    return base.phasing(state)


def answer_order(state: FeState, step: Step) -> tuple[Seat, ...]:
    return TURNS.answer_order(state, step)


def owing(state: FeState, step: Step | None = None) -> tuple[Seat, ...]:
    return TURNS.owing(state, step)


def decision_key(state: FeState, step: Step, seat: Seat = "") -> str:
    return TURNS.decision_key(state, step, seat)


def advance(state: FeState, events: list[Event]) -> FeState:
    return TURNS.advance(state, events)


def settle(state: FeState, left: Step | None, events: list[Event]) -> FeState:
    return TURNS.settle(state, left, events)


def finish_problems(state: FeState, seat: Seat, step: Step) -> list[Violation]:
    return TURNS.finish_problems(state, seat, step)


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
    return TURNS.complete(
        state, seat, note, adjustments, events, through=through, automatic=automatic
    )


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


def back_settles(state: FeState) -> bool:
    """Whether a ``back`` in this game goes on from the step it names (`BACK_SETTLES_FROM`)."""
    return state.plays_at_least(BACK_SETTLES_FROM)


def check_back(state: FeState, step: Step, order: Back) -> list[Violation]:
    """Why ``back`` is refused at ``step`` now (302.9: in the combat phase, to an earlier
    combat step)."""
    return TURNS.check_back(state, step, order, COMBAT_RULE, settles=back_settles(state))


def back_targets(state: FeState, step: Step) -> tuple[str, ...]:
    """The steps a ``back`` at ``step`` may name now, in the order of the sequence: the
    combat phase's steps before it that `check_back` takes (the menu of the order)."""
    if step.phase != COMBAT_PHASE:
        return ()
    before = part(state)[: state.step]
    return tuple(
        s.id for s in before if s.phase == COMBAT_PHASE and not check_back(state, step, Back(s.id))
    )
