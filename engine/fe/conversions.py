"""Conversions (433.0): which table conversion turns a unit into another class, how many an
empire may make where this turn, and why one order may not be made.

Split from `engine.fe.production` (which checks a turn's whole production and re-exports
these names) so that each module keeps to one job and under the size limit.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from engine.fe.forces import OFF_MAP, Board, Unit
from engine.fe.galaxy import Galaxy, HexId
from engine.fe.oob import date_turn
from engine.fe.repair import STARBASES, kind
from engine.fe.scenario import turn_label
from engine.fe.units import Conversion, UnitClass, load_units

if TYPE_CHECKING:
    from engine.fe.production import Convert

MINOR_CONVERSION2 = 6
"""A conversion costing at most this (3 EP, before fighters) is minor (433.1)."""
EXTRA_MAJOR2 = 10
"""An extra major conversion at the capital costs 5 EP (433.16, fixed costs)."""
MAJOR_CONVERSIONS: Mapping[str, int] = {"FED": 2, "KLI": 2}
"""Major conversions per turn at the capital (433.15); 1 for every other empire."""
SECOND_MAJOR_HEX: Mapping[str, HexId] = {"ROM": 4514}
"""Where an empire's second major conversion happens when not at its capital (433.15)."""


def class_named(empire: str, cls: str) -> UnitClass | str:
    found = load_units().find(empire, cls)
    if found is not None:
        return found
    other = load_units().other(empire, cls)
    if other is not None and other.kind == "hull":
        return f"{cls} is a production slot, not a class: build a class that fills it"
    return f"{empire} has no unit class {cls!r}"


def primary_capital(galaxy: Galaxy, empire: str) -> HexId | None:
    """The capital hex with the empire's capital planet (its main shipyard), if any."""
    capitals = galaxy.capitals_of(empire)
    for capital in capitals:
        if any(p.capital for s in capital.systems for p in s.planets):
            return capital.hex
    return capitals[0].hex if capitals else None


def conversion_for(empire: str, unit: Unit, to: str) -> Conversion | str:
    """The table's conversion of ``unit`` into ``to``, or why there is none to automate."""
    info = class_named(empire, to)
    if isinstance(info, str):
        return info
    if info.move == 0 and not info.pod:
        return f"{to} is a base: base upgrades need a tug (433.41) and stay manual"
    for conv in info.conversions:
        if unit.cls not in conv.source:
            continue
        if conv.empire or conv.count != 1 or conv.plus:
            return f"converting {unit.cls} into {to} takes other units: it stays manual"
        if conv.cost2 is None:
            rules = ", ".join(info.rules) or "433.0"
            return f"the cost of {unit.cls} into {to} is set by a rule ({rules}): manual"
        return conv
    return f"{unit.cls} cannot be converted into {to}"


def conversion_capacity(
    galaxy: Galaxy, board: Board, empire: str, hex: HexId, *, extra_major: bool = False
) -> tuple[int, int]:
    """(major, minor) conversions the empire may make in ``hex`` this turn (433.1x, I).

    Minor: one per uncrippled starbase of the empire there. Major: at the capital while it is
    held (433.15), plus the bought extra one (433.16); the Romulans' second at Remus needs
    its starbase.
    """
    starbases = sum(
        1
        for u in board.at(hex)
        if u.empire == empire and not u.crippled and kind(u.cls) in STARBASES
    )
    major = 0
    if board.owner(galaxy, hex) == empire:
        if hex == primary_capital(galaxy, empire):
            second_elsewhere = empire in SECOND_MAJOR_HEX
            major = 1 if second_elsewhere else MAJOR_CONVERSIONS.get(empire, 1)
            major += 1 if extra_major and not second_elsewhere else 0
        elif SECOND_MAJOR_HEX.get(empire) == hex and starbases:
            major = 1
    return major, starbases


def conversion_problem(
    empire: str, turn: int, board: Board, order: Convert, seen: set[str]
) -> tuple[Unit, int, bool] | str:
    try:
        unit = board.unit(order.unit)
    except KeyError:
        return board.no_unit(order.unit)
    if unit.empire != empire:
        return f"{unit.id} is not a unit of {empire}"
    if unit.id in seen:
        return f"{unit.id} is converted twice"
    if unit.hex == OFF_MAP:
        return f"{unit.id} ({unit.cls}) is not on the map"
    if unit.crippled:
        return f"{unit.id} ({unit.cls}) is crippled: repair it before converting (433.44)"
    conv = conversion_for(empire, unit, order.to)
    if isinstance(conv, str):
        return conv
    target = load_units().find(empire, order.to)
    if target is not None and date_turn(target.available) > turn:
        return f"{order.to} is not in service before {turn_label(date_turn(target.available))}"
    assert conv.cost2 is not None  # conversion_for refuses the others
    return unit, conv.cost2 + conv.fighter_cost2, conv.cost2 > MINOR_CONVERSION2
