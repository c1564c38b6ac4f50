"""The combat phase's loop (302.9): one battle hex at a time, round after round.

As phase 5 begins the battles area lists the battle hexes (`engine.fe.steps.battles`); this
area turns the list into the phase's records (``FeState.battles``), in the order the phasing
player chose with a ``battles`` order at 3B2 (hexes it did not name follow in hex order),
and then drives the loop the rules describe, so nobody has to steer it with ``back``:

- With no battle hex the whole phase passes by itself as it begins, with an event: its
  steps (the secret ones too) would ask both players for nothing, each a hand-off.
- Each hex is fought from 5-1A. At 5-7A1, 5-7A2 and 5-7A3 the defender, the attacker and the
  defender again may announce a retreat (``retreat``; ``done`` stays, 302.71). Step 5-7A4
  is the engine's: if nobody retreats and both sides still have units there, the next round
  begins at step 5-2A1 (302.9 "return to Phase 5 - Step 2"); if a side has nothing left in
  the hex, the battle is over and retreat and pursuit are passed; otherwise the retreat and
  pursuit steps follow. The retreat area (`engine.fe.steps.combat_retreat`) takes the
  ``retreat`` orders (checking their hex), asks this area to record them, and moves the
  ships at the end of 5-7A4; the pursuit (5-8) is its too.
- Withdrawal before combat and the approach and base battles (5-1, 5-2) are
  `engine.fe.steps.combat_withdrawal`'s; a round's secret choices and its dice are
  `engine.fe.steps.combat_round`'s (5-3X4 is an automatic step here: the variable BIR die is
  read at 5-3X2's reveal, or later when a policy answered a seat, `combat_policy`); directed
  damage and allocation are `combat_directed`'s and `combat_damage`'s.
- When the phase's last step is played, the hex is done: the next hex not yet fought begins
  at 5-1A; a hex a retreat made a battle hex (302.9) is added at the end of the list. With
  none left, phase 6 begins.

Inferred (I): a side "has nothing left" when no unit of its empires stands in the hex and,
for the defender, no planet of its own defends it; a retreat announced in a round is recorded
and the hex counts as resolved by that retreat once its retreat and pursuit steps are
played.
"""

from __future__ import annotations

from typing import Any

import msgspec

from engine.core.ruleset import Event, Seat, Violation
from engine.fe import battles as battle_rules
from engine.fe.battle_model import BattleRecord, CombatPolicy, SideRound
from engine.fe.model import FeState
from engine.fe.orders import BattlesOrder, RetreatOrder, hex_id
from engine.fe.sequence import Step, load_sequence
from engine.fe.steps import base
from engine.fe.steps.base import Area

COMBAT_PHASE = "5"
ECONOMICS_PHASE = "1"
LOOP_RULE = "302.9"
RETREAT_RULE = "302.71"
FIRST_STEP = "5-1A"
ROUND_STEP = "5-2A1"
DECIDING_STEP = "5-7A4"
FIGHTERS_LOST_FROM = "5.7"
"""From this version fighter factors lost in a battle's allocations stay lost for its later
rounds and its pursuit round (`fighters_lost`)."""
UNOWED_SPENT_FROM = "5.7"
"""From this version a side that owed nothing in a round (`unowed_spent`) spends the minus
points it carried in, as an allocation spends them."""
ANNOUNCING_STEPS = ("5-7A1", "5-7A2", "5-7A3")
BASE_RETREAT_STEP = "5-2B1"
BASE_RETREAT_RULE = "302.23"
MAX_PLAN = 64


def index_of(step_id: str) -> int:
    """The index of ``step_id`` in the player turn's steps (``FeState.step`` counts them)."""
    return next(i for i, s in enumerate(load_sequence().part()) if s.id == step_id)


def after_phase() -> int:
    """The index of the first step after the combat phase."""
    steps = load_sequence().part()
    return max(i for i, s in enumerate(steps) if s.phase == COMBAT_PHASE) + 1


def current(state: FeState) -> BattleRecord | None:
    """The battle hex being fought, None outside a battle."""
    if 0 <= state.battle_at < len(state.battles):
        return state.battles[state.battle_at]
    return None


def replace_current(state: FeState, record: BattleRecord) -> FeState:
    battles = list(state.battles)
    battles[state.battle_at] = record
    return msgspec.structs.replace(state, battles=tuple(battles))


def _ordered(hexes: list[int], plan: tuple[int, ...]) -> list[int]:
    """``hexes`` in the plan's order first, then the others in hex order."""
    planned = [h for h in plan if h in hexes]
    return planned + sorted(h for h in hexes if h not in planned)


def sides_present(state: FeState, h: int) -> tuple[bool, bool]:
    """Whether the phasing side and the other side still have something fighting in ``h``:
    units of their empires, or (for a planet's owner) the planet itself (508.0)."""
    mine = set(base.phasing_empires(state))
    here = state.board.at(h)
    phasing = any(u.empire in mine for u in here)
    others = any(u.empire not in mine for u in here)
    if not others:
        found = next(
            (b for b in battle_rules.battle_hexes(state.board, base.galaxy()) if b.hex == h), None
        )
        others = found is not None and bool(found.planet) and found.planet not in mine
    return phasing, others


def _step_event(state: FeState, text: str, step: str, data: dict[str, Any]) -> Event:
    return Event("battle", f"{text} ({LOOP_RULE})", base.phasing(state), step, data)


def check_plan(state: FeState, seat: Seat, order: BattlesOrder) -> list[Violation]:
    """A ``battles`` order (3B2, the movement area takes it): the phasing player's, naming
    each hex once, on the map."""
    if seat != base.phasing(state):
        return [Violation("only the phasing player orders its battles", LOOP_RULE)]
    seen: set[str] = set()
    for text in order.hexes:
        if text in seen:
            return [Violation(f"hex {text} is named twice", LOOP_RULE)]
        seen.add(text)
        if not base.on_map(hex_id(text)):
            return [Violation(f"hex {text} is not on the map", LOOP_RULE)]
    return []


def apply_plan(
    state: FeState, seat: Seat, step: Step, order: BattlesOrder, events: list[Event]
) -> FeState:
    plan = tuple(hex_id(text) for text in order.hexes)
    text = f"{seat} will fight its battles in the order {', '.join(order.hexes)}"
    events.append(_step_event(state, text, step.id, {"hexes": list(order.hexes)}))
    return msgspec.structs.replace(state, battle_plan=plan)


def policy_of(state: FeState, seat: Seat) -> CombatPolicy | None:
    """``seat``'s signed combat policy, or None (`engine.fe.steps.combat_policy`)."""
    return next((p for who, p in state.policies if who == seat), None)


def declines(state: FeState, seat: Seat, field: str, since: str) -> bool:
    """Whether ``seat``'s combat policy says "never" in ``field`` (``capture``, ``direct``)
    in a game of ``since`` or later: its side is not asked at that field's step each round
    (a game before keeps asking)."""
    if not state.plays_at_least(since):
        return False
    policy = policy_of(state, seat)
    return policy is not None and getattr(policy, field) == "never"


def fighters_lost(state: FeState, record: BattleRecord) -> dict[str, int]:
    """The doubled fighter factors each unit has lost in the battle so far, which it does
    not have again before the end of the combat phase (530.12: losses are replaced then, for
    free, as at 6E). Before `FIGHTERS_LOST_FROM` nothing was counted and every round began
    with every carrier's fighters whole: two carriers whose fighters absorbed all the damage
    the other scored fought for ever (found by the random campaigns: 440 rounds)."""
    if not state.plays_at_least(FIGHTERS_LOST_FROM):
        return {}
    return dict(record.fighters_lost)


def with_fighters_lost(record: BattleRecord, lost: list[tuple[str, int]]) -> BattleRecord:
    """``record`` counting ``lost`` (unit, doubled factors) among the battle's losses."""
    total = dict(record.fighters_lost)
    for unit, factors2 in lost:
        total[unit] = total.get(unit, 0) + factors2
    return msgspec.structs.replace(record, fighters_lost=tuple(sorted(total.items())))


def unowed_spent(record: BattleRecord) -> BattleRecord:
    """The round just fought with each side that owed nothing in it (the minus points it
    carried in cancelled the enemy's damage, so its allocation step passed) recorded as
    having resolved nothing, its carry 0: minus points count against one round's damage
    (308.2), as an allocation spends what was carried in and carries afresh what it leaves.
    Before `UNOWED_SPENT_FROM` the same minus points were carried on round after round: a
    side that had once over-resolved by more than the enemy scored a round was never hit
    again (found by the random campaigns: 400 rounds at a base)."""
    log = record.log[-1] if record.log else None
    if log is None or log.round != record.rounds + 1:
        return record
    carry = dict(record.carry)
    sides: dict[Seat, SideRound] = {}
    for own, enemy in ((log.attacker, log.defender), (log.defender, log.attacker)):
        if enemy.damage < 0 or own.resolved2 >= 0:
            continue
        if 2 * enemy.damage - enemy.directed2 + carry.get(own.seat, 0) > 0:
            continue  # owed and not resolved: the allocation step is not passed yet
        sides[own.seat] = msgspec.structs.replace(own, resolved2=0)
        carry[own.seat] = 0
    if not sides:
        return record
    log = msgspec.structs.replace(
        log,
        attacker=sides.get(log.attacker.seat, log.attacker),
        defender=sides.get(log.defender.seat, log.defender),
    )
    return msgspec.structs.replace(
        record, log=(*record.log[:-1], log), carry=tuple(sorted(carry.items()))
    )


class _Combat(Area):
    name = "combat"
    orders = ()  # the retreat area (`combat_retreat`) takes ``retreat`` and asks this one

    # --- orders -------------------------------------------------------------------------

    def check(self, state: FeState, seat: Seat, step: Step, order: Any) -> list[Violation]:
        if isinstance(order, RetreatOrder):
            record = current(state)
            if record is None:
                return [Violation("no battle is being fought", RETREAT_RULE)]
            if seat in record.retreats:
                where = base.hex_text(record.hex)
                return [
                    Violation(f"{seat} already announced its retreat from {where}", RETREAT_RULE)
                ]
            return []
        return super().check(state, seat, step, order)

    def apply(
        self, state: FeState, seat: Seat, step: Step, order: Any, events: list[Event]
    ) -> FeState:
        if isinstance(order, RetreatOrder):
            record = current(state)
            assert record is not None
            where = base.hex_text(record.hex)
            events.append(
                Event(
                    "retreat",
                    f"{seat} announces its retreat from {where} in round {record.rounds + 1} "
                    f"({RETREAT_RULE})",
                    seat,
                    step.id,
                    {"hex": where, "round": record.rounds + 1},
                )
            )
            record = msgspec.structs.replace(record, retreats=(*record.retreats, seat))
            return replace_current(state, record)
        return super().apply(state, seat, step, order, events)

    def skip(self, state: FeState, step: Step) -> str:
        """5-2B1 (302.23) stops for the attacker only after the defender refused this round's
        approach battle (`engine.fe.steps.combat_withdrawal`); outside a battle it waits."""
        record = current(state)
        if step.id != BASE_RETREAT_STEP or record is None:
            return ""
        if record.opening.declined != record.rounds + 1:
            return f"no approach battle was refused this round ({BASE_RETREAT_RULE})"
        return ""

    # --- the loop -----------------------------------------------------------------------

    def on_phase(self, state: FeState, phase: str, events: list[Event]) -> FeState:
        if phase == ECONOMICS_PHASE and state.battle_plan:
            # The last combat phase's records stay until the next one replaces them: a packet
            # that ends a battle and plays on into the next player turn still reports the
            # battle (`engine.fe.battle_report.new_reports` compares records).
            return msgspec.structs.replace(state, battle_plan=())
        if phase != COMBAT_PHASE:
            return state
        hexes = _ordered(list(state.battle_hexes), state.battle_plan)
        records = tuple(BattleRecord(h) for h in hexes)
        state = msgspec.structs.replace(state, battles=records, battle_at=0)
        if not records:  # nothing to fight: the phase passes whole, nobody is asked
            text = "no battle hexes: the combat phase passes"
            events.append(_step_event(state, text, FIRST_STEP, {"hexes": []}))
            return msgspec.structs.replace(state, step=after_phase())
        shown = [base.hex_text(r.hex) for r in records]
        text = f"battle hexes in the order they are fought: {', '.join(shown)}"
        events.append(_step_event(state, text, FIRST_STEP, {"hexes": shown}))
        return state

    def automatic(self, state: FeState, step: Step, events: list[Event]) -> FeState:
        if step.id != DECIDING_STEP:
            return state
        record = current(state)
        if record is None:
            return state
        if state.plays_at_least(UNOWED_SPENT_FROM):
            record = unowed_spent(record)
        where = base.hex_text(record.hex)
        phasing, others = sides_present(state, record.hex)
        rounds = record.rounds + 1
        if not (phasing and others):
            gone = "the attacker" if not phasing else "the defender"
            why = f"{gone} has nothing left in {where}"
            record = msgspec.structs.replace(record, rounds=rounds, resolved=why)
            text = f"round {rounds} in {where} ends the battle: {why}; no retreat or pursuit"
            events.append(_step_event(state, text, step.id, {"hex": where, "round": rounds}))
            return msgspec.structs.replace(replace_current(state, record), step=after_phase())
        if not record.retreats:
            record = msgspec.structs.replace(record, rounds=rounds)
            text = f"nobody retreats from {where}: round {rounds + 1} begins at {ROUND_STEP}"
            events.append(_step_event(state, text, step.id, {"hex": where, "round": rounds + 1}))
            return msgspec.structs.replace(
                replace_current(state, record), step=index_of(ROUND_STEP), backs=state.backs + 1
            )
        who = " and ".join(record.retreats)
        why = f"{who} retreated after round {rounds}"
        record = msgspec.structs.replace(record, rounds=rounds, resolved=why)
        text = f"{why} from {where}: retreat and pursuit follow"
        events.append(_step_event(state, text, step.id, {"hex": where, "round": rounds}))
        return replace_current(state, record)

    def on_phase_end(self, state: FeState, phase: str, events: list[Event]) -> FeState:
        """The combat phase was played through for one hex: the next hex, or phase 6."""
        record = current(state)
        if phase != COMBAT_PHASE or record is None:
            return state
        if not record.resolved:
            record = msgspec.structs.replace(record, resolved="fought to the end of the phase")
        state = replace_current(state, record)
        known = {r.hex for r in state.battles}
        found = [b.hex for b in battle_rules.battle_hexes(state.board, base.galaxy())]
        new = [h for h in found if h not in known]
        if new:
            shown = [base.hex_text(h) for h in new]
            text = "new battle hexes after the retreats: " + ", ".join(shown)
            events.append(_step_event(state, text, FIRST_STEP, {"hexes": shown}))
            added = tuple(BattleRecord(h) for h in new)
            state = msgspec.structs.replace(state, battles=(*state.battles, *added))
        following = state.battle_at + 1
        if following >= len(state.battles):
            return state
        nxt = state.battles[following]
        text = f"the battle in {base.hex_text(nxt.hex)} begins"
        events.append(_step_event(state, text, FIRST_STEP, {"hex": base.hex_text(nxt.hex)}))
        return msgspec.structs.replace(
            state, battle_at=following, step=index_of(FIRST_STEP), backs=state.backs + 1
        )


AREA = _Combat()
