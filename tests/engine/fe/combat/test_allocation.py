"""General damage allocation (302.6) on hand-made Kzinti forces: what each choice resolves,
the forced-resolution rule, plus and minus points, and the editor's legal next choices."""

from __future__ import annotations

import msgspec
import pytest

from engine.fe.combat.allocation import (
    Cripple,
    Destroy,
    LoseFighters,
    Priced,
    VoluntarySids,
    allocation_problems,
    next_choices,
    resolve,
)
from engine.fe.combat.targets import target_of
from engine.fe.forces import Unit

HEX = 1010


def kzi(unit_id: str, cls: str, crippled: bool = False) -> Unit:
    return Unit(unit_id, "KZI", cls, HEX, crippled)


DN = target_of(kzi("DN-1", "DN"))  # defence 12, crippled 6
FF = target_of(kzi("FF-1", "FF"))  # defence 4, crippled 2
CV = target_of(kzi("CV-1", "CV"))  # defence 10, crippled 5, 6 fighter factors
SB = target_of(kzi("SB-1", "SB"))  # defence 36, crippled 18, SIDS 4.5
SUPPORT_CV = target_of(kzi("CV-2", "CV"), "support", fighters2=12)


def test_crippling_resolves_the_defence_exactly() -> None:
    result = resolve(24, [DN, FF], [Cripple("DN-1")])
    assert (result.crippled, result.destroyed, result.plus2, result.minus2) == (
        ("DN-1",),
        (),
        0,
        0,
    )


def test_destroying_outright_costs_both_sides_and_a_cripple_its_crippled_defence() -> None:
    result = resolve(
        36 + 4,
        [DN, target_of(kzi("FF-2", "FF", crippled=True))],
        [
            Destroy("DN-1"),
            Destroy("FF-2"),
        ],
    )
    assert result.destroyed == ("DN-1", "FF-2")
    assert result.crippled == ()
    assert (result.plus2, result.minus2) == (0, 0)


def test_an_allocation_that_resolves_too_little_is_refused_with_the_numbers() -> None:
    # 10 points: crippling FF-1 (4) leaves 6, and destroying the cripple costs 2
    problems = allocation_problems(20, [DN, FF], [Cripple("FF-1")])
    assert [(p.message, p.rule) for p in problems] == [
        (
            "the allocation resolves too little: 6 points remain and destroying FF-1 resolves 2",
            "302.6",
        )
    ]
    ok = resolve(20, [DN, FF], [Cripple("FF-1"), Destroy("FF-1")])
    # 4 points left, less than half of the 12 needed to cripple DN-1: plus points
    assert (ok.destroyed, ok.plus2, ok.minus2) == (("FF-1",), 8, 0)


def test_the_forced_resolution_rule_makes_the_owner_resolve_at_half_the_cost() -> None:
    problems = allocation_problems(14, [DN], [])
    assert [(p.message, p.rule) for p in problems] == [
        (
            "7 points remain, at least half of the 12 that crippling DN-1 resolves: another "
            "unit must be resolved (forced resolution)",
            "302.61",
        )
    ]
    result = resolve(14, [DN], [Cripple("DN-1")])
    assert (result.crippled, result.plus2, result.minus2) == (("DN-1",), 0, 10)


def test_below_half_the_cheapest_the_points_carry_as_plus_points() -> None:
    result = resolve(10, [DN], [])
    assert (result.plus2, result.minus2, result.crippled) == (10, 0, ())


def test_a_choice_may_overshoot_only_when_the_points_left_reach_half_its_cost() -> None:
    problems = allocation_problems(10, [DN], [Cripple("DN-1")])
    assert [(p.message, p.rule) for p in problems] == [
        (
            "crippling DN-1 resolves 12 with only 5 points left: a choice may exceed the "
            "points left only when they are at least half its cost",
            "302.61",
        )
    ]


def test_nothing_is_resolved_after_the_points_are_spent() -> None:
    problems = allocation_problems(8, [FF, DN], [Cripple("FF-1"), Destroy("FF-1")])
    assert [p.rule for p in problems] == ["302.6"]
    assert problems[0].message == (
        "destroying FF-1 comes after the 4 points are resolved: nothing remains to resolve"
    )


def test_each_fighter_factor_resolves_one_point() -> None:
    result = resolve(6, [CV], [LoseFighters("CV-1", 6)])
    assert result.fighters_lost == (("CV-1", 6),)
    assert result.targets[0].fighters2 == 6
    problems = allocation_problems(6, [CV], [])
    assert problems[0].message == (
        "the allocation resolves too little: 3 points remain and losing 1 fighter factor of "
        "CV-1 resolves 1"
    )
    too_many = allocation_problems(14, [CV], [LoseFighters("CV-1", 14)])
    assert too_many[0].message == "CV-1 has 6 fighter factors here; 7 cannot be lost"


def test_half_a_point_left_with_fighters_present_must_take_a_fighter_factor() -> None:
    problems = allocation_problems(1, [CV], [])
    assert [p.rule for p in problems] == ["302.61"]
    result = resolve(1, [CV], [LoseFighters("CV-1", 2)])
    assert (result.plus2, result.minus2) == (0, 1)


def test_the_support_echelon_loses_only_the_fighters_it_sent_forward() -> None:
    problems = allocation_problems(20, [SUPPORT_CV, DN], [Cripple("CV-2")])
    assert problems[0].message == (
        "CV-2 is in the support echelon: general damage falls on the battle force"
    )
    assert problems[0].rule == "302.6"
    result = resolve(12, [SUPPORT_CV, DN], [LoseFighters("CV-2", 12)])
    assert result.fighters_lost == (("CV-2", 12),) and result.plus2 == 0


def test_voluntary_sids_resolve_the_base_types_points() -> None:
    result = resolve(18, [SB], [VoluntarySids("SB-1"), VoluntarySids("SB-1")])
    assert result.sids == (("SB-1", 2),)
    assert (result.targets[0].steps, result.plus2, result.minus2) == (2, 0, 0)
    # with two steps scored, crippling the starbase costs 36 - 9 = 27 points
    crippled = resolve(54, result.targets, [Cripple("SB-1")])
    assert crippled.crippled == ("SB-1",)


def test_the_eighth_voluntary_step_cripples_a_starbase() -> None:
    base = msgspec.structs.replace(SB, steps=7)
    result = resolve(9, [base], [VoluntarySids("SB-1")])
    assert result.crippled == ("SB-1",)
    assert result.targets[0].steps == 0


def test_sids_only_on_bases_and_not_on_a_crippled_battle_station() -> None:
    problems = allocation_problems(9, [DN], [VoluntarySids("DN-1")])
    assert (problems[0].message, problems[0].rule) == (
        "DN-1 is not a base: it takes no SIDS steps",
        "308.8",
    )
    bats = target_of(kzi("BATS-1", "BATS", crippled=True))
    problems = allocation_problems(8, [bats], [VoluntarySids("BATS-1")])
    assert (problems[0].message, problems[0].rule) == (
        "BATS-1 is crippled and takes no more SIDS steps",
        "308.861",
    )


def test_unknown_and_repeated_units_are_refused() -> None:
    problems = allocation_problems(24, [DN], [Cripple("ZZ-1"), Cripple("DN-1"), Cripple("DN-1")])
    messages = [p.message for p in problems]
    assert "ZZ-1 is not one of this side's units in the battle" in messages
    assert "DN-1 cannot be crippled: it is already crippled" in messages


def test_resolve_refuses_an_illegal_allocation() -> None:
    with pytest.raises(ValueError, match=r"forced resolution\) \(302.61\)"):
        resolve(14, [DN], [])


def test_the_editor_offers_only_legal_choices_and_shows_what_remains() -> None:
    menu = next_choices(20, [DN, FF])
    assert menu.remaining2 == 20 and not menu.may_stop
    assert menu.choices == (
        Priced(Cripple("DN-1"), 24),  # 12 > 10 left, but 10 is at least half of it
        Priced(Destroy("DN-1"), 36),
        Priced(Cripple("FF-1"), 8),
        Priced(Destroy("FF-1"), 12),
    )
    assert "(302.6)" in menu.must
    after = next_choices(20, [DN, FF], [Cripple("FF-1"), Destroy("FF-1")])
    assert (after.remaining2, after.choices, after.may_stop, after.must) == (8, (), True, "")
    over = next_choices(14, [DN], [Cripple("DN-1")])
    assert (over.remaining2, over.choices, over.may_stop) == (-10, (), True)
    with pytest.raises(ValueError, match="nothing remains"):
        next_choices(8, [FF, DN], [Cripple("FF-1"), Destroy("FF-1")])


def test_every_choice_the_editor_offers_is_accepted() -> None:
    """Walk the editor to the end, always taking the cheapest offer: the result is legal."""
    targets = [DN, FF, CV, msgspec.structs.replace(SB, fighters2=0)]
    done: list[Cripple | Destroy | LoseFighters | VoluntarySids] = []
    points2 = 61
    while True:
        menu = next_choices(points2, targets, done)
        if menu.may_stop:
            break
        done.append(min(menu.choices, key=lambda p: p.cost2).choice)
    assert allocation_problems(points2, targets, done) == []
    result = resolve(points2, targets, done)
    # 30.5 points: six fighter factors, FF-1 crippled then destroyed (4 + 2), four SIDS
    # steps (18); the half point left is below half of anything: a plus point
    assert result.fighters_lost == (("CV-1", 12),)
    assert (result.crippled, result.destroyed, result.sids) == ((), ("FF-1",), (("SB-1", 4),))
    assert (result.plus2, result.minus2) == (1, 0)
