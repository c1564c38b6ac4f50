"""Step 2A2: repairing crippled ships at bases and FRDs, one order at a time.

The pure module (`engine.fe.repair`) judges one repair: the unit is crippled, stands at a
facility of its empire, is in supply (410.23) and the empire can pay. What it cannot see is
the turn: a facility hex has so many repair points a turn (420.42), and the points the
earlier repairs of this turn used there are kept in the phase's tally (`engine.fe.steps.yard`)
and added here before a new repair is let through.

The step passes by itself (`repairable`) when nothing of the phasing side can be repaired:
no crippled ship at a facility with room, or no money to pay.
"""

from __future__ import annotations

from itertools import compress
from operator import attrgetter

from engine.core import caches
from engine.core.ruleset import Event, Seat, Violation
from engine.fe import board_views, repair
from engine.fe.economics import fmt_ep
from engine.fe.forces import OFF_MAP, Unit
from engine.fe.galaxy import HexId
from engine.fe.model import FeState
from engine.fe.orders import RepairOrder
from engine.fe.sequence import Step
from engine.fe.steps import base, yard


def repair_problems(state: FeState, seat: Seat, order: RepairOrder) -> list[Violation]:
    """Why ``seat`` may not repair ``order.unit`` now (420.2, 420.42, 410.23)."""
    unit = yard.own_unit(state, seat, order.unit, repair.BASE_RULE)
    if isinstance(unit, list):
        return unit
    return _repair_unit_problems(state, unit, yard.cut_off(state, unit))


def _repair_unit_problems(
    state: FeState, unit: Unit, unsupplied: tuple[HexId, ...]
) -> list[Violation]:
    galaxy, board, options = base.galaxy(), state.board, yard.repair_options(state)
    problems = repair.check_repairs(
        galaxy,
        board,
        unit.empire,
        state.ep2(unit.empire),
        [repair.Repair(unit.id)],
        unsupplied=unsupplied,
        options=options,
    )
    if problems:
        return problems
    need = repair.repair_points(unit, options)
    capacity = repair.repair_capacity(galaxy, board, unit.empire, unit.hex, options=options)
    spent = yard.used(state, unit.empire, f"repair {yard.at(unit.hex)}")
    if spent + need > capacity:
        text = (
            f"repairing {unit.cls} {unit.id} needs {need} points at {yard.at(unit.hex)}: "
            f"capacity {capacity} a turn, {spent} already used this turn"
        )
        return [Violation(text, repair.BASE_RULE)]
    return []


def _facilities(state: FeState, unit: Unit) -> str:
    """The empire's repair facilities in the unit's hex, e.g. ``"SB"`` or ``"3 SB, FRD"``."""
    options = yard.repair_options(state)
    counts: dict[str, int] = {}
    for other in state.board.at(unit.hex):
        if other.empire != unit.empire or not repair.facility_points(other):
            continue
        if other.crippled and not options.crippled_facilities:
            continue
        counts[other.cls] = counts.get(other.cls, 0) + 1
    return ", ".join(cls if n == 1 else f"{n} {cls}" for cls, n in counts.items())


def apply_repair(
    state: FeState, seat: Seat, step: Step, order: RepairOrder, events: list[Event]
) -> FeState:
    """Repair the unit, pay for it and count its points against the facility hex."""
    unit = state.board.unit(order.unit)
    empire, before = unit.empire, state.ep2(unit.empire)
    options = yard.repair_options(state)
    done = repair.apply_repairs(
        base.galaxy(), state.board, empire, before, [repair.Repair(unit.id)], options=options
    )
    state = state.with_board(done.board).with_ep2(empire, done.treasury2)
    here = yard.at(unit.hex)
    state = yard.use(state, empire, (f"repair {here}", repair.repair_points(unit, options)))
    events.append(
        Event(
            "repair",
            f"{empire} repairs {unit.cls} {unit.id} at {here} {_facilities(state, unit)} "
            f"for {fmt_ep(done.cost2)} EP ({yard.treasury_text(before, done.treasury2)})",
            seat,
            step.id,
            {
                "empire": empire,
                "unit": unit.id,
                "hex": here,
                "cost2": done.cost2,
                "treasury2": done.treasury2,
                "rule": repair.BASE_COST_RULE,
            },
        )
    )
    return state


def repairable(state: FeState) -> str:
    """Why nothing of the phasing side can be repaired now ("" when something can)."""
    empires = base.phasing_empires(state)
    for forces in state.forces:  # the phasing empires' units, their cripples picked in C
        if forces.empire not in empires or not _may_hold_cripples(forces.units):
            continue
        for unit in compress(forces.units, map(_CRIPPLED, forces.units)):
            placed = unit.empire in empires and unit.hex != OFF_MAP
            if placed and not _repair_unit_problems(state, unit, ()):
                return ""
    return f"{', '.join(empires)}: no crippled ship that a base or FRD can repair now"


_CRIPPLED = attrgetter("crippled")


def _may_hold_cripples(units: tuple[Unit, ...]) -> bool:
    """Whether ``units`` (one empire's `Forces.units`) may hold a crippled unit: False only
    when their classes (`board_views.unit_classes`, carried over moves) or the kinds of a
    board's first reading (`board_views.kinds_of`) are held and show none, so a player turn
    without cripples reads no unit for this step; True (read them) when neither is held."""
    classes = caches.peek(board_views.unit_classes, units)
    if classes is not None:
        return any(crippled for _, _, crippled in classes)
    kinds = caches.peek(board_views.kinds_of, units)
    return kinds is None or any(crippled for _, _, _, crippled in kinds)
