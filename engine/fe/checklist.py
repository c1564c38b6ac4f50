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

Version 2 added the board; a game of version 1 (checklist only) is refused by name. Version 3
plays the campaign rules (repeating schedules, reinforcements, economies, planets, provinces,
supply effects): a game begun under 2.x would replay differently, so it is refused by name.
Version 5.1 reads the dice of a battle's later rounds fought by policies from the values that
rolled the round before (`engine.core.rolls.follows_on`): such a battle costs one packet, not
one per round. A game begun under 5.0 keeps one packet per round, so it replays as recorded.
Version 5.2 keeps the game's version in its state (`FeState.version`, `FeRuleset.at_version`),
so that a rule can change for new games only; its first such change: ``back`` goes on from
the step it names as the sequence would (`engine.fe.flow.BACK_SETTLES_FROM`).

The combat steps' modules and the battle report are imported by the methods that use them:
a client that imports the ruleset to show a game does not pay for them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from engine.core.errors import NotPending, PacketError, VersionError
from engine.core.face import ChecklistItem
from engine.core.ruleset import (
    Applied,
    Decision,
    DecisionKind,
    Event,
    OptionValue,
    RollRequest,
    ScenarioInfo,
    Seat,
    StepKind,
    Violation,
    version_numbers,
)
from engine.core.text import said, text_problem
from engine.core.turn_orders import (
    MAX_TEXT,
    Back,
    Done,
    Note,
    Roll,
    Standing,
    dice_problem,
    parse_dice,
)
from engine.core.turns import describe, standing_for
from engine.fe import flow
from engine.fe.face import FACE
from engine.fe.flow import COMBAT_RULE, TURNS
from engine.fe.model import FeState
from engine.fe.offer import all_options, info
from engine.fe.orders import (
    RULE_ORDERS,
    Adjust,
    BuildOrder,
    PolicyOrder,
    ReactionOrder,
    decode_orders,
    encode_orders,
    order_to_json,
    parse_orders,
)
from engine.fe.scenario import find_scenario, load_scenarios, turn_date
from engine.fe.sequence import Step
from engine.fe.steps import order_area
from engine.fe.steps.base import OrderRun

SEQUENCE_RULE = "105.0"
_SECRET = StepKind.SECRET
_DECISION = StepKind.DECISION
"""Read off the enum once (a member read off its class goes through the enum's metaclass)."""


VERSIONED_FROM = "5.2"
"""The first version whose games keep their version in the state (`FeState.version`)."""


class FeRuleset:
    """Federation & Empire (implements ``engine.core.ruleset.Ruleset``)."""

    id = "fe"
    version = "5.11"
    follow_on_dice_from = "5.1"
    reveal_dice_in_order_from = "5.6"
    """From 5.6 a round whose BIR one side's policy chose, and the other side picked, rolls
    its variable BIR die before the combat dice that need its total; before, the core rolled
    them the other way round and the round scored nothing (`combat_round.dice_wait_text`)."""
    state_type = FeState

    # --- scenarios and the start ----------------------------------------------------------

    def scenarios(self) -> Sequence[ScenarioInfo]:
        return tuple(info(s) for s in load_scenarios())

    def initial_state(
        self, scenario_id: str, seats: Sequence[Seat], options: Mapping[str, OptionValue]
    ) -> FeState:
        from engine.fe.steps.setup_stage import starting_board

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

    def at_version(self, state: FeState, version: str) -> FeState:
        """The state of a game played at ``version``, as it begins (the core asks once):
        from 5.2 on, the state keeps the version, for the rules that version changed to ask;
        a game of 5.1 or before is left as it was, so it replays to its recorded hashes."""
        if version_numbers(version) < version_numbers(VERSIONED_FROM):
            return state
        return msgspec.structs.replace(state, version=version)

    # --- orders on the wire and in files --------------------------------------------------

    def decode_orders(self, data: bytes) -> list[Any]:
        return list(decode_orders(data))

    def encode_orders(self, orders: Sequence[Any]) -> bytes:
        return encode_orders(orders)

    def parse_orders(self, items: Sequence[Mapping[str, Any]]) -> list[Any]:
        return list(parse_orders(items))

    def order_to_json(self, order: Any) -> dict[str, Any]:
        return order_to_json(order)

    # --- whose move -----------------------------------------------------------------------

    def pending(self, state: FeState) -> list[Decision]:
        return TURNS.pending(state)

    def validate(self, state: FeState, seat: Seat, order: Any) -> list[Violation]:
        step, problems = TURNS.turn_problems(state, seat)
        if problems or step is None:
            return problems
        if isinstance(order, Done):
            return TURNS.check_done(state, seat, step, order)
        if isinstance(order, Note):
            return []
        if isinstance(order, Roll):
            problem = dice_problem(order.dice)
            if problem:
                return [Violation(problem)]
            if not order.purpose.strip():
                return [Violation("a roll needs a purpose, e.g. 'variable battle intensity'")]
            return []
        if isinstance(order, Back):
            return flow.check_back(state, step, order)
        if isinstance(order, Standing):
            return TURNS.check_standing(order)
        if isinstance(order, PolicyOrder):
            from engine.fe.steps import combat_policy

            return combat_policy.check(state, order)
        if isinstance(order, ReactionOrder):
            from engine.fe.steps import reaction_policy

            return reaction_policy.check(state, seat, order)
        tag = _tag(order)
        if tag in RULE_ORDERS:
            return self._check_rule_order(state, seat, step, tag, order)
        return [Violation(f"not an F&E order: {type(order).__name__}")]

    def _check_rule_order(
        self, state: FeState, seat: Seat, step: Step, tag: str, order: Any
    ) -> list[Violation]:
        if step.kind == _SECRET:
            return [Violation(f"step {step.id} is secret: send a secret choice", SEQUENCE_RULE)]
        if tag != "adjust" and tag not in step.orders:
            where = [s.id for s in flow.part(state) if tag in s.orders] or [
                s.id for s in flow.sequence().main if tag in s.orders
            ]
            takes = f"; it takes {', '.join(step.orders)} or done" if step.orders else ""
            return [
                Violation(
                    f"{'an' if tag[0] in 'aeiou' else 'a'} {tag} order belongs to step "
                    f"{' or '.join(where) or '(none)'}, "
                    f"not to the current step {describe(step)}{takes}",
                    SEQUENCE_RULE,
                )
            ]
        return order_area(step, tag).check(state, seat, step, order)

    # --- applying -------------------------------------------------------------------------

    def apply(self, state: FeState, seat: Seat, order: Any) -> Applied[FeState]:
        return _with_reports(state, _with_queued(self._apply(state, seat, order)))

    def apply_run(
        self, state: FeState, seat: Seat, orders: Sequence[Any], start: int = 0
    ) -> tuple[Applied[FeState], int] | None:
        """A packet's leading build orders at 2B3 (`engine.fe.steps.shipyard.
        apply_build_run`), or its leading ``adjust place`` orders at any step
        (`engine.fe.steps.adjust.apply_place_run`), at once: a turn's builds come together,
        and one by one each made a board. Only where applying them one by one would do
        nothing between two orders but the orders themselves: the shipyard's own step for
        builds, and no standing order that could complete the step after one of them."""
        if state.over or start >= len(orders):
            return None
        first = orders[start]
        placing = isinstance(first, Adjust) and first.change == "place"
        if not placing and not isinstance(first, BuildOrder):
            return None
        step = flow.current(state)
        if step is None or step.kind == _SECRET:
            return None
        if placing:
            from engine.fe.steps import adjust  # (here: the rules areas load when first used)

            if order_area(step, "adjust") is not adjust.AREA:
                return None
            if any(step.id in ids for _, ids in state.standing):  # (whoever else owes it)
                return None
            run = OrderRun(seat, step, orders, start, self.validate)
            after, events, count = adjust.apply_place_run(state, run)
            return (Applied(after, events), count) if count else None
        from engine.fe.steps import shipyard

        if "build" not in step.orders or order_area(step, "build") is not shipyard.AREA:
            return None
        if step.id in standing_for(state, seat):
            return None
        run = OrderRun(seat, step, orders, start, self.validate)
        after, events, count = shipyard.apply_build_run(state, run)
        return (Applied(after, events), count) if count else None

    def _apply(self, state: FeState, seat: Seat, order: Any) -> Applied[FeState]:
        if state.over:  # what `flow.current` tells by None
            raise NotPending("the game is over")
        events: list[Event] = []
        if isinstance(order, Done):  # most orders: the driver finds the step itself
            return Applied(TURNS.apply_done(state, seat, order, events), events)
        if isinstance(order, Standing):
            return Applied(TURNS.apply_standing(state, seat, order, events), events)
        if isinstance(order, PolicyOrder):
            from engine.fe.steps import combat_policy

            state = combat_policy.apply(state, seat, order, events)
            return Applied(TURNS.resume(state, events), events)
        if isinstance(order, ReactionOrder):
            from engine.fe.steps import reaction_policy

            state = reaction_policy.apply(state, seat, order, events)
            return Applied(TURNS.resume(state, events), events)
        step = flow.current(state)
        if step is None:
            raise NotPending("the game is over")
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
            parsed = parse_dice(order.dice)
            if parsed is None:
                raise NotPending(dice_problem(order.dice))
            count, sides = parsed
            return Applied(state, [], [RollRequest(count, sides, order.purpose, step.id)])
        if isinstance(order, Back):
            why = "for the next combat round or battle hex"
            settles = flow.back_settles(state)
            state = TURNS.apply_back(
                state, seat, step, order, events, why=why, rule=COMBAT_RULE, settles=settles
            )
            return Applied(state, events)
        tag = _tag(order)
        if tag in RULE_ORDERS:
            area = order_area(step, tag)
            after = area.apply(state, seat, step, order, events)
            rolls = area.rolls(after, seat, step, order)
            if after.step != state.step:  # a batch opened the reaction window (3B3): the
                after = TURNS.settle(after, step, events)  # seat's policy may answer it
            return Applied(TURNS.run_standing(after, events), events, rolls)
        raise NotPending(f"not an F&E order: {type(order).__name__}")

    def after_orders(self, state: FeState, seat: Seat) -> Applied[FeState] | None:
        """`engine.core.ruleset.AfterOrders`: a decision step the seat's packet left with
        nothing to decide (`flow.settled`; from 5.5 its one answer given, `engine.fe.steps.
        base.ORDER_ENDS_STEP_FROM`) ends for it as its ``done`` would, where that ``done``
        would be taken, and the standing orders play on. None: the step stays the seat's."""
        step = None if state.over else flow.current(state)
        if step is None or step.kind != _DECISION or not flow.settled(state, seat, step):
            return None
        if TURNS.finish_problems(state, seat, step):  # (what its ``done`` would wait for)
            return None
        events: list[Event] = []
        after = TURNS.run_standing(TURNS.complete(state, seat, "", (), events), events)
        return _with_reports(state, _with_queued(Applied(after, events)))

    def apply_roll(
        self, state: FeState, request: RollRequest, dice: tuple[int, ...]
    ) -> Applied[FeState]:
        """A player's roll keeps no dice in the state (the core's roll event records them);
        the engine's own rolls land on the battle's record (`engine.fe.steps.combat`)."""
        from engine.fe.steps import (
            combat_capture,
            combat_round,
            combat_small_scale,
            pursuit_die,
            pursuit_round,
        )

        events: list[Event] = []
        after = combat_small_scale.apply_die(state, request, dice, events)  # two dice: 310.0
        after = combat_round.apply_die(after, request, dice, events)
        after = pursuit_die.apply_die(after, request, dice, events)
        after = combat_capture.apply_die(after, request, dice, events)
        after = pursuit_round.apply_die(after, request, dice, events)
        # The sequence may have stopped for these dice (a round's damage before allocation):
        # with them in, it plays on as far as the seats' policies and standing orders answer.
        after = TURNS.resume(after, events)
        return _with_reports(state, _with_queued(Applied(after, events)))

    # --- secret steps ---------------------------------------------------------------------

    def validate_secret(
        self, state: FeState, decision: Decision, seat: Seat, choice: Any
    ) -> list[Violation]:
        from engine.fe.steps import force_together, pursuit_round

        open_now = self.pending(state)
        if not open_now or open_now[0].key != decision.key or not _is_secret(open_now[0]):
            return [Violation(f"secret step {decision.step} is not open now", SEQUENCE_RULE)]
        if seat not in open_now[0].seats:
            return [Violation(f"{seat} has no part in secret step {decision.step}")]
        typed = force_together.secret_problems(state, decision.step, seat, choice)
        if decision.step == pursuit_round.SETUP_STEP:
            typed = pursuit_round.setup_problems(state, seat, choice)
        if typed is not None:
            return typed
        if not isinstance(choice, str):
            return [Violation(f"a secret choice for step {decision.step} is text")]
        if not choice.strip():
            return [Violation(f"the secret choice for step {decision.step} is empty")]
        problem = text_problem(choice, f"a secret choice for step {decision.step}", MAX_TEXT)
        return [Violation(problem)] if problem else []

    def apply_secret(
        self, state: FeState, decision: Decision, choices: Mapping[Seat, Any]
    ) -> Applied[FeState]:
        from engine.fe.steps import (
            combat_policy,
            combat_pursuit,
            combat_round,
            force_together,
            pursuit_round,
        )

        open_now = self.pending(state)
        if not open_now or open_now[0].key != decision.key or not _is_secret(open_now[0]):
            raise NotPending(f"secret step {decision.step} is not open now")
        step = flow.current(state)
        assert step is not None
        revealed = {seat: str(choices[seat]) for seat in open_now[0].seats}
        shown = "; ".join(f"{seat}: {said(choices[seat])}" for seat in revealed)
        events = [
            Event(
                "secret",
                f"{describe(step)} revealed: {shown}",
                step=step.id,
                data={"choices": revealed, "key": decision.key},
            )
        ]
        typed = {seat: choices[seat] for seat in open_now[0].seats}
        unasked = tuple(s for s in state.seats if s not in typed)
        pursuit = step.id == pursuit_round.SETUP_STEP
        rules_of = combat_pursuit if pursuit else combat_policy
        by_policy = rules_of.choices(state, step, unasked)
        if by_policy:
            shown = "; ".join(f"{seat}: {said(value)}" for seat, value in by_policy.items())
            who = (
                "chosen by the signed policies"
                if pursuit
                else combat_policy.made_by(state, step, tuple(by_policy))
            )
            text = f"{describe(step)} {who}: {shown}"
            events.append(Event("secret", text, step=step.id, data={"policy": True}))
            typed = {**typed, **by_policy}
        if pursuit:
            chosen, rolls = pursuit_round.apply_choices(state, typed, events)
        else:
            chosen, rolls = force_together.apply_choices(state, step.id, typed, events)
        if rolls:  # the steps after wait for them (read at once by the core, or armed)
            chosen = combat_round.defer_dice(chosen)
        after = TURNS.run_standing(TURNS.advance(chosen, events), events)
        return _with_reports(state, _with_queued(Applied(after, events, rolls)))

    def own_run(self, state: FeState, seat: Seat, stop: str = "") -> list[str]:
        """The steps ``seat`` can complete now, one plain ``done`` each, in a row
        (`engine.core.turns.Turns.own_run`): up to the one whose ``done`` runs, through the
        signed policies, into dice (``queued_rolls``, armed by the core with that order)."""
        return TURNS.own_run(state, seat, stop, halt=flow.dice_armed)

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
        """The face's checklist (`engine.fe.face`), for callers not yet moved to the face."""
        return list(FACE.checklist(state))

    def views(self, state: FeState) -> dict[str, Any]:
        """Empires, units and hexes as plain data for clients (`engine.fe.views`)."""
        from engine.fe.views import views

        return views(state)


def _with_reports(before: FeState, applied: Applied[FeState]) -> Applied[FeState]:
    """``applied`` with the battle report's lines its change completes (a round's fire, its
    losses, a battle's end: `engine.fe.battle_report`), so the log, the review and the email
    of the packet read like a battle report."""
    if before.battles is applied.state.battles:
        return applied  # the same records: no line is completed (most orders)
    from engine.fe import battle_report

    reports = battle_report.new_reports(before, applied.state)
    if not reports:
        return applied
    return Applied(applied.state, battle_report.merged(applied.events, reports), applied.rolls)


def _tag(order: Any) -> str:
    config = getattr(type(order), "__struct_config__", None)
    tag = getattr(config, "tag", None)
    return tag if isinstance(tag, str) else ""


def _is_secret(decision: Decision) -> bool:
    return decision.kind == DecisionKind.SECRET


def _with_queued(applied: Applied[FeState]) -> Applied[FeState]:
    """Hand the core the dice the policies' choices asked for on the way
    (`engine.fe.steps.combat_policy`), to be armed in the packet being applied; with a
    pursuit die, the pursuit battle's dice when the policies make its set-up
    (`engine.fe.steps.combat_pursuit.early_rolls`)."""
    if not applied.rolls and not applied.state.queued_rolls:
        return applied  # nothing queued and no die asked for: the common case, as is
    from engine.fe.steps import combat_policy, combat_pursuit, combat_retreat

    state, queued = combat_policy.take_queued(applied.state)
    rolls = [*applied.rolls, *queued]
    if any(r.step == combat_retreat.PURSUIT_STEP for r in rolls):
        state, early = combat_pursuit.early_rolls(state)
        rolls += early
    if not queued and len(rolls) == len(applied.rolls):
        return applied
    return Applied(state, applied.events, rolls)
