"""The pursuit die (302.742, 307.0): steps 5-8A and 5-8B of `engine.fe.steps.combat_retreat`.

Who may pursue a retreat (the side that stayed, with ships in the battle hex), the ``pursue``
order's check and application, the die armed with it, and its result on the battle record.
Kept apart from the retreat itself, which decides where the retreating units go: the pursuit
reads only the battle record and the pursuers, and the pursuit battle
(`engine.fe.steps.combat_pursuit`) and the combat policies read its facts. The readings
(X and fast ships, the declined approach) are listed in `engine.fe.steps.combat_retreat`.
"""

from __future__ import annotations

import msgspec

from engine.core.ruleset import Event, RollRequest, Seat, Violation
from engine.fe.battle_model import BattleRecord
from engine.fe.combat import retreat as rules
from engine.fe.forces import Unit
from engine.fe.galaxy import HexId
from engine.fe.model import FeState
from engine.fe.orders import PursueOrder
from engine.fe.sequence import Step
from engine.fe.steps import base, combat
from engine.fe.unit_kinds import class_of, is_ship

PURSUE_RULE = "302.742"
PURSUIT_RULE = rules.PURSUIT_RULE
PURSUIT_PURPOSE = "pursuit"
ROLLING, SUCCEEDED, FAILED = "rolling", "succeeded", "failed"
"""A battle record's ``pursuit``: the die is armed, or it landed and the pursuit succeeded or
failed."""


def _record(state: FeState) -> BattleRecord | None:
    return combat.current(state)


def _other(state: FeState, seat: Seat) -> Seat:
    return next(s for s in state.seats if s != seat)


def pursuit_ships(state: FeState, seat: Seat, h: HexId) -> list[Unit]:
    mine = set(base.empires_of(state, seat))
    return [u for u in state.board.at(h) if u.empire in mine and is_ship(u)]


def pursuer(state: FeState) -> tuple[Seat, str]:
    """The seat that may pursue now, or "" with the reason nobody may."""
    record = _record(state)
    if record is None:
        return "", "no battle is being fought"
    if not record.retreated:
        return "", "nobody retreated"
    if len(record.retreated) > 1:
        return "", "both sides retreated: nobody stayed to pursue"
    gone = record.retreated[0][0]
    stayed = _other(state, gone)
    if not pursuit_ships(state, stayed, record.hex):
        return "", f"{stayed} has no ship in {base.hex_text(record.hex)} to pursue with"
    return stayed, ""


X_RULES = ("523",)
"""A class whose rules name one of these is an X ship (523.39)."""
FAST_RULES = ("525.13",)
"""A class whose rules name one of these is a fast ship (525.133)."""


def x_or_fast(unit: Unit) -> bool:
    """Whether ``unit`` is an X or fast ship for the pursuit die (5-8B): its class's rules
    name 523 or 525.13 (no class in the shipped tables does yet)."""
    info = class_of(unit)
    marks = info.rules if info is not None else ()
    return any(m.split(".")[0] in X_RULES or m.startswith(FAST_RULES) for m in marks)


def declined_approach(state: FeState, record: BattleRecord) -> bool:
    """Whether the retreat being pursued is the attacker's at 5-2B1 after the defender refused
    the approach battle of that round (302.23: +1 to the pursuit die)."""
    refused = record.opening.declined
    if not refused or refused != record.rounds or not record.retreated:
        return False
    fought = any(log.round == refused for log in record.log)
    return record.retreated[0][0] == base.phasing(state) and not fought


def pursuit_facts(
    state: FeState, record: BattleRecord, units: list[Unit]
) -> tuple[bool, bool, bool]:
    """The facts the pursuit die reads (5-8B): a declined approach battle, X or fast ships
    among the pursuers, all of them so."""
    fast = [x_or_fast(u) for u in units]
    return declined_approach(state, record), any(fast), bool(fast) and all(fast)


def check_pursue(state: FeState, seat: Seat, order: PursueOrder) -> list[Violation]:
    who, why = pursuer(state)
    if who != seat:
        text = f"{seat} may not pursue now: " + (why or f"{who} is the side that stayed")
        return [Violation(text, PURSUE_RULE)]
    record = _record(state)
    assert record is not None
    if record.pursuit:
        return [Violation(f"{seat} already pursued from {base.hex_text(record.hex)}", PURSUE_RULE)]
    units, problems = base.own_units(state, seat, order.units, PURSUE_RULE)
    where = base.hex_text(record.hex)
    for unit in units:
        if unit.hex != record.hex:
            text = f"{unit.id} is in {base.hex_text(unit.hex)}, not in the battle hex {where}"
            problems.append(Violation(text, PURSUE_RULE))
        elif not is_ship(unit):
            text = f"{unit.id} ({unit.cls}) is no ship: bases, PDUs and auxiliaries do not pursue"
            problems.append(Violation(text, PURSUE_RULE))
    return problems


def apply_pursue(
    state: FeState, seat: Seat, step: Step, order: PursueOrder, events: list[Event]
) -> FeState:
    record = _record(state)
    assert record is not None
    where = base.hex_text(record.hex)
    declined, fast, _ = pursuit_facts(state, record, [state.board.unit(u) for u in order.units])
    modifier = rules.pursuit_modifier(declined, fast)
    record = msgspec.structs.replace(
        record, pursuers=tuple(order.units), pursuit=ROLLING, pursuit_modifier=modifier
    )
    gone = record.retreated[0][0]
    why = []
    if declined:
        why.append(
            f"+1: the retreat follows a declined approach battle ({combat.BASE_RETREAT_RULE})"
        )
    if fast:
        why.append("-1: X or fast ships pursue (523.39, 525.133)")
    shown = f" ({'; '.join(why)})" if why else ""
    text = (
        f"{seat} pursues {gone}'s retreat from {where} with {len(order.units)} ships: "
        f"{', '.join(order.units)}; the pursuit die follows{shown} ({PURSUE_RULE}, "
        f"{PURSUIT_RULE})"
    )
    data = {"hex": where, "round": record.rounds, "seat": seat, "units": list(order.units)}
    events.append(Event("pursuit", text, seat, step.id, data))
    return combat.replace_current(state, record)


def pursuit_roll(state: FeState, seat: Seat, step: Step) -> RollRequest:
    record = _record(state)
    assert record is not None
    purpose = f"{PURSUIT_PURPOSE}, {base.hex_text(record.hex)} round {record.rounds}, {seat}"
    return RollRequest(1, 6, purpose, step.id)


def apply_die(
    state: FeState, request: RollRequest, dice: tuple[int, ...], events: list[Event]
) -> FeState:
    """The pursuit die lands on the battle whose pursuit waits for it (307.0)."""
    if not request.purpose.startswith(PURSUIT_PURPOSE) or len(dice) != 1:
        return state
    index = next((i for i, r in enumerate(state.battles) if r.pursuit == ROLLING), None)
    if index is None:
        return state
    record = state.battles[index]
    die = dice[0]
    ships = len(record.pursuers)
    units = [u for u in state.board.units if u.id in record.pursuers]
    declined, fast, every = pursuit_facts(state, record, units)
    won = rules.pursuit_succeeds(
        die, ships, declined_approach=declined, x_or_fast=fast, all_x_or_fast=every
    )
    record = msgspec.structs.replace(record, pursuit_die=die, pursuit=SUCCEEDED if won else FAILED)
    where = base.hex_text(record.hex)
    total = die + record.pursuit_modifier
    shown = f"{die}{record.pursuit_modifier:+d} = {total}" if record.pursuit_modifier else f"{die}"
    outcome = (
        "the pursuit succeeds: the pursuit battle follows (5-8D to 5-8G)"
        if won
        else "the pursuit fails: the retreat stands"
    )
    against = (
        "every pursuer is an X or fast ship, no roll needed"
        if every
        else f"against {ships} pursuing ships (success below {ships})"
    )
    text = (
        f"{where} round {record.rounds}: pursuit die {shown} {against}: {outcome} ({PURSUIT_RULE})"
    )
    data = {
        "hex": where,
        "round": record.rounds,
        "seat": request.purpose.rsplit(", ", 1)[-1],
        "die": die,
        "modifier": record.pursuit_modifier,
        "succeeded": won,
    }
    events.append(Event("pursuit", text, "", request.step, data))
    battles = list(state.battles)
    battles[index] = record
    return msgspec.structs.replace(state, battles=tuple(battles))
