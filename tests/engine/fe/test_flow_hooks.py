"""The flow calls, as a phase begins or ends, only the rules areas that have something to do
then (`flow._phase_hooks`): what it leaves out must change nothing."""

from __future__ import annotations

from engine.core.ruleset import Event
from engine.fe import flow
from engine.fe import steps as areas
from engine.fe.steps.base import Area
from tests.engine.fe.helpers import battle_start, start


def test_the_phase_hooks_left_out_return_the_state_as_given() -> None:
    """Every area the flow does not call as a phase begins (or ends) returns the very state
    it is given and says nothing, on boards with and without a battle, at every phase of the
    player turn; the areas it does call are those that override `Area`'s hooks, in the order
    of `areas.AREAS`, and there are some of each."""
    begins, ends = flow._phase_hooks()
    every = list(areas.AREAS.values())
    assert list(begins) == [a for a in every if type(a).on_phase is not Area.on_phase]
    assert list(ends) == [a for a in every if type(a).on_phase_end is not Area.on_phase_end]
    assert begins and ends and len(begins) < len(every) and len(ends) < len(every)
    phases = sorted({step.phase for step in flow.sequence().main})
    for state in (start(), battle_start()):
        for phase in phases:
            for each in every:
                events: list[Event] = []
                if each not in begins:
                    assert each.on_phase(state, phase, events) is state
                if each not in ends:
                    assert each.on_phase_end(state, phase, events) is state
                assert events == []
