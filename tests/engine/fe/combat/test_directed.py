"""Directed damage (302.5) on hand-made targets: double cost, triple on the support echelon,
one SIDS step on a base, one attack a round, refusal when the points fall short."""

from __future__ import annotations

import msgspec
import pytest

from engine.fe.combat.directed import (
    ORDER,
    Directed,
    cost2,
    direct,
    directed_problems,
    directed_round,
)
from engine.fe.combat.targets import Target, target_of
from engine.fe.forces import Unit

HEX = 1010


def kzi(unit_id: str, cls: str, crippled: bool = False) -> Unit:
    return Unit(unit_id, "KZI", cls, HEX, crippled)


CARRIER = target_of(kzi("CV-1", "CV"), "support", fighters2=12)  # defence 10, crippled 5
DREADNOUGHT = target_of(kzi("DN-1", "DN"))  # defence 12, crippled 6
CRIPPLED_FF = target_of(kzi("FF-1", "FF", crippled=True))  # crippled defence 2
STARBASE = target_of(kzi("SB-1", "SB"))  # defence 36, 8 SIDS of 4.5
RESERVE = target_of(kzi("CL-1", "CL"), "reserve")


def test_the_issue_example_28_points_at_a_support_carrier_of_defence_10_are_refused() -> None:
    assert CARRIER.def2 == 20
    result = direct(56, Directed("CV-1"), [CARRIER])
    assert not result.accepted
    assert (result.cost2, result.remaining2, result.target) == (60, 56, None)
    assert result.refusal == (
        "directed damage refused: to cripple CV-1 in the support echelon costs 3 x its "
        "defence 10 = 30, more than the 28 points scored; the 28 go to general allocation "
        "(302.563)"
    )


def test_thirty_points_cripple_the_same_carrier_and_nothing_is_left() -> None:
    result = direct(60, Directed("CV-1"), [CARRIER])
    assert result.accepted and result.outcome == "crippled"
    assert result.remaining2 == 0
    assert result.target is not None and result.target.crippled


def test_in_the_battle_force_it_costs_double() -> None:
    assert cost2(Directed("DN-1"), DREADNOUGHT) == 48  # 2 x 12
    assert cost2(Directed("DN-1", destroy=True), DREADNOUGHT) == 72  # 2 x (12 + 6)
    assert cost2(Directed("FF-1", destroy=True), CRIPPLED_FF) == 8  # 2 x 2
    result = direct(60, Directed("DN-1"), [DREADNOUGHT, CRIPPLED_FF])
    assert (result.accepted, result.cost2, result.remaining2) == (True, 48, 12)
    refused = direct(60, Directed("DN-1", destroy=True), [DREADNOUGHT])
    assert not refused.accepted
    assert "to destroy DN-1 costs 2 x its defences 12 + 6 = 36, more than the 30" in (
        refused.refusal
    )
    assert refused.refusal.endswith("(302.5)")


def test_a_starbase_takes_one_sids_step_of_18_points() -> None:
    assert cost2(Directed("SB-1"), STARBASE) == 36
    assert cost2(Directed("SB-1"), STARBASE, mauler=True) == 18
    result = direct(50, Directed("SB-1"), [STARBASE])
    assert (result.outcome, result.remaining2) == ("sids", 14)
    assert result.target is not None and result.target.steps == 1
    short = direct(35, Directed("SB-1"), [STARBASE])
    assert not short.accepted and short.remaining2 == 35
    assert "a SIDS step on SB-1 costs 18, more than the 17.5 points" in short.refusal


def test_the_eighth_step_cripples_a_starbase() -> None:
    base = msgspec.structs.replace(STARBASE, steps=7)
    result = direct(36, Directed("SB-1"), [base])
    assert result.target is not None
    assert (result.target.crippled, result.target.steps) == (True, 0)


def test_directed_damage_at_a_base_cannot_destroy_it_outright() -> None:
    problems = directed_problems([Directed("SB-1", destroy=True)], [STARBASE])
    assert [p.rule for p in problems] == ["308.811"]
    assert "one SIDS step of 18 points" in problems[0].message


def test_a_crippled_battle_station_is_no_target() -> None:
    bats = target_of(kzi("BATS-1", "BATS", crippled=True))
    problems = directed_problems([Directed("BATS-1")], [bats])
    assert [(p.message, p.rule) for p in problems] == [
        (
            "BATS-1 is crippled and takes no more SIDS steps: directed damage cannot reach it",
            "308.861",
        )
    ]


def test_twice_in_a_round_is_refused() -> None:
    problems = directed_problems(
        [Directed("DN-1"), Directed("FF-1", True)], [DREADNOUGHT, CRIPPLED_FF]
    )
    assert [(p.message, p.rule) for p in problems] == [
        (
            "2 directed attacks in one round (DN-1, FF-1): a side directs damage at one unit "
            "a round",
            "302.5",
        )
    ]
    again = directed_problems([Directed("FF-1", True)], [CRIPPLED_FF], earlier=[Directed("DN-1")])
    assert [p.rule for p in again] == ["302.5"]
    assert directed_problems([Directed("FF-1", True)], [CRIPPLED_FF]) == []


def test_ineligible_targets_are_refused_with_their_rule() -> None:
    enemy = [DREADNOUGHT, CRIPPLED_FF, RESERVE]
    cases = {
        "CL-1": ("302.563", "CL-1 is in reserve"),
        "XX-9": ("302.5", "XX-9 is not an enemy unit in this battle"),
        "FF-1": ("302.5", "FF-1 is already crippled: direct damage to destroy it instead"),
    }
    for unit, (rule, start) in cases.items():
        problems = directed_problems([Directed(unit)], enemy)
        assert [p.rule for p in problems] == [rule]
        assert problems[0].message.startswith(start)
    gone = msgspec.structs.replace(DREADNOUGHT, destroyed=True)
    assert directed_problems([Directed("DN-1")], [gone])[0].message == "DN-1 is already destroyed"
    pod = Target("P-1", def2=8)  # no crippled side
    assert "no crippled side" in directed_problems([Directed("P-1")], [pod])[0].message
    assert direct(16, Directed("P-1", destroy=True), [pod]).outcome == "destroyed"


def test_an_illegal_order_cannot_be_carried_out() -> None:
    with pytest.raises(ValueError, match="in reserve"):
        direct(100, Directed("CL-1"), [RESERVE])


def test_no_order_leaves_every_point_to_general_allocation() -> None:
    result = direct(21, None, [DREADNOUGHT])
    assert (result.accepted, result.remaining2, result.cost2) == (False, 21, 0)


def test_the_phasing_side_directs_first() -> None:
    assert ORDER == ("phasing", "non-phasing")
    first, second = directed_round(
        (48, Directed("DN-1"), [DREADNOUGHT]),
        (56, Directed("CV-1"), [CARRIER]),
    )
    assert first.order == Directed("DN-1") and first.accepted
    assert second.order == Directed("CV-1") and not second.accepted
