"""A battle round's secret choices and dice, played by the engine (302.3, 304, 308.5, 302.4).

During a battle (`engine.fe.steps.combat`) five secret steps take typed choices instead of
words; both sides commit before either is revealed, and the protocol core checks each reveal
against its commitment:

- 5-3C, the carrier groups (515.15): ``[{"carrier": "KLI-0010", "escorts": ["KLI-0011"]}]``,
  or ``[]`` for none, kept from round to round (`engine.fe.steps.combat_groups`);
- 5-3D, the flagship (302.32): a unit id (``"KLI-0001"``), one of the side's units in the
  battle hex rated among its three best (`engine.fe.combat.forces.eligible_flagships`); in
  round 1, ``{"flagship": "KLI-0001", "command_points": 1}`` also spends command points of
  the flagship's empire, each raising the force's command limit by one (308.9,
  `engine.fe.steps.command_points`), taken from its holdings when revealed;
- 5-3E, the battle force (302.3): a list of unit ids, the flagship included, within its
  command rating (302.33; the ``flagship-counts`` option), one scout free, no carrier group
  split (515.15); or ``{"units": [...], "forward": {"KLI-0012": 6}}`` with the fighters and
  PFs units outside the force send forward, its support echelon (302.563, at most three ship
  equivalents, 302.332A), which count in its combat potential;
- 5-3X2, the battle intensity rating the side picks, a whole number 1 to 4 (304.1); at the
  reveal the engine reads the variable BIR die from the reveal packets (304.3);
- 5-4A2, the EW choices of its variable units and bases: ``{"KLI-0004": 2}``, or ``"default"``
  (or ``{}``) for the choices that keep the most attack (308.51). At the reveal the engine
  reads each side's combat die from the reveal packets and works out the damage each side
  scores (302.4): its battle force's combat potential (`engine.fe.combat.potential`) x the
  combat table's per-mille for the round's BIR total, its die and its EW shift, rounded by
  the ``damage-rounding`` option.

No seat learns a die of the round before its own choices for the round are signed: the dice
come from the entropy of the packets that reveal the last choices (`engine.core.rolls`).
Everything lands on the round's log (``BattleRecord.log``), which ``show --json`` prints.

Inferred (I): a side with nothing able to command in the hex (a planet or PDUs alone) names
no flagship (``""``) and an empty force, and scores nothing: planets' own combat factors are
not counted yet. Not yet the engine's (left to the players, as typed adjustments): drone
bombardment, losses of the fighters sent forward. Directed damage is
`engine.fe.steps.combat_directed`'s (5-5); the damage is allocated at 5-6
(`engine.fe.steps.combat_damage`).
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from engine.core.ruleset import Event, RollRequest, Seat, Violation
from engine.fe.battle_model import BattleRecord, RoundLog, SideRound
from engine.fe.combat import ew as ew_rules
from engine.fe.combat import forces, potential, results, small_scale
from engine.fe.forces import Unit
from engine.fe.model import FeState
from engine.fe.steps import (
    base,
    combat,
    combat_approach,
    combat_groups,
    combat_withdrawal,
    command_points,
    reserves,
)

GROUPS_STEP = combat_groups.GROUPS_STEP
FLAGSHIP_STEP = "5-3D"
FORCE_STEP = "5-3E"
BIR_STEP = "5-3X2"
EW_STEP = "5-4A2"
TYPED_STEPS = (GROUPS_STEP, FLAGSHIP_STEP, FORCE_STEP, BIR_STEP, EW_STEP)
VBIR_PURPOSE = "variable BIR"
DAMAGE_PURPOSE = "combat die"
MAX_UNITS = 200


def _available(state: FeState, seat: Seat, record: BattleRecord) -> list[Unit]:
    """The seat's units in the battle hex, in board order (bases left out of an approach
    battle, 302.22)."""
    mine = set(base.empires_of(state, seat))
    return combat_approach.fighting(
        record, [u for u in state.board.at(record.hex) if u.empire in mine]
    )


def fixed_bir(record: BattleRecord, seat: Seat) -> int | None:
    """The BIR row ``seat`` rolls on when the rules fix it (a fighting retreat, 302.772: 0
    for the retreating side, 10 for the blocking one), else None (the picks and the variable
    die decide)."""
    if not record.fighting_retreat:
        return None
    return results.fighting_retreat_bir(retreating=seat == record.fighting_retreat)


def available(state: FeState, seat: Seat, record: BattleRecord) -> list[Unit]:
    """The units ``seat`` may fight with in the battle being fought (for policies)."""
    return _available(state, seat, record)


def _enemies(state: FeState, seat: Seat, record: BattleRecord) -> tuple[str, ...]:
    mine = set(base.empires_of(state, seat))
    return tuple(sorted({u.empire for u in state.board.at(record.hex) if u.empire not in mine}))


def current_round(state: FeState, record: BattleRecord) -> RoundLog:
    """The log of the round being fought (started empty by its first typed choice)."""
    number = record.rounds + 1
    if record.log and record.log[-1].round == number:
        return record.log[-1]
    attacker = base.phasing(state)
    defender = next(s for s in state.seats if s != attacker)
    return RoundLog(number, SideRound(attacker), SideRound(defender))


def _with_round(state: FeState, record: BattleRecord, log: RoundLog) -> FeState:
    kept = record.log[:-1] if record.log and record.log[-1].round == log.round else record.log
    return combat.replace_current(state, msgspec.structs.replace(record, log=(*kept, log)))


def _side_of(log: RoundLog, seat: Seat) -> SideRound:
    return log.attacker if log.attacker.seat == seat else log.defender


def _set_side(log: RoundLog, side: SideRound) -> RoundLog:
    if log.attacker.seat == side.seat:
        return msgspec.structs.replace(log, attacker=side)
    return msgspec.structs.replace(log, defender=side)


# --- checking a choice -------------------------------------------------------------------------


def secret_problems(
    state: FeState, step_id: str, seat: Seat, choice: object
) -> list[Violation] | None:
    """Why ``choice`` is not ``seat``'s legal secret choice at ``step_id`` during a battle;
    None where the step takes free words (no battle is being fought, or another step)."""
    record = combat.current(state)
    if record is None or step_id not in TYPED_STEPS:
        return None
    log = current_round(state, record)
    side = _side_of(log, seat)
    available = _available(state, seat, record)
    if step_id == GROUPS_STEP:
        kept = kept_groups(state, seat, record)
        return combat_groups.groups_problems(choice, available, kept)
    if step_id == FLAGSHIP_STEP:
        return _flagship_choice_problems(state, seat, record, log, choice, available)
    if step_id == FORCE_STEP:
        return _force_problems(state, choice, side, available)
    if step_id == BIR_STEP:
        return _bir_problems(choice)
    return _ew_problems(state, seat, record, choice, side, available)


def _flagship_choice_problems(
    state: FeState,
    seat: Seat,
    record: BattleRecord,
    log: RoundLog,
    choice: object,
    available: list[Unit],
) -> list[Violation]:
    """5-3D: the flagship (302.32, 302.133) and the command points spent with it (308.9)."""
    chosen = command_points.parse_flagship(choice)
    if chosen is None:
        offered = ", ".join(forces.eligible_flagships(available)) or 'none: choose ""'
        text = (
            f"the secret choice of {FLAGSHIP_STEP} is your flagship's unit id: one of "
            f'{offered}; or {{"flagship": ID, "command_points": N}} to spend command points'
        )
        return [Violation(text, forces.FLAGSHIP_RULE)]
    fixed = combat_withdrawal.fixed_flagship(record)
    if fixed and seat == combat_approach.defender(state) and chosen.flagship != fixed:
        text = f"{fixed} was named flagship of the force that stayed: it serves in round 1"
        return [Violation(text, forces.FIXED_FLAGSHIP_RULE)]
    problems = _flagship_problems(chosen.flagship, available)
    empire = _empire_of(chosen.flagship, available)
    return problems + command_points.spend_problems(state, chosen, log.round, empire)


def _empire_of(unit_id: str, available: list[Unit]) -> str:
    return next((u.empire for u in available if u.id == unit_id), "")


def _flagship_problems(choice: str, available: list[Unit]) -> list[Violation]:
    eligible = forces.eligible_flagships(available)
    if not eligible and choice == "":
        return []  # nothing here can command (a planet or PDUs alone): no flagship, no force
    offered = ", ".join(eligible) or 'none: choose ""'
    if choice not in eligible:
        text = f"{choice[:40]} may not be flagship here: the eligible units are {offered}"
        return [Violation(text, forces.FLAGSHIP_RULE)]
    return []


def eligible_flagships(state: FeState, seat: Seat) -> tuple[str, ...]:
    """The flagships ``seat`` may choose in the battle being fought (for menus)."""
    record = combat.current(state)
    return forces.eligible_flagships(_available(state, seat, record)) if record else ()


def spendable_points(state: FeState, seat: Seat) -> int:
    """The most command points ``seat`` may spend at 5-3D now (for menus): in round 1, the
    holdings of its best-provided empire in the battle (308.9); else 0."""
    record = combat.current(state)
    if record is None or current_round(state, record).round != 1:
        return 0
    empires = sorted({u.empire for u in _available(state, seat, record)})
    return max((command_points.held(state, e) for e in empires), default=0)


def units_here(state: FeState, seat: Seat) -> tuple[str, ...]:
    """``seat``'s units in the battle being fought (for menus)."""
    record = combat.current(state)
    return tuple(u.id for u in _available(state, seat, record)) if record else ()


def kept_groups(state: FeState, seat: Seat, record: BattleRecord) -> combat_groups.Groups | None:
    """The carrier groups ``seat`` keeps this round (None in the first: it forms them)."""
    here = {u.id for u in _available(state, seat, record)}
    return combat_groups.kept_groups(record, seat, current_round(state, record).round, here)


def side_now(state: FeState, seat: Seat) -> SideRound | None:
    """``seat``'s part of the round being fought (for menus and policies)."""
    record = combat.current(state)
    return _side_of(current_round(state, record), seat) if record else None


def _force_problems(
    state: FeState, choice: object, side: SideRound, available: list[Unit]
) -> list[Violation]:
    record = combat.current(state)
    lost = combat.fighters_lost(state, record) if record is not None else {}
    chosen = combat_groups.parse_force(choice, available, MAX_UNITS, lost)
    if chosen is None:
        return [Violation(combat_groups.force_shape_text(FORCE_STEP), forces.FORCE_RULE)]
    if not side.flagship:
        if chosen.units or chosen.forward:
            text = f"no flagship was chosen at {FLAGSHIP_STEP}: the battle force is empty, []"
            return [Violation(text, forces.FLAGSHIP_RULE)]
        return []
    if not chosen.units:
        return [
            Violation(
                "the battle force has no units: name the flagship at least", forces.FORCE_RULE
            )
        ]
    force = forces.BattleForce(side.flagship, chosen.units, chosen.forward)
    return forces.force_problems(
        force,
        available,
        lost_fighters2=lost,
        groups=combat_groups.of_record(side.groups),
        flagship_counts=reserves.flagship_counts(state),
        command_points=side.command_points,
        fixed_flagship=side.flagship,
    )


def _bir_problems(choice: object) -> list[Violation]:
    if not isinstance(choice, int) or isinstance(choice, bool):
        low, high = results.BIR_PICK_MIN, results.BIR_PICK_MAX
        text = (
            f"the secret choice of {BIR_STEP} is the BIR you pick: a whole number {low} to {high}"
        )
        return [Violation(text, results.BIR_RULE)]
    problem = results.check_pick(choice)
    return [problem] if problem else []


def _ew_choices(choice: object) -> dict[str, int] | None:
    if choice in ("default", {}):
        return {}
    if not isinstance(choice, dict):
        return None
    picked = choice
    if len(picked) > MAX_UNITS:
        return None
    if not all(
        isinstance(k, str) and isinstance(v, int) and 0 <= v <= 99 for k, v in picked.items()
    ):
        return None
    return dict(picked)


def _ew_problems(
    state: FeState,
    seat: Seat,
    record: BattleRecord,
    choice: object,
    side: SideRound,
    available: list[Unit],
) -> list[Violation]:
    chosen = _ew_choices(choice)
    if chosen is None:
        text = (
            f'the secret choice of {EW_STEP} is {{"UNIT-ID": EW, ...}} for your variable units '
            'and bases, or "default"'
        )
        return [Violation(text, ew_rules.EW_RULE)]
    got = _potential(state, seat, record, side, available, chosen)
    return [got] if isinstance(got, Violation) else []


def _potential(
    state: FeState,
    seat: Seat,
    record: BattleRecord,
    side: SideRound,
    available: list[Unit],
    chosen: Mapping[str, int],
) -> potential.SidePotential | Violation:
    by_id = {u.id: u for u in available}
    members = [by_id[i] for i in side.force if i in by_id]
    order = ew_rules.ew_options(dict(state.options)).order
    fighters2, pfs = combat_groups.forward_totals(side, set(by_id))
    return potential.side_potential(
        members,
        ew_choices=chosen,
        lost_fighters2=potential.lost_within(members, combat.fighters_lost(state, record)),
        enemies=_enemies(state, seat, record),
        order=order,
        forward_fighters2=fighters2,
        forward_pfs=pfs,
    )


# --- applying the revealed choices -------------------------------------------------------------


def apply_choices(
    state: FeState, step_id: str, choices: Mapping[Seat, object], events: list[Event]
) -> tuple[FeState, list[RollRequest]]:
    """Record both sides' revealed choices on the round's log; at 5-3X2 and 5-4A2 ask for the
    round's dice, read at once from the reveal packets."""
    record = combat.current(state)
    if record is None or step_id not in TYPED_STEPS:
        return state, []
    log = current_round(state, record)
    where = base.hex_text(record.hex)
    for seat, choice in choices.items():
        side = _side_of(log, seat)
        if step_id == GROUPS_STEP:
            groups = combat_groups.parse_groups(choice) or []
            side = msgspec.structs.replace(side, groups=combat_groups.as_record(groups))
        elif step_id == FLAGSHIP_STEP:
            named = command_points.parse_flagship(choice) or command_points.FlagshipChoice("")
            side = msgspec.structs.replace(
                side, flagship=named.flagship, command_points=named.points
            )
            empire = _empire_of(named.flagship, _available(state, seat, record))
            at = f"{where} round {log.round}"
            state = command_points.spend(state, empire, named.points, at, seat, step_id, events)
        elif step_id == FORCE_STEP:
            chosen = combat_groups.parse_force(
                choice,
                _available(state, seat, record),
                MAX_UNITS,
                combat.fighters_lost(state, record),
            )
            if chosen is not None:
                side = msgspec.structs.replace(side, force=chosen.units)
                side = combat_groups.with_forward(side, chosen.forward)
        elif step_id == BIR_STEP:
            side = msgspec.structs.replace(side, bir=int(str(choice)))
        elif step_id == EW_STEP:
            picked = _ew_choices(choice) or {}
            side = msgspec.structs.replace(side, ew_choices=tuple(sorted(picked.items())))
        log = _set_side(log, side)
    state = _with_round(state, record, log)
    rounds = f"{where} round {log.round}"
    if step_id == BIR_STEP and record.fighting_retreat:
        log = msgspec.structs.replace(log, bir=0)  # rows fixed per side: no variable die
        state = _with_round(state, record, log)
        text = (
            f"{rounds}: a fighting retreat: {record.fighting_retreat} rolls on BIR "
            f"{results.RETREATING_BIR}, its enemy on {results.BLOCKING_BIR} "
            f"({results.FIGHTING_RETREAT_RULE})"
        )
        events.append(Event("intensity", text, "", step_id, {"hex": where, "round": log.round}))
        return state, []
    if step_id == BIR_STEP:
        text = (
            f"{rounds}: {log.attacker.seat} picks BIR {log.attacker.bir}, {log.defender.seat} "
            f"{log.defender.bir} ({results.BIR_RULE})"
        )
        events.append(Event("intensity", text, "", step_id, {"hex": where, "round": log.round}))
        return state, [RollRequest(1, 6, f"{VBIR_PURPOSE}, {rounds}", step_id, at_reveal=True)]
    if step_id == EW_STEP:
        count = small_scale.DICE if record.small_scale else 1  # 310.0: two dice
        return state, [
            RollRequest(count, 6, f"{DAMAGE_PURPOSE}, {rounds}, {seat}", step_id, at_reveal=True)
            for seat in (log.attacker.seat, log.defender.seat)
        ]
    return state, []


def waiting_for_dice(state: FeState) -> bool:
    """Whether the round being fought still waits for dice armed for the next packets (a
    policy chose for a seat, so they could not be read at a reveal)."""
    record = combat.current(state)
    if record is None or not record.log:
        return False
    log = record.log[-1]
    if log.round != record.rounds + 1 or not log.deferred:
        return False
    return log.bir < 0 or log.attacker.damage < 0 or log.defender.damage < 0


DICE_IN_ORDER_FROM = "5.6"
"""`engine.fe.checklist.FeRuleset.reveal_dice_in_order_from`: from this version the core
rolls a round's waiting dice in the order asked, the variable BIR die first."""

WAITING_FOR_DICE = "the round's damage dice are not rolled yet: they come with the next packet"


def dice_wait_text(state: FeState) -> str:
    """Why a step waits for the round's dice (`waiting_for_dice`). In a game begun before
    `DICE_IN_ORDER_FROM`, a round whose BIR a policy chose for one side only had its combat
    dice rolled before the BIR die, scoring nothing: its BIR total is then known while the
    damage is not, and nothing will roll them again. Such a game is told how to fight the
    round again (the way `tests/engine/fe/steps/test_policy_bir_dice.py` plays): when every
    side's BIR is chosen by policy, the dice are asked in order."""
    record = combat.current(state)
    if state.plays_at_least(DICE_IN_ORDER_FROM) or record is None or not record.log:
        return WAITING_FOR_DICE
    log = record.log[-1]
    if log.bir < 0 or (log.attacker.damage >= 0 and log.defender.damage >= 0):
        return WAITING_FOR_DICE
    return (
        f"{WAITING_FOR_DICE}; if the other side's packet came and did not roll them, they were "
        f"lost (hexpost before F&E {DICE_IN_ORDER_FROM} rolled them before the variable BIR "
        "die when a signed policy chose one side's BIR): fight the round again with a policy "
        f"that picks your BIR and a back to {BIR_STEP}, in one packet"
    )


def defer_dice(state: FeState) -> FeState:
    """Mark the round being fought as waiting for its dice (`waiting_for_dice`)."""
    record = combat.current(state)
    if record is None or not record.log:
        return state
    log = msgspec.structs.replace(record.log[-1], deferred=True)
    return _with_round(state, record, log)


# --- the dice --------------------------------------------------------------------------------


def apply_die(
    state: FeState, request: RollRequest, dice: tuple[int, ...], events: list[Event]
) -> FeState:
    """The round's dice: the variable BIR die sets the total both sides use (304.3); a side's
    combat die sets the damage it scores (302.4)."""
    record = combat.current(state)
    if record is None or not record.log or len(dice) != 1:
        return state
    log = record.log[-1]
    where = base.hex_text(record.hex)
    rounds = f"{where} round {log.round}"
    if request.step == BIR_STEP and request.purpose.startswith(VBIR_PURPOSE):
        found = results.intensity(log.attacker.bir, log.defender.bir, dice[0])
        log = msgspec.structs.replace(log, vbir_die=found.vbir_die, bir=found.total)
        text = (
            f"{rounds}: BIR {log.attacker.bir} + {log.defender.bir}, variable die "
            f"{found.vbir_die} ({found.vbir:+d}): total {found.total} ({results.VBIR_RULE})"
        )
        data = {"hex": where, "round": log.round, "bir": found.total}
        events.append(Event("intensity", text, "", request.step, data))
        return _with_round(state, record, log)
    if request.step == EW_STEP and request.purpose.startswith(DAMAGE_PURPOSE):
        seat = request.purpose.rsplit(", ", 1)[-1]
        if seat not in (log.attacker.seat, log.defender.seat) or log.bir < 0:
            return state
        return _with_round(state, record, _damage(state, record, log, seat, dice[0], events))
    return state


def _damage(
    state: FeState, record: BattleRecord, log: RoundLog, seat: Seat, die: int, events: list[Event]
) -> RoundLog:
    own = _side_of(log, seat)
    other = log.defender if own is log.attacker else log.attacker
    mine = _potential(
        state, seat, record, own, _available(state, seat, record), dict(own.ew_choices)
    )
    theirs = _potential(
        state,
        other.seat,
        record,
        other,
        _available(state, other.seat, record),
        dict(other.ew_choices),
    )
    if isinstance(mine, Violation) or isinstance(theirs, Violation):
        return log  # the choices were checked as they were revealed: the board changed since
    options = dict(state.options)
    shift = ew_rules.ew_shift(mine.ew, theirs.ew, most=ew_rules.ew_options(options).shift_max)
    rounding = potential.rounding_option(options)
    fixed = fixed_bir(record, seat)
    row = log.bir if fixed is None else fixed
    result = potential.damage(
        mine.total2, row, die, shift, rounding=rounding, vbir_die=log.vbir_die
    )
    side = msgspec.structs.replace(
        own,
        potential2=mine.total2,
        ew=mine.ew,
        shift=shift,
        die=die,
        permille=result.permille,
        damage=result.damage,
    )
    where = base.hex_text(record.hex)
    text = (
        f"{where} round {log.round}, {seat}: {potential.damage_text(result)} ({results.CRT_RULE})"
    )
    data = {"hex": where, "round": log.round, "seat": seat, "damage": result.damage}
    events.append(Event("damage", text, seat, EW_STEP, data))
    return _set_side(log, side)
