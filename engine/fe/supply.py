"""Supply (410.0-413.0): supply points, the main and partial grids, and what blocks a path.

An empire's units are in supply when they can trace a supply path of at most six hexes to a
supply point of one of its grids; the grid connected to its capital is the *main* grid, any
other connected group of supply points a *partial* grid (413.x), where supply costs EP and
production is limited. Everything here is a pure function of the map (`Galaxy`) and a `Board`;
nothing is wired into the game flow yet: the supply checks of the sequence of play (410.21
operational movement, 410.22 combat, 410.23 repairs, 410.24 retrograde) will call
`supply_grid` at their steps.

Readings, each marked as in ``fe-rules-notes.md`` (S sourced, I inferred, C a choice that
should become a game option):

- S (412.0, 756.21): supply points are the empire's capital hexes, the planets it owns and its
  bases (starbases, battle stations, mobile bases...). I: a base is a unit whose class cannot
  move, is not a pod and has a command rating (SB, BATS, MB and their variants; an undeployed
  "MB (ND)" has none). The map's starting bases count while their hex is still the empire's;
  destroyed starting bases are not in the `Board` yet, nor is devastation (508.2), which
  will remove a planet from the list: `devastated` is the hook.
- S (413.2, F&E Q&A Sep 2009): a captured planet joins its new owner's grid at the start of
  the next player turn. I: here ownership is read from `Board.owner` as it stands; the
  caller passes the board of the moment of the check.
- S (413.x; the SFU blog's note on supply grids, rindis.com/blog/675): supply points within
  six hexes of one
  another (by a path through hexes that do not block supply) are linked into one grid. The
  grid that holds an owned capital hex is the main grid; I: when the empire owns no capital
  hex, the grid holding its off-map area is. Every other grid is partial.
- I: an empire's off-map area (207.2, 506.0) is a supply point one hex beyond each of its
  map-edge entry hexes (it holds bases and planets of its own, 753.0).
- S (411.0): a unit is in supply when a path of at most six hexes, none of them blocking,
  leads from a supply point to its hex. A supply point always supplies its own hex; one that
  stands in a blocking hex supplies nothing beyond it (the F&E Q&A of July 2007: a planet
  blockaded by enemy ships is "an isolated grid all by itself").
- S (509.1-D, 412.2, 516.2D): a tug or convoy on supply mission is a supply source if it is
  within six hexes of a supply point of a grid, an LTT within three; either then supplies
  units six hexes from itself. I: that is what "extends the grid six hexes (three for an
  LTT)" means. They are not part of the grid: they cannot be chained (a tug near another tug
  gives nothing) and do not join grids. Theater transports (509.22, two hexes) are not in the
  unit tables. I: a crippled transport performs no mission (its counter's crippled side
  lists none) and supplies nothing.
- The blocking table is `engine.fe.blocking.blocks` (re-exported here), with the unit
  categories it needs (ships, bases, transports that can take the supply mission).

Deterministic and fast: one breadth-first search from all supply points at once (capped at six
hexes) labels every hex with its nearest point; two points are linked exactly when two
neighbouring labelled hexes join them within six hexes, so the grids come from one pass over
the map. Lists are kept sorted; a set is iterated only to make another set.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import deque
from collections.abc import Callable, Sequence
from itertools import groupby
from operator import attrgetter
from typing import Literal

import msgspec

from engine.core import caches, hexgrid
from engine.fe import supply_search
from engine.fe.blocking import (
    Blocking,
    Purpose,
    adjacency,
    blocking_hexes,
    blocks,
)
from engine.fe.forces import OFF_MAP, Board, Unit
from engine.fe.galaxy import Galaxy, HexId
from engine.fe.occupancy import bases_on, feature_hexes
from engine.fe.supply_search import SUPPLY_RANGE
from engine.fe.unit_kinds import can_supply, is_ltt

__all__ = [
    "LTT_REACH",
    "SUPPLY_RANGE",
    "TUG_REACH",
    "Blocking",
    "Purpose",
    "Status",
    "SupplyGrid",
    "SupplyPoint",
    "blocks",
    "devastated",
    "grid_points",
    "neighbours_fn",
    "spread",
    "spread_in_range",
    "supply_grid",
    "unit_supply",
]

Status = Literal["main", "partial", "none"]

TUG_REACH = 6
"""A tug or convoy on supply mission must be this close to a grid supply point (412.2)."""
LTT_REACH = 3
"""An LTT on supply mission must be this close to a grid supply point (516.2D)."""

SUPPLY_RULE = "411.0"
TUG_RULE = "509.1-D"


def devastated(board: Board, h: HexId) -> bool:
    """Whether the planets of ``h`` are devastated (508.2): a devastated planet is no supply
    point (it stays a strategic movement node, 756.21)."""
    return h in board.devastated


# --- breadth-first search -------------------------------------------------------------------


def neighbours_fn(galaxy: Galaxy, empire: str) -> Callable[[HexId], tuple[HexId, ...]]:
    """Neighbours for supply paths: the map's, plus the empire's off-map area (hex `OFF_MAP`)
    beyond each of its entry hexes (I: one hex beyond, see the module notes)."""
    table = adjacency(galaxy)
    area = galaxy.offmap_of(empire)
    entries = area.adjacent if area is not None else ()
    if not entries:
        return lambda h: table.get(h, ())

    def around(h: HexId) -> tuple[HexId, ...]:
        if h == OFF_MAP:
            return entries
        return (*table[h], OFF_MAP) if h in entries else table[h]

    return around


def spread(
    neighbours: Callable[[HexId], tuple[HexId, ...]],
    sources: Sequence[tuple[HexId, int]],
    blocked: Callable[[HexId], bool],
    limit: int,
) -> dict[HexId, tuple[int, int]]:
    """Multi-source breadth-first search: each reached hex -> (distance, label of the nearest
    source; the first listed wins ties).

    Paths never enter a blocked hex; a source in a blocked hex reaches only itself.
    """
    seen: dict[HexId, tuple[int, int]] = {}
    queue: deque[HexId] = deque()
    for h, label in sources:
        if h not in seen:
            seen[h] = (0, label)
            queue.append(h)
    while queue:
        h = queue.popleft()
        distance, label = seen[h]
        if distance >= limit or blocked(h):
            continue
        for n in neighbours(h):
            if n not in seen and not blocked(n):
                seen[n] = (distance + 1, label)
                queue.append(n)
    return seen


# --- the grids ------------------------------------------------------------------------------


class SupplyPoint(msgspec.Struct, frozen=True):
    """A source of supply: ``kind`` is capital, base, planet, offmap or tug.

    ``grid`` numbers the grids: main grids first, then partial ones in the order of their
    first point's hex; -1 for a tug that reaches no grid. ``name`` says what it is (``"SB"``,
    ``"MB FED-0012"``, ``"minor planet"``, ``"TG FED-0031"``). ``reach``: how far away a grid
    point may be for this point to link to it (six; a tug's own reach, 6 or an LTT's 3).
    """

    hex: HexId
    kind: str
    name: str
    grid: int = -1
    main: bool = False
    reach: int = SUPPLY_RANGE


class SupplyGrid(msgspec.Struct, frozen=True):
    """One empire's supply at one moment: its supply points and the hexes they supply.

    ``main`` and ``partial`` are sorted hex ids (`OFF_MAP` stands for the off-map area);
    ``partial_grids`` gives, for each hex of ``partial``, the grid of its nearest point.
    """

    empire: str
    points: tuple[SupplyPoint, ...] = ()
    main: tuple[HexId, ...] = ()
    partial: tuple[HexId, ...] = ()
    partial_grids: tuple[int, ...] = ()

    def status(self, h: HexId) -> Status:
        """``"main"``, ``"partial"`` or ``"none"`` for a unit of the empire in hex ``h``."""
        if _has(self.main, h):
            return "main"
        return "partial" if _has(self.partial, h) else "none"

    def grid_of(self, h: HexId) -> int | None:
        """The partial grid supplying ``h`` (0.. as in ``points``); None when main or none."""
        i = bisect_left(self.partial, h)
        if i < len(self.partial) and self.partial[i] == h and not _has(self.main, h):
            return self.partial_grids[i]
        return None

    def point_hexes(self, *, tugs: bool = False) -> tuple[HexId, ...]:
        """Hexes holding a grid supply point (and active supply tugs, if asked), sorted."""
        return tuple(
            sorted({p.hex for p in self.points if p.grid >= 0 and (tugs or p.kind != "tug")})
        )


def _has(hexes: tuple[HexId, ...], h: HexId) -> bool:
    i = bisect_left(hexes, h)
    return i < len(hexes) and hexes[i] == h


_EMPIRE = attrgetter("empire")

_PRIORITY = {"capital": 0, "base": 1, "planet": 2, "offmap": 3}


def grid_points(galaxy: Galaxy, board: Board, empire: str) -> list[SupplyPoint]:
    """The empire's supply points (412.0), one per hex (the most important kind), by hex."""
    return list(_points_on(galaxy, board, empire))


def _points_on(galaxy: Galaxy, board: Board, empire: str) -> tuple[SupplyPoint, ...]:
    """`grid_points` as the tuple `_points` remembers."""
    own_bases = _bases_by_empire(bases_on(galaxy, board)).get(empire, ())
    return _points_of_bases(galaxy, own_bases, empire, board.owners, board.devastated)


@caches.by_identity(maxsize=64, identity=2)
def _points_of_bases(
    galaxy: Galaxy,
    own_bases: tuple[Unit, ...],
    empire: str,
    owners: tuple[tuple[HexId, str], ...],
    devastated_hexes: tuple[HexId, ...],
) -> tuple[SupplyPoint, ...]:
    """`_points`, kept by identity of the empire's bases too (`_bases_by_empire`'s tuple,
    the same object from board to board while no base changes): a grid of a board on which
    only ships moved then costs no hashing of every base, which keying by value asks."""
    return _points(galaxy, empire, owners, devastated_hexes, own_bases)


@caches.by_identity(maxsize=4)
def _bases_by_empire(bases: tuple[Unit, ...]) -> dict[str, tuple[Unit, ...]]:
    """The board's bases (`bases_on`, every empire's) by empire, in their order, the first
    of each hex only: `_points` names a hex's base point after its first base and reads no
    other (a stack of bases is one supply point), so it is keyed by these alone. Sorted out
    once per tuple of bases (which a move that changes no base carries over to the next
    board unchanged), not once per empire and board. Not to be mutated."""
    firsts: dict[str, dict[HexId, Unit]] = {}
    # A state's board lists its units empire by empire: a run per empire, cut in C.
    for empire, run in groupby(bases, _EMPIRE):
        here = firsts.setdefault(empire, {})
        for unit in run:
            if unit.hex not in here:
                here[unit.hex] = unit
    return {empire: tuple(here.values()) for empire, here in firsts.items()}


@caches.by_identity(maxsize=64, identity=1)
def _points(
    galaxy: Galaxy,
    empire: str,
    owners: tuple[tuple[HexId, str], ...],
    devastated_hexes: tuple[HexId, ...],
    own_bases: tuple[Unit, ...],
) -> tuple[SupplyPoint, ...]:
    """`grid_points` from what it reads (the map by identity, the rest by value): a board on
    which only ships moved gives the points of the board before it."""
    board = Board(owners=owners, devastated=devastated_hexes)
    found: dict[HexId, SupplyPoint] = {}

    def add(h: HexId, kind: str, name: str) -> None:
        old = found.get(h)
        if old is None or _PRIORITY[kind] < _PRIORITY[old.kind]:
            found[h] = SupplyPoint(h, kind, name)

    taken: dict[HexId, str] = {}
    for h, owner in board.owners:
        taken.setdefault(h, owner)  # as `Board.owner` reads them: the first entry wins
    for capital in galaxy.capitals_of(empire):
        if board.owner(galaxy, capital.hex) == empire:
            add(capital.hex, "capital", "capital")
    for unit in own_bases:
        add(unit.hex, "base", f"{unit.cls} {unit.id}")
    for info in feature_hexes(galaxy):
        if taken.get(info.hex, info.empire) == empire:
            for base in info.bases:
                add(info.hex, "base", base.kind)
            if info.planets and not devastated(board, info.hex):
                add(info.hex, "planet", f"{info.planets[0].kind} planet")
    area = galaxy.offmap_of(empire)
    if area is not None and area.adjacent:
        add(OFF_MAP, "offmap", area.name or "off-map area")
    return tuple(found[h] for h in sorted(found))


def supply_grid(
    galaxy: Galaxy, board: Board, empire: str, supply_tugs: Sequence[str] = ()
) -> SupplyGrid:
    """The empire's supply grids and the hexes they supply (410.0-413.0, 509.1-D).

    ``supply_tugs`` are the ids of the empire's tugs, LTTs and convoys on supply mission
    (assigned in step 2B7); ValueError names an id that is unknown, another empire's, or of a
    class that cannot take the mission.

    The searches are a pure function of four values read from the board here: the hexes that
    block the empire's paths, its supply points, its active supply transports and the map.
    `_grids` remembers its answers by those values, so a board that differs from an earlier
    one only in what supply does not read (a unit moved deep inside friendly space, a fleet
    released, a note) reuses the grid, and any change that matters misses.
    """
    blocked = blocking_hexes(galaxy, board, empire, "supply")
    points = _points_on(galaxy, board, empire)
    tugs = tuple(
        (unit.hex, LTT_REACH if is_ltt(unit) else TUG_REACH, f"{unit.cls} {unit.id}")
        for unit in _tugs(board, empire, supply_tugs)
    )
    return _grids(galaxy, empire, blocked, points, tugs)


Tug = tuple[HexId, int, str]
"""An active supply transport as the searches see it: (hex, reach, name)."""


@caches.by_identity(maxsize=32, identity=1)
def _grids(
    galaxy: Galaxy,
    empire: str,
    blocked: frozenset[HexId],
    grid_points: tuple[SupplyPoint, ...],
    tug_list: tuple[Tug, ...],
) -> SupplyGrid:
    """`supply_grid` from the values it reads (the map by identity, the rest by value)."""
    table = _neighbour_table(galaxy, empire)
    points = list(grid_points)
    # (labelled as far as the grids are told from it; the rest only where labels are read)
    reach, ring = supply_search.start([(p.hex, i) for i, p in enumerate(points)])
    ring = supply_search.rings(table, reach, ring, blocked, 1, supply_search.LINKS)
    roots = supply_search.components(table, reach, blocked, len(points))
    has_capital = any(p.kind == "capital" for p in points)
    main_roots = sorted(
        {
            r
            for r, p in zip(roots, points, strict=True)
            if p.kind == ("capital" if has_capital else "offmap")
        }
    )
    order = main_roots + sorted(set(roots) - set(main_roots))
    number = {root: n for n, root in enumerate(order)}
    points = [
        msgspec.structs.replace(p, grid=number[r], main=r in main_roots)
        for p, r in zip(points, roots, strict=True)
    ]
    all_main = all(p.main for p in points)
    if all_main and not tug_list:  # (the usual grid: every hex reached is in a main grid)
        reached = supply_search.outer_rings(table, reach, ring, blocked, supply_search.LINKS + 1)
        return SupplyGrid(empire=empire, points=tuple(points), main=tuple(sorted(reached)))
    supply_search.rings(table, reach, ring, blocked, supply_search.LINKS + 1, SUPPLY_RANGE)
    # Every point in a main grid (as a rule): the search from the main grids' points is the
    # search just made, from the same hexes in the same order, its labels points instead of
    # grid numbers; it is read through them (``main_reach`` None), not made again.
    main_reach = (
        None
        if all_main
        else supply_search.reach(table, [(p.hex, p.grid) for p in points if p.main], blocked)
    )

    tugs: list[SupplyPoint] = []
    for h, limit, name in tug_list:
        to_any = reach.get(h)
        if main_reach is not None:
            to_main = main_reach.get(h)
        else:
            to_main = None if to_any is None else (to_any[0], points[to_any[1]].grid)
        grid, main = -1, False
        if to_main is not None and to_main[0] <= limit:
            grid, main = to_main[1], True
        elif to_any is not None and to_any[0] <= limit:
            grid = points[to_any[1]].grid
        tugs.append(SupplyPoint(h, "tug", name, grid, main, limit))
    tug_main = supply_search.reach(table, [(t.hex, t.grid) for t in tugs if t.main], blocked)
    tug_partial = supply_search.reach(
        table, [(t.hex, t.grid) for t in tugs if t.grid >= 0 and not t.main], blocked
    )

    main_hexes = set(reach if main_reach is None else main_reach)
    main_hexes.update(tug_main)
    partial: dict[HexId, int] = {}
    if not all_main:  # (else every hex the points reach is in a main grid)
        for h, (_, label) in reach.items():
            if h not in main_hexes:
                partial[h] = points[label].grid
    for h, (_, grid) in tug_partial.items():
        if h not in main_hexes and h not in partial:
            partial[h] = grid
    partial_hexes = sorted(partial)
    return SupplyGrid(
        empire=empire,
        points=tuple(points + tugs),
        main=tuple(sorted(main_hexes)),
        partial=tuple(partial_hexes),
        partial_grids=tuple(partial[h] for h in partial_hexes),
    )


@caches.by_identity(maxsize=16, identity=1, shipped=True)
def _neighbour_table(galaxy: Galaxy, empire: str) -> dict[HexId, tuple[HexId, ...]]:
    """`neighbours_fn` as a table (the off-map area included), built once per map and
    empire: the searches look neighbours up in it directly. Callers must not mutate it."""
    table = dict(adjacency(galaxy))
    area = galaxy.offmap_of(empire)
    entries = area.adjacent if area is not None else ()
    if entries:
        own = {h: h for h in table}  # (the map's objects for its hexes: found by identity)
        entries = tuple(own.get(h, h) for h in entries)
        table[OFF_MAP] = entries
        for h in entries:
            table[h] = (*table[h], OFF_MAP)
    return table


def spread_in_range(
    galaxy: Galaxy, empire: str, sources: Sequence[tuple[HexId, int]], blocked: frozenset[HexId]
) -> dict[HexId, tuple[int, int]]:
    """`spread` over `neighbours_fn` up to `SUPPLY_RANGE`, as the grids search
    (`supply_search.reach`, on the neighbours as a table): the same answer, in the same
    order, at a fraction of the cost (no call per hex)."""
    return supply_search.reach(_neighbour_table(galaxy, empire), sources, blocked)


def _tugs(board: Board, empire: str, ids: Sequence[str]) -> list[Unit]:
    """The designated supply transports that can act now (on the map, not crippled)."""
    out: list[Unit] = []
    for unit_id in sorted(set(ids)):
        try:
            unit = board.unit(unit_id)
        except KeyError:
            raise ValueError(f"supply mission: no unit {unit_id} ({TUG_RULE})") from None
        if unit.empire != empire:
            raise ValueError(f"supply mission: {unit_id} is {unit.empire}'s, not {empire}'s")
        if not can_supply(unit):
            raise ValueError(f"supply mission: {unit_id} ({unit.cls}) is no tug, LTT or convoy")
        if unit.hex != OFF_MAP and not unit.crippled:
            out.append(unit)
    return out


def unit_supply(galaxy: Galaxy, board: Board, grid: SupplyGrid, unit_id: str) -> Status:
    """The supply status of one unit: the status of its hex in its empire's grid.

    A unit off the map counts as being in its empire's off-map area (I). ValueError when the
    grid is another empire's.
    """
    return supply_of(galaxy, grid, board.unit(unit_id))


def supply_of(galaxy: Galaxy, grid: SupplyGrid, unit: Unit) -> Status:
    """`unit_supply` of a unit already in hand (the same for every unit of its empire in its
    hex)."""
    if unit.empire != grid.empire:
        raise ValueError(f"{unit.id} is {unit.empire}'s; this is {grid.empire}'s supply grid")
    if unit.hex != OFF_MAP and not hexgrid.valid(unit.hex, galaxy.width, galaxy.height):
        raise ValueError(f"{unit.id} is in {unit.hex}, not on the map")
    return grid.status(unit.hex)
