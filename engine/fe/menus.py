"""Menus for F&E's orders: ready-made lines (the face's `Preset`s) and the values a parameter
may take now (a `Param`'s options), for builds, conversions, set-up fleets, captures,
declarations of war, retreats, repairs and supply missions; and, once a stack order's units
are chosen, the hexes it may go to (strategic moves, retrogrades, withdrawals).

A player building at 2B3 wants the list of what the production schedule allows this turn and
what may substitute for each slot; one converting wants, for each of its units, the classes
the unit tables let it become. Each line is one the engine's own check accepts now (the
build's hex aside, which the form asks for), so a menu never offers what would be refused;
the engine checks every order sent anyway. Pure, and computed only while a step takes those
orders.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from engine.core import hexgrid
from engine.core.face import Preset
from engine.core.ruleset import Seat
from engine.fe import choice_lists, flow, retrograde, strategic
from engine.fe.combat import forces
from engine.fe.conversions import conversion_capacity
from engine.fe.forces import OFF_MAP
from engine.fe.model import FeState
from engine.fe.opening import WithdrawOrder
from engine.fe.orders import (
    CaptureOrder,
    ConvertOrder,
    DeclareWar,
    MissionOrder,
    MoveOrder,
    Place,
    RepairOrder,
    RetreatOrder,
    RetrogradeOrder,
    StrategicOrder,
)
from engine.fe.steps import (
    base,
    combat,
    combat_approach,
    combat_capture,
    combat_retreat,
    order_area,
)
from engine.fe.steps.base import empires_of
from engine.fe.steps.shipyard import convert_problems
from engine.fe.steps.supply import grid_of
from engine.fe.units import load_units


def build_presets(state: FeState, seat: Seat) -> tuple[Preset, ...]:
    """The classes ``seat``'s empires may build now: each open slot of the schedule, then
    the classes that may be built instead of it (431.0, 450.0), each accepted by the build
    check at the empire's first site (`choice_lists.buildable`, as ``hexpost choices``
    lists them); the form asks for the hex."""
    out: list[Preset] = []
    for b in choice_lists.buildable(state, seat):
        values: tuple[tuple[str, str], ...]
        if b.instead:
            label = f"{b.empire} {b.cls} instead of {b.slot}"
            values = (("empire", b.empire), ("cls", b.cls), ("instead_of", b.instead))
        else:
            label = f"{b.empire} {b.slot} ({b.left} slot{'' if b.left == 1 else 's'})"
            values = (("empire", b.empire), ("cls", b.cls))
        out.append(Preset(label, values))
    return tuple(out)


def convert_presets(state: FeState, seat: Seat) -> tuple[Preset, ...]:
    """For each of ``seat``'s units, the conversions the engine would take now (433.0): one
    the tables automate, into a class in service, where the unit's hex has the capacity
    (a starbase, the capital) and the treasury pays. The tables alone name some eight hundred
    for the Klingons and Lyrans on The Wind's first turn, four in five of them refused."""
    tables = load_units()
    galaxy, board = base.galaxy(), state.board
    mine = set(empires_of(state, seat))
    out: list[Preset] = []
    for unit in board.units:
        if unit.empire not in mine or unit.hex == OFF_MAP or unit.crippled:
            continue
        if not any(conversion_capacity(galaxy, board, unit.empire, unit.hex)):
            continue  # (the check refuses these too: a quicker way to the same answer)
        for target in tables.empire_classes(unit.empire):
            if not any(unit.cls in conv.source for conv in target.conversions):
                continue
            if convert_problems(state, seat, ConvertOrder(unit.id, target.id)):
                continue
            label = f"{unit.id} {unit.cls} -> {target.id}"
            out.append(Preset(label, (("unit", unit.id), ("to", target.id))))
    return tuple(out)


def place_presets(state: FeState, seat: Seat) -> tuple[Preset, ...]:
    """Each fleet still waiting to set up (600.0), its set-up hexes in the label: the form
    then asks only for the hex."""
    out: list[Preset] = []
    for listed in choice_lists.lists(state, seat):
        if listed.key != "setup":
            continue
        for item in listed.items:
            hexes = next((f.value for f in item.facts if f.label == "set-up hexes"), "")
            shown = hexes if len(hexes) <= 40 else hexes[:37] + "..."
            out.append(Preset(f"{item.label}: {shown}", item.values))
    return tuple(out)


# --- menus of the other orders: each line an order the step's own check accepts now ---------


def _accepted(state: FeState, seat: Seat, orders: Iterable[Any]) -> Iterator[Any]:
    """Those of ``orders`` the current step's area accepts from ``seat`` (as the engine's
    validation would, past whose turn it is)."""
    step = flow.current(state)
    if step is None:
        return
    for order in orders:
        tag = order.__struct_config__.tag
        if tag in step.orders and not order_area(step, tag).check(state, seat, step, order):
            yield order


def capture_presets(state: FeState, seat: Seat) -> tuple[Preset, ...]:
    """Each crippled enemy ship in the battle hex with each ship that may try to capture it
    (305.1)."""
    record = combat.current(state)
    if record is None:
        return ()
    board = state.board
    tries = (
        CaptureOrder(target.id, captor.id)
        for target in combat_capture.targets(state, seat, record)
        for captor in combat_capture.captors(state, seat, record)
    )
    return tuple(
        Preset(
            f"{o.unit} {board.unit(o.unit).cls} by {o.by} {board.unit(o.by).cls}",
            (("unit", o.unit), ("by", o.by)),
        )
        for o in _accepted(state, seat, tries)
    )


def declare_presets(state: FeState, seat: Seat) -> tuple[Preset, ...]:
    """Each war one of ``seat``'s empires may declare now (503.4)."""
    mine = empires_of(state, seat)
    others = [e for e in base.all_empires(state) if e not in mine]
    tries = (DeclareWar(enemy, empire) for empire in mine for enemy in others)
    return tuple(
        Preset(f"{o.empire} declares war on {o.enemy}", (("enemy", o.enemy), ("empire", o.empire)))
        for o in _accepted(state, seat, tries)
    )


def retreat_hexes(state: FeState, seat: Seat) -> tuple[str, ...]:
    """The hexes next to the battle ``seat``'s ships may retreat into (302.72): the one the
    retreat priorities pick first (where a retreat naming none goes), then the others."""
    record = combat.current(state)
    if record is None:
        return ()
    galaxy = base.galaxy()
    around = hexgrid.neighbours(record.hex, galaxy.width, galaxy.height)
    tries = [RetreatOrder(base.hex_text(h)) for h in around]
    legal = [o.to for o in _accepted(state, seat, tries) if o.to]
    cands = combat_retreat.candidates(state, seat, record.hex)
    best = combat_retreat.best_hex(cands)
    first = base.hex_text(best) if best is not None else ""
    return tuple(sorted(legal, key=lambda h: (h != first, h)))


def repair_units(state: FeState, seat: Seat) -> tuple[str, ...]:
    """``seat``'s crippled units that may be repaired now where they are (420.2)."""
    mine = set(empires_of(state, seat))
    tries = (RepairOrder(u.id) for u in state.board.units if u.empire in mine and u.crippled)
    return tuple(o.unit for o in _accepted(state, seat, tries))


def mission_units(state: FeState, seat: Seat) -> tuple[str, ...]:
    """``seat``'s units that may take the supply mission, or leave it (509.1)."""
    mine = set(empires_of(state, seat))
    on = set(state.supply_tugs)
    tries = (
        MissionOrder(u.id, "none" if u.id in on else "supply")
        for u in state.board.units
        if u.empire in mine and u.hex != OFF_MAP
    )
    return tuple(o.unit for o in _accepted(state, seat, tries))


# --- where a stack order may go, once its units are chosen -----------------------------------

DESTINATION_ORDERS = ("strategic", "retrograde", "withdraw", "place", "move")
"""The orders whose destination `destinations` lists, given their units (and for a move,
the path drawn so far)."""


def destinations(
    state: FeState, seat: Seat, order: str, units: tuple[str, ...], path: tuple[str, ...] = ()
) -> tuple[str, ...] | None:
    """The hexes an ``order`` moving ``units`` may name as its destination now, each one the
    step's own check accepts, sorted; None for an order with no such list. For a set-up
    ``place``, ``units`` is the one fleet (by name) or unit it places.

    A strategic move goes to one of the empire's strategic movement nodes (204.0, 756.21), a
    retrograde to one of its grid supply points (206.0), a withdrawal to a hex next to the
    battle (302.11), a fleet to one of its set-up hexes (600.0), so those are the only hexes
    tried: a few dozen checks, not the map's thousand. Units the order could not move at all
    give an empty list. For a ``move`` (3B2, 4B), the hexes next to the end of ``path`` (the
    hexes drawn so far, from the units' hex; empty: that hex alone) where a move along it
    may end, each one hex on: where the next Enter on the map leaves a legal move."""
    if order not in DESTINATION_ORDERS:
        return None
    step = flow.current(state)
    if step is None or order not in step.orders or not units:
        return ()
    if order == "place":
        return _setup_hexes(state, seat, units[0]) if len(units) == 1 else ()
    if order == "move":
        return _next_hexes(state, seat, units, path)
    board = state.board
    try:
        empire = board.unit(units[0]).empire
    except KeyError:
        return ()
    ids = list(units)
    tries: Iterable[Any]
    if order == "withdraw":
        record = combat.current(state)
        if record is None:
            return ()
        galaxy = base.galaxy()
        around = hexgrid.neighbours(record.hex, galaxy.width, galaxy.height)
        flagship = _staying_flagship(state, record.hex, units)
        tries = (WithdrawOrder(ids, base.hex_text(h), flagship) for h in around)
    else:
        grid = grid_of(state, empire)
        if order == "strategic":
            hexes: Iterable[int] = sorted(strategic.nodes(grid))
            tries = (StrategicOrder(ids, base.hex_text(h)) for h in hexes if h != OFF_MAP)
        else:
            hexes = retrograde.destinations(grid)
            tries = (RetrogradeOrder(ids, base.hex_text(h)) for h in hexes)
    return tuple(sorted(o.to for o in _accepted(state, seat, tries)))


MAX_PATH = 63
"""The longest path drawn so far that `destinations` extends: a move's path holds at most
64 hexes (`engine.fe.orders.HexPath`)."""


def _next_hexes(
    state: FeState, seat: Seat, units: tuple[str, ...], path: tuple[str, ...]
) -> tuple[str, ...]:
    """The hexes next to the end of ``path`` where a move of ``units`` along it may end."""
    try:
        start = state.board.unit(units[0]).hex
    except KeyError:
        return ()
    drawn = list(path) or [base.hex_text(start)]
    if len(drawn) > MAX_PATH or not all(_is_hex(h) for h in drawn) or int(drawn[0]) != start:
        return ()
    galaxy = base.galaxy()
    around = hexgrid.neighbours(int(drawn[-1]), galaxy.width, galaxy.height)
    tries = (MoveOrder(list(units), [*drawn, base.hex_text(h)]) for h in around)
    return tuple(sorted(o.path[-1] for o in _accepted(state, seat, tries)))


def _is_hex(text: str) -> bool:
    return len(text) == 4 and text.isdigit() and base.on_map(int(text))


def _setup_hexes(state: FeState, seat: Seat, placed: str) -> tuple[str, ...]:
    """The set-up hexes where the fleet named ``placed``, or else the unit of that id, may be
    placed now (600.0): its fleet's set-up hexes that the set-up check accepts (a hex limit
    may already be reached)."""
    setup = base.empire_setup(state, base.setup_empire(state))
    if setup is None:
        return ()
    fleet = next((f for f in setup.fleets if f.name == placed), None)
    if fleet is None:
        try:
            fleet_name = state.board.unit(placed).fleet
        except KeyError:
            return ()
        fleet = next((f for f in setup.fleets if f.name == fleet_name), None)
        if fleet is None:
            return ()
        tries = (Place(base.hex_text(h), unit=placed) for h in fleet.hexes)
    else:
        tries = (Place(base.hex_text(h), fleet=placed) for h in fleet.hexes)
    return tuple(sorted({o.hex for o in _accepted(state, seat, tries)}))


def _staying_flagship(state: FeState, h: int, leaving: tuple[str, ...]) -> str:
    """The first unit that may command the defender's units staying in the battle hex
    ``h`` (302.133, 302.32): the flagship a withdrawal must name, "" when none can."""
    gone = set(leaving)
    staying = combat_approach.units_of(state, combat_approach.defender(state), h)
    eligible = forces.eligible_flagships([u for u in staying if u.id not in gone])
    return eligible[0] if eligible else ""
