"""Provinces and grids in the economy: disruption, long-term capture, partial-grid treasuries.

`engine.fe.economics` works out what an empire earns from the board; this module adds what
enemy action does to it:

- **Disruption.** I (430.22, 314.27): a province with a ship of an enemy of its owner in
  any of its hexes is disrupted and pays its owner nothing that Phase 1C. The summary names
  the two rules around it, garrisons (430.22: the units that hold a province) and raids that
  disrupt a location (314.27); we read enemy presence as a standing raid. Planets are not
  disrupted (an enemy ship at a planet is a battle, 508.0); a blockaded planet's EP stay in
  its own grid (below).
- **Long-term capture (438.1).** A province is captured by an empire that holds every one of
  its hexes (captures are recorded hex by hex, ``adjust capture``); until then it pays nobody
  (438.0, as `engine.fe.economics` has it). Step 1A3B counts the captor's player turns
  holding it; after `LONG_TERM_TURNS` of them (C: a rule option, default 2: the summary
  gives the count but not its length) it pays the captor its full 2 EP. The count is kept in
  ``FeState.held`` as ``(province, captor, turns)``; a province the captor loses drops out.
  A captured planet (508.2) pays its captor from the captor's next Phase 1C on, unless
  devastated: it joins the captor's grid at once (413.2 as `engine.fe.supply` reads it).
- **Partial grids (413.44).** EP an empire earns in a partial supply grid stay in that grid.
  A source (province, planet, off-map area) earns in the grid of its hex: a province in the
  main grid if any of its hexes is, else in the partial grid of its first supplied hex;
  anything in no grid pays the main treasury (I: 413.44 speaks of partial grids only). Each
  partial grid's EP are kept in ``FeState.grid_ep`` as ``(empire, key, ep2)``, the key being
  the grid's lowest supply-point hex (0 for an off-map area), so both replicas name it
  alike. At each Phase 1C3 a kept sum whose key hex is now in the main grid joins the
  treasury (413.44: the step lets it; I: always, since nothing is gained by waiting); one
  whose key hex is in another partial grid joins that grid's sum; one whose key hex is in
  no grid any more is lost (the F&E Q&A of July 2007: a planet's EP are lost when it is
  captured). Spending a partial grid's EP (builds there, 413.41) stays manual.

The economy's share (447.0, peace or limited war) applies to the whole income; each partial
grid keeps its part at the same share rounded down, the main treasury the rest, so the sums
are exact and add up to the income.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from operator import attrgetter

import msgspec

from engine.core import caches
from engine.core.ruleset import OptionSpec, OptionValue
from engine.fe.forces import OFF_MAP, Board
from engine.fe.galaxy import PROVINCE_EP, Galaxy, HexId, Province
from engine.fe.supply import SupplyGrid
from engine.fe.unit_kinds import is_ship

DISRUPT_RULE = "430.22"
LONG_TERM_RULE = "438.1"
GRID_RULE = "413.44"

LONG_TERM_TURNS = "long-term-capture-turns"
LONG_TERM_DEFAULT = 2

OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        LONG_TERM_TURNS,
        LONG_TERM_DEFAULT,
        "Player turns a captor holds a whole province before it pays the captor",
        LONG_TERM_RULE,
        bounds=(0, 99),
    ),
)
"""The rule options this module reads (a house-rule default until checked against a rulebook)."""


def long_term_turns(values: Mapping[str, OptionValue]) -> int:
    value = values.get(LONG_TERM_TURNS, LONG_TERM_DEFAULT)
    return value if isinstance(value, int) and not isinstance(value, bool) else LONG_TERM_DEFAULT


# --- disruption ------------------------------------------------------------------------------


def disrupted(board: Board, province: Province, owner: str) -> bool:
    """Whether a ship of an enemy of ``owner`` stands in any hex of ``province``.

    Read from the board's own hex index (`Board.at`: a province's hexes are mostly empty,
    each a dict look-up), with the ship test of the occupancy index
    (`engine.fe.occupancy.ship_empires`, `is_ship`), which reads the units alone: the map
    only adds its bases there, which are no ships."""
    return disrupted_by(board, province, foes_of(board, owner))


def foes_of(board: Board, owner: str) -> frozenset[str]:
    """The empires at war with ``owner`` on ``board`` (`Board.enemies`)."""
    return frozenset(e for pair in board.at_war for e in pair if board.enemies(e, owner))


def disrupted_by(board: Board, province: Province, foes: frozenset[str]) -> bool:
    """`disrupted` with the owner's enemies (`foes_of`) worked out once for all provinces."""
    return bool(foes) and any(
        unit.empire in foes and is_ship(unit) for h in province.hexes for unit in board.at(h)
    )


def disrupting_hexes(board: Board, foes: frozenset[str], hexes: Iterable[HexId]) -> set[HexId]:
    """Those of ``hexes`` where a ship of one of ``foes`` stands: a province is disrupted
    (`disrupted_by`) exactly when one of its hexes is among them.

    Asked once for all of an owner's provinces: each hex's stack is read from the board's hex
    index, an empty hex costs a look-up, and a stack with no foe in it (the owner's own
    fleets, most often) is passed over in C before any unit is asked whether it is a ship."""
    found: set[HexId] = set()
    if not foes:
        return found
    for h in hexes:
        here = board.at(h)
        if (
            here
            and not foes.isdisjoint(map(_EMPIRE, here))
            and any(unit.empire in foes and is_ship(unit) for unit in here)
        ):
            found.add(h)
    return found


_EMPIRE = attrgetter("empire")


# --- long-term capture ----------------------------------------------------------------------


def owner_of(galaxy: Galaxy, board: Board) -> Callable[[HexId], str]:
    """`Board.owner` of every hex, its owners read into a dict once (the first listed pair
    of a hex answers, as in `Board.owner`), not scanned for each hex asked about."""
    owned = dict(reversed(board.owners))

    def owner(h: HexId) -> str:
        found = owned.get(h)
        return found if found is not None else galaxy.hex(h).empire

    return owner


def captured_provinces(galaxy: Galaxy, board: Board, captor: str) -> list[str]:
    """Provinces of other empires whose every hex ``captor`` holds, by id.

    The map gives each province's hexes to the province's own empire (`Galaxy` refuses a
    map that does not), so only a province with a hex in the captures (``Board.owners``)
    credited to ``captor`` can be ``captor``'s: those are read, not every hex of the map."""
    taken = {h for h, empire in board.owners if empire == captor}
    if not taken:
        return []
    owner = owner_of(galaxy, board)
    return [
        p.id
        for p in galaxy.provinces
        if p.empire != captor
        and not taken.isdisjoint(p.hexes)
        and all(owner(h) == captor for h in p.hexes)
    ]


Held = tuple[tuple[str, str, int], ...]


def count_held(galaxy: Galaxy, board: Board, held: Held, captors: Sequence[str]) -> Held:
    """``held`` after step 1A3B of the ``captors``' player turn: one more turn for each
    province they hold, none for those they lost; other empires' counts unchanged."""
    before = {(p, c): n for p, c, n in held}
    out = {k: n for k, n in before.items() if k[1] not in captors}
    for captor in captors:
        for pid in captured_provinces(galaxy, board, captor):
            out[(pid, captor)] = before.get((pid, captor), 0) + 1
    return tuple(sorted((p, c, n) for (p, c), n in out.items()))


def long_term(held: Held, captor: str, turns: int) -> list[str]:
    """Provinces ``captor`` has held long enough to collect from (438.1), by id."""
    return sorted(p for p, c, n in held if c == captor and n >= turns)


def captured_planets(galaxy: Galaxy, board: Board, captor: str) -> list[HexId]:
    """Planet hexes of others that ``captor`` now owns and that are not devastated (508.2)."""
    return sorted(
        h
        for h, owner in board.owners
        if owner == captor
        and galaxy.hex(h).planets
        and galaxy.hex(h).empire != captor
        and h not in board.devastated
    )


# --- partial grids --------------------------------------------------------------------------


def grid_keys(grid: SupplyGrid) -> dict[int, HexId]:
    """Each partial grid's number -> its key: the lowest hex of its supply points."""
    keys: dict[int, HexId] = {}
    for point in grid.points:
        if point.grid >= 0 and not point.main and point.kind != "tug":
            keys[point.grid] = min(keys.get(point.grid, point.hex), point.hex)
    return keys


def where(grid: SupplyGrid, hexes: Sequence[HexId]) -> HexId | None:
    """The key of the partial grid that earns for these hexes, or None for the treasury."""
    return _where(grid, hexes, main_hexes(grid), grid_keys(grid))


@caches.by_identity(maxsize=8)
def main_hexes(grid: SupplyGrid) -> frozenset[HexId]:
    """The hexes of ``grid``'s main grid as a set (``status(h) == "main"`` for each): a
    province's hexes, or an army's, are told against it in C, once per grid (grids are kept
    per board). Callers must not rely on more than membership."""
    return frozenset(grid.main)


def _where(
    grid: SupplyGrid, hexes: Sequence[HexId], main: frozenset[HexId], keys: dict[int, HexId]
) -> HexId | None:
    """`where`, with the grid's main hexes (`main_hexes`) and partial grids' keys
    (`grid_keys`) read once for all the sources of an income."""
    if not main.isdisjoint(hexes):
        return None
    for h in sorted(hexes):
        number = grid.grid_of(h)
        if number is not None and number in keys:
            return keys[number]
    return None


class Split(msgspec.Struct, frozen=True):
    """One empire's income of a turn divided between its treasury and its partial grids."""

    treasury2: int
    grids: tuple[tuple[HexId, int], ...] = ()
    """``(key, ep2)`` per partial grid, by key, for grids that earned something."""


def split(
    galaxy: Galaxy,
    grid: SupplyGrid,
    total2: int,
    permille: int,
    provinces: Sequence[str],
    planets: Sequence[tuple[HexId, int]],
    offmap2: int,
) -> Split:
    """Divide ``total2`` (the income after the economy's share ``permille``) between the
    treasury and the partial grids its sources lie in (413.44): ``provinces`` that paid,
    ``planets`` as ``(hex, ep2)``, and the off-map area's ``offmap2``."""
    gross: dict[HexId, int] = {}
    main, keys = main_hexes(grid), grid_keys(grid)

    def earn(hexes: Sequence[HexId], ep2: int) -> None:
        key = _where(grid, hexes, main, keys)
        if key is not None and ep2:
            gross[key] = gross.get(key, 0) + ep2

    for pid in provinces:
        earn(galaxy.province(pid).hexes, 2 * PROVINCE_EP)
    for h, ep2 in planets:
        earn((h,), ep2)
    earn((OFF_MAP,), offmap2)
    kept = tuple((key, ep2 * permille // 1000) for key, ep2 in sorted(gross.items()))
    kept = tuple((key, ep2) for key, ep2 in kept if ep2)
    return Split(total2 - sum(ep2 for _, ep2 in kept), kept)


GridEp = tuple[tuple[str, HexId, int], ...]


class Settled(msgspec.Struct, frozen=True):
    """What reconnecting does to an empire's kept sums at Phase 1C3 (413.44)."""

    grid_ep: GridEp
    to_treasury2: int = 0
    moved: tuple[tuple[HexId, HexId, int], ...] = ()
    """``(old key, new key, ep2)``: sums whose grid joined another partial grid."""
    lost: tuple[tuple[HexId, int], ...] = ()


def settle(grid_ep: GridEp, empire: str, grid: SupplyGrid, earned: Split) -> Settled:
    """The empire's kept sums after this turn: old sums follow their key hex (into the
    treasury, another grid, or lost), then this turn's partial-grid income is added."""
    keys = grid_keys(grid)
    others = [entry for entry in grid_ep if entry[0] != empire]
    sums: dict[HexId, int] = {}
    to_treasury = 0
    moved: list[tuple[HexId, HexId, int]] = []
    lost: list[tuple[HexId, int]] = []
    for _, key, ep2 in (entry for entry in grid_ep if entry[0] == empire):
        status = grid.status(key)
        number = grid.grid_of(key)
        if status == "main":
            to_treasury += ep2
        elif number is not None and number in keys:
            new = keys[number]
            sums[new] = sums.get(new, 0) + ep2
            if new != key:
                moved.append((key, new, ep2))
        else:
            lost.append((key, ep2))
    for key, ep2 in earned.grids:
        sums[key] = sums.get(key, 0) + ep2
    mine = [(empire, key, ep2) for key, ep2 in sums.items() if ep2]
    return Settled(
        grid_ep=tuple(sorted([*others, *mine])),
        to_treasury2=to_treasury,
        moved=tuple(moved),
        lost=tuple(lost),
    )
