"""Step 8A: strategic movement (204.0) between strategic movement nodes, paid from the treasury.

A ``strategic`` order names units of one empire and the node they move to; each unit is one
strategic move. `engine.fe.strategic` checks each move (nodes, routes, pins, releases,
auxiliaries' 12 hexes; its notes document the readings) on the empire's supply grid of the
moment (its supply points are the nodes). This module adds what belongs to the game:

- S (204.0, the fixed costs table): each empire has its free strategic moves per turn
  (`engine.fe.strategic.free_moves`); each move beyond them costs 1 EP, paid from the
  empire's treasury as the move is made. Nothing may overspend: an order whose moves cost
  more than the treasury holds is refused whole.
- The count: ``FeState.moved_once`` holds the units that moved strategically this phase,
  so each empire's moves are counted from its own units in it (a seat playing two empires
  has two allowances and two treasuries). I: a unit moves strategically once a turn;
  ``moved_once`` starts again empty as phase 8 begins.
- I: the units of one order move together: each is checked on the board as it stood before
  the order (one unit leaving a node cannot cut the route of the next). Orders are played one
  after another.
- I: one order moves one empire's units, since allowance and treasury are the empire's.
- Off-map fleets enter the map here, from their empire's off-map area (a node, 756.21);
  a fleet the order of battle has arrive at a date may not come before it, and comes to
  its arrival hexes if the data names them (`engine.fe.reinforcements.arrival_problems`).
"""

from __future__ import annotations

from typing import Any

import msgspec

from engine.core.ruleset import Event, Seat, Violation
from engine.core.text import counted
from engine.fe import board_update, reinforcements, strategic
from engine.fe.economics import fmt_ep
from engine.fe.forces import OFF_MAP, Unit
from engine.fe.model import FeState
from engine.fe.orders import StrategicOrder, hex_id
from engine.fe.sequence import Step
from engine.fe.steps import base
from engine.fe.steps.base import Area
from engine.fe.steps.supply import grid_of

STRATEGIC_RULE = strategic.STRATEGIC_RULE
STRATEGIC_PHASE = "8"


def moves_made(state: FeState, empire: str) -> int:
    """Strategic moves ``empire`` made this turn: its units among ``moved_once`` in phase 8.

    A unit no longer on the board (destroyed since) still counts, by its id's empire prefix.
    """
    board = state.board
    count = 0
    for unit_id in state.moved_once:
        try:
            owner = board.unit(unit_id).empire
        except KeyError:
            owner = unit_id.split("-", maxsplit=1)[0]
        count += owner == empire
    return count


def free_left(state: FeState, empire: str) -> int:
    """Free strategic moves ``empire`` has left this turn (204.0)."""
    return max(0, strategic.free_moves(base.galaxy(), empire) - moves_made(state, empire))


def order_cost(state: FeState, empire: str, count: int) -> int:
    """EP (whole) that ``count`` more strategic moves of ``empire`` cost now."""
    free = strategic.free_moves(base.galaxy(), empire)
    before = moves_made(state, empire)
    return strategic.strategic_cost(before + count, free) - strategic.strategic_cost(before, free)


def _like(unit: Unit, towed: bool) -> object:
    """What the checks of a strategic move read of a unit besides its id: the unit with its
    id blanked, and whether a tug of the order carries it. Two units alike so pass or fail
    alike, but for the texts that name them and a strategic move made already (asked by id):
    the order's check judges the first of them, and another only if that one was refused or
    it moved already (`tests/engine/fe/test_strategic_orders.py` holds them to it)."""
    return (msgspec.structs.replace(unit, id=""), towed)


def _where(h: int) -> str:
    return "the off-map area" if h == OFF_MAP else base.hex_text(h)


class _Strategic(Area):
    name = "strategic"
    orders = ("strategic",)

    def check(self, state: FeState, seat: Seat, step: Step, order: Any) -> list[Violation]:
        if not isinstance(order, StrategicOrder):
            return super().check(state, seat, step, order)
        units, problems = base.own_units(state, seat, order.units, STRATEGIC_RULE)
        if problems:
            return problems
        empires = sorted({u.empire for u in units})
        if len(empires) > 1:
            text = (
                f"one strategic order moves one empire's units (each empire has its own free "
                f"moves and treasury); these are {' and '.join(empires)}'s"
            )
            return [Violation(text, STRATEGIC_RULE)]
        to = hex_id(order.to)
        if not base.on_map(to):
            return [Violation(f"{order.to} is not a hex of the map", STRATEGIC_RULE)]
        empire = empires[0]
        galaxy, board, grid = base.galaxy(), state.board, grid_of(state, empire)
        out: list[Violation] = []
        setup = base.scenario_setup(state)
        towed = strategic.towed_bases(units)  # 509.1-C: tugs of the order carry mobile bases
        passed: set[object] = set()
        for unit in units:
            like = _like(unit, unit.id in towed)
            if like in passed and unit.id not in state.moved_once:
                continue  # a unit like one that passed passes too (a fleet arriving)
            move = strategic.StrategicMove(unit.id, to)
            found = strategic.check_strategic(
                galaxy, board, grid, empire, move, already=state.moved_once, towed=unit.id in towed
            ) + reinforcements.arrival_problems(setup, board, state.turn, unit, to)
            if found:
                out += found
            else:
                passed.add(like)
        cost = order_cost(state, empire, len(units))
        treasury2 = state.ep2(empire)
        if 2 * cost > treasury2:
            text = (
                f"{empire} has {counted(free_left(state, empire), 'free strategic move')} left "
                f"and {fmt_ep(treasury2)} EP; moving {counted(len(units), 'unit')} costs "
                f"{cost} EP ({strategic.EXTRA_MOVE_EP} EP a move beyond the free ones)"
            )
            out.append(Violation(text, STRATEGIC_RULE))
        return out

    def apply(
        self, state: FeState, seat: Seat, step: Step, order: Any, events: list[Event]
    ) -> FeState:
        if not isinstance(order, StrategicOrder):
            return super().apply(state, seat, step, order, events)
        galaxy, board = base.galaxy(), state.board
        units = [board.unit(i) for i in order.units]
        empire = units[0].empire
        grid = grid_of(state, empire)
        to = hex_id(order.to)
        groups: dict[tuple[int, int], list[str]] = {}
        routes: dict[str, list[str]] = {}
        found: dict[int, strategic.Route | None] = {}
        for unit in units:
            if unit.hex not in found:
                found[unit.hex] = strategic.strategic_route(galaxy, board, grid, unit.hex, to)
            route = found[unit.hex]
            length = route.hexes if route is not None else 0
            groups.setdefault((unit.hex, length), []).append(f"{unit.cls} {unit.id}")
            routes[unit.id] = [base.hex_text(h) for h in route.nodes] if route else []
        legs = [
            f"{', '.join(names)} from {_where(start)} ({counted(length, 'hex')})"
            for (start, length), names in groups.items()
        ]
        first = moves_made(state, empire) + 1
        last = first + len(units) - 1
        free = strategic.free_moves(galaxy, empire)
        cost = order_cost(state, empire, len(units))
        before = state.ep2(empire)
        numbers = f"move {first}" if first == last else f"moves {first}-{last}"
        paid = (
            f"; {cost} EP paid, treasury {fmt_ep(before)} -> {fmt_ep(before - 2 * cost)} EP"
            if cost
            else ""
        )
        events.append(
            Event(
                "strategic",
                f"{empire} moves {', '.join(legs)} strategically to {order.to}: strategic "
                f"{numbers} of the turn, {free} free{paid} ({STRATEGIC_RULE})",
                seat,
                step.id,
                {
                    "empire": empire,
                    "units": [u.id for u in units],
                    "to": order.to,
                    "routes": routes,
                    "ep2": 2 * cost,
                    "treasury2": before - 2 * cost,
                    "rule": STRATEGIC_RULE,
                },
            )
        )
        # The units with their hex alone changed, given to the state as a move order gives
        # its stack (`board_update.with_units`): no whole board is made in between.
        moved = [msgspec.structs.replace(u, hex=to) for u in units]
        priors = {u.id: u for u in units}
        state = board_update.with_units(state, moved, moved=True, priors=priors)
        state = state.with_ep2(empire, before - 2 * cost)
        return msgspec.structs.replace(
            state,
            moved_once=tuple(sorted({*state.moved_once, *order.units})),
        )

    def on_phase(self, state: FeState, phase: str, events: list[Event]) -> FeState:
        if phase == STRATEGIC_PHASE and state.moved_once:
            return msgspec.structs.replace(state, moved_once=())
        return state


AREA = _Strategic()
