"""Pre-war construction arrives in the owning empire's production step (105.0 2B3, 431.0).

The rules area ``arrivals`` plays no step of its own: as the phasing seat's Phase 2
(Shipyard) begins, it delivers the pre-war ships its empires are owed this turn
(`engine.fe.reinforcements.deliver`: which ships, where, and why an empire at war receives
none). Delivering at the start of the phase puts them on the board before the player writes
the 2B3 orders, where the sequence of play has new units received; repairs (2A) cannot
concern a new, uncrippled ship, so nothing in between depends on the moment.

Arriving off-map fleets need no delivery: they are on the board from the start, in the
off-map area, and come onto the map by strategic movement (`engine.fe.steps.strategic`).
"""

from __future__ import annotations

from engine.core.ruleset import Event
from engine.fe import reinforcements
from engine.fe.model import FeState
from engine.fe.steps import base
from engine.fe.steps.base import Area

SHIPYARD_PHASE = "2"
RECEIVE_STEP = "2B3"


class _Arrivals(Area):
    name = "arrivals"

    def on_phase(self, state: FeState, phase: str, events: list[Event]) -> FeState:
        if phase != SHIPYARD_PHASE or state.orion:
            return state
        empires = base.phasing_empires(state)
        seats = {e: base.seat_of(state, e) for e in empires}
        board = reinforcements.deliver(
            base.scenario(state),
            base.galaxy(),
            state.board,
            empires,
            state.turn,
            seats,
            RECEIVE_STEP,
            events,
        )
        return state if board is state.board else state.with_board(board)


AREA = _Arrivals()
