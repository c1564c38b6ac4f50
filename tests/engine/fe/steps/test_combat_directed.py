"""Directed damage played by the engine (`engine.fe.steps.combat_directed`, 302.5).

Boards from the tutorial set-up (`tutorial_states`). In 1105 the Klingon Strike Force and the
D6 (KLI-0001 D7C, -0002/-0003 D7, -0004 F5S scout, -0005 D6) meet the Kzinti Border Guard
(KZI-0001 CC, -0002 BC defence 8, -0003 CL, -0004/-0005 FF defence 4, crippled 2). BIRs 4 + 4
and variable die 6 make the total 10; with combat dice 6 and 1 the Klingons score 17 points
(34 attack, 50%) and the Kzinti 11. In 1704 the same Klingons and the F5 face the starbase
KZI-B004 with the BC KZI-0006 and the SF KZI-0007 and score 20. Defences from the unit tables.
"""

from __future__ import annotations

from typing import Any

import msgspec

from engine.core.ruleset import Event
from engine.fe import flow
from engine.fe.face import FACE
from engine.fe.forces import Unit
from engine.fe.model import FeState
from engine.fe.sequence import Step
from engine.fe.steps import combat, combat_damage, combat_directed
from tests.engine.fe.steps.test_combat_round import reveal
from tests.engine.fe.steps.tutorial_states import (
    after_setup,
    orders,
    placed,
    refusals,
    run_to,
    texts,
)

STRIKE = ["KLI-0001", "KLI-0002", "KLI-0003", "KLI-0004", "KLI-0005"]
GUARD = ["KZI-0001", "KZI-0002", "KZI-0003", "KZI-0004", "KZI-0005"]
CARRIER = Unit("KZI-0100", "KZI", "CV", 1105)
"""A Kzinti carrier (defence 10, crippled 5, 6 fighter factors) added to the 1105 board."""


def fought(
    hex_id: int,
    attackers: list[str],
    defenders: list[str],
    flagship: str,
    *new: Unit,
    bir: tuple[int, int] = (4, 4),
    dice: tuple[int, int, int] = (6, 6, 1),
    to: str = "5-5B",
    events: list[Event] | None = None,
) -> FeState:
    """The battle in ``hex_id`` played to 5-5B, the first attacker and ``flagship`` leading:
    ``dice`` are the variable BIR die and the attacker's and defender's combat dice; ``to``
    another step to stop at, ``events`` where to keep the events on the way there."""
    state = placed(after_setup(), dict.fromkeys(attackers, hex_id), *new)
    state = reveal(run_to(state, "5-3D"), {"coalition": attackers[0], "alliance": flagship})
    state = reveal(run_to(state, "5-3E"), {"coalition": attackers, "alliance": defenders})
    state = reveal(run_to(state, "5-3X2"), {"coalition": bir[0], "alliance": bir[1]}, dice=dice[:1])
    state = reveal(
        run_to(state, "5-4A2"), {"coalition": "default", "alliance": "default"}, dice=dice[1:]
    )
    return run_to(state, to, events)


def border_battle(*new: Unit) -> FeState:
    return fought(1105, STRIKE, GUARD, "KZI-0001", *new)


def edited(state: FeState, side: str, **changes: Any) -> FeState:
    """The round being fought with one side's record changed (a board the steps cannot make
    yet: fighters sent forward from the support echelon, a given damage)."""
    record = combat.current(state)
    assert record is not None
    log = record.log[-1]
    log = msgspec.structs.replace(
        log, **{side: msgspec.structs.replace(getattr(log, side), **changes)}
    )
    record = msgspec.structs.replace(record, log=(*record.log[:-1], log))
    return combat.replace_current(state, record)


def sides(state: FeState) -> tuple[Any, Any]:
    record = combat.current(state)
    assert record is not None
    return record.log[-1].attacker, record.log[-1].defender


def step_of(state: FeState) -> str:
    return str(FACE.summary(state).step)


def test_the_attacker_cripples_a_unit_for_twice_its_defence() -> None:
    state = border_battle()
    attacker, defender = sides(state)
    assert (attacker.damage, defender.damage) == (17, 11)
    state, events = orders(
        state, "coalition", {"type": "direct", "unit": "KZI-0002"}, {"type": "done"}
    )
    assert texts(events, "directed") == [
        "coalition directs damage in 1105 round 1: KZI-0002 crippled for 16 of its 17 points; "
        "1 go to general allocation (302.5)"
    ]
    (event,) = [e for e in events if e.kind == "directed"]
    assert (event.seat, event.step) == ("coalition", "5-5B")
    assert event.data["hex"] == "1105" and event.data["round"] == 1
    assert state.board.unit("KZI-0002").crippled
    attacker, _ = sides(state)
    assert (attacker.directed, attacker.directed2) == ("KZI-0002 crippled", 32)
    assert step_of(state) == "5-5C"


def test_the_defender_directs_after_the_attacker_and_the_rest_is_allocated() -> None:
    """The Kzinti's 11 points cannot cripple the D6 (16) but cripple the F5S (defence 5: 10);
    1 point is left for the Klingons' allocation, 1 for the Kzinti's."""
    state, _ = orders(
        border_battle(), "coalition", {"type": "direct", "unit": "KZI-0002"}, {"type": "done"}
    )
    assert refusals(state, "alliance", {"type": "direct", "unit": "KLI-0005"}) == [
        "directed damage refused: to cripple KLI-0005 costs 2 x its defence 8 = 16, more than "
        "the 11 points scored; the 11 go to general allocation (302.5)"
    ]
    state, events = orders(
        state, "alliance", {"type": "direct", "unit": "KLI-0004"}, {"type": "done"}
    )
    assert texts(events, "directed") == [
        "alliance directs damage in 1105 round 1: KLI-0004 crippled for 10 of its 11 points; "
        "1 go to general allocation (302.5)"
    ]
    assert state.board.unit("KLI-0004").crippled
    state = run_to(state, "5-6A")
    owed = combat_damage.owed2(state, "alliance")
    assert owed is not None and owed[2] == 2
    assert refusals(state, "alliance", {"type": "done"}) == [
        "1 damage points to resolve first: send an allocate order (302.6)"
    ]
    owed = combat_damage.owed2(state, "coalition")
    assert owed is not None and owed[2] == 2


def test_destroying_an_uncrippled_unit_costs_twice_both_defences() -> None:
    """FF KZI-0004: defences 4 and 2, 2 x 6 = 12 of the 17 points; 5 left to allocate."""
    state, events = orders(
        border_battle(),
        "coalition",
        {"type": "direct", "unit": "KZI-0004", "destroy": True},
        {"type": "done"},
    )
    assert "KZI-0004" not in {u.id for u in state.board.units}
    assert texts(events, "directed")[0].startswith(
        "coalition directs damage in 1105 round 1: KZI-0004 destroyed for 12 of its 17 points"
    )
    attacker, _ = sides(state)
    assert (attacker.directed, attacker.directed2) == ("KZI-0004 destroyed", 24)
    state = run_to(state, "5-6A")
    owed = combat_damage.owed2(state, "alliance")
    assert owed is not None and owed[2] == 10


def test_one_directed_attack_a_side_a_round() -> None:
    state, _ = orders(border_battle(), "coalition", {"type": "direct", "unit": "KZI-0004"})
    assert refusals(state, "coalition", {"type": "direct", "unit": "KZI-0005"}) == [
        "2 directed attacks in one round (KZI-0004, KZI-0005): a side directs damage at one "
        "unit a round (302.5)"
    ]
    assert not state.board.unit("KZI-0005").crippled


def test_only_units_of_the_enemy_force_or_support_echelon_are_targets() -> None:
    state = fought(1105, STRIKE, GUARD[:4], "KZI-0001")
    assert refusals(state, "coalition", {"type": "direct", "unit": "KZI-0006"}) == [
        "KZI-0006 is not an enemy unit in this battle (302.5)"
    ]
    assert refusals(state, "coalition", {"type": "direct", "unit": "KLI-0002"}) == [
        "KLI-0002 is not an enemy unit in this battle (302.5)"
    ]
    assert refusals(state, "coalition", {"type": "direct", "unit": "KZI-0005"}) == [
        "KZI-0005 is in reserve, outside the battle force and its support echelon: directed "
        "damage cannot reach it (302.563)"
    ]
    (direct,) = [c for c in FACE.choices(state, "coalition") if c.order == "direct"]
    assert direct.params[0].options == tuple(GUARD[:4])


def test_the_support_echelon_costs_three_times_and_28_points_cannot_cripple_a_carrier() -> None:
    """The issue's example: the carrier (defence 10) sent its fighters forward from outside
    the force; crippling it costs 3 x 10 = 30, so 28 points are refused and all 28 go to
    general allocation; with 30 it is crippled."""
    state = edited(border_battle(CARRIER), "defender", forward=(("KZI-0100", 12),))
    short = edited(state, "attacker", damage=28)
    item = {"type": "direct", "unit": "KZI-0100"}
    assert refusals(short, "coalition", item) == [
        "directed damage refused: to cripple KZI-0100 in the support echelon costs 3 x its "
        "defence 10 = 30, more than the 28 points scored; the 28 go to general allocation "
        "(302.563)"
    ]
    assert "KZI-0100" in combat_directed.target_ids(short, "coalition")
    short, _ = orders(short, "coalition", {"type": "done"})
    attacker, _ = sides(short)
    assert (attacker.directed, attacker.directed2) == ("", 0)
    assert not short.board.unit("KZI-0100").crippled
    short = run_to(short, "5-6A")
    owed = combat_damage.owed2(short, "alliance")
    assert owed is not None and owed[2] == 56
    enough = edited(state, "attacker", damage=30)
    enough, events = orders(enough, "coalition", item)
    assert enough.board.unit("KZI-0100").crippled
    assert sides(enough)[0].directed2 == 60
    assert texts(events, "directed")[0].endswith("0 go to general allocation (302.563)")


def test_a_starbase_takes_one_sids_step_of_18_points() -> None:
    """20 points at the starbase: one SIDS step for 18 (308.811), 2 left; it cannot be
    destroyed outright by directed damage, and 17 points do not buy the step."""
    attackers = [*STRIKE, "KLI-0006"]
    state = fought(1704, attackers, ["KZI-B004", "KZI-0006", "KZI-0007"], "KZI-B004")
    assert sides(state)[0].damage == 20
    assert refusals(
        state, "coalition", {"type": "direct", "unit": "KZI-B004", "destroy": True}
    ) == [
        "KZI-B004 is a base: directed damage scores one SIDS step of 18 points on it, it cannot "
        "destroy it outright (308.811)"
    ]
    assert refusals(
        edited(state, "attacker", damage=17), "coalition", {"type": "direct", "unit": "KZI-B004"}
    ) == [
        "directed damage refused: a SIDS step on KZI-B004 costs 18, more than the 17 points "
        "scored; the 17 go to general allocation (308.811)"
    ]
    state, events = orders(
        state, "coalition", {"type": "direct", "unit": "KZI-B004"}, {"type": "done"}
    )
    assert texts(events, "directed") == [
        "coalition directs damage in 1704 round 1: KZI-B004 took a SIDS step for 18 of its 20 "
        "points; 2 go to general allocation (308.811)"
    ]
    assert sides(state)[0].directed2 == 36
    assert not state.board.unit("KZI-B004").crippled


def test_minus_points_come_off_before_directed_damage_and_plus_points_after() -> None:
    """Carried against the Kzinti: -3 points leave the Klingons 14 to direct; +3 do not add
    to them (plus points are applied at 5-5D, after directed damage)."""
    state = border_battle()
    record = combat.current(state)
    assert record is not None
    for carried, have in ((-6, "14"), (6, "17")):
        carry = msgspec.structs.replace(record, carry=(("alliance", carried),))
        changed = combat.replace_current(state, carry)
        (text,) = refusals(changed, "coalition", {"type": "direct", "unit": "KZI-0001"})
        assert f"more than the {have} points scored" in text


def test_done_alone_directs_nothing() -> None:
    state, _ = orders(border_battle(), "coalition", {"type": "done"})
    assert step_of(state) == "5-5C"
    assert sides(state)[0].directed2 == 0
    state = run_to(state, "5-6A")
    owed = combat_damage.owed2(state, "alliance")
    assert owed is not None and owed[2] == 34


def test_the_steps_pass_by_themselves_when_no_directed_order_is_affordable() -> None:
    """The D6 alone against the Border Guard (BIRs 3 + 2, variable die 4, dice 3 and 6): the
    Klingons score 2 points, the cheapest directed order (crippling a frigate, 2 x 4) costs 8;
    the Kzinti score 11, crippling the D6 costs 16. Both steps pass without their seats."""
    events: list[Event] = []
    state = fought(
        1105, ["KLI-0005"], GUARD, "KZI-0001", bir=(3, 2), dice=(4, 3, 6), to="5-6A", events=events
    )
    assert (sides(state)[0].damage, sides(state)[1].damage) == (2, 11)
    passed = [e.text for e in events if e.kind == "step-passed" and e.step in ("5-5B", "5-5C")]
    assert passed == [
        "5-5B Attacker's directed damage on one enemy unit: 2 damage points buy no directed "
        "damage: the cheapest costs 8",
        "5-5C Defender's directed damage on one enemy unit: 11 damage points buy no directed "
        "damage: the cheapest costs 16",
    ]


def test_no_enemy_left_to_aim_at_passes_the_step() -> None:
    state = border_battle()
    gone = tuple(u for u in state.board.units if u.id not in GUARD)
    state = state.with_board(msgspec.structs.replace(state.board, units=gone))
    assert combat_directed.target_ids(state, "coalition") == ()
    found = combat_directed.AREA.skip(state, _step("5-5B"))
    assert found == "no enemy unit in the battle force or support echelon to direct damage at"


def test_no_damage_points_pass_the_step() -> None:
    state = border_battle()
    assert combat_directed.AREA.skip(state, _step("5-5B")) == ""
    nothing = edited(state, "attacker", damage=0)
    assert combat_directed.AREA.skip(nothing, _step("5-5B")) == (
        "no damage points to direct this round"
    )
    assert combat_directed.AREA.skip(after_setup(), _step("5-5B")) == (
        "no damage scored by the engine to direct"
    )


def _step(step_id: str) -> Step:
    return next(s for s in flow.sequence().main if s.id == step_id)


def _direct_presets(state: FeState, seat: str) -> dict[tuple[str, bool], str]:
    """The face's ready lines for ``direct``: (unit, destroy) -> the line's label."""
    choices = [c for c in FACE.choices(state, seat) if c.order == "direct"]
    return {
        (dict(p.values)["unit"], dict(p.values)["destroy"] == "yes"): p.label
        for c in choices
        for p in c.presets
    }


def test_the_form_lists_every_directed_order_the_points_buy_with_its_price() -> None:
    """A player at 5-5B picks from the orders the engine takes, each with what it costs of
    the points scored, instead of unit ids alone and a refusal for the ones too dear."""
    state = border_battle()
    offered = _direct_presets(state, "coalition")
    legal = {
        (uid, destroy)
        for uid in GUARD + STRIKE
        for destroy in (False, True)
        if not refusals(state, "coalition", {"type": "direct", "unit": uid, "destroy": destroy})
    }
    assert set(offered) == legal and legal
    assert offered[("KZI-0002", False)] == "KZI-0002 BC: cripple for 16 of your 17 points"
    assert ("KZI-0002", True) not in offered  # 24 points: more than the 17 scored
    assert offered[("KZI-0004", True)].startswith("KZI-0004 FF: destroy for 12 of your 17")
    assert _direct_presets(state, "alliance") == {}  # not the defender's step yet


def test_a_base_s_line_says_it_takes_a_sids_step() -> None:
    attackers = [*STRIKE, "KLI-0006"]
    state = fought(1704, attackers, ["KZI-B004", "KZI-0006", "KZI-0007"], "KZI-B004")
    offered = _direct_presets(state, "coalition")
    assert offered[("KZI-B004", False)] == "KZI-B004 SB: a SIDS step for 18 of your 20 points"
    assert ("KZI-B004", True) not in offered
