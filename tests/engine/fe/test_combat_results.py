"""The 300 Combat Results Table, battle intensity and damage (302.4, 304): issue 14 items 5-7."""

from __future__ import annotations

import pytest

from engine.core.ruleset import Violation
from engine.fe.combat import results
from engine.fe.combat.potential import (
    DOWN,
    NEAREST_HALF_DOWN,
    NEAREST_HALF_UP,
    UP,
    apply_minus,
    damage,
    damage_text,
    exact_text,
    round_damage,
    rounding_option,
    with_plus,
)
from engine.fe.combat.results import (
    RESULT_PERMILLE,
    check_die,
    check_pick,
    check_total,
    combat_result,
    fighting_retreat_bir,
    intensity,
    permille_text,
    variable_bir,
    weapon_allowed,
)

# The long 300 table of the summary, BIR rows 0..10 by die 1..6, in per-mille: typed here
# from the printed percentages so the formula in `results` is checked against the print.
PRINTED_300 = {
    0: (100, 125, 150, 175, 200, 225),
    1: (125, 150, 175, 200, 225, 250),
    2: (150, 175, 200, 225, 250, 275),
    3: (175, 200, 225, 250, 275, 300),
    4: (200, 225, 250, 275, 300, 325),
    5: (225, 250, 275, 300, 325, 350),
    6: (250, 275, 300, 325, 350, 375),
    7: (275, 300, 325, 350, 375, 400),
    8: (300, 325, 350, 375, 400, 425),
    9: (325, 350, 375, 400, 425, 450),
    10: (350, 375, 400, 425, 450, 500),
}


def test_issue_example_potential_40_birs_2_and_2_vbir_4_die_3() -> None:
    bir = intensity(2, 2, 4)
    assert (bir.vbir, bir.total) == (0, 4)
    got = damage(80, bir.total, 3, vbir_die=bir.vbir_die)
    assert (got.result, got.permille, got.damage, got.remainder2000) == (7, 250, 10, 0)
    assert permille_text(got.permille) == "25%"


def test_issue_example_potential_36_bir_10() -> None:
    six = damage(72, 10, 6)
    assert (six.result, six.permille, six.damage) == (16, 500, 18)
    five = damage(72, 10, 5)
    assert (five.result, five.permille) == (15, 450)
    assert exact_text(five.exact2000) == "16.2"
    assert five.damage == 16 and five.remainder2000 == 400  # 0.2 dropped
    assert damage(72, 10, 5, rounding=UP).damage == 17
    assert damage(72, 10, 5, rounding=DOWN).damage == 16
    assert damage(72, 10, 5, rounding=NEAREST_HALF_DOWN).damage == 16
    assert damage_text(five) == "potential 36 x 45% = 16.2 -> 16 damage points (nearest-half-up)"


@pytest.mark.parametrize("bir", range(11))
@pytest.mark.parametrize("die", range(1, 7))
def test_every_cell_of_the_printed_300_table(bir: int, die: int) -> None:
    got = combat_result(bir, die)
    assert got.permille == PRINTED_300[bir][die - 1]
    assert got.result == bir + die
    assert RESULT_PERMILLE[got.result] == got.permille


@pytest.mark.parametrize(
    ("bir", "die", "potential", "points"),
    [
        (0, 1, 40, 4),  # 10%
        (1, 3, 40, 7),  # 17.5% of 40 = 7
        (2, 2, 18, 3),  # 17.5% of 18 = 3.15
        (3, 4, 20, 5),  # 25%
        (4, 6, 30, 10),  # 32.5% of 30 = 9.75
        (5, 1, 12, 3),  # 22.5% of 12 = 2.7
        (6, 5, 10, 4),  # 35% of 10 = 3.5, a half goes up
        (7, 2, 44, 13),  # 30% of 44 = 13.2
        (8, 6, 100, 43),  # 42.5% of 100 = 42.5 -> 43
        (9, 6, 60, 27),  # 45%
        (10, 1, 18, 6),  # 35% of 18 = 6.3
    ],
)
def test_damage_on_every_bir_row(bir: int, die: int, potential: int, points: int) -> None:
    assert damage(2 * potential, bir, die).damage == points


def test_half_factors_of_potential_stay_exact() -> None:
    got = damage(81, 3, 4)  # 40.5 x 25% = 10.125
    assert exact_text(got.exact2000) == "10.125" and got.damage == 10
    odd = damage(3, 0, 2)  # 1.5 x 12.5% = 0.1875
    assert exact_text(odd.exact2000) == "0.1875" and odd.damage == 0
    assert damage(3, 0, 2, rounding=UP).damage == 1


def test_rounding_of_halves_by_option() -> None:
    assert [round_damage(3000, r) for r in (NEAREST_HALF_UP, NEAREST_HALF_DOWN, DOWN, UP)] == [
        2,
        1,
        1,
        2,
    ]
    assert [round_damage(3600, r) for r in (NEAREST_HALF_UP, NEAREST_HALF_DOWN, DOWN, UP)] == [
        2,
        2,
        1,
        2,
    ]
    assert round_damage(4000, UP) == 2  # whole amounts are never pushed
    with pytest.raises(ValueError, match="unknown damage rounding"):
        round_damage(3000, "banker")
    assert rounding_option({}) == NEAREST_HALF_UP
    assert rounding_option({"damage-rounding": "up"}) == UP
    assert rounding_option({"damage-rounding": "sideways"}) == NEAREST_HALF_UP


def test_notes_example_18_at_10_percent_rounds_up() -> None:
    assert damage(36, 0, 1).damage == 2  # 1.8 -> 2


def test_variable_bir_die() -> None:
    assert [variable_bir(d) for d in range(1, 7)] == [-2, -1, 0, 0, 1, 2]
    with pytest.raises(ValueError):
        variable_bir(7)


def test_intensity_adds_picks_and_die_and_clamps_to_the_table() -> None:
    assert intensity(1, 1, 1).total == 0
    assert intensity(4, 4, 6).total == 10
    assert intensity(3, 2, 2).total == 4
    assert intensity(4, 4, 6, modifier=1).total == 10  # stolen war plans cannot leave the table
    assert intensity(1, 1, 1, modifier=-1).total == 0
    assert intensity(1, 2, 1, modifier=-3).total == 0
    raised = intensity(4, 4, 4, modifier=1)
    assert (raised.vbir, raised.modifier, raised.total) == (0, 1, 9)


def test_results_clamp_to_the_tables_ends() -> None:
    assert combat_result(12, 6).bir == 10 and combat_result(12, 6).permille == 500
    assert combat_result(-3, 1).bir == 0 and combat_result(-3, 1).permille == 100
    assert combat_result(10, 6, 2).result == 16
    assert combat_result(10, 5, 2).permille == 500  # 10 + 5 + 2 = 17 -> 16


def test_ew_shift_raises_the_result_both_ways() -> None:
    # the attacker's roll with a +2 EW advantage; the defender's roll with +1
    assert combat_result(4, 3, 2).permille == combat_result(6, 3).permille == 300
    assert combat_result(4, 3, 1).permille == 275
    assert combat_result(4, 3, 0).permille == 250


def test_fighting_retreat_rows() -> None:
    assert fighting_retreat_bir(retreating=True) == 0
    assert fighting_retreat_bir(retreating=False) == 10
    retreating = damage(40, fighting_retreat_bir(retreating=True), 6)
    blocking = damage(40, fighting_retreat_bir(retreating=False), 6)
    assert (retreating.permille, blocking.permille) == (225, 500)


def test_bad_dice_and_ratings_are_refused_with_the_numbers() -> None:
    assert check_die(6) is None and check_die(1) is None
    assert check_die(7) == Violation("a die roll of 7 is not possible: a die shows 1 to 6", "302.4")
    assert check_die(0) is not None
    assert check_pick(1) is None and check_pick(4) is None
    refused = check_pick(5)
    assert refused is not None and refused.rule == "304.1" and "5" in refused.message
    assert check_pick(0) is not None
    assert check_total(0) is None and check_total(10) is None
    total = check_total(11)
    assert total is not None and "11" in total.message and "0 to 10" in total.message
    with pytest.raises(ValueError):
        combat_result(4, 7)
    with pytest.raises(ValueError):
        damage(-2, 4, 3)


def test_minimum_birs_for_weapons() -> None:
    assert weapon_allowed("mauler", 4) is None
    refused = weapon_allowed("mauler", 3)
    assert refused is not None and "at least 4" in refused.message and "is 3" in refused.message
    assert weapon_allowed("SFG", 3) is None and weapon_allowed("SFG", 2) is not None
    assert weapon_allowed("SAF", 4) is None and weapon_allowed("ground", 3) is not None
    assert weapon_allowed("phaser", 0) is None
    assert results.MINIMUM_BIR["web"] == 4


def test_plus_and_minus_points_carry() -> None:
    assert apply_minus(10, 3) == (7, 0)
    assert apply_minus(2, 5) == (0, 3)
    assert apply_minus(0, 0) == (0, 0)
    assert with_plus(7, 2) == 9


def test_permille_text() -> None:
    assert [permille_text(p) for p in (100, 125, 175, 500)] == ["10%", "12.5%", "17.5%", "50%"]
