"""The pursuit battle played by the engine (302.742, 307.0-307.4): steps 5-8D to 5-8G, 5-8J.

After a successful pursuit roll (`engine.fe.steps.pursuit_die`, 5-8A) one round of combat
is fought between the pursuers (the ``pursue`` order's ships, still in the battle hex) and the
ships that retreated (``BattleRecord.fled``, now in their retreat hex). It is logged as one
more `RoundLog` of the battle, marked ``pursuit``, so the battle report and ``show --json``
show it as the battle's last round; ``BattleRecord.rounds`` does not count it.

- 5-8D (secret, both sides, commit-reveal as 5-3X2): the pursued sets up its force (307.3)
  and both sides pick the BIR (304.1). The pursued's choice is ``{"bir": 2, "flagship":
  "KZI-0004", "force": ["KZI-0004", ...], "ew": {...}}`` (``flagship``/``force`` left out:
  the engine's picks, as a policy's "auto"; a bare ``2`` is the same); the pursuer's is ``2``
  or ``{"bir": 2, "ew": {...}}`` (its force is the pursue order's ships). At the reveal the
  engine reads the variable BIR die and each side's combat die from the reveal packets.
- 5-8E (the pursuer): ``direct`` at one unit of the pursued force (307.4), then ``allocate``
  the damage the pursued fired back (302.6), or ``done``.
- 5-8F (the pursued): ``allocate`` the pursuit damage left after the directed damage (302.6).
  A rescue tug's or a cloaked decoy's escape (537.3, 538.55) stays manual: a typed
  ``adjust`` with the ``done`` of this step (the checklist names it so).
- 5-8G: the slow-unit retreat battle (302.742B) stays manual: it stops for each side's typed
  adjustments (the pursuer's part first; a seat adjusts only its own units) only when units
  that are no ships (auxiliaries, 549.32) retreated; otherwise it passes.
- 5-8J (automatic): the pursuit battle is over; the survivors stay in their retreat hex.

Signed combat policies answer the pursuit too (`decides`, `by_policy`): the set-up at 5-8D
for a seat whose policy has ``bir``, ``ew: "default"`` (and for the pursued ``flagship`` and
``force`` "auto"); the allocations at 5-8E and 5-8F with ``allocate: "suggested"``. When both
sides' policies make the set-up, the pursuit battle's dice are armed with the pursuit die
(`early_rolls`), so they land with the same packet and the pursuit costs no packet more; when
the pursuit fails those dice are rolled and left unused (an event says so for each).

Readings, marked as in ``fe-rules-notes.md`` (S sourced, I inferred, C a choice, a rule option):

- S (5-8D): the pursued sets up its retreating battle force (307.3). I: from the ships that
  retreated, under the battle force rules (302.32 flagship, 302.33 command rating, one free
  scout); auxiliaries are not in it (549.32: they are slow units); no carrier group is formed
  for the pursuit (515.15 lets the groups change at the pursuit; the engine forms none).
- I: the pursuit force is the pursue order's ships still on the board, all of them; its
  flagship for the record is the engine's pick among them (the best command rating). The
  seed's play aid gives the pursuer no admiral and no battle group, so nothing raises a limit;
  the seed gives no command limit for the pursuers either, so none is checked.
- S (5-8F): the battle repeats steps 3X to 6: I: both sides pick a BIR (304.1) and the variable
  die applies (304.3), EW as in a round (308.51), one combat die each (302.4).
- C ``pursuit-return-fire`` (default true): the pursued fires back at the pursuers, its damage
  allocated by the pursuer at 5-8E (5-8F repeats the round's damage steps for both sides);
  false: only the pursuers fire.
- I: only the pursuer directs damage: the seed names pursuit (307.4) an exception at both
  5-5B and 5-5C, read as the pursuer's rule whichever side it is; the pursued does not.
- C ``pursuit-directed-cost`` (default "normal"): the pursuer's directed damage costs the
  defence (to cripple) or the crippled defence (to destroy a cripple) once, as general
  allocation prices it ("normal"), the reading of 307.4's exception to 302.5's doubled cost;
  "double": twice, as in a battle round.
- I: one round only: nobody retreats from a pursuit battle (it is itself the retreat).
- I: plus and minus points carried out of the battle's last round apply to the pursuit round
  as to a next round (308.2); what the pursuit round leaves is carried nowhere.
- I: the pursuer allocates at 5-8E before the pursued at 5-8F: the pursued directs nothing,
  so what each side owes is known once the pursuer has directed its damage.
- I: the seed's 5-8F/5-8G say little more; 5-8E's own words (the pursuer reveals its force,
  verifying the die) are met by the public ``pursue`` order, so the step carries the
  pursuer's part of the battle. Captures (305.12's -1 in pursuit) are not rolled here.

The round itself (its sides, the set-up's check, its log and dice) is
`engine.fe.steps.pursuit_round`'s, where the two options are defined.
"""

from __future__ import annotations

from typing import Any

import msgspec

from engine.core.ruleset import Event, RollRequest, Seat, Violation
from engine.core.text import said
from engine.fe.battle_model import PURSUIT_FOUGHT, BattleRecord, CombatPolicy, RoundLog
from engine.fe.combat import directed, forces
from engine.fe.combat.targets import Target, points_text
from engine.fe.model import FeState
from engine.fe.orders import AllocateOrder, DirectOrder
from engine.fe.sequence import Step
from engine.fe.steps import (
    base,
    combat,
    combat_damage,
    combat_policy,
    combat_retreat,
    combat_round,
    pursuit_die,
)
from engine.fe.steps import pursuit_round as pr
from engine.fe.steps.adjust import cripple_units, destroy_units
from engine.fe.steps.base import Area

POLICY_STEPS = (pr.SETUP_STEP, pr.PURSUER_STEP, pr.PURSUED_STEP)
"""The steps the signed policies may answer (`decides`, `by_policy`)."""


# --- policies -------------------------------------------------------------------------------


def _policy(state: FeState, seat: Seat) -> CombatPolicy | None:
    return combat_policy.policy_of(state, seat)


def _covers_setup(state: FeState, record: BattleRecord, seat: Seat) -> bool:
    policy = _policy(state, seat)
    if policy is None or policy.bir < 0 or policy.ew != "default":
        return False
    pursuer, _ = pr.sides(state, record)
    return seat == pursuer or (policy.flagship == "auto" and policy.force == "auto")


def answered_steps(policy: CombatPolicy) -> tuple[str, ...]:
    """The pursuit steps ``policy`` answers as a rule, for the checklist
    (`engine.fe.policy_cover`): the set-up when it makes it for either side, the pursued
    side's allocation when it allocates. The pursuer's allocation is left out: a pursuer
    that may direct damage is asked whatever its policy."""
    whole = policy.flagship == "auto" and policy.force == "auto"
    steps = [pr.SETUP_STEP] if whole and policy.bir >= 0 and policy.ew == "default" else []
    if policy.allocate == "suggested":
        steps.append(pr.PURSUED_STEP)
    return tuple(steps)


def decides(state: FeState, step: Step, seat: Seat) -> bool:
    """Whether ``seat``'s signed policy makes its set-up of the pursuit battle (5-8D)."""
    record = pr.battle(state)
    return (
        step.id == pr.SETUP_STEP
        and record is not None
        and not pr.pursuit_log(record)
        and _covers_setup(state, record, seat)
    )


def choices(state: FeState, step: Step, seats: tuple[Seat, ...]) -> dict[Seat, object]:
    """The set-ups the policies of ``seats`` make (a bare BIR pick: the engine's force)."""
    out: dict[Seat, object] = {}
    for seat in seats:
        policy = _policy(state, seat)
        if decides(state, step, seat) and policy is not None:
            out[seat] = policy.bir
    return out


def early_rolls(state: FeState) -> tuple[FeState, list[RollRequest]]:
    """The pursuit battle's dice, armed with the pursuit die when both sides' policies make
    the set-up (nothing is left to choose before them, so they need no packet of their own)."""
    record = combat.current(state)
    if record is None or record.pursuit != pursuit_die.ROLLING or record.pursuit_dice:
        return state, []
    pursuer = next(s for s in state.seats if s != record.retreated[0][0])
    pursued = record.retreated[0][0]
    if not all(_covers_setup(state, record, s) for s in (pursuer, pursued)):
        return state, []
    if not pr.fled_units(state, record, pursued):
        return state, []
    state = combat.replace_current(state, msgspec.structs.replace(record, pursuit_dice=True))
    return state, pr.dice_for(state, record, at_reveal=False)


def by_policy(state: FeState, step: Step, events: list[Event]) -> FeState | None:
    """Answer a pursuit step from the signed policies, or None to stop there."""
    record = pr.battle(state)
    if record is None or not state.policies:
        return None
    if step.id == pr.SETUP_STEP:
        if not all(decides(state, step, s) for s in state.seats):
            return None
        made = choices(state, step, state.seats)
        shown = "; ".join(f"{seat}: {said(value)}" for seat, value in made.items())
        text = f"{step.id} ({step.title}) chosen by the signed policies: {shown}"
        data = {"choices": msgspec.to_builtins(made), "policy": True}
        events.append(Event("secret", text, step=step.id, data=data))
        state, rolls = pr.apply_choices(state, made, events)
        if not rolls:
            return state
        later = tuple(msgspec.structs.replace(r, at_reveal=False) for r in rolls)
        state = combat_round.defer_dice(state)
        return msgspec.structs.replace(state, queued_rolls=(*state.queued_rolls, *later))
    if combat_round.waiting_for_dice(state):
        return None
    pursuer, pursued = pr.sides(state, record)
    seat = pursuer if step.id == pr.PURSUER_STEP else pursued
    if seat == pursuer and _cheapest_direct(state, seat) is not None:
        return None  # the pursuer may direct damage: it is asked (a standing done passes it)
    return _allocate_by_policy(state, seat, step, events)


def _allocate_by_policy(
    state: FeState, seat: Seat, step: Step, events: list[Event]
) -> FeState | None:
    policy = _policy(state, seat)
    if policy is None or policy.allocate != "suggested":
        return None
    order = combat_damage.suggested(state, seat)
    if order is None:
        return state
    if combat_damage.check(state, seat, order):
        return None  # cannot happen (suggested is legal); the seat is asked instead
    return combat_damage.apply(state, seat, step, AllocateOrder(losses=order.losses), events)


# --- directed damage (5-8E, 307.4) ----------------------------------------------------------


def _points2(state: FeState, record: BattleRecord, log: RoundLog, seat: Seat) -> int:
    """Doubled points the pursuer may direct: its damage less minus points carried against
    the pursued (as `engine.fe.steps.combat_directed` counts them)."""
    own = pr.side_of(log, seat)
    enemy = log.defender if own is log.attacker else log.attacker
    carried = next((p for who, p in record.carry if who == enemy.seat), 0)
    return max(0, 2 * own.damage + min(carried, 0))


def _targets(state: FeState, record: BattleRecord, log: RoundLog) -> list[Target]:
    _, pursued = pr.sides(state, record)
    side = pr.side_of(log, pursued)
    force = forces.BattleForce(side.flagship, side.force)
    units = pr.fled_units(state, record, pursued)
    return list(forces.force_targets(force, units, with_reserve=True))


def _cost2(state: FeState, order: directed.Directed, target: Target) -> int | None:
    if pr.doubled_cost(state):
        return directed.cost2(order, target)
    return target.destroy_cost2() if order.destroy else target.cripple_cost2()


def _directing(state: FeState, seat: Seat) -> tuple[BattleRecord, RoundLog] | None:
    """The pursuit round in which ``seat`` may direct damage now, else None."""
    record = pr.battle(state)
    if record is None or record.pursuit == PURSUIT_FOUGHT or combat_round.waiting_for_dice(state):
        return None
    log = pr.pursuit_log(record)
    pursuer, pursued = pr.sides(state, record)
    if log is None or seat != pursuer:
        return None
    own, enemy = pr.side_of(log, seat), pr.side_of(log, pursued)
    if own.damage < 0 or own.directed or enemy.resolved2 >= 0:
        return None
    return record, log


def _cheapest_direct(state: FeState, seat: Seat) -> int | None:
    found = _directing(state, seat)
    if found is None:
        return None
    record, log = found
    have = _points2(state, record, log, seat)
    prices = [
        _cost2(state, directed.Directed(t.id, d), t)
        for t in _targets(state, record, log)
        if t.echelon == "force" and not t.destroyed
        for d in (False, True)
    ]
    fitting = [p for p in prices if p is not None and p <= have]
    return min(fitting, default=None)


def target_ids(state: FeState, seat: Seat) -> tuple[str, ...]:
    """The pursued force's ships ``seat`` may direct damage at now (for menus)."""
    found = _directing(state, seat)
    if found is None:
        return ()
    record, log = found
    targets = _targets(state, record, log)
    return tuple(t.id for t in targets if t.echelon == "force" and not t.destroyed)


def check_direct(state: FeState, seat: Seat, order: DirectOrder) -> list[Violation]:
    found = _directing(state, seat)
    if found is None:
        return [Violation("there is no pursuit damage of yours to direct now", pr.BATTLE_RULE)]
    record, log = found
    wanted = directed.Directed(order.unit, order.destroy)
    targets = _targets(state, record, log)
    problems = directed.directed_problems([wanted], targets)
    if problems:
        return problems
    target = next(t for t in targets if t.id == order.unit)
    price, have = _cost2(state, wanted, target), _points2(state, record, log, seat)
    if price is None:
        return [Violation(f"{order.unit} cannot be damaged so", directed.DIRECTED_RULE)]
    if price > have:
        what = "destroy" if order.destroy else "cripple"
        text = (
            f"to {what} {order.unit} costs {points_text(price)} points in the pursuit battle "
            f"and you scored {points_text(have)}"
        )
        return [Violation(text, pr.BATTLE_RULE)]
    return []


def quote(state: FeState, seat: Seat, order: DirectOrder) -> tuple[int, int, str] | None:
    """As `engine.fe.steps.combat_directed.quote`, for the pursuer at 5-8E."""
    found = None if check_direct(state, seat, order) else _directing(state, seat)
    if found is None:
        return None
    record, log = found
    target = next(t for t in _targets(state, record, log) if t.id == order.unit)
    price = _cost2(state, directed.Directed(order.unit, order.destroy), target)
    assert price is not None  # (check_direct refuses an order without one)
    outcome = "destroyed" if order.destroy else "crippled"
    return price, _points2(state, record, log, seat), outcome


def apply_direct(
    state: FeState, seat: Seat, step: Step, order: DirectOrder, events: list[Event]
) -> FeState:
    found = _directing(state, seat)
    assert found is not None
    record, log = found
    target = next(t for t in _targets(state, record, log) if t.id == order.unit)
    wanted = directed.Directed(order.unit, order.destroy)
    price = _cost2(state, wanted, target)
    assert price is not None
    if order.destroy:
        state, said = destroy_units(state, [order.unit]), f"{order.unit} destroyed"
    else:
        state, said = cripple_units(state, [order.unit]), f"{order.unit} crippled"
    own = msgspec.structs.replace(pr.side_of(log, seat), directed=said, directed2=price)
    record = combat.current(state) or record
    state = pr.with_log(state, record, pr.set_side(log, own))
    have = _points2(state, record, log, seat)
    how = "doubled, 302.5" if pr.doubled_cost(state) else "at the normal cost"
    text = (
        f"{seat} directs damage in the {pr.title(record)}: {said} for {points_text(price)} of its "
        f"{points_text(have)} points ({how}); {points_text(have - price)} go to general "
        f"allocation ({pr.BATTLE_RULE})"
    )
    data = {"hex": base.hex_text(record.hex), "round": log.round, "seat": seat, "unit": order.unit}
    events.append(Event("directed", text, seat, step.id, data))
    return state


# --- the area -------------------------------------------------------------------------------


def _owes(state: FeState, seat: Seat) -> int:
    """Doubled pursuit damage ``seat`` must still resolve (0 with nothing left to take it)."""
    owed = combat_damage.owed2(state, seat)
    if owed is None or not combat_damage.targets_of(state, seat):
        return 0
    return owed[2]


class _Pursuit(Area):
    """Steps 5-8D to 5-8G and 5-8J: the pursuit battle. Its ``direct`` and ``allocate``
    orders are routed here by the step (`engine.fe.checklist`), not by the order's tag."""

    name = "pursuit"
    orders = ()

    def check(self, state: FeState, seat: Seat, step: Step, order: Any) -> list[Violation]:
        if step.id == pr.PURSUER_STEP and isinstance(order, DirectOrder):
            return check_direct(state, seat, order)
        if step.id in (pr.PURSUER_STEP, pr.PURSUED_STEP) and isinstance(order, AllocateOrder):
            if combat_round.waiting_for_dice(state) or pr.battle(state) is None:
                text = "there is no pursuit damage for you to allocate now"
                return [Violation(text, pr.BATTLE_RULE)]
            return combat_damage.check(state, seat, order)
        return super().check(state, seat, step, order)

    def apply(
        self, state: FeState, seat: Seat, step: Step, order: Any, events: list[Event]
    ) -> FeState:
        if isinstance(order, DirectOrder):
            return apply_direct(state, seat, step, order, events)
        if isinstance(order, AllocateOrder):
            return combat_damage.apply(state, seat, step, order, events)
        return super().apply(state, seat, step, order, events)

    def skip(self, state: FeState, step: Step) -> str:
        current = combat.current(state)
        rolling = current is not None and current.pursuit == pursuit_die.ROLLING
        record = pr.battle(state)
        if record is None:
            return "" if rolling and step.id == pr.SETUP_STEP else "no pursuit battle"
        if step.id == pr.SLOW_STEP:
            slow = ", ".join(u.id for u in pr.slow_units(state, record))
            if not slow:
                return f"no slow units retreated: no slow-unit retreat battle ({pr.SLOW_RULE})"
            return ""
        if step.id == pr.SETUP_STEP:
            _, pursued = pr.sides(state, record)
            if not pr.fled_units(state, record, pursued) or not pr.pursuing_units(state, record):
                return f"nothing is left to fight the pursuit battle ({pr.SETUP_RULE})"
            return ""
        if combat_round.waiting_for_dice(state):
            return ""
        pursuer, pursued = pr.sides(state, record)
        seat = pursuer if step.id == pr.PURSUER_STEP else pursued
        if _owes(state, seat) or (seat == pursuer and _cheapest_direct(state, seat) is not None):
            return ""
        return f"{seat} has no pursuit damage to direct or allocate ({pr.BATTLE_RULE})"

    def answering(self, state: FeState, step: Step, seats: tuple[Seat, ...]) -> tuple[Seat, ...]:
        record = pr.battle(state)
        if record is None or step.id not in (pr.PURSUER_STEP, pr.PURSUED_STEP, pr.SLOW_STEP):
            return seats
        pursuer, pursued = pr.sides(state, record)
        if step.id == pr.SLOW_STEP:
            return (pursuer, pursued)  # each records its own losses (typed adjustments)
        return (pursuer,) if step.id == pr.PURSUER_STEP else (pursued,)

    def finish(self, state: FeState, seat: Seat, step: Step) -> list[Violation]:
        if step.id not in (pr.PURSUER_STEP, pr.PURSUED_STEP) or pr.battle(state) is None:
            return []
        if combat_round.waiting_for_dice(state):
            text = "the pursuit battle's dice are not rolled yet: they come with the next packet"
            return [Violation(text, pr.BATTLE_RULE)]
        owed = _owes(state, seat)
        policy = _policy(state, seat)
        if not owed or (policy is not None and policy.allocate == "suggested"):
            return []
        text = f"{points_text(owed)} pursuit damage points to resolve first: send an allocate order"
        return [Violation(text, pr.BATTLE_RULE)]

    def on_done(self, state: FeState, seat: Seat, step: Step, events: list[Event]) -> FeState:
        """A seat whose policy allocates and that was asked (the pursuer could direct
        damage) has its allocation made as it ends the step."""
        if step.id not in (pr.PURSUER_STEP, pr.PURSUED_STEP) or pr.battle(state) is None:
            return state
        if not _owes(state, seat):
            return state
        return _allocate_by_policy(state, seat, step, events) or state

    def automatic(self, state: FeState, step: Step, events: list[Event]) -> FeState:
        if step.id != pr.END_STEP:
            return state
        record = pr.battle(state)
        if record is None or record.pursuit == PURSUIT_FOUGHT or pr.pursuit_log(record) is None:
            return state
        _, pursued = pr.sides(state, record)
        to = base.hex_text(record.retreated[0][1])
        record = msgspec.structs.replace(record, pursuit=PURSUIT_FOUGHT)
        text = (
            f"the {pr.title(record)} is over: {pursued}'s survivors stay in their retreat hex "
            f"{to} ({combat_retreat.MOVE_RULE})"
        )
        data = {"hex": base.hex_text(record.hex), "round": record.rounds + 1, "seat": pursued}
        events.append(Event("pursuit", text, pursued, step.id, data))
        return combat.replace_current(state, record)


AREA = _Pursuit()
