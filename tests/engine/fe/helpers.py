"""Drivers shared by the F&E ruleset tests: start a game and play it forward."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import msgspec

from engine.core.ruleset import Applied, Decision, DecisionKind, Event, OptionValue
from engine.core.turn_orders import Done
from engine.fe import FE as RULESET
from engine.fe import flow
from engine.fe.model import FeState
from engine.fe.orders import Order, RetreatOrder
from engine.fe.steps import combat_damage
from engine.fe.steps.setup_stage import default_placements
from tests.engine.fe_play import battle_choice, scripted_retreat

SEATS = ("coalition", "alliance")


def start(
    options: Mapping[str, OptionValue] | None = None, *, scenario: str = "the-wind"
) -> FeState:
    """A new game after its set-up stage (every empire placed by `default_placements`)."""
    return set_up(fresh(options, scenario=scenario))


BATTLE_HEX = 701
ATTACKERS = ("LYR-0076", "LYR-0077", "LYR-0078")
"""Three ships of the Lyran Red Claw Fleet (0303), stood on the Kzinti Count's Fleet and its
base in 0701 by `battle_start`: the coalition's combat phase then has a battle to fight."""


def battle_start(options: Mapping[str, OptionValue] | None = None) -> FeState:
    """`start` with `ATTACKERS` in `BATTLE_HEX`: without a battle hex the combat phase passes
    by itself (302.9), so tests of the combat steps need one."""
    state = start(options)
    board = state.board
    moved = [msgspec.structs.replace(board.unit(i), hex=BATTLE_HEX) for i in ATTACKERS]
    return state.with_board(board.with_units(moved))


def fresh(
    options: Mapping[str, OptionValue] | None = None, *, scenario: str = "the-wind"
) -> FeState:
    """A new game at its first set-up step."""
    return RULESET.initial_state(scenario, list(SEATS), dict(options or {}))


def set_up(state: FeState, events: list[Event] | None = None) -> FeState:
    """Play the whole set-up stage with the default placements."""
    while state.setup:
        state = step_once(state, events)
    return state


def owed(state: FeState) -> Decision:
    decisions = RULESET.pending(state)
    assert decisions, "nothing is pending"
    return decisions[0]


def play(state: FeState, seat: str, order: Order, events: list[Event] | None = None) -> FeState:
    """Validate then apply, failing loudly on a violation."""
    violations = RULESET.validate(state, seat, order)
    assert not violations, violations
    applied: Applied[FeState] = RULESET.apply(state, seat, order)
    if events is not None:
        events.extend(applied.events)
    return applied.state


SCRIPT_DIE = 1
"""The die `step_once` rolls for a battle round's dice (the core would read them from the
reveal packets): 1, the lowest variable BIR (-2) and the smallest damage, so scripted
battles wear forces down slowly."""


def first_states(count: int) -> list[FeState]:
    """The first ``count`` states of a game played with the plainest answers from set-up."""
    state = fresh()
    states = [state]
    while len(states) < count:
        state = step_once(state)
        states.append(state)
    return states


def step_once(state: FeState, events: list[Event] | None = None) -> FeState:
    """Answer whatever is owed with the plainest answer (``done``, or a secret choice)."""
    decision = owed(state)
    if decision.kind == DecisionKind.SECRET:
        choices: dict[str, object] = {}
        for seat in decision.seats:
            typed = battle_choice(state, seat, decision.step)
            choices[seat] = f"{seat} choice for {decision.key}" if typed is None else typed
        for seat, choice in choices.items():
            assert not RULESET.validate_secret(state, decision, seat, choice)
        applied = RULESET.apply_secret(state, decision, choices)
        if events is not None:
            events.extend(applied.events)
        state = applied.state
        for request in applied.rolls:  # the core would read them from the reveal packets
            rolled = RULESET.apply_roll(state, request, (SCRIPT_DIE,) * request.count)
            if events is not None:
                events.extend(rolled.events)
            state = rolled.state
        return state
    seat = decision.seats[0]
    if state.setup:
        for placement in default_placements(state):
            state = play(state, seat, placement, events)
    if scripted_retreat(state, seat, decision.step):
        state = play(state, seat, RetreatOrder(), events)  # battles are short (302.71)
    if decision.step in combat_damage.ALLOCATION_STEPS and combat_damage.finish(state, seat):
        order = combat_damage.suggested(state, seat)
        assert order is not None
        state = play(state, seat, order, events)
    return play(state, seat, Done(), events)


def run_until(
    state: FeState,
    stop: Callable[[FeState], bool],
    events: list[Event] | None = None,
    limit: int = 100_000,
) -> FeState:
    for _ in range(limit):
        if stop(state):
            return state
        state = step_once(state, events)
    raise AssertionError("run_until did not stop")


def at_step(step_id: str) -> Callable[[FeState], bool]:
    def check(state: FeState) -> bool:
        return not state.over and RULESET.summary(state)["step"] == step_id

    return check


def farthest_through(state: FeState, seat: str) -> str:
    """The last step id ``seat`` may complete alone with one ``done through`` ("" if none)."""
    summary_step = RULESET.summary(state)["step"]
    best = ""
    ids = [s.id for s in flow.part(state)]
    for step_id in ids[ids.index(summary_step) :]:
        if RULESET.validate(state, seat, Done(through=step_id)):
            break
        best = step_id
    return best


def setup_items(state: FeState) -> list[dict[str, Any]]:
    """The JSON orders that set up the empire placing now and end its set-up step."""
    return [RULESET.order_to_json(o) for o in default_placements(state)] + [{"type": "done"}]
