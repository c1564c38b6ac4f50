"""Units on the map, and the board the rules areas read: who is where, who owns what, who fights.

This is the shared vocabulary of the rules modules (movement, reaction, supply, economics,
production...): each is a set of plain functions over a `Board`, testable with a small
hand-made one. A `Board` is immutable and canonical (units sorted by id, pairs sorted), so it
can sit inside the hashed game state as it is.

Factors are exact: "2" suffixes hold twice the printed value (``se2`` = 2 x ship equivalents,
so a cripple's half is an integer).
"""

import functools
import itertools
from bisect import bisect_left, insort_left
from collections.abc import Callable, ItemsView, Iterable, Mapping, Sequence
from operator import attrgetter
from typing import Any

import msgspec

from engine.core import caches
from engine.fe.galaxy import Galaxy, HexId
from engine.fe.id_search import found_by_id
from engine.fe.units import UnitClass, unit_class

OFF_MAP: HexId = 0
"""The hex of a unit that is not on the map (not set up yet, off-map area, destroyed)."""


CAPTURED_SEP = ":"
"""Separates the builder's empire from the class in a captured ship's ``cls``."""


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
        (`carry_unit_index`), which is not made into the board's own for a look-up; found
        by search on a board known to be in id order that has no index (`_searched`)."""
        carried = self.__dict__.get(ID_CARRY)
        if carried is None:
            if _searched(self):
                return found_by_id(self.units, (unit_id,))[0]
            return self._by_id[unit_id]
        found: Unit | None = carried[1].get(unit_id)
        if found is None:
            found = carried[0][unit_id]
        return found

    @functools.cached_property
    def _by_id(self) -> dict[str, Unit]:
        """Units by id, built on first use (a board is immutable); from the index of an
        earlier board and the units changed since, when `carry_unit_index` left them."""
        carried = self.__dict__.pop(ID_CARRY, None)
        if carried is not None:
            by_id = dict(carried[0])
            by_id.update(carried[1])
            return by_id
        return {unit.id: unit for unit in self.units}

    def units_named(self, unit_ids: Iterable[str]) -> list[Unit]:
        """The units of these ids, in their order; KeyError for an id not on the board. A
        carried index (`carry_unit_index`) is read as it is, not made whole for a look-up."""
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
        the board it was made from, when `link_hex_index` left a link to it."""
        link: Link | None = self.__dict__.pop(LINK, None)
        if link is not None:  # derived from the nearest board before it that holds one
            return _hex_index_along(link, self.units)
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


ID_CARRY = "_by_id_from"
"""The key, in a board's ``__dict__``, of a unit index not made yet (`carry_unit_index`):
the index of an earlier board and the units changed since, by id."""

ID_CARRY_LIMIT = 64
ID_CARRY_SHARE = 4
"""Past ``ID_CARRY_LIMIT`` units changed since the index it starts from, or a
``1 / ID_CARRY_SHARE`` share of it if more, a board makes its own unit index at once: the
changes it would otherwise copy along cost as much. (A copy of the index costs about as
much per unit as a copy of the changes: moves of stacks bigger than the limit copy the index
once every few moves, not once a move.)"""


def unit_lookup(board: Board) -> tuple[Mapping[str, Unit], Mapping[str, Unit]]:
    """The board's units by id as two mappings, the second read first: its own index (and
    nothing), or the index of an earlier board and the units changed since, when the board
    has not made its own yet (`carry_unit_index`). Not to be mutated."""
    built = board.__dict__
    by_id: dict[str, Unit] | None = built.get("_by_id")
    if by_id is not None:
        return by_id, {}
    carried: tuple[Mapping[str, Unit], Mapping[str, Unit]] | None = built.get(ID_CARRY)
    if carried is not None:
        return carried
    return board._by_id, {}


def own_unit_index(board: Board) -> dict[str, Unit]:
    """The board's own unit index, made now if it was not (from a carried one if left)."""
    return board._by_id


def carry_unit_index(before: Board, after: Board, changed: Mapping[str, Unit]) -> None:
    """Give ``after`` (``before`` with the ``changed`` units, by id; no unit taken out) the
    unit index of ``before`` brought up to date, when ``before`` has one: without copying
    it, as the index of ``before`` (or the board it was carried from) and the units changed
    since, which ``after._by_id`` turns into its own index when first asked. A packet's
    builds and placements add a unit at a time: each would otherwise copy every unit's
    entry. Nothing is given when ``before`` has no index (``after`` builds its own)."""
    built = before.__dict__
    by_id: dict[str, Unit] | None = built.get("_by_id")
    if by_id is not None:
        index: Mapping[str, Unit] = by_id
        since: dict[str, Unit] = dict(changed)
    else:
        carried: tuple[Mapping[str, Unit], Mapping[str, Unit]] | None = built.get(ID_CARRY)
        if carried is None:
            return
        index, earlier = carried
        since = {**earlier, **changed}
    if len(since) > max(ID_CARRY_LIMIT, len(index) // ID_CARRY_SHARE):
        made = dict(index)
        made.update(since)
        after.__dict__["_by_id"] = made
    else:
        after.__dict__[ID_CARRY] = (index, since)


def carry_indexes(
    before: Board,
    after: Board,
    changed: Mapping[str, Unit],
    order: Callable[[Unit], Any],
    priors: Mapping[str, Unit],
) -> None:
    """Give ``after`` (``before`` with the ``changed`` units; ``priors`` those ids' units on
    ``before``) the indexes ``before`` built, updated for those units only: what they would
    be if built from ``after.units``, whose order is ``order`` (the key ``units`` is sorted
    by). The unit index is carried without a copy (`carry_unit_index`), the hex index with
    the hexes touched made anew."""
    carry_unit_index(before, after, changed)
    if "_by_hex" in before.__dict__:
        carry_hex_index(before, after, changed, order, ({}, {}), priors)


BISECT_FACTOR = 32
"""A stack that units leave is read whole unless it holds this many times as many units as
leave it: each unit found by bisection costs a few dozen readings of a unit's sort key."""


def _without(
    stack: tuple[Unit, ...], gone: Sequence[Unit], order: Callable[[Unit], Any]
) -> list[Unit] | None:
    """``stack`` (sorted by ``order``) without the ``gone`` units, each found by bisection;
    None if one is not where the order puts it."""
    here = list(stack)
    for prior in gone:
        i = bisect_left(here, order(prior), key=order)
        if i >= len(here) or here[i].id != prior.id:
            return None
        del here[i]
    return here


LINK = "_hex_index_from"
"""The key, in a board's ``__dict__``, of its `Link`: left by `link_hex_index`, dropped once
the board has made its own hex index."""

Link = tuple[Board, Mapping[str, Unit], Mapping[str, Unit], int]
"""The board a board was made from (`engine.fe.board_update.with_units`, in `BOARD_ORDER`),
the units changed (by id), those ids' units on the board made from (`prior_units`), and how
many links lead back to a board holding its hex index."""

LINK_LIMIT = 64
"""The longest chain of links: a board made past it first makes the hex index of the board
it is made from, so a chain keeps at most this many boards alive (each a tuple of its units
and a few small dicts: boards never asked for their hex index hold none)."""


def link_hex_index(
    before: Board, after: Board, changed: Mapping[str, Unit], priors: Mapping[str, Unit]
) -> None:
    """Leave ``after`` (``before`` with the ``changed`` units, by id; ``priors`` those ids'
    units on ``before``) a link to ``before`` instead of its hex index: `Board._by_hex`
    derives it when first asked, from the nearest board up the chain that holds one, for
    every unit changed since at once (`_hex_index_along`). A packet of builds makes a board
    per build and asks few of them; each made its own index before, a copy of every hex.
    Nothing is left when no board up the chain holds an index (``after`` then reads its
    units when asked)."""
    built = before.__dict__
    if "_by_hex" in built:
        depth = 1
    else:
        link: Link | None = built.get(LINK)
        if link is None:
            return
        depth = link[3] + 1
        if depth > LINK_LIMIT:  # the chain starts again at ``before``, made now
            before._by_hex  # noqa: B018  (made and kept by the property)
            depth = 1
    after.__dict__[LINK] = (before, changed, priors, depth)


def hex_index_at_hand(board: Board) -> bool:
    """Whether ``board`` holds its hex index or a link to derive it from (`link_hex_index`)."""
    return "_by_hex" in board.__dict__ or LINK in board.__dict__


def _hex_index_along(link: Link, units: tuple[Unit, ...]) -> dict[HexId, tuple[Unit, ...]]:
    """The hex index of the board ``link`` was left on (whose units are ``units``): the
    index of the nearest board up the chain that holds one, with every change since made
    at once (`updated_hex_index`). A unit changed twice counts once: the last change is the
    unit, and the board holding the index has the first one's prior."""
    deltas = []
    root = None
    step: Link | None = link
    while step is not None:
        parent, changed, priors, _ = step
        deltas.append((changed, priors))
        if "_by_hex" in parent.__dict__:
            root = parent
            break
        step = parent.__dict__.get(LINK)
    if root is None:  # (not left so: each board up a chain holds an index or a link)
        return _grouped_by_hex(units)
    if len(deltas) == 1:
        return updated_hex_index(root.__dict__["_by_hex"], *deltas[0], BOARD_ORDER)
    since: dict[str, Unit] = {}
    first_priors: dict[str, Unit] = {}
    for changed, priors in reversed(deltas):  # oldest first
        for uid, prior in priors.items():
            if uid not in since:  # (else ``prior`` is a change made since ``root``)
                first_priors[uid] = prior
        since.update(changed)
    return updated_hex_index(root.__dict__["_by_hex"], since, first_priors, BOARD_ORDER)


def carry_hex_index(
    before: Board,
    after: Board,
    changed: Mapping[str, Unit],
    order: Callable[[Unit], Any],
    old: tuple[Mapping[str, Unit], Mapping[str, Unit]],
    priors: Mapping[str, Unit] | None = None,
) -> None:
    """Give ``after`` (``before`` with the ``changed`` units) the hex index of ``before``
    (which it must have built) updated for those units: only the hexes they left or
    entered are made anew. ``old`` holds the units of ``before`` by id (`unit_lookup`);
    ``order`` is the key both boards' units are sorted by.

    A unit leaving a stack is found in it by bisection, as each stack is in that order:
    leaving the stack of every unit not set up yet costs a copy of the stack, not a reading
    of each of its units. A stack that leaves whole is not read at all, nor is one entering
    an empty hex in order sorted (`_left`, `_entered`). ``priors``, the changed units as
    ``before`` has them (`prior_units`), may be given by a caller that has them already."""
    if priors is None:  # (the caller may have them: `prior_units` of the changed ids)
        priors = prior_units(old, changed)
    after.__dict__["_by_hex"] = updated_hex_index(
        before.__dict__["_by_hex"], changed, priors, order
    )


def updated_hex_index(
    held: Mapping[HexId, tuple[Unit, ...]],
    changed: Mapping[str, Unit],
    priors: Mapping[str, Unit],
    order: Callable[[Unit], Any],
) -> dict[HexId, tuple[Unit, ...]]:
    """The hex index ``held`` (of a board sorted by ``order``) with the ``changed`` units
    made, ``priors`` being those ids' units in it (`carry_hex_index`): a copy in which only
    the hexes they left or entered are made anew."""
    by_hex = dict(held)
    leaving = _grouped(priors.values())
    arrivals_at = _grouped(changed.values())  # the changed units by hex, read once
    for h in sorted(leaving.keys() | arrivals_at.keys()):
        stack = _left(by_hex.get(h, ()), leaving.get(h, ()), changed, order)
        here = _entered(stack, arrivals_at.get(h, []), order)
        if here:
            by_hex[h] = tuple(here)
        else:
            by_hex.pop(h, None)
    return by_hex


def _left(
    stack: tuple[Unit, ...],
    gone: Sequence[Unit],
    changed: Mapping[str, Unit],
    order: Callable[[Unit], Any],
) -> list[Unit]:
    """``stack`` (sorted by ``order``) without the units of ``changed`` ids, ``gone`` being
    those of them that stood there: none read when all of it leaves (a stack moving on),
    each found by bisection when few leave a big stack, else the stack read whole."""
    if len(gone) == len(stack):
        return []  # (the units that stood there are the stack's, each once)
    here = None
    if BISECT_FACTOR * len(gone) < len(stack):
        here = _without(stack, gone, order)
    if here is None:  # read the stack whole
        here = [u for u in stack if u.id not in changed]
    return here


def _entered(here: list[Unit], arrivals: list[Unit], order: Callable[[Unit], Any]) -> list[Unit]:
    """``here`` (sorted by ``order``) with ``arrivals`` put where the order puts them: a few
    by bisection; a stack of one empire entering an empty hex as it came when its ids are in
    order (told by comparing the ids, cheaper than sorting by the key); else sorted."""
    if not arrivals:
        return here
    if 8 * len(arrivals) < len(here):  # each goes where the order puts it
        for unit in arrivals:
            insort_left(here, unit, key=order)
        return here
    if not here and order is BOARD_ORDER and len({u.empire for u in arrivals}) == 1:
        ids = [u.id for u in arrivals]
        if ids == sorted(ids):
            return arrivals
    here.extend(arrivals)  # (what stayed is in order already)
    here.sort(key=order)
    return here


def prior_units(
    old: tuple[Mapping[str, Unit], Mapping[str, Unit]], ids: Iterable[str]
) -> dict[str, Unit]:
    """The units ``ids`` name in a unit lookup (`unit_lookup`: the second mapping read
    first), by id in the order of ``ids``; the ids it does not hold are left out."""
    index, since = old
    if since:
        return {uid: u for uid in ids if (u := since.get(uid) or index.get(uid)) is not None}
    return {uid: u for uid in ids if (u := index.get(uid)) is not None}


def _grouped(units: Iterable[Unit]) -> dict[HexId, list[Unit]]:
    """``units`` by hex, each hex's in their order: a stack in one hex told by a set."""
    units = list(units)
    hexes = {u.hex for u in units}
    if len(hexes) == 1:
        return {hexes.pop(): units}
    grouped: dict[HexId, list[Unit]] = {}
    for unit in units:
        grouped.setdefault(unit.hex, []).append(unit)
    return grouped


BOARD_ORDER = attrgetter("empire", "id")
"""The order of a state's board (`engine.fe.board_update`): empire, then id."""
_HEX = attrgetter("hex")


@caches.derived(maxsize=4096)
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
