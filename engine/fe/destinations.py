"""Where a stack order may go once its units are chosen: the hexes the app marks on the map
(`engine.core.face.Destinations`) and ``hexpost choices --to`` prints.

A player about to move a stack strategically wants to see the nodes it may reach before
picking one, not to try hexes until one is accepted; one drawing a path wants to see, hex by
hex, where the move could stop. Each hex listed is one the step's own check accepts for
exactly that order (the engine checks the order sent anyway), and only the hexes the rule
allows at all are tried, so a list costs a few dozen checks, not the map's thousand:

- a strategic move (8A) goes to one of its empire's strategic movement nodes (204.0,
  756.21), a retrograde (6D2) to a grid supply point (206.0), a withdrawal (5-1A) to a hex
  next to the battle (302.11), and a set-up fleet to one of its set-up hexes (600.0). A
  withdrawal that leaves units able to command must name their flagship (302.133): the
  first eligible one is tried and handed back to fill the order (`Reach.fills`), which
  spares the defender a refusal and a second try at a step every battle may stop at;
- a move (3B2, 4B) is asked with the path drawn so far, and the answer is the hexes next to
  its end where a move along it may stop (allowance, pins, blocking and the rest all
  checked): none once the allowance is spent, which its note counts down. So is a
  reaction (3B3), toward any hex an enemy stack entered in the batch, the trigger it
  reacts to handed back with the answer.

A strategic move's answer also says how many moves the empire has left free and what the
next ones cost (204.0), which decides how many stacks go. When nothing is accepted, the
answer carries the check's first refusal, so the player reads
why (a fleet not released, a treasury too small for the moves) instead of an empty map.
Pure, and computed only when a client asks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import msgspec

from engine.core import hexgrid
from engine.core.face import Reach
from engine.core.ruleset import Seat, Violation
from engine.fe import flow, retrograde, strategic
from engine.fe.combat import forces
from engine.fe.economics import fmt_ep
from engine.fe.forces import OFF_MAP
from engine.fe.menus import checked
from engine.fe.model import FeState
from engine.fe.movement import hex_cost, remaining
from engine.fe.opening import WithdrawOrder
from engine.fe.orders import MoveOrder, Place, React, RetrogradeOrder, StrategicOrder
from engine.fe.steps import base, combat, combat_approach
from engine.fe.steps import movement as movement_step
from engine.fe.steps import strategic as strategic_step
from engine.fe.steps.supply import grid_of

DESTINATION_ORDERS = ("strategic", "retrograde", "withdraw", "place", "move", "react")
"""The orders whose destinations `destinations` lists, given their units (and for a move,
the path drawn so far)."""

MAX_PATH = 63
"""The longest path drawn so far that `destinations` extends: a move's path holds at most
64 hexes (`engine.fe.orders.HexPath`)."""


def destinations(
    state: FeState, seat: Seat, order: str, units: tuple[str, ...], path: tuple[str, ...] = ()
) -> Reach | None:
    """Where ``order`` may take ``units`` now (for a move or a reaction, one hex past
    ``path``; for a set-up ``place``, ``units`` is the one fleet, by name, or unit it
    places); None for an order with no such list."""
    if order not in DESTINATION_ORDERS:
        return None
    step = flow.current(state)
    if step is None or order not in step.orders:
        where = "no step is owed" if step is None else f"step {step.id} takes no {order} orders"
        return Reach(why=f"{where} now")
    if not units:
        return Reach(why=f"name what the {order} moves")
    if order == "place":
        return _setup_hexes(state, seat, units)
    try:
        first = state.board.unit(units[0])
    except KeyError:
        return Reach(why=state.board.no_unit(units[0]))
    if order in ("move", "react"):
        return _one_hex_on(state, seat, order, units, first.hex, path)
    return _LISTS[order](state, seat, list(units), first.empire)


def _one_hex_on(
    state: FeState,
    seat: Seat,
    order: str,
    units: tuple[str, ...],
    start: int,
    path: tuple[str, ...],
) -> Reach:
    """A move's (3B2, 4B) or a reaction's hexes next to the end of ``path`` (empty: the
    units' hex) where it may stop."""
    drawn = list(path) or [base.hex_text(start)]
    if len(drawn) > MAX_PATH or not all(map(_is_hex, drawn)) or int(drawn[0]) != start:
        return Reach(why=f"a path starts in {units[0]}'s hex and steps through map hexes")
    galaxy = base.galaxy()
    around = hexgrid.neighbours(int(drawn[-1]), galaxy.width, galaxy.height)
    ahead = [base.hex_text(h) for h in around]
    if order == "react":
        return _reaction(state, seat, list(units), drawn, ahead)
    found = _reach(state, seat, (MoveOrder(list(units), [*drawn, h]) for h in ahead))
    return msgspec.structs.replace(found, note=_movement_note(state, units, drawn))


def _movement_note(state: FeState, units: tuple[str, ...], drawn: list[str]) -> str:
    """``4 hexes of movement left past 1305``: the least any unit of the stack has left
    (halved out of supply, 410.31), as the move's own allowance check counts it (203.1);
    blocking and pins may stop it sooner, which the marks show. When the stack's units
    differ, the note names the slowest, the one to leave behind to go further."""
    try:
        stack = [state.board.unit(uid) for uid in units]
    except KeyError:
        return ""  # (the check names the unit that is not there)
    step = flow.current(state)
    reserve = step is not None and step.id == movement_step.RESERVE_STEP
    slow = movement_step.halved(state, stack, reserve)
    moved = dict(state.moved)
    each = [remaining(u, moved, slow) for u in stack]
    points = min(each)
    left = max(0, points // hex_cost(dict(state.options)) - (len(drawn) - 1))
    note = f"{left} hex{'' if left == 1 else 'es'} of movement left past {drawn[-1]}"
    if points < max(each):  # the first of the slowest, in the order the player named them
        slowest = stack[each.index(points)]
        note += f" ({slowest.id} {slowest.cls} is the slowest)"
    return note


def _withdrawal(state: FeState, seat: Seat, ids: list[str], empire: str) -> Reach:
    """The hexes next to the battle (5-1A, 302.11), with the flagship of the units that
    stay handed back when they must name one."""
    record = combat.current(state)
    if record is None:
        return Reach(why="no battle is being fought")
    galaxy = base.galaxy()
    around = hexgrid.neighbours(record.hex, galaxy.width, galaxy.height)
    flagship = _staying_flagship(state, record.hex, tuple(ids))
    found = _reach(state, seat, (WithdrawOrder(ids, base.hex_text(h), flagship) for h in around))
    return msgspec.structs.replace(found, fills=(("flagship", flagship),)) if flagship else found


def _strategic(state: FeState, seat: Seat, ids: list[str], empire: str) -> Reach:
    """The empire's strategic movement nodes (8A, 204.0, 756.21), with the moves left free."""
    nodes = sorted(strategic.nodes(grid_of(state, empire)))
    tries = (StrategicOrder(ids, base.hex_text(h)) for h in nodes if h != OFF_MAP)
    found = _reach(state, seat, tries)
    return msgspec.structs.replace(found, note=_strategic_note(state, empire))


def _retrograde(state: FeState, seat: Seat, ids: list[str], empire: str) -> Reach:
    """The empire's grid supply points (6D2, 206.0)."""
    points = retrograde.destinations(grid_of(state, empire))
    return _reach(state, seat, (RetrogradeOrder(ids, base.hex_text(h)) for h in points))


_LISTS: dict[str, Callable[[FeState, Seat, list[str], str], Reach]] = {
    "withdraw": _withdrawal,
    "strategic": _strategic,
    "retrograde": _retrograde,
}
"""The one-destination orders' lists, each from the units and their empire."""


def _reach(
    state: FeState, seat: Seat, tries: Iterable[Any], key: Callable[[Any], str] | None = None
) -> Reach:
    """The hexes of those of ``tries`` the current step accepts from ``seat`` (`checked`;
    ``key`` reads an order's hex, its destination unless told), or why the first one was
    refused."""
    hex_of = key or _hex_of
    hexes: set[str] = set()
    refused: Violation | None = None
    for order, problems in checked(state, seat, tries):
        if not problems:
            hexes.add(hex_of(order))
        elif refused is None:
            refused = problems[0]
    if hexes or refused is None:
        return Reach(tuple(sorted(hexes)), "" if hexes else "no hex to try")
    rule = f" ({refused.rule})" if refused.rule else ""
    return Reach(why=f"{refused.message}{rule}")


def _reaction(
    state: FeState, seat: Seat, ids: list[str], drawn: list[str], ahead: list[str]
) -> Reach:
    """A reaction (3B3, 205.0) one hex past ``drawn``: toward any hex an enemy stack entered
    in this batch (its trigger). The trigger the path as drawn reacts to, if it is legal
    already, fills the order: a stack reacting two hexes toward an enemy that stopped two
    hexes away may stop after one, where the path's end is not the trigger."""
    end = int(drawn[-1])  # the nearest first: a refusal then speaks of the likeliest trigger
    entered = sorted({to for _, to in state.batch}, key=lambda h: (hexgrid.distance(end, h), h))
    triggers = [base.hex_text(h) for h in entered]
    found = _reach(state, seat, (React(ids, [*drawn, h], t) for h in ahead for t in triggers))
    if len(drawn) < 2:
        return found
    now = _reach(state, seat, (React(ids, drawn, t) for t in triggers), key=lambda o: o.trigger)
    if not now.hexes:
        return found
    return msgspec.structs.replace(found, fills=(("trigger", now.hexes[0]),))


def _strategic_note(state: FeState, empire: str) -> str:
    """``KLI: 2 free strategic moves left, then 1 EP a move; treasury 12 EP`` (204.0)."""
    free = strategic_step.free_left(state, empire)
    moves = "move" if free == 1 else "moves"
    extra = strategic.EXTRA_MOVE_EP
    treasury = fmt_ep(state.ep2(empire))
    left = f"{free} free strategic {moves} left"
    return f"{empire}: {left}, then {extra} EP a move; treasury {treasury} EP"


def _hex_of(order: Any) -> str:
    if isinstance(order, MoveOrder | React):
        return order.path[-1]
    if isinstance(order, Place):
        return order.hex
    text: str = order.to
    return text


def _is_hex(text: str) -> bool:
    return len(text) == 4 and text.isdigit() and base.on_map(int(text))


def _setup_hexes(state: FeState, seat: Seat, units: tuple[str, ...]) -> Reach:
    """The set-up hexes where the one fleet named, or else the unit of that id, may be
    placed now (600.0): its fleet's set-up hexes that the set-up check accepts (a hex limit
    may already be reached)."""
    if len(units) != 1:
        return Reach(why="a placement names one fleet or one unit")
    placed = units[0]
    setup = base.empire_setup(state, base.setup_empire(state))
    fleets = setup.fleets if setup is not None else ()
    fleet = next((f for f in fleets if f.name == placed), None)
    if fleet is not None:
        return _reach(state, seat, (Place(h, fleet=placed) for h in _tried(fleet.hexes)))
    try:
        fleet_name = state.board.unit(placed).fleet
    except KeyError:
        return Reach(why=f"no fleet or unit {placed} waits to set up")
    fleet = next((f for f in fleets if f.name == fleet_name), None)
    if fleet is None:
        return Reach(why=f"{placed} sets up with no fleet of this step")
    return _reach(state, seat, (Place(h, unit=placed) for h in _tried(fleet.hexes)))


def _tried(hexes: tuple[int, ...]) -> list[str]:
    """A fleet's set-up hexes to try; for one with none (it starts off the map), the map's
    first hex, so the answer is the set-up check's own reason (600.0)."""
    return [base.hex_text(h) for h in hexes] or [base.hex_text(101)]


def _staying_flagship(state: FeState, h: int, leaving: tuple[str, ...]) -> str:
    """The first unit that may command the defender's units staying in the battle hex
    ``h`` (302.133, 302.32): the flagship a withdrawal must name, "" when none can."""
    gone = set(leaving)
    staying = combat_approach.units_of(state, combat_approach.defender(state), h)
    eligible = forces.eligible_flagships([u for u in staying if u.id not in gone])
    return eligible[0] if eligible else ""
