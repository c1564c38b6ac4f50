"""Ready-made menu lines for F&E's build and convert orders (the face's `Preset`s).

A player building at 2B3 wants the list of what the production schedule allows this turn and
what may substitute for each slot; one converting wants, for each of its units, the classes
the unit tables let it become. Each line is one the engine's own check accepts now (the
build's hex aside, which the form asks for), so a menu never offers what would be refused;
the engine checks every order sent anyway. Pure, and computed only while a step takes those
orders.
"""

from __future__ import annotations

from engine.core.face import Preset
from engine.core.ruleset import Seat
from engine.fe import choice_lists
from engine.fe.conversions import conversion_capacity
from engine.fe.forces import OFF_MAP
from engine.fe.model import FeState
from engine.fe.orders import ConvertOrder
from engine.fe.steps import base
from engine.fe.steps.base import empires_of
from engine.fe.steps.shipyard import convert_problems
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
