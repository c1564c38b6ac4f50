"""Carrier groups (5-3C) and the support echelon (5-3E) played by the engine
(`engine.fe.steps.combat_groups`, 515.15, 302.563, 302.332A).

The tutorial board with the Klingon Strike Force and the D6 (KLI-0001 D7C command 9,
-0002/-0003 D7, -0004 F5S scout, -0005 D6) moved into the Kzinti Border Guard's hex 1105
(KZI-0001 CC ... KZI-0005 FF), and Klingon carriers added: the D7V KLI-9001 (medium carrier,
attack 7, defence 8, 6 fighter factors), the escorts F5E KLI-9002 and E4A KLI-9003 (light)
and AD5 KLI-9004 (heavy), the F5V KLI-9005 (light carrier, 4 factors), the D6V KLI-9006
(medium, 5 factors), the D6P KLI-9007 (6 PFs) and the B10 KLI-9008 (single-ship carrier,
4 factors). Figures from the unit tables (units.json).
"""

from __future__ import annotations

import msgspec

from engine.core.face import ParamKind
from engine.fe import flow
from engine.fe.battle_model import CombatPolicy, RoundLog, SideRound
from engine.fe.combat import allocation
from engine.fe.face import FACE
from engine.fe.forces import Unit
from engine.fe.model import FeState
from engine.fe.steps import combat, combat_damage, combat_directed, combat_policy
from tests.engine.fe.steps.test_combat_directed import edited, sides
from tests.engine.fe.steps.test_combat_round import refusals, reveal
from tests.engine.fe.steps.tutorial_states import after_setup, orders, placed, run_to, texts
from tests.engine.fe.steps.tutorial_states import refusals as order_refusals

STRIKE = ["KLI-0001", "KLI-0002", "KLI-0003", "KLI-0004", "KLI-0005"]
GUARD = ["KZI-0001", "KZI-0002", "KZI-0003", "KZI-0004", "KZI-0005"]
ADDED = (
    Unit("KLI-9001", "KLI", "D7V", 1105),
    Unit("KLI-9002", "KLI", "F5E", 1105),
    Unit("KLI-9003", "KLI", "E4A", 1105),
    Unit("KLI-9004", "KLI", "AD5", 1105),
    Unit("KLI-9005", "KLI", "F5V", 1105),
    Unit("KLI-9006", "KLI", "D6V", 1105),
    Unit("KLI-9007", "KLI", "D6P", 1105),
    Unit("KLI-9008", "KLI", "B10", 1105),
)
GROUP = [{"carrier": "KLI-9001", "escorts": ["KLI-9002", "KLI-9003"]}]


def board() -> FeState:
    return placed(after_setup(), dict.fromkeys(STRIKE, 1105), *ADDED)


def at_groups() -> FeState:
    return run_to(board(), "5-3C")


def at_force(groups: object = GROUP) -> FeState:
    """5-3E of round 1: the Klingons formed ``groups``; flagships the D7C and the CC."""
    state = reveal(at_groups(), {"coalition": groups, "alliance": []})
    state = reveal(run_to(state, "5-3D"), {"coalition": "KLI-0001", "alliance": "KZI-0001"})
    return run_to(state, "5-3E")


def test_groups_are_typed_and_recorded_on_the_round() -> None:
    state = reveal(at_groups(), {"coalition": GROUP, "alliance": "none"})
    attacker, defender = sides(state)
    assert attacker.groups == (("KLI-9001", ("KLI-9002", "KLI-9003")),)
    assert defender.groups == ()
    same = reveal(
        at_groups(), {"coalition": {"KLI-9001": ["KLI-9002", "KLI-9003"]}, "alliance": {}}
    )
    assert sides(same)[0].groups == attacker.groups  # the app's form of the same groups


def test_groups_breaking_the_rules_are_refused_with_the_numbers() -> None:
    state = at_groups()
    too_many = [{"carrier": "KLI-9001", "escorts": ["KLI-9002", "KLI-9003", "KLI-9004"]}]
    assert refusals(state, "coalition", too_many) == [
        "D7V KLI-9001 is a medium carrier: at most 2 escorts, not 3 (515.15)"
    ]
    light = [{"carrier": "KLI-9005", "escorts": ["KLI-9002", "KLI-9003"]}]
    assert refusals(state, "coalition", light) == [
        "F5V KLI-9005 is a light carrier: at most 1 escorts, not 2 (515.15)"
    ]
    assert refusals(state, "coalition", [{"carrier": "KLI-9008", "escorts": ["KLI-9002"]}]) == [
        "B10 KLI-9008 is a single-ship carrier: at most 0 escorts, not 1 (515.15)"
    ]
    assert refusals(state, "coalition", [{"carrier": "KLI-0002", "escorts": ["KLI-0003"]}]) == [
        "KLI-0002 is not a carrier in the hex (515.15)",
        "KLI-0003 is not an escort in the hex (group of KLI-0002) (515.15)",
    ]
    twice = [*GROUP, {"carrier": "KLI-9006", "escorts": ["KLI-9003"]}]
    assert refusals(state, "coalition", twice) == ["KLI-9003 is in two carrier groups (515.15)"]
    assert refusals(state, "alliance", GROUP) == [
        "KLI-9001 is not a carrier in the hex (515.15)",
        "KLI-9002 is not an escort in the hex (group of KLI-9001) (515.15)",
        "KLI-9003 is not an escort in the hex (group of KLI-9001) (515.15)",
    ]
    (shape,) = refusals(state, "coalition", "a D7V with two escorts")
    assert shape.startswith("the secret choice of 5-3C is your carrier groups") and shape.endswith(
        "(515.15)"
    )
    assert refusals(state, "coalition", [{"carrier": "KLI-9001", "escort": []}])[0] == shape


def test_a_group_is_in_the_force_whole_or_not_at_all() -> None:
    state = at_force()
    assert refusals(state, "coalition", ["KLI-0001", "KLI-9001", "KLI-9002"]) == [
        "the carrier group of KLI-9001 stays together: KLI-9001, KLI-9002 in the battle force, "
        "KLI-9003 left out (515.15)"
    ]
    assert refusals(state, "coalition", ["KLI-0001", "KLI-9001", "KLI-9002", "KLI-9003"]) == []
    assert refusals(state, "coalition", ["KLI-0001", "KLI-0002"]) == []  # the group all out
    ungrouped = at_force([])
    assert refusals(ungrouped, "coalition", ["KLI-0001", "KLI-9001", "KLI-9002"]) == []


def test_fighters_and_pfs_sent_forward_count_three_ship_equivalents_at_most() -> None:
    state = at_force()
    one = {"units": ["KLI-0001"], "forward": {"KLI-9001": 6}}
    assert refusals(state, "coalition", one) == []
    four = {
        "units": ["KLI-0001"],
        "forward": {"KLI-9001": 6, "KLI-9005": "all", "KLI-9006": 5, "KLI-9007": {"pfs": 6}},
    }
    assert refusals(state, "coalition", four) == [
        "the force takes 4 ship equivalents of fighters and PFs sent forward; at most 3 (302.332A)"
    ]
    three = {"units": ["KLI-0001"], "forward": {"KLI-9005": "all", "KLI-9006": 5, "KLI-9008": 4}}
    assert refusals(state, "coalition", three) == []
    assert refusals(state, "coalition", {"units": ["KLI-0001"], "forward": {"KLI-9001": 7}}) == [
        "KLI-9001 sends 7 fighter factors and 0 PFs forward; it has 6 and 0 (302.563)"
    ]
    inside = {"units": ["KLI-0001", "KLI-9006"], "forward": {"KLI-9006": 5}}
    assert refusals(state, "coalition", inside) == [
        "KLI-9006 is in the battle force: its fighters and PFs are in it already (302.563)"
    ]
    assert refusals(state, "coalition", {"units": ["KLI-0001"], "forward": {"KLI-9001": -1}})[
        0
    ].startswith("the secret choice of 5-3E is the list of your battle force's unit ids, or")


def test_the_command_limit_counts_the_ship_equivalents_sent_forward() -> None:
    """The D7C rates 9: nine units and the free scout fill it; one ship equivalent of fighters
    sent forward is one too many (302.33)."""
    state = at_force([])
    nine = ["KLI-0001", "KLI-0002", "KLI-0003", "KLI-0004", "KLI-0005", "KLI-9002"]
    nine += ["KLI-9003", "KLI-9004", "KLI-9005", "KLI-9007"]
    assert refusals(state, "coalition", nine) == []
    over = {"units": nine, "forward": {"KLI-9001": 1}}
    assert refusals(state, "coalition", over) == [
        "the force counts 10 (9 units, 1 ship equivalents of fighters and PFs, the scout "
        "KLI-0004 free) against a command rating of 9 (flagship D7C KLI-0001 rated 9) (302.33)"
    ]


def fought_with_forward(forward: object = "all") -> FeState:
    """Round 1 to 5-5C: the D7C alone in the force, the D7V's fighters sent forward; BIRs 4 + 4
    and variable die 6 (total 10), combat dice 6 and 6 (50%)."""
    state = at_force()
    force = {"units": ["KLI-0001"], "forward": {"KLI-9001": forward}}
    state = reveal(state, {"coalition": force, "alliance": GUARD})
    state = reveal(run_to(state, "5-3X2"), {"coalition": 4, "alliance": 4}, dice=(6,))
    state = reveal(run_to(state, "5-4A2"), {"coalition": "default", "alliance": {}}, dice=(6, 6))
    return state


def test_the_support_echelon_is_recorded_and_its_fighters_count_in_the_potential() -> None:
    """D7C attack 9 and the D7V's 6 fighter factors: potential 15, 50% = 7.5 -> 8."""
    state = fought_with_forward()
    attacker, _ = sides(state)
    assert attacker.force == ("KLI-0001",)
    assert attacker.forward == (("KLI-9001", 12),) and attacker.forward_pfs == ()
    assert (attacker.potential2, attacker.damage) == (30, 8)
    fewer = sides(fought_with_forward(2))[0]
    assert fewer.forward == (("KLI-9001", 4),) and fewer.potential2 == 22


def test_directed_damage_at_the_support_echelon_costs_three_times() -> None:
    """The Kzinti at 5-5C direct at the D7V sending fighters forward: crippling it costs
    3 x its defence 8 = 24 (302.563); 23 points are refused, 24 cripple it."""
    state = run_to(fought_with_forward(), "5-5B")
    state, _ = orders(edited(state, "defender", damage=23), "coalition", {"type": "done"})
    here = flow.current(state)
    assert here is not None and here.id == "5-5C"
    assert combat_directed.AREA.skip(state, here) == ""  # asked: 23 points buy something
    assert "KLI-9001" in combat_directed.target_ids(state, "alliance")
    assert "KLI-9002" not in combat_directed.target_ids(state, "alliance")  # in reserve
    item = {"type": "direct", "unit": "KLI-9001"}
    assert order_refusals(state, "alliance", item) == [
        "directed damage refused: to cripple KLI-9001 in the support echelon costs 3 x its "
        "defence 8 = 24, more than the 23 points scored; the 23 go to general allocation "
        "(302.563)"
    ]
    enough, events = orders(edited(state, "defender", damage=24), "alliance", item)
    assert enough.board.unit("KLI-9001").crippled
    assert sides(enough)[1].directed2 == 48
    assert texts(events, "directed")[0].endswith("0 go to general allocation (302.563)")


def second_round(state: FeState, groups: tuple[tuple[str, tuple[str, ...]], ...]) -> FeState:
    """``state`` (at 5-3C of round 1) as if round 1 had been fought with these Klingon
    groups: a board the steps reach only after a whole round."""
    record = combat.current(state)
    assert record is not None
    first = RoundLog(1, SideRound("coalition", groups=groups), SideRound("alliance"))
    return combat.replace_current(state, msgspec.structs.replace(record, rounds=1, log=(first,)))


def test_groups_stay_as_formed_until_pursuit_and_a_policy_keeps_them() -> None:
    """From round 2 the groups of round 1 are named again (515.15), less the units gone: the
    E4A destroyed leaves the F5E with the D7V."""
    state = second_round(at_groups(), (("KLI-9001", ("KLI-9002", "KLI-9003")),))
    assert refusals(state, "coalition", GROUP) == []
    assert refusals(state, "coalition", []) == [
        "carrier groups stay as formed until the pursuit phase: KLI-9001 with KLI-9002, "
        "KLI-9003, not no carrier group (515.15)"
    ]
    board = state.board
    gone = state.with_board(
        msgspec.structs.replace(board, units=tuple(u for u in board.units if u.id != "KLI-9003"))
    )
    assert refusals(gone, "coalition", GROUP) == [
        "KLI-9003 is not an escort in the hex (group of KLI-9001) (515.15)"
    ]
    kept = [{"carrier": "KLI-9001", "escorts": ["KLI-9002"]}]
    assert refusals(gone, "coalition", kept) == []
    auto = CombatPolicy(force="auto")
    assert combat_policy.choice(gone, "5-3C", "coalition", auto) == kept
    assert combat_policy.choice(at_groups(), "5-3C", "coalition", auto) == []


def test_an_auto_force_keeps_a_group_whole() -> None:
    """The engine's force for a policy adds a group whole or not at all (515.15)."""
    state = at_force()
    policy = CombatPolicy(force="auto")
    chosen = combat_policy.choice(state, "5-3E", "coalition", policy)
    assert isinstance(chosen, list)
    inside = {"KLI-9001", "KLI-9002", "KLI-9003"} & set(chosen)
    assert inside in (set(), {"KLI-9001", "KLI-9002", "KLI-9003"})
    assert refusals(state, "coalition", chosen) == []


def test_the_face_offers_the_groups_and_the_support_echelon() -> None:
    state = at_groups()
    (choice,) = FACE.choices(state, "coalition")
    (param,) = choice.params
    assert param.kind == ParamKind.RECORD
    assert [e.name for e in param.entries] == ["KLI-9001", "KLI-9005", "KLI-9006"]
    assert param.entries[0].help == (
        "escorts of D7V KLI-9001, at most 2, from KLI-9002 KLI-9003 KLI-9004"
    )
    (alliance,) = FACE.choices(state, "alliance")
    assert alliance.params[0].kind == ParamKind.TEXT and alliance.params[0].options == ("none",)
    state = at_force()
    (force,) = FACE.choices(state, "coalition")
    assert [e.name for e in force.params[0].entries] == ["units", "forward"]
    assert "KLI-9001 6 fighters" in force.params[0].entries[1].help
    assert "KLI-9007 0 fighters 6 PFs" in force.params[0].entries[1].help
    (kzinti,) = FACE.choices(state, "alliance")
    assert kzinti.params[0].kind == ParamKind.PIECES  # nothing of theirs sends fighters


def test_fighters_sent_forward_take_general_damage_but_their_carrier_does_not() -> None:
    """5-6B: the Klingons owe the Kzinti's damage. The D7V in the support echelon sent its 6
    fighter factors forward: they may be lost one point each (302.563); crippling the carrier
    itself is no general damage, only directed damage reaches it."""
    state = run_to(fought_with_forward(), "5-6B")
    ids = [(t.id, t.echelon, t.fighters2) for t in combat_damage.targets_of(state, "coalition")]
    assert ("KLI-9001", "support", 12) in ids
    item = {"type": "allocate", "losses": ["cripple KLI-9001"]}
    assert order_refusals(state, "coalition", item)[0] == (
        "KLI-9001 is in the support echelon: general damage falls on the battle force (302.6)"
    )
    menu = [p.choice for p in allocation.options(combat_damage.targets_of(state, "coalition"))]
    assert allocation.LoseFighters("KLI-9001", 2) in menu
    assert allocation.Cripple("KLI-9001") not in menu
