"""What blocks supply paths and retrograde movement.

The play aid "Blocking supply and retrograde" is a table of hex conditions (enemy units in
the hex, friendly ships or non-ship units, enemy ships or fighters next door); `blocks`
transcribes it and documents each reading, `Blocking` answers it hex by hex for a whole
board at once (an index of who is where, built once). Supply (`engine.fe.supply`),
retrograde (`engine.fe.retrograde`) and strategic movement (`engine.fe.strategic`) use it.

The table needs to know what a unit *is* (756.0: ships and non-ship units; bases; fighters):
those predicates are `engine.fe.unit_kinds`. Marks as in ``fe-rules-notes.md``: S sourced,
I inferred, C a choice that should become a game option.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import compress, groupby, repeat
from operator import attrgetter
from typing import Literal

from engine.core import caches, hexgrid
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

Purpose = Literal["supply", "retrograde"]

BLOCKING_RULE = "411.3"


# --- the blocking table ---------------------------------------------------------------------

_F_ANY, _F_SHIP, _F_FIGHTERS, _E_ANY, _E_SHIP, _E_FIGHTERS = 1, 2, 4, 8, 16, 32


_ANY, _SHIP, _ATTRITION, _NONSHIP_ATTRITION = 1, 2, 4, 8
"""Per hex and empire in `_occupancy`: a unit; a ship; fighters or PFs on any unit; on a
non-ship unit (a base, a PDU, an auxiliary carrier)."""


def _occupancy(galaxy: Galaxy, board: Board) -> dict[HexId, dict[str, int]]:
    """Per hex, each empire's units there as `_ANY`.. flags: one pass over the board's units
    and the map's starting bases, shared by every empire's `_presence` on this board.
    Callers must not mutate the answer."""
    return board_index(galaxy, board)[0]


def ship_empires(galaxy: Galaxy, board: Board, h: HexId) -> list[str]:
    """The empires with ships (`is_ship`) in hex ``h`` (on the map), from the board's
    occupancy index: a hex's stack is read once per board, not once per question."""
    return [e for e, has in _occupancy(galaxy, board).get(h, {}).items() if has & _SHIP]


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
        root, changed, empires, priors = pending
        carry_index(galaxy, root, board, changed, empires, priors)
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
            bits = _ANY | (_SHIP if ship else 0)
            if attrition:
                bits |= _ATTRITION if ship else _ATTRITION | _NONSHIP_ATTRITION
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


_PENDING = "_blocking_from"
"""The key, in a board's ``__dict__``, of what `defer_carry` left for `board_index`: the
board to derive from, the units changed since it, by id, the empires whose presence flags
to carry, and the changed units as that board has them (those it has), by id."""


def defer_carry(
    galaxy: Galaxy,
    before: Board,
    after: Board,
    changed: Mapping[str, Unit],
    empires: Sequence[str],
    priors: Mapping[str, Unit],
) -> None:
    """Leave `board_index` what it needs to derive ``after``'s index (``after`` is
    ``before`` with the ``changed`` units, by id) when first asked, with the presence flags
    (`carry_index`), instead of deriving them now. ``priors`` are the changed units as
    ``before`` has them (every one it has), which the record keeps as the first board of
    the chain had them: no unit index of that board is needed to find them.

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
        root, earlier, _, olds = pending
        since = {**earlier, **changed}
        if 4 * len(since) > len(after.units):
            return
        # (a unit changed earlier in the chain is as the root has it already, or not on it)
        olds = {**olds, **{i: u for i, u in priors.items() if i not in earlier}}
    after.__dict__[_PENDING] = (root, since, tuple(empires), olds)


def carry_index(
    galaxy: Galaxy,
    before: Board,
    after: Board,
    changed: Mapping[str, Unit],
    empires: Iterable[str] = (),
    priors: Mapping[str, Unit] | None = None,
) -> None:
    """Hand `board_index` the index of ``after`` (``before`` with the ``changed`` units, by
    id), derived from ``before``'s if that is remembered: only the hexes those units left or
    entered are read again, and the bases only when a changed unit is or was one.

    ``priors`` are the changed units as ``before`` has them (every one it has); without
    them ``before`` must have built its unit index (``Board.unit``). ``after`` must share
    its owners. Otherwise nothing is done and ``after``'s index is built when first asked."""
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
                bits = _ANY | (_ATTRITION | _NONSHIP_ATTRITION if fighters else 0)
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
    if after.at_war != before.at_war:
        return
    # Each of these empires' presence flags, if remembered for ``before``, changes only in
    # the hexes whose occupancy changed.
    for empire in empires:
        flags = caches.peek(presence_set, galaxy, before, empire)  # (asked: held)
        if flags is None:
            continue
        at_war: dict[str, bool] = {}
        gone: set[tuple[HexId, int]] = set()
        came: set[tuple[HexId, int]] = set()
        for h, new_here in updates.items():
            old_here = out.get(h)
            if old_here and (bits := _hex_flags(before, empire, old_here.items(), at_war)):
                gone.add((h, bits))
            if new_here and (bits := _hex_flags(after, empire, new_here.items(), at_war)):
                came.add((h, bits))
        kept = flags if gone == came else (flags - gone) | came
        caches.prime(presence_set, kept, galaxy, after, empire)


def share_index(galaxy: Galaxy, before: Board, after: Board) -> None:
    """Leave ``after``, a board of the very units of ``before`` (a turn begun, a war
    declared, a fleet released), ``before``'s `board_index` (or what `defer_carry` left it)
    when both boards have the same owners, which is all the index reads besides the units.
    Each empire's presence flags are worked out again from it when asked, at the cost of
    its kinds of hex (`_alike`).

    It is left on the board (`_SHARED`), not handed to the cache, so it pushes out no
    entry of another board. (Sharing the flags of the empires whose enemies are the same
    too measured 0.8M instructions dearer on the cold turn bench, for nothing warm.)"""
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


_SHARED = "_blocking_shared"
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
        bits = _ANY | (_ATTRITION | _NONSHIP_ATTRITION if fighters else 0)
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


def _presence(galaxy: Galaxy, board: Board, empire: str) -> dict[HexId, int]:
    """Per hex, which of the empire's (F) and its enemies' (E) units are there, as flags.

    The map's starting bases count as units of the hex's owner (a base is a non-ship unit).
    Units of empires that are neither the empire nor at war with it are ignored (C: an ally's
    units do not open paths; the Board has no alliances yet).
    """
    flags: dict[HexId, int] = {}
    at_war: dict[str, bool] = {}
    for h, here in _occupancy(galaxy, board).items():
        bits = _hex_flags(board, empire, here.items(), at_war)
        if bits:
            flags[h] = bits
    return flags


def _hex_flags(
    board: Board, empire: str, here: Iterable[tuple[str, int]], at_war: dict[str, bool]
) -> int:
    """`_presence`'s flags of one hex from its occupancy, as (owner, `_ANY`.. flags) pairs
    (``at_war`` remembers, per other empire, whether it is ``empire``'s enemy on ``board``)."""
    bits = 0
    for owner, has in here:
        if owner == empire:
            bits |= _F_ANY | (_F_SHIP if has & _SHIP else 0)
            bits |= _F_FIGHTERS if has & _ATTRITION else 0
            continue
        enemy = at_war.get(owner)
        if enemy is None:
            enemy = at_war[owner] = board.enemies(empire, owner)
        if enemy:
            bits |= _E_ANY | (_E_SHIP if has & _SHIP else 0)
            # Fighters on enemy ships are covered by the ship rows; only fighters on
            # enemy non-ship units (bases, PDUs, auxiliary carriers) add the fighter rows.
            bits |= _E_FIGHTERS if has & _NONSHIP_ATTRITION else 0
    return bits


@caches.by_identity(maxsize=4)
def _alike(
    occupancy: dict[HexId, dict[str, int]],
) -> tuple[tuple[tuple[tuple[str, int], ...], tuple[HexId, ...]], ...]:
    """The occupancy's hexes grouped by what stands there (the same empires with the same
    flags), each group's hexes in the occupancy's order: one empire's presence flags are the
    same for every hex of a group, so `presence_set` works them out once per group (a board
    has a few dozen kinds of hex for hundreds of occupied hexes), for every empire asked
    about the same board. Kept by identity of the occupancy dict (`board_index`'s, which is
    never mutated)."""
    groups: dict[tuple[tuple[str, int], ...], list[HexId]] = {}
    for h, here in occupancy.items():
        kind = tuple(here.items())
        found = groups.get(kind)
        if found is None:
            groups[kind] = [h]
        else:
            found.append(h)
    return tuple((kind, tuple(hexes)) for kind, hexes in groups.items())


@caches.by_identity(maxsize=16, identity=2)
def presence_set(galaxy: Galaxy, board: Board, empire: str) -> frozenset[tuple[HexId, int]]:
    """`_presence` as the set `_blocked_by` is keyed by, per board (by identity) and empire;
    a board made from another by a change of units gets it from the other's, updated for the
    hexes that changed (`carry_index`, when `board_index` is first asked)."""
    if _PENDING in board.__dict__:
        board_index(galaxy, board)  # derives this board's flags from those it came from
        carried = caches.peek(presence_set, galaxy, board, empire)
        if carried is not None:
            return carried
    at_war: dict[str, bool] = {}
    found: list[tuple[HexId, int]] = []
    for kind, hexes in _alike(_occupancy(galaxy, board)):
        bits = _hex_flags(board, empire, kind, at_war)
        if bits:
            found.extend(zip(hexes, repeat(bits)))
    return frozenset(found)


@caches.derived(maxsize=4096)
def _side_bits(empire: str, cls: str, crippled: bool) -> int:
    """The `_ANY`.. occupancy flags a unit of this side, class and crippled state gives its
    hex (from `_traits`), looked up once."""
    ship, attrition, _ = _traits(empire, cls, crippled)
    bits = _ANY | (_SHIP if ship else 0)
    if attrition:
        bits |= _ATTRITION if ship else _ATTRITION | _NONSHIP_ATTRITION
    return bits


@caches.derived(maxsize=4096)
def _traits(empire: str, cls: str, crippled: bool) -> tuple[bool, bool, bool]:
    """(is a ship, carries fighters or PFs, is a base) for a class and side, looked up once."""
    unit = Unit("", empire, cls, crippled=crippled)
    return is_ship(unit), carries_attrition(class_of(unit), crippled), is_base(unit)


@caches.by_identity(maxsize=4)
def feature_hexes(galaxy: Galaxy) -> tuple[HexInfo, ...]:
    """The hexes of the map that hold planets or bases (looked up once per map)."""
    return tuple(info for info in galaxy.hexes if info.bases or info.planets)


class Blocking:
    """Which hexes block supply (or retrograde) paths for one empire on one board.

    Its answers are the set `blocking_hexes` works out once per board, empire and purpose;
    `blocks` is the one-question form.
    """

    def __init__(self, galaxy: Galaxy, board: Board, empire: str, purpose: Purpose) -> None:
        self.hexes = blocking_hexes(galaxy, board, empire, purpose)
        """Every blocking hex: ``h in hexes`` is the fast form of ``self(h)``."""

    def __call__(self, h: HexId) -> bool:
        return h in self.hexes


@caches.by_identity(maxsize=16, identity=2)
def blocking_hexes(galaxy: Galaxy, board: Board, empire: str, purpose: Purpose) -> frozenset[HexId]:
    """The hexes that block ``empire``'s supply paths (or retrograde) on ``board``, the
    table of `blocks` applied to every hex that can block at all.

    Only a hex holding enemy units, or next to enemy ships or fighters, can block; every
    other hex is open whatever else stands around it. So the set costs the enemy's hexes and
    their neighbours, not the map, and is kept for the last boards asked about (by identity,
    with the empire and purpose by value): a supply check of five empires on one board, then
    the retrograde and strategic checks of the same board, share one pass over its units.
    Only membership is ever asked of it (no order is read from a set).
    """
    return _blocked_by(galaxy, presence_set(galaxy, board, empire), purpose)


@caches.by_identity(maxsize=16, identity=1)
def _blocked_by(
    galaxy: Galaxy, presence: frozenset[tuple[HexId, int]], purpose: Purpose
) -> frozenset[HexId]:
    """`blocking_hexes` from the presence flags (by value): a board on which only units far
    from any enemy, or inside a stack that stays, changed (a battle round's losses) reuses
    the answer of the board before it."""
    flags = dict(presence)
    adjacent = adjacency(galaxy)
    candidates: set[HexId] = set()
    for h, bits in flags.items():
        if bits & _E_ANY:
            candidates.add(h)
        if bits & (_E_SHIP | _E_FIGHTERS):
            candidates.update(adjacent.get(h, ()))
    retro = purpose == "retrograde"
    return frozenset(h for h in candidates if _evaluate(flags, adjacent, h, retro))


def _evaluate(
    flags: dict[HexId, int], adjacent: dict[HexId, tuple[HexId, ...]], h: HexId, retro: bool
) -> bool:
    """The table of `blocks` for one hex, given the presence flags of the board."""
    if h == OFF_MAP:
        return False  # an off-map area is never blockaded here
    here = flags.get(h, 0)
    if here & _E_ANY:
        # Enemy units without friendly ones block both; with friendly ones supply passes,
        # and retrograde is "N/A" in the table: C, it may not enter such a hex.
        return True if not here & _F_ANY else retro
    around = 0
    for n in adjacent[h]:
        around |= flags.get(n, 0)
    if not around & (_E_SHIP | _E_FIGHTERS):
        return False
    if here & _F_SHIP:
        return False  # friendly ships in the hex open it (I: against fighters too)
    if here & _F_ANY and not retro:
        return False  # a friendly non-ship unit opens the hex for supply only
    friendly_fighters = (around | here) & _F_FIGHTERS
    if around & _E_SHIP:
        return not around & _F_SHIP
    if around & _F_SHIP:
        return False  # I: friendly ships next door outweigh enemy fighters
    return True if not retro else not friendly_fighters


def blocks(galaxy: Galaxy, board: Board, empire: str, h: HexId, purpose: Purpose) -> bool:
    """Whether hex ``h`` blocks ``empire``'s supply paths, or its retrograde movement.

    The play aid "Blocking supply and retrograde" (411.3x, 206.0), in our words, reading
    *friendly* as the empire's own units and *enemy* as those of empires at war with it:

    ========================================================  ======  ==========
    the hex being evaluated                                   supply  retrograde
    ========================================================  ======  ==========
    holds enemy units and no friendly ones                    blocks  blocks
    holds enemy and friendly units                            open    blocks (C)
    holds friendly ships, enemy ships adjacent                open    open
    holds friendly non-ship units only, enemy ships adjacent  open    blocks (I*)
    empty, enemy ships adjacent                               blocks  blocks
    empty, friendly and enemy ships adjacent                  open    open
    empty, enemy fighters adjacent                            blocks  blocks
    empty, friendly and enemy fighters adjacent               blocks  open
    no enemy unit in or next to it                            open    open
    ========================================================  ======  ==========

    - S: "fighters must be able to react to count". I: the fighter rows concern fighters and
      PFs on non-ship units (bases, PDUs, auxiliary carriers): fighters on ships come with
      their ships, which the ship rows cover. Fighters' reaction limits (205.6) are not
      modelled: any such unit next door counts.
    - C: the table marks retrograde into a hex holding both sides "N/A"; it blocks here.
    - I*: for retrograde a hex holding only friendly non-ship units is judged like an empty
      one, so friendly ships next door open it, as they open an empty hex.
    - I: friendly ships in the hex, or next to it, also outweigh enemy fighters next door
      (the table opens a hex against enemy ships in both cases; ships count for more).
    - I: friendly fighters "adjacent" include those in the hex itself (a base's squadrons).
    - S (F&E Q&A, June 2007, 411.32): a unit's own presence opens the hexes around it for
      its supply path: that is the "friendly and enemy ships adjacent" row, nothing more.
    - The map's starting bases are units of the hex's owner; planets are not units (the F&E
      Q&A of July 2007: a planet with only its residual defense is no unit); their PDUs are.
    """
    return Blocking(galaxy, board, empire, purpose)(h)


@caches.derived(maxsize=8)
def _table(width: int, height: int) -> dict[HexId, tuple[HexId, ...]]:
    return {
        c * 100 + r: hexgrid.neighbours(c * 100 + r, width, height)
        for c in range(1, width + 1)
        for r in range(1, height + 1)
    }


def adjacency(galaxy: Galaxy) -> dict[HexId, tuple[HexId, ...]]:
    """Every on-map hex's neighbours in `hexgrid.neighbours` order (built once per map size)."""
    return _table(galaxy.width, galaxy.height)
