"""Views of a board that the rules read often, each kept per board or per empire's units
and carried over from one board to the next when units change (`engine.fe.board_update`).

Each view is a `engine.core.caches.by_identity` function of the board (or of one empire's
units tuple, `engine.fe.forces.Forces`); its ``carry_*`` companion derives the answer for
a changed board from the answer for the board before it, reading only the hexes where units
came or went, and hands it to the cache (`engine.core.caches.prime`). The views most boards
are never asked for wait instead (``defer_*``): a board keeps the answer held for the board
a run of changes started from and what changed since, and derives its own when first asked,
once for the whole run (a packet of placements makes a board per unit and reads few of them).
A carried or derived answer is what the function computes afresh
(``tests/engine/fe/test_board_update.py`` and ``test_board_links.py`` check each after
random changes).

- `placed_kinds` (and `kinds_of`, per empire's tuple): the distinct (hex, side, class,
  crippled) of a board's units, its first reading after a state is decoded, which the
  occupancy index (`engine.fe.occupancy.board_index`), `empires_by_hex` and `unit_classes`
  share instead of reading every unit again each;
- `lookup_of`: one empire's starbases and first movers per hex, read by the release
  triggers (600.3, `engine.fe.steps.releases`) through `lookup_on`, which derives what
  `defer_lookups` left;
- `empires_by_hex`: which empires stand in each hex, read by the reserve's pin check
  (203.7, `engine.fe.steps.reserves`); derived when asked (`defer_empires_by_hex`);
- `highest_number`: the highest id number of an empire, for the next new unit's id
  (`engine.fe.production.next_ids`);
- `defer_hexes`: the hexes where units changed since an earlier board, for the views that
  depend on each hex alone and are derived when first asked (the release triggers' hot
  hexes, `engine.fe.steps.releases.hot_hexes`).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from itertools import compress
from operator import attrgetter, itemgetter

from engine.core import caches
from engine.fe.board_indexes import hex_index_at_hand
from engine.fe.forces import OFF_MAP, PARTS, Board, Unit, units_by_hex
from engine.fe.galaxy import HexId
from engine.fe.unit_kinds import movement_points

STARBASE_CLASSES = ("SB", "SBv.2")
"""Starbase classes: a hex holding one is a release trigger's target (600.3)."""

STARBASE_SET = frozenset(STARBASE_CLASSES)
"""`STARBASE_CLASSES` as a set: a class found by its hash (kept by the string once read),
not compared with each name (a decoded unit's class is another string object than the
name's, so each comparison reads its characters)."""


_ID = attrgetter("id")

Kind = tuple[HexId, str, str, bool]
"""A unit's hex, side, class and crippled state: all that the occupancy flags, the empires
by hex and the classes of a side read (`placed_kinds`)."""


@caches.by_identity(maxsize=24)
def kinds_of(units: tuple[Unit, ...]) -> dict[Kind, None]:
    """Each distinct `Kind` among ``units`` (one empire's `Forces.units`, by identity), in
    the order the units first show it: each unit's fields read by a comprehension (cheaper
    than `attrgetter` in C), the distinct ones kept in C. Not to be mutated."""
    return dict.fromkeys([(u.hex, u.empire, u.cls, u.crippled) for u in units])


@caches.by_identity(maxsize=4)
def placed_kinds(board: Board) -> dict[Kind, None]:
    """Each distinct `Kind` among the board's units, in the order the units first show it:
    the first reading of a board that `engine.fe.occupancy.board_index` (the occupancy flags
    and bases), `empires_by_hex` and `unit_classes` share. A board joined from its empires'
    tuples (`forces.PARTS`) is read part by part (`kinds_of`), so the per-empire views find
    their part read already. Not to be mutated."""
    parts: tuple[tuple[Unit, ...], ...] | None = board.__dict__.get(PARTS)
    if parts is None:
        return dict.fromkeys([(u.hex, u.empire, u.cls, u.crippled) for u in board.units])
    if len(parts) == 1:
        return kinds_of(parts[0])
    found: dict[Kind, None] = {}
    for part in parts:
        found.update(kinds_of(part))  # a kind seen before keeps its first place
    return found


@caches.by_identity(maxsize=24)
def lookup_of(units: tuple[Unit, ...]) -> tuple[tuple[Unit, ...], tuple[Unit, ...]]:
    """One empire's starbases on the map, in the units' order, and, per hex where it has
    units on the map that can move, the one with the smallest id, by id (by identity of its
    `Forces.units` tuple, which stays the same object while the empire does not move).

    Units of one empire sorted by id (as `Forces.units` are; both checked here) are
    read by hex (`forces.units_by_hex`, the groups the board's hex index is joined from):
    a hex's first unit that can move is the one, and the starbases are looked for only in
    the hexes whose kinds (`kinds_of`, when the board's first reading holds them) show one.
    Other units are read unit by unit."""
    kinds = caches.peek(kinds_of, units)
    sides = {e for _, e, _, _ in kinds} if kinds is not None else {u.empire for u in units}
    if len(sides) > 1 or not _in_id_order(units):
        return _lookup_unsorted(units)
    by_hex = units_by_hex(units)
    firsts: list[Unit] = []
    for h, here in by_hex.items():
        if h == OFF_MAP:
            continue
        for unit in here:  # in id order
            if class_can_move(unit.empire, unit.cls):
                firsts.append(unit)
                break
    firsts.sort(key=_ID)
    if kinds is None:
        named = compress(units, map(_ISSTARBASE_SET, map(_CLS, units)))
        starbases = tuple(u for u in named if u.hex != OFF_MAP)
    else:
        found = dict.fromkeys([h for h, _, c, _ in kinds if h != OFF_MAP and c in STARBASE_SET])
        picked = [u for h in found for u in by_hex[h] if u.cls in STARBASE_SET]
        starbases = tuple(sorted(picked, key=_ID))  # (the units' order, ids being distinct)
    if _has_twins(firsts) or _has_twins(starbases):
        return _lookup_unsorted(units)  # (two of one id: their order is the units')
    return starbases, tuple(firsts)


def _in_id_order(units: tuple[Unit, ...]) -> bool:
    """Whether ``units`` are in id order, two units of one id next to each other allowed.

    The ids read by a comprehension (cheaper per unit than `attrgetter` in C), then told in
    C: sorting a sorted list of strings costs one comparison a unit, and comparing the two
    lists (the same objects) one identity check a unit; cheaper than comparing each pair of
    neighbours through ``map``. Units of one id break no pick of `lookup_of`
    (each hex's first that can move is then the first of them in the units' order, as in
    `_lookup_unsorted`'s stable sort by id); only the order of its answers when two of them
    share an id, which it checks on those answers (`_has_twins`)."""
    ids = [u.id for u in units]  # (a comprehension reads the field cheaper than `attrgetter`)
    return ids == sorted(ids)


def _has_twins(units: Sequence[Unit]) -> bool:
    """Whether two of ``units`` share an id (told in C)."""
    return len(set(map(_ID, units))) < len(units)


_CLS = attrgetter("cls")
_ISSTARBASE_SET = STARBASE_SET.__contains__


def _lookup_unsorted(units: tuple[Unit, ...]) -> tuple[tuple[Unit, ...], tuple[Unit, ...]]:
    """`lookup_of` of units in any order, read unit by unit."""
    on_map = [u for u in units if u.hex != OFF_MAP]
    starbases = tuple(u for u in on_map if u.cls in STARBASE_SET)
    firsts: dict[tuple[str, int], Unit] = {}
    for unit in sorted(on_map, key=_ID):
        if (unit.empire, unit.hex) not in firsts and class_can_move(unit.empire, unit.cls):
            firsts[unit.empire, unit.hex] = unit
    return starbases, tuple(firsts.values())


Lookup = tuple[tuple[Unit, ...], tuple[Unit, ...]]
"""`lookup_of`'s answer: an empire's starbases on the map, and its stands."""

_LOOKUPS_SINCE = "_lookups_from"
"""The key, in a board's ``__dict__``, of what `defer_lookups` left: per empire, the
`lookup_of` of an earlier tuple of its units, the units changed since (by id; None: taken
out) and the hexes they stood in or entered."""

_LookupSince = tuple[Lookup, Mapping[str, Unit | None], frozenset[HexId]]


def defer_lookups(
    before: Board,
    after: Board,
    rebuilt: Iterable[tuple[str, tuple[Unit, ...]]],
    edits: Mapping[str, Mapping[str, Unit | None]],
    hexes: Iterable[HexId],
) -> None:
    """Leave ``after`` (``before`` with the ``edits``, per empire, made in ``hexes``) what
    `lookup_on` needs to derive each empire's `lookup_of` when first asked: the answer for
    the empire's tuple on ``before`` (``rebuilt`` names those tuples, for the empires whose
    units changed), or for the tuple a run of unasked boards started from, and every change
    since. A packet of placements asks few boards for them; each carried them before, reading
    the stands of the empire building. Past `SINCE_LIMIT` hexes or units changed, an
    empire's run is dropped (its lookup is read afresh when asked)."""
    pending: dict[str, _LookupSince] | None = before.__dict__.get(_LOOKUPS_SINCE)
    records = dict(pending) if pending else {}
    touched = frozenset(hexes)
    for empire, units in rebuilt:
        held = caches.peek(lookup_of, units)
        if held is not None:
            records[empire] = (held, edits[empire], touched)
            continue
        record = records.pop(empire, None)
        if record is not None:
            held, earlier, since = record
            if len(since) < SINCE_LIMIT and len(earlier) < SINCE_LIMIT:  # (else read afresh)
                records[empire] = (held, {**earlier, **edits[empire]}, since | touched)
    if records:
        after.__dict__[_LOOKUPS_SINCE] = records


def lookup_on(board: Board, empire: str, units: tuple[Unit, ...]) -> Lookup:
    """`lookup_of` of ``units``, ``empire``'s units on ``board``: held, or derived from
    what `defer_lookups` left ``board`` (only the hexes changed since are read again), or
    read afresh."""
    held = caches.peek(lookup_of, units)
    if held is not None:
        return held
    pending: dict[str, _LookupSince] | None = board.__dict__.get(_LOOKUPS_SINCE)
    record = pending.get(empire) if pending else None
    if record is None or not hex_index_at_hand(board):
        return lookup_of(units)
    value = _lookup_updated(empire, *record, board)
    caches.prime(lookup_of, value, units)
    return value


def _lookup_updated(
    empire: str,
    held: Lookup,
    changed: Mapping[str, Unit | None],
    hexes: Iterable[int],
    board: Board,
) -> Lookup:
    """`lookup_of` of ``empire``'s units on ``board`` (sorted by id), from ``held``, its
    answer for an earlier tuple of them: the ``changed`` units were put in since (or, for
    None, taken out), and stood in or entered ``hexes``. Only those hexes are read again,
    and only when the stand there left (from ``board``'s hex index, derived then if
    linked: `board_indexes.link_hex_index`)."""
    starbases, firsts = held
    kept = [u for u in starbases if u.id not in changed]
    kept.extend(
        u for u in changed.values() if u is not None and u.hex != OFF_MAP and u.cls in STARBASE_SET
    )
    touched = set(hexes)
    first_of = {(u.empire, u.hex): u for u in firsts if u.hex not in touched}
    for h in sorted(touched):
        if h == OFF_MAP:
            continue
        key = (empire, h)
        if key in first_of:
            continue
        found = _first_after(empire, h, _held_first(firsts, empire, h), changed)
        if found is _READ_AGAIN:
            for unit in board.at(h):  # in id order within an empire
                if unit.empire == empire and class_can_move(empire, unit.cls):
                    first_of[key] = unit
                    break
        elif found is not None:
            first_of[key] = found
    value = (tuple(sorted(kept, key=_ID)), tuple(sorted(first_of.values(), key=_ID)))
    return value


_READ_AGAIN = Unit("", "", "")
"""`_first_after`'s answer when the hex is to be read again."""


def _held_first(firsts: tuple[Unit, ...], empire: str, h: HexId) -> Unit | None:
    """``empire``'s stand in ``h`` among ``firsts`` (`lookup_of`'s), or None."""
    for unit in firsts:
        if unit.hex == h and unit.empire == empire:
            return unit
    return None


def _first_after(
    empire: str, h: HexId, before: Unit | None, changed: Mapping[str, Unit | None]
) -> Unit | None:
    """``empire``'s stand in ``h`` (its unit there with the smallest id that can move)
    once the ``changed`` units are put in, given its stand there before them (``before``),
    without reading the hex: the smallest id of that stand, if it stays, and the changed
    units now there that can move. `_READ_AGAIN` when the stand before was changed (it
    left, or no longer moves): the next one is found only by reading the hex."""
    if before is not None and before.id in changed:
        return _READ_AGAIN
    found = before
    for unit in changed.values():
        if (
            unit is not None
            and unit.hex == h
            and unit.empire == empire
            and (found is None or unit.id < found.id)
            and class_can_move(empire, unit.cls)
        ):
            found = unit
    return found


@caches.derived(maxsize=4096, shipped=True)
def class_can_move(empire: str, cls: str) -> bool:
    """Whether a unit of this class moves (`movement_points`, which reads only the class)."""
    return movement_points(Unit("", empire, cls)) > 0


def can_move(unit: Unit) -> bool:
    """Whether ``unit`` can move, as `lookup_of` reads it (a stand, not a base)."""
    return class_can_move(unit.empire, unit.cls)


_SINCE = "_hexes_since"
"""The key, in a board's ``__dict__``, of what `defer_hexes` left: the board the run of
changes started from and the hexes where units came, went or changed since."""

SINCE_LIMIT = 256
"""Past this many hexes changed, a run is dropped: reading them is no cheaper than a fresh
reading of the board."""


def defer_hexes(before: Board, after: Board, hexes: Iterable[HexId]) -> None:
    """Note on ``after`` (``before`` with units changed in ``hexes``) the board a run of
    such changes started from and every hex changed since (`hexes_changed_since`). Nothing is
    read here: a view that depends on each hex alone derives its answer for ``after`` from
    its answer for the start of the run, when asked, by reading only those hexes. The start
    is ``before`` unless ``before`` was itself noted and never asked."""
    pending: tuple[Board, frozenset[HexId]] | None = before.__dict__.get(_SINCE)
    if pending is None:
        root, since = before, frozenset(hexes)
    else:
        root, earlier = pending
        since = earlier.union(hexes)
    if len(since) <= SINCE_LIMIT:
        after.__dict__[_SINCE] = (root, since)


def hexes_changed_since(board: Board) -> tuple[Board, frozenset[HexId]] | None:
    """The board a run of unit changes leading to ``board`` started from, and the hexes
    changed since (`defer_hexes`); None if ``board`` was not made that way."""
    pending: tuple[Board, frozenset[HexId]] | None = board.__dict__.get(_SINCE)
    return pending


def forget_changes(board: Board) -> None:
    """Drop the run noted on ``board`` once its views are derived: the next board starts its
    run here, and this one no longer keeps the start of its run alive."""
    board.__dict__.pop(_SINCE, None)


@caches.by_identity(maxsize=24)
def unit_classes(units: tuple[Unit, ...]) -> frozenset[tuple[str, str, bool]]:
    """Each (empire, class, crippled) found among ``units`` (one empire's `Forces.units`,
    by identity): the readings that go by a unit's class alone (`engine.fe.applies.has_kind`,
    the fighter carriers of step 6E) try each class once, not each unit. A move leaves it as
    it was (`carry_classes`), so a player turn reads an empire's units for it once."""
    kinds = caches.peek(kinds_of, units)
    if kinds is not None:  # the kinds a board's first reading found (`placed_kinds`)
        return frozenset([(empire, cls, crippled) for _, empire, cls, crippled in kinds])
    return frozenset([(u.empire, u.cls, u.crippled) for u in units])


_SIDE_CLASS = attrgetter("empire", "cls", "crippled")
_EMPIRE = attrgetter("empire")


def carry_classes(
    before: tuple[Unit, ...],
    after: tuple[Unit, ...],
    edits: Mapping[str, Unit | None],
    old: Mapping[str, Unit],
) -> None:
    """Hand `unit_classes` its answer for ``after`` (``before`` with ``edits``: units put in
    by id, or taken out for None), derived from its answer for ``before`` if remembered;
    ``old`` holds every unit of the board before, by id. Only a change that cannot make a
    class vanish is carried: units that moved or came in; a unit taken out, or one whose
    class or side changed, leaves ``after`` to be read afresh when asked. The answer for
    ``before`` is worked out first if its kinds are held (a board's first reading), so the
    first move of a player turn carries the classes of its army however few were asked."""
    held = caches.peek(unit_classes, before)
    if held is None:
        if caches.peek(kinds_of, before) is None:
            return
        held = unit_classes(before)  # read from the kinds of a fresh board: a few hundred
    priors = list(map(old.get, edits))
    if None not in priors and None not in edits.values():
        # Units that were on the board already (a move): the classes stay if each unit's
        # side, class and crippled state did and each was among them already (a unit of
        # ``before`` is; one from another tuple may not be), all compared in C.
        shown = list(map(_SIDE_CLASS, edits.values()))
        if list(map(_SIDE_CLASS, priors)) == shown and held.issuperset(shown):
            caches.prime(unit_classes, held, after)
            return
    added: set[tuple[str, str, bool]] = set()
    for uid, unit in edits.items():
        if unit is None:
            return
        key = (unit.empire, unit.cls, unit.crippled)
        prior = old.get(uid)
        if prior is not None and prior.empire == unit.empire and _SIDE_CLASS(prior) != key:
            return  # its class may vanish from ``before``
        added.add(key)  # (a unit from another tuple may show a class ``before`` had not)
    caches.prime(unit_classes, held if added <= held else held | added, after)


def keep_classes(before: tuple[Unit, ...], after: tuple[Unit, ...]) -> None:
    """`carry_classes` for ``after``, ``before`` with units whose hex alone changed (a move,
    `board_update.with_units`): the same (empire, class, crippled) triples, so the answer
    for ``before`` is the answer for ``after``, handed on when remembered or when its kinds
    are (then read from them, as `carry_classes` does)."""
    held = caches.peek(unit_classes, before)
    if held is None:
        if caches.peek(kinds_of, before) is None:
            return
        held = unit_classes(before)
    caches.prime(unit_classes, held, after)


@caches.by_identity(maxsize=4)
def empires_by_hex(board: Board) -> dict[HexId, tuple[str, ...]]:
    """Per hex of ``board``, the empires with units there, each once, sorted: checking every
    unit of a big stack then reads the stack once, not once per unit. Derived from an
    earlier board's when `defer_empires_by_hex` left it one. Not to be mutated."""
    pending: _EmpiresSince | None = board.__dict__.pop(_EMPIRES_SINCE, None)
    if pending is not None:
        return _empires_updated(board, *pending)
    found: dict[HexId, list[str]] = {}
    kinds = caches.peek(placed_kinds, board)
    if kinds is not None:  # the board's kinds, read when its occupancy was (fewer than units)
        # (each kind's hex and empire picked in C: a comprehension unpacking each costs more)
        pairs = dict.fromkeys(map(_HEX_EMPIRE, kinds))
    else:  # each (hex, empire) pair once, kept in C, in the order the units first show it
        pairs = dict.fromkeys([(u.hex, u.empire) for u in board.units])
    for h, empire in pairs:
        here = found.get(h)
        if here is None:
            found[h] = [empire]
        else:
            here.append(empire)
    # (a hex of one empire, most of them, needs no sorting)
    return {h: (e[0],) if len(e) == 1 else tuple(sorted(e)) for h, e in found.items()}


_HEX_EMPIRE = itemgetter(0, 1)
"""A kind's hex and empire (`Kind`)."""


_EMPIRES_SINCE = "_empires_from"
"""The key, in a board's ``__dict__``, of what `defer_empires_by_hex` left (`_EmpiresSince`)."""

_EmpiresSince = tuple[dict[HexId, tuple[str, ...]], frozenset[HexId]]
"""The `empires_by_hex` of an earlier board, and the hexes where units came or went since."""


def defer_empires_by_hex(before: Board, after: Board, hexes: Iterable[HexId]) -> None:
    """Leave ``after`` (``before`` with units changed in ``hexes``) what `empires_by_hex`
    needs to derive its answer when first asked: the answer of ``before``, or of the board
    a run of unasked boards started from, and every hex changed since. Most boards of a
    packet are never asked (a build or a placement each); the one asked reads only those
    hexes, once. A ``before`` whose kinds were read (`placed_kinds`: its occupancy was) but
    not its empires by hex gets them now, from the kinds (fewer than its units): else a run
    starting there, say from a state just decoded, would read every unit again when asked.
    Nothing is left when no answer is held, or past `SINCE_LIMIT` hexes."""
    held = caches.peek(empires_by_hex, before)
    pending: _EmpiresSince | None = before.__dict__.get(_EMPIRES_SINCE)
    if held is None and pending is None and caches.peek(placed_kinds, before) is not None:
        held = empires_by_hex(before)
    if held is not None:
        since = frozenset(hexes)
    else:
        if pending is None:
            return
        held, earlier = pending
        since = earlier.union(hexes)
        if len(since) > SINCE_LIMIT:
            return
    after.__dict__[_EMPIRES_SINCE] = (held, since)


def held_empires_by_hex(board: Board) -> dict[HexId, tuple[str, ...]] | None:
    """`empires_by_hex` of ``board`` if held or left to derive (`defer_empires_by_hex`),
    else None (nothing is read): for a reader that reads the hexes itself otherwise."""
    held = caches.peek(empires_by_hex, board)
    if held is None and _EMPIRES_SINCE in board.__dict__:
        return empires_by_hex(board)
    return held


def share_pending(before: Board, after: Board) -> None:
    """Hand ``after`` (a board of the same units as ``before``) what `defer_empires_by_hex`
    and `defer_lookups` left ``before``, unless ``after`` has its own."""
    for key in (_EMPIRES_SINCE, _LOOKUPS_SINCE):
        pending = before.__dict__.get(key)
        if pending is not None and key not in after.__dict__:
            after.__dict__[key] = pending


def _empires_updated(
    board: Board, held: dict[HexId, tuple[str, ...]], hexes: Iterable[HexId]
) -> dict[HexId, tuple[str, ...]]:
    """``held``, the `empires_by_hex` of an earlier board, with ``hexes`` (every hex where
    units came or went since) read again on ``board``: shared when none changed."""
    updates = {}
    for h in hexes:
        empires = tuple(sorted({u.empire for u in board.at(h)}))
        if empires != held.get(h, ()):
            updates[h] = empires
    if not updates:
        return held  # (not to be mutated)
    found = dict(held)
    for h, empires in updates.items():
        if empires:
            found[h] = empires
        else:
            found.pop(h, None)
    return found


@caches.by_identity(maxsize=16, identity=1)
def highest_number(board: Board, prefix: str) -> int:
    """The highest number ``N`` of the ids ``prefix`` + ``N`` on the board (0 if none).

    Kept per board (by identity) and prefix; a board made from another by a change of units
    gets it from the other's (`carry_highest`)."""
    units = board.with_id_prefix(prefix)
    if not units:
        return 0
    cut = len(prefix)
    # The usual ids (``KLI-0212``, ``KLI-P012`` for a PDU) on an id-sorted board: every one
    # as long as the others, those whose rest starts with a character sorting above ``9``
    # (a letter, another script's digit) together at the end, none of them a number. Then
    # the last one before them, if its rest is ASCII digits, is the greatest number: any
    # other number among the ids first differs from it, at the same place of as many
    # characters, by a lower character, so by a lower ASCII digit. Its rest is read alone.
    if board._id_sorted and len(set(map(len, map(_ID, units)))) == 1:
        end = bisect_left(units, prefix + _AFTER_NINE, key=_ID)
        last = units[end - 1].id[cut:] if end else ""
        after = map(_ID, units[end:])
        if last.isascii() and last.isdigit() and not any(i[cut:].isdecimal() for i in after):
            return int(last)
    # (``isdecimal`` accepts exactly the digits ``\d`` matches: Unicode category Nd.)
    return max(_numbers(prefix, map(_ID, units)), default=0)


_AFTER_NINE = chr(ord("9") + 1)
"""The character that sorts just above ``9``."""


def _numbers(prefix: str, ids: Iterable[str]) -> list[int]:
    cut = len(prefix)
    return [int(number) for uid in ids if (number := uid[cut:]).isdecimal()]


def carry_highest(
    before: Board, after: Board, changed: Iterable[str], prefixes: Iterable[str]
) -> None:
    """Hand `highest_number` its answers for ``after``, which has every id of ``before``
    and the ``changed`` ones, from those remembered for ``before`` (for these prefixes)."""
    ids = tuple(changed)
    for prefix in prefixes:
        held = caches.peek(highest_number, before, prefix)
        if held is not None:
            new = _numbers(prefix, (uid for uid in ids if uid.startswith(prefix)))
            caches.prime(highest_number, max([held, *new]), after, prefix)
