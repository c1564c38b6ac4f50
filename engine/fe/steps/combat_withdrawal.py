"""Withdrawal before combat (302.1, steps 5-1A..5-1F) and action with bases (302.2, 5-2A1..5-2B2).

Each battle hex (`engine.fe.steps.combat`) opens with these steps. The engine plays them so
that a battle with nothing to decide there costs no email; the records are
``BattleRecord.opening`` (`engine.fe.opening`). This module holds the area and the
withdrawal's rules; the 5-2 steps' rules, and the facts of the hex both halves read, are
`engine.fe.steps.combat_approach`'s.

- 5-1A (defender, round 1): ``withdraw`` takes units to one adjacent hex before combat
  (302.11) by the retreat priorities (302.72) and names the staying force's flagship; ``done``
  stays. 5-1B (attacker): ``oppose`` (302.13), or ``done``: unopposed (302.12). 5-1C, 5-1D,
  5-1F are automatic: the units go; an opposed withdrawal fixes the staying flagship for
  round 1 (302.133, checked at 5-3D by `engine.fe.steps.combat_round`); with no defender left
  the battle is resolved and the phase ends for the hex, or goes to pursuit (5-8A) when
  crippled units withdrew. 5-1E (cloaked evasion, 306.1) waits only for a cloaking defender.
- 5-2 matters only with a base or base-like unit of the defender in the hex (302.211); else
  every 5-2 step passes. 5-2A1 (``cloak`` past the approach battle, 306.3) waits only for a
  cloaking attacker. 5-2A2: in round 1 the offer is mandatory (302.22), so the engine makes it
  and nobody is asked; from round 2 the attacker may offer (``approach``). 5-2A3: the defender
  accepts or refuses (``approach`` with ``accept``; ``done`` alone refuses). 5-2A4 records the
  kind of battle: "approach" (the bases stay out of the battle forces; on to 5-3A) or "base".
  After a refusal the attacker may retreat before combat at 5-2B1 (302.23; the combat area's
  ``retreat``), and 5-2B2 then goes to the retreat steps (5-7A1).

Outside a battle the decision steps wait for ``done`` as before; the automatic ones pass.

Readings, marked as in ``fe-rules-notes.md`` (S sourced, I inferred):

- S (549.212): auxiliaries cannot withdraw before combat. I (302.11): nor can units that
  cannot move (bases, PDUs: no movement points).
- S (5-1C): a withdrawal uses the retreat procedure. I: all the withdrawing units go to one
  adjacent hex, chosen by the retreat priorities (302.72) with the withdrawing ships counted
  among the friendly ships there and the supply status of the first withdrawing unit's
  empire; neutral internment and shortest supply paths are not told apart yet.
- S (5-1D, 302.133): the non-withdrawing force's flagship serves in round 1. I: it binds only
  after an opposed withdrawal (302.133 sits under 302.13); the defender names it with the
  withdrawal (the seed's 5-1D choice, made one step early so it costs no extra hand-off) from
  the units that may command among those that stay (302.32). The sources give no other effect
  of opposing; none is modelled.
- S (5-1F): crippled withdrawing units may be pursued; I: only when no defender is left (a
  partial withdrawal's pursuit is left to the players).
- S (302.211): planets (with or without PDUs) are base-like; I: a base is a unit that cannot
  move and has a command rating (`engine.fe.unit_kinds.is_base`); FRDs, convoys and the other
  base-like units of the list are not recognised yet.
- I (306.1, 306.3): Romulan and Orion ships carry cloaks unless their class says otherwise.
"""

from __future__ import annotations

from typing import Any

import msgspec

from engine.core import hexgrid
from engine.core.ruleset import Event, Seat, Violation
from engine.fe import neutral
from engine.fe.battle_model import BattleRecord
from engine.fe.combat import forces
from engine.fe.combat import retreat as retreat_rules
from engine.fe.forces import Unit
from engine.fe.model import FeState
from engine.fe.opening import ApproachOrder, CloakOrder, OpposeOrder, WithdrawOrder
from engine.fe.orders import hex_id
from engine.fe.sequence import Step
from engine.fe.steps import base, combat
from engine.fe.steps import supply as supply_area
from engine.fe.steps.base import Area
from engine.fe.steps.combat_approach import (
    ANSWER_STEP,
    APPROACH_RULE,
    APPROACH_STEP,
    BASE_BATTLE_STEP,
    CLOAK_STEP,
    EVADE_STEP,
    EVASION_RULE,
    FORCES_STEP,
    OFFER_STEP,
    answered,
    apply_approach,
    apply_cloak,
    check_approach,
    check_cloak,
    cloaks,
    defender,
    event,
    offered,
    opened,
    refuse,
    round_of,
    settle_kind,
    skip_bases,
    units_of,
)
from engine.fe.unit_kinds import is_auxiliary, is_ship, movement_points

WITHDRAW_RULE = "302.11"
UNOPPOSED_RULE = "302.12"
OPPOSED_RULE = "302.13"
AUXILIARY_RULE = "549.212"
WITHDRAWAL_RULE = "302.1"

ANNOUNCE_STEP = "5-1A"
OPPOSE_STEP = "5-1B"
CONDUCT_STEP = "5-1C"
FLAGSHIP_STEP = "5-1D"
RESOLVE_STEP = "5-1F"
RETREAT_STEP = "5-7A1"
PURSUIT_STEP = "5-8A"  # the retreat area's pursuit step (`engine.fe.steps.combat_retreat`)


# --- who may withdraw, and who commands the rest -------------------------------------------


def _refusal(unit: Unit) -> Violation | None:
    """Why ``unit`` may not withdraw before combat, None when it may."""
    if is_auxiliary(unit):
        text = f"{unit.cls} {unit.id} is an auxiliary: auxiliaries cannot withdraw before combat"
        return Violation(text, AUXILIARY_RULE)
    if movement_points(unit) == 0:
        text = f"{unit.cls} {unit.id} has no movement points: it cannot withdraw"
        return Violation(text, WITHDRAW_RULE)
    return None


def may_withdraw(state: FeState, record: BattleRecord) -> tuple[str, ...]:
    """The defender's units that may withdraw from the battle (for menus and the skip)."""
    here = units_of(state, defender(state), record.hex)
    return tuple(u.id for u in here if _refusal(u) is None)


def fixed_flagship(record: BattleRecord) -> str:
    """The flagship the defender must name at 5-3D this round (302.133), "" when free."""
    return record.opening.staying_flagship if record.rounds == 0 else ""


# --- withdrawal (302.1) --------------------------------------------------------------------


def _candidates(
    state: FeState, record: BattleRecord, units: list[Unit]
) -> list[retreat_rules.RetreatHex]:
    """The retreat-priority facts of each hex next to the battle hex (302.72)."""
    g = base.galaxy()
    seat = defender(state)
    mine = set(base.empires_of(state, seat))
    empire = units[0].empire
    grid = supply_area.grid_of(state, empire)
    moving = sum(1 for u in units if is_ship(u))
    out = []
    for h in hexgrid.neighbours(record.hex, g.width, g.height):
        there = state.board.at(h)
        blocked = any(
            neutral.entry_problem(g, state.board, e, h, dict(state.options))
            for e in sorted({u.empire for u in units})
        )
        hostile = [u for u in there if any(state.board.enemies(e, u.empire) for e in mine)]
        friends = moving + sum(1 for u in there if u.empire in mine and is_ship(u))
        out.append(
            retreat_rules.RetreatHex(
                hex=h,
                enterable=not blocked,
                enemy_units=len(hostile),
                friendly_ships=friends,
                grid=grid.status(h),
            )
        )
    return out


def check_withdraw(state: FeState, seat: Seat, order: WithdrawOrder) -> list[Violation]:
    record = combat.current(state)
    if record is None:
        return [Violation("no battle is being fought", WITHDRAWAL_RULE)]
    where = base.hex_text(record.hex)
    if seat != defender(state):
        return [Violation("only the defender withdraws before combat", WITHDRAW_RULE)]
    if record.rounds:
        text = f"round {round_of(record)} in {where}: withdrawal comes before the first round only"
        return [Violation(text, WITHDRAWAL_RULE)]
    if record.opening.withdrawing:
        return [Violation(f"{seat} already announced its withdrawal from {where}", WITHDRAW_RULE)]
    units, problems = base.own_units(state, seat, order.units, WITHDRAW_RULE)
    for unit in units:
        if unit.hex != record.hex:
            text = f"{unit.id} is in {base.hex_text(unit.hex)}, not in the battle hex {where}"
            problems.append(Violation(text, WITHDRAW_RULE))
        elif (refused := _refusal(unit)) is not None:
            problems.append(refused)
    if problems:
        return problems
    to = hex_id(order.to)
    candidates = _candidates(state, record, units)
    if to not in {c.hex for c in candidates}:
        text = (
            f"{order.to} is not next to the battle hex {where}: a withdrawal goes one hex, "
            "as a retreat does"
        )
        return [Violation(text, retreat_rules.PRIORITY_RULE)]
    for empire in sorted({u.empire for u in units}):
        entry = neutral.entry_problem(base.galaxy(), state.board, empire, to, dict(state.options))
        if entry is not None:
            return [entry]
    problems = retreat_rules.retreat_problems(to, candidates)
    return problems or _flagship_problems(state, record, units, order.flagship)


def _flagship_problems(
    state: FeState, record: BattleRecord, units: list[Unit], flagship: str
) -> list[Violation]:
    """The flagship named for the units that stay (302.133): one that may command (302.32)."""
    gone = {u.id for u in units}
    staying = [u for u in units_of(state, defender(state), record.hex) if u.id not in gone]
    eligible = forces.eligible_flagships(staying)
    named = ", ".join(eligible)
    if not eligible:
        if flagship:
            text = f"nothing that stays can command: no flagship to name (not {flagship})"
            return [Violation(text, forces.FIXED_FLAGSHIP_RULE)]
        return []
    if not flagship:
        text = f"name the flagship of the units that stay (flagship): one of {named}"
        return [Violation(text, forces.FIXED_FLAGSHIP_RULE)]
    if flagship not in eligible:
        text = f"{flagship} may not be the staying force's flagship: the eligible units are {named}"
        return [Violation(text, forces.FIXED_FLAGSHIP_RULE)]
    return []


def _apply_withdraw(
    state: FeState, seat: Seat, step: Step, order: WithdrawOrder, events: list[Event]
) -> FeState:
    record = combat.current(state)
    assert record is not None
    where = base.hex_text(record.hex)
    units = tuple(dict.fromkeys(order.units))
    staying = f"; {order.flagship} commands the units that stay" if order.flagship else ""
    text = (
        f"{seat} announces the withdrawal of {', '.join(units)} from {where} to {order.to} "
        f"before combat{staying} ({WITHDRAW_RULE})"
    )
    data = {"hex": where, "units": list(units), "to": order.to, "flagship": order.flagship}
    events.append(Event("withdrawal", text, seat, step.id, data))
    record = opened(
        record, withdrawing=units, withdraw_to=hex_id(order.to), staying_flagship=order.flagship
    )
    return combat.replace_current(state, record)


def _apply_oppose(state: FeState, seat: Seat, step: Step, events: list[Event]) -> FeState:
    record = combat.current(state)
    assert record is not None
    where = base.hex_text(record.hex)
    text = f"{seat} opposes the withdrawal from {where} ({OPPOSED_RULE})"
    events.append(Event("withdrawal", text, seat, step.id, {"hex": where, "opposed": True}))
    return combat.replace_current(state, opened(record, opposed=True))


def _conduct(state: FeState, record: BattleRecord, step: Step, events: list[Event]) -> FeState:
    """5-1C: the announced units go to their hex."""
    gone = [u for u in state.board.at(record.hex) if u.id in record.opening.withdrawing]
    if not gone:
        return state
    moved = [msgspec.structs.replace(u, hex=record.opening.withdraw_to) for u in gone]
    state = state.with_board(state.board.with_units(moved))
    how = "opposed" if record.opening.opposed else "unopposed"
    rule = OPPOSED_RULE if record.opening.opposed else UNOPPOSED_RULE
    where, to = base.hex_text(record.hex), base.hex_text(record.opening.withdraw_to)
    ids = [u.id for u in gone]
    text = f"{', '.join(ids)} withdraw from {where} to {to}, {how} ({rule})"
    data = {"hex": where, "to": to, "units": ids, "opposed": record.opening.opposed}
    events.append(event(state, "withdrawal", text, step.id, data))
    return state


def _fix_flagship(state: FeState, record: BattleRecord, step: Step, events: list[Event]) -> FeState:
    """5-1D: the staying force's flagship binds after an opposed withdrawal (302.133)."""
    if not record.opening.staying_flagship:
        return state
    if not record.opening.opposed or not any(
        u.id == record.opening.staying_flagship for u in state.board.at(record.hex)
    ):
        return combat.replace_current(state, opened(record, staying_flagship=""))
    where = base.hex_text(record.hex)
    text = (
        f"{record.opening.staying_flagship} is the flagship of the force that stays in {where}: it "
        f"serves in round 1 ({forces.FIXED_FLAGSHIP_RULE})"
    )
    data = {"hex": where, "flagship": record.opening.staying_flagship}
    events.append(event(state, "withdrawal", text, step.id, data))
    return state


def _resolve(state: FeState, record: BattleRecord, step: Step, events: list[Event]) -> FeState:
    """5-1F: with every defender gone the battle is over; crippled units may be pursued."""
    if not record.opening.withdrawing:
        return state
    _, others = combat.sides_present(state, record.hex)
    if others:
        return state
    where = base.hex_text(record.hex)
    why = f"the defender withdrew from {where} before combat"
    # Recorded like a retreat, so that the retreat area's 5-8A offers the attacker pursuit.
    gone = ((defender(state), record.opening.withdraw_to),)
    record = msgspec.structs.replace(record, resolved=why, retreated=gone)
    state = combat.replace_current(state, record)
    moved = state.board.at(record.opening.withdraw_to)
    crippled = [u.id for u in moved if u.id in record.opening.withdrawing and u.crippled]
    data: dict[str, Any] = {"hex": where, "crippled": crippled}
    if crippled:
        text = (
            f"{why}: the battle is resolved; the attacker may pursue the crippled "
            f"{', '.join(crippled)} ({WITHDRAWAL_RULE})"
        )
        events.append(event(state, "battle", text, step.id, data))
        return msgspec.structs.replace(state, step=combat.index_of(PURSUIT_STEP))
    text = f"{why}: the battle is resolved ({WITHDRAWAL_RULE})"
    events.append(event(state, "battle", text, step.id, data))
    return msgspec.structs.replace(state, step=combat.after_phase())


# --- the area ------------------------------------------------------------------------------


class _Withdrawal(Area):
    name = "withdrawal"
    orders = ("withdraw", "oppose", "approach", "cloak")

    def check(self, state: FeState, seat: Seat, step: Step, order: Any) -> list[Violation]:
        if isinstance(order, WithdrawOrder):
            return check_withdraw(state, seat, order)
        if isinstance(order, OpposeOrder):
            record = combat.current(state)
            if record is None or not record.opening.withdrawing:
                return [Violation("no withdrawal was announced to oppose", WITHDRAW_RULE)]
            if seat != base.phasing(state):
                return [Violation("only the attacker opposes a withdrawal", OPPOSED_RULE)]
            if record.opening.opposed:
                return [Violation("the withdrawal is opposed already", OPPOSED_RULE)]
            return []
        if isinstance(order, ApproachOrder):
            return check_approach(state, seat, step, order)
        if isinstance(order, CloakOrder):
            return check_cloak(state, seat, step)
        return super().check(state, seat, step, order)

    def apply(
        self, state: FeState, seat: Seat, step: Step, order: Any, events: list[Event]
    ) -> FeState:
        if isinstance(order, WithdrawOrder):
            return _apply_withdraw(state, seat, step, order, events)
        if isinstance(order, OpposeOrder):
            return _apply_oppose(state, seat, step, events)
        if isinstance(order, ApproachOrder):
            return apply_approach(state, seat, step, order, events)
        if isinstance(order, CloakOrder):
            return apply_cloak(state, seat, step, events)
        return super().apply(state, seat, step, order, events)

    def automatic(self, state: FeState, step: Step, events: list[Event]) -> FeState:
        record = combat.current(state)
        if record is None:
            return state
        if step.id == CONDUCT_STEP:
            return _conduct(state, record, step, events)
        if step.id == FLAGSHIP_STEP:
            return _fix_flagship(state, record, step, events)
        if step.id == RESOLVE_STEP:
            return _resolve(state, record, step, events)
        if step.id == APPROACH_STEP:
            return settle_kind(state, record, step, events)
        if step.id == BASE_BATTLE_STEP and base.phasing(state) in record.retreats:
            return msgspec.structs.replace(state, step=combat.index_of(RETREAT_STEP))
        return state

    def skip(self, state: FeState, step: Step) -> str:
        record = combat.current(state)
        if record is None:
            return ""  # no battle: the steps wait for done, as before
        if step.id in (ANNOUNCE_STEP, OPPOSE_STEP, EVADE_STEP):
            return _skip_withdrawal(state, record, step)
        return skip_bases(state, record, step)

    def settled(self, state: FeState, seat: Seat, step: Step) -> str:
        """From 5.5 (`base.ORDER_ENDS_STEP_FROM`), once the step's one answer is given: the
        withdrawal opposed (5-1B), the approach battle offered (5-2A2) or answered (5-2A3)."""
        record = combat.current(state)
        if record is None or not state.plays_at_least(base.ORDER_ENDS_STEP_FROM):
            return ""
        if step.id == OPPOSE_STEP and record.opening.opposed:
            return f"the withdrawal is opposed ({OPPOSED_RULE})"
        if step.id == OFFER_STEP and record.opening.offered == round_of(record):
            return f"the approach battle is offered ({APPROACH_RULE})"
        if step.id == ANSWER_STEP and answered(record):
            return f"the approach battle is answered ({APPROACH_RULE})"
        return ""

    def on_done(self, state: FeState, seat: Seat, step: Step, events: list[Event]) -> FeState:
        record = combat.current(state)
        if record is None:
            return state
        if step.id == ANSWER_STEP and offered(record) and not answered(record):
            return refuse(state, record, seat, step, events)
        if step.id == CLOAK_STEP and record.opening.cloaked == round_of(record):
            return msgspec.structs.replace(state, step=combat.index_of(FORCES_STEP))
        return state


def _skip_withdrawal(state: FeState, record: BattleRecord, step: Step) -> str:
    if record.rounds:
        return f"withdrawal comes before the first round only ({WITHDRAWAL_RULE})"
    if step.id == ANNOUNCE_STEP and not may_withdraw(state, record):
        return f"the defender has nothing that may withdraw ({WITHDRAW_RULE})"
    if step.id == OPPOSE_STEP and not record.opening.withdrawing:
        return f"nobody withdraws ({WITHDRAW_RULE})"
    if step.id == EVADE_STEP and not cloaks(units_of(state, defender(state), record.hex)):
        return f"the defender has no cloaked ships to evade with ({EVASION_RULE})"
    return ""


AREA = _Withdrawal()
