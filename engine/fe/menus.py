"""Menus for F&E's orders: ready-made lines (the face's `Preset`s) and the values a parameter
may take now (a `Param`'s options), for builds, conversions, set-up fleets, captures,
declarations of war, retreats, repairs and supply missions. (Where a stack order may go once
its units are chosen is `engine.fe.destinations`'.)

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
from engine.core.ruleset import Seat, Violation
from engine.core.text import counted
from engine.fe import choice_lists, flow, planets
from engine.fe.conversions import conversion_capacity
from engine.fe.forces import OFF_MAP
from engine.fe.model import FeState
from engine.fe.orders import (
    Adjust,
    CaptureOrder,
    ConvertOrder,
    DeclareWar,
    DirectOrder,
    MissionOrder,
    RepairOrder,
    RetreatOrder,
)
from engine.fe.steps import (
    adjust,
    base,
    combat,
    combat_capture,
    combat_retreat,
    order_area,
    planet_policy,
)
from engine.fe.steps.base import empires_of
from engine.fe.steps.shipyard import convert_problems
from engine.fe.units import load_units


def build_presets(state: FeState, seat: Seat) -> tuple[Preset, ...]:
    """The classes ``seat``'s empires may build now: each open slot of the schedule, then
    the classes that may be built instead of it (431.0, 450.0), each accepted by the build
    check at the empire's first site (`choice_lists.buildable`, as ``hexpost choices``
    lists them); the form asks for the hex where the empire has several sites."""
    out: list[Preset] = []
    for b in choice_lists.buildable(state, seat):
        price = choice_lists.build_price(state, b)
        if b.instead:
            label = f"{b.empire} {b.cls} instead of {b.slot} ({price})"
        else:
            label = f"{b.empire} {b.slot} ({counted(b.left, 'slot')}, {price})"
        out.append(Preset(label, choice_lists.build_values(b)))
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


def checked(
    state: FeState, seat: Seat, orders: Iterable[Any]
) -> Iterator[tuple[Any, list[Violation]]]:
    """Each of ``orders`` the current step takes, with what its area says of it from
    ``seat`` (as the engine's validation would, past whose turn it is): empty when legal.
    The menus here and `engine.fe.destinations` read orders through it."""
    step = flow.current(state)
    if step is None:
        return
    for order in orders:
        tag = order.__struct_config__.tag
        if tag in step.orders:
            yield order, order_area(step, tag).check(state, seat, step, order)


def _accepted(state: FeState, seat: Seat, orders: Iterable[Any]) -> Iterator[Any]:
    """Those of ``orders`` the current step accepts from ``seat``."""
    return (order for order, problems in checked(state, seat, orders) if not problems)


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


def planet_presets(state: FeState, seat: Seat) -> tuple[Preset, ...]:
    """Where a battle goes on only because the enemy's planet is left alone in the hex
    (`planet_policy.planet_alone`, a stalled battle from F&E 5.6), the two adjustments the
    engine's event names to end it (508.2): the planet captured by the seat's empire there,
    and devastated; each only if the engine accepts it now."""
    why = f"nothing defends it ({planets.CAPTURE_RULE})"
    offered = (
        planet_policy.planet_adjustment(state, seat, change, why)
        for change in planet_policy.CHANGES
    )
    step = flow.current(state)
    return tuple(
        Preset(_planet_label(order), _adjust_values(order))
        for order in offered
        if order is not None
        and step is not None
        and not adjust.AREA.check(state, seat, step, order)
    )


def _planet_label(order: Adjust) -> str:
    if order.change == "capture":
        return f"capture the planet in {order.hex} (nothing defends it, {planets.CAPTURE_RULE})"
    return f"devastate the planet in {order.hex} ({planets.CAPTURE_RULE})"


def _adjust_values(order: Adjust) -> tuple[tuple[str, str], ...]:
    named = (("change", order.change), ("hex", order.hex), ("empire", order.empire))
    return (*((k, v) for k, v in named if v), ("reason", order.reason))


_DIRECTED_WORDS = {"crippled": "cripple", "destroyed": "destroy", "sids": "a SIDS step"}


def direct_presets(state: FeState, seat: Seat) -> tuple[Preset, ...]:
    """Each directed damage order the seat's points buy now (302.5; a pursuit's at 5-8E,
    307.4), with its price: ``KZI-0002 BC: cripple for 16 of your 17 points``."""
    from engine.fe.combat.targets import points_text
    from engine.fe.steps import combat_directed, combat_pursuit, pursuit_round

    step = flow.current(state)
    in_pursuit = step is not None and step.id == pursuit_round.PURSUER_STEP
    rules_of = combat_pursuit if in_pursuit else combat_directed
    tries = (
        DirectOrder(uid, destroy)
        for uid in rules_of.target_ids(state, seat)
        for destroy in (False, True)
    )
    presets = []
    for order in tries:
        quoted = rules_of.quote(state, seat, order)  # None unless the step's own check passes
        if quoted is None:
            continue
        cost2, have2, outcome = quoted
        what = _DIRECTED_WORDS.get(outcome, outcome)
        label = (
            f"{order.unit} {state.board.unit(order.unit).cls}: {what} for "
            f"{points_text(cost2)} of your {points_text(have2)} points"
        )
        destroy = "yes" if order.destroy else "no"
        presets.append(Preset(label, (("unit", order.unit), ("destroy", destroy))))
    return tuple(presets)


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
