"""Small-scale combat played by the engine (310.0): decided at 5-3B, fought at 5-4.

- 5-3B, round 1 of a battle: as the step ends, the engine decides whether the battle is
  small-scale (310.11, the ``small-scale-size`` option: `engine.fe.combat.small_scale`) from
  the units each side can fight with in the hex, and records it on the battle's record
  (``BattleRecord.small_scale``); it holds for every later round in that hex. The step stays
  the players' to walk (it also organizes forces), so it costs no extra hand-off.
- 5-4A2: in a small-scale battle each side's combat roll is two dice
  (`engine.fe.steps.combat_round` asks for them); when they land, this module reads the
  modifiers off the two battle forces and scores casualties from the small-scale results
  table instead of the 300 table. The round's log keeps the sum of the two dice as the die,
  per-mille 0, and the casualties as the damage.
- 5-6A/5-6B: each casualty is one step on the side's battle force: the allocation prices
  every unit at one point to cripple and one to destroy a cripple (no fighters, no SIDS),
  so the 302.6 rules (and the allocation editor) work unchanged
  (`engine.fe.combat.small_scale.step_targets`).

Facts read (I, see the pure module for the rule readings): an X ship is a class whose rules
name 523, a fast ship one whose rules name 525.13 (none in the shipped tables); a slow unit
is one that moves by itself with fewer than 6 movement points (an auxiliary, 549.21);
maulers, fighting retreats and the combat potential differential are not read (no data, or
not played by the engine): those modifiers are left to typed adjustments.
"""

from __future__ import annotations

from typing import Any

import msgspec

from engine.core.ruleset import Event, RollRequest, Seat
from engine.fe.battle_model import BattleRecord, RoundLog, SideRound
from engine.fe.combat import ew as ew_rules
from engine.fe.combat import potential
from engine.fe.combat import small_scale as rules
from engine.fe.forces import Unit
from engine.fe.model import FeState
from engine.fe.sequence import Step
from engine.fe.steps import base, combat, combat_round, pursuit_die
from engine.fe.steps.base import Area
from engine.fe.unit_kinds import class_of, movement_points

DECIDE_STEP = "5-3B"
X_RULES = ("523",)


def _x_ship(unit: Unit) -> bool:
    info = class_of(unit)
    return any(m.split(".")[0] in X_RULES for m in (info.rules if info else ()))


def _slow(unit: Unit) -> bool:
    return 0 < movement_points(unit) < 6


def _largest_def2(units: list[Unit]) -> int:
    found = [info.shown(u.crippled).def2 for u in units if (info := class_of(u)) is not None]
    return max(found, default=0)


def decide(state: FeState, record: BattleRecord) -> bool | None:
    """Whether the battle is small-scale (310.11), or None when the option is off."""
    size = rules.size_option(dict(state.options))
    if not size:
        return None
    attacker = base.phasing(state)
    defender = next(s for s in state.seats if s != attacker)
    counts = [len(combat_round.available(state, s, record)) for s in (attacker, defender)]
    return rules.applies(counts[0], counts[1], size)


def _decide_at_5_3b(state: FeState, step: Step, events: list[Event]) -> FeState:
    record = combat.current(state)
    if record is None or record.rounds != 0:
        return state
    small = decide(state, record)
    if small is None:
        return state
    size = rules.size_option(dict(state.options))
    where = base.hex_text(record.hex)
    if small:
        text = (
            f"{where}: neither side has more than {size} units able to fight: small-scale "
            f"combat in every round ({rules.SIZE_RULE}, {rules.SMALL_SCALE_RULE})"
        )
    else:
        text = (
            f"{where}: a side has more than {size} units able to fight: no small-scale combat "
            f"({rules.SIZE_RULE})"
        )
    events.append(Event("battle", text, "", step.id, {"hex": where, "small_scale": small}))
    return combat.replace_current(state, msgspec.structs.replace(record, small_scale=small))


def _force(state: FeState, side: SideRound, record: BattleRecord) -> list[Unit]:
    here = {u.id: u for u in state.board.at(record.hex)}
    return [here[i] for i in side.force if i in here]


def side_facts(state: FeState, record: BattleRecord, log: RoundLog, seat: Seat) -> rules.SideFacts:
    """What the small-scale modifiers read for ``seat``'s roll this round."""
    own = log.attacker if log.attacker.seat == seat else log.defender
    other = log.defender if own is log.attacker else log.attacker
    mine, theirs = _force(state, own, record), _force(state, other, record)
    shift = 0
    ew = [
        combat_round._potential(
            state,
            s.seat,
            record,
            s,
            combat_round.available(state, s.seat, record),
            dict(s.ew_choices),
        )
        for s in (own, other)
    ]
    if isinstance(ew[0], potential.SidePotential) and isinstance(ew[1], potential.SidePotential):
        most = ew_rules.ew_options(dict(state.options)).shift_max
        shift = ew_rules.ew_shift(ew[1].ew, ew[0].ew, most=most)
    return rules.SideFacts(
        x_ship=any(_x_ship(u) for u in mine),
        slow_unit=any(_slow(u) for u in mine),
        enemy_fast_or_x=any(pursuit_die.x_or_fast(u) for u in theirs),
        largest_def2=_largest_def2(mine),
        enemy_largest_def2=_largest_def2(theirs),
        enemy_ew_shift=shift,
    )


def apply_die(
    state: FeState, request: RollRequest, dice: tuple[int, ...], events: list[Event]
) -> FeState:
    """A side's two small-scale dice (5-4A2): its casualties land on the round's log."""
    if request.step != combat_round.EW_STEP or len(dice) != rules.DICE:
        return state
    if not request.purpose.startswith(combat_round.DAMAGE_PURPOSE):
        return state
    record = combat.current(state)
    if record is None or not record.small_scale or not record.log:
        return state
    log = record.log[-1]
    seat = request.purpose.rsplit(", ", 1)[-1]
    if seat not in (log.attacker.seat, log.defender.seat):
        return state
    result = rules.resolve(dice, side_facts(state, record, log, seat))
    own = log.attacker if log.attacker.seat == seat else log.defender
    side = msgspec.structs.replace(
        own, die=sum(dice), permille=0, damage=result.casualties, potential2=0
    )
    if log.attacker.seat == seat:
        log = msgspec.structs.replace(log, attacker=side)
    else:
        log = msgspec.structs.replace(log, defender=side)
    where = base.hex_text(record.hex)
    text = (
        f"{where} round {log.round}, {seat}: small-scale combat, {rules.result_text(result)} "
        f"({rules.SMALL_SCALE_RULE})"
    )
    data: dict[str, Any] = {
        "hex": where,
        "round": log.round,
        "seat": seat,
        "dice": list(dice),
        "modifier": result.modifier,
        "casualties": result.casualties,
    }
    events.append(Event("damage", text, seat, request.step, data))
    record = msgspec.structs.replace(record, log=(*record.log[:-1], log))
    return combat.replace_current(state, record)


class _SmallScale(Area):
    """Step 5-3B: the players organize their forces (a plain ``done``); as it ends in round 1
    the engine decides small-scale combat (310.11)."""

    name = "small_scale"

    def on_done(self, state: FeState, seat: Seat, step: Step, events: list[Event]) -> FeState:
        if step.id == DECIDE_STEP:
            return _decide_at_5_3b(state, step, events)
        return state


AREA = _SmallScale()
