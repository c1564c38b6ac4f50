"""What blocks supply paths and retrograde movement, and the unit categories that decides.

The play aid "Blocking supply and retrograde" is a table of hex conditions (enemy units in
the hex, friendly ships or non-ship units, enemy ships or fighters next door); `blocks`
transcribes it and documents each reading, `Blocking` answers it hex by hex for a whole
board at once (an index of who is where, built once). Supply (`engine.fe.supply`),
retrograde (`engine.fe.retrograde`) and strategic movement (`engine.fe.strategic`) use it.

The table needs to know what a unit *is* (756.0: ships and non-ship units; bases; fighters),
so those small predicates live here too. Marks as in ``fe-rules-notes.md``: S sourced,
I inferred, C a choice that should become a game option.
"""

from __future__ import annotations

from typing import Literal

from engine.core import caches, hexgrid
from engine.fe.forces import OFF_MAP, Board, Unit
from engine.fe.galaxy import Galaxy, HexId, HexInfo
from engine.fe.units import UnitClass, load_units

Purpose = Literal["supply", "retrograde"]

BLOCKING_RULE = "411.3"

AUXILIARY_CLASSES = ("FTL", "LAH", "LAP", "LAV", "SAF", "SAH", "SAHY", "SAP", "SAV")
"""Auxiliary designations named by 549.0 and 756.3. I: the unit tables hold no auxiliaries yet;
these ids are how they will be recognised (non-ship units, 3 hexes of movement, 549.21)."""


# --- what a unit is -------------------------------------------------------------------------


def class_of(unit: Unit) -> UnitClass | None:
    """The unit's class, or None for classes not in the tables yet (LTTs, auxiliaries)."""
    return load_units().find(*unit.class_key())


def is_ltt(unit: Unit) -> bool:
    """A light tactical transport (516.0): ``LTT`` or a variant such as ``LTT (D5H)``."""
    return unit.cls == "LTT" or unit.cls.startswith("LTT ")


def is_auxiliary(unit: Unit) -> bool:
    """An auxiliary warship (549.0), recognised by its designation (see `AUXILIARY_CLASSES`)."""
    return unit.cls in AUXILIARY_CLASSES


def is_ship(unit: Unit) -> bool:
    """A ship in the sense of 756.0: it moves by itself and is none of the non-ship units
    (bases, PDUs, pods, convoys, FRDs, auxiliaries). I: a class missing from the tables that
    is not an auxiliary (an LTT) is a ship."""
    if is_auxiliary(unit):
        return False
    info = class_of(unit)
    if info is None:
        return True
    non_ship = info.move == 0 or info.towable is not None or info.pod or info.cargo > 0
    return not non_ship and not info.not_spaceworthy


def is_base(unit: Unit) -> bool:
    """A base (756.3): it cannot move, is not a pod, and has a command rating."""
    info = class_of(unit)
    if info is None or info.towable is not None or info.pod:
        return False
    return info.move == 0 and info.command > 0


def movement_points(unit: Unit) -> int:
    """Hexes of movement (203.1): the class's value; auxiliaries 3 (549.21), LTTs 6 (516.0)."""
    info = class_of(unit)
    if info is not None:
        return info.move
    if is_auxiliary(unit):
        return 3
    return 6 if is_ltt(unit) else 0


def _carries_attrition(info: UnitClass | None, crippled: bool) -> bool:
    """Whether the unit's current side carries fighters or PFs (which could react, 205.7)."""
    if info is None:
        return False
    side = info.crippled if crippled and info.crippled is not None else info.full
    return side.fighters2 > 0 or side.pfs > 0


def can_supply(unit: Unit) -> bool:
    """Whether the unit's class may take the supply mission (509.1-D): tugs, LTTs, convoys."""
    if is_ltt(unit):
        return True
    info = class_of(unit)
    return info is not None and ("D" in info.full.tug_missions or info.id == "CONVOY")


# --- the blocking table ---------------------------------------------------------------------

_F_ANY, _F_SHIP, _F_FIGHTERS, _E_ANY, _E_SHIP, _E_FIGHTERS = 1, 2, 4, 8, 16, 32


def _presence(galaxy: Galaxy, board: Board, empire: str) -> dict[HexId, int]:
    """Per hex, which of the empire's (F) and its enemies' (E) units are there, as flags.

    The map's starting bases count as units of the hex's owner (a base is a non-ship unit).
    Units of empires that are neither the empire nor at war with it are ignored (C: an ally's
    units do not open paths; the Board has no alliances yet).
    """
    flags: dict[HexId, int] = {}

    def mark(h: HexId, owner: str, ship: bool, attrition: bool) -> None:
        if owner == empire:
            bits = _F_ANY | (_F_SHIP if ship else 0) | (_F_FIGHTERS if attrition else 0)
        elif board.enemies(empire, owner):
            bits = _E_ANY | (_E_SHIP if ship else 0)
            # Fighters on enemy ships are covered by the ship rows; only fighters on enemy
            # non-ship units (bases, PDUs, auxiliary carriers) add the fighter rows.
            bits |= _E_FIGHTERS if attrition and not ship else 0
        else:
            return
        flags[h] = flags.get(h, 0) | bits

    for unit in board.units:
        if unit.hex != OFF_MAP:
            mark(unit.hex, unit.empire, *_traits(unit.empire, unit.cls, unit.crippled))
    for info in feature_hexes(galaxy):
        if not info.bases:
            continue
        owner = board.owner(galaxy, info.hex)
        for base in info.bases:
            fighters = _carries_attrition(load_units().find(owner, base.kind), False)
            mark(info.hex, owner, False, fighters)
    return flags


@caches.derived(maxsize=4096)
def _traits(empire: str, cls: str, crippled: bool) -> tuple[bool, bool]:
    """(is a ship, carries fighters or PFs) for a class and side, looked up once."""
    unit = Unit("", empire, cls, crippled=crippled)
    return is_ship(unit), _carries_attrition(class_of(unit), crippled)


@caches.by_identity(maxsize=4)
def feature_hexes(galaxy: Galaxy) -> tuple[HexInfo, ...]:
    """The hexes of the map that hold planets or bases (looked up once per map)."""
    return tuple(info for info in galaxy.hexes if info.bases or info.planets)


class Blocking:
    """Which hexes block supply (or retrograde) paths for one empire on one board.

    Built once per board (an index of who is where), then asked hex by hex; answers are
    cached. `blocks` is the one-question form.
    """

    def __init__(self, galaxy: Galaxy, board: Board, empire: str, purpose: Purpose) -> None:
        self._purpose = purpose
        self._flags = _presence(galaxy, board, empire)
        self._adjacent = adjacency(galaxy)
        self._cache: dict[HexId, bool] = {}

    def __call__(self, h: HexId) -> bool:
        found = self._cache.get(h)
        if found is None:
            found = self._cache[h] = self._evaluate(h)
        return found

    def _evaluate(self, h: HexId) -> bool:
        if h == OFF_MAP:
            return False  # an off-map area is never blockaded here
        here = self._flags.get(h, 0)
        retro = self._purpose == "retrograde"
        if here & _E_ANY:
            # Enemy units without friendly ones block both; with friendly ones supply passes,
            # and retrograde is "N/A" in the table: C, it may not enter such a hex.
            return True if not here & _F_ANY else retro
        around = 0
        for n in self._adjacent[h]:
            around |= self._flags.get(n, 0)
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
