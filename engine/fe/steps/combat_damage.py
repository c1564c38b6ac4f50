"""A battle round's damage resolved on the board: the ``allocate`` order of 5-6A and 5-6B.

Once both sides' damage is known (`engine.fe.steps.combat_round`), each side resolves the
damage the enemy scored on its own battle force (302.6), the defender first (5-6A), then the
attacker (5-6B): an ``allocate`` order names the units crippled, the units destroyed and the
fighter factors lost, and the engine checks it with the pure allocation rules
(`engine.fe.combat.allocation`): every choice priced on the unit's defences, the
forced-resolution rule (302.61), nothing beyond the battle force. The board changes at once
(cripples turn, the destroyed leave the board); what is left becomes plus points and what is
over-resolved minus points, carried into the enemy's damage next round (308.2). While damage
is owed, ``done`` alone is refused; with none (or no battle) the step passes.

What the enemy spent on directed damage at 5-5 (`engine.fe.steps.combat_directed`) is not
owed again here; a base is priced with the SIDS steps already on it (`engine.fe.steps.sids`).
While a policy round's dice are still armed the steps wait (`combat_round.waiting_for_dice`).
Fighter factors lost are recorded on the round's log only (the board keeps no count
of lost fighters; they come back free at 6E, 530.12).
"""

from __future__ import annotations

from typing import Any

import msgspec

from engine.core.ruleset import Event, Seat, Violation
from engine.fe.battle_model import BattleRecord, RoundLog, SideRound
from engine.fe.combat import allocation, small_scale
from engine.fe.combat.targets import Target, points_text, target_of
from engine.fe.forces import Unit
from engine.fe.model import FeState
from engine.fe.orders import AllocateOrder
from engine.fe.sequence import Step
from engine.fe.steps import base, combat, combat_round, sids
from engine.fe.steps.adjust import cripple_units, destroy_units
from engine.fe.steps.base import Area

ALLOCATION_STEPS = ("5-6A", "5-6B")


def _side(log: RoundLog, seat: Seat) -> tuple[SideRound, SideRound]:
    """The seat's part of the round and the enemy's."""
    if log.attacker.seat == seat:
        return log.attacker, log.defender
    return log.defender, log.attacker


def _carried(record: BattleRecord, seat: Seat) -> int:
    return next((points for who, points in record.carry if who == seat), 0)


def owed2(state: FeState, seat: Seat) -> tuple[BattleRecord, RoundLog, int] | None:
    """The battle, its round and the doubled points ``seat`` must resolve now (the enemy's
    damage this round with what was carried, less what the enemy spent on directed damage
    at 5-5, never below 0); None when it owes nothing."""
    record = combat.current(state)
    if record is None or not record.log:
        return None
    log = record.log[-1]
    if log.round != record.rounds + 1 or seat not in (log.attacker.seat, log.defender.seat):
        return None
    own, enemy = _side(log, seat)
    if enemy.damage < 0 or own.resolved2 >= 0:
        return None
    return record, log, max(0, 2 * enemy.damage + _carried(record, seat) - enemy.directed2)


def _targets(state: FeState, record: BattleRecord, own: SideRound) -> list[Target]:
    """What the side's damage may fall on: its battle force (bases with the SIDS steps they
    carry), then the support echelon's units for the fighters they sent forward only
    (302.563: their hulls are reached by directed damage alone). The units are found by id
    wherever they stand: in a pursuit battle the pursued fight from their retreat hex."""
    by_id = base.units_by_id(state, (*own.force, *(unit for unit, _ in own.forward)))
    lost = combat.fighters_lost(state, record)
    found = sids.with_scored(
        state, [_target(by_id[i], lost.get(i, 0)) for i in own.force if i in by_id]
    )
    if record.small_scale:
        return small_scale.step_targets(found)  # 310.0: casualties, not points
    inside = set(own.force)
    sent = [
        target_of(by_id[unit], "support", fighters2=fighters2)
        for unit, fighters2 in own.forward
        if unit in by_id and unit not in inside and fighters2 > 0
    ]
    return [*found, *sent]


def _target(unit: Unit, lost2: int) -> Target:
    """The unit's `Target` with the fighter factors it lost earlier in the battle gone."""
    target = target_of(unit)
    if lost2 <= 0:
        return target
    return msgspec.structs.replace(target, fighters2=max(0, target.fighters2 - lost2))


def targets_of(state: FeState, seat: Seat) -> list[Target]:
    """What ``seat``'s owed damage may fall on now (for the allocation menu); [] when it owes
    nothing."""
    owed = owed2(state, seat)
    if owed is None:
        return []
    record, log, _ = owed
    own, _ = _side(log, seat)
    return _targets(state, record, own)


def _choice(text: str) -> allocation.Choice:
    """One loss in words (the order's pattern checked its shape)."""
    words = text.split()
    if words[0] == "cripple":
        return allocation.Cripple(words[1])
    if words[0] == "destroy":
        return allocation.Destroy(words[1])
    if words[0] == "sids":
        return allocation.VoluntarySids(words[1])
    whole, _, half = words[2].partition(".")
    return allocation.LoseFighters(words[1], 2 * int(whole) + (1 if half == "5" else 0))


def _choices(order: AllocateOrder) -> list[allocation.Choice]:
    return [_choice(text) for text in order.losses]


def loss_text(choice: allocation.Choice) -> str:
    """A choice of the pure rules as the order writes it."""
    if isinstance(choice, allocation.Cripple):
        return f"cripple {choice.unit}"
    if isinstance(choice, allocation.Destroy):
        return f"destroy {choice.unit}"
    if isinstance(choice, allocation.LoseFighters):
        return f"fighters {choice.unit} {points_text(choice.factors2)}"
    return f"sids {choice.unit}"


def suggested(state: FeState, seat: Seat) -> AllocateOrder | None:
    """A legal allocation of what ``seat`` owes, for scripts and as a starting point in a
    client: each time the dearest loss the points left cover, else the cheapest one (the
    forced rule then over-resolves), until it may stop; None when nothing is owed."""
    owed = owed2(state, seat)
    if owed is None:
        return None
    record, log, points2 = owed
    own, _ = _side(log, seat)
    targets = _targets(state, record, own)
    done: list[allocation.Choice] = []
    for _ in range(points2 + 2 * len(targets) + 8):  # each loss resolves half a point or more
        menu = allocation.next_choices(points2, targets, done)
        if menu.may_stop or not menu.choices:
            break
        fitting = [p for p in menu.choices if p.cost2 <= menu.remaining2]
        pick = (
            max(fitting, key=lambda p: p.cost2)
            if fitting
            else min(menu.choices, key=lambda p: p.cost2)
        )
        done.append(pick.choice)
    return AllocateOrder(losses=[loss_text(c) for c in done])


def check(state: FeState, seat: Seat, order: AllocateOrder) -> list[Violation]:
    owed = owed2(state, seat)
    if owed is None:
        return [Violation("there is no damage for you to allocate now", allocation.ALLOCATION_RULE)]
    record, log, points2 = owed
    own, _ = _side(log, seat)
    targets = _targets(state, record, own)
    known = {t.id for t in targets}
    strangers = [c.unit for c in _choices(order) if c.unit not in known]
    if strangers:
        text = f"{', '.join(strangers)}: not in your battle force in {base.hex_text(record.hex)}"
        return [Violation(text, allocation.ALLOCATION_RULE)]
    return allocation.allocation_problems(points2, targets, _choices(order))


def apply(
    state: FeState, seat: Seat, step: Step, order: AllocateOrder, events: list[Event]
) -> FeState:
    owed = owed2(state, seat)
    assert owed is not None
    record, log, points2 = owed
    own, _ = _side(log, seat)
    result = allocation.resolve(points2, _targets(state, record, own), _choices(order))
    state = sids.record(state, result.targets)
    state = destroy_units(cripple_units(state, result.crippled), result.destroyed)
    losses = (
        *(f"{u} crippled" for u in result.crippled if u not in result.destroyed),
        *(f"{u} destroyed" for u in result.destroyed),
        *(f"{u} lost {points_text(f)} fighter factors" for u, f in result.fighters_lost),
    )
    carry2 = result.plus2 - result.minus2
    record = combat.current(state) or record
    own = msgspec.structs.replace(
        own, resolved2=points2 - result.plus2 + result.minus2, losses=losses
    )
    log = (
        msgspec.structs.replace(log, attacker=own)
        if log.attacker.seat == seat
        else msgspec.structs.replace(log, defender=own)
    )
    carry = tuple(sorted((*((w, p) for w, p in record.carry if w != seat), (seat, carry2))))
    record = msgspec.structs.replace(record, log=(*record.log[:-1], log), carry=carry)
    if result.fighters_lost and state.plays_at_least(combat.FIGHTERS_LOST_FROM):
        record = combat.with_fighters_lost(record, list(result.fighters_lost))
    state = combat.replace_current(state, record)
    where = base.hex_text(record.hex)
    said = "; ".join(losses) or "nothing"
    extra = ""
    if result.plus2:
        extra = f"; {points_text(result.plus2)} plus points carried"
    elif result.minus2:
        extra = f"; {points_text(result.minus2)} minus points carried"
    text = (
        f"{seat} resolves {points_text(points2)} damage points in {where} round {log.round}: "
        f"{said}{extra} ({allocation.ALLOCATION_RULE})"
    )
    data = {"hex": where, "round": log.round, "losses": list(losses), "carry2": carry2}
    events.append(Event("allocation", text, seat, step.id, data))
    return state


def finish(state: FeState, seat: Seat) -> list[Violation]:
    """``done`` at 5-6A/5-6B waits for the round's dice, then for the allocation while
    damage is owed."""
    if combat_round.waiting_for_dice(state):
        return [Violation(combat_round.dice_wait_text(state), allocation.ALLOCATION_RULE)]
    owed = owed2(state, seat)
    if owed is None or owed[2] == 0:
        return []
    text = f"{points_text(owed[2])} damage points to resolve first: send an allocate order"
    return [Violation(text, allocation.ALLOCATION_RULE)]


def units_of(state: FeState, seat: Seat) -> list[Unit]:
    """The units ``seat``'s owed damage may fall on (for menus): `targets_of` as units."""
    wanted = [t.id for t in targets_of(state, seat)]
    by_id = {u.id: u for u in state.board.units if u.id in set(wanted)}
    return [by_id[i] for i in wanted if i in by_id]


class _Damage(Area):
    """Steps 5-6A and 5-6B: the ``allocate`` order."""

    name = "damage"
    orders = ("allocate",)

    def check(self, state: FeState, seat: Seat, step: Step, order: Any) -> list[Violation]:
        if isinstance(order, AllocateOrder):
            return check(state, seat, order)
        return super().check(state, seat, step, order)

    def apply(
        self, state: FeState, seat: Seat, step: Step, order: Any, events: list[Event]
    ) -> FeState:
        if isinstance(order, AllocateOrder):
            return apply(state, seat, step, order, events)
        return super().apply(state, seat, step, order, events)

    def finish(self, state: FeState, seat: Seat, step: Step) -> list[Violation]:
        return finish(state, seat)

    def skip(self, state: FeState, step: Step) -> str:
        if combat_round.waiting_for_dice(state):
            return ""  # the damage is not rolled yet (dice armed for the next packet)
        seat = base.phasing(state) if step.id == "5-6B" else _other(state)
        owed = owed2(state, seat)
        if owed is None:
            return "no damage scored by the engine to allocate"
        if owed[2] == 0:
            return "no damage to allocate this round"
        return ""


def _other(state: FeState) -> Seat:
    phasing = base.phasing(state)
    return next(s for s in state.seats if s != phasing)


AREA = _Damage()
