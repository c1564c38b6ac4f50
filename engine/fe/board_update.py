"""A state's units changed at the cost of the units that changed (`FeState.with_units`).

A move order moves a stack of a few units on a board of thousands. Regrouping every unit by
empire, sorting each empire, rebuilding the board and its unit and hex indexes would make
each order cost the whole board; here only the empires the changed units leave or join get
a new tuple (each empire's units are sorted by id, so a unit's place is found by bisection),
and the new board gets the old board's views at the cost of the changed units, most of
them only when first read: its unit index is carried as an earlier board's and the units
changed since (`engine.fe.board_indexes.carry_unit_index`), its hex index as a link to the
board it was made from (`engine.fe.board_indexes.link_hex_index`), its empires by hex and
release lookups as the answers for an earlier board and the hexes changed since
(`board_views.defer_empires_by_hex`, `board_views.defer_lookups`), each derived when first
read, for every change since at once: a packet of set-up placements makes a board per
unit and pays for the views of the few boards read. (The highest ids and the classes of the
empires that changed are carried at once: the next build reads the first, and the second
costs a comparison of the changed units.) The new board is handed to the cache behind
`FeState.board` (`engine.core.caches.prime`), so the states that follow (the same units,
another step) share it and everything remembered about it (supply grids, blocking sets).
The occupancy index and blocking presence flags wait until a board is asked for them too
(`occupancy.defer_carry`, the flags carried by `blocking.carry_presence`). A state whose
units are the very tuples of the last state's (a turn begun, a war declared, a fleet
released) gets a board that shares what was read of them (`board_of`): the unit and hex
indexes, the empires by hex, and the occupancy index and the presence flags of the
empires whose enemies are the same, when the owners are the same (`occupancy.share_index`,
`blocking.share_presence`).

Every answer here is what the full computation gives (``tests/engine/fe/
test_board_update.py`` and ``test_board_links.py`` compare them after random changes).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Mapping
from itertools import pairwise, repeat
from operator import attrgetter, is_not
from typing import TYPE_CHECKING, cast

import msgspec

from engine.core import caches
from engine.fe import blocking, board_views, occupancy
from engine.fe.board_indexes import (
    ID_CARRY,
    LINK,
    carry_unit_index,
    hex_index_at_hand,
    link_hex_index,
    own_unit_index,
    prior_units,
    unit_lookup,
)
from engine.fe.forces import PARTS, Board, Forces, Unit
from engine.fe.galaxy import HexId, load_galaxy
from engine.fe.id_search import found_by_id

if TYPE_CHECKING:
    from engine.fe.model import FeState

_ID = attrgetter("id")


@caches.by_identity(maxsize=1)
def board_of(
    forces: tuple[Forces, ...],
    owners: tuple[tuple[HexId, str], ...],
    at_war: tuple[tuple[str, str], ...],
    released: tuple[tuple[str, str], ...],
    devastated: tuple[HexId, ...],
) -> Board:
    """The board of the last state parts asked about (see `engine.fe.model.FeState.board`).

    It remembers the empires' tuples it was joined from (`forces.PARTS`): its first views
    (hex index, occupancy) are then built from each empire's, which the per-empire views
    share, instead of from its units once more. A board of the same empires' tuples as the
    board before it (only owners, wars, released fleets or devastation changed) gets the
    views of their units from it (`share_unit_views`, `occupancy.share_index`,
    `blocking.share_presence`)."""
    board = Board(_joined(forces), owners, at_war, released, devastated)
    board.__dict__[PARTS] = tuple(f.units for f in forces)
    # (known at the cost of the empires: a move order's units are then found by search)
    board.__dict__["_id_sorted"] = _id_sorted(board, forces, moved=False)
    last = caches.newest(board_of)
    if last is not None and last[0][0] is forces:
        # The last state asked about has the very same units (this state began a turn,
        # declared a war, released a fleet): what was read of its units serves this board.
        before = last[1]
        share_unit_views(before, board)
        galaxy = load_galaxy()
        occupancy.share_index(galaxy, before, board)
        blocking.share_presence(galaxy, before, board, [f.empire for f in forces])
    return board


def _joined(forces: Iterable[Forces]) -> tuple[Unit, ...]:
    """The empires' units in one tuple, in the empires' order: each tuple copied once onto
    the end of a list, in C (adding the tuples end to end copies the first ones again for
    each tuple added, about twice the work)."""
    joined: list[Unit] = []
    for f in forces:
        joined += f.units
    return tuple(joined)


def with_units(
    state: FeState,
    units: Iterable[Unit],
    *,
    moved: bool = False,
    priors: Mapping[str, Unit] | None = None,
) -> FeState:
    """``state`` with these units replacing those of the same id, new ids added (see the
    module's docstring).

    ``moved`` tells that ``units`` are units of ``state.board`` with their hex alone changed
    (a move order's stack, each made by replacing its hex): their empires, classes and
    crippled states are those of the units they replace, so each empire's unit classes are
    carried as they are (`board_views.keep_classes`) instead of being compared unit by unit,
    which cost more than the rest of the update for a big stack. ``priors`` may give the
    units of ``state.board`` these replace, by id in their order, when the caller found
    them already (a move order, which reads its stack to move it): every one of them."""
    changed = {u.id: u for u in units}
    board = state.board
    if priors is None:
        # The units these replace, found without making the board's own unit index: a
        # board made here holds the index of an earlier one and the units changed since,
        # or none, and is in id order (found by bisection).
        priors = _priors(board, changed)
    edits = _edits(changed, priors, moved)
    """Per empire, the units to put in (by id), or to take out (None)."""
    forces = list(state.forces)
    where = {f.empire: i for i, f in enumerate(forces)}
    rebuilt: list[tuple[str, tuple[Unit, ...], tuple[Unit, ...]]] = []
    for empire in sorted(edits):
        i = where.get(empire)
        before = forces[i].units if i is not None else ()
        after = _edited(before, edits[empire])
        if after is before:
            continue
        rebuilt.append((empire, before, after))
        if i is not None:
            forces[i] = Forces(empire, after)
        else:  # an empire new to the board goes where the empires' order puts it
            at = bisect_left([f.empire for f in forces], empire)
            forces.insert(at, Forces(empire, after))
            where = {f.empire: n for n, f in enumerate(forces)}
    new_forces = tuple(forces)
    new_state = msgspec.structs.replace(state, forces=new_forces)
    new_board = Board(
        _joined(new_forces),
        state.owners,
        state.at_war,
        state.released,
        state.devastated,
    )
    carry_unit_index(board, new_board, changed)
    link_hex_index(board, new_board, changed, priors)
    galaxy = load_galaxy()
    empires = [f.empire for f in new_forces]
    occupancy.defer_carry(
        galaxy, board, new_board, changed, empires, priors, blocking.carry_presence
    )
    hexes = {u.hex for u in changed.values()}
    hexes.update([u.hex for u in priors.values()])
    board_views.defer_empires_by_hex(board, new_board, hexes)
    board_views.defer_hexes(board, new_board, hexes)
    # (ids already there change no highest)
    added = [uid for uid in changed if uid not in priors] if len(priors) < len(changed) else []
    # Only the empires whose units changed carry their highest id: they are the ones that
    # build or place next (a phase's builds come one empire at a time), and carrying every
    # empire's on every change cost more than reading the few others' again when asked.
    board_views.carry_highest(board, new_board, added, [f"{e}-" for e, _, _ in rebuilt])
    board_views.defer_lookups(board, new_board, [(e, b) for e, b, _ in rebuilt], edits, hexes)
    for empire, before, after in rebuilt:
        if moved:
            board_views.keep_classes(before, after)
        else:
            board_views.carry_classes(before, after, edits[empire], priors)
    new_board.__dict__["_id_sorted"] = _id_sorted(board, new_forces, moved)
    caches.prime(
        board_of,
        new_board,
        new_forces,
        state.owners,
        state.at_war,
        state.released,
        state.devastated,
    )
    return new_state


def _priors(board: Board, changed: Mapping[str, Unit]) -> dict[str, Unit]:
    """The units of ``board`` the ``changed`` ids name (those it has), by id in their order:
    from its unit index, built or carried, if it has one, else by bisection if it is in id
    order (`Board.units_named`), else from the index made now."""
    if ID_CARRY in board.__dict__ or "_by_id" in board.__dict__:
        return prior_units(unit_lookup(board), changed)
    if board.__dict__.get("_id_sorted") is not True:
        return prior_units((own_unit_index(board), {}), changed)
    return {u.id: u for u in found_by_id(board.units, changed, skip_missing=True)}


def _id_sorted(board: Board, forces: tuple[Forces, ...], moved: bool) -> bool:
    """Whether the board of ``forces`` is in id order (`Board._id_sorted`): each empire's
    units are sorted by id, so the whole board is when each empire's ids all come before
    the next empire's (they do unless a captured ship kept its id). Units that only moved
    (``board`` with hexes changed) leave every id where it was: ``board``'s answer, if
    known, holds."""
    known: bool | None = board.__dict__.get("_id_sorted") if moved else None
    if known is not None:
        return known
    ends = [(f.units[0].id, f.units[-1].id) for f in forces if f.units]
    return all(last < first for (_, last), (first, _) in pairwise(ends))


def share_unit_views(before: Board, after: Board) -> None:
    """Give ``after``, a board of the same units as ``before`` (a fleet released, a hex
    taken: a state changed in a board part other than its units), the views of the units
    ``before`` built (the unit and hex indexes, the empires by hex), which read the units
    alone; without them the next order on ``after`` would read every unit again. Nothing is
    shared when the units differ."""
    if after.units != before.units:
        return
    built = before.__dict__
    for key in ("_by_id", ID_CARRY, "_by_hex", "_id_sorted"):
        if key in built and key not in after.__dict__:
            after.__dict__[key] = built[key]  # never changed once built: shared as it is
    link = built.get(LINK)  # (a link to derive the hex index from serves the same units)
    if link is not None and not hex_index_at_hand(after):
        after.__dict__[LINK] = link
    empires = caches.peek(board_views.empires_by_hex, before)
    if empires is not None:
        caches.prime(board_views.empires_by_hex, empires, after)
    board_views.share_pending(before, after)


def _edits(
    changed: dict[str, Unit], priors: Mapping[str, Unit], moved: bool = False
) -> dict[str, dict[str, Unit | None]]:
    """Per empire, the units to put in (by id, in the order of ``changed``), or to take out
    (None): a unit that changed hands leaves its old empire's units. The usual change, one
    empire's units changed in place (a move), is told in C; for ``moved`` units (the same
    empires as before, `with_units`) the empires they had are not read."""
    empires = {u.empire for u in changed.values()}
    if len(empires) == 1 and (moved or {u.empire for u in priors.values()} <= empires):
        return {empires.pop(): dict(changed)}
    edits: dict[str, dict[str, Unit | None]] = {}
    for uid, unit in changed.items():
        old = priors.get(uid)
        if old is not None and old.empire != unit.empire:
            edits.setdefault(old.empire, {})[uid] = None
        edits.setdefault(unit.empire, {})[uid] = unit
    return edits


def _edited(units: tuple[Unit, ...], edits: dict[str, Unit | None]) -> tuple[Unit, ...]:
    """One empire's units (sorted by id) with ``edits`` made: the same tuple if they change
    nothing.

    Units replaced in place (a move) are found a run at a time (`_replaced`); otherwise the
    edits are made in id order, each found from where the one before it was: a stack's
    units have neighbouring ids, so most are found at the next place without a search, and
    none costs more than a bisection of what is left."""
    if len(edits) == 1:  # a build, a placement, one unit moved: its place by one bisection
        ((uid, unit),) = edits.items()
        return _edited_one(units, uid, unit)
    if all(map(is_not, edits.values(), repeat(None))):
        replaced = _replaced(units, cast("Mapping[str, Unit]", edits))
        if replaced is not None:
            return replaced
    placed = list(units)
    touched = False
    at = 0
    for uid in sorted(edits):
        unit = edits[uid]
        if at >= len(placed) or placed[at].id != uid:
            at = bisect_left(placed, uid, lo=at, key=_ID)
        found = at < len(placed) and placed[at].id == uid
        if unit is None:
            if found:
                del placed[at]
                touched = True
        elif found:
            if placed[at] != unit:
                placed[at] = unit
                touched = True
            at += 1
        else:
            placed.insert(at, unit)
            touched = True
            at += 1
    return tuple(placed) if touched else units


def _edited_one(units: tuple[Unit, ...], uid: str, unit: Unit | None) -> tuple[Unit, ...]:
    """`_edited` of one edit, its place found by one bisection (a packet of placements makes
    one board per unit, each with a copy of its empire's units)."""
    at = bisect_left(units, uid, key=_ID)
    found = at < len(units) and units[at].id == uid
    if unit is None:
        return units[:at] + units[at + 1 :] if found else units
    if found and units[at] == unit:
        return units
    placed = list(units)  # (a list edited and made a tuple: cheaper than joining slices)
    if found:
        placed[at] = unit
    else:
        placed.insert(at, unit)
    return tuple(placed)


def _replaced(units: tuple[Unit, ...], edits: Mapping[str, Unit]) -> tuple[Unit, ...] | None:
    """`_edited` when every edit replaces a unit already there (same id), or None when one
    does not. The edits are matched in id order, each where the one before it ended: a
    stack whose ids are neighbours is found without a search; a unit further on is found
    by bisecting a few places ahead first (a stack's units stand near each other in id
    order, among units of other stacks), then the rest. Each edit costs a few readings of
    a unit, however many units lie between the edits. A stack whose ids follow each other
    in the tuple (a fleet's, as set up) is matched and put in as one block, in C; one whose
    units lie at even gaps among others is found by trying the place as far on as the last
    edit was from the one before it, before bisecting."""
    order = sorted(edits)
    placed = list(units)
    n = len(placed)
    at = bisect_left(units, order[0], key=_ID) if order else 0
    k = len(order)
    if order == list(map(_ID, units[at : at + k])):  # one run of neighbouring ids, in C
        block = list(map(edits.__getitem__, order))
        if block == placed[at : at + k]:
            return units
        placed[at : at + k] = block
        return tuple(placed)
    touched = False
    at = gap = 0
    for uid in order:
        start = at
        if at >= n or placed[at].id != uid:
            guess = at + gap  # as far on as the last edit was from the one before it
            if guess < n and placed[guess].id == uid:
                at = guess
            else:
                ahead = min(n, at + NEAR)
                at = bisect_left(placed, uid, at, ahead, key=_ID)
                if at == ahead:
                    at = bisect_left(placed, uid, ahead, n, key=_ID)
                if at >= n or placed[at].id != uid:
                    return None  # a new id: put in where it sorts (`_edited`)
        gap = at - start
        unit = edits[uid]
        if placed[at] != unit:
            placed[at] = unit
            touched = True
        at += 1
    return tuple(placed) if touched else units


NEAR = 8
"""How far past the last edit `_replaced` first looks for the next one."""
