"""Battle force determination (302.3): which of a side's units in a battle hex fight this round.

Each side picks, in secret (5-3D, 5-3E), a flagship and the units that fight with it; the
others stay in reserve, or in the support echelon when they send fighters or PFs forward
(302.563). `force_problems` says why a `BattleForce` is not legal, naming the rule and the
numbers; `force_targets` gives the damage view of the units (`engine.fe.combat.targets`).

Readings, marked as in ``fe-rules-notes.md`` (S sourced, I inferred, C a choice):

- S (302.31, 5-3B): the force is chosen from the side's own units in the battle hex; I: each
  once.
- S (302.32, notes): the flagship is one of the three units with the highest command
  ratings. I: "the three highest" counts ties generously: any unit rated at least as high as
  the third best unit is eligible; a unit without a rating cannot be flagship. S (302.133):
  after a withdrawal before combat the flagship named then serves in the first round
  (``fixed_flagship``).
- S (302.33): the force holds as many units as the flagship's command rating, plus an
  admiral's bonus (316.0) and command points spent (308.9), both plain integers here; C:
  whether the flagship itself counts is the ``flagship-counts`` option (default yes; the same
  option the reserve fleets read, `engine.fe.steps.reserves`), passed as ``flagship_counts``.
- S (302.33, notes): one scout in the force rides free (any scout that is not the flagship;
  which one does not change the count).
- S (302.332A, 527.112, 530.111): fighters and PFs sent forward as their own squadrons
  count for command, at most three ship equivalents in all; a squadron counts one ship
  equivalent per started 6 fighter factors or 6 PFs. I: fighters carried by a unit in the
  force are part of that unit and count nothing more. Heavy and F-111 squadrons (8 and 9
  factors) are not told apart in the data yet: they count as standard ones.
- S (302.563): a unit outside the force that sends fighters or PFs forward is in the support
  echelon; it sends no more than it has.
- S (515.15, 5-3C): carrier groups are formed before the forces and stay together: a group is
  wholly in the force or wholly out of it. I: a group's carrier is a carrier class and its
  escorts escort classes of the tables, each unit in one group at most. I (515.0, from the
  carrier sizes of the tables): a light carrier takes at most one escort, a medium two, a
  heavy three, a single-ship carrier none (`MAX_ESCORTS`); fewer is allowed.
- Not modelled: minimum force requirements (302.36), small-scale combat limits (310.11),
  formation rules and special groups (318.4, 315.0), Tholian webs and pinwheels.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import msgspec

from engine.core.ruleset import Violation
from engine.fe.combat.targets import Target, target_of
from engine.fe.forces import Unit
from engine.fe.unit_kinds import class_of

FORCE_RULE = "302.31"
FLAGSHIP_RULE = "302.32"
FIXED_FLAGSHIP_RULE = "302.133"
COMMAND_RULE = "302.33"
ATTRITION_RULE = "302.332A"
SUPPORT_RULE = "302.563"
GROUP_RULE = "515.15"
MAX_ATTRITION_SE = 3
"""Ship equivalents of fighters and PFs a force may hold (302.332A)."""
FIGHTERS_PER_SE2 = 12
"""Six fighter factors (doubled) make a ship equivalent (notes, 302.332A)."""
PFS_PER_SE = 6
"""A flotilla of six PFs is a ship equivalent."""
MAX_ESCORTS = {"single-ship": 0, "light": 1, "medium": 2, "heavy": 3}
"""Escorts a carrier of each size may have in its group (I, see the module notes)."""


class CarrierGroup(msgspec.Struct, frozen=True):
    """A carrier and its escorts, formed at 5-3C and kept together (515.15)."""

    carrier: str
    escorts: tuple[str, ...]


class Forward(msgspec.Struct, frozen=True):
    """Fighters (doubled factors) and PFs a unit outside the force sends into it (302.563)."""

    unit: str
    fighters2: int = 0
    pfs: int = 0

    def ship_equivalents(self) -> int:
        """Ship equivalents for command: each started squadron or flotilla counts one."""
        return -(-self.fighters2 // FIGHTERS_PER_SE2) + -(-self.pfs // PFS_PER_SE)


class BattleForce(msgspec.Struct, frozen=True):
    """One side's battle force for a round: its flagship, its units (the flagship and the
    free scout included), and the fighters and PFs sent forward from the support echelon."""

    flagship: str
    units: tuple[str, ...]
    forward: tuple[Forward, ...] = ()


class ForceCount(msgspec.Struct, frozen=True):
    """How a force measures against its command limit (302.33)."""

    units: int
    """Units counted (the free scout, and the flagship when it does not count, left out)."""
    attrition: int
    """Ship equivalents of fighters and PFs sent forward."""
    limit: int
    """The flagship's rating with the admiral's bonus and command points."""
    free_scout: str = ""

    @property
    def counted(self) -> int:
        return self.units + self.attrition


def command_of(unit: Unit) -> int:
    """The unit's command rating (0 when the tables give none)."""
    info = class_of(unit)
    return info.command if info is not None else 0


def is_scout(unit: Unit) -> bool:
    """Whether the side the unit shows now (crippled or not) is a scout."""
    info = class_of(unit)
    if info is None:
        return False
    side = info.shown(unit.crippled)
    return side.scout


def eligible_flagships(available: Sequence[Unit]) -> tuple[str, ...]:
    """The units that may be flagship (302.32): rated at least as high as the third best."""
    ratings = sorted((command_of(u) for u in available), reverse=True)
    ratings = [r for r in ratings if r > 0]
    if not ratings:
        return ()
    floor = ratings[min(2, len(ratings) - 1)]
    return tuple(u.id for u in available if command_of(u) >= floor)


def count_force(
    force: BattleForce,
    available: Sequence[Unit],
    *,
    flagship_counts: bool = True,
    admiral: int = 0,
    command_points: int = 0,
) -> ForceCount:
    """The force's count and limit; unknown ids are left out (`force_problems` names them)."""
    by_id = {u.id: u for u in available}
    members = [by_id[i] for i in dict.fromkeys(force.units) if i in by_id]
    scout = next((u.id for u in members if is_scout(u) and u.id != force.flagship), "")
    flagship = by_id.get(force.flagship)
    counted = len(members) - (1 if scout else 0)
    if flagship is not None and flagship in members and not flagship_counts:
        counted -= 1
    rating = command_of(flagship) if flagship is not None else 0
    return ForceCount(
        units=counted,
        attrition=sum(f.ship_equivalents() for f in force.forward),
        limit=rating + admiral + command_points,
        free_scout=scout,
    )


def force_problems(
    force: BattleForce,
    available: Sequence[Unit],
    *,
    groups: Sequence[CarrierGroup] = (),
    flagship_counts: bool = True,
    admiral: int = 0,
    command_points: int = 0,
    fixed_flagship: str = "",
    lost_fighters2: Mapping[str, int] | None = None,
) -> list[Violation]:
    """Why ``force`` is not a legal battle force of the side whose units in the battle hex
    are ``available``; empty when it is. ``lost_fighters2``: the doubled fighter factors
    each unit lost earlier in the battle, which its support echelon cannot send forward."""
    by_id = {u.id: u for u in available}
    out: list[Violation] = []
    seen: set[str] = set()
    for unit_id in force.units:
        if unit_id not in by_id:
            text = f"{unit_id} is not one of this side's units in the battle hex"
            out.append(Violation(text, FORCE_RULE))
        elif unit_id in seen:
            out.append(Violation(f"{unit_id} is named twice in the battle force", FORCE_RULE))
        seen.add(unit_id)
    out.extend(_flagship_problems(force, by_id, available, fixed_flagship))
    out.extend(_support_problems(force, by_id, lost_fighters2 or {}))
    out.extend(_group_problems(force, by_id, groups))
    count = count_force(
        force,
        available,
        flagship_counts=flagship_counts,
        admiral=admiral,
        command_points=command_points,
    )
    if force.flagship in by_id and count.counted > count.limit:
        text = _over_limit_text(force, by_id, count, admiral, command_points)
        out.append(Violation(text, COMMAND_RULE))
    if count.attrition > MAX_ATTRITION_SE:
        text = (
            f"the force takes {count.attrition} ship equivalents of fighters and PFs sent "
            f"forward; at most {MAX_ATTRITION_SE}"
        )
        out.append(Violation(text, ATTRITION_RULE))
    return out


def _over_limit_text(
    force: BattleForce, by_id: dict[str, Unit], count: ForceCount, admiral: int, points: int
) -> str:
    flagship = by_id[force.flagship]
    parts = [f"{count.units} units"]
    if count.attrition:
        parts.append(f"{count.attrition} ship equivalents of fighters and PFs")
    if count.free_scout:
        parts.append(f"the scout {count.free_scout} free")
    extras = "".join(
        f" + {value} {name}"
        for value, name in ((admiral, "for the admiral"), (points, "command points"))
        if value
    )
    return (
        f"the force counts {count.counted} ({', '.join(parts)}) against a command rating of "
        f"{count.limit} (flagship {flagship.cls} {flagship.id} rated "
        f"{command_of(flagship)}{extras})"
    )


def _flagship_problems(
    force: BattleForce, by_id: dict[str, Unit], available: Sequence[Unit], fixed: str
) -> list[Violation]:
    eligible = eligible_flagships(available)
    if not force.flagship:
        if eligible:
            return [Violation("the battle force has no flagship", FLAGSHIP_RULE)]
        return []
    if force.flagship not in by_id or force.flagship not in force.units:
        text = f"the flagship {force.flagship} is not in the battle force"
        return [Violation(text, FLAGSHIP_RULE)]
    if fixed and force.flagship != fixed:
        text = (
            f"{fixed} was named flagship when the force stayed to fight; it serves in the "
            f"first round, not {force.flagship}"
        )
        return [Violation(text, FIXED_FLAGSHIP_RULE)]
    if force.flagship not in eligible:
        flagship = by_id[force.flagship]
        best = sorted(eligible, key=lambda i: (-command_of(by_id[i]), i))
        named = ", ".join(f"{i} ({command_of(by_id[i])})" for i in best)
        text = (
            f"{flagship.cls} {force.flagship} has command rating {command_of(flagship)}; "
            f"the flagship must be one of the three highest rated: {named}"
        )
        return [Violation(text, FLAGSHIP_RULE)]
    return []


def _support_problems(
    force: BattleForce, by_id: dict[str, Unit], lost_fighters2: Mapping[str, int]
) -> list[Violation]:
    out: list[Violation] = []
    seen: set[str] = set()
    for sent in force.forward:
        unit = by_id.get(sent.unit)
        if unit is None:
            text = f"{sent.unit}, which sends fighters or PFs forward, is not in the battle hex"
            out.append(Violation(text, SUPPORT_RULE))
            continue
        if sent.unit in force.units:
            text = f"{sent.unit} is in the battle force: its fighters and PFs are in it already"
            out.append(Violation(text, SUPPORT_RULE))
        if sent.unit in seen:
            out.append(Violation(f"{sent.unit} sends fighters forward twice", SUPPORT_RULE))
        seen.add(sent.unit)
        if sent.fighters2 == 0 and sent.pfs == 0:
            text = f"{sent.unit} is named in the support echelon but sends nothing forward"
            out.append(Violation(text, SUPPORT_RULE))
        info = class_of(unit)
        side = None
        if info is not None:
            side = info.shown(unit.crippled)
        has2, has_pfs = (side.fighters2, side.pfs) if side is not None else (0, 0)
        has2 = max(0, has2 - lost_fighters2.get(sent.unit, 0))
        if sent.fighters2 < 0 or sent.pfs < 0 or sent.fighters2 > has2 or sent.pfs > has_pfs:
            text = (
                f"{sent.unit} sends {sent.fighters2 // 2} fighter factors and {sent.pfs} PFs "
                f"forward; it has {has2 // 2} and {has_pfs}"
            )
            out.append(Violation(text, SUPPORT_RULE))
    return out


def _group_problems(
    force: BattleForce, by_id: dict[str, Unit], groups: Sequence[CarrierGroup]
) -> list[Violation]:
    out: list[Violation] = []
    grouped: set[str] = set()
    members_in = set(force.units)
    for group in groups:
        members = (group.carrier, *group.escorts)
        for unit_id in members:
            if unit_id in grouped:
                out.append(Violation(f"{unit_id} is in two carrier groups", GROUP_RULE))
            grouped.add(unit_id)
        carrier = by_id.get(group.carrier)
        info = class_of(carrier) if carrier is not None else None
        if info is None or not info.carrier:
            out.append(Violation(f"{group.carrier} is not a carrier in the hex", GROUP_RULE))
        elif len(group.escorts) > MAX_ESCORTS[info.carrier]:
            text = (
                f"{info.id} {group.carrier} is a {info.carrier} carrier: at most "
                f"{MAX_ESCORTS[info.carrier]} escorts, not {len(group.escorts)}"
            )
            out.append(Violation(text, GROUP_RULE))
        for escort_id in group.escorts:
            escort = by_id.get(escort_id)
            einfo = class_of(escort) if escort is not None else None
            if einfo is None or not einfo.escort:
                text = f"{escort_id} is not an escort in the hex (group of {group.carrier})"
                out.append(Violation(text, GROUP_RULE))
        inside = [i for i in members if i in members_in]
        if inside and len(inside) != len(members):
            outside = [i for i in members if i not in members_in]
            text = (
                f"the carrier group of {group.carrier} stays together: {', '.join(inside)} "
                f"in the battle force, {', '.join(outside)} left out"
            )
            out.append(Violation(text, GROUP_RULE))
    return out


def group_problems(groups: Sequence[CarrierGroup], available: Sequence[Unit]) -> list[Violation]:
    """Why ``groups`` are not legal carrier groups of the side whose units in the battle hex
    are ``available`` (515.15, as formed at 5-3C before any force is chosen)."""
    return _group_problems(BattleForce("", ()), {u.id: u for u in available}, groups)


def support_echelon(force: BattleForce) -> tuple[str, ...]:
    """The units outside the force that send fighters or PFs into it (302.563)."""
    return tuple(dict.fromkeys(f.unit for f in force.forward if f.unit not in force.units))


def reserve(force: BattleForce, available: Sequence[Unit]) -> tuple[str, ...]:
    """The side's units in the hex neither in the force nor in its support echelon."""
    taken = set(force.units) | set(support_echelon(force))
    return tuple(u.id for u in available if u.id not in taken)


def force_targets(
    force: BattleForce, available: Sequence[Unit], with_reserve: bool = False
) -> tuple[Target, ...]:
    """The damage view of a legal force's units: those of the force, then the support
    echelon (with the fighters each sent forward), then, if asked, the reserve (so that a
    directed order at a reserve unit is refused by name), in id order within each."""
    by_id = {u.id: u for u in available}
    inside = sorted(dict.fromkeys(force.units))
    sent = {f.unit: f.fighters2 for f in force.forward}
    support = sorted(support_echelon(force))
    kept = sorted(reserve(force, available)) if with_reserve else []
    return (
        *(target_of(by_id[i], "force") for i in inside),
        *(target_of(by_id[i], "support", fighters2=sent[i]) for i in support),
        *(target_of(by_id[i], "reserve", fighters2=0) for i in kept),
    )
