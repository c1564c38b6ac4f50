"""Phase 2A (repair at bases, 420.x) and Phase 7 (field repair, 422.0) as pure functions.

A crippled ship in a hex with the empire's repair facilities is flipped back to its full side
for repair points that the hex's facilities supply and EP that the treasury pays:

- repair capacity per turn (420.42 and the play aids' non-base table): starbase 16, sector base
  6, battle station 4, base station 2, mobile base 0, FRD 12, planetary repair dock 12, and
  the X versions; in the field, a repair ship 8 and a tug on the repair mission 8 (422.0,
  509.1-E). Capacity is pooled per hex: every facility of the empire there adds up;
- cost: 0.5 EP per repair point at a base or FRD, 1 EP per point as field repair (fixed costs);
- points to repair one ship: not in the summary (marked C in the rules notes). The option
  ``repair-points`` chooses: ``"defense"`` (default: the uncrippled defense factor) or
  ``"difference"`` (uncrippled minus crippled defense); half factors round up to a whole point.

Facilities are units on the board (a base is a counter with a class such as ``"SB"``); the
map's starting bases count once the set-up puts them on the board as units. A crippled
facility repairs nothing unless the option ``crippled-facilities-repair`` says otherwise (C).
Only ships of the same empire are repaired (420.434, 422.22); bases themselves are repaired
by SIDS steps (420.6), which stay manual.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import msgspec

from engine.core.ruleset import OptionSpec, OptionValue, Violation
from engine.fe.economics import fmt_ep
from engine.fe.forces import OFF_MAP, Board, Unit
from engine.fe.galaxy import Galaxy, HexId

BASE_REPAIR: Mapping[str, int] = {
    "SB": 16, "SBX": 24, "SFB": 24,
    "STB": 6, "STX": 9,
    "BATS": 4, "BTX": 6,
    "BS": 2, "BSX": 4,
    "MB": 0, "OB": 2,
    "FRD": 12, "FRX": 18, "PRD": 12, "LTF": 24,
}  # fmt: skip
"""Repair points per turn at bases and docks (420.42; non-base repair capacity). ``SF`` is
not here: in the unit tables it is the Kzinti scout frigate, a ship that moves 6."""

FIELD_REPAIR: Mapping[str, int] = {"REPR": 8, "HDWF": 4, "LTF": 12}
"""Field repair points per turn (422.0); a tug on the repair mission adds `REPAIR_TUG`."""

REPAIR_TUG = 8
STARBASES = ("SB", "SBX", "SFB")
"""Base kinds that count as starbases (conversions, 433.1)."""

REPAIR_POINTS = "repair-points"
CRIPPLED_FACILITIES = "crippled-facilities-repair"

BASE_RULE = "420.42"
FIELD_RULE = "422.0"
BASE_COST_RULE = "420.2"

OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        REPAIR_POINTS,
        "defense",
        "Repair points to repair a crippled ship: 'defense' (its uncrippled defense factor) "
        "or 'difference' (uncrippled minus crippled defense)",
        "420.0",
        choices=("defense", "difference"),
    ),
    OptionSpec(CRIPPLED_FACILITIES, False, "Crippled bases and docks still repair ships", "420.42"),
)
"""The rule options this module reads (house-rule defaults until checked against a rulebook)."""


class RepairOptions(msgspec.Struct, frozen=True):
    points: str = "defense"
    crippled_facilities: bool = False


def repair_options(values: Mapping[str, OptionValue]) -> RepairOptions:
    """The options from a game's chosen values (absent ones take their defaults)."""
    points = values.get(REPAIR_POINTS, "defense")
    return RepairOptions(
        points=points if points in ("defense", "difference") else "defense",
        crippled_facilities=values.get(CRIPPLED_FACILITIES, False) is True,
    )


class Repair(msgspec.Struct, frozen=True):
    """Repair this crippled unit where it stands."""

    unit: str


class Repaired(msgspec.Struct, frozen=True):
    """The board after the repairs, what they cost and what is left in the treasury."""

    board: Board
    cost2: int
    treasury2: int


def kind(cls: str) -> str:
    """The base kind a class id names: ``"SBv.2"`` -> ``"SB"``, ``"MB (ND)"`` -> ``"MB"``."""
    name = cls.split(" ", maxsplit=1)[0]
    return name.removesuffix("v.2")


def facility_points(unit: Unit, *, field: bool = False, repair_tug: bool = False) -> int:
    """Repair points per turn this one unit supplies (crippled or not: see the option)."""
    if field:
        return REPAIR_TUG if repair_tug else FIELD_REPAIR.get(kind(unit.cls), 0)
    return BASE_REPAIR.get(kind(unit.cls), 0)


def repair_capacity(
    galaxy: Galaxy,
    board: Board,
    empire: str,
    hex: HexId,
    *,
    field: bool = False,
    repair_tugs: Sequence[str] = (),
    options: RepairOptions | None = None,
) -> int:
    """Repair points per turn the empire's facilities in ``hex`` supply (420.42 / 422.0).

    ``field`` selects field repair (Phase 7: repair ships and ``repair_tugs``, the ids of
    tugs assigned the repair mission, 422.8) instead of repair at bases and docks (Phase 2A).
    """
    options = options or RepairOptions()
    galaxy.hex(hex)  # ValueError off the map
    tugs = set(repair_tugs)
    total = 0
    for unit in board.at(hex):
        if unit.empire != empire or (unit.crippled and not options.crippled_facilities):
            continue
        total += facility_points(unit, field=field, repair_tug=field and unit.id in tugs)
    return total


def repair_points(unit: Unit, options: RepairOptions | None = None) -> int:
    """Repair points to flip this crippled unit back (option ``repair-points``, C)."""
    options = options or RepairOptions()
    info = unit.info()
    need2 = info.full.def2
    if options.points == "difference" and info.crippled is not None:
        need2 -= info.crippled.def2
    return (max(need2, 0) + 1) // 2


def repair_cost2(points: int, *, field: bool = False) -> int:
    """EP in halves for ``points`` repair points: 0.5 EP each at a base, 1 EP in the field."""
    return 2 * points if field else points


def _problem(board: Board, empire: str, order: Repair, seen: set[str]) -> str:
    try:
        unit = board.unit(order.unit)
    except KeyError:
        return board.no_unit(order.unit)
    if unit.empire != empire:
        return f"{unit.id} is not a unit of {empire}: only an empire's own ships are repaired"
    if unit.id in seen:
        return f"{unit.id} is repaired twice"
    if not unit.crippled:
        return f"{unit.id} ({unit.cls}) is not crippled"
    if unit.hex == OFF_MAP:
        return f"{unit.id} ({unit.cls}) is not on the map"
    if unit.info().move == 0:
        return f"{unit.id} ({unit.cls}) is a base: bases are repaired by SIDS steps (420.6)"
    return ""


def check_repairs(
    galaxy: Galaxy,
    board: Board,
    empire: str,
    treasury2: int,
    repairs: Sequence[Repair],
    *,
    field: bool = False,
    repair_tugs: Sequence[str] = (),
    unsupplied: Sequence[HexId] = (),
    options: RepairOptions | None = None,
) -> list[Violation]:
    """Why these repairs are illegal (empty when they are legal).

    Refused: a unit that is not the empire's crippled ship on the map; a hex whose repairs
    need more points than its facilities supply ("repairs at 1411 need 20 points, capacity
    16"); a hex in ``unsupplied`` (cut off from supply, 410.23); repairs costing more than the
    treasury. Hexes are checked in id order so the refusals read the same everywhere.
    """
    options = options or RepairOptions()
    rule = FIELD_RULE if field else BASE_RULE
    problems: list[Violation] = []
    seen: set[str] = set()
    need: dict[HexId, int] = {}
    for order in repairs:
        problem = _problem(board, empire, order, seen)
        if problem:
            problems.append(Violation(problem, rule))
            continue
        seen.add(order.unit)
        unit = board.unit(order.unit)
        need[unit.hex] = need.get(unit.hex, 0) + repair_points(unit, options)
    cut_off = set(unsupplied)
    for h in sorted(need):
        if h in cut_off:
            problems.append(Violation(f"{h:04d} is out of supply: no repairs there", "410.23"))
            continue
        capacity = repair_capacity(
            galaxy, board, empire, h, field=field, repair_tugs=repair_tugs, options=options
        )
        if need[h] > capacity:
            problems.append(
                Violation(f"repairs at {h:04d} need {need[h]} points, capacity {capacity}", rule)
            )
    cost2 = repair_cost2(sum(need.values()), field=field)
    if cost2 > treasury2:
        problems.append(
            Violation(
                f"repairs cost {fmt_ep(cost2)} EP, treasury {fmt_ep(treasury2)} EP",
                FIELD_RULE if field else BASE_COST_RULE,
            )
        )
    return problems


def apply_repairs(
    galaxy: Galaxy,
    board: Board,
    empire: str,
    treasury2: int,
    repairs: Sequence[Repair],
    *,
    field: bool = False,
    options: RepairOptions | None = None,
) -> Repaired:
    """Flip the repaired units to their full side (420.52) and pay for the points.

    Call only after `check_repairs` found nothing wrong; a bad order raises ValueError.
    """
    del galaxy  # the same arguments as check_repairs; capacity was checked there
    options = options or RepairOptions()
    points = 0
    fixed: list[Unit] = []
    seen: set[str] = set()
    for order in repairs:
        problem = _problem(board, empire, order, seen)
        if problem:
            raise ValueError(problem)
        seen.add(order.unit)
        unit = board.unit(order.unit)
        points += repair_points(unit, options)
        fixed.append(msgspec.structs.replace(unit, crippled=False))
    cost2 = repair_cost2(points, field=field)
    return Repaired(board.with_units(fixed), cost2, treasury2 - cost2)
