"""The pursuit battle's round (307.3, 307.4): its sides, the secret set-up of 5-8D and its dice.

The steps, the policies and the readings are `engine.fe.steps.combat_pursuit`'s; this module
holds what the round itself is made of: who pursues and who is pursued, the units each may
fight with (the pursue order's ships; the ships that retreated, ``BattleRecord.fled``), the
set-up each side commits at 5-8D (checked as the core checks a reveal), the round's log (one
more `RoundLog` of the battle, marked ``pursuit``) and its dice (the variable BIR die, each
side's combat die), read at the reveal or armed with the pursuit die.
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from engine.core.ruleset import Event, OptionValue, RollRequest, Seat, Violation
from engine.fe import option_specs as specs
from engine.fe.battle_model import PURSUIT_FOUGHT, BattleRecord, RoundLog, SideRound
from engine.fe.combat import ew as ew_rules
from engine.fe.combat import forces, potential, results
from engine.fe.forces import Unit
from engine.fe.model import FeState
from engine.fe.steps import (
    base,
    combat,
    combat_policy,
    combat_round,
    pursuit_die,
    reserves,
)
from engine.fe.unit_kinds import is_ship

SETUP_STEP = "5-8D"
PURSUER_STEP = "5-8E"
PURSUED_STEP = "5-8F"
SLOW_STEP = "5-8G"
END_STEP = "5-8J"
SETUP_RULE = "307.3"
BATTLE_RULE = "307.4"
SLOW_RULE = "302.742B"
VBIR_PURPOSE = "variable BIR"
DAMAGE_PURPOSE = "combat die"
MAX_UNITS = combat_round.MAX_UNITS

RETURN_FIRE = specs.RETURN_FIRE
DIRECTED_COST = specs.DIRECTED_COST
NORMAL, DOUBLE = specs.NORMAL, specs.DOUBLE
OPTIONS = specs.PURSUIT_OPTIONS
"""The readings this module leaves to the players (see the module notes), declared in
`engine.fe.option_specs`."""


def _option(state: FeState, key: str) -> OptionValue:
    chosen = state.option(key)
    return next(o.default for o in OPTIONS if o.id == key) if chosen is None else chosen


def return_fire(state: FeState) -> bool:
    return _option(state, RETURN_FIRE) is not False


def doubled_cost(state: FeState) -> bool:
    return _option(state, DIRECTED_COST) == DOUBLE


# --- the battle and its sides -------------------------------------------------------------------


def battle(state: FeState) -> BattleRecord | None:
    """The battle whose pursuit succeeded (or is fought), None when there is no pursuit
    battle now."""
    record = combat.current(state)
    if record is None or not record.retreated:
        return None
    if record.pursuit not in (pursuit_die.SUCCEEDED, PURSUIT_FOUGHT):
        return None
    return record


def sides(state: FeState, record: BattleRecord) -> tuple[Seat, Seat]:
    """The pursuer and the pursued."""
    pursued = record.retreated[0][0]
    return next(s for s in state.seats if s != pursued), pursued


def pursuing_units(state: FeState, record: BattleRecord) -> list[Unit]:
    return list(base.units_by_id(state, record.pursuers).values())


def fled_units(state: FeState, record: BattleRecord, seat: Seat) -> list[Unit]:
    """The pursued's ships that retreated and are still on the board (auxiliaries left out:
    slow units, 549.32)."""
    mine = set(base.empires_of(state, seat))
    found = base.units_by_id(state, record.fled).values()
    return [u for u in found if u.empire in mine and is_ship(u)]


def slow_units(state: FeState, record: BattleRecord) -> list[Unit]:
    """Units that retreated and are no ships (auxiliaries): the slow-unit battle's."""
    return [u for u in base.units_by_id(state, record.fled).values() if not is_ship(u)]


def available(state: FeState, record: BattleRecord, seat: Seat) -> list[Unit]:
    pursuer, _ = sides(state, record)
    return pursuing_units(state, record) if seat == pursuer else fled_units(state, record, seat)


def pursuit_log(record: BattleRecord) -> RoundLog | None:
    if record.log and record.log[-1].pursuit:
        return record.log[-1]
    return None


def side_of(log: RoundLog, seat: Seat) -> SideRound:
    return log.attacker if log.attacker.seat == seat else log.defender


def set_side(log: RoundLog, side: SideRound) -> RoundLog:
    if log.attacker.seat == side.seat:
        return msgspec.structs.replace(log, attacker=side)
    return msgspec.structs.replace(log, defender=side)


def with_log(state: FeState, record: BattleRecord, log: RoundLog) -> FeState:
    kept = record.log[:-1] if pursuit_log(record) else record.log
    return combat.replace_current(state, msgspec.structs.replace(record, log=(*kept, log)))


def title(record: BattleRecord) -> str:
    return f"{base.hex_text(record.hex)} pursuit battle"


# --- the secret set-up (5-8D) ------------------------------------------------------------------


class Pick(msgspec.Struct, frozen=True):
    """A side's set-up of the pursuit battle: its BIR pick, and for the pursued its flagship
    and force ("" and () for the engine's picks); EW choices (308.51)."""

    bir: int
    flagship: str = ""
    force: tuple[str, ...] = ()
    ew: tuple[tuple[str, int], ...] = ()


SHAPE = (
    'the secret choice of 5-8D is your BIR pick, e.g. 2, or {"bir": 2, "flagship": "ID", '
    '"force": ["ID", ...], "ew": {"ID": 1}} (flagship and force: the pursued side only)'
)
KEYS = ("bir", "flagship", "force", "ew")


def parse(choice: object) -> Pick | None:
    """The choice's shape (its legality is `setup_problems`'); None when it has none."""
    if isinstance(choice, int) and not isinstance(choice, bool):
        return Pick(choice)
    if not isinstance(choice, dict) or not set(choice) <= set(KEYS) or "bir" not in choice:
        return None
    bir, flagship = choice["bir"], choice.get("flagship", "")
    force, ew = choice.get("force", []), choice.get("ew", {})
    if not isinstance(bir, int) or isinstance(bir, bool) or not isinstance(flagship, str):
        return None
    if not isinstance(force, list) or len(force) > MAX_UNITS:
        return None
    if not all(isinstance(u, str) and 0 < len(u) <= 40 for u in force):
        return None
    if not isinstance(ew, dict) or len(ew) > MAX_UNITS:
        return None
    if not all(isinstance(k, str) and isinstance(v, int) and 0 <= v <= 99 for k, v in ew.items()):
        return None
    return Pick(bir, flagship[:40], tuple(force), tuple(sorted(ew.items())))


def _auto_force(state: FeState, units: list[Unit], flagship: str) -> tuple[str, tuple[str, ...]]:
    flagship = flagship or combat_policy.auto_flagship(units)
    return flagship, tuple(combat_policy.auto_force(state, flagship, units))


def setup_problems(state: FeState, seat: Seat, choice: object) -> list[Violation]:
    """Why ``choice`` is not ``seat``'s legal set-up of the pursuit battle (5-8D)."""
    record = battle(state)
    if record is None:
        return [Violation("there is no pursuit battle to set up", SETUP_RULE)]
    pick = parse(choice)
    if pick is None:
        return [Violation(SHAPE, SETUP_RULE)]
    problem = results.check_pick(pick.bir)
    if problem:
        return [problem]
    pursuer, _ = sides(state, record)
    units = available(state, record, seat)
    if seat == pursuer and (pick.flagship or pick.force):
        named = ", ".join(record.pursuers)
        text = (
            f"the pursuit force is the ships of the pursue order ({named}): the pursuer "
            "chooses no flagship or force at 5-8D"
        )
        return [Violation(text, pursuit_die.PURSUE_RULE)]
    if pick.force and not pick.flagship:
        return [Violation("a force needs its flagship: name it too", forces.FLAGSHIP_RULE)]
    if pick.flagship:
        eligible = forces.eligible_flagships(units)
        if pick.flagship not in eligible:
            offered = ", ".join(eligible) or "none"
            text = (
                f"{pick.flagship} may not be flagship of the pursued force: the eligible "
                f"units are {offered}"
            )
            return [Violation(text, forces.FLAGSHIP_RULE)]
    if pick.force:
        force = forces.BattleForce(pick.flagship, pick.force)
        found = forces.force_problems(
            force,
            units,
            flagship_counts=reserves.flagship_counts(state),
            fixed_flagship=pick.flagship,
        )
        if found:
            return found
    side = _side(state, record, seat, pick)
    got = _potential(state, record, side)
    return [got] if isinstance(got, Violation) else []


def _side(state: FeState, record: BattleRecord, seat: Seat, pick: Pick) -> SideRound:
    units = available(state, record, seat)
    pursuer, _ = sides(state, record)
    if seat == pursuer:
        flagship, force = combat_policy.auto_flagship(units), tuple(u.id for u in units)
    elif pick.force:
        flagship, force = pick.flagship, pick.force
    else:
        flagship, force = _auto_force(state, units, pick.flagship)
    return SideRound(seat, flagship=flagship, force=force, bir=pick.bir, ew_choices=pick.ew)


def _potential(
    state: FeState, record: BattleRecord, side: SideRound
) -> potential.SidePotential | Violation:
    units = base.units_by_id(state, side.force)
    members = [units[i] for i in side.force if i in units]
    mine = set(base.empires_of(state, side.seat))
    enemies = {u.empire for seat in state.seats for u in available(state, record, seat)}
    order = ew_rules.ew_options(dict(state.options)).order
    return potential.side_potential(
        members,
        ew_choices=dict(side.ew_choices),
        lost_fighters2=potential.lost_within(members, combat.fighters_lost(state, record)),
        enemies=tuple(sorted(enemies - mine)),
        order=order,
    )


def dice_for(state: FeState, record: BattleRecord, at_reveal: bool) -> list[RollRequest]:
    where = title(record)
    pursuer, pursued = sides(state, record)
    firing = (pursuer, pursued) if return_fire(state) else (pursuer,)
    return [
        RollRequest(1, 6, f"{VBIR_PURPOSE}, {where}", SETUP_STEP, at_reveal=at_reveal),
        *(
            RollRequest(1, 6, f"{DAMAGE_PURPOSE}, {where}, {seat}", SETUP_STEP, at_reveal=at_reveal)
            for seat in firing
        ),
    ]


def apply_choices(
    state: FeState, choices: Mapping[Seat, object], events: list[Event]
) -> tuple[FeState, list[RollRequest]]:
    """Both sides' set-ups on the pursuit round's log; the dice asked for at the reveal (none
    when they were armed with the pursuit die: `early_rolls`)."""
    record = battle(state)
    assert record is not None
    attacker = base.phasing(state)
    defender = next(s for s in state.seats if s != attacker)
    made = {seat: _side(state, record, seat, parse(c) or Pick(1)) for seat, c in choices.items()}
    pursuer, pursued = sides(state, record)
    if not return_fire(state):  # the pursued scores nothing: no die is rolled for it
        made[pursued] = msgspec.structs.replace(made[pursued], potential2=0, damage=0)
    log = RoundLog(record.rounds + 1, made[attacker], made[defender], pursuit=True)
    state = with_log(state, record, log)
    chased, chasing = made[pursued], made[pursuer]
    text = (
        f"{title(record)}: {pursuer} pursues with {', '.join(chasing.force)} "
        f"(BIR pick {chasing.bir}); {pursued} sets up flagship {chased.flagship or 'none'}, "
        f"{', '.join(chased.force) or 'no force'} (BIR pick {chased.bir}) "
        f"({SETUP_RULE}, {results.BIR_RULE})"
    )
    data = {"hex": base.hex_text(record.hex), "round": log.round, "pursuit": True}
    events.append(Event("pursuit", text, "", SETUP_STEP, data))
    if record.pursuit_dice:
        return _early_dice(state, events), []
    return state, dice_for(state, record, at_reveal=True)


def _early_dice(state: FeState, events: list[Event]) -> FeState:
    """The dice armed with the pursuit die: those already rolled (`BattleRecord.early_dice`)
    are applied now, in the order rolled; the round waits for the rest (if any)."""
    record = battle(state)
    assert record is not None
    kept = record.early_dice
    state = combat.replace_current(state, msgspec.structs.replace(record, early_dice=()))
    for purpose, die in kept:
        state = apply_die(state, RollRequest(1, 6, purpose, SETUP_STEP), (die,), events)
    record = battle(state)
    assert record is not None
    if len(kept) < len(dice_for(state, record, at_reveal=False)):
        return combat_round.defer_dice(state)
    return state


# --- the dice ---------------------------------------------------------------------------------


def apply_die(
    state: FeState, request: RollRequest, dice: tuple[int, ...], events: list[Event]
) -> FeState:
    """The pursuit round's dice: the variable BIR die sets the total (304.3), a side's combat
    die its damage (302.4). Dice armed with a pursuit that failed find no round: unused."""
    if request.step != SETUP_STEP or len(dice) != 1:
        return state
    record = battle(state)
    log = pursuit_log(record) if record is not None else None
    if record is not None and log is None and record.pursuit_dice:  # before 5-8D: kept
        early = (*record.early_dice, (request.purpose, dice[0]))
        return combat.replace_current(state, msgspec.structs.replace(record, early_dice=early))
    if record is None or log is None:
        return _unused(state, request, dice, events)
    where = title(record)
    if request.purpose.startswith(VBIR_PURPOSE):
        found = results.intensity(log.attacker.bir, log.defender.bir, dice[0])
        log = msgspec.structs.replace(log, vbir_die=found.vbir_die, bir=found.total)
        text = (
            f"{where}: BIR {log.attacker.bir} + {log.defender.bir}, variable die "
            f"{found.vbir_die} ({found.vbir:+d}): total {found.total} ({results.VBIR_RULE})"
        )
        data = {"hex": base.hex_text(record.hex), "round": log.round, "bir": found.total}
        events.append(Event("intensity", text, "", request.step, data))
        return with_log(state, record, log)
    if not request.purpose.startswith(DAMAGE_PURPOSE) or log.bir < 0:
        return state
    seat = request.purpose.rsplit(", ", 1)[-1]
    if seat not in state.seats:
        return state
    return with_log(state, record, _damage(state, record, log, seat, dice[0], events))


def _damage(
    state: FeState, record: BattleRecord, log: RoundLog, seat: Seat, die: int, events: list[Event]
) -> RoundLog:
    own = side_of(log, seat)
    other = log.defender if own is log.attacker else log.attacker
    mine, theirs = _potential(state, record, own), _potential(state, record, other)
    if isinstance(mine, Violation) or isinstance(theirs, Violation):
        return log  # checked at the reveal: the board changed since
    options = dict(state.options)
    shift = ew_rules.ew_shift(mine.ew, theirs.ew, most=ew_rules.ew_options(options).shift_max)
    result = potential.damage(
        mine.total2,
        log.bir,
        die,
        shift,
        rounding=potential.rounding_option(options),
        vbir_die=log.vbir_die,
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
    text = f"{title(record)}, {seat}: {potential.damage_text(result)} ({results.CRT_RULE})"
    data = {"hex": base.hex_text(record.hex), "round": log.round, "seat": seat}
    events.append(Event("damage", text, seat, SETUP_STEP, data | {"damage": result.damage}))
    return set_side(log, side)


def _unused(
    state: FeState, request: RollRequest, dice: tuple[int, ...], events: list[Event]
) -> FeState:
    """A die armed with a pursuit die that failed: said unused, so the log is not read as a
    battle fought (`engine.fe.steps.combat_pursuit.early_rolls`)."""
    record = combat.current(state)
    if record is None or not record.pursuit_dice or record.pursuit != pursuit_die.FAILED:
        return state
    text = (
        f"{base.hex_text(record.hex)}: the pursuit failed, so the {request.purpose} die "
        f"({dice[0]}) is not used ({pursuit_die.PURSUIT_RULE})"
    )
    data = {"hex": base.hex_text(record.hex), "purpose": request.purpose, "unused": True}
    events.append(Event("pursuit", text, "", request.step, data))
    return state
