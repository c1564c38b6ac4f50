"""The ``fe`` ruleset: Federation & Empire, every step of rule 105, the engine playing its part.

The ruleset walks both players through the sequence of play (a set-up stage, then every step
of rule 105) with the right seat owing each step. Steps come in four kinds (data in
``sequence.json``): the engine carries out *automatic* steps itself (income, supply checks);
it checks the orders of *decision* steps against the board (set-up, repairs, builds,
movement and reaction, retrograde, strategic movement, reserves: `engine.fe.steps`); *secret*
steps are committed and revealed by the protocol core; *manual* steps are the players'
bookkeeping, recorded with ``done``, ``note``, ``roll``, ``back`` (to an earlier combat step,
302.9) and typed ``adjust``ments. ``standing`` orders let the engine complete a seat's
routine steps (`engine.fe.standing`).

Version 2 added the board; a game of version 1 (checklist only) is refused by name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from engine.core.errors import NotPending, PacketError, VersionError
from engine.core.ruleset import (
    Actor,
    Applied,
    ChecklistItem,
    Decision,
    DecisionKind,
    Event,
    OptionValue,
    RollRequest,
    ScenarioInfo,
    Seat,
    StepKind,
    Violation,
)
from engine.core.text import text_problem
from engine.fe import flow, model, standing
from engine.fe.flow import describe
from engine.fe.model import RULE_ORDERS, Back, Done, FeState, Note, Roll, Standing
from engine.fe.scenario import all_options, find_scenario, info, load_scenarios, turn_date
from engine.fe.sequence import Step
from engine.fe.steps import ORDER_AREAS
from engine.fe.steps.setup_stage import starting_board

SEQUENCE_RULE = "105.0"
COMBAT_RULE = "302.9"
COMBAT_PHASE = "5"


class FeRuleset:
    """Federation & Empire (implements ``engine.core.ruleset.Ruleset``)."""

    id = "fe"
    version = "2.0"
    state_type = FeState

    # --- scenarios and the start ----------------------------------------------------------

    def scenarios(self) -> Sequence[ScenarioInfo]:
        return tuple(info(s) for s in load_scenarios())

    def initial_state(
        self, scenario_id: str, seats: Sequence[Seat], options: Mapping[str, OptionValue]
    ) -> FeState:
        scenario = find_scenario(scenario_id)
        if scenario is None:
            raise VersionError(f"scenario {scenario_id!r} is not part of ruleset fe {self.version}")
        if sorted(seats) != sorted(scenario.turn_order):
            wanted = ", ".join(scenario.turn_order)
            raise PacketError(f"scenario {scenario_id} is played by the seats {wanted}")
        chosen: list[tuple[str, OptionValue]] = []
        offered = all_options(scenario)
        known = {o.id: o for o in offered}
        for key in sorted(options):
            if key not in known:
                raise VersionError(f"option {key!r} is not part of scenario {scenario_id}")
        for option in sorted(offered, key=lambda o: o.id):
            value = options.get(option.id, option.default)
            if type(value) is not type(option.default):
                kind = type(option.default).__name__
                raise PacketError(f"option {option.id!r} takes a {kind} value, not {value!r}")
            chosen.append((option.id, value))
        state = FeState(
            scenario=scenario.id,
            seats=scenario.turn_order,
            options=tuple(chosen),
            last_turn=scenario.last_turn,
            turn=scenario.first_turn,
            setup=True,
        ).with_board(starting_board(scenario))
        empires = sorted(e for seat in scenario.seats for e in seat.empires)
        state = msgspec.structs.replace(state, treasury=tuple((e, 0) for e in empires))
        return flow.settle(state, None, [])

    # --- orders on the wire and in files --------------------------------------------------

    def decode_orders(self, data: bytes) -> list[Any]:
        return list(model.decode_orders(data))

    def encode_orders(self, orders: Sequence[Any]) -> bytes:
        return model.encode_orders(orders)

    def parse_orders(self, items: Sequence[Mapping[str, Any]]) -> list[Any]:
        return list(model.parse_orders(items))

    def order_to_json(self, order: Any) -> dict[str, Any]:
        return model.order_to_json(order)

    # --- whose move -----------------------------------------------------------------------

    def pending(self, state: FeState) -> list[Decision]:
        step = flow.current(state)
        if step is None:
            return []
        seats = flow.owing(state, step)
        if step.kind == StepKind.SECRET:
            key = flow.decision_key(state, step)
            return [Decision(seats, step.id, DecisionKind.SECRET, key, step.title, step.rules)]
        seat_part = seats[0] if step.actor == Actor.BOTH else ""
        key = flow.decision_key(state, step, seat_part)
        return [Decision(seats, step.id, DecisionKind.ORDERS, key, step.title, step.rules)]

    def validate(self, state: FeState, seat: Seat, order: Any) -> list[Violation]:
        if seat not in state.seats:
            return [Violation(f"{seat!r} is not a seat in this game", SEQUENCE_RULE)]
        step = flow.current(state)
        if step is None:
            return [Violation("the game is over: no more orders", SEQUENCE_RULE)]
        owing = flow.owing(state, step)
        if seat not in owing:
            return [
                Violation(f"it is {owing[0]}'s step {describe(step)}, not {seat}'s", SEQUENCE_RULE)
            ]
        if isinstance(order, Done):
            return self._check_done(state, seat, step, order)
        if isinstance(order, Note):
            return []
        if isinstance(order, Roll):
            problem = model.dice_problem(order.dice)
            if problem:
                return [Violation(problem)]
            if not order.purpose.strip():
                return [Violation("a roll needs a purpose, e.g. 'variable battle intensity'")]
            return []
        if isinstance(order, Back):
            return self._check_back(state, step, order)
        if isinstance(order, Standing):
            return standing.check(state, order)
        tag = _tag(order)
        if tag in RULE_ORDERS:
            return self._check_rule_order(state, seat, step, tag, order)
        return [Violation(f"not an F&E order: {type(order).__name__}")]

    def _check_rule_order(
        self, state: FeState, seat: Seat, step: Step, tag: str, order: Any
    ) -> list[Violation]:
        if step.kind == StepKind.SECRET:
            return [Violation(f"step {step.id} is secret: send a secret choice", SEQUENCE_RULE)]
        if tag != "adjust" and tag not in step.orders:
            where = [s.id for s in flow.part(state) if tag in s.orders] or [
                s.id for s in flow.sequence().player_turn if tag in s.orders
            ]
            takes = f"; it takes {', '.join(step.orders)} or done" if step.orders else ""
            return [
                Violation(
                    f"a {tag} order belongs to step {' or '.join(where) or '(none)'}, "
                    f"not to the current step {describe(step)}{takes}",
                    SEQUENCE_RULE,
                )
            ]
        return ORDER_AREAS[tag].check(state, seat, step, order)

    def _check_done(self, state: FeState, seat: Seat, step: Step, order: Done) -> list[Violation]:
        if step.kind == StepKind.SECRET:
            return [Violation(f"step {step.id} is secret: send a secret choice", SEQUENCE_RULE)]
        if not order.through:
            return flow.finish_problems(state, seat, step)
        steps = flow.part(state)
        span = flow.sequence().span(order.through, steps)
        where = "Orion phase" if state.orion else "player turn"
        if span is None:
            return [Violation(f"through {order.through!r}: no such step in this {where}")]
        last = span[1]
        if last < state.step:
            return [
                Violation(
                    f"through {order.through}: already behind the current step {step.id}",
                    SEQUENCE_RULE,
                )
            ]
        if last == state.step:
            return flow.finish_problems(state, seat, step)  # the same as a plain ``done``
        _, blocker = self._walk_through(state, seat, order, [])
        if blocker:
            return [Violation(f"cannot complete through {order.through}: {blocker}", SEQUENCE_RULE)]
        return []

    def _check_back(self, state: FeState, step: Step, order: Back) -> list[Violation]:
        if state.orion or step.phase != COMBAT_PHASE:
            return [
                Violation(
                    "back is only allowed in the combat phase (5), to fight the next round "
                    f"or battle hex; the current step {step.id} is in phase {step.phase}",
                    COMBAT_RULE,
                )
            ]
        if step.kind == StepKind.SECRET:
            return [Violation(f"step {step.id} is secret: finish it first", COMBAT_RULE)]
        steps = flow.part(state)
        span = flow.sequence().span(order.step, steps)
        if span is None or steps[span[0]].phase != COMBAT_PHASE:
            return [Violation(f"back {order.step!r}: not a step of the combat phase", COMBAT_RULE)]
        target = steps[span[0]]
        if span[0] >= state.step:
            return [
                Violation(
                    f"back {order.step}: step {target.id} is not before the current step {step.id}",
                    COMBAT_RULE,
                )
            ]
        if target.obsolete:
            return [Violation(f"back {order.step}: step {target.id} is obsolete", COMBAT_RULE)]
        return []

    # --- applying -------------------------------------------------------------------------

    def apply(self, state: FeState, seat: Seat, order: Any) -> Applied[FeState]:
        step = flow.current(state)
        if step is None:
            raise NotPending("the game is over")
        events: list[Event] = []
        if isinstance(order, Done):
            state = self._apply_done(state, seat, order, events)
            return Applied(standing.run(state, events), events)
        if isinstance(order, Standing):
            state = standing.apply(state, seat, order, events)
            return Applied(standing.run(state, events), events)
        if isinstance(order, Note):
            events.append(
                Event(
                    "note",
                    f"{seat} noted at {step.id}: {order.text}",
                    seat,
                    step.id,
                    {"text": order.text},
                )
            )
            return Applied(state, events)
        if isinstance(order, Roll):
            parsed = model.parse_dice(order.dice)
            if parsed is None:
                raise NotPending(model.dice_problem(order.dice))
            count, sides = parsed
            return Applied(state, [], [RollRequest(count, sides, order.purpose, step.id)])
        if isinstance(order, Back):
            state = self._apply_back(state, seat, step, order, events)
            return Applied(standing.run(state, events), events)
        tag = _tag(order)
        if tag in RULE_ORDERS:
            state = ORDER_AREAS[tag].apply(state, seat, step, order, events)
            return Applied(standing.run(state, events), events)
        raise NotPending(f"not an F&E order: {type(order).__name__}")

    def _apply_done(self, state: FeState, seat: Seat, order: Done, events: list[Event]) -> FeState:
        if not order.through:
            return flow.complete(state, seat, order.note, order.adjustments, events)
        state, blocker = self._walk_through(state, seat, order, events)
        if blocker:
            raise NotPending(f"cannot complete through {order.through}: {blocker}")
        return state

    def _walk_through(
        self, state: FeState, seat: Seat, order: Done, events: list[Event]
    ) -> tuple[FeState, str]:
        """Complete steps up to ``order.through`` as ``seat``; say what blocks, if anything.

        Steps another seat's standing order covers are completed for it on the way. The one
        simulation serves both validation (events thrown away) and application.
        """
        span = flow.sequence().span(order.through, flow.part(state))
        if span is None:
            return state, f"no such step {order.through!r}"
        last = span[1]
        part = (state.turn, state.player_turn, state.orion)
        while True:
            state = standing.run(state, events)
            if state.over or (state.turn, state.player_turn, state.orion) != part:
                return state, ""
            if state.step > last:
                return state, ""
            step = flow.current(state)
            assert step is not None
            if step.kind == StepKind.SECRET:
                return state, f"step {describe(step)} is secret"
            owing = flow.owing(state)
            if owing[0] != seat:
                if seat in flow.answer_order(state, step):
                    return state, f"step {describe(step)} needs {owing[0]} too"
                return state, f"step {describe(step)} is {owing[0]}'s"
            problems = flow.finish_problems(state, seat, step)
            if problems:
                return state, f"step {describe(step)}: {problems[0].message}"
            final = state.step == last
            note = order.note if final else ""
            adjustments = order.adjustments if final else []
            state = flow.complete(state, seat, note, adjustments, events, through=order.through)
            if final:
                return standing.run(state, events), ""

    def _apply_back(
        self, state: FeState, seat: Seat, step: Step, order: Back, events: list[Event]
    ) -> FeState:
        span = flow.sequence().span(order.step, flow.part(state))
        if span is None:
            raise NotPending(f"back {order.step!r}: no such step")
        target = flow.part(state)[span[0]]
        events.append(
            Event(
                "back",
                f"{seat} went back from {step.id} to {describe(target)} "
                f"for the next combat round or battle hex",
                seat,
                target.id,
                {"from": step.id, "to": target.id, "rule": COMBAT_RULE},
            )
        )
        return msgspec.structs.replace(state, step=span[0], answered=(), backs=state.backs + 1)

    def apply_roll(
        self, state: FeState, request: RollRequest, dice: tuple[int, ...]
    ) -> Applied[FeState]:
        """Checklist play keeps no dice in the state: the core's roll event records them."""
        return Applied(state)

    # --- secret steps ---------------------------------------------------------------------

    def validate_secret(
        self, state: FeState, decision: Decision, seat: Seat, choice: Any
    ) -> list[Violation]:
        open_now = self.pending(state)
        if not open_now or open_now[0].key != decision.key or not _is_secret(open_now[0]):
            return [Violation(f"secret step {decision.step} is not open now", SEQUENCE_RULE)]
        if seat not in open_now[0].seats:
            return [Violation(f"{seat} has no part in secret step {decision.step}")]
        if not isinstance(choice, str):
            return [Violation(f"a secret choice for step {decision.step} is text")]
        if not choice.strip():
            return [Violation(f"the secret choice for step {decision.step} is empty")]
        problem = text_problem(choice, f"a secret choice for step {decision.step}", model.MAX_TEXT)
        return [Violation(problem)] if problem else []

    def apply_secret(
        self, state: FeState, decision: Decision, choices: Mapping[Seat, Any]
    ) -> Applied[FeState]:
        open_now = self.pending(state)
        if not open_now or open_now[0].key != decision.key or not _is_secret(open_now[0]):
            raise NotPending(f"secret step {decision.step} is not open now")
        step = flow.current(state)
        assert step is not None
        revealed = {seat: str(choices[seat]) for seat in open_now[0].seats}
        shown = "; ".join(f"{seat}: {choice}" for seat, choice in revealed.items())
        events = [
            Event(
                "secret",
                f"{describe(step)} revealed: {shown}",
                step=step.id,
                data={"choices": revealed, "key": decision.key},
            )
        ]
        return Applied(standing.run(flow.advance(state, events), events), events)

    def own_run(self, state: FeState, seat: Seat, stop: str = "") -> list[str]:
        """The steps ``seat`` can complete now, one plain ``done`` each, in a row.

        The run ends at the first step another seat owes, a secret step, a step that needs
        more than ``done`` (units still to place), or step ``stop``.
        Clients use it to offer "complete all my steps up to here" in one packet.
        """
        steps: list[str] = []
        while not state.over:
            decision = self.pending(state)[0]
            if decision.kind != DecisionKind.ORDERS or decision.seats[0] != seat:
                break
            if decision.step == stop or self.validate(state, seat, Done()):
                break
            steps.append(decision.step)
            state = self.apply(state, seat, Done()).state
        return steps

    # --- showing the game -----------------------------------------------------------------

    def summary(self, state: FeState) -> dict[str, Any]:
        year, season = turn_date(state.turn)
        step = flow.current(state)
        seq = flow.sequence()
        phase = flow.phase_of(step) if step else None
        return {
            "scenario": state.scenario,
            "turn": {"number": state.turn, "year": year, "season": season},
            "phasing": None if state.over or state.orion else flow.phasing(state),
            "orion": state.orion,
            "step": step.id if step else None,
            "step_title": step.title if step else "",
            "phase": phase.id if phase else None,
            "phase_title": phase.title if phase else "",
            "heading": [h.id for h in seq.heading_chain(step)] if step and not state.setup else [],
            "setup": state.setup,
            "waiting_for": list(flow.owing(state)),
            "options": {key: value for key, value in state.options},
            "standing": {seat: list(steps) for seat, steps in state.standing},
            "over": state.over,
        }

    def checklist(self, state: FeState) -> list[ChecklistItem]:
        seq = flow.sequence()
        parts: list[tuple[bool | None, tuple[Step, ...]]] = []
        if state.setup:
            parts.append((None, flow.part(state)))
        parts.append((False, seq.player_turn))
        if flow.orion_on(state):
            parts.append((True, seq.orion))
        items: list[ChecklistItem] = []
        for orion, steps in parts:
            for index, step in enumerate(steps):
                status = _status(state, orion, index)
                if step.obsolete:
                    status = "skipped"
                items.append(
                    ChecklistItem(
                        step.id, step.title, step.phase, step.actor, step.kind, step.rules, status
                    )
                )
        return items

    def views(self, state: FeState) -> dict[str, Any]:
        """Empires, units and hexes as plain data for clients (`engine.fe.views`)."""
        from engine.fe.views import views

        return views(state)


def _tag(order: Any) -> str:
    config = getattr(type(order), "__struct_config__", None)
    tag = getattr(config, "tag", None)
    return tag if isinstance(tag, str) else ""


def _status(state: FeState, orion: bool | None, index: int) -> str:
    """A checklist row's status; ``orion`` None marks the set-up part."""
    if state.setup:
        if orion is not None:
            return "todo"
        return "done" if index < state.step else "current" if index == state.step else "todo"
    if orion is None:
        return "done"
    if state.over or (state.orion and not orion):
        return "done"
    if orion != state.orion:
        return "todo"
    if index < state.step:
        return "done"
    return "current" if index == state.step else "todo"


def _is_secret(decision: Decision) -> bool:
    return decision.kind == DecisionKind.SECRET
