"""Step 1A3B as each player turn's Phase 1 begins: count turns toward long-term capture.

The sequence lists 1A3B ("note the number of turns toward long-term capture", 438.1) among
the manual checks of Phase 1A; the engine keeps the count itself, in ``FeState.held``, as
the phasing player's Phase 1 begins (before 1C3 collects income), so the income of the same
phase already sees a province that has just been held long enough
(`engine.fe.provinces`). The step stays in the checklist for the players to confirm.
"""

from __future__ import annotations

import msgspec

from engine.core.ruleset import Event
from engine.fe import provinces
from engine.fe.model import FeState
from engine.fe.steps import base
from engine.fe.steps.base import Area

ECONOMICS_PHASE = "1"


class _Captures(Area):
    name = "captures"

    def on_phase(self, state: FeState, phase: str, events: list[Event]) -> FeState:
        if phase != ECONOMICS_PHASE:
            return state
        captors = base.phasing_empires(state)
        held = provinces.count_held(base.galaxy(), state.board, state.held, captors)
        if held == state.held:
            return state
        needed = provinces.long_term_turns(dict(state.options))
        for captor in captors:
            mine = [(p, n) for p, c, n in held if c == captor]
            if not mine:
                continue
            shown = ", ".join(f"{p} {n}/{needed}" for p, n in mine)
            events.append(
                Event(
                    "held",
                    f"{captor} holds captured provinces, turns toward long-term capture: "
                    f"{shown} ({provinces.LONG_TERM_RULE})",
                    base.seat_of(state, captor),
                    data={
                        "empire": captor,
                        "held": {p: n for p, n in mine},
                        "needed": needed,
                        "rule": provinces.LONG_TERM_RULE,
                    },
                )
            )
        return msgspec.structs.replace(state, held=held)


AREA = _Captures()
