"""A scripted, fully reproducible F&E checklist game through the real protocol core.

Used by the determinism test (the same chain under several PYTHONHASHSEEDs) and by the golden
game file `tests/golden/fe_checklist.msgpack`.
"""

from __future__ import annotations

from typing import Any

from engine.core.errors import NotPending, OutOfTurn
from engine.core.owed import last_to_commit, pending
from engine.core.ruleset import DecisionKind
from engine.core.turn_orders import Back, Done, Note, Roll, Standing
from engine.fe import FE, RULESET
from engine.fe.model import FeState
from engine.fe.orders import RetreatOrder
from engine.fe.steps import combat, combat_damage, combat_groups, combat_round, force_together
from engine.fe.steps.setup_stage import default_placements
from tests.engine.table import Table

RETREAT_STEP = "5-7A1"
"""The defender's first retreat option (302.71): the scripts end every battle there."""
ATTACKER_RETREAT_STEP = "5-7A2"
"""The attacker's option: a script's attacker retreats there when the defender may not."""


def scripted_retreat(rules: FeState, seat: str, step: str) -> bool:
    """Whether a scripted side announces a retreat now: the defender at its first option
    when it may (302.71); when it may not (only a base is left, 302.741) and the battle goes
    on, the attacker at its option, so each scripted battle ends soon."""
    record = combat.current(rules)
    if record is None or step not in (RETREAT_STEP, ATTACKER_RETREAT_STEP):
        return False
    if step == ATTACKER_RETREAT_STEP and (
        record.retreats or not all(combat.sides_present(rules, record.hex))
    ):
        return False
    return not FE.validate(rules, seat, RetreatOrder())


def plain_run(rules: FeState, seat: str, target: str = "") -> int:
    """How many plain ``done`` orders ``seat`` can give now, stopping at ``target`` and before
    the defender's first retreat option (where the scripts retreat, `battle_step`)."""
    run = FE.own_run(rules, seat, target)
    if combat.current(rules) is not None and RETREAT_STEP in run[1:]:
        run = run[: run.index(RETREAT_STEP)]
    return len(run)


def battle_step(table: Table, seat: str, step: str) -> bool:
    """A scripted side's orders at a battle's own steps: at 5-6A/5-6B the engine's suggested
    allocation of the damage it owes (302.6); at 5-7A1 the defender announces a retreat (or,
    when it may not, the attacker at 5-7A2: `scripted_retreat`), so each battle of a scripted
    game is short (302.71; the engine would otherwise fight round after round, 302.9). False
    where the step is walked with ``done``."""
    if table.state is None or table.state.rules is None:
        return False
    rules = table.state.rules
    if step in combat_damage.ALLOCATION_STEPS and combat_damage.finish(rules, seat):
        order = combat_damage.suggested(rules, seat)
        assert order is not None
        then_done(table, seat, order)
        return True
    if not scripted_retreat(rules, seat, step):
        return False  # no battle, or no retreat for this side: the step is walked with done
    then_done(table, seat, RetreatOrder())
    return True


def then_done(table: Table, seat: str, order: Any) -> None:
    """``order`` and ``done``; or ``order`` alone where it ends the seat's part by itself (a
    standing order for the step completes it at once, or from fe 5.5 an answer ends its
    step), so that a ``done`` after it would fall on a step that is not the seat's."""
    try:
        table.orders(seat, order, Done())
    except (OutOfTurn, NotPending):
        table.orders(seat, order)


SCRIPT_BIR = {"coalition": 3, "alliance": 2}
"""The BIR each side of a scripted game picks at 5-3X2 in a battle (304.1)."""


def secret_choice(table: Table, seat: str, step: str, text: str) -> object:
    """What a scripted seat commits at a secret step (`battle_choice` during a battle's
    typed steps), else ``text``."""
    assert table.state is not None and table.state.rules is not None
    typed = battle_choice(table.state.rules, seat, step)
    return text if typed is None else typed


def battle_choice(rules: FeState, seat: str, step: str) -> object | None:
    """A scripted side's typed choice in a battle round (`engine.fe.steps.combat_round`):
    no carrier group (or the groups kept from round 1), its first eligible flagship, a battle
    force of the flagship alone (so the scripted campaign's battles wear their forces down
    slowly), the script's BIR, default EW; None outside a battle's typed steps."""
    if combat.current(rules) is None or step not in combat_round.TYPED_STEPS:
        return None
    if step == combat_round.GROUPS_STEP:  # no carrier group, or those formed in round 1
        record = combat.current(rules)
        assert record is not None
        return combat_groups.as_choice(combat_round.kept_groups(rules, seat, record) or ())
    if step == combat_round.FLAGSHIP_STEP:
        eligible = combat_round.eligible_flagships(rules, seat)
        return eligible[0] if eligible else ""
    if step == combat_round.FORCE_STEP and force_together.together(rules):  # (from fe 5.10)
        groups = battle_choice(rules, seat, combat_round.GROUPS_STEP)
        flagship = battle_choice(rules, seat, combat_round.FLAGSHIP_STEP)
        return force_together.join(groups, flagship, [flagship] if flagship else [])
    if step == combat_round.FORCE_STEP:  # the flagship alone: scripted battles bleed slowly
        record = combat.current(rules)
        assert record is not None
        log = combat_round.current_round(rules, record)
        side = log.attacker if log.attacker.seat == seat else log.defender
        return [side.flagship] if side.flagship else []
    if step == combat_round.BIR_STEP:
        return SCRIPT_BIR[seat]
    return "default"


def _dones(table: Table, seat: str, target: str) -> int:
    assert table.state is not None and table.state.rules is not None
    return plain_run(table.state.rules, seat, target)


def walk_to(table: Table, target: str) -> None:
    """Each seat completes its manual steps in turn until ``target`` is the current step."""
    while True:
        assert table.state is not None
        decision = pending(RULESET, table.state)[0]
        if decision.step == target and decision.kind != DecisionKind.REVEAL:
            return
        seat = decision.seats[0]
        if decision.kind == DecisionKind.SECRET:
            text = f"{seat}: nothing special at {decision.step}"
            table.commit(seat, secret_choice(table, seat, decision.step, text))
            continue
        if decision.kind == DecisionKind.REVEAL:
            table.reveal(seat)
            continue
        if decision.kind == DecisionKind.ENTROPY:  # dice of a choice the engine made
            table.entropy_only(seat)
            continue
        if battle_step(table, seat, decision.step):
            continue
        count = _dones(table, seat, target)
        assert count, f"stuck at {decision}"
        table.orders(seat, *[Done() for _ in range(count)])


def set_up(table: Table) -> None:
    """Every empire places its starting fleets with the default placements."""
    while table.state is not None and table.state.rules is not None and table.state.rules.setup:
        seat = pending(RULESET, table.state)[0].seats[0]
        table.orders(seat, *default_placements(table.state.rules), Done())


def commit_open_secret(table: Table, step: str) -> None:
    """Each seat the engine asks at the secret ``step`` commits (the last one asked reveals
    with its commitment), then the others reveal: from fe 5.8 a side whose choice the board
    forces is not asked (`engine.fe.steps.forced_choices`)."""
    while True:
        seat, kind, at = table.owed()
        if at != step or kind not in (DecisionKind.SECRET, DecisionKind.REVEAL):
            return
        if kind == DecisionKind.REVEAL:
            table.reveal(seat)
            continue
        assert table.state is not None
        last = last_to_commit(table.ruleset, table.state, seat)
        table.commit(seat, secret_choice(table, seat, step, ""), reveal_now=last)


def secret_order(table: Table) -> tuple[str, str]:
    """The seats of a secret step in the order the engine asks them to commit
    (`engine.core.turns.Turns.answer_order`)."""
    first = table.owed()[0]
    second = next(seat for seat in ("coalition", "alliance") if seat != first)
    return first, second


ATTACKERS = 3
"""How many ships of the Lyran Red Claw Fleet (0303) the sample game sends into 0701."""


def attack_the_count(table: Table) -> None:
    """The coalition's operational movement (3B2) of the sample game: `ATTACKERS` Lyran ships
    march on the Kzinti Count's Fleet and its base in 0701, so the combat phase has a battle
    hex to fight (without one it passes by itself and nobody commits a secret)."""
    from tests.engine.fe_wind import march, units_at  # fe_wind builds on this module

    lyrans = units_at(table, "LYR", "Red Claw Fleet")[:ATTACKERS]
    move = march(table, "coalition", lyrans, 701)
    assert move.path[-1] == "0701", move
    table.orders("coalition", move, Done())


def play_sample_fe_game() -> Table:
    table = Table(RULESET, "the-wind", ["coalition", "alliance"], label="fe-sample")
    set_up(table)
    table.orders("coalition", Done(note="nothing deploys this turn"), Roll("2d6", "survey 505.21"))
    table.entropy_only("alliance")
    table.orders("coalition", Note("rolled for survey points"), Done(adjustments=["treasury +3"]))
    walk_to(table, "2B11")
    table.orders("coalition", Done())
    table.orders("alliance", Standing(["1", "2", "3A"]))
    walk_to(table, "3B2")
    attack_the_count(table)
    walk_to(table, "5-3E")
    commit_open_secret(table, "5-3E")
    walk_to(table, "5-3X2")
    first, second = secret_order(table)
    table.commit(first, secret_choice(table, first, "5-3X2", ""))
    table.commit(second, secret_choice(table, second, "5-3X2", ""))
    table.reveal(table.owed()[0])
    table.reveal(table.owed()[0])
    walk_to(table, "5-7A1")
    seat = pending(RULESET, table.state)[0].seats[0]  # type: ignore[arg-type]
    table.orders(seat, Back("5-2A1"))
    walk_to(table, "6B")
    table.orders(pending(RULESET, table.state)[0].seats[0], Standing([]))  # type: ignore[arg-type]
    return table
