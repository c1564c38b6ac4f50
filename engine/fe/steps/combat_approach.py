"""Action with bases (302.2, steps 5-2A1 to 5-2B2) and the facts both opening areas read.

`engine.fe.steps.combat_withdrawal`'s area plays steps 5-1A to 5-2B2; the rules of its 5-2
half live here: the attacker's cloaking past the approach battle (306.3; the defender's
cloaked evasion at 5-1E, 306.1, is checked by the same order), the approach battle's offer
and answer (302.22), the kind of battle the round is (approach or base), and why a 5-2 step
has nothing to decide. What both halves read about a battle hex is here too: who defends,
whose units are there, whether a base or a planet makes it a base battle (302.211), whether
a side can cloak. The readings are listed in `engine.fe.steps.combat_withdrawal`.
"""

from __future__ import annotations

from typing import Any

import msgspec

from engine.core.ruleset import Event, Seat, Violation
from engine.fe import battles as battle_rules
from engine.fe.battle_model import BattleRecord
from engine.fe.forces import Unit
from engine.fe.galaxy import HexId
from engine.fe.model import FeState
from engine.fe.opening import ApproachOrder
from engine.fe.sequence import Step
from engine.fe.steps import base, combat
from engine.fe.unit_kinds import class_of, is_base, movement_points

BASE_LIKE_RULE = "302.211"
APPROACH_RULE = "302.22"
BASE_BATTLE_RULE = "302.23"
EVASION_RULE = "306.1"
CLOAK_APPROACH_RULE = "306.3"
EVADE_STEP = "5-1E"
CLOAK_STEP = "5-2A1"
OFFER_STEP = "5-2A2"
ANSWER_STEP = "5-2A3"
APPROACH_STEP = "5-2A4"
BASE_BATTLE_STEP = "5-2B2"
FORCES_STEP = "5-3A"
CLOAKING_EMPIRES = ("ORI", "ROM")
APPROACH_NEEDS_SHIPS_FROM = "5.7"
"""From this version an approach battle needs something of the defender's that moves by
itself (`no_approach`). Before, a base left alone could accept one and sit the round out with
no battle force: nothing fired, nothing was hit, and the attacker was asked every round
whether to offer another (found by the random campaigns with policies; an I reading of
302.22: the approach battle is the defending ships' choice to fight away from the base)."""


# --- who and what is in the hex ------------------------------------------------------------


def defender(state: FeState) -> Seat:
    """The non-phasing seat: the defender of every battle of the player turn."""
    return next(s for s in state.seats if s != base.phasing(state))


def units_of(state: FeState, seat: Seat, h: HexId) -> list[Unit]:
    """The units of ``seat``'s empires in hex ``h``."""
    mine = set(base.empires_of(state, seat))
    return [u for u in state.board.at(h) if u.empire in mine]


def base_like(state: FeState, record: BattleRecord) -> str:
    """What makes the hex a battle at a base (302.211), in words; "" when nothing does: a
    base of the defender, or a planet of the defender that defends the hex."""
    bases = [f"{u.cls} {u.id}" for u in units_of(state, defender(state), record.hex) if is_base(u)]
    if bases:
        return ", ".join(bases)
    found = next(
        (b for b in battle_rules.battle_hexes(state.board, base.galaxy()) if b.hex == record.hex),
        None,
    )
    if found is not None and found.planet in base.empires_of(state, defender(state)):
        return f"the {found.planet} planet"
    return ""


def no_approach(state: FeState, record: BattleRecord) -> str:
    """Why no approach battle can be fought in the battle hex (302.22), or "" when one can:
    from `APPROACH_NEEDS_SHIPS_FROM`, when nothing of the defender's there moves by itself."""
    if not state.plays_at_least(APPROACH_NEEDS_SHIPS_FROM):
        return ""
    seat = defender(state)
    if any(movement_points(u) > 0 for u in units_of(state, seat, record.hex)):
        return ""
    return (
        f"nothing of {seat}'s in {base.hex_text(record.hex)} moves by itself (bases, PDUs "
        "and planets only): no approach battle, the base battle is fought"
    )


def cloaks(units: list[Unit]) -> bool:
    """Whether any of ``units`` carries a cloak (306.0)."""
    cloaked = [u for u in units if u.empire in CLOAKING_EMPIRES]
    return any((info := class_of(u)) is None or not info.no_cloak for u in cloaked)


def fighting(record: BattleRecord, units: list[Unit]) -> list[Unit]:
    """``units`` without the bases when an approach battle is fought (302.22): the battle
    force rules choose from these."""
    if record.opening.kind != "approach":
        return units
    return [u for u in units if not is_base(u)]


def opened(record: BattleRecord, **changes: Any) -> BattleRecord:
    """``record`` with these changes to what its opening steps recorded."""
    return msgspec.structs.replace(
        record, opening=msgspec.structs.replace(record.opening, **changes)
    )


def round_of(record: BattleRecord) -> int:
    """The round the battle's opening steps are for (the one about to be fought)."""
    return record.rounds + 1


def offered(record: BattleRecord) -> bool:
    """Whether an approach battle stands offered this round: always in round 1 (302.22)."""
    return round_of(record) == 1 or record.opening.offered == round_of(record)


def answered(record: BattleRecord) -> bool:
    """Whether the defender accepted or refused this round's approach battle already."""
    r = round_of(record)
    return r in (record.opening.declined, record.opening.accepted)


def event(state: FeState, kind: str, text: str, step: str, data: dict[str, Any]) -> Event:
    """An event of an automatic opening step, told as the phasing seat's."""
    return Event(kind, text, base.phasing(state), step, data)


# --- approach and base battles (302.22, 302.23), cloaking (306.1, 306.3) --------------------


def check_approach(state: FeState, seat: Seat, step: Step, order: ApproachOrder) -> list[Violation]:
    record = combat.current(state)
    if record is None:
        return [Violation("no battle is being fought", APPROACH_RULE)]
    where = base.hex_text(record.hex)
    if not base_like(state, record):
        text = f"no base or base-like unit of the defender in {where}: no approach battle"
        return [Violation(text, BASE_LIKE_RULE)]
    if why := no_approach(state, record):
        return [Violation(why, APPROACH_RULE)]
    r = round_of(record)
    if step.id == OFFER_STEP:
        if seat != base.phasing(state):
            return [Violation("only the attacker offers an approach battle", APPROACH_RULE)]
        if r == 1:
            text = "in round 1 the approach battle is offered already: the offer is mandatory"
            return [Violation(text, APPROACH_RULE)]
        if not order.accept:
            text = "an approach order at 5-2A2 offers the battle; to offer none answer done"
            return [Violation(text, APPROACH_RULE)]
        if record.opening.offered == r:
            return [Violation(f"the approach battle of round {r} is offered already")]
        return []
    if seat != defender(state):
        return [Violation("only the defender answers an approach battle", APPROACH_RULE)]
    if not offered(record):
        text = f"no approach battle was offered in round {r} in {where}"
        return [Violation(text, APPROACH_RULE)]
    if answered(record):
        return [Violation(f"the approach battle of round {r} was answered already", APPROACH_RULE)]
    return []


def apply_approach(
    state: FeState, seat: Seat, step: Step, order: ApproachOrder, events: list[Event]
) -> FeState:
    record = combat.current(state)
    assert record is not None
    where = base.hex_text(record.hex)
    r = round_of(record)
    data: dict[str, Any] = {"hex": where, "round": r}
    if step.id == OFFER_STEP:
        text = f"{seat} offers an approach battle in {where}, round {r} ({APPROACH_RULE})"
        events.append(Event("approach", text, seat, step.id, data))
        return combat.replace_current(state, opened(record, offered=r))
    if order.accept:
        text = (
            f"{seat} accepts the approach battle in {where}, round {r}: the base does not "
            f"fight ({APPROACH_RULE})"
        )
        events.append(Event("approach", text, seat, step.id, {**data, "accept": True}))
        record = opened(record, kind="approach", accepted=r)
        return combat.replace_current(state, record)
    return refuse(state, record, seat, step, events)


def refuse(
    state: FeState, record: BattleRecord, seat: Seat, step: Step, events: list[Event]
) -> FeState:
    where = base.hex_text(record.hex)
    r = round_of(record)
    text = (
        f"{seat} refuses the approach battle in {where}, round {r}: a base battle; the "
        f"attacker may retreat before it ({BASE_BATTLE_RULE})"
    )
    data = {"hex": where, "round": r, "accept": False}
    events.append(Event("approach", text, seat, step.id, data))
    return combat.replace_current(state, opened(record, kind="base", declined=r))


def settle_kind(state: FeState, record: BattleRecord, step: Step, events: list[Event]) -> FeState:
    """5-2A4: the kind of battle this round; an approach battle goes on to 5-3A."""
    r = round_of(record)
    if not base_like(state, record):
        kind = ""
    elif record.opening.accepted == r:
        where = base.hex_text(record.hex)
        text = f"the approach battle in {where}, round {r}, is fought without the base"
        events.append(event(state, "approach", text, step.id, {"hex": where, "round": r}))
        return msgspec.structs.replace(state, step=combat.index_of(FORCES_STEP))
    else:
        kind = "base"
    if record.opening.kind == kind:
        return state
    return combat.replace_current(state, opened(record, kind=kind))


def check_cloak(state: FeState, seat: Seat, step: Step) -> list[Violation]:
    """5-1E (the defender's evasion, 306.1) or 5-2A1 (the attacker past the approach battle,
    306.3): the side needs cloaking ships in the battle hex."""
    record = combat.current(state)
    rule = EVASION_RULE if step.id == EVADE_STEP else CLOAK_APPROACH_RULE
    if record is None:
        return [Violation("no battle is being fought", rule)]
    where = base.hex_text(record.hex)
    if not cloaks(units_of(state, seat, record.hex)):
        return [Violation(f"{seat} has no cloaking ships in {where}", rule)]
    if step.id == CLOAK_STEP:
        if not base_like(state, record):
            text = f"no base or base-like unit of the defender in {where}: no approach battle"
            return [Violation(text, BASE_LIKE_RULE)]
        if why := no_approach(state, record):
            return [Violation(why, APPROACH_RULE)]
        if record.opening.cloaked == round_of(record):
            return [Violation(f"{seat} cloaked already this round", rule)]
    return []


def apply_cloak(state: FeState, seat: Seat, step: Step, events: list[Event]) -> FeState:
    record = combat.current(state)
    assert record is not None
    where = base.hex_text(record.hex)
    r = round_of(record)
    data = {"hex": where, "round": r}
    if step.id == EVADE_STEP:
        text = (
            f"{seat}'s cloaked ships in {where} try to evade; the outcome is typed as "
            f"adjustments ({EVASION_RULE})"
        )
        events.append(Event("cloak", text, seat, step.id, data))
        return state
    text = (
        f"{seat} cloaks past the approach battle in {where}, round {r}: the base battle is "
        f"fought, base included; no offensive cloaking in this hex ({CLOAK_APPROACH_RULE})"
    )
    events.append(Event("cloak", text, seat, step.id, data))
    record = opened(record, cloaked=r, kind="base")
    return combat.replace_current(state, record)


def skip_bases(state: FeState, record: BattleRecord, step: Step) -> str:
    if not base_like(state, record):
        where = base.hex_text(record.hex)
        return f"no base or base-like unit of the defender in {where} ({BASE_LIKE_RULE})"
    if step.id in (CLOAK_STEP, OFFER_STEP, ANSWER_STEP) and (why := no_approach(state, record)):
        return f"{why} ({APPROACH_RULE})"
    r = round_of(record)
    if step.id == CLOAK_STEP and not cloaks(units_of(state, base.phasing(state), record.hex)):
        return f"the attacker has no cloaking ships ({CLOAK_APPROACH_RULE})"
    if step.id == OFFER_STEP and r == 1:
        return f"round 1: the approach battle is offered, as the rules require ({APPROACH_RULE})"
    if step.id == ANSWER_STEP and not offered(record):
        return f"no approach battle offered in round {r}: a base battle ({APPROACH_RULE})"
    return ""
