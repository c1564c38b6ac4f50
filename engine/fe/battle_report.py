"""The battle record and the battle report (issue 14 item 13): what the engine played in each
battle hex, round by round and side by side.

`BattleRecord` keeps the round logs as the steps filled them (doubled potentials, -1 for "not
yet"). People and scripts want the same facts in their own terms, so this module gives them
twice, from the record alone:

- `rounds`: per round, per side, a `SideReport` with the keys ``show --json`` prints under
  ``battles[].log``: ``potential``, ``bir`` (the total both sides used, 304.3), ``vbir_die``,
  ``ew`` (the side's EW shift on the table, 308.5), ``die``, ``permille``, ``damage``,
  ``directed``, ``allocated``, ``plus``, ``minus``, with the ``seat``, its ``flagship``, its
  ``force`` and its ``losses``; where the side had them, its carrier ``groups`` (515.15), the
  fighters and PFs its support echelon sent ``forward`` (302.563) and the ``command_points``
  it spent (308.9), which the report lines name too. Amounts that may hold a half point
  (potential, points directed, allocated, carried) are exact strings as the tables print
  them (``"40.5"``); the whole numbers (dice, per-mille, damage points) are integers; what
  is not known yet is ``None``.
- `report_lines`: the same as lines to read ("1305 round 1: BIR 2 + 2, variable die 4 (+0) =
  4; coalition (flagship KLI-0001, 6 units) potential 40, EW +0, die 3 -> 25% = 10 points;
  ..."), and `new_reports`: the lines a change of the records adds, as ``battle-report``
  events, so the log, the review and the email of the packet that rolled a round's dice or
  ended a round read like a battle report.

Plus and minus points (308.2) are not kept per round by the record (only the carry after the
latest allocation, ``BattleRecord.carry``), so they are worked out again here from each
round's figures, as the allocation step counts them (`engine.fe.steps.combat_damage`): a side
owes the enemy's damage less the points the enemy spent on directed damage (302.5), plus what
it carried in (never below 0); what it resolved beyond that is minus points, what it left is
plus points; a round it had nothing to allocate carries the old amount on unchanged.

Directed damage: `SideRound` ``directed`` (what it did, in words) and ``directed2`` (doubled
points spent), set by the directed-damage step (`engine.fe.steps.combat_directed`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from engine.core.ruleset import Event, Seat
from engine.fe.battle_model import PURSUIT_FOUGHT, BattleRecord, RoundLog, SideRound
from engine.fe.combat.results import VARIABLE_BIR, permille_text
from engine.fe.combat.targets import points_text
from engine.fe.model import FeState

REPORT_KIND = "battle-report"
"""The kind of the events that carry a battle report's lines."""
DAMAGE_RULE = "302.4"
LOSSES_RULE = "302.6"


class Directed(msgspec.Struct, frozen=True):
    """A side's directed damage in a round (302.5): the points spent and what they did."""

    points: str
    result: str


class GroupReport(msgspec.Struct, frozen=True):
    """A carrier group of a side's round (515.15): the carrier and its escorts."""

    carrier: str
    escorts: tuple[str, ...]


class ForwardReport(msgspec.Struct, frozen=True):
    """A unit of the support echelon and what it sent forward (302.563): fighter factors as
    the tables print them (``"4.5"``), PFs."""

    unit: str
    fighters: str
    pfs: int


class SideReport(msgspec.Struct, frozen=True, omit_defaults=True):
    """One side's part of one round, as ``show --json`` prints it (see the module's doc);
    ``groups``, ``forward`` and ``command_points`` only where the side had any."""

    seat: Seat
    flagship: str
    force: tuple[str, ...]
    potential: str | None
    bir: int | None
    vbir_die: int | None
    ew: int
    die: int | None
    permille: int | None
    damage: int | None
    directed: Directed | None
    allocated: str | None
    plus: str | None
    minus: str | None
    losses: tuple[str, ...]
    groups: tuple[GroupReport, ...] = ()
    forward: tuple[ForwardReport, ...] = ()
    command_points: int = 0


class RoundReport(msgspec.Struct, frozen=True, omit_defaults=True):
    """One round of a battle: the phasing side's part and the other side's; ``pursuit``
    marks the pursuit battle's round (307.4)."""

    round: int
    attacker: SideReport
    defender: SideReport
    pursuit: bool = False


class _Owed(msgspec.Struct, frozen=True):
    """What one side had to resolve in a round and what it carried out of it (doubled)."""

    owed2: int
    carry2: int


def _owed(record: BattleRecord) -> list[dict[Seat, _Owed]]:
    """Per round, per side that is done with its allocation (or had none to make in a round
    that is over): what it owed and what it carried out, doubled (308.2, see the module)."""
    carry: dict[Seat, int] = {}
    found: list[dict[Seat, _Owed]] = []
    for log in record.log:
        over = _over(record, log)
        here: dict[Seat, _Owed] = {}
        for own, enemy in ((log.defender, log.attacker), (log.attacker, log.defender)):
            before = carry.get(own.seat, 0)
            if enemy.damage < 0 or (own.resolved2 < 0 and not over):
                continue
            owed2 = max(0, 2 * enemy.damage - enemy.directed2 + before)
            if own.resolved2 >= 0:
                carry[own.seat] = owed2 - own.resolved2
            here[own.seat] = _Owed(owed2, carry.get(own.seat, 0))
        found.append(here)
    return found


def _over(record: BattleRecord, log: RoundLog) -> bool:
    """Whether the round is over: a battle round once counted, the pursuit round (307.4) once
    its battle is (5-8J)."""
    if log.pursuit:
        return record.pursuit == PURSUIT_FOUGHT
    return log.round <= record.rounds


def _known(value: int, unset: int) -> int | None:
    return None if value == unset else value


def _forward(side: SideRound) -> tuple[ForwardReport, ...]:
    pfs = dict(side.forward_pfs)
    return tuple(ForwardReport(u, points_text(f2), pfs.get(u, 0)) for u, f2 in side.forward)


def _side_report(log: RoundLog, side: SideRound, owed: _Owed | None) -> SideReport:
    directed = None
    if side.directed2 or side.directed:
        directed = Directed(points_text(side.directed2), side.directed)
    allocated = None
    if side.resolved2 >= 0:
        allocated = points_text(side.resolved2)
    elif owed is not None:
        allocated = "0"
    rolled = side.damage >= 0
    return SideReport(
        seat=side.seat,
        flagship=side.flagship,
        force=side.force,
        potential=points_text(side.potential2) if side.potential2 >= 0 else None,
        bir=_known(log.bir, -1),
        vbir_die=_known(log.vbir_die, 0),
        ew=side.shift,
        die=side.die if rolled else None,
        permille=side.permille if rolled else None,
        damage=side.damage if rolled else None,
        directed=directed,
        allocated=allocated,
        plus=points_text(max(owed.carry2, 0)) if owed is not None else None,
        minus=points_text(max(-owed.carry2, 0)) if owed is not None else None,
        losses=side.losses,
        groups=tuple(GroupReport(c, e) for c, e in side.groups),
        forward=_forward(side),
        command_points=side.command_points,
    )


def rounds(record: BattleRecord) -> list[RoundReport]:
    """The record's rounds, each side's part in the terms of ``show --json``."""
    return [
        RoundReport(
            log.round,
            _side_report(log, log.attacker, owed.get(log.attacker.seat)),
            _side_report(log, log.defender, owed.get(log.defender.seat)),
            log.pursuit,
        )
        for log, owed in zip(record.log, _owed(record), strict=True)
    ]


def rounds_json(record: BattleRecord) -> list[dict[str, Any]]:
    """`rounds` as plain JSON values (lists, not tuples), as views hold them."""
    decoded: list[dict[str, Any]] = msgspec.json.decode(msgspec.json.encode(rounds(record)))
    return decoded


# --- the report in words -------------------------------------------------------------------


def _where(record: BattleRecord, log: RoundLog) -> str:
    if log.pursuit:
        return f"{record.hex:04d} pursuit battle (round {log.round})"
    return f"{record.hex:04d} round {log.round}"


def _units(count: int) -> str:
    return f"{count} unit{'s' if count != 1 else ''}"


def _points(points2: int, kind: str = "") -> str:
    """``"1 point"``, ``"2.5 minus points"``."""
    word = f"{kind} point" if kind else "point"
    return f"{points_text(points2)} {word}{'' if points2 == 2 else 's'}"


def _fired(log: RoundLog) -> bool:
    return log.attacker.damage >= 0 and log.defender.damage >= 0


def _intensity(log: RoundLog) -> str:
    if log.bir < 0:
        return f"BIR picks {log.attacker.bir} + {log.defender.bir}, variable die not rolled yet"
    if log.vbir_die in VARIABLE_BIR:
        change = VARIABLE_BIR[log.vbir_die]
        return (
            f"BIR {log.attacker.bir} + {log.defender.bir}, variable die {log.vbir_die} "
            f"({change:+d}) = {log.bir}"
        )
    return f"BIR {log.bir}"


def _formation(side: SideRound) -> str:
    """The force's extras in few words: command points spent (308.9), carrier groups
    (515.15), the support echelon's fighters and PFs (302.563)."""
    parts = []
    if side.command_points:
        plural = "" if side.command_points == 1 else "s"
        parts.append(f"+{side.command_points} command point{plural}")
    parts.extend(f"group {c}+{'+'.join(e)}" for c, e in side.groups)
    pfs = dict(side.forward_pfs)
    for unit, fighters2 in side.forward:
        sent = [f"{points_text(fighters2)} fighters"] if fighters2 else []
        sent += [f"{pfs[unit]} PFs"] if pfs.get(unit) else []
        parts.append(f"{unit} sends {' and '.join(sent) or 'nothing'} forward")
    return "".join(f", {p}" for p in parts)


def _fire(side: SideRound) -> str:
    who = (
        f"{side.seat} (flagship {side.flagship}, {_units(len(side.force))}{_formation(side)})"
        if side.flagship
        else f"{side.seat} (no battle force)"
    )
    if side.damage < 0:
        return f"{who} die not rolled yet"
    return (
        f"{who} potential {points_text(side.potential2)}, EW {side.shift:+d}, die {side.die} "
        f"-> {permille_text(side.permille)} = {_points(2 * side.damage)}"
    )


def _small_scale_fire(side: SideRound) -> str:
    """A side's small-scale roll (310.0): its two dice's total and the casualties."""
    if side.damage < 0:
        return f"{side.seat} dice not rolled yet"
    count = f"{side.damage} casualt{'y' if side.damage == 1 else 'ies'}"
    return f"{side.seat} small-scale dice total {side.die} -> {count}"


def fire_line(record: BattleRecord, log: RoundLog) -> str:
    """A round's intensity and each side's damage: "1305 round 1: BIR 2 + 2, variable die 4
    (+0) = 4; coalition (flagship KLI-0001, 6 units) potential 40, EW +0, die 3 -> 25% = 10
    points; alliance ..."."""
    if log.bir < 0 and not log.attacker.bir:
        return f"{_where(record, log)}: the sides are choosing their battle forces"
    fire = _small_scale_fire if record.small_scale else _fire
    sides = "; ".join(fire(s) for s in (log.attacker, log.defender))
    return f"{_where(record, log)}: {_intensity(log)}; {sides} ({DAMAGE_RULE})"


def _allocation(side: SideRound, owed: _Owed) -> str:
    losses = ", ".join(side.losses) or "no loss"
    text = f"{side.seat} owed {_points(owed.owed2)}"
    if side.resolved2 > 0 or (side.resolved2 == 0 and owed.owed2 > 0):
        text += f", allocated {points_text(side.resolved2)}: {losses}"
    else:
        text += ": nothing to allocate"
    if owed.carry2 > 0:
        text += f", {_points(owed.carry2, 'plus')} carried"
    elif owed.carry2 < 0:
        text += f", {_points(-owed.carry2, 'minus')} carried"
    return text


def losses_line(record: BattleRecord, log: RoundLog, owed: Mapping[Seat, _Owed]) -> str:
    """A round's directed damage (the phasing side's first) and each side's allocation (the
    defender's first) with the plus or minus points it carries: "1305 round 1 losses:
    alliance owed 10 points, allocated 10: KZI-0004 destroyed; coalition ..."."""
    parts = [
        f"{side.seat} directed {_points(side.directed2)}: {side.directed or 'no effect'}"
        for side in (log.attacker, log.defender)
        if side.directed2 or side.directed
    ]
    parts.extend(
        _allocation(side, owed[side.seat])
        for side in (log.defender, log.attacker)
        if side.seat in owed
    )
    said = "; ".join(parts) or "nothing resolved by the engine"
    return f"{_where(record, log)} losses: {said} ({LOSSES_RULE})"


def end_line(record: BattleRecord) -> str:
    """Why the battle ended: "1105: battle over after 1 round: the defender has nothing
    left in 1105"."""
    rounds_text = f"{record.rounds} round{'s' if record.rounds != 1 else ''}"
    return f"{record.hex:04d}: battle over after {rounds_text}: {record.resolved}"


def report_lines(record: BattleRecord) -> list[str]:
    """The battle so far as people read it: per round its fire and, once allocated or over,
    its losses; then why it ended, once it has."""
    lines: list[str] = []
    for log, owed in zip(record.log, _owed(record), strict=True):
        lines.append(fire_line(record, log))
        if owed or _over(record, log):
            lines.append(losses_line(record, log, owed))
    if record.resolved:
        lines.append(end_line(record))
    return lines


# --- report events ------------------------------------------------------------------------


def _event(record: BattleRecord, text: str, part: str, round_number: int) -> Event:
    data = {"hex": f"{record.hex:04d}", "round": round_number, "part": part}
    return Event(REPORT_KIND, text, data=data)


def _before(before: FeState, index: int, record: BattleRecord) -> BattleRecord:
    """The same battle's record before the change (a fresh one where there was none)."""
    if index < len(before.battles) and before.battles[index].hex == record.hex:
        return before.battles[index]
    return BattleRecord(record.hex)


def new_reports(before: FeState, after: FeState) -> list[Event]:
    """The report lines a change from ``before`` to ``after`` completes: a round's fire once
    both sides' damage is rolled, its losses once the round is over, the end of a battle."""
    if before.battles == after.battles:
        return []
    events: list[Event] = []
    for index, record in enumerate(after.battles):
        old = _before(before, index, record)
        if old == record:
            continue
        fired = {log.round for log in old.log if _fired(log)}
        for log, owed in zip(record.log, _owed(record), strict=True):
            if _fired(log) and log.round not in fired:
                events.append(_event(record, fire_line(record, log), "fire", log.round))
            if _over(record, log) and not _over(old, log):
                events.append(_event(record, losses_line(record, log, owed), "losses", log.round))
        if record.resolved and not old.resolved:
            events.append(_event(record, end_line(record), "end", record.rounds))
    return events


def merged(events: list[Event], reports: list[Event]) -> list[Event]:
    """``events`` with each report line placed right after the last event about the same
    hex (the damage it sums up, the step that ended the round), so a packet that fights one
    battle and begins the next tells them in order; at the end where none is about it."""
    out = list(events)
    for report in reports:
        where = report.data.get("hex")
        last = max(
            (i for i, e in enumerate(out) if e.data.get("hex") == where),
            default=len(out) - 1,
        )
        out.insert(last + 1, report)
    return out
