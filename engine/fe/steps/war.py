"""Step 1B takes ``declare`` orders: a player's own declaration of war (503.4).

The phasing seat may declare war, for one of the empires it plays, on one of that empire's
future belligerents (`engine.fe.war` has the conditions, the choice of step and the
readings). The war starts at once: the pair joins ``FeState.at_war`` (the economy reads it)
and the fleets the scenario releases with that war are released, one event each. The rest
of step 1B (survey, annexation) stays the players' bookkeeping, so the step never passes by
itself: it waits for the phasing seat's ``done`` as it did when it was all manual.
"""

from __future__ import annotations

from typing import Any

import msgspec

from engine.core.ruleset import Event, Seat, Violation
from engine.fe import war
from engine.fe.forces import war_pairs
from engine.fe.model import FeState
from engine.fe.orders import DeclareWar
from engine.fe.sequence import Step
from engine.fe.steps import base
from engine.fe.steps.base import Area

WAR_RULE = war.WAR_RULE


def _empire(state: FeState, seat: Seat, order: DeclareWar) -> str | Violation:
    """The declaring empire: the one the order names, or the seat's only one."""
    mine = base.empires_of(state, seat)
    if order.empire:
        if order.empire not in mine:
            text = f"{order.empire} is not an empire of {seat} ({', '.join(mine)})"
            return Violation(text, WAR_RULE)
        return order.empire
    if len(mine) != 1:
        return Violation(
            f"{seat} plays {', '.join(mine)}: the order must name its empire", WAR_RULE
        )
    return mine[0]


class _War(Area):
    name = "war"
    orders = ("declare",)

    def check(self, state: FeState, seat: Seat, step: Step, order: Any) -> list[Violation]:
        if not isinstance(order, DeclareWar):
            return super().check(state, seat, step, order)
        empire = _empire(state, seat, order)
        if isinstance(empire, Violation):
            return [empire]
        return war.declare_problems(
            base.scenario_setup(state),
            state.at_war,
            base.all_empires(state),
            empire,
            order.enemy,
        )

    def apply(
        self, state: FeState, seat: Seat, step: Step, order: Any, events: list[Event]
    ) -> FeState:
        if not isinstance(order, DeclareWar):
            return super().apply(state, seat, step, order, events)
        empire = _empire(state, seat, order)
        if isinstance(empire, Violation):
            raise ValueError(empire.message)  # check refused it already
        enemy = order.enemy
        events.append(
            Event(
                "war",
                f"{empire} declares war on {enemy} ({WAR_RULE})",
                seat,
                step.id,
                {"empire": empire, "enemy": enemy, "turn": state.turn, "rule": WAR_RULE},
            )
        )
        freed = war.war_releases(base.scenario_setup(state), state.released, empire, enemy)
        for side, fleet, why in freed:
            events.append(
                Event(
                    "release",
                    f"{side} {fleet} is released ({why}, {war.RELEASE_RULE})",
                    base.seat_of(state, side),
                    step.id,
                    {"empire": side, "fleet": fleet, "rule": war.RELEASE_RULE},
                )
            )
        released = {*state.released, *((side, fleet) for side, fleet, _ in freed)}
        return msgspec.structs.replace(
            state,
            at_war=war_pairs([*state.at_war, (empire, enemy)]),
            released=tuple(sorted(released)),
        )


AREA = _War()
