"""Who owes the current step, remembered per state object (`engine.core.turns._owed_now`,
shared by `Turns.pending` and `Turns.turn_problems`), is what reading the state afresh gives:
along a game from its set-up, and for states changed into new objects (a seat's part
answered, the step moved on, the game over), each asked after the one it came from."""

from __future__ import annotations

import msgspec

from engine.core import turns
from engine.fe.flow import TURNS
from engine.fe.model import FeState
from tests.engine.fe.helpers import first_states


def _fresh(state: FeState) -> tuple[object, tuple[str, ...]]:
    step = TURNS.current(state)
    return step, TURNS.owing(state, step) if step is not None else ()


def _variants(state: FeState) -> list[FeState]:
    out = [msgspec.structs.replace(state, answered=(*state.answered, seat)) for seat in state.seats]
    if state.step + 1 < len(TURNS.host.steps(state)):
        out.append(msgspec.structs.replace(state, step=state.step + 1, answered=()))
    out.append(msgspec.structs.replace(state, over=True))
    out.append(msgspec.structs.replace(state, last_actor=state.seats[-1]))
    return out


def test_who_owes_each_state_is_read_afresh_for_every_new_object() -> None:
    states = first_states(160)
    assert len({_fresh(s)[1] for s in states}) > 1  # the seats that owe do change
    for state in states:
        for each in (state, *_variants(state), state):
            assert turns._owed_now(TURNS, each) == _fresh(each)
            step, owing = _fresh(each)
            if step is not None and not owing:
                continue  # every seat answered: a state the driver never leaves standing
            pending = TURNS.pending(each)
            assert [d.seats for d in pending] == ([owing] if step is not None else [])
            for seat in each.seats:
                found_step, problems = TURNS.turn_problems(each, seat)
                assert found_step == step
                assert (not problems) == (step is not None and seat in owing)
