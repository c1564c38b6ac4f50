"""What blocks supply paths and retrograde movement.

The play aid "Blocking supply and retrograde" is a table of hex conditions (enemy units in
the hex, friendly ships or non-ship units, enemy ships or fighters next door); `blocks`
transcribes it and documents each reading, `Blocking` answers it hex by hex for a whole
board at once, from the board's index of who is where (`engine.fe.occupancy`, built once
and carried from board to board, and this table's presence flags with it). Supply
(`engine.fe.supply`), retrograde (`engine.fe.retrograde`) and strategic movement
(`engine.fe.strategic`) use it.

The table needs to know what a unit *is* (756.0: ships and non-ship units; bases; fighters):
those predicates are `engine.fe.unit_kinds`. Marks as in ``fe-rules-notes.md``: S sourced,
I inferred, C a choice that should become a game option.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from itertools import repeat
from typing import Literal

from engine.core import caches, hexgrid
from engine.fe.forces import OFF_MAP, Board
from engine.fe.galaxy import Galaxy, HexId
from engine.fe.occupancy import (
    ATTRITION,
    NONSHIP_ATTRITION,
    SHIP,
    awaits_carry,
    board_index,
)

Purpose = Literal["supply", "retrograde"]

BLOCKING_RULE = "411.3"


# --- the blocking table ---------------------------------------------------------------------

_F_ANY, _F_SHIP, _F_FIGHTERS, _E_ANY, _E_SHIP, _E_FIGHTERS = 1, 2, 4, 8, 16, 32


def _presence(galaxy: Galaxy, board: Board, empire: str) -> dict[HexId, int]:
    """Per hex, which of the empire's (F) and its enemies' (E) units are there, as flags.

    The map's starting bases count as units of the hex's owner (a base is a non-ship unit).
    Units of empires that are neither the empire nor at war with it are ignored (C: an ally's
    units do not open paths; the Board has no alliances yet).
    """
    flags: dict[HexId, int] = {}
    at_war: dict[str, bool] = {}
    for h, here in board_index(galaxy, board)[0].items():
        bits = _hex_flags(board, empire, here.items(), at_war)
        if bits:
            flags[h] = bits
    return flags


def _hex_flags(
    board: Board, empire: str, here: Iterable[tuple[str, int]], at_war: dict[str, bool]
) -> int:
    """`_presence`'s flags of one hex from its occupancy, as (owner, `ANY`.. flags) pairs
    (``at_war`` remembers, per other empire, whether it is ``empire``'s enemy on ``board``)."""
    bits = 0
    for owner, has in here:
        if owner == empire:
            bits |= _F_ANY | (_F_SHIP if has & SHIP else 0)
            bits |= _F_FIGHTERS if has & ATTRITION else 0
            continue
        enemy = at_war.get(owner)
        if enemy is None:
            enemy = at_war[owner] = board.enemies(empire, owner)
        if enemy:
            bits |= _E_ANY | (_E_SHIP if has & SHIP else 0)
            # Fighters on enemy ships are covered by the ship rows; only fighters on
            # enemy non-ship units (bases, PDUs, auxiliary carriers) add the fighter rows.
            bits |= _E_FIGHTERS if has & NONSHIP_ATTRITION else 0
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
    hexes that changed (`carry_presence`, when `board_index` is first asked)."""
    shared: dict[str, frozenset[tuple[HexId, int]]] | None = board.__dict__.get(_SHARED_FLAGS)
    if shared is not None and empire in shared:
        return shared[empire]  # (the flags of a board of the same units: `share_presence`)
    if awaits_carry(board):
        board_index(galaxy, board)  # derives this board's flags from those it came from
        carried = caches.peek(presence_set, galaxy, board, empire)
        if carried is not None:
            return carried
    at_war: dict[str, bool] = {}
    found: list[tuple[HexId, int]] = []
    for kind, hexes in _alike(board_index(galaxy, board)[0]):
        bits = _hex_flags(board, empire, kind, at_war)
        if bits:
            found.extend(zip(hexes, repeat(bits)))
    return frozenset(found)


def carry_presence(
    galaxy: Galaxy,
    before: Board,
    after: Board,
    occupancy: Mapping[HexId, dict[str, int]],
    updates: Mapping[HexId, dict[str, int]],
    empires: Iterable[str],
) -> None:
    """Carry ``empires``' presence flags, if remembered for ``before``, to ``after``: they
    change only in the hexes whose occupancy changed (``updates``; ``occupancy`` is
    ``before``'s), unless a war was declared or ended between the boards. The
    `engine.fe.occupancy.IndexCarrier` that boards made by a change of units
    (`engine.fe.board_update`) name, so their flags come with their index."""
    if after.at_war != before.at_war:
        return
    for empire in empires:
        flags = caches.peek(presence_set, galaxy, before, empire)  # (asked: held)
        if flags is None:
            continue
        at_war: dict[str, bool] = {}
        gone: set[tuple[HexId, int]] = set()
        came: set[tuple[HexId, int]] = set()
        for h, new_here in updates.items():
            old_here = occupancy.get(h)
            if old_here and (bits := _hex_flags(before, empire, old_here.items(), at_war)):
                gone.add((h, bits))
            if new_here and (bits := _hex_flags(after, empire, new_here.items(), at_war)):
                came.add((h, bits))
        if gone == came:
            caches.prime(presence_set, flags, galaxy, after, empire)
            continue
        kept = (flags - gone) | came
        caches.prime(presence_set, kept, galaxy, after, empire)
        changed = {h for h, _ in gone} | {h for h, _ in came}
        for purpose in _PURPOSES:
            blocked = caches.peek(_blocked_by, galaxy, flags, purpose)
            if blocked is not None:
                carried = _blocked_near(galaxy, blocked, kept, changed, purpose)
                caches.prime(_blocked_by, carried, galaxy, kept, purpose)


_PURPOSES: tuple[Purpose, ...] = ("supply", "retrograde")


def share_presence(galaxy: Galaxy, before: Board, after: Board, empires: Iterable[str]) -> None:
    """Leave ``after``, a board of the very units of ``before`` (a turn begun, a war
    declared, a fleet released), the presence flags ``before`` holds for those of
    ``empires`` whose enemies are the same on both boards, when the owners are the same
    too: a hex's flags read its units, the owners' bases and whom the empire is at war with
    (`_hex_flags`), nothing else. The same frozenset then finds the blocking sets kept for
    it (`_blocked_by`) and the supply grids kept for those.

    A war declared as a player turn begins changes two empires' flags; the others' were
    worked out again for nothing (0.8% of the warm turn's instructions,
    `bench/turn_instructions.py`). The flags are left on the board, not handed to the
    cache, so they push out no entry of another board (`occupancy.share_index`); flags
    ``before`` was left so and never asked for are passed on as they are."""
    if after.owners != before.owners:
        return
    changed = set(before.at_war).symmetric_difference(after.at_war)
    at_war_changed = {empire for pair in changed for empire in pair}
    earlier: dict[str, frozenset[tuple[HexId, int]]] = before.__dict__.get(_SHARED_FLAGS, {})
    kept: dict[str, frozenset[tuple[HexId, int]]] = {}
    for empire in empires:
        if empire in at_war_changed:
            continue
        flags = caches.peek(presence_set, galaxy, before, empire)
        if flags is None:
            flags = earlier.get(empire)
        if flags is not None:
            kept[empire] = flags
    if kept:
        after.__dict__[_SHARED_FLAGS] = kept


_SHARED_FLAGS = "_presence_shared"
"""The key, in a board's ``__dict__``, of what `share_presence` left: per empire, the
presence flags of a board of the same units, owners and enemies."""


def _blocked_near(
    galaxy: Galaxy,
    blocked: frozenset[HexId],
    presence: frozenset[tuple[HexId, int]],
    changed: set[HexId],
    purpose: Purpose,
) -> frozenset[HexId]:
    """`_blocked_by` of ``presence``, given ``blocked``, its answer for flags that differ
    only in the ``changed`` hexes (on the map or off it): a hex's answer reads its own flags
    and its neighbours' (`_evaluate`, False for a hex `_blocked_by` does not ask about), so
    only the changed hexes and their neighbours are asked again. A move changes two hexes'
    flags; the whole set costs the enemy's hexes and all around them."""
    flags = dict(presence)
    adjacent = adjacency(galaxy)
    near = set(changed)
    for h in changed:
        near.update(adjacent.get(h, ()))
    retro = purpose == "retrograde"
    now = [h for h in near if _evaluate(flags, adjacent, h, retro)]
    return (blocked - near).union(now)


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


@caches.derived(maxsize=8, shipped=True)
def _table(width: int, height: int) -> dict[HexId, tuple[HexId, ...]]:
    """Each hex's neighbours, every hex one int object: a neighbour in the table is the very
    object of its own key. A search keyed by the hexes it reads from here (`supply_search.reach`,
    a ring of thousands of hexes) then finds a hex it met already by identity: an int
    object made for each neighbour tuple, equal but not the same, made each such hit a
    comparison by value as well."""
    one = {h: h for h in (c * 100 + r for c in range(1, width + 1) for r in range(1, height + 1))}
    return {h: tuple(map(one.__getitem__, hexgrid.neighbours(h, width, height))) for h in one}


def adjacency(galaxy: Galaxy) -> dict[HexId, tuple[HexId, ...]]:
    """Every on-map hex's neighbours in `hexgrid.neighbours` order (built once per map size)."""
    return _table(galaxy.width, galaxy.height)
