"""Ship captures played by the engine (305.1): step 5-6X1 of each battle round.

After the damage of a round is allocated, either side may try to capture crippled enemy
ships left in the battle hex. A ``capture`` order names the crippled enemy ship and the
side's own ship that makes the attempt; the two capture dice are a fair roll of the protocol
core, armed with the order and completed by the other seat's next packet (as the pursuit die
at 5-8A, `engine.fe.steps.combat_retreat`). The attempt succeeds when the dice plus their
modifier total less than 3 (`engine.fe.combat.retreat.capture_succeeds`); a captured ship
changes hands on the board at once, crippled as it was, and keeps its class (its ``cls``
names the builder's class, ``"KZI:CL"``: `engine.fe.forces.Unit.class_key`). A side with
nothing to capture, or with no ship to capture with, has no part in the step; once nobody
can try anything more, it passes by itself. Outside a battle it waits, as all of phase 5.

Readings, marked as in ``fe-rules-notes.md`` (S sourced, I inferred, C a choice):

- S (play aid "Capture die roll modifiers", 5-6X1): two dice, success below 3; -1 each for a
  pursuit (305.12), a Prime Team (522.43), a ground combat ship (521.5), a web caster in
  pursuit (525.74D); a mauler in pursuit gives an extra attempt (308.47).
- I: only a crippled ship may be captured (bases, PDUs, planets and auxiliaries are no
  ships, 549.311); it must be an enemy's, of an empire at war with the capturing side's.
- I: the attempt is made by one of the side's ships in the battle hex that is not crippled
  itself; each crippled enemy ship may be the target of one attempt a round (a second one
  is refused); a side may try as many targets as it has ships to try with, each ship once a
  round.
- I: the pursuit battle (5-8D to 5-8F, `engine.fe.steps.combat_pursuit`) has no capture
  step, so an attempt the engine rolls is never one in pursuit: the -1 for a pursuit and
  for a web caster in pursuit never apply here, nor the mauler's extra attempt. Prime Teams
  are not modelled: their -1 is left to the players. A ground combat ship is a class whose
  rules name 521; no class of the shipped tables is marked so, so today the dice are
  unmodified.
- I: a captured ship is the captor's from then on; whether it may fight for its captor in
  the same battle (305.2) is left to the players.
- C: from F&E 5.5 a side whose combat policy says ``capture`` "never" has no part in the
  step either (`declines`): the step asks only a side that may try and has not said never,
  and passes by itself when none is left (one hand-off less a round for each such side).
"""

from __future__ import annotations

from typing import Any

import msgspec

from engine.core.ruleset import Event, RollRequest, Seat, Violation
from engine.fe.battle_model import BattleRecord, CaptureAttempt
from engine.fe.combat import retreat as rules
from engine.fe.forces import CAPTURED_SEP, Unit
from engine.fe.model import FeState
from engine.fe.option_specs import POLICY_CAPTURE_FROM
from engine.fe.orders import CaptureOrder
from engine.fe.sequence import Step
from engine.fe.steps import base, combat
from engine.fe.steps.base import Area
from engine.fe.unit_kinds import class_of, is_ship

CAPTURE_STEP = "5-6X1"
CAPTURE_RULE = rules.CAPTURE_RULE
CAPTURE_PURPOSE = "capture"
GROUND_COMBAT_RULES = ("521",)
"""A class whose rules name one of these is a ground combat ship (521.5)."""
ROLLING, CAPTURED, FAILED = "rolling", "captured", "failed"


def _round(record: BattleRecord) -> int:
    """The round being fought (5-6X1 comes before 5-7A4 counts it)."""
    return record.rounds + 1


def _mine(state: FeState, seat: Seat) -> set[str]:
    return set(base.empires_of(state, seat))


def _this_round(record: BattleRecord) -> list[CaptureAttempt]:
    return [a for a in record.captures if a.round == _round(record)]


def targets(state: FeState, seat: Seat, record: BattleRecord) -> list[Unit]:
    """The crippled enemy ships in the battle hex ``seat`` may still try to capture this
    round."""
    mine = _mine(state, seat)
    board = state.board
    tried = {a.unit for a in _this_round(record)}
    return [
        u
        for u in board.at(record.hex)
        if u.empire not in mine
        and any(board.enemies(e, u.empire) for e in mine)
        and u.crippled
        and is_ship(u)
        and u.id not in tried
    ]


def captors(state: FeState, seat: Seat, record: BattleRecord) -> list[Unit]:
    """``seat``'s uncrippled ships in the battle hex that have not tried a capture this
    round."""
    mine = _mine(state, seat)
    used = {a.by for a in _this_round(record)}
    return [
        u
        for u in state.board.at(record.hex)
        if u.empire in mine and is_ship(u) and not u.crippled and u.id not in used
    ]


def ground_combat_ship(unit: Unit) -> bool:
    """Whether ``unit``'s class is marked a ground combat ship (rules naming 521)."""
    info = class_of(unit)
    return any(m.split(".")[0] in GROUND_COMBAT_RULES for m in (info.rules if info else ()))


def _rolling(record: BattleRecord) -> CaptureAttempt | None:
    return next((a for a in record.captures if a.result == ROLLING), None)


def may_try(state: FeState, seat: Seat) -> bool:
    """Whether ``seat`` has a capture it could try in the battle being fought."""
    record = combat.current(state)
    if record is None:
        return False
    return bool(targets(state, seat, record)) and bool(captors(state, seat, record))


def declines(state: FeState, seat: Seat) -> bool:
    """Whether ``seat``'s combat policy says it never tries a capture (from
    `POLICY_CAPTURE_FROM`; a game before it keeps asking)."""
    return combat.declines(state, seat, "capture", POLICY_CAPTURE_FROM)


def _asked(state: FeState, seat: Seat) -> bool:
    return may_try(state, seat) and not declines(state, seat)


def check_capture(state: FeState, seat: Seat, order: CaptureOrder) -> list[Violation]:
    """Why ``seat`` may not try this capture now (305.1), with the units and the numbers."""
    record = combat.current(state)
    if record is None:
        return [Violation("no battle is being fought", CAPTURE_RULE)]
    if _rolling(record) is not None:
        text = "the dice of the last capture attempt are not rolled yet"
        return [Violation(text, CAPTURE_RULE)]
    where = base.hex_text(record.hex)
    board = state.board
    problems: list[Violation] = []
    tried = {a.unit: a.seat for a in _this_round(record)}
    try:
        target = board.unit(order.unit)
    except KeyError:
        target = None
        problems.append(Violation(board.no_unit(order.unit), CAPTURE_RULE))
    if target is not None:
        mine = _mine(state, seat)
        if target.hex != record.hex:
            text = f"{target.id} is in {base.hex_text(target.hex)}, not in the battle hex {where}"
            problems.append(Violation(text, CAPTURE_RULE))
        elif target.empire in mine or not any(board.enemies(e, target.empire) for e in mine):
            text = f"{target.id} is a unit of {target.empire}, not of an enemy of {seat}"
            problems.append(Violation(text, CAPTURE_RULE))
        elif not is_ship(target):
            text = f"{target.id} ({target.cls}) is no ship: only crippled ships are captured"
            problems.append(Violation(text, CAPTURE_RULE))
        elif not target.crippled:
            text = f"{target.id} is not crippled: only a crippled ship may be captured"
            problems.append(Violation(text, CAPTURE_RULE))
        elif target.id in tried:
            text = (
                f"{target.id} was the target of {tried[target.id]}'s capture attempt in round "
                f"{_round(record)} already: one attempt a round"
            )
            problems.append(Violation(text, CAPTURE_RULE))
    problems += _captor_problems(state, seat, record, order.by)
    return problems


def _captor_problems(state: FeState, seat: Seat, record: BattleRecord, by: str) -> list[Violation]:
    units, problems = base.own_units(state, seat, [by], CAPTURE_RULE)
    where = base.hex_text(record.hex)
    used = {a.by for a in _this_round(record)}
    for unit in units:
        if unit.hex != record.hex:
            text = f"{unit.id} is in {base.hex_text(unit.hex)}, not in the battle hex {where}"
            problems.append(Violation(text, CAPTURE_RULE))
        elif not is_ship(unit):
            text = f"{unit.id} ({unit.cls}) is no ship: a ship makes the capture attempt"
            problems.append(Violation(text, CAPTURE_RULE))
        elif unit.crippled:
            text = f"{unit.id} is crippled: an uncrippled ship makes the capture attempt"
            problems.append(Violation(text, CAPTURE_RULE))
        elif unit.id in used:
            text = f"{unit.id} tried a capture in round {_round(record)} already"
            problems.append(Violation(text, CAPTURE_RULE))
    return problems


def apply_capture(
    state: FeState, seat: Seat, step: Step, order: CaptureOrder, events: list[Event]
) -> FeState:
    record = combat.current(state)
    assert record is not None
    gcs = ground_combat_ship(state.board.unit(order.by))
    modifier = rules.capture_modifier(ground_combat_ship=gcs)
    attempt = CaptureAttempt(_round(record), seat, order.unit, order.by, modifier)
    record = msgspec.structs.replace(record, captures=(*record.captures, attempt))
    where = base.hex_text(record.hex)
    shown = f", {modifier:+d} for a ground combat ship (521.5)" if modifier else ""
    text = (
        f"{seat} tries to capture {order.unit} in {where} with {order.by}: two dice, success "
        f"below {rules.CAPTURE_TARGET}{shown}; the dice follow ({CAPTURE_RULE})"
    )
    data = {"hex": where, "round": attempt.round, "seat": seat, "unit": order.unit}
    events.append(Event("capture", text, seat, step.id, data | {"by": order.by}))
    return combat.replace_current(state, record)


def capture_roll(state: FeState, seat: Seat, step: Step, order: CaptureOrder) -> RollRequest:
    record = combat.current(state)
    assert record is not None
    where = base.hex_text(record.hex)
    purpose = f"{CAPTURE_PURPOSE}, {where} round {_round(record)}, {seat}, {order.unit}"
    return RollRequest(2, 6, purpose, step.id)


def apply_die(
    state: FeState, request: RollRequest, dice: tuple[int, ...], events: list[Event]
) -> FeState:
    """The capture dice land on the attempt that waits for them (305.1); a success hands the
    ship to the captor's empire."""
    if not request.purpose.startswith(CAPTURE_PURPOSE + ", ") or len(dice) != 2:
        return state
    found = next(
        (
            (i, j)
            for i, r in enumerate(state.battles)
            for j, a in enumerate(r.captures)
            if a.result == ROLLING
        ),
        None,
    )
    if found is None:
        return state
    index, at = found
    record = state.battles[index]
    attempt = record.captures[at]
    board = state.board
    by = board.unit(attempt.by)
    won = rules.capture_succeeds((dice[0], dice[1]), ground_combat_ship=ground_combat_ship(by))
    attempt = msgspec.structs.replace(attempt, dice=dice, result=CAPTURED if won else FAILED)
    captures = list(record.captures)
    captures[at] = attempt
    record = msgspec.structs.replace(record, captures=tuple(captures))
    where = base.hex_text(record.hex)
    total = dice[0] + dice[1] + attempt.modifier
    shown = f"{dice[0]} + {dice[1]}" + (f" {attempt.modifier:+d}" if attempt.modifier else "")
    if won:
        target = board.unit(attempt.unit)
        builder, cls = target.class_key()
        marked = cls if builder == by.empire else f"{builder}{CAPTURED_SEP}{cls}"
        taken = msgspec.structs.replace(target, empire=by.empire, cls=marked)
        state = state.with_board(board.with_units([taken]))
        outcome = f"{attempt.unit} is captured: it is {by.empire}'s now, crippled"
    else:
        outcome = f"{attempt.unit} is not captured"
    text = (
        f"{where} round {attempt.round}: capture dice {shown} = {total} (success below "
        f"{rules.CAPTURE_TARGET}): {outcome} ({CAPTURE_RULE})"
    )
    data = {
        "hex": where,
        "round": attempt.round,
        "seat": attempt.seat,
        "unit": attempt.unit,
        "by": attempt.by,
        "dice": list(dice),
        "modifier": attempt.modifier,
        "captured": won,
    }
    events.append(Event("capture", text, attempt.seat, request.step, data))
    battles = list(state.battles)
    battles[index] = record
    return msgspec.structs.replace(state, battles=tuple(battles))


class _Capture(Area):
    """Step 5-6X1: the ``capture`` order and its dice."""

    name = "capture"
    orders = ("capture",)

    def check(self, state: FeState, seat: Seat, step: Step, order: Any) -> list[Violation]:
        if isinstance(order, CaptureOrder):
            return check_capture(state, seat, order)
        return super().check(state, seat, step, order)

    def apply(
        self, state: FeState, seat: Seat, step: Step, order: Any, events: list[Event]
    ) -> FeState:
        if isinstance(order, CaptureOrder):
            return apply_capture(state, seat, step, order, events)
        return super().apply(state, seat, step, order, events)

    def rolls(self, state: FeState, seat: Seat, step: Step, order: Any) -> list[RollRequest]:
        if isinstance(order, CaptureOrder):
            return [capture_roll(state, seat, step, order)]
        return []

    def skip(self, state: FeState, step: Step) -> str:
        record = combat.current(state)
        if record is None:
            return ""  # outside a battle the step stays the players' to walk, as all of phase 5
        if not any(may_try(state, s) for s in state.seats):
            return f"no crippled enemy ship to capture, or no ship to capture with ({CAPTURE_RULE})"
        if not any(_asked(state, s) for s in state.seats):
            never = " and ".join(s for s in state.seats if declines(state, s))
            return f"{never} never capture, as signed in the combat policy ({CAPTURE_RULE})"
        return ""

    def answering(self, state: FeState, step: Step, seats: tuple[Seat, ...]) -> tuple[Seat, ...]:
        record = combat.current(state)
        tried = {a.seat for a in _this_round(record)} if record else set()
        able = tuple(s for s in seats if s in tried or _asked(state, s))  # stable once tried
        return able or seats

    def finish(self, state: FeState, seat: Seat, step: Step) -> list[Violation]:
        record = combat.current(state)
        if record is not None and _rolling(record) is not None:
            return [Violation("the capture dice are not rolled yet", CAPTURE_RULE)]
        return []


AREA = _Capture()
