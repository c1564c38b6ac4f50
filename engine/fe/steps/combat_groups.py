"""Carrier groups (5-3C) and the support echelon (5-3E) of a battle round, as typed choices.

`engine.fe.steps.combat_round` plays a round's secret steps; this module reads and checks the
two of them that concern carriers, with the pure rules of `engine.fe.combat.forces`:

- 5-3C, the carrier groups (515.15): ``[{"carrier": "KLI-0010", "escorts": ["KLI-0011"]}]``,
  or the app's form ``{"KLI-0010": ["KLI-0011"]}`` (a carrier's id, its escorts), or ``[]``,
  ``{}`` or ``"none"`` for no group. Each carrier a carrier class and each escort an escort
  class of the side's units in the hex, each unit in one group, no more escorts than the
  carrier's size takes (`forces.MAX_ESCORTS`). S (the seed's 5-3C): the groups "cannot be
  changed until the Pursuit Phase", so from round 2 a side names the groups of its previous
  round again, less the units no longer in the fight (I: a group whose carrier or last escort
  is gone is dissolved; an escort gone leaves its group; a carrier named without escorts
  forms no group).
- 5-3E, the battle force (302.3): the list of its unit ids, as before, or
  ``{"units": [...], "forward": {"KLI-0012": 6}}`` where ``forward`` names units kept out of
  the force that send fighters or PFs into it, the support echelon (302.563). A unit sends a
  number of whole fighter factors, ``{"fighters": F, "pfs": P}``, or ``"all"`` (every fighter
  factor and PF its counter shows). The pure rules check that no group is split (515.15),
  that a unit sends no more than it has, and that the fighters and PFs sent forward count at
  most three ship equivalents, within the command limit (302.332A, 302.33).

Fighters and PFs sent forward add to the side's combat potential (`engine.fe.combat.potential`)
and their carriers may be the target of directed damage at three times the cost
(`engine.fe.steps.combat_directed`). Not modelled (I): half fighter factors sent alone (a
number is whole factors; ``"all"`` sends the half too), the fighters sent forward taking
losses in allocation (5-6 offers the force's own units), groups other than carrier groups
(318.4, 515.3).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import msgspec

from engine.core.ruleset import Violation
from engine.fe.battle_model import BattleRecord, SideRound
from engine.fe.combat import forces
from engine.fe.forces import Unit
from engine.fe.unit_kinds import class_of

GROUPS_STEP = "5-3C"
MAX_GROUPS = 50
MAX_ESCORTS = 8
MAX_FACTORS = 99
NONE = "none"

Groups = tuple[tuple[str, tuple[str, ...]], ...]
"""Carrier groups as `SideRound.groups` keeps them: each carrier with its escorts."""


class ForceChoice(msgspec.Struct, frozen=True):
    """A battle force as typed at 5-3E: its units and what the support echelon sends."""

    units: tuple[str, ...]
    forward: tuple[forces.Forward, ...] = ()


def _unit_id(value: object) -> str | None:
    return value if isinstance(value, str) and 0 < len(value) <= 40 else None


def _ids(value: object, most: int) -> tuple[str, ...] | None:
    if not isinstance(value, list) or len(value) > most:
        return None
    ids = [_unit_id(v) for v in value]
    return tuple(i for i in ids if i is not None) if None not in ids else None


def parse_groups(choice: object) -> list[forces.CarrierGroup] | None:
    """The carrier groups typed at 5-3C, or None when the choice has not their shape."""
    if choice == NONE:
        return []
    if isinstance(choice, dict):
        if len(choice) > MAX_GROUPS:
            return None
        found = [(_unit_id(k), _ids(v, MAX_ESCORTS)) for k, v in choice.items()]
        if any(c is None or e is None for c, e in found):
            return None
        return [forces.CarrierGroup(c, e) for c, e in found if c is not None and e is not None]
    if not isinstance(choice, list) or len(choice) > MAX_GROUPS:
        return None
    out: list[forces.CarrierGroup] = []
    for item in choice:
        if not isinstance(item, dict) or set(item) - {"carrier", "escorts"}:
            return None
        carrier, escorts = _unit_id(item.get("carrier")), _ids(item.get("escorts"), MAX_ESCORTS)
        if carrier is None or escorts is None:
            return None
        out.append(forces.CarrierGroup(carrier, escorts))
    return out


def as_record(groups: Sequence[forces.CarrierGroup]) -> Groups:
    """Groups as a round's log keeps them, in carrier order (a carrier named without an
    escort forms no group)."""
    return tuple(sorted((g.carrier, g.escorts) for g in groups if g.escorts))


def of_record(groups: Groups) -> list[forces.CarrierGroup]:
    return [forces.CarrierGroup(carrier, escorts) for carrier, escorts in groups]


def as_choice(groups: Groups) -> list[dict[str, object]]:
    """Groups in the form of 5-3C's choice (what a policy answers)."""
    return [{"carrier": c, "escorts": list(e)} for c, e in groups]


def groups_text(groups: Groups) -> str:
    if not groups:
        return "no carrier group"
    return "; ".join(f"{c} with {', '.join(e) or 'no escort'}" for c, e in groups)


def kept_groups(record: BattleRecord, seat: str, number: int, here: set[str]) -> Groups | None:
    """The groups ``seat`` keeps in round ``number`` (515.15): those of its previous round
    with the units no longer in the fight (``here`` are those still in it) left out; None in
    the first round, when the groups are formed."""
    earlier = [log for log in record.log if log.round < number]
    if not earlier:
        return None
    last = earlier[-1]
    side = last.attacker if last.attacker.seat == seat else last.defender
    kept = ((c, tuple(e for e in escorts if e in here)) for c, escorts in side.groups)
    return tuple((c, escorts) for c, escorts in kept if c in here and escorts)


def groups_problems(
    choice: object, available: Sequence[Unit], kept: Groups | None
) -> list[Violation]:
    """Why ``choice`` is not a legal 5-3C choice of the side with ``available`` units; ``kept``
    the groups it must name again after the first round (`kept_groups`)."""
    groups = parse_groups(choice)
    if groups is None:
        text = (
            f'the secret choice of {GROUPS_STEP} is your carrier groups: [{{"carrier": '
            f'"UNIT-ID", "escorts": ["UNIT-ID", ...]}}, ...], or [] (or "none") for none'
        )
        return [Violation(text, forces.GROUP_RULE)]
    problems = forces.group_problems(groups, available)
    if problems or kept is None:
        return problems
    normal = tuple(sorted((c, tuple(sorted(e))) for c, e in as_record(groups)))
    if normal != tuple(sorted((c, tuple(sorted(e))) for c, e in kept)):
        text = (
            f"carrier groups stay as formed until the pursuit phase: {groups_text(kept)}, "
            f"not {groups_text(as_record(groups))}"
        )
        return [Violation(text, forces.GROUP_RULE)]
    return []


def _sent(
    unit_id: str, value: object, by_id: dict[str, Unit], lost_fighters2: Mapping[str, int]
) -> forces.Forward | None:
    if value == "all":
        unit = by_id.get(unit_id)
        info = class_of(unit) if unit is not None else None
        if unit is None or info is None:
            return forces.Forward(unit_id)
        side = info.shown(unit.crippled)
        left2 = max(0, side.fighters2 - lost_fighters2.get(unit_id, 0))
        return forces.Forward(unit_id, left2, side.pfs)
    if isinstance(value, int) and not isinstance(value, bool):
        return forces.Forward(unit_id, 2 * value) if 0 <= value <= MAX_FACTORS else None
    if not isinstance(value, dict) or not value or set(value) - {"fighters", "pfs"}:
        return None
    numbers = [value.get("fighters", 0), value.get("pfs", 0)]
    if not all(isinstance(n, int) and not isinstance(n, bool) for n in numbers):
        return None
    fighters, pfs = (int(n) for n in numbers)
    if not (0 <= fighters <= MAX_FACTORS and 0 <= pfs <= MAX_FACTORS):
        return None
    return forces.Forward(unit_id, 2 * fighters, pfs)


def parse_force(
    choice: object,
    available: Sequence[Unit],
    most: int,
    lost_fighters2: Mapping[str, int] | None = None,
) -> ForceChoice | None:
    """The battle force typed at 5-3E (a list of ids, or ``{"units", "forward"}``), or None
    when the choice has not that shape. ``"all"`` sends what a unit has left of its fighters
    after ``lost_fighters2`` (lost earlier in the battle)."""
    if isinstance(choice, list):
        units = _ids(choice, most)
        return ForceChoice(units) if units is not None else None
    if not isinstance(choice, dict) or "units" not in choice or set(choice) - {"units", "forward"}:
        return None
    units = _ids(choice["units"], most)
    sending = choice.get("forward", {})
    if units is None or not isinstance(sending, dict) or len(sending) > most:
        return None
    by_id = {u.id: u for u in available}
    forward: list[forces.Forward] = []
    for unit_id, value in sending.items():
        checked = _unit_id(unit_id)
        sent = _sent(checked, value, by_id, lost_fighters2 or {}) if checked is not None else None
        if sent is None:
            return None
        forward.append(sent)
    return ForceChoice(units, tuple(forward))


def force_shape_text(step: str) -> str:
    return (
        f"the secret choice of {step} is the list of your battle force's unit ids, or "
        f'{{"units": [...], "forward": {{"UNIT-ID": fighter factors, ...}}}} with the '
        "fighters and PFs sent forward by units outside the force"
    )


def with_forward(side: SideRound, forward: Sequence[forces.Forward]) -> SideRound:
    """The side's round with its support echelon recorded (302.563)."""
    return msgspec.structs.replace(
        side,
        forward=tuple((f.unit, f.fighters2) for f in forward),
        forward_pfs=tuple((f.unit, f.pfs) for f in forward if f.pfs),
    )


def forward_totals(side: SideRound, here: set[str]) -> tuple[int, int]:
    """Doubled fighter factors and PFs the side's support echelon still in the hex sends."""
    fighters2 = sum(f for u, f in side.forward if u in here)
    return fighters2, sum(p for u, p in side.forward_pfs if u in here)


def carriers(available: Sequence[Unit]) -> list[tuple[Unit, int]]:
    """The side's carriers in the hex with the escorts each may take (for menus)."""
    out: list[tuple[Unit, int]] = []
    for unit in available:
        info = class_of(unit)
        if info is not None and info.carrier:
            out.append((unit, forces.MAX_ESCORTS[info.carrier]))
    return out


def escorts(available: Sequence[Unit]) -> tuple[str, ...]:
    """The side's escorts in the hex (for menus)."""
    out = []
    for unit in available:
        info = class_of(unit)
        if info is not None and info.escort:
            out.append(unit.id)
    return tuple(out)


def senders(available: Sequence[Unit]) -> list[tuple[str, int, int]]:
    """The side's units in the hex with fighters or PFs to send forward: id, doubled fighter
    factors, PFs (for menus)."""
    out: list[tuple[str, int, int]] = []
    for unit in available:
        info = class_of(unit)
        side = info.shown(unit.crippled) if info is not None else None
        if side is not None and (side.fighters2 or side.pfs):
            out.append((unit.id, side.fighters2, side.pfs))
    return out
