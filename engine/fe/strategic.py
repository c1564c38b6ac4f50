"""Strategic movement (Phase 8, 204.0): long moves between strategic movement nodes.

Check, then apply: `check_strategic` lists every reason a `StrategicMove` is refused (each
`Violation` names its rule and gives the numbers), `apply_strategic` carries out one that
checked clean; `strategic_cost` prices a turn's moves. Not wired into the game flow yet: step
8A will call them and keep the turn's count of moves.

Readings, marked as in ``fe-rules-notes.md`` (S sourced, I inferred, C a choice for a game
option):

- S (756.21): nodes are bases, planets (devastated ones too, and planets captured on an
  earlier player turn), off-map areas, tugs acting as supply points (412.2), and more units
  the tables do not hold yet (colony bases, logistics task forces, operational bases).
  S (756.22): convoys, FRDs, colonies, forward defense units and other tugs are not nodes.
  I: a node is one of the empire's supply points (`engine.fe.supply`: capital, planets,
  bases, off-map area) or one of its supply tugs that reaches a grid. Devastation is not in
  the Board yet, so this is the same list; the capture timing (413.2) is left to the caller.
- I (204.0): a unit starts its strategic move in a node hex and ends it in another. The
  route is a chain of nodes, each leg at most six hexes long through hexes that do not block
  supply (the same link that joins supply points into a grid, 413.0): nodes are connected
  through friendly, unblocked space, and a move may cross any number of legs. A supply tug
  links only to grid points within its reach (six hexes, an LTT three) and never to another
  tug, as in supply (509.1-D). The off-map area is a node one hex beyond its entry hexes;
  a route may pass through it but not end there (off-map positions are not on the Board).
  A unit in its empire's off-map area (hex `OFF_MAP`: an off-map fleet, 506.0) starts its
  move there, which is how off-map fleets enter the map; off-map units of other empires
  share that hex number without meeting it, so they pin nothing. Whether an arriving fleet
  may come yet is the scenario's (`engine.fe.reinforcements.arrival_problems`).
- I: a unit whose hex holds enemy units is pinned and may not move strategically; a move may
  not end in a hex holding enemy units. Each unit moves strategically at most once a turn
  (``already``).
- S (600.3): units of a starting fleet that is not released do not move. I: units that cannot
  move by themselves (bases, PDUs, pods) do not move strategically here, except a mobile
  base carried by a tug (`towed_bases`).
- S (509.1-C): a tug takes the mobile-base mission as it begins strategic movement and moves
  a mobile base with it. I: in one strategic order, each uncrippled unit whose class may take
  mission C carries one mobile base (class MB) of the order, in the order's sequence, and both
  count as strategic moves (each is a unit that moved). Other towing (509.1-F, FRDs) is not
  modelled; FRDs move under their own strategic limit as before.
- S (204.0, 549.24): an auxiliary moves at most 12 hexes by strategic movement. S (unit
  tables): FRDs likewise carry a strategic limit (12); a route's length is the sum of its legs.
- S (204.0, fixed costs): each empire has free strategic moves per turn (Federation 15,
  Klingon 15, Tholian 5, others 10: `Empire.free_strategic_moves`); every move beyond them
  costs 1 EP. S (549.24): an auxiliary's move counts as one full move.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence

import msgspec

from engine.core import caches
from engine.core.ruleset import Violation
from engine.fe.blocking import Blocking
from engine.fe.forces import OFF_MAP, Board, Unit
from engine.fe.galaxy import Galaxy, HexId
from engine.fe.pinning import enemy_present
from engine.fe.supply import SUPPLY_RANGE, SupplyGrid, spread_in_range
from engine.fe.unit_kinds import class_of, is_auxiliary, movement_points

STRATEGIC_RULE = "204.0"
NODE_RULE = "756.2"
AUXILIARY_RULE = "549.24"
RELEASE_RULE = "600.3"
OWN_UNITS_RULE = "105.0"
TOW_RULE = "509.1-C"
MOBILE_BASE = "MB"
MOBILE_BASE_MISSION = "C"

EXTRA_MOVE_EP = 1
"""EP per strategic move beyond the free ones (the fixed costs table)."""
AUXILIARY_LIMIT = 12
"""Most hexes an auxiliary moves by strategic movement in a turn (549.24)."""


class StrategicMove(msgspec.Struct, frozen=True):
    """One unit moving from its node to the node in hex ``to``."""

    unit_id: str
    to: HexId


class Route(msgspec.Struct, frozen=True):
    """A strategic route: the node hexes it passes, start and end included, and its length."""

    nodes: tuple[HexId, ...]
    hexes: int


def free_moves(galaxy: Galaxy, empire: str) -> int:
    """The empire's free strategic moves per turn (204.0)."""
    return galaxy.empire(empire).free_strategic_moves


def strategic_cost(moves_this_turn: int, free: int) -> int:
    """EP owed for ``moves_this_turn`` strategic moves when ``free`` of them are free:
    1 EP for each move beyond the free ones (204.0, the fixed costs table)."""
    return max(0, moves_this_turn - free) * EXTRA_MOVE_EP


def hex_limit(unit: Unit) -> int | None:
    """The most hexes the unit may move strategically (None: no limit): 12 for auxiliaries
    (549.24), the class's strategic limit where the tables give one (FRDs)."""
    if is_auxiliary(unit):
        return AUXILIARY_LIMIT
    info = class_of(unit)
    if info is not None and info.towable is not None and info.towable.strategic_limit:
        return info.towable.strategic_limit
    return None


@caches.by_identity(maxsize=4)
def nodes(grid: SupplyGrid) -> dict[HexId, int]:
    """The empire's strategic movement nodes (756.21): hex -> how far its links reach.

    Grid supply points link within six hexes; an active supply tug within its own reach (6,
    an LTT 3), to grid points only (marked by a negative reach). Kept per grid (by
    identity): a strategic order checks every unit it moves against them. Not to be
    mutated.
    """
    out: dict[HexId, int] = {}
    for point in sorted(grid.points, key=lambda p: (p.hex, p.kind == "tug")):
        if point.grid < 0 or point.hex in out:
            continue
        out[point.hex] = -point.reach if point.kind == "tug" else point.reach
    return out


@caches.by_identity(maxsize=32, identity=3)
def strategic_route(
    galaxy: Galaxy, board: Board, grid: SupplyGrid, start: HexId, to: HexId
) -> Route | None:
    """The shortest chain of nodes from ``start`` to ``to`` (both nodes), or None.

    Dijkstra over the nodes, legs found by breadth-first search as needed; ties go to the
    smaller hex id, so both players' engines find the same route. Kept per map, board and
    grid (by identity) and hexes (by value): an order moving a stack checks each unit's
    route, the same one, and applying it reads them again.
    """
    links = nodes(grid)
    if start not in links or to not in links:
        return None
    blocked = Blocking(galaxy, board, grid.empire, "supply").hexes
    best: dict[HexId, int] = {start: 0}
    previous: dict[HexId, HexId] = {}
    queue: list[tuple[int, HexId]] = [(0, start)]
    done: dict[HexId, bool] = {}
    while queue:
        length, here = heapq.heappop(queue)
        if done.get(here):
            continue
        done[here] = True
        if here == to:
            chain = [to]
            while chain[-1] != start:
                chain.append(previous[chain[-1]])
            return Route(tuple(reversed(chain)), length)
        reach = _leg_reach(galaxy, grid.empire, here, blocked)
        # (the nodes, a few dozen, tried against the leg's reach, a hundred hexes and more)
        for there in sorted(h for h in links if h in reach and h != here):
            leg = reach[there][0]
            if not _linked(links[here], links[there], leg):
                continue
            if there not in best or length + leg < best[there]:
                best[there] = length + leg
                previous[there] = here
                heapq.heappush(queue, (length + leg, there))
    return None


@caches.by_identity(maxsize=128, identity=1)
def _leg_reach(
    galaxy: Galaxy, empire: str, here: HexId, blocked: frozenset[HexId]
) -> dict[HexId, tuple[int, int]]:
    """The hexes a leg from node ``here`` reaches (`spread` within the supply range, searched
    as the grids are: `supply.spread_in_range`), by the map (by identity) and the blocked
    hexes (by value): every strategic move of a phase searches from the same nodes while the
    blocking stays as it was. Not to be mutated."""
    return spread_in_range(galaxy, empire, [(here, 0)], blocked)


def _linked(a: int, b: int, leg: int) -> bool:
    """Whether two nodes ``leg`` hexes apart link: never two tugs; a tug within its reach."""
    if a < 0 and b < 0:
        return False
    return leg <= min(abs(a), abs(b))


def check_strategic(
    galaxy: Galaxy,
    board: Board,
    grid: SupplyGrid,
    empire: str,
    move: StrategicMove,
    moves_before: int = 0,
    *,
    treasury2: int | None = None,
    already: Sequence[str] = (),
    towed: bool = False,
) -> list[Violation]:
    """Why ``empire`` may not make this strategic move now (empty when it may).

    ``grid`` is the empire's current supply grid (its points and active supply tugs are the
    nodes); ``moves_before`` the strategic moves it already made this turn; ``treasury2`` its
    treasury in half EP (None: not checked); ``already`` the units that moved strategically
    this turn; ``towed`` that a tug of the same order carries the unit (`towed_bases`).
    """
    if grid.empire != empire:
        return [Violation(f"the supply grid given is {grid.empire}'s, not {empire}'s", NODE_RULE)]
    try:
        unit = board.unit(move.unit_id)
    except KeyError:
        return [Violation(board.no_unit(move.unit_id), STRATEGIC_RULE)]
    if unit.empire != empire:
        text = f"{unit.id} is {unit.empire}'s: {empire} moves only its own units"
        return [Violation(text, OWN_UNITS_RULE)]
    if unit.hex == OFF_MAP and OFF_MAP not in nodes(grid):
        text = f"{unit.id} is off the map and {empire} has no off-map area in its supply grid"
        return [Violation(text, NODE_RULE)]
    out = _unit_problems(board, unit, already, towed)
    out.extend(_node_problems(board, grid, empire, unit, move.to))
    if out:
        return out
    route = strategic_route(galaxy, board, grid, unit.hex, move.to)
    if route is None:
        text = (
            f"no chain of {empire} nodes, each within {SUPPLY_RANGE} hexes of the next through "
            f"unblocked hexes, joins {unit.hex:04d} to {move.to:04d}"
        )
        return [Violation(text, STRATEGIC_RULE)]
    limit = hex_limit(unit)
    if limit is not None and route.hexes > limit:
        rule = AUXILIARY_RULE if is_auxiliary(unit) else STRATEGIC_RULE
        text = (
            f"the route from {unit.hex:04d} to {move.to:04d} is {route.hexes} hexes; "
            f"{unit.id} ({unit.cls}) moves at most {limit} hexes strategically"
        )
        out.append(Violation(text, rule))
    free = free_moves(galaxy, empire)
    cost = strategic_cost(moves_before + 1, free) - strategic_cost(moves_before, free)
    if treasury2 is not None and 2 * cost > treasury2:
        text = (
            f"strategic move {moves_before + 1} costs {cost} EP ({free} are free per turn); "
            f"the treasury holds {treasury2 // 2}{'.5' if treasury2 % 2 else ''} EP"
        )
        out.append(Violation(text, STRATEGIC_RULE))
    return out


def towed_bases(units: Sequence[Unit]) -> set[str]:
    """The mobile bases of one strategic order that its tugs carry (509.1-C): each uncrippled
    unit that may take the mobile-base mission carries the next mobile base of the order."""
    tugs = [
        u
        for u in units
        if not u.crippled
        and (info := class_of(u)) is not None
        and MOBILE_BASE_MISSION in info.full.tug_missions
    ]
    bases = [u for u in units if u.cls == MOBILE_BASE]
    return {base.id for base, _ in zip(bases, tugs, strict=False)}


def _unit_problems(
    board: Board, unit: Unit, already: Sequence[str], towed: bool = False
) -> list[Violation]:
    out: list[Violation] = []
    if unit.id in already:
        out.append(
            Violation(f"{unit.id} has already moved strategically this turn", STRATEGIC_RULE)
        )
    if not board.is_released(unit):
        text = f"{unit.id} ({unit.cls}) belongs to {unit.fleet}, which is not released"
        out.append(Violation(text, RELEASE_RULE))
    if movement_points(unit) == 0 and not towed:
        if unit.cls == MOBILE_BASE:
            text = (
                f"{unit.id} (MB) cannot move by itself: a tug on the mobile-base mission, "
                "moving in the same strategic order, carries one mobile base"
            )
            out.append(Violation(text, TOW_RULE))
        else:
            text = f"{unit.id} ({unit.cls}) cannot move by itself (towing by tugs is not modelled)"
            out.append(Violation(text, STRATEGIC_RULE))
    if unit.hex != OFF_MAP and enemy_present(board, unit.empire, unit.hex):
        text = f"{unit.hex:04d} holds enemy units: {unit.id} is pinned there"
        out.append(Violation(text, STRATEGIC_RULE))
    return out


def _node_problems(
    board: Board, grid: SupplyGrid, empire: str, unit: Unit, to: HexId
) -> list[Violation]:
    links = nodes(grid)
    out: list[Violation] = []
    if unit.hex not in links:
        text = f"{unit.id} is in {unit.hex:04d}, which is no {empire} strategic movement node"
        out.append(Violation(text, NODE_RULE))
    if to == unit.hex:
        out.append(Violation(f"{unit.id} is already in {to:04d}", STRATEGIC_RULE))
    elif to == OFF_MAP or to not in links:
        shown = "the off-map area" if to == OFF_MAP else f"{to:04d}"
        text = f"{shown} is no {empire} strategic movement node (base, planet, supply tug)"
        if to == OFF_MAP:
            text = f"{shown}: strategic moves off the map are not modelled yet"
        out.append(Violation(text, NODE_RULE))
    elif enemy_present(board, empire, to):  # (the empires there, not each unit: a strategic
        # order of dozens of units into a stack of hundreds asks it once a unit)
        out.append(Violation(f"{to:04d} holds enemy units", STRATEGIC_RULE))
    return out


def apply_strategic(board: Board, move: StrategicMove) -> Board:
    """Carry out a strategic move that checked clean: the unit is now in ``move.to``."""
    return board.with_units([msgspec.structs.replace(board.unit(move.unit_id), hex=move.to)])
