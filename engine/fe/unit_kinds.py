"""What a unit is, read from its class: a ship or a non-ship unit, a base, an auxiliary or an LTT,
its hexes of movement, whether it can take the supply mission.

These small predicates (756.0 ships and non-ship units, 756.3 bases, 549.0 auxiliaries,
516.0 LTTs, 203.1 movement, 509.1-D supply) are asked by nearly every rules area; they lived in
`engine.fe.blocking` because the blocking table was their first reader. Marks as in
``fe-rules-notes.md``: S sourced, I inferred, C a choice that should become a game option.
"""

from __future__ import annotations

from engine.core import caches
from engine.fe.forces import CAPTURED_SEP, Unit
from engine.fe.units import UnitClass, load_units

AUXILIARY_CLASSES = ("FTL", "LAH", "LAP", "LAV", "SAF", "SAH", "SAHY", "SAP", "SAV")
"""Auxiliary designations named by 549.0 and 756.3. I: the unit tables hold no auxiliaries yet;
these ids are how they will be recognised (non-ship units, 3 hexes of movement, 549.21)."""


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
    return _is_ship(unit.empire, unit.cls)


@caches.derived(maxsize=4096, shipped=True)
def _is_ship(empire: str, cls: str) -> bool:
    """`is_ship` of a unit of ``empire`` and class ``cls``: it reads nothing else."""
    unit = Unit("", empire, cls)
    if is_auxiliary(unit):
        return False
    info = class_of(unit)
    if info is None:
        return True
    non_ship = info.move == 0 or info.towable is not None or info.pod or info.cargo > 0
    return not non_ship and not info.not_spaceworthy


def is_base(unit: Unit) -> bool:
    """A base (756.3): it cannot move, is not a pod, and has a command rating."""
    return _is_base_class(class_of(unit))


def _is_base_class(info: UnitClass | None) -> bool:
    if info is None or info.towable is not None or info.pod:
        return False
    return info.move == 0 and info.command > 0


def class_id_of(cls: str) -> str:
    """The class id a unit's ``cls`` names in the tables (`Unit.class_key`: a captured
    ship's is written after its builder's prefix)."""
    _, sep, own = cls.partition(CAPTURED_SEP)
    return own if sep else cls


@caches.static
def base_class_ids() -> frozenset[str]:
    """The class ids that are a base (`is_base`) for some empire in the unit tables: a unit
    whose class id (after a captor's prefix) is none of them is no base."""
    return frozenset(info.id for info in load_units().classes if _is_base_class(info))


def movement_points(unit: Unit) -> int:
    """Hexes of movement (203.1): the class's value; auxiliaries 3 (549.21), LTTs 6 (516.0)."""
    info = class_of(unit)
    if info is not None:
        return info.move
    if is_auxiliary(unit):
        return 3
    return 6 if is_ltt(unit) else 0


def carries_attrition(info: UnitClass | None, crippled: bool) -> bool:
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
