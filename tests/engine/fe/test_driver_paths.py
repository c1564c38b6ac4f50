"""The sequence driver's short paths for the orders every packet carries (issue 16): each
gives what the longer path it stands for gives, and refuses what that path refused.

- `Turns.complete` ends a step without a host hook (a manual or automatic step) with one
  state replacement and settles from the step just completed; the longer path replaced the
  state twice and looked the step up again (`Turns.advance`).
- `Turns.owing` finds the first seat still to answer with a loop.
- A ``done`` through a later step is walked once when checked and kept for its application
  (`engine.core.through.walked`).
- `FeRuleset.apply` of a ``done`` leaves finding the step to the driver, and refuses any
  order once the game is over (105.0), as `flow.current` returning None did.
"""

from __future__ import annotations

import msgspec
import pytest

from engine.core import caches, through
from engine.core.errors import NotPending
from engine.core.ruleset import Event, StepKind
from engine.core.turn_orders import Done, Note
from engine.fe import RULESET, flow
from engine.fe.flow import TURNS
from engine.fe.model import FeState
from engine.fe.orders import MoveOrder
from tests.engine.fe.helpers import farthest_through, first_states, owed, start


def _long_complete(state: FeState, seat: str, events: list[Event]) -> FeState:
    """What `Turns.complete` did for a step without a host hook before the short path: the
    pen recorded, then `advance` (a second replacement and a second look-up of the step)."""
    state = msgspec.structs.replace(state, last_actor=seat)
    return TURNS.advance(state, events)


def test_completing_a_step_without_a_hook_matches_the_longer_path() -> None:
    """Along the set-up and the first player turns, every step a seat ends that is not a
    decision (the host's ``on_done`` does not run) gives the same state and the same events
    by the short path as by the longer one."""
    compared = 0
    for state in first_states(260):
        decision = owed(state)
        step = flow.current(state)
        if step is None or step.kind == StepKind.DECISION or decision.kind.value != "orders":
            continue
        seat = decision.seats[0]
        if len(TURNS.answer_order(state, step)) - len(state.answered) != 1:
            continue  # another seat still answers: no step ends
        short_events: list[Event] = []
        long_events: list[Event] = []
        short = TURNS.complete(state, seat, "", [], short_events)
        done_text = f"{seat} completed {step.id} {step.title}"
        assert short_events[0].text == done_text
        assert short == _long_complete(state, seat, long_events)
        assert short_events[1:] == long_events
        compared += 1
    assert compared >= 40, compared


def test_owing_is_the_first_seat_still_to_answer() -> None:
    """`Turns.owing` (a loop) names the first seat of the answer order that has not
    answered, or nobody; a secret step names every seat its policy does not answer for."""
    seen_both = False
    for state in first_states(260):
        step = flow.current(state)
        assert step is not None
        order = TURNS.answer_order(state, step)
        if step.kind == StepKind.SECRET:
            continue
        expected = tuple(s for s in order if s not in state.answered)[:1]
        assert TURNS.owing(state, step) == expected
        # The same state with every seat answered owes nobody; with none, the first.
        assert TURNS.owing(msgspec.structs.replace(state, answered=order), step) == ()
        assert TURNS.owing(msgspec.structs.replace(state, answered=()), step) == order[:1]
        seen_both = seen_both or len(order) > 1
    assert seen_both, "a step both seats answer was among them"


@pytest.mark.parametrize(
    "order", [Done(), Done(through="end"), Note("after the end"), MoveOrder(["LYR-0076"], [])]
)
def test_no_order_is_applied_once_the_game_is_over(order: object) -> None:
    """105.0: once the last turn is over nothing more is played: `validate` says so, and
    `apply` refuses the order whole (a caller that skipped `validate` changes nothing)."""
    state = msgspec.structs.replace(start(), over=True)
    (violation,) = RULESET.validate(state, "coalition", order)
    assert "the game is over" in violation.message and violation.rule == "105.0"
    with pytest.raises(NotPending, match="the game is over"):
        RULESET.apply(state, "coalition", order)


def test_done_through_is_walked_once_and_applies_as_a_fresh_walk() -> None:
    """A ``done`` through a later step is walked when checked and kept
    (`engine.core.through.walked`): applying it right after gives the state and events of a
    walk made afresh (from equal but distinct objects), through each step the seat may reach
    alone from the start of its player turn; one step further, the check refuses with what
    blocks and applying anyway refuses the same (105.0)."""
    state = start()
    seat = owed(state).seats[0]
    reachable = farthest_through(state, seat)
    ids = [s.id for s in flow.part(state)]
    targets = ids[ids.index(owed(state).step) + 1 : ids.index(reachable) + 1]
    assert len(targets) >= 3, targets
    for target in targets:
        order = Done(through=target, note=f"through {target}")
        assert not RULESET.validate(state, seat, order)
        assert caches.peek(through.walked, TURNS, state, order, seat) is not None, target
        kept = RULESET.apply(state, seat, order)
        # Equal but distinct objects: the kept walk is not theirs, so this one is walked anew.
        again, order_again = msgspec.structs.replace(state), msgspec.structs.replace(order)
        assert again is not state and again == state and order_again is not order
        assert caches.peek(through.walked, TURNS, again, order_again, seat) is None
        fresh = RULESET.apply(again, seat, order_again)
        assert kept.state == fresh.state and kept.events == fresh.events, target
        assert [e for e in kept.events if e.kind == "step-done"], target
    beyond = ids[ids.index(reachable) + 1]
    order = Done(through=beyond)
    (violation,) = RULESET.validate(state, seat, order)
    assert violation.message.startswith(f"cannot complete through {beyond}: ")
    assert violation.rule == "105.0"
    with pytest.raises(NotPending, match=f"cannot complete through {beyond}: "):
        RULESET.apply(state, seat, order)
