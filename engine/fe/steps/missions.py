"""Step 2B7: supply missions of tugs, LTTs and convoys (509.1-D).

A transport on the supply mission is a supply point of its empire's grid (412.2: within 6
hexes of a grid point, an LTT within 3; `engine.fe.supply`). The phasing player sets or
ends missions in 2B7 with ``mission`` orders; a mission lasts until changed, so a tug keeps
supplying a front turn after turn without a new order. Other tug missions (509.1's other
letters) are still the players' bookkeeping in this step.

Checked here: the unit is the seat's own, on the map, and of a class that may take the
supply mission (a tug whose class lists mission D, an LTT, a convoy). A crippled transport
keeps its mission but supplies nothing until repaired (the supply module skips it).
"""

from __future__ import annotations

from typing import Any

import msgspec

from engine.core.ruleset import Event, Seat, Violation
from engine.fe.forces import OFF_MAP, Board
from engine.fe.model import FeState
from engine.fe.orders import MissionOrder
from engine.fe.sequence import Step
from engine.fe.steps import base
from engine.fe.steps.base import Area
from engine.fe.unit_kinds import can_supply

MISSION_RULE = "509.1"


def missions_on(board: Board, supply_tugs: tuple[str, ...], empire: str) -> tuple[str, ...]:
    """The ids of ``empire``'s transports on the supply mission (``supply_tugs``, a state's
    list) that are still on ``board``."""
    out = []
    for unit_id in supply_tugs:
        try:
            unit = board.unit(unit_id)
        except KeyError:
            continue
        if unit.empire == empire:
            out.append(unit_id)
    return tuple(out)


class _Missions(Area):
    name = "missions"
    orders = ("mission",)

    def check(self, state: FeState, seat: Seat, step: Step, order: Any) -> list[Violation]:
        if not isinstance(order, MissionOrder):
            return super().check(state, seat, step, order)
        units, problems = base.own_units(state, seat, [order.unit], MISSION_RULE)
        if problems:
            return problems
        unit = units[0]
        on_mission = unit.id in state.supply_tugs
        if order.mission == "none":
            if not on_mission:
                return [Violation(f"{unit.id} is on no supply mission", MISSION_RULE)]
            return []
        if on_mission:
            return [Violation(f"{unit.id} is already on the supply mission", MISSION_RULE)]
        if not can_supply(unit):
            return [
                Violation(
                    f"{unit.cls} {unit.id} cannot take the supply mission: only tugs with "
                    "mission D, LTTs and convoys can",
                    MISSION_RULE,
                )
            ]
        if unit.hex == OFF_MAP:
            return [Violation(f"{unit.id} is off the map", MISSION_RULE)]
        return []

    def apply(
        self, state: FeState, seat: Seat, step: Step, order: Any, events: list[Event]
    ) -> FeState:
        if not isinstance(order, MissionOrder):
            return super().apply(state, seat, step, order, events)
        unit = state.board.unit(order.unit)
        if order.mission == "supply":
            tugs = tuple(sorted({*state.supply_tugs, unit.id}))
            text = (
                f"{unit.empire} puts {unit.cls} {unit.id} in {base.hex_text(unit.hex)} on the "
                f"supply mission ({MISSION_RULE}-D)"
            )
        else:
            tugs = tuple(u for u in state.supply_tugs if u != unit.id)
            text = f"{unit.empire} ends the supply mission of {unit.cls} {unit.id}"
        events.append(
            Event(
                "mission",
                text,
                seat,
                step.id,
                {"empire": unit.empire, "unit": unit.id, "mission": order.mission},
            )
        )
        return msgspec.structs.replace(state, supply_tugs=tugs)


AREA = _Missions()
