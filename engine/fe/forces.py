"""Units on the map, and the board the rules areas read: who is where, who owns what, who fights.

This is the shared vocabulary of the rules modules (movement, reaction, supply, economics,
production...): each is a set of plain functions over a `Board`, testable with a small
hand-made one. A `Board` is immutable and canonical (units sorted by id, pairs sorted), so it
can sit inside the hashed game state as it is.

The board's unit and hex indexes are made when first asked; how a board made from another
starts with that board's, brought up to date for the units changed, is
`engine.fe.board_indexes`.

Factors are exact: "2" suffixes hold twice the printed value (``se2`` = 2 x ship equivalents,
so a cripple's half is an integer).
"""

import functools
import itertools
from bisect import bisect_left, insort_left
from collections.abc import ItemsView, Iterable, Mapping
from operator import attrgetter

import msgspec

from engine.core import caches
from engine.fe.board_indexes import ID_CARRY, LINK, Link, carry_indexes, hex_index_along
from engine.fe.galaxy import Galaxy, HexId
from engine.fe.id_search import found_by_id
from engine.fe.units import UnitClass, unit_class

OFF_MAP: HexId = 0
"""The hex of a unit that is not on the map (not set up yet, off-map area, destroyed)."""


CAPTURED_SEP = ":"
"""Separates the builder's empire from the class in a captured ship's ``cls``."""

MOST_UNITS = 20_000
"""The most units a board may hold. A whole F&E campaign has a few thousand counters; a
board can grow without the economy paying only by ``adjust place`` orders, which a packet
could otherwise hold by the ten thousand, making every later packet cost more."""


class Unit(msgspec.Struct, frozen=True, array_like=True, omit_defaults=True, gc=False):
    """One counter: a ship, base, convoy, FRD...

    ``id`` is stable for the whole game (``"KLI-0012"``); ``fleet`` is the starting fleet it
    belongs to (release conditions work per fleet), empty for units built later. Encoded as
    a short array without its trailing defaults: the Wind's board has over 500 of them, and
    the state is hashed after every packet.
    """

    id: str
    empire: str
    cls: str
    hex: HexId = OFF_MAP
    crippled: bool = False
    fleet: str = ""

    def info(self) -> UnitClass:
        """The unit's class in the Ship Information Tables."""
        return _class_info(self.empire, self.cls)

    def class_key(self) -> tuple[str, str]:
        """The empire whose tables hold the unit's class, and the class id: its own, or for a
        ship another empire captured (305.1) its builder's, written in ``cls`` as
        ``"KZI:CL"`` (so the counter's bytes, and every state hash, stay as they were)."""
        builder, sep, cls = self.cls.partition(CAPTURED_SEP)
        return (builder, cls) if sep else (self.empire, self.cls)


class Forces(msgspec.Struct, frozen=True, array_like=True):
    """One empire's units, sorted by id.

    The board is kept per empire so that a packet that moves one empire's ships leaves the
    other empires' tuples untouched: the same objects from state to state, whose digests
    `FeState.hash_form` remembers instead of re-hashing a thousand counters per packet.
    """

    empire: str
    units: tuple[Unit, ...] = ()


class Board(msgspec.Struct, frozen=True, dict=True):
    """The part of the game state the rules areas read.

    ``owners`` lists only the hexes whose owner differs from the starting map (captures);
    ``at_war`` holds sorted pairs of empires at war; ``released`` the starting fleets that may
    move (as ``(empire, fleet)``).
    """

    units: tuple[Unit, ...] = ()
    owners: tuple[tuple[HexId, str], ...] = ()
    at_war: tuple[tuple[str, str], ...] = ()
    released: tuple[tuple[str, str], ...] = ()
    devastated: tuple[HexId, ...] = ()
    """Planet hexes devastated (508.2x): they pay no income and supply nothing."""

    def owner(self, galaxy: Galaxy, h: HexId) -> str:
        for hex_id, empire in self.owners:
            if hex_id == h:
                return empire
        return galaxy.hex(h).empire

    def enemies(self, a: str, b: str) -> bool:
        return (min(a, b), max(a, b)) in self.at_war

    def unit(self, unit_id: str) -> Unit:
        """The unit of this id (KeyError if none): read from a carried index as it is
        (`board_indexes.carry_unit_index`), which is not made into the board's own for a
        look-up; found by search on a board known to be in id order that has no index
        (`_searched`)."""
        carried = self.__dict__.get(ID_CARRY)
        if carried is None:
            if _searched(self):
                return found_by_id(self.units, (unit_id,))[0]
            return self._by_id[unit_id]
        found: Unit | None = carried[1].get(unit_id)
        if found is None:
            found = carried[0][unit_id]
        return found

    def no_unit(self, unit_id: str) -> str:
        """The refusal of an id no unit has, naming the unit it is in other capitals
        (``kli-0001``): ids are matched exactly, as a packet signs them."""
        said = f"there is no unit {unit_id}"
        written = unit_id.strip().upper()
        if written == unit_id:
            return said
        try:
            return f"{said}; its id is written {self.unit(written).id}"
        except KeyError:
            return said

    @functools.cached_property
    def _by_id(self) -> dict[str, Unit]:
        """Units by id, built on first use (a board is immutable); from the index of an
        earlier board and the units changed since, when `board_indexes.carry_unit_index`
        left them."""
        carried = self.__dict__.pop(ID_CARRY, None)
        if carried is not None:
            by_id = dict(carried[0])
            by_id.update(carried[1])
            return by_id
        return {unit.id: unit for unit in self.units}

    def units_named(self, unit_ids: Iterable[str]) -> list[Unit]:
        """The units of these ids, in their order; KeyError for an id not on the board. A
        carried index (`board_indexes.carry_unit_index`) is read as it is, not made whole
        for a look-up."""
        carried = self.__dict__.get(ID_CARRY)
        if carried is None:
            if _searched(self):
                return found_by_id(self.units, unit_ids)
            return list(map(self._by_id.__getitem__, unit_ids))
        index: Mapping[str, Unit] = carried[0]
        since: Mapping[str, Unit] = carried[1]
        ids = list(unit_ids)
        if since.keys().isdisjoint(ids):  # (none changed since the index: read in C)
            return list(map(index.__getitem__, ids))
        return [since.get(uid) or index[uid] for uid in ids]

    def at(self, h: HexId) -> tuple[Unit, ...]:
        """The units in a hex, in the board's order (id order on a board `with_units` made;
        empire, then id, on a state's board)."""
        return self._by_hex.get(h, ())

    @functools.cached_property
    def _by_hex(self) -> dict[HexId, tuple[Unit, ...]]:
        """Units by hex (each tuple in the order of ``units``), built on first use: from
        each empire's part (`units_by_hex`, which the per-empire views read too) when the
        board was joined from parts (`PARTS`), so each unit is read once for both; from
        the board it was made from, when `board_indexes.link_hex_index` left a link to it
        (or, if no board up its chain holds an index, from its units)."""
        link: Link | None = self.__dict__.pop(LINK, None)
        if link is not None:  # derived from the nearest board before it that holds one
            along = hex_index_along(link)
            return along if along is not None else _grouped_by_hex(self.units)
        parts: tuple[tuple[Unit, ...], ...] | None = self.__dict__.get(PARTS)
        if parts is None:
            return _grouped_by_hex(self.units)
        merged: dict[HexId, tuple[Unit, ...]] = {}
        for part in parts:
            for h, here in units_by_hex(part).items():
                held = merged.get(h)
                merged[h] = here if held is None else held + here
        return merged

    def stacks(self) -> ItemsView[HexId, tuple[Unit, ...]]:
        """Each hex holding units (`OFF_MAP` too) with its units, as `at` gives them; the
        hexes in no particular order."""
        return self._by_hex.items()

    @functools.cached_property
    def _id_sorted(self) -> bool:
        """Whether ``units`` are in strictly increasing id order (`with_units` then finds a
        unit by bisection instead of reading them all)."""
        ids = [unit.id for unit in self.units]
        return all(a < b for a, b in itertools.pairwise(ids))

    def with_id_prefix(self, prefix: str) -> tuple[Unit, ...]:
        """The units whose id starts with ``prefix`` (not empty), in the board's order: on
        an id-sorted board a slice found by bisection, not a pass over every unit."""
        if not self._id_sorted:
            return tuple(u for u in self.units if u.id.startswith(prefix))
        after = prefix[:-1] + chr(ord(prefix[-1]) + 1)  # every id with the prefix sorts below
        first = bisect_left(self.units, prefix, key=_ID)
        return self.units[first : bisect_left(self.units, after, lo=first, key=_ID)]

    def is_released(self, unit: Unit) -> bool:
        return not unit.fleet or (unit.empire, unit.fleet) in self.released

    def with_units(self, units: Iterable[Unit]) -> "Board":
        """A board with these units replacing those of the same id (kept sorted by id).

        The new board remembers which board and which units it was made from (`changes_from`),
        so that `engine.fe.model.FeState.with_board` rebuilds only the empires those units
        belong to; and it starts with the unit and hex indexes of this board brought up to
        date for them, when this board had built its own.
        """
        changed = {u.id: u for u in units}
        if not self._id_sorted:
            unique = len(self._by_id) == len(self.units)
            remaining = dict(changed)
            merged = [remaining.pop(u.id, u) for u in self.units]
            merged.extend(remaining.values())
            board = msgspec.structs.replace(self, units=tuple(sorted(merged, key=_ID)))
            board.__dict__["_id_sorted"] = True
            if unique:  # (a captured ship kept its id): the change is still known
                board.__dict__["_origin"] = (self, changed)
            return board
        # Sorted and unique: each changed unit's place is found by bisection; a new id goes
        # where the sort would have put it.
        placed = list(self.units)
        added: list[Unit] = []
        priors: dict[str, Unit] = {}  # the units replaced, as this board has them
        for uid, unit in changed.items():
            i = bisect_left(placed, uid, key=_ID)
            if i < len(placed) and placed[i].id == uid:
                priors[uid] = placed[i]
                placed[i] = unit
            else:
                added.append(unit)
        for unit in added:
            insort_left(placed, unit, key=_ID)
        board = msgspec.structs.replace(self, units=tuple(placed))
        board.__dict__["_id_sorted"] = True
        root, before = self.__dict__.get("_origin", (self, {}))
        board.__dict__["_origin"] = (root, {**before, **changed})
        carry_indexes(self, board, changed, _ID, priors)
        return board

    def changes_from(self) -> "tuple[Board, Mapping[str, Unit]] | None":
        """The board this one was made from by `with_units` (calls in a row count as one),
        with the units changed since, by id; None for a board made otherwise."""
        origin: tuple[Board, Mapping[str, Unit]] | None = self.__dict__.get("_origin")
        return origin


_ID = attrgetter("id")


def _searched(board: Board) -> bool:
    """Whether ``board``'s units are found by search (`found_by_id`), a few readings each: it
    has no unit index (nor a carried one) to build for all, and is known to be in id order."""
    return "_by_id" not in board.__dict__ and board.__dict__.get("_id_sorted") is True


PARTS = "_parts"
"""The key, in a board's ``__dict__``, of the units tuples (one per empire, `Forces.units`)
that ``units`` is, end to end, when the board was joined from them
(`engine.fe.board_update.board_of`): the views kept per part are then shared by the board's
own (its hex index, `engine.fe.board_views.placed_kinds`)."""


def _grouped_by_hex(units: tuple[Unit, ...]) -> dict[HexId, tuple[Unit, ...]]:
    """``units`` by hex, each hex's in their order, the hexes in the order the units first
    show them.

    Read by runs of one hex (`itertools.groupby`, in C): units in id order stand in runs,
    as a fleet's ids follow each other and a fleet stands together (The Wind's units make
    about one run per five units), so the Python loop turns once a run, not once a unit."""
    grouped: dict[HexId, list[Unit]] = {}
    get = grouped.get
    for h, run in itertools.groupby(units, _HEX):
        here = get(h)
        if here is None:
            grouped[h] = list(run)
        else:
            here.extend(run)
    return {h: tuple(here) for h, here in grouped.items()}


@caches.by_identity(maxsize=24)
def units_by_hex(units: tuple[Unit, ...]) -> dict[HexId, tuple[Unit, ...]]:
    """``units`` (one empire's `Forces.units`, by identity) by hex, each hex's in their
    order; the hexes in the order the units first show them. Not to be mutated.

    A board joined from parts builds its hex index from these (`Board.at`), and an empire's
    per-hex views (`engine.fe.board_views.lookup_of`) read the same dict: after a state is
    decoded its units are grouped once, not once per view."""
    return _grouped_by_hex(units)


_HEX = attrgetter("hex")


@caches.derived(maxsize=4096, shipped=True)
def _class_info(empire: str, cls: str) -> UnitClass:
    """`Unit.info` of a unit of ``empire`` whose ``cls`` is this (a captured ship's names its
    builder): read from the tables once per pair. A class not in the tables raises KeyError,
    which is not remembered."""
    builder, sep, own = cls.partition(CAPTURED_SEP)
    return unit_class(builder, own) if sep else unit_class(empire, cls)


def war_pairs(pairs: Iterable[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """Canonical ``at_war``: each pair sorted, the list sorted, no duplicates."""
    return tuple(sorted({(min(a, b), max(a, b)) for a, b in pairs}))


def allowance(unit: Unit) -> int:
    """Operational movement allowance in hexes (203.1): the class's movement value."""
    return unit.info().move


def class_allowance(empire: str, cls: str) -> int:
    """`allowance` of a unit of ``empire`` whose ``cls`` is this."""
    return _class_info(empire, cls).move


def ship_equivalents2(unit: Unit) -> int:
    """Twice the unit's ship equivalents for pinning (203.5): a ship 2, a cripple 1; none
    for units that do not move (bases, PDUs): they cannot pin or be pinned."""
    info = unit.info()
    if info.move == 0 or info.not_spaceworthy:
        return 0
    return 1 if unit.crippled else 2


def taken_hexes(owners: tuple[tuple[HexId, str], ...]) -> dict[HexId, str]:
    """A board's ``owners`` entries as a dict, the first entry of a hex holding, as
    `Board.owner` reads them: the hexes whose owner is not the map's."""
    taken: dict[HexId, str] = {}
    for h, empire in owners:
        taken.setdefault(h, empire)
    return taken
