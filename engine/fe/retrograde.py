"""Retrograde movement (Phase 6, 206.0): after combat, ships fall back to a supply point.

Check, then apply: `check_retrograde` lists every reason a `RetrogradeMove` is refused (each
`Violation` names its rule and gives the numbers), `apply_retrograde` carries out one that
checked clean. Not wired into the game flow yet: step 6D2 will call them for the phasing
player's orders, with the grid of step 6A (`supply_grid`, 410.24).

The procedure, as inferred from the sequence of play, the play aid's blocking table and the
published Q&A (each point marked S sourced, I inferred, C a choice for a game option):

1. S (105.0, 6D2): the phasing player retrogrades his own units, some, all or none of them.
   A move names a stack in one hex and the hex it retrogrades to; the engine finds the path.
2. I (206.0): only units in a hex where combat took place this player turn may retrograde.
   The flow does not record battle hexes yet: the caller passes ``battle_hexes``, and None
   (the default, until combat is wired) checks nothing.
3. I (206.0, the table's "N/A" row): a unit whose hex still holds enemy units is pinned and
   may not retrograde. I: each unit retrogrades at most once per phase (``already``).
4. S (600.3): units of a starting fleet that is not released do not move.
5. I (206.0): the destination is a hex holding one of the empire's grid supply points
   (capital, base, planet; main or partial grid), other than the start. Supply tugs are not
   grid points (509.1-D) and the off-map area is not reachable by retrograde here (207.2).
   C: FRDs as destinations (for repair) are left out.
6. S (203.1, 549.21): the allowance is the unit's movement (6 for warships, 3 for
   auxiliaries), the stack's smallest. S (410.31, F&E Q&A June 2007): a unit out of supply at
   the retrograde supply check (410.24) moves half of it, rounded down (I: down).
7. S (table, 206.0): the path may not enter a hex that blocks retrograde, destination
   included. S (F&E Q&A October 2007): the retrograding units open only the six hexes around
   their starting hex; beyond, the path must be open without them. Since the units sit in
   the starting hex, judging every hex on the board as it stands gives exactly that.
8. I: a path exists within the allowance; the shortest one is taken (breadth-first search,
   neighbours in their fixed clockwise order, so both players' engines agree).
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from engine.core import hexgrid
from engine.core.ruleset import Violation
from engine.fe.blocking import Blocking
from engine.fe.forces import OFF_MAP, Board, Unit
from engine.fe.galaxy import Galaxy, HexId
from engine.fe.supply import SupplyGrid
from engine.fe.unit_kinds import movement_points

RETROGRADE_RULE = "206.0"
OWN_UNITS_RULE = "105.0"
RELEASE_RULE = "600.3"
HALF_MOVE_RULE = "410.31"


class RetrogradeMove(msgspec.Struct, frozen=True):
    """A stack in one hex retrograding to the hex ``to`` (a supply point of its empire)."""

    unit_ids: tuple[str, ...]
    to: HexId


def retrograde_allowance(grid: SupplyGrid, unit: Unit) -> int:
    """Hexes the unit may retrograde: its movement (203.1), halved rounded down when out of
    supply at the retrograde supply check (410.31, 410.24)."""
    points = movement_points(unit)
    return points // 2 if grid.status(unit.hex) == "none" else points


def destinations(grid: SupplyGrid) -> tuple[HexId, ...]:
    """The hexes a retrograde may end in: the grid supply points on the map, sorted."""
    return tuple(h for h in grid.point_hexes() if h != OFF_MAP)


def retrograde_path(
    galaxy: Galaxy,
    board: Board,
    empire: str,
    start: HexId,
    to: HexId,
    limit: int | None = None,
) -> tuple[HexId, ...] | None:
    """The shortest path from ``start`` to ``to`` entering no hex that blocks retrograde,
    at most ``limit`` hexes long (None: any length); None when there is none."""
    blocked = Blocking(galaxy, board, empire, "retrograde")
    return hexgrid.path(
        start, to, galaxy.width, galaxy.height, lambda h: not blocked(h), max_steps=limit
    )


def _units(board: Board, empire: str, move: RetrogradeMove) -> tuple[list[Unit], list[Violation]]:
    out: list[Violation] = []
    units: list[Unit] = []
    if not move.unit_ids:
        out.append(Violation("a retrograde needs at least one unit", RETROGRADE_RULE))
    if len(set(move.unit_ids)) < len(move.unit_ids):
        out.append(Violation("a unit is named twice in one retrograde", RETROGRADE_RULE))
    for unit_id in sorted(set(move.unit_ids)):
        try:
            unit = board.unit(unit_id)
        except KeyError:
            out.append(Violation(board.no_unit(unit_id), RETROGRADE_RULE))
            continue
        if unit.empire != empire:
            text = f"{unit_id} is {unit.empire}'s: {empire} retrogrades only its own units"
            out.append(Violation(text, OWN_UNITS_RULE))
        elif unit.hex == OFF_MAP:
            out.append(Violation(f"{unit_id} is not on the map", RETROGRADE_RULE))
        else:
            units.append(unit)
    return units, out


def check_retrograde(
    galaxy: Galaxy,
    board: Board,
    grid: SupplyGrid,
    empire: str,
    move: RetrogradeMove,
    *,
    battle_hexes: Sequence[HexId] | None = None,
    already: Sequence[str] = (),
) -> list[Violation]:
    """Why ``empire`` may not make this retrograde now (empty when it may).

    ``grid`` is the empire's supply grid of step 6A; ``battle_hexes`` the hexes where combat
    took place this player turn (None: not checked); ``already`` the units that retrograded
    earlier in this phase. See the module notes for the procedure.
    """
    if grid.empire != empire:
        return [Violation(f"the supply grid given is {grid.empire}'s, not {empire}'s", "410.24")]
    units, out = _units(board, empire, move)
    if out or not units:
        return out
    starts = sorted({u.hex for u in units})
    if len(starts) > 1:
        where = ", ".join(f"{h:04d}" for h in starts)
        return [
            Violation(f"a retrograde stack must start in one hex, not {where}", RETROGRADE_RULE)
        ]
    start = starts[0]
    for unit in units:
        out.extend(_unit_problems(board, unit, already))
    if battle_hexes is not None and start not in battle_hexes:
        text = f"no combat took place in {start:04d} this turn: its units may not retrograde"
        out.append(Violation(text, RETROGRADE_RULE))
    if any(board.enemies(empire, u.empire) for u in board.at(start)):
        text = f"{start:04d} still holds enemy units: units there are pinned and may not retrograde"
        out.append(Violation(text, RETROGRADE_RULE))
    if move.to == start:
        out.append(Violation(f"the retrograde must leave {start:04d}", RETROGRADE_RULE))
    elif move.to not in destinations(grid):
        text = f"{move.to:04d} holds no {empire} supply point: a retrograde ends at one"
        out.append(Violation(text, RETROGRADE_RULE))
    if out:
        return out
    return _path_problems(galaxy, board, grid, empire, units, start, move.to)


def _unit_problems(board: Board, unit: Unit, already: Sequence[str]) -> list[Violation]:
    out: list[Violation] = []
    if unit.id in already:
        text = f"{unit.id} has already retrograded this phase"
        out.append(Violation(text, RETROGRADE_RULE))
    if not board.is_released(unit):
        text = f"{unit.id} ({unit.cls}) belongs to {unit.fleet}, which is not released"
        out.append(Violation(text, RELEASE_RULE))
    if movement_points(unit) == 0:
        text = f"{unit.id} ({unit.cls}) cannot move by itself"
        out.append(Violation(text, "203.1"))
    return out


def _path_problems(
    galaxy: Galaxy,
    board: Board,
    grid: SupplyGrid,
    empire: str,
    units: list[Unit],
    start: HexId,
    to: HexId,
) -> list[Violation]:
    slowest = min(units, key=lambda u: (retrograde_allowance(grid, u), u.id))
    limit = retrograde_allowance(grid, slowest)
    if retrograde_path(galaxy, board, empire, start, to, limit) is not None:
        return []
    full = movement_points(slowest)
    why = (
        f"{slowest.id} is out of supply and moves half its {full} hexes ({HALF_MOVE_RULE})"
        if limit < full
        else f"{slowest.id} may retrograde at most {limit} hexes"
    )
    unlimited = retrograde_path(galaxy, board, empire, start, to)
    if Blocking(galaxy, board, empire, "retrograde")(to):
        text = f"{to:04d} blocks retrograde (enemy units in or next to it)"
    elif unlimited is None:
        text = f"no path from {start:04d} to {to:04d} avoids the hexes that block retrograde"
    else:
        steps = len(unlimited) - 1
        distance = hexgrid.distance(start, to)
        around = "" if steps == distance else " around the hexes that block retrograde"
        text = f"{to:04d} is {steps} hexes from {start:04d}{around}; {why}"
    return [Violation(text, RETROGRADE_RULE)]


def apply_retrograde(board: Board, move: RetrogradeMove) -> Board:
    """Carry out a retrograde that checked clean: its units are now in ``move.to``."""
    moved = [msgspec.structs.replace(board.unit(i), hex=move.to) for i in move.unit_ids]
    return board.with_units(moved)
