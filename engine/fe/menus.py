"""Ready-made menu lines for F&E's build and convert orders (the face's `Preset`s).

A player building at 2B3 wants the list of what the production schedule allows this turn and
what may substitute for each slot; one converting wants, for each of its units, the classes
the unit tables let it become. The engine prices and refuses every such order anyway; these
lists only spare the player the tables. Pure, and computed only while a step takes those
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
from engine.fe.production import build_terms, scheduled
from engine.fe.steps import base
from engine.fe.steps.base import empire_setup, empires_of
from engine.fe.steps.shipyard import convert_problems
from engine.fe.units import load_units


def build_presets(state: FeState, seat: Seat) -> tuple[Preset, ...]:
    """The classes ``seat``'s empires may build this turn: each scheduled slot, then the
    classes that may be built instead of it (431.0, 450.0), of those in service this turn
    with a price the tables set (what the engine checks of a build before its hex)."""
    tables = load_units()
    out: list[Preset] = []
    turn = state.turn
    for empire in empires_of(state, seat):
        setup = empire_setup(state, empire)
        slots = scheduled(setup.production if setup is not None else (), turn)
        for slot, count in slots.items():
            if tables.find(empire, slot) is not None and _buildable(empire, slot, "", turn):
                label = f"{empire} {slot} ({count} slot{'' if count == 1 else 's'})"
                out.append(Preset(label, (("empire", empire), ("cls", slot))))
            for unit in tables.empire_classes(empire):
                if unit.id == slot or not any(slot in s.instead_of for s in unit.substitutions):
                    continue
                if _buildable(empire, unit.id, slot, turn):
                    label = f"{empire} {unit.id} instead of {slot}"
                    values = (("empire", empire), ("cls", unit.id), ("instead_of", slot))
                    out.append(Preset(label, values))
    return tuple(out)


def _buildable(empire: str, cls: str, instead_of: str, turn: int) -> bool:
    """Whether the tables price ``cls`` (in the slot ``instead_of``, if given) and it is in
    service on ``turn``: the checks of a build that do not read its hex (431.0, 450.0)."""
    terms = build_terms(empire, cls, instead_of, turn)
    return not isinstance(terms.cost2, str) and terms.available <= turn


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
