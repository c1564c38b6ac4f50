"""Who stands where on a board: the occupancy index the blocking table and others read.

Blocking (`engine.fe.blocking`), the stacks that earn income (`engine.fe.economics`), the
provinces' ships (`engine.fe.provinces`) and the supply step ask, hex by hex, which empires
have units, ships and fighters there, and where the bases stand. `board_index` answers all
of them from one pass over a board's units and the map's starting bases, kept for the last
few boards by identity.

A packet makes many boards, each a small change of the one before (`engine.fe.board_update`):
`defer_carry` leaves a new board what it needs to derive its index from an earlier board's
when first asked (`carry_index`: only the hexes the changed units left or entered are read
again), and `share_index` hands a board of the very same units the index as it is. Whatever
else is kept per board from the index (the blocking table's presence flags) is carried with
it by the function the maker of the board names (``carry_along``), so this module names
none of those readers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import compress, groupby
from operator import attrgetter

from engine.core import caches
from engine.fe import board_views
from engine.fe.forces import OFF_MAP, Board, Unit, taken_hexes
from engine.fe.galaxy import Galaxy, HexId, HexInfo
from engine.fe.unit_kinds import (
    base_class_ids,
    carries_attrition,
    class_id_of,
    class_of,
    is_base,
    is_ship,
)
from engine.fe.units import load_units

ANY, SHIP, ATTRITION, NONSHIP_ATTRITION = 1, 2, 4, 8
"""Per hex and empire in `_occupancy`: a unit; a ship; fighters or PFs on any unit; on a
non-ship unit (a base, a PDU, an auxiliary carrier)."""


def _occupancy(galaxy: Galaxy, board: Board) -> dict[HexId, dict[str, int]]:
    """Per hex, each empire's units there as `ANY`.. flags: one pass over the board's units
    and the map's starting bases, shared by every empire's presence flags on this board
    (`engine.fe.blocking`).
    Callers must not mutate the answer."""
    return board_index(galaxy, board)[0]


def ship_empires(galaxy: Galaxy, board: Board, h: HexId) -> list[str]:
    """The empires with ships (`is_ship`) in hex ``h`` (on the map), from the board's
    occupancy index: a hex's stack is read once per board, not once per question."""
    return [e for e, has in _occupancy(galaxy, board).get(h, {}).items() if has & SHIP]


def bases_on(galaxy: Galaxy, board: Board) -> tuple[Unit, ...]:
    """The board's bases (`is_base`) on the map, every empire's, in board order."""
    return board_index(galaxy, board)[1]


Index = tuple[dict[HexId, dict[str, int]], tuple[Unit, ...]]
"""What `board_index` answers: the occupancy flags by hex and empire, and the bases."""


@caches.by_identity(maxsize=4)
def board_index(galaxy: Galaxy, board: Board) -> Index:
    """`_occupancy` and `bases_on`, from one pass over the board's units.

    Kept for the last few boards (by identity): the supply, retrograde and strategic checks
    of one board ask for several empires in a row. A board `defer_carry` was told about gets
    it from the board it was made from, updated for the units changed since.
    """
    shared: Index | None = board.__dict__.get(_SHARED)
    if shared is not None:
        return shared  # (a board of the same units and owners: `share_index`)
    pending = board.__dict__.pop(_PENDING, None)
    if pending is not None:
        root, changed, empires, priors, carry_along = pending
        carry_index(galaxy, root, board, changed, empires, priors, carry_along)
        carried = caches.peek(board_index, galaxy, board)
        if carried is not None:
            return carried
    out: dict[HexId, dict[str, int]] = {}
    units = board.units
    # The flags read only a unit's hex, side, class and crippled state, so each distinct
    # combination is read once (a stack of like ships costs one), in the order the units
    # first show it: the hexes, and each hex's empires, come in the order of the units.
    # The distinct keys are found in C (`board_views.placed_kinds`, shared with the views
    # of the board's empires), not unit by unit, and each (side, class, crippled) is looked
    # up once, however many hexes it stands in.
    base_keys: set[tuple[str, str, bool]] = set()
    off_classes: set[str] = set()  # of units off the map
    other_classes: set[str] = set()  # of units that are no bases
    side_bits: dict[str, dict[tuple[str, bool], int]] = {}  # per empire, class and side
    for h, empire, cls, crippled in board_views.placed_kinds(board):
        if h == OFF_MAP:
            off_classes.add(cls)
            continue
        of = side_bits.get(empire)
        if of is None:
            of = side_bits[empire] = {}
        bits = of.get((cls, crippled))
        if bits is None:
            ship, attrition, is_a_base = _traits(empire, cls, crippled)
            bits = ANY | (SHIP if ship else 0)
            if attrition:
                bits |= ATTRITION if ship else ATTRITION | NONSHIP_ATTRITION
            of[cls, crippled] = bits
            if is_a_base:
                base_keys.add((empire, cls, crippled))
            else:
                other_classes.add(cls)
        here = out.get(h)
        if here is None:
            out[h] = {empire: bits}
        elif empire in here:
            here[empire] |= bits
        else:
            here[empire] = bits
    bases: tuple[Unit, ...] = ()
    if base_keys:  # every base on the map, in the units' order
        # Picked out in C by class name; then by side and class only if a unit of one of
        # those names is no base (another side's class of that name), and by hex only if
        # one is off the map.
        names = {cls for _, cls, _ in base_keys}
        named = list(compress(units, map(names.__contains__, map(_CLS, units))))
        if not names.isdisjoint(other_classes):
            named = list(compress(named, map(base_keys.__contains__, map(_SIDE_CLASS, named))))
        if not names.isdisjoint(off_classes):
            named = list(compress(named, map(OFF_MAP.__ne__, map(_HEX, named))))
        bases = tuple(named)
    for h, owners in _map_occupancy(_map_bases(galaxy, board.owners)).items():
        here = out.get(h)
        if here is None:
            out[h] = owners  # the map's own flags, shared (neither is ever mutated)
            continue
        for owner, bits in owners.items():
            here[owner] = here.get(owner, 0) | bits
    return out, bases


_SIDE_CLASS = attrgetter("empire", "cls", "crippled")
_HEX = attrgetter("hex")
_CLS = attrgetter("cls")


_PENDING = "_occupancy_from"
"""The key, in a board's ``__dict__``, of what `defer_carry` left for `board_index`: the
board to derive from, the units changed since it, by id, the empires whose presence flags
to carry, the changed units as that board has them (those it has), by id, and what carries
those flags (`carry_index`'s ``carry_along``)."""


def defer_carry(
    galaxy: Galaxy,
    before: Board,
    after: Board,
    changed: Mapping[str, Unit],
    empires: Sequence[str],
    priors: Mapping[str, Unit],
    carry_along: IndexCarrier | None = None,
) -> None:
    """Leave `board_index` what it needs to derive ``after``'s index (``after`` is
    ``before`` with the ``changed`` units, by id) when first asked, with ``empires``'
    presence flags (`carry_index`, ``carry_along``), instead of deriving them now.
    ``priors`` are the changed units as ``before`` has them (every one it has), which the
    record keeps as the first board of the chain had them: no unit index of that board is
    needed to find them.

    Most boards a packet makes are never asked (one per build, per placement, per move
    order, while only the supply and retrograde checks read the index): those cost nothing
    here, and the next board that is asked is derived in one pass over every unit changed
    since the last board whose index is held. Changes pile up only while they stay a small
    part of the board; past that a fresh reading is as cheap and the chain is dropped."""
    if held_index(galaxy, before) is not None:
        root, since, olds = before, dict(changed), dict(priors)
    else:
        pending = before.__dict__.get(_PENDING)
        if pending is None:
            return
        root, earlier, _, olds, _ = pending
        since = {**earlier, **changed}
        if 4 * len(since) > len(after.units):
            return
        # (a unit changed earlier in the chain is as the root has it already, or not on it)
        olds = {**olds, **{i: u for i, u in priors.items() if i not in earlier}}
    after.__dict__[_PENDING] = (root, since, tuple(empires), olds, carry_along)


def carry_index(
    galaxy: Galaxy,
    before: Board,
    after: Board,
    changed: Mapping[str, Unit],
    empires: Iterable[str] = (),
    priors: Mapping[str, Unit] | None = None,
    carry_along: IndexCarrier | None = None,
) -> None:
    """Hand `board_index` the index of ``after`` (``before`` with the ``changed`` units, by
    id), derived from ``before``'s if that is remembered: only the hexes those units left or
    entered are read again, and the bases only when a changed unit is or was one.

    ``priors`` are the changed units as ``before`` has them (every one it has); without
    them ``before`` must have built its unit index (``Board.unit``). ``after`` must share
    its owners. Otherwise nothing is done and ``after``'s index is built when first asked.
    Then ``carry_along`` (`engine.fe.blocking.carry_presence`), if given, carries what is
    kept per board from the index for ``empires`` (their presence flags) to ``after``."""
    held = held_index(galaxy, before)
    if held is None or after.owners != before.owners:
        return
    out, bases = held
    if priors is None:
        old_units = before.__dict__.get("_by_id")
        if old_units is None:
            return
        priors = {i: u for i in changed if (u := old_units.get(i)) is not None}
    news = list(changed.values())
    olds = list(priors.values())
    # (Each unit's fields are read by comprehensions: cheaper than `attrgetter` in C.)
    left = {u.hex for u in olds}
    # The changed units by the hex they stand in now, each hex's in their order: read by
    # runs of one hex (cut in C), as a moved stack's units follow each other.
    arrivals_at: dict[HexId, list[Unit]] = {}
    for h, run in groupby(news, _HEX):
        found = arrivals_at.get(h)
        if found is None:
            arrivals_at[h] = list(run)
        else:
            found.extend(run)
    touched = left.union(arrivals_at)
    touched.discard(OFF_MAP)
    # A moved stack is a few classes: each (side, class, crippled) is looked up once, and
    # only if one of their class ids is a base's somewhere (most moves are of ships).
    names = {u.cls for u in news} | {u.cls for u in olds}
    was_base = not base_class_ids().isdisjoint(map(class_id_of, names)) and any(
        _traits(*key)[2] for key in {*map(_SIDE_CLASS, news), *map(_SIDE_CLASS, olds)}
    )
    updates: dict[HexId, dict[str, int]] = {}
    map_bases = _map_bases_by_hex(_map_bases(galaxy, after.owners))
    for h in sorted(touched):
        # A hex that only gained units keeps its flags, with theirs added; one that a unit
        # left (or where one changed) is read again whole.
        arrivals = arrivals_at.get(h, ()) if h not in left else None
        here: dict[str, int] = {}
        for empire, cls, crippled in dict.fromkeys(
            [(u.empire, u.cls, u.crippled) for u in (after.at(h) if arrivals is None else arrivals)]
        ):
            here[empire] = here.get(empire, 0) | _side_bits(empire, cls, crippled)
        if arrivals is None:
            for owner, fighters in map_bases.get(h, ()):
                bits = ANY | (ATTRITION | NONSHIP_ATTRITION if fighters else 0)
                here[owner] = here.get(owner, 0) | bits
        else:
            for owner, bits in out.get(h, {}).items():
                here[owner] = here.get(owner, 0) | bits
        if here != out.get(h, {}):
            updates[h] = here
    # A change that leaves every flag as it was (a ship built where its like already
    # stands) shares the index: it is not to be mutated, and equal to a fresh one.
    new_out = out
    if updates:
        new_out = dict(out)
        for h, here in updates.items():
            if here:
                new_out[h] = here
            else:
                new_out.pop(h, None)
    if was_base:
        bases = tuple(
            u for u in after.units if u.hex != OFF_MAP and _traits(u.empire, u.cls, u.crippled)[2]
        )
    caches.prime(board_index, (new_out, bases), galaxy, after)
    if carry_along is not None:
        carry_along(galaxy, before, after, out, updates, empires)


IndexCarrier = Callable[
    [
        Galaxy,
        Board,
        Board,
        Mapping[HexId, dict[str, int]],
        Mapping[HexId, dict[str, int]],
        Iterable[str],
    ],
    None,
]
"""What `carry_index` calls once it has carried the index (``carry_along``): with the map,
the boards before and after, ``before``'s occupancy by hex, the hexes whose occupancy changed
(their new flags, empty for a hex left empty), and the empires named to it. A reader that
keeps something derived from a board's index (the blocking table's presence flags) updates
it so for the changed hexes only, without this module importing the reader."""


def awaits_carry(board: Board) -> bool:
    """Whether `defer_carry` left ``board`` an index to derive when first asked (which
    asking `board_index` does, with what ``carry_along`` carries)."""
    return _PENDING in board.__dict__


def share_index(galaxy: Galaxy, before: Board, after: Board) -> None:
    """Leave ``after``, a board of the very units of ``before`` (a turn begun, a war
    declared, a fleet released), ``before``'s `board_index` (or what `defer_carry` left it)
    when both boards have the same owners, which is all the index reads besides the units.
    The presence flags of the empires whose enemies are the same are left too, by the
    board's maker (`engine.fe.blocking.share_presence`); the others' are worked out again
    from the index when asked, at the cost of its kinds of hex (`blocking._alike`).

    It is left on the board (`_SHARED`), not handed to the cache, so it pushes out no
    entry of another board. (Handing those flags to the cache measured 0.8M instructions
    dearer on the cold turn bench, for nothing warm.)"""
    if after.owners != before.owners:
        return
    held = held_index(galaxy, before)
    if held is not None:
        after.__dict__[_SHARED] = held
        return
    pending = before.__dict__.get(_PENDING)
    if pending is not None and _PENDING not in after.__dict__:
        after.__dict__[_PENDING] = pending  # (derived when first asked, the same either way)


def held_index(galaxy: Galaxy, board: Board) -> Index | None:
    """`board_index` of ``board`` if held, or left by `share_index`; else None (nothing
    is read)."""
    held = caches.peek(board_index, galaxy, board)
    if held is None:
        held = board.__dict__.get(_SHARED)
    return held


_SHARED = "_occupancy_shared"
"""The key, in a board's ``__dict__``, of what `share_index` left: the `board_index` of a
board of the same units and owners."""


@caches.by_identity(maxsize=8)
def _map_bases_by_hex(
    bases: tuple[tuple[HexId, str, bool], ...],
) -> dict[HexId, tuple[tuple[str, bool], ...]]:
    """`_map_bases` by hex, each hex's in their order (not to be mutated)."""
    grouped: dict[HexId, list[tuple[str, bool]]] = {}
    for h, owner, fighters in bases:
        grouped.setdefault(h, []).append((owner, fighters))
    return {h: tuple(found) for h, found in grouped.items()}


@caches.by_identity(maxsize=8)
def _map_occupancy(
    bases: tuple[tuple[HexId, str, bool], ...],
) -> dict[HexId, dict[str, int]]:
    """The occupancy flags the map's starting bases (`_map_bases`) give, per hex and owner,
    in their order (added to a fresh `board_index` as they are; not to be mutated)."""
    found: dict[HexId, dict[str, int]] = {}
    for h, owner, fighters in bases:
        bits = ANY | (ATTRITION | NONSHIP_ATTRITION if fighters else 0)
        here = found.setdefault(h, {})
        here[owner] = here.get(owner, 0) | bits
    return found


@caches.by_identity(maxsize=8)
def _map_bases(
    galaxy: Galaxy, owners: tuple[tuple[HexId, str], ...]
) -> tuple[tuple[HexId, str, bool], ...]:
    """The map's starting bases as (hex, owner, carries fighters), one per base, owned as
    `Board.owner` reads ``owners`` (the first entry for a hex wins)."""
    taken = taken_hexes(owners)
    found: list[tuple[HexId, str, bool]] = []
    for info in feature_hexes(galaxy):
        owner = taken.get(info.hex, info.empire)
        for base in info.bases:
            fighters = carries_attrition(load_units().find(owner, base.kind), False)
            found.append((info.hex, owner, fighters))
    return tuple(found)


@caches.derived(maxsize=4096, shipped=True)
def _side_bits(empire: str, cls: str, crippled: bool) -> int:
    """The `ANY`.. occupancy flags a unit of this side, class and crippled state gives its
    hex (from `_traits`), looked up once."""
    ship, attrition, _ = _traits(empire, cls, crippled)
    bits = ANY | (SHIP if ship else 0)
    if attrition:
        bits |= ATTRITION if ship else ATTRITION | NONSHIP_ATTRITION
    return bits


@caches.derived(maxsize=4096, shipped=True)
def _traits(empire: str, cls: str, crippled: bool) -> tuple[bool, bool, bool]:
    """(is a ship, carries fighters or PFs, is a base) for a class and side, looked up once."""
    unit = Unit("", empire, cls, crippled=crippled)
    return is_ship(unit), carries_attrition(class_of(unit), crippled), is_base(unit)


@caches.by_identity(maxsize=4, shipped=True)
def feature_hexes(galaxy: Galaxy) -> tuple[HexInfo, ...]:
    """The hexes of the map that hold planets or bases (looked up once per map)."""
    return tuple(info for info in galaxy.hexes if info.bases or info.planets)
