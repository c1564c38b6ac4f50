"""The set-up stage before turn 1: every empire places its starting fleets (600.0).

The stage is a part of the sequence like a player turn: one decision step per empire in the
scenario's set-up order (``0-KZI``, ``0-KLI``...), owed by the seat that plays that empire.
It takes ``place`` orders (`engine.fe.setup` checks them against the fleet's set-up hexes)
and ends with ``done`` once nothing of that empire waits to be placed. An empire with nothing
to place (every fleet starts off the map) is passed over by itself.

The starting board is built here too: every starting unit off the map, plus the bases the map
shows in the hexes each empire holds in the scenario (starbases, battle stations: 600.0 puts
them there, and repairs and production need them as units), and the PDUs of the capital
systems it holds (759.0, `engine.fe.planets.starting_pdus`).
"""

from __future__ import annotations

from typing import Any

from engine.core import caches
from engine.core.errors import NotPending
from engine.core.ruleset import Actor, Event, Seat, StepKind, Violation
from engine.fe import planets
from engine.fe import setup as placing
from engine.fe.forces import Board, Unit, war_pairs
from engine.fe.holdings import scenario_holdings
from engine.fe.model import FeState
from engine.fe.orders import Place, hex_id
from engine.fe.scenario import Scenario, find_scenario
from engine.fe.sequence import Phase, Step
from engine.fe.steps import base
from engine.fe.steps.base import Area
from engine.fe.units import load_units

SETUP_PHASE = Phase("0", "Set-up", placing.SETUP_RULE)


@caches.derived(maxsize=32, shipped=True)
def setup_steps(scenario_id: str) -> tuple[Step, ...]:
    """The set-up part of a scenario: one step per empire of its set-up order."""
    scenario = _scenario(scenario_id)
    order = scenario.setup.setup_order if scenario.setup is not None else ()
    return tuple(
        Step(
            id=f"0-{empire}",
            phase=SETUP_PHASE.id,
            title=f"{empire} places its starting fleets",
            actor=Actor.PHASING,
            kind=StepKind.DECISION,
            rules=(placing.SETUP_RULE,),
            area="setup",
            orders=("place",),
        )
        for empire in order
    )


def _scenario(scenario_id: str) -> Scenario:
    found = find_scenario(scenario_id)
    if found is None:
        raise NotPending(f"unknown scenario {scenario_id!r}")
    return found


def starting_board(scenario: Scenario) -> Board:
    """Starting units off the map, the map's bases in the hexes held, and the wars at start."""
    if scenario.setup is None:
        return Board()
    units = list(placing.starting_units(scenario.setup))
    tables = load_units()
    for holding in scenario_holdings(scenario.id):
        serial = 0
        for h, kind in holding.bases:
            if tables.find(holding.empire, kind) is None:
                continue  # a base class the empire lacks in the tables: data check reports it
            serial += 1
            units.append(Unit(f"{holding.empire}-B{serial:03d}", holding.empire, kind, h))
        units.extend(planets.starting_pdus(base.galaxy(), holding.empire, holding.capitals))
    wars = [(e.empire, enemy) for e in scenario.setup.empires for enemy in e.at_war_with]
    return Board(units=tuple(sorted(units, key=lambda u: u.id)), at_war=war_pairs(wars))


def waiting(state: FeState, empire: str) -> tuple[Unit, ...]:
    setup = base.empire_setup(state, empire)
    return placing.to_place(state.board, setup) if setup is not None else ()


def _placement(order: Place) -> placing.Placement:
    return placing.Placement(hex_id(order.hex), unit=order.unit, fleet=order.fleet)


class _SetUp(Area):
    name = "setup"
    orders = ("place",)

    def check(self, state: FeState, seat: Seat, step: Step, order: Any) -> list[Violation]:
        if not isinstance(order, Place):
            return super().check(state, seat, step, order)
        empire = base.setup_empire(state)
        setup = base.empire_setup(state, empire)
        if setup is None:
            return [Violation(f"{empire} has nothing to set up", placing.SETUP_RULE)]
        return placing.check_placements(state.board, setup, [_placement(order)])

    def apply(
        self, state: FeState, seat: Seat, step: Step, order: Any, events: list[Event]
    ) -> FeState:
        empire = base.setup_empire(state)
        setup = base.empire_setup(state, empire)
        if not isinstance(order, Place) or setup is None:
            return super().apply(state, seat, step, order, events)
        # The units the placement moves are those that leave the waiting list: every one
        # waited (the check refused any other), and each now stands in a set-up hex.
        moved = placing.placed_units(state.board, setup, _placement(order))
        state = state.with_units(moved)
        placed = sorted(u.id for u in moved)
        what = order.fleet or order.unit
        events.append(
            Event(
                "place",
                f"{empire} sets up {what} in {order.hex}"
                + (f" ({len(placed)} units)" if order.fleet else ""),
                seat,
                step.id,
                {"empire": empire, "hex": order.hex, "units": placed},
            )
        )
        return state

    def finish(self, state: FeState, seat: Seat, step: Step) -> list[Violation]:
        empire = base.setup_empire(state)
        left = waiting(state, empire)
        if not left:
            return []
        fleets: dict[str, int] = {}
        for unit in left:
            fleets[unit.fleet] = fleets.get(unit.fleet, 0) + 1
        shown = ", ".join(f"{name} ({count})" for name, count in fleets.items())
        return [
            Violation(
                f"{empire} still has {len(left)} units to set up: {shown}", placing.SETUP_RULE
            )
        ]

    def skip(self, state: FeState, step: Step) -> str:
        empire = base.setup_empire(state)
        return "" if waiting(state, empire) else f"{empire} has nothing to place"


AREA = _SetUp()


def default_placements(state: FeState) -> list[Place]:
    """A legal set-up for the empire placing now: each fleet in its first set-up hex that
    still has room under the fleet's hex limits.

    Not a strategy, just a deployment that is always accepted: the demo, the tests and a
    player in a hurry use it; players normally choose their own hexes.
    """
    empire = base.setup_empire(state)
    setup = base.empire_setup(state, empire)
    if setup is None:
        return []
    orders: list[Place] = []
    for fleet in setup.fleets:
        units = [u for u in waiting(state, empire) if u.fleet == fleet.name]
        if not units:
            continue
        limits = {limit.hex: limit.max_units for limit in fleet.hex_limits}
        if not limits:
            orders.append(Place(hex=base.hex_text(fleet.hexes[0]), fleet=fleet.name))
            continue
        used: dict[int, int] = {}
        for unit in units:
            h = next(
                (h for h in fleet.hexes if used.get(h, 0) < limits.get(h, len(units))),
                fleet.hexes[0],
            )
            used[h] = used.get(h, 0) + 1
            orders.append(Place(hex=base.hex_text(h), unit=unit.id))
    return orders
