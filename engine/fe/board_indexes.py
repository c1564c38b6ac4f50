"""A board's unit and hex indexes, carried from the board it was made from at the cost of the
units that changed.

A `Board` (`engine.fe.forces`) makes its unit index (by id) and its hex index (by hex) when
first asked, each a pass over every unit. A move order, a build or a placement makes a new
board from the last with a few units changed (`Board.with_units`,
`engine.fe.board_update.with_units`): making both indexes anew for each would make every
order cost the whole board. Here the new board is given the indexes of the board it was made
from, brought up to date for the changed units only: the unit index as the earlier index and
the units changed since (`carry_unit_index`), made whole when first asked; the hex index
with only the hexes the changed units left or entered made anew (`carry_hex_index`,
`updated_hex_index`), or as a link to the board it was made from (`link_hex_index`), derived
when first asked for every change since at once (`hex_index_along`).

What is left here sits in the new board's ``__dict__`` (under `ID_CARRY` and `LINK`), and
`Board`'s methods read it: `engine.fe.forces` imports this module, and this module imports
`engine.fe.forces` only for type checking, so the dependency goes one way and the board's
look-ups (`Board.unit`, `Board.units_named`) run no import. Every answer is what making the
index from the board's units gives (``tests/engine/fe/test_board_update.py`` and
``test_board_links.py`` compare them after random changes).
"""

from __future__ import annotations

from bisect import bisect_left, insort_left
from collections.abc import Callable, Iterable, Mapping, Sequence
from operator import attrgetter
from typing import TYPE_CHECKING, Any, TypeAlias

from engine.fe.galaxy import HexId

if TYPE_CHECKING:
    from engine.fe.forces import Board, Unit

BOARD_ORDER = attrgetter("empire", "id")
"""The order of a state's board (`engine.fe.board_update`): empire, then id."""


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

Link: TypeAlias = "tuple[Board, Mapping[str, Unit], Mapping[str, Unit], int]"
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
    every unit changed since at once (`hex_index_along`). A packet of placements makes a
    board per unit and asks few of them; each made its own index before, a copy of every hex.
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


def hex_index_along(link: Link) -> dict[HexId, tuple[Unit, ...]] | None:
    """The hex index of the board ``link`` was left on: the index of the nearest board up
    the chain that holds one, with every change since made at once (`updated_hex_index`);
    None if no board up the chain holds one (the board then groups its units itself). A
    unit changed twice counts once: the last change is the unit, and the board holding the
    index has the first one's prior."""
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
        return None
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
