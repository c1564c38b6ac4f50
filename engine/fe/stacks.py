"""Moves at the size players think in: a whole stack, or a named fleet, in one order.

Players say "the Home Fleet goes 1210 to 1307" or "everything in 1411 moves", not a list of
counter ids. A ``move`` order (`engine.fe.orders.MoveOrder`) may therefore name, instead of
``units``, the ``stack`` it moves (the hex the path starts in) and/or a ``fleet`` by name, and
narrow either with ``only`` (class names, empire codes or unit ids). `expand` turns such an
order into the plain one with its units listed, so the movement rules check and apply
exactly what they always did, unit by unit: one unit that cannot move refuses the whole
order, named with its own rule (a fleet not released, 600.3; an allowance spent, 203.1).

Readings (marked as in ``fe-rules-notes.md``):

- C: a stack or fleet is the seat's own units that move by themselves (allowance above 0):
  bases, PDUs and other units that never move are left out rather than refusing the move;
  every other unit is kept, so one that may not move now refuses the order by name.
- C: a fleet is the starting fleet a unit belongs to (``Unit.fleet``), named as the order of
  battle names it, case-insensitively, or with its empire in front (``"KLI Home Fleet"``)
  when the seat's empires share a fleet name; a name matching two fleets is refused with
  both. Units built later belong to no fleet.
- C: named alone, a fleet moves all of its units on the map, which must stand in the hex the
  path starts in; with ``stack``, only its units in that hex.
- Names, stacks and ``only`` filters must each find something; otherwise the refusal says
  what the hex or fleet holds.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from engine.core.ruleset import Seat, Violation
from engine.fe.forces import OFF_MAP, Unit, allowance
from engine.fe.model import FeState
from engine.fe.orders import MoveOrder, hex_id
from engine.fe.steps import base

STACK_RULE = "203.0"
"""Units move as stacks along a path (203.0)."""
OWN_UNITS_RULE = "105.0"


def named(order: MoveOrder) -> bool:
    """Whether the order names its units by stack or fleet rather than listing them."""
    return bool(order.stack or order.fleet or order.only)


def mobile(unit: Unit) -> bool:
    """A unit that moves by itself (203.1: a movement value above 0) and is on the map."""
    return unit.hex != OFF_MAP and allowance(unit) > 0


def fleet_units(state: FeState, seat: Seat, name: str) -> tuple[str, str, tuple[Unit, ...]] | str:
    """The fleet ``name`` of ``seat``'s empires, as ``(empire, fleet, its units on the map
    that move)``, or why it names none or several."""
    mine = base.empires_of(state, seat)
    wanted = name.strip().casefold()
    empire_part, _, rest = name.strip().partition(" ")
    if empire_part.upper() in mine and rest:
        mine = (empire_part.upper(),)
        wanted = rest.strip().casefold()
    fleets: dict[tuple[str, str], list[Unit]] = {}
    for unit in state.board.units:
        if unit.empire in mine and unit.fleet and unit.fleet.casefold() == wanted:
            fleets.setdefault((unit.empire, unit.fleet), []).append(unit)
    if not fleets:
        return f"{seat} has no fleet named {name!r}"
    if len(fleets) > 1:
        shown = " and ".join(f"{e} {f}" for e, f in sorted(fleets))
        return (
            f"fleet {name!r} names {shown}: put the empire first, e.g. {shown.split(' and ')[0]!r}"
        )
    ((empire, fleet), units) = next(iter(fleets.items()))
    return empire, fleet, tuple(u for u in units if mobile(u))


def _matches(unit: Unit, only: Sequence[str]) -> bool:
    return any(w.casefold() in (unit.id.casefold(), unit.cls.casefold(), unit.empire.casefold())
               for w in only)  # fmt: skip


def expand(state: FeState, seat: Seat, order: MoveOrder) -> MoveOrder | list[Violation]:
    """``order`` with its units listed (unchanged when it lists them already), or why its
    stack, fleet or filter finds no units to move."""
    if not order.path:
        return [Violation("a move needs a path: the hex it starts in, then each hex entered",
                          STACK_RULE)]  # fmt: skip
    if not named(order):
        if not order.units:
            text = "a move lists its units, or names a stack or a fleet"
            return [Violation(text, STACK_RULE)]
        return order
    if order.units:
        text = "a move lists its units or names a stack or fleet, not both"
        return [Violation(text, STACK_RULE)]
    start = hex_id(order.path[0])
    mine = base.empires_of(state, seat)
    if order.stack and hex_id(order.stack) != start:
        text = f"the stack in {order.stack} is not where the path starts ({order.path[0]})"
        return [Violation(text, STACK_RULE)]
    what: str
    if order.fleet:
        found = fleet_units(state, seat, order.fleet)
        if isinstance(found, str):
            return [Violation(found, STACK_RULE)]
        what, units = f"{found[0]} {found[1]}", found[2]
        if order.stack:
            units = tuple(u for u in units if u.hex == start)
        else:
            away = [u for u in units if u.hex != start]
            if away:
                shown = ", ".join(f"{u.id} ({u.cls}) in {u.hex:04d}" for u in away[:6])
                more = f" and {len(away) - 6} more" if len(away) > 6 else ""
                text = (
                    f"{what} is not all in {order.path[0]}, where the path starts: {shown}"
                    f"{more}; name the stack too to move only its units there"
                )
                return [Violation(text, STACK_RULE)]
    else:
        what = f"{seat}'s stack in {order.path[0]}"
        units = tuple(u for u in state.board.at(start) if u.empire in mine and mobile(u))
    if order.only:
        missing = [w for w in order.only if not any(_matches(u, [w]) for u in units)]
        if missing:
            held = ", ".join(f"{u.id} {u.cls}" for u in units) or "nothing that moves"
            text = f"only {', '.join(missing)}: no such unit in {what} (it holds {held})"
            return [Violation(text, STACK_RULE)]
        units = tuple(u for u in units if _matches(u, order.only))
    if not units:
        return [Violation(f"{what} holds no unit of {seat} that moves", STACK_RULE)]
    ids = sorted(u.id for u in units)
    return msgspec.structs.replace(order, units=ids, stack="", fleet="", only=[])
