"""Supply (410.0) as the game sees it: each empire's grid on the current board.

The grids are computed from the board on demand and remembered for the last few boards
asked about (the board of one state is one object), so a view that asks for every unit's
status costs one grid per empire.

The supply checks of the sequence of play (1A2 and 5-3A for combat, 2A1 and 7A for repairs,
3B1 for operational movement, 6A for retrograde) are automatic steps: the engine works the
grids out and says, per empire, how many units are in the main grid, in a partial grid and
out of supply, naming the units out of supply so both players can see what the rules will
do with them. Each check also records, in ``FeState.supply_checks``, the units it found out
of supply, because the rules tie some effects to the status *at the check*, not to the board
of the moment: operational movement at half speed (410.31) follows the 3B1 check, and
supply for combat the two combat checks 1A2 and 5-3A (410.22). The other areas (retrograde,
strategic movement, reserves, replacements) read the grid of the moment they check an order.

Readings (marked as in ``fe-rules-notes.md``):

- S (105.0): the combat supply checks 1A2 and 5-3A are made for both sides; the others for
  the phasing player only.
- I: only units on the map are counted; a unit off the map is not set up yet, in an off-map
  area or gone, and the checks do not concern it.
- S (410.22; F&E Q&A September 2009: "two opportunities to be in supply for combat: one is
  in 1A, the other is in 5-3A"): a unit is in supply for combat when it was in supply at
  1A2 of this player turn or at the last 5-3A (`combat_supply`). I: a unit not on the map at
  a check (built or arrived later) is not listed as out of supply there; with no check made
  yet this player turn, the board of the moment decides.
- I: a unit in a partial grid is in supply for these effects (the grid's own limits, 413.x,
  are production's).
"""

from __future__ import annotations

from itertools import compress
from operator import attrgetter, countOf, itemgetter
from typing import NamedTuple

import msgspec

from engine.core import caches
from engine.core.ruleset import Actor, Event
from engine.fe import board_views, occupancy, provinces, supply
from engine.fe.forces import OFF_MAP, Board, Forces, Unit, units_by_hex
from engine.fe.galaxy import HexId
from engine.fe.model import FeState
from engine.fe.sequence import Step
from engine.fe.steps import base
from engine.fe.steps.base import Area
from engine.fe.steps.missions import missions_on

SUPPLY_RULE = "410.0"
COMBAT_CHECKS = ("1A2", "5-3A")
"""The two supply checks for combat (410.22): in supply at either, in supply to fight."""
ECONOMICS_PHASE = "1"
NAMED_OUT = 8
"""At most this many units out of supply are named in a check's text (all are in its data)."""
_BOTH = Actor.BOTH
"""Read off the enum once (a member read off its class goes through the enum's metaclass)."""


def grid_of(state: FeState, empire: str) -> supply.SupplyGrid:
    """One empire's supply grid on this state's board, computed once per board.

    States that differ only in bookkeeping share one `Board` object (`FeState.board`), so
    the grids carry over from step to step while no unit moves. They are kept one empire at
    a time, so a check of the phasing side's supply does not pay for the other side's grids.
    """
    return _grid(state.board, state.supply_tugs, empire)


@caches.by_identity(maxsize=16, identity=1)
def _grid(board: Board, supply_tugs: tuple[str, ...], empire: str) -> supply.SupplyGrid:
    """The grid on ``board`` (by identity) with these supply missions (by value)."""
    tugs = missions_on(board, supply_tugs, empire)
    return supply.supply_grid(base.galaxy(), board, empire, tugs)


def grid_on(state: FeState, board: Board, empire: str) -> supply.SupplyGrid:
    """One empire's grid on another ``board`` than the state's (a move tried out), with the
    state's supply missions; remembered like `grid_of`."""
    return _grid(board, state.supply_tugs, empire)


def grids(state: FeState) -> dict[str, supply.SupplyGrid]:
    """Every scenario empire's supply grid on this state's board, in the scenario's order."""
    return {e: grid_of(state, e) for e in base.all_empires(state)}


def unit_statuses(state: FeState) -> dict[str, supply.Status]:
    """Every unit's supply status (``main``, ``partial`` or ``none``), by unit id, in the
    board's order: each empire's status of a hex worked out once, for all its units there
    (a board has some 750 units in a few hundred stacks)."""
    galaxy = base.galaxy()
    by_empire = grids(state)
    out: dict[str, supply.Status] = {}
    known: dict[tuple[str, HexId], supply.Status] = {}
    for unit in state.board.units:
        grid = by_empire.get(unit.empire)
        if grid is None:
            continue
        status = known.get((unit.empire, unit.hex))
        if status is None:
            status = known[unit.empire, unit.hex] = supply.supply_of(galaxy, grid, unit)
        out[unit.id] = status
    return out


def status_of(state: FeState, unit: Unit) -> supply.Status:
    """One unit's supply status on this state's board (``none`` for a non-scenario empire)."""
    if unit.empire not in base.all_empires(state):
        return "none"
    return grid_of(state, unit.empire).status(unit.hex)


def _counts(state: FeState, empire: str) -> dict[supply.Status, tuple[Unit, ...]]:
    """The empire's units on the map by supply status, each in id order (not to be mutated).

    Read from the empire's own units tuple (`FeState.forces`), which stays the same object
    while none of its units changes, so a check repeated on an unchanged grid and army
    costs a look-up instead of a pass over every unit.
    """
    units = next((f.units for f in state.forces if f.empire == empire), ())
    return _by_status(units, grid_of(state, empire))


@caches.by_identity(maxsize=32)
def _by_status(
    units: tuple[Unit, ...], grid: supply.SupplyGrid
) -> dict[supply.Status, tuple[Unit, ...]]:
    """``units`` of the grid's empire on the map by status in ``grid``, in their order."""
    empire = grid.empire
    if set(map(_EMPIRE, units)) <= {empire}:  # an empire's own units: sorted in C
        # Each hex's status once, then each status's units picked out in their order.
        hexes = dict.fromkeys(map(_HEX, units))
        off_map = OFF_MAP in hexes
        if off_map:
            del hexes[OFF_MAP]
        of: dict[supply.Status, set[HexId]] = {"main": set(), "partial": set(), "none": set()}
        for h in hexes:
            of[grid.status(h)].add(h)
        if not of["partial"] and not of["none"]:  # the usual case: one pass at most
            main = (
                tuple(compress(units, map(OFF_MAP.__ne__, map(_HEX, units)))) if off_map else units
            )
            return {"main": main, "partial": (), "none": ()}
        return {
            status: tuple(compress(units, map(found.__contains__, map(_HEX, units))))
            if found
            else ()
            for status, found in of.items()
        }
    by_status: dict[supply.Status, list[Unit]] = {"main": [], "partial": [], "none": []}
    of_hex: dict[HexId, list[Unit]] = {}  # the list of each hex's status, looked up once
    for unit in units:
        if unit.empire == empire and unit.hex != OFF_MAP:
            found = of_hex.get(unit.hex)
            if found is None:
                found = of_hex[unit.hex] = by_status[grid.status(unit.hex)]
            found.append(unit)
    return {status: tuple(found) for status, found in by_status.items()}


_EMPIRE = attrgetter("empire")
_HEX = attrgetter("hex")
_ID = attrgetter("id")


class Check(NamedTuple):
    """What a supply check reports of one empire's units on the map: how many are in the
    main grid, and which are in a partial grid or out of supply (each in id order)."""

    main: int
    partial: tuple[Unit, ...]
    none: tuple[Unit, ...]


def _check(state: FeState, empire: str) -> Check:
    """`_counts` as a supply check reports it, at the cost of the hexes the empire holds and
    the units outside the main grid, not of every unit it has.

    The hexes holding its units are read from its own units tuple (`_held_hexes`: from the
    kinds of a freshly read board, else in C), those outside the main grid found by one set
    difference with the grid's main hexes (`engine.fe.provinces.main_hexes`, kept per
    grid), and only the units of those hexes are read (from the board's hex index, put in id
    order: an empire's units tuple is sorted by id, `engine.fe.forces.Forces`); the main
    grid's count is what is left of the units it has on the map (`_on_map`, kept per units
    tuple while none of them changes)."""
    units = next((f.units for f in state.forces if f.empire == empire), ())
    board = state.board
    grid = grid_of(state, empire)
    if caches.peek(board_views.kinds_of, units) is None and _one_empire_each(state.forces):
        return _checked_on_board(board, units, grid)
    return _checked(board, units, grid)


@caches.by_identity(maxsize=16)
def _checked(board: Board, units: tuple[Unit, ...], grid: supply.SupplyGrid) -> Check:
    """`_check` of the grid's empire, whose units tuple is ``units``, on ``board`` (all three
    by identity: the checks of one player turn ask again of an unchanged board)."""
    empire = grid.empire
    outside: dict[supply.Status, list[HexId]] = {"partial": [], "none": []}
    held = _held_hexes(units)
    for h in held - provinces.main_hexes(grid):
        outside[grid.status(h)].append(h)  # "partial" or "none": not in the main grid
    partial, none = (
        tuple(sorted((u for h in hexes for u in board.at(h) if u.empire == empire), key=_ID))
        for hexes in outside.values()
    )
    return Check(_on_map(units) - len(partial) - len(none), partial, none)


@caches.by_identity(maxsize=16)
def _checked_on_board(board: Board, units: tuple[Unit, ...], grid: supply.SupplyGrid) -> Check:
    """`_checked` where ``units`` are all the units of the grid's empire on ``board`` (each
    empire's tuple holds its units alone, `_one_empire_each`): the hexes it holds are read
    from the board's occupancy index (`engine.fe.occupancy.board_index`, carried from board
    to board as units move) and its units off the map from the board's hex index, so an
    army a move rebuilt is not read again unit by unit."""
    empire = grid.empire
    main = provinces.main_hexes(grid)
    outside: dict[supply.Status, list[HexId]] = {"partial": [], "none": []}
    for h, here in occupancy.board_index(base.galaxy(), board)[0].items():
        if empire in here and h not in main:  # (a hex of its map bases alone holds none)
            outside[grid.status(h)].append(h)
    partial, none = (
        tuple(sorted((u for h in hexes for u in board.at(h) if u.empire == empire), key=_ID))
        for hexes in outside.values()
    )
    off_map = countOf(map(_EMPIRE, board.at(OFF_MAP)), empire)
    return Check(len(units) - off_map - len(partial) - len(none), partial, none)


@caches.by_identity(maxsize=8)
def _one_empire_each(forces: tuple[Forces, ...]) -> bool:
    """Whether each empire's tuple holds its own units alone and no empire has two: then
    the board's units of an empire are its tuple. Read from the classes of each tuple when
    held (carried over moves, `board_views.unit_classes`) or its kinds, else in C."""
    if len({f.empire for f in forces}) != len(forces):
        return False
    for f in forces:
        classes = caches.peek(board_views.unit_classes, f.units)
        if classes is not None:
            sides = set(map(_FIRST, classes))
        else:
            kinds = caches.peek(board_views.kinds_of, f.units)
            sides = set(map(_SECOND, kinds)) if kinds is not None else set(map(_EMPIRE, f.units))
        if not sides <= {f.empire}:
            return False
    return True


@caches.by_identity(maxsize=16)
def _held_hexes(units: tuple[Unit, ...]) -> frozenset[HexId]:
    """The hexes on the map where ``units`` stand: from their kinds when the board's first
    reading holds them (`board_views.kinds_of`: a few hundred kinds, however many units),
    else from the units (in C). Kept per units tuple (by identity: the same object while
    none of the empire's units changes), so the checks of a player turn read an army that
    did not move once, whatever the boards and grids they are made on."""
    kinds = caches.peek(board_views.kinds_of, units)
    held = set(map(_FIRST, kinds)) if kinds is not None else set(map(_HEX, units))
    held.discard(OFF_MAP)
    return frozenset(held)


@caches.by_identity(maxsize=16)
def _on_map(units: tuple[Unit, ...]) -> int:
    """How many of ``units`` (one empire's `Forces.units`, by identity) are on the map: all
    of them when their kinds (`board_views.kinds_of`, if held) show none off it; else
    those off it counted from their hex groups (`forces.units_by_hex`) or in C.

    Kinds held mean a freshly read board joined from the empires' tuples, whose hex index
    is joined from these very groups (`Board.at`): they are made now, for both, instead of
    a count that reads every unit for this alone."""
    kinds = caches.peek(board_views.kinds_of, units)
    if kinds is not None:
        if OFF_MAP not in map(_FIRST, kinds):
            return len(units)
        return len(units) - len(units_by_hex(units).get(OFF_MAP, ()))
    by_hex = caches.peek(units_by_hex, units)
    if by_hex is not None:
        return len(units) - len(by_hex.get(OFF_MAP, ()))
    return len(units) - countOf(map(_HEX, units), OFF_MAP)


_FIRST = itemgetter(0)
"""A kind's hex (`board_views.Kind`), a class's side (`board_views.unit_classes`)."""
_SECOND = itemgetter(1)
"""A kind's empire (`board_views.Kind`): picked in C, not by unpacking each kind."""


def empire_supply(state: FeState) -> dict[str, dict[str, object]]:
    """Per scenario empire, its grids and how many of its units on the map are in each status,
    for ``show --json`` (keys: ``main_grids``, ``partial_grids``, ``points``, ``units``,
    ``out_of_supply``)."""
    out: dict[str, dict[str, object]] = {}
    for empire, grid in grids(state).items():
        on_grid = [p for p in grid.points if p.grid >= 0 and p.kind != "tug"]
        main = sorted({p.grid for p in on_grid if p.main})
        partial = sorted({p.grid for p in on_grid if not p.main})
        by_status = _counts(state, empire)
        out[empire] = {
            "main_grids": len(main),
            "partial_grids": len(partial),
            "points": len(on_grid),
            "units": {status: len(units) for status, units in by_status.items()},
            "out_of_supply": [u.id for u in by_status["none"]],
        }
    return out


def supply_text(state: FeState, empire: str, rule: str) -> str:
    """The one-line report of a supply check, e.g. ``KZI: 12 in supply, 2 in a partial grid
    (1105, 1205), 1 out of supply: CL KZI-0003 in 1808 (410.22)``."""
    return _report(empire, _check(state, empire), rule)


def _report(empire: str, check: Check, rule: str) -> str:
    if not check.main and not check.partial and not check.none:
        return f"{empire}: no units on the map ({rule})"
    parts = [f"{check.main} in supply"]
    partial = check.partial
    if partial:
        hexes = ", ".join(base.hex_text(h) for h in sorted({u.hex for u in partial}))
        parts.append(f"{len(partial)} in a partial grid ({hexes})")
    out = check.none
    if out:
        named = ", ".join(f"{u.cls} {u.id} in {base.hex_text(u.hex)}" for u in out[:NAMED_OUT])
        more = f" and {len(out) - NAMED_OUT} more" if len(out) > NAMED_OUT else ""
        parts.append(f"{len(out)} out of supply: {named}{more}")
    return f"{empire}: {', '.join(parts)} ({rule})"


def checked_empires(state: FeState, step: Step) -> tuple[str, ...]:
    """The empires a supply check covers: both sides' at a "both" step, else the phasing."""
    if step.actor == _BOTH:
        return base.all_empires(state)
    return base.phasing_empires(state)


def out_of_supply_at(state: FeState, check: str) -> tuple[str, ...] | None:
    """The units out of supply at supply check ``check`` (a step id) this player turn, sorted;
    None when that check has not been made since phase 1 began."""
    for step_id, ids in state.supply_checks:
        if step_id == check:
            return ids
    return None


def _record(state: FeState, check: str, ids: list[str]) -> FeState:
    """``state`` with check ``check``'s out-of-supply units replaced by ``ids``."""
    entries = dict(state.supply_checks)
    entries[check] = tuple(sorted(ids))
    return msgspec.structs.replace(state, supply_checks=tuple(sorted(entries.items())))


def combat_supply(state: FeState, unit: Unit) -> bool:
    """Whether ``unit`` is in supply for combat (410.22): in supply at 1A2 of this player
    turn or at the last 5-3A; with neither check made, on the board of the moment."""
    made = [ids for ids in (out_of_supply_at(state, c) for c in COMBAT_CHECKS) if ids is not None]
    if not made:
        return status_of(state, unit) != "none"
    return any(unit.id not in ids for ids in made)


class _Supply(Area):
    name = "supply"

    def automatic(self, state: FeState, step: Step, events: list[Event]) -> FeState:
        rule = step.rules[0] if step.rules else SUPPLY_RULE
        out: list[str] = []
        for empire in checked_empires(state, step):
            check = _check(state, empire)
            out.extend(u.id for u in check.none)
            events.append(
                Event(
                    "supply",
                    _report(empire, check, rule),
                    base.seat_of(state, empire),
                    step.id,
                    {
                        "empire": empire,
                        "main": check.main,
                        "partial": [u.id for u in check.partial],
                        "none": [u.id for u in check.none],
                        "rule": rule,
                    },
                )
            )
        return _record(state, step.id, out)

    def on_phase(self, state: FeState, phase: str, events: list[Event]) -> FeState:
        """The checks' records last one player turn: phase 1 starts them afresh."""
        if phase == ECONOMICS_PHASE and state.supply_checks:
            return msgspec.structs.replace(state, supply_checks=())
        return state


AREA = _Supply()
