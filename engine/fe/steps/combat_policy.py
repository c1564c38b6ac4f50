"""Standing combat policies: a seat's own part of routine battle rounds, signed in advance.

A round of combat asks each side for a flagship, a battle force, an intensity and EW choices
(secretly), then for its allocation of the damage taken and whether it retreats. By email
each of those is a hand-off. A ``policy`` order (`engine.fe.orders.PolicyOrder`) lets a seat
sign once what it does in every round, and the engine answers for it:

- the secret steps 5-3C, 5-3D, 5-3E, 5-3X2 and 5-4A2 do not ask
  a seat whose policy covers them (`decides`); its choice is worked out when the step's
  other choices are revealed, or at once when no seat is asked (`by_policy`). A policy is
  public, like every order: the opponent reads it before choosing, the price of not being
  asked;
- 5-6A/5-6B: the engine's suggested allocation (`combat_damage.suggested`, legal by
  construction) when the seat's policy says ``allocate: "suggested"``;
- 5-8A: pursue with every ship there, or not (the die waits for the other seat's packet);
- 5-7A1 to 5-7A3: stay, or retreat (to the engine's pick of hex, 302.72) once the policy's
  number of rounds is fought; from F&E 5.6 it does not answer "stay" after `STALLED_ROUNDS`
  rounds in a row in which nothing was lost (`stalled`): the seat is asked;
- from F&E 5.4 (`OPENING_FROM`), a base battle's opening: the attacker's offer of an
  approach battle from round 2 (5-2A2, ``offer``), the defender's answer (5-2A3,
  ``approach``) and the attacker's retreat before the base battle (5-2B1, read from
  ``retreat`` as at 5-7A: it stays until the policy's rounds are fought). Each of them
  asks one seat, a hand-off by email every round of every battle at a base.

A policy only ever answers its own seat's steps: nothing the rules give the other side is
decided by it. Dice are never known earlier because of a policy: when a seat was not asked
at a secret step, its entropy is not among the reveals, so the core arms the round's dice
for the seats' next values instead of reading them at the reveal (`engine.core.game`); when
no seat is asked, the dice wait in ``FeState.queued_rolls`` until the ruleset hands them to
the core with the packet being applied (`take_queued`). While a round's damage waits for
its dice, the allocation steps wait too (`combat_round.waiting_for_dice`).

Choices (C): "auto" flagship is the eligible unit with the best command rating (lowest id
among equals); "auto" force adds the flagship's companions strongest attack first (lowest id
among equals), each kept only if the force stays legal (302.33, with the command points a
flagship chosen by hand spent, 308.9; a policy never spends any), a carrier group added whole
or not at all (515.15); "auto" force forms no carrier group in the first round and keeps the
groups of the previous round after it (the groups stay until pursuit, 515.15), and sends no
fighters forward; a BIR outside the allowed picks is refused when the policy is signed.
"""

from __future__ import annotations

import msgspec

from engine.core.ruleset import Actor, Event, RollRequest, Seat, Violation
from engine.core.text import said
from engine.fe import option_specs as specs
from engine.fe import planets
from engine.fe.battle_model import CombatPolicy, RoundLog, SideRound
from engine.fe.combat import directed, forces, results
from engine.fe.forces import Unit
from engine.fe.model import FeState
from engine.fe.opening import ApproachOrder
from engine.fe.orders import AllocateOrder, PolicyOrder, PursueOrder, RetreatOrder
from engine.fe.sequence import Step
from engine.fe.steps import (
    base,
    combat,
    combat_approach,
    combat_capture,
    combat_damage,
    combat_directed,
    combat_groups,
    combat_retreat,
    combat_round,
    combat_withdrawal,
    force_together,
    forced_choices,
    planet_policy,
    pursuit_die,
    reserves,
)
from engine.fe.steps.planet_policy import planet_alone
from engine.fe.unit_kinds import class_of

POLICY_RULE = specs.POLICY_RULE
ALLOCATION_STEPS = ("5-6A", "5-6B")
RETREAT_STEPS = ("5-7A1", "5-7A2", "5-7A3")
OPENING_FROM = specs.POLICY_OPENING_FROM
"""From this version a policy answers the opening steps of a battle at a base (`OPENING`)
and may say ``offer`` and ``approach``; games of 5.3 and before still ask there."""
OPENING = (combat_approach.OFFER_STEP, combat_approach.ANSWER_STEP, combat.BASE_RETREAT_STEP)
CAPTURE_FROM = specs.POLICY_CAPTURE_FROM
"""From this version a policy may say ``capture`` "never" (`combat_capture.declines`)."""
DIRECT_FROM = specs.POLICY_DIRECT_FROM
"""From this version a policy's ``direct`` "never" answers its side's directed-damage step
(`engine.fe.steps.combat_directed.declines`)."""
PLANET_FROM = planet_policy.PLANET_FROM
"""From this version a policy's ``planet`` answers its seat's retreat option where the enemy
has nothing left but its planet (`planet_policy`)."""


policy_of = combat.policy_of


GROUPS_STEP = combat_round.GROUPS_STEP
"""Carrier and escort groups: an "auto" force forms none, then keeps them (515.15)."""
POLICY_STEPS = combat_round.TYPED_STEPS
JOINED_FROM = forced_choices.JOINED_FROM
"""From this version groups, flagship and force are one choice at 5-3E (`force_together`)."""
STALLED_FROM = "5.6"
STALLED_ROUNDS = 3
"""Rounds in a row without a loss on either side after which a policy no longer answers
"stay" at a retreat option, from F&E 5.6 (`stalled`). A planet without defence units fights
for its owner and takes no damage (508.0), and two ships may be unable to hurt each other: a
battle the rules end only by a retreat, fought by policies that never retreat, went on with
no one asked, each home answering the other's packet by itself, until a seat's entropy
chain ran out and the game stopped for good. A round that changes nothing is common early in
a battle (damage too low to cripple anything), so it takes three; the seat is then asked
each round until something is lost again."""


def _covers(policy: CombatPolicy, step_id: str) -> bool:
    if step_id == GROUPS_STEP:
        return policy.force == "auto"
    if step_id == combat_round.FLAGSHIP_STEP:
        return policy.flagship == "auto"
    if step_id == combat_round.FORCE_STEP:
        return policy.force == "auto"
    if step_id == combat_round.BIR_STEP:
        return policy.bir >= 0
    if step_id == combat_round.EW_STEP:
        return policy.ew == "default"
    return False


def answered_steps(
    policy: CombatPolicy,
    *,
    opening: bool = True,
    capture: bool = True,
    direct: bool = True,
    joined: bool = True,
) -> tuple[str, ...]:
    """The steps of a battle round at which ``policy`` answers its seat's part as a rule, for
    the checklist (`engine.fe.policy_cover`): the board may still leave one to the seat (with
    no legal retreat hex, 302.72, the seat is asked where to go). ``opening``: the game
    plays `OPENING_FROM` or later, where a policy answers a base battle's opening too;
    ``capture``: it plays `CAPTURE_FROM` or later, where ``capture`` answers 5-6X1;
    ``direct``: it plays `DIRECT_FROM` or later, where ``direct`` answers 5-5B and 5-5C;
    ``joined``: it plays `JOINED_FROM` or later, where 5-3C and 5-3D pass and 5-3E takes
    the flagship with the force (`force_together`), so a policy answers it only naming both."""
    steps = [step for step in POLICY_STEPS if _covers(policy, step)]
    if joined:
        folded = force_together.FOLDED_STEPS
        steps = [step for step in steps if step not in folded]
        if policy.flagship != "auto" and combat_round.FORCE_STEP in steps:
            steps.remove(combat_round.FORCE_STEP)
    if capture and policy.capture:
        steps.append(combat_capture.CAPTURE_STEP)
    if direct and policy.direct:
        steps += combat_directed.DIRECTED_STEPS
    if opening and policy.offer:
        steps.append(combat_approach.OFFER_STEP)
    if opening and policy.approach:
        steps.append(combat_approach.ANSWER_STEP)
    if opening and policy.retreat >= 0:
        steps.append(combat.BASE_RETREAT_STEP)
    if policy.allocate == "suggested":
        steps += ALLOCATION_STEPS
    if policy.retreat >= 0:
        steps += RETREAT_STEPS
    if policy.pursue:
        steps.append(combat_retreat.PURSUIT_STEP)
    return tuple(steps)


def _fixed_by_rules(state: FeState, step_id: str) -> bool:
    """A choice the rules make for every side: the BIR of a fighting retreat (302.772)."""
    if step_id != combat_round.BIR_STEP:
        return False
    record = combat.current(state)
    return record is not None and bool(record.fighting_retreat)


def decides(state: FeState, step: Step, seat: Seat) -> bool:
    """Whether ``seat``'s policy (or the rules themselves) make its choice at the secret
    ``step`` of a battle: from 5.8 a choice the board forces is the rules'
    (`engine.fe.steps.forced_choices`)."""
    if step.id == combat_round.BIR_STEP and _fixed_by_rules(state, step.id):
        return True
    if force_together.forced_choice(state, step.id, seat) is not None:
        return True
    if not state.policies or step.id not in POLICY_STEPS:
        return False
    policy = policy_of(state, seat)
    if policy is None or combat.current(state) is None:
        return False
    if step.id == combat_round.FORCE_STEP and force_together.together(state):
        return policy.force == "auto" and policy.flagship == "auto"  # it names both (5.10)
    return _covers(policy, step.id)


# --- signing -------------------------------------------------------------------------------


def describe(policy: CombatPolicy) -> str:
    parts: list[str] = []
    if policy.flagship:
        parts.append(f"flagship {policy.flagship}")
    if policy.force:
        parts.append(f"battle force {policy.force}")
    if policy.bir >= 0:
        parts.append(f"BIR {policy.bir}")
    if policy.ew:
        parts.append(f"EW {policy.ew}")
    if policy.allocate:
        parts.append(f"allocation {policy.allocate}")
    if policy.retreat == 0:
        parts.append("never retreat")
    elif policy.retreat > 0:
        parts.append(f"retreat after round {policy.retreat}")
    if policy.pursue:
        parts.append(f"pursue {policy.pursue}")
    if policy.offer:
        parts.append(f"offer approach battles {policy.offer}")
    if policy.approach:
        parts.append(f"{policy.approach} approach battles")
    if policy.capture:
        parts.append(f"{policy.capture} capture")
    if policy.direct:
        parts.append(f"{policy.direct} direct damage")
    if policy.planet:
        parts.append(f"{policy.planet} planets left alone")
    return ", ".join(parts)


def check(state: FeState, order: PolicyOrder) -> list[Violation]:
    later = (
        (order.offer or order.approach, "offer and approach answers take", OPENING_FROM,
         combat_approach.APPROACH_RULE),
        (order.capture, "capture answer takes", CAPTURE_FROM, combat_capture.CAPTURE_RULE),
        (order.direct, "direct answer takes", DIRECT_FROM, directed.DIRECTED_RULE),
        (order.planet, "planet answer takes", PLANET_FROM, planets.CAPTURE_RULE),
    )  # fmt: skip
    for given, what, version, rule in later:  # fields a later version added
        if given and not state.plays_at_least(version):
            plays = f"this game plays {state.version}" if state.version else "this game is older"
            return [Violation(f"a policy's {what} F&E {version}; {plays}", rule)]
    if 0 <= order.bir < results.BIR_PICK_MIN:
        low, high = results.BIR_PICK_MIN, results.BIR_PICK_MAX
        text = f"a policy's BIR is a pick from {low} to {high} (or -1 to be asked), not {order.bir}"
        return [Violation(text, results.BIR_RULE)]
    return []


def apply(state: FeState, seat: Seat, order: PolicyOrder, events: list[Event]) -> FeState:
    """Replace ``seat``'s policy (all defaults cancel it); public, as the event says."""
    policy = CombatPolicy(**{f: getattr(order, f) for f in CombatPolicy.__struct_fields__})
    said = describe(policy)
    others = tuple((who, p) for who, p in state.policies if who != seat)
    if said:
        entries = tuple(sorted((*others, (seat, policy))))
        text = f"{seat} signs its combat policy: {said} (the engine answers these parts for it)"
    else:
        entries = others
        text = f"{seat} cancels its combat policy: it will be asked every time"
    data = {"policy": msgspec.to_builtins(policy)}
    events.append(Event("policy", text, seat, data=data))
    return msgspec.structs.replace(state, policies=entries)


# --- the choices a policy makes -------------------------------------------------------------


def _side_of(log: RoundLog, seat: Seat) -> SideRound:
    return log.attacker if log.attacker.seat == seat else log.defender


def _attack2(unit: Unit) -> int:
    info = class_of(unit)
    return info.shown(unit.crippled).att2 if info is not None else 0


def auto_flagship(available: list[Unit]) -> str:
    eligible = set(forces.eligible_flagships(available))
    if not eligible:
        return ""
    best = min(
        (u for u in available if u.id in eligible), key=lambda u: (-forces.command_of(u), u.id)
    )
    return best.id


def auto_force(
    state: FeState,
    flagship: str,
    available: list[Unit],
    groups: tuple[forces.CarrierGroup, ...] = (),
    command_points: int = 0,
) -> list[str]:
    if not flagship:
        return []
    counts = reserves.flagship_counts(state)
    group_of = {i: g for g in groups for i in (g.carrier, *g.escorts)}
    own = group_of.get(flagship)
    chosen = list(dict.fromkeys((flagship, *((own.carrier, *own.escorts) if own else ()))))
    for unit in sorted(available, key=lambda u: (-_attack2(u), u.id)):
        if unit.id in chosen:
            continue
        group = group_of.get(unit.id)
        joining = (group.carrier, *group.escorts) if group else (unit.id,)
        adding = tuple(i for i in joining if i not in chosen)
        trial = forces.BattleForce(flagship, (*chosen, *adding))
        problems = forces.force_problems(
            trial,
            available,
            groups=groups,
            flagship_counts=counts,
            command_points=command_points,
            fixed_flagship=flagship,
        )
        if not problems:
            chosen.extend(adding)
    return chosen


def choice(state: FeState, step_id: str, seat: Seat, policy: CombatPolicy | None = None) -> object:
    """``seat``'s choice at the secret step, as its policy (by default the one it signed)
    makes it, in the step's form."""
    policy = policy or policy_of(state, seat)
    record = combat.current(state)
    assert record is not None
    row = combat_round.fixed_bir(record, seat)
    if step_id == combat_round.BIR_STEP and row is not None:
        return row  # a fighting retreat's row (302.772)
    made = force_together.forced_choice(state, step_id, seat)
    if made is not None:
        return made  # the only choice the board leaves (from 5.8)
    assert policy is not None
    available = combat_round.available(state, seat, record)
    if step_id == combat_round.FORCE_STEP and force_together.together(state):
        return _force_together(state, seat, available)
    if step_id == GROUPS_STEP:
        kept = combat_round.kept_groups(state, seat, record)
        return combat_groups.as_choice(kept or ())
    if step_id == combat_round.FLAGSHIP_STEP:
        fixed = combat_withdrawal.fixed_flagship(record)
        if fixed and seat == combat_approach.defender(state):
            return fixed  # named for the force that stayed an opposed withdrawal (302.133)
        return auto_flagship(available)
    if step_id == combat_round.FORCE_STEP:
        side = _side_of(combat_round.current_round(state, record), seat)
        groups = tuple(combat_groups.of_record(side.groups))
        return auto_force(state, side.flagship, available, groups, side.command_points)
    if step_id == combat_round.BIR_STEP:
        return policy.bir
    return "default"


def _force_together(state: FeState, seat: Seat, available: list[Unit]) -> object:
    """5-3E of a 5.10 game: the groups kept (or none), the flagship and the force the policy
    picks, as one choice (`force_together`)."""
    record = combat.current(state)
    assert record is not None
    kept = combat_round.kept_groups(state, seat, record) or ()
    fixed = combat_withdrawal.fixed_flagship(record)
    if fixed and seat == combat_approach.defender(state):
        flagship = fixed  # named for the force that stayed an opposed withdrawal (302.133)
    else:
        flagship = auto_flagship(available)
    groups = tuple(combat_groups.of_record(kept))
    force = auto_force(state, flagship, available, groups)
    return force_together.join(combat_groups.as_choice(kept), flagship, force)


def choices(state: FeState, step: Step, seats: tuple[Seat, ...]) -> dict[Seat, object]:
    """The choices the policies of ``seats`` (each covered) make at ``step``."""
    return {seat: choice(state, step.id, seat) for seat in seats if decides(state, step, seat)}


# --- answering steps -------------------------------------------------------------------------


def take_queued(state: FeState) -> tuple[FeState, list[RollRequest]]:
    if not state.queued_rolls:
        return state, []
    return msgspec.structs.replace(state, queued_rolls=()), list(state.queued_rolls)


def by_policy(state: FeState, step: Step, events: list[Event]) -> FeState | None:
    """Answer ``step`` from the signed policies, or None to stop there for the seat."""
    if combat.current(state) is None:
        return None
    if step.id in POLICY_STEPS and (
        state.policies
        or _fixed_by_rules(state, step.id)
        or state.plays_at_least(forced_choices.FORCED_FROM)
    ):
        return _secret(state, step, events)
    if step.id in RETREAT_STEPS and (taken := _planet(state, step, events)) is not None:
        return taken
    if step.id in RETREAT_STEPS and (why := stalled(state)):
        # Neither a policy nor a standing order stays here (`STALLED_ROUNDS`): said once,
        # as the sequence reaches the step.
        seat = _owner(state, step)
        refused = planet_policy.refusal(state, step, seat)
        why += f" ({refused})" if refused else ""
        text = f"{step.id} is left to {seat}: {why} ({combat.LOOP_RULE})"
        events.append(Event("battle", text, seat, step.id, {"stalled": True}))
        return None
    if not state.policies:
        return None
    if step.id in ALLOCATION_STEPS:
        return _allocate(state, step, events)
    if step.id in RETREAT_STEPS:
        return _retreat(state, step, events)
    if step.id == combat_retreat.PURSUIT_STEP:
        return _pursue(state, step, events)
    if step.id in OPENING and state.plays_at_least(OPENING_FROM):
        return _opening(state, step, events)
    return None


def _planet(state: FeState, step: Step, events: list[Event]) -> FeState | None:
    """A planet left alone captured or devastated as the seat's policy says, from F&E 5.11
    (`planet_policy`); before a stalled battle asks the seat."""
    if not state.policies:
        return None
    return planet_policy.take(state, step, _owner(state, step), events)


def _secret(state: FeState, step: Step, events: list[Event]) -> FeState | None:
    if not all(decides(state, step, seat) for seat in state.seats):
        return None
    made = choices(state, step, state.seats)
    shown = "; ".join(f"{seat}: {said(value)}" for seat, value in made.items())
    who = (
        f"fixed by the rules (a fighting retreat, {results.FIGHTING_RETREAT_RULE})"
        if _fixed_by_rules(state, step.id)
        else made_by(state, step, tuple(made))
    )
    events.append(
        Event(
            "secret",
            f"{step.id} ({step.title}) {who}: {shown}",
            step=step.id,
            data={"choices": msgspec.to_builtins(made), "policy": True},
        )
    )
    state, rolls = force_together.apply_choices(state, step.id, made, events)
    if not rolls:
        return state
    later = tuple(msgspec.structs.replace(r, at_reveal=False) for r in rolls)
    state = combat_round.defer_dice(state)
    return msgspec.structs.replace(state, queued_rolls=(*state.queued_rolls, *later))


def made_by(state: FeState, step: Step, seats: tuple[Seat, ...]) -> str:
    """Who made the choices of ``seats`` the engine made at ``step``, for its event: the
    signed policies, the rules (the only choice the board left: `forced_choices`), or
    both."""
    forced = [
        seat for seat in seats if force_together.forced_choice(state, step.id, seat) is not None
    ]
    if not forced:
        return "chosen by the signed policies"
    only = f"the only choice the board leaves ({forced_choices.FORCED_RULE})"
    if len(forced) == len(seats):
        return f"made by the rules, {only}"
    return f"chosen by the signed policies and the rules ({', '.join(forced)}: {only})"


def _owner(state: FeState, step: Step) -> Seat:
    phasing = base.phasing(state)
    if step.actor == Actor.PHASING:
        return phasing
    return next(s for s in state.seats if s != phasing)


def _allocate(state: FeState, step: Step, events: list[Event]) -> FeState | None:
    seat = _owner(state, step)
    policy = policy_of(state, seat)
    if policy is None or policy.allocate != "suggested" or combat_round.waiting_for_dice(state):
        return None
    order = combat_damage.suggested(state, seat)
    if order is None:
        return None
    if combat_damage.check(state, seat, order):
        return None  # cannot happen (suggested is legal); the seat is asked instead
    return combat_damage.apply(state, seat, step, AllocateOrder(losses=order.losses), events)


def _retreat(state: FeState, step: Step, events: list[Event]) -> FeState | None:
    """Stay, or retreat once the policy's rounds are fought: at 5-7A after the round, or
    before the base battle of the round after them (5-2B1)."""
    seat = _owner(state, step)
    policy = policy_of(state, seat)
    record = combat.current(state)
    if policy is None or policy.retreat < 0 or record is None:
        return None
    fought = record.rounds + (0 if step.id == combat.BASE_RETREAT_STEP else 1)
    if policy.retreat == 0 or fought < policy.retreat or seat in record.retreats:
        return state
    if combat_retreat.AREA.check(state, seat, step, RetreatOrder()):
        return None  # no legal retreat hex (302.72): the seat is asked
    return combat_retreat.AREA.apply(state, seat, step, RetreatOrder(), events)


def stalled(state: FeState) -> str:
    """Why the battle being fought could go on for ever with no one deciding, in a game of
    `STALLED_FROM` or later ("" when it could not): the defender has nothing left in the hex
    but its planet, which takes no damage (508.0), or `STALLED_ROUNDS` rounds in a row, this
    one the last, cost neither side anything. A policy or a standing order then leaves
    "stay" at a retreat option to its seat (`_retreat`, `engine.fe.flow.FeTurns.asks_seat`)."""
    record = combat.current(state)
    if record is None or not record.log or not state.plays_at_least(STALLED_FROM):
        return ""
    where = base.hex_text(record.hex)
    defender = record.log[-1].defender.seat
    if planet_alone(state):
        signed = " (a combat policy's planet does it by itself)"
        return (
            f"{defender} has nothing left in {where} but its planet, which takes no damage: "
            f"capture or devastate it with an adjustment ({planets.CAPTURE_RULE}), retreat, or "
            "stay for another round" + (signed if state.plays_at_least(PLANET_FROM) else "")
        )
    last = record.log[-STALLED_ROUNDS:]
    if len(last) < STALLED_ROUNDS or any(
        side.losses or side.directed for log in last for side in (log.attacker, log.defender)
    ):
        return ""
    return (
        f"{STALLED_ROUNDS} rounds in a row in {where} without a loss on either side: retreat, "
        "or stay for another round"
    )


def _opening(state: FeState, step: Step, events: list[Event]) -> FeState | None:
    """A base battle's opening step (`OPENING`) as the owner's policy answers it: an offer
    made or not (5-2A2), an offer accepted or refused (5-2A3), the retreat before the base
    battle (5-2B1, `_retreat`); None (the seat is asked) where the policy is silent or its
    answer is not legal."""
    if step.id == combat.BASE_RETREAT_STEP:
        return _retreat(state, step, events)
    seat = _owner(state, step)
    policy = policy_of(state, seat)
    if step.id == combat_approach.OFFER_STEP:
        offer = policy.offer if policy is not None else ""
        if offer == "never":
            return state
        order = ApproachOrder(accept=True) if offer == "always" else None
    else:
        answer = policy.approach if policy is not None else ""
        order = ApproachOrder(accept=answer == "accept") if answer else None
    if order is None:
        return None
    if combat_approach.check_approach(state, seat, step, order):
        return None  # cannot happen when the step is asked; the seat is asked instead
    return combat_approach.apply_approach(state, seat, step, order, events)


def _pursue(state: FeState, step: Step, events: list[Event]) -> FeState | None:
    """5-8A: the side that stayed pursues with every ship it has there, or lets the enemy go,
    as its policy says; the pursuit die waits for the other seat's next packet (307.0)."""
    seat, _ = pursuit_die.pursuer(state)
    policy = policy_of(state, seat) if seat else None
    record = combat.current(state)
    if policy is None or not policy.pursue or record is None:
        return None
    if policy.pursue == "never":
        return state
    ships = [u.id for u in pursuit_die.pursuit_ships(state, seat, record.hex)]
    order = PursueOrder(units=ships)
    if pursuit_die.check_pursue(state, seat, order):
        return None  # the seat is asked
    roll = pursuit_die.pursuit_roll(state, seat, step)
    state = pursuit_die.apply_pursue(state, seat, step, order, events)
    return msgspec.structs.replace(state, queued_rolls=(*state.queued_rolls, roll))
