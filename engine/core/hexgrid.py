"""Hex-map geometry for XXYY hex ids: neighbours, distance, rings, areas, lines and paths.

A hex id is ``column * 100 + row`` (``4613`` is column 46, row 13), columns ``1..width`` and
rows ``1..height`` (the shipped strategic map is 61 x 19). Columns are vertical stacks of
flat-topped hexes, and **odd-numbered columns sit half a hex higher than even ones**: hex
0101 touches 0201 but not 0202, while 0202 touches 0101 and 0301. That is the convention
under which every province of the strategic map is one connected piece (the opposite one
splits a province in two).

Everything here is exact integer arithmetic (cube coordinates for distance and lines) and every
function returns hexes in a fixed order, so results never depend on hashing or set iteration:
two players' engines must pick the same path when several are equally short.

Why not a class: a map is only its width and height, and plain functions over ints are what the
rules modules need (they store hex ids in state, never grid objects).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

HexId = int
"""A hex id: column * 100 + row, e.g. 1411 (column 14, row 11)."""

Cube = tuple[int, int, int]
"""Cube coordinates ``(x, y, z)`` with ``x + y + z == 0``; ``x`` is the column."""

NORTH, NORTHEAST, SOUTHEAST, SOUTH, SOUTHWEST, NORTHWEST = range(6)
"""Direction indices, clockwise from north, as used by `neighbours` and `step`."""

# Cube offsets of the six directions, in the same clockwise order from north. With x the
# column and z = row - (column - 1) // 2, "north" (row - 1) is (0, +1, -1).
_DIRECTIONS: tuple[Cube, ...] = (
    (0, 1, -1),  # north
    (1, 0, -1),  # northeast
    (1, -1, 0),  # southeast
    (0, -1, 1),  # south
    (-1, 0, 1),  # southwest
    (-1, 1, 0),  # northwest
)


def split(h: HexId) -> tuple[int, int]:
    """``(column, row)`` of a hex id."""
    return h // 100, h % 100


def join(column: int, row: int) -> HexId:
    """The hex id of a column and row (rows above 99 have no id, so they are refused)."""
    if not 0 <= row < 100:
        raise ValueError(f"row {row} does not fit an XXYY hex id")
    return column * 100 + row


def valid(h: HexId, width: int, height: int) -> bool:
    """Whether ``h`` names a hex on a ``width`` x ``height`` map."""
    column, row = split(h)
    return h >= 0 and 1 <= column <= width and 1 <= row <= height


def to_cube(h: HexId) -> Cube:
    """Cube coordinates of a hex id (defined for any id, on the map or not)."""
    column, row = split(h)
    z = row - (column - 1) // 2
    return column, -column - z, z


def from_cube(c: Cube) -> HexId:
    """The hex id at cube coordinates ``c``; ValueError when it has no XXYY id."""
    x, _, z = c
    row = z + (x - 1) // 2
    if x < 0 or not 0 <= row < 100:
        raise ValueError(f"cube {c} is outside every XXYY map")
    return x * 100 + row


def _offset_row(c: Cube) -> int:
    x, _, z = c
    return z + (x - 1) // 2


def _on_map(c: Cube, width: int, height: int) -> bool:
    """`valid` for cube coordinates, which may lie where no XXYY id exists."""
    return 1 <= c[0] <= width and 1 <= _offset_row(c) <= height


def _add(a: Cube, b: Cube, times: int = 1) -> Cube:
    return a[0] + b[0] * times, a[1] + b[1] * times, a[2] + b[2] * times


def _check(h: HexId, width: int, height: int) -> None:
    if not valid(h, width, height):
        raise ValueError(f"hex {h:04d} is not on a {width}x{height} map")


def step(h: HexId, direction: int, width: int, height: int) -> HexId | None:
    """The neighbour of ``h`` in ``direction`` (0 = north, clockwise), or None off the map."""
    _check(h, width, height)
    c = _add(to_cube(h), _DIRECTIONS[direction % 6])
    return from_cube(c) if _on_map(c, width, height) else None


def neighbours(h: HexId, width: int, height: int) -> tuple[HexId, ...]:
    """The on-map neighbours of ``h``, clockwise from north (N, NE, SE, S, SW, NW).

    Hexes on an edge simply have fewer neighbours; the order of the rest is unchanged, so
    anything that breaks ties by "first neighbour" behaves the same everywhere on the map.
    """
    _check(h, width, height)
    column, row = split(h)
    out = []
    for dc, dr in _STEPS[(column - 1) % 2]:
        c, r = column + dc, row + dr
        if 1 <= c <= width and 1 <= r <= height:
            out.append(c * 100 + r)
    return tuple(out)


def _column_steps(parity: int) -> tuple[tuple[int, int], ...]:
    """The six directions as (column, row) steps from a hex whose ``column - 1`` has this
    parity: `_DIRECTIONS` worked out once, since a row step depends on the column's."""
    steps = []
    for dx, _, dz in _DIRECTIONS:
        steps.append((dx, dz + (parity + dx) // 2 - parity // 2))
    return tuple(steps)


_STEPS = (_column_steps(0), _column_steps(1))
"""`neighbours` reads these: cube arithmetic per neighbour cost six conversions a hex, and
the tables built from it (`engine.fe.blocking`'s adjacency, every hex of the map) are read
before the app's first paint."""


def distance(a: HexId, b: HexId) -> int:
    """Steps between two hexes on an unobstructed map (cube distance; map size irrelevant)."""
    ax, ay, az = to_cube(a)
    bx, by, bz = to_cube(b)
    return max(abs(ax - bx), abs(ay - by), abs(az - bz))


def ring(h: HexId, r: int, width: int, height: int) -> tuple[HexId, ...]:
    """The on-map hexes exactly ``r`` steps from ``h``, clockwise from the one due north.

    ``ring(h, 0)`` is ``(h,)``. The walk runs over the whole ring and drops off-map hexes,
    so a clipped ring keeps the same order as a full one.
    """
    _check(h, width, height)
    if r < 0:
        raise ValueError("a ring's radius cannot be negative")
    if r == 0:
        return (h,)
    c = _add(to_cube(h), _DIRECTIONS[NORTH], r)
    out = []
    # From the north corner clockwise: southeast to the northeast corner, then south, ...
    for side in range(6):
        d = _DIRECTIONS[(SOUTHEAST + side) % 6]
        for _ in range(r):
            if _on_map(c, width, height):
                out.append(from_cube(c))
            c = _add(c, d)
    return tuple(out)


def within(h: HexId, r: int, width: int, height: int) -> tuple[HexId, ...]:
    """Every on-map hex at most ``r`` steps from ``h``: ``h`` first, then ring 1, ring 2, ..."""
    out: list[HexId] = []
    for k in range(r + 1):
        out.extend(ring(h, k, width, height))
    return tuple(out)


# A nudge in units far smaller than any gap between the rationals `line` compares, so that
# points exactly between two hexes always fall the same way (red blob games' epsilon trick,
# done in integers).
_NUDGE: Cube = (1, 2, -3)
_FINE = 8


def _round_scaled(v: Cube, unit: int) -> Cube:
    """Cube rounding of ``v / unit`` (never a tie: `_NUDGE` keeps values off half-units)."""
    rounded = [(x + unit // 2) // unit for x in v]
    diffs = [abs(rounded[i] * unit - v[i]) for i in range(3)]
    if diffs[0] > diffs[1] and diffs[0] > diffs[2]:
        rounded[0] = -rounded[1] - rounded[2]
    elif diffs[1] > diffs[2]:
        rounded[1] = -rounded[0] - rounded[2]
    else:
        rounded[2] = -rounded[0] - rounded[1]
    return rounded[0], rounded[1], rounded[2]


def _line_cubes(a: HexId, b: HexId, nudge: Cube) -> list[Cube]:
    n = distance(a, b)
    ca, cb = to_cube(a), to_cube(b)
    unit = n * 2 * _FINE
    out = []
    for i in range(n + 1):
        x, y, z = ((ca[k] * (n - i) + cb[k] * i) * 2 * _FINE + nudge[k] for k in range(3))
        out.append(_round_scaled((x, y, z), unit))
    return out


def line(
    a: HexId, b: HexId, width: int | None = None, height: int | None = None
) -> tuple[HexId, ...]:
    """The straight line of hexes from ``a`` to ``b`` (both included), ``distance + 1`` long.

    Exact: points are interpolated in cube coordinates as integers over a common unit. A point
    exactly on the border of two hexes is assigned by a fixed nudge; given the map's ``width``
    and ``height``, the opposite nudge is used when the first one would step off the map
    (a line along the zigzag of a map edge), so the line stays on the map.
    """
    if a == b:
        return (a,)
    cubes = _line_cubes(a, b, _NUDGE)
    if (
        width is not None
        and height is not None
        and not all(_on_map(c, width, height) for c in cubes)
    ):
        other = _line_cubes(a, b, (-_NUDGE[0], -_NUDGE[1], -_NUDGE[2]))
        if all(_on_map(c, width, height) for c in other):
            cubes = other
    return tuple(from_cube(c) for c in cubes)


def path(
    a: HexId,
    b: HexId,
    width: int,
    height: int,
    passable: Callable[[HexId], bool] | None = None,
    max_steps: int | None = None,
) -> tuple[HexId, ...] | None:
    """A shortest path from ``a`` to ``b`` (both included) through passable hexes, or None.

    Breadth-first search expanding neighbours in their fixed clockwise order, so among equally
    short paths the same one is always returned. ``passable(h)`` is asked for every hex the
    path would enter (including ``b``, never ``a``); None means every on-map hex is passable.
    ``max_steps`` bounds the length (None: unbounded).
    """
    _check(a, width, height)
    _check(b, width, height)
    if a == b:
        return (a,)
    parent: dict[HexId, HexId] = {a: a}
    frontier: deque[tuple[HexId, int]] = deque([(a, 0)])
    while frontier:
        here, steps = frontier.popleft()
        if max_steps is not None and steps >= max_steps:
            continue
        for nxt in neighbours(here, width, height):
            if nxt in parent or (passable is not None and not passable(nxt)):
                continue
            parent[nxt] = here
            if nxt == b:
                out = [b]
                while out[-1] != a:
                    out.append(parent[out[-1]])
                return tuple(reversed(out))
            frontier.append((nxt, steps + 1))
    return None
