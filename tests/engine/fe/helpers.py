"""Drivers shared by the F&E ruleset tests: start a game and play it forward."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from engine.core.ruleset import Applied, Decision, DecisionKind, Event, OptionValue
from engine.fe import RULESET, flow
from engine.fe.model import Done, FeState, Order

SEATS = ("coalition", "alliance")


def start(options: Mapping[str, OptionValue] | None = None) -> FeState:
    return RULESET.initial_state("the-wind", list(SEATS), dict(options or {}))


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


def step_once(state: FeState, events: list[Event] | None = None) -> FeState:
    """Answer whatever is owed with the plainest answer (``done``, or a secret choice)."""
    decision = owed(state)
    if decision.kind == DecisionKind.SECRET:
        choices = {seat: f"{seat} choice for {decision.key}" for seat in decision.seats}
        for seat, choice in choices.items():
            assert not RULESET.validate_secret(state, decision, seat, choice)
        applied = RULESET.apply_secret(state, decision, choices)
        if events is not None:
            events.extend(applied.events)
        return applied.state
    return play(state, decision.seats[0], Done(), events)


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
