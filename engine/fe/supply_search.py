"""The searches behind the supply grids (`engine.fe.supply`): how far supply reaches from a
set of points, and which points link into one grid.

One breadth-first search from every point at once, ring by ring up to `SUPPLY_RANGE`,
labels each hex with its nearest point (the first listed wins a tie); two points link when
two neighbouring labelled hexes join them within the range (`components`). The grids are
told from the first rings alone (`LINKS`); where nothing else is read of the labels, the
outer rings are found as sets (`outer_rings`). The neighbours are a table and the blocking
hexes a set (`engine.fe.supply._neighbour_table`, `engine.fe.blocking.blocking_hexes`), so
no function is called per hex. Every answer is a pure function of its arguments.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain, repeat

from engine.fe.galaxy import HexId

SUPPLY_RANGE = 6
"""Longest supply path in hexes (411.0), and the link between two supply points (413.0)."""


def reach(
    table: dict[HexId, tuple[HexId, ...]],
    sources: Sequence[tuple[HexId, int]],
    blocked: frozenset[HexId],
) -> dict[HexId, tuple[int, int]]:
    """`engine.fe.supply.spread` up to `SUPPLY_RANGE` with the neighbours and blocking hexes
    as a table and a set: the same search, without a function call per hex."""
    seen, frontier = start(sources)
    rings(table, seen, frontier, blocked, 1, SUPPLY_RANGE)
    return seen


def start(
    sources: Sequence[tuple[HexId, int]],
) -> tuple[dict[HexId, tuple[int, int]], list[HexId]]:
    """The search's ring 0: each source's hex with its label (the first listed for a hex)."""
    seen: dict[HexId, tuple[int, int]] = {}
    frontier: list[HexId] = []
    for h, label in sources:
        if h not in seen:
            seen[h] = (0, label)
            frontier.append(h)
    return seen, frontier


def rings(
    table: dict[HexId, tuple[HexId, ...]],
    seen: dict[HexId, tuple[int, int]],
    frontier: list[HexId],
    blocked: frozenset[HexId],
    first: int,
    last: int,
) -> list[HexId]:
    """`reach`'s search from ring ``first`` to ring ``last``, ``frontier`` being the ring
    before ``first``: the hexes reached are added to ``seen`` (with their distance and
    label); the last ring made is returned, empty when the search ended before ``last``."""
    # Ring by ring: the order a queue would take (sources first, then each ring in the order
    # its hexes were reached), so the first listed source wins ties as in `supply.spread`.
    for distance in range(first, last + 1):
        ring: list[HexId] = []
        for h in frontier:
            if h in blocked:
                continue
            label = seen[h][1]
            step = (distance, label)
            for n in table.get(h, ()):
                if n not in seen and n not in blocked:
                    seen[n] = step
                    ring.append(n)
        if not ring:
            return ring
        frontier = ring
    return frontier


LINKS = (SUPPLY_RANGE - 1) // 2 + 1
"""The rings that tell the grids (`components`: two neighbouring hexes link their points
only when one is at most half the range away, the other a ring further); the labels beyond
are read only for a partial grid or a transport."""


def outer_rings(
    table: dict[HexId, tuple[HexId, ...]],
    seen: dict[HexId, tuple[int, int]],
    frontier: list[HexId],
    blocked: frozenset[HexId],
    first: int,
) -> set[HexId]:
    """Every hex the search reaches: ``seen`` and the rings from ``first`` on that `rings`
    would add (``frontier`` the ring before), found in C as sets, without labels: a ring is
    the neighbours of the one before, less the hexes reached and the blocked ones (past
    the sources none is reached, so each leads on). The answer is a set: no order is read."""
    reached = set(seen)
    get = table.get
    ring: set[HexId] | list[HexId] = frontier
    for _ in range(first, SUPPLY_RANGE + 1):
        around = set(chain.from_iterable(map(get, ring, repeat(()))))
        around -= reached
        around -= blocked
        if not around:
            break
        reached |= around
        ring = around
    return reached


def components(
    table: dict[HexId, tuple[HexId, ...]],
    reach: dict[HexId, tuple[int, int]],
    blocked: frozenset[HexId],
    count: int,
) -> list[int]:
    """Union-find over the points: the root (smallest index) of each point's grid.

    Two neighbouring hexes link their points when their distances add up to less than the
    range, so one of the two is at most half the range from its point: only those hexes
    are read (``reach`` is in the search's order, ring by ring, so they come first), each
    with all its neighbours (every such pair is met from its nearer end). A grid's root is
    its smallest point whatever the order of the unions; a hex's own root is looked up
    once, and again only after a union took it away, a neighbour's only if not a root."""
    parent = list(range(count))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    near = (SUPPLY_RANGE - 1) // 2
    # The only blocked hexes ``reach`` holds are points' own (a source reaches itself):
    # they link nothing, nor does a neighbour link to them.
    stuck = blocked.intersection(reach) if blocked else blocked
    left = count - 1
    """Unions still possible: none once every point is in one grid (as a rule, early in the
    search: its first hexes are the points' own, then those next to them)."""
    get = reach.get
    for h, (distance, label) in reach.items():
        if distance > near:
            break
        if stuck and h in stuck:
            continue
        most = SUPPLY_RANGE - 1 - distance
        root = -1  # (``label``'s root, once looked up)
        for n in table.get(h, ()):
            other = get(n)
            if other is None:
                continue
            b = other[1]
            if b == label or other[0] > most or (stuck and n in stuck):
                continue
            if root < 0 or parent[root] != root:
                root = find(label)
            if parent[b] != b:
                b = find(b)
            if root != b:
                if root < b:
                    parent[b] = root
                else:
                    parent[root] = root = b
                left -= 1
        if not left:
            break
    return [find(i) for i in range(count)]
