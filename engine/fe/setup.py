"""Set-up: every empire places its starting fleets within their set-up hexes, in order.

The scenario's order of battle (`engine.fe.oob`) says which units each fleet holds and where
it may set up; `starting_units` turns it into counters with stable ids, all still off the
map. Each empire then places its fleets in the scenario's set-up order (The Wind: LYR, KZI,
KLI, FED, HYD), so later empires see where earlier ones stand. A fleet with no set-up hexes
starts off the map and is not placed; so does a fleet the order of battle has arrive by
strategic movement at a later date (``Fleet.arrives``: the Kzinti Baron's Fleet, whose one
hex, the capital, is where it arrives, `engine.fe.reinforcements`). Refusals name the unit,
the hex and the rule:
"KLI-0003 (D7, Home Fleet) may not set up in 1607: its set-up hexes are 1411, 1412 (601)".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import msgspec

from engine.core.ruleset import Violation
from engine.fe.forces import OFF_MAP, Board, Unit
from engine.fe.galaxy import HexId
from engine.fe.oob import EmpireSetup, Fleet, ScenarioSetup

SETUP_RULE = "600.0"
"""Scenario set-up (the 600 series); a scenario may name its own number instead."""


class Placement(msgspec.Struct, frozen=True):
    """Put a unit (or every unit of a fleet still off the map) in a hex."""

    hex: HexId
    unit: str = ""
    fleet: str = ""


def starting_units(setup: ScenarioSetup) -> tuple[Unit, ...]:
    """Every starting unit of every empire, off the map, with ids ``EMP-NNNN`` in data order."""
    units: list[Unit] = []
    for empire in setup.empires:
        serial = 0
        for fleet in empire.fleets:
            for entry in fleet.units:
                for _ in range(entry.count):
                    serial += 1
                    units.append(Unit(f"{empire.empire}-{serial:04d}", empire.empire, entry.unit,
                                      OFF_MAP, fleet=fleet.name))  # fmt: skip
    return tuple(sorted(units, key=lambda u: u.id))


def _fleet(setup: EmpireSetup, name: str) -> Fleet | None:
    return next((f for f in setup.fleets if f.name == name), None)


def placeable(fleet: Fleet) -> bool:
    """Whether the fleet sets up on the map: it has set-up hexes and does not arrive later."""
    return bool(fleet.hexes) and fleet.arrives is None


def to_place(board: Board, setup: EmpireSetup) -> tuple[Unit, ...]:
    """The empire's units that still wait to be set up (fleets that set up on the map)."""
    names = {f.name for f in setup.fleets if placeable(f)}
    return tuple(
        u for u in board.at(OFF_MAP)  # the units off the map, in the board's order
        if u.empire == setup.empire and u.hex == OFF_MAP and u.fleet in names
    )  # fmt: skip


def _off_map(fleet: Fleet) -> str:
    if fleet.arrives is None:
        return "starts off the map"
    when = f"{fleet.arrives.season.capitalize()} Y{fleet.arrives.year}"
    return f"starts off the map: the fleet arrives by strategic movement in {when}"


def _expand(board: Board, setup: EmpireSetup, placement: Placement) -> list[Unit] | str:
    if bool(placement.unit) == bool(placement.fleet):
        return "a placement names either a unit or a fleet"
    if placement.unit:
        try:
            unit = board.unit(placement.unit)
        except KeyError:
            return board.no_unit(placement.unit)
        if unit.empire != setup.empire:
            return f"{unit.id} is not a unit of {setup.empire}"
        if unit.hex != OFF_MAP:
            return f"{unit.id} is already set up in {unit.hex:04d}"
        return [unit]
    fleet = _fleet(setup, placement.fleet)
    if fleet is None:
        return _no_such_fleet(setup, placement.fleet)
    if not placeable(fleet):
        return f"{fleet.name} {_off_map(fleet)}"
    waiting = [u for u in to_place(board, setup) if u.fleet == placement.fleet]
    if not waiting:
        return f"every unit of {placement.fleet} is already set up"
    return waiting


def _no_such_fleet(setup: EmpireSetup, name: str) -> str:
    """The refusal of a fleet name the empire does not have, with the name meant when only
    its letters' case differs (names are matched exactly: they are signed as written), or
    else the fleets that set up on the map. From the scenario's fleets alone, not the board:
    a hostile packet of thousands of such placements costs no reading of the board each."""
    said = f"{setup.empire} has no fleet {name!r}"
    meant = [f.name for f in setup.fleets if f.name.casefold() == name.strip().casefold()]
    if meant:
        return f"{said}: a fleet's name is written as the scenario writes it, {meant[0]!r}"
    fleets = sorted(repr(fleet.name) for fleet in setup.fleets if placeable(fleet))
    if not fleets:
        return said
    more = f" and {len(fleets) - 6} more" if len(fleets) > 6 else ""
    return f"{said}; its fleets that set up on the map are {', '.join(fleets[:6])}{more}"


def check_placements(
    board: Board, setup: EmpireSetup, placements: Sequence[Placement], rule: str = SETUP_RULE
) -> list[Violation]:
    """Why these placements are illegal for ``setup.empire`` (empty when they are legal)."""
    problems: list[Violation] = []
    limited = any(fleet.hex_limits for fleet in setup.fleets)
    moved: dict[str, Unit] = {}
    for number, placement in enumerate(placements, start=1):
        units = _expand(board, setup, placement)
        if isinstance(units, str):
            problems.append(Violation(units, rule))
            continue
        for unit in units:
            fleet = _fleet(setup, unit.fleet)
            allowed = fleet.hexes if fleet is not None else ()
            if fleet is None or not placeable(fleet):
                where = _off_map(fleet) if fleet is not None else "starts off the map"
                named = f"{unit.cls}, {unit.fleet}" if unit.fleet else unit.cls
                problems.append(Violation(f"{unit.id} ({named}) {where}", rule))
                break
            if placement.hex not in allowed:
                shown = ", ".join(f"{h:04d}" for h in allowed[:8])
                more = f" and {len(allowed) - 8} more" if len(allowed) > 8 else ""
                who = unit.fleet if placement.fleet else f"{unit.id} ({unit.cls}, {unit.fleet})"
                problems.append(
                    Violation(
                        f"{who} may not set up in {placement.hex:04d}: "
                        f"its set-up hexes are {shown}{more}",
                        rule,
                    )
                )
                break  # one refusal per placement is enough
        if problems:
            continue
        if number < len(placements):  # the board after it is read by a later placement
            board = apply_placements(board, setup, [placement])
        elif limited:  # the limits read the last one's units where they would stand
            moved = {u.id: msgspec.structs.replace(u, hex=placement.hex) for u in units}
    problems.extend(_over_limits(board, setup, rule, moved))
    return problems


def _over_limits(
    board: Board, setup: EmpireSetup, rule: str, moved: Mapping[str, Unit]
) -> list[Violation]:
    """The hex limits broken on ``board`` with the ``moved`` units (by id) in their new hex:
    counted so, the check of a placement makes no board of its own (`apply_placements`)."""
    problems = []
    for fleet in setup.fleets:
        for limit in fleet.hex_limits:
            # The hex's own units (the board's index), not the whole board.
            here = [u for u in board.at(limit.hex) if u.id not in moved]
            here += [u for u in moved.values() if u.hex == limit.hex]
            count = sum(
                1 for u in here
                if u.empire == setup.empire and u.fleet == fleet.name and u.hex == limit.hex
            )  # fmt: skip
            if count > limit.max_units:
                problems.append(
                    Violation(
                        f"{fleet.name} has {count} units in {limit.hex:04d}, "
                        f"at most {limit.max_units}",
                        rule,
                    )
                )
    return problems


def apply_placements(board: Board, setup: EmpireSetup, placements: Sequence[Placement]) -> Board:
    """Place the units (call after `check_placements` found nothing wrong)."""
    for placement in placements:
        board = board.with_units(placed_units(board, setup, placement))
    return board


def placed_units(board: Board, setup: EmpireSetup, placement: Placement) -> list[Unit]:
    """The units one placement puts on the map, in their new hex (ValueError if it names
    none): what `apply_placements` changes, for a caller that changes a state's units itself
    (`engine.fe.model.FeState.with_units`)."""
    units = _expand(board, setup, placement)
    if isinstance(units, str):
        raise ValueError(units)
    return [msgspec.structs.replace(u, hex=placement.hex) for u in units]
