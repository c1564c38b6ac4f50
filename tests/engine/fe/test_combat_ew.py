"""Electronic warfare (308.51, 313.0): scouts, variable scouts, base EW tables, the shift."""

from __future__ import annotations

import pytest

from engine.core.ruleset import Violation
from engine.fe.combat import ew
from engine.fe.combat.ew import (
    PLAY_AID,
    RATING,
    UnitEw,
    base_attack,
    base_ewf_range,
    check_shift,
    ew_options,
    ew_shift,
    side_ew,
    unit_ew,
)
from engine.fe.forces import Unit


def unit(empire: str, cls: str, *, crippled: bool = False, uid: str = "") -> Unit:
    return Unit(uid or f"{empire}-{cls}", empire, cls, 1401, crippled)


def test_shift_goes_to_the_side_with_more_ew_both_ways() -> None:
    assert ew_shift(4, 2) == 2 and ew_shift(2, 4) == 0  # the coalition scout's side
    assert ew_shift(1, 3) == 0 and ew_shift(3, 1) == 2  # the other side's turn
    assert ew_shift(5, 4) == 1 and ew_shift(4, 5) == 0
    assert ew_shift(9, 0) == 2  # capped
    assert ew_shift(9, 0, most=3) == 3
    assert ew_shift(3, 3) == 0


def test_check_shift_refuses_impossible_shifts() -> None:
    assert check_shift(0) is None and check_shift(2) is None
    refused = check_shift(3)
    assert refused is not None and refused.rule == "308.51" and "0 to 2" in refused.message
    assert check_shift(-1) is not None
    assert check_shift(3, most=3) is None


def test_fixed_scouts_and_their_crippled_side() -> None:
    assert unit_ew(unit("FED", "SC")) == UnitEw(4, 4)
    assert unit_ew(unit("FED", "SC", crippled=True)) == UnitEw(0, 0)  # no scout symbol
    assert unit_ew(unit("KLI", "D7")) == UnitEw(0, 16)
    refused = unit_ew(unit("KLI", "D7"), 2)
    assert isinstance(refused, Violation) and "no EW choice" in refused.message


def test_variable_scouts_choose_a_mode() -> None:
    cvl = unit("FED", "CVL")
    assert unit_ew(cvl) == UnitEw(1, 12)  # the default keeps the most attack
    assert unit_ew(cvl, 4) == UnitEw(4, 4)
    assert unit_ew(cvl, 1) == UnitEw(1, 12)
    refused = unit_ew(cvl, 3)
    assert isinstance(refused, Violation)
    assert "cannot give 3 EW points" in refused.message and "1, 4" in refused.message
    assert unit_ew(unit("FED", "CVL", crippled=True)) == UnitEw(0, 6)


def test_starbase_trades_attack_for_ew_in_the_rating_order() -> None:
    sb = unit("LYR", "SB")
    assert [base_attack("SB", e, crippled=False) for e in range(1, 7)] == [36, 30, 24, 18, 12, 6]
    assert unit_ew(sb) == UnitEw(1, 72)  # the printed 36 attack at EWF 1
    assert unit_ew(sb, 4) == UnitEw(4, 36)
    assert unit_ew(unit("LYR", "SB", crippled=True)) == UnitEw(1, 36)
    assert unit_ew(unit("LYR", "SB", crippled=True), 3) == UnitEw(3, 12)
    refused = unit_ew(unit("LYR", "SB", crippled=True), 4)
    assert isinstance(refused, Violation) and "(1 to 3)" in refused.message
    assert refused.rule == "313.0"


def test_starbase_in_the_play_aid_order() -> None:
    order = PLAY_AID
    assert [base_attack("SB", e, crippled=False, order=order) for e in range(1, 7)] == [
        6,
        12,
        18,
        24,
        30,
        36,
    ]
    # crippled values sit under the play aid's columns 4-6 (24/6, 30/12, 36/18)
    assert base_ewf_range("SB", crippled=True, order=order) == (4, 6)
    assert [base_attack("SB", e, crippled=True, order=order) for e in (4, 5, 6)] == [6, 12, 18]
    assert unit_ew(unit("LYR", "SB"), order=order) == UnitEw(6, 72)  # no choice: most attack
    refused = base_attack("SB", 1, crippled=True, order=order)
    assert isinstance(refused, Violation) and "(4 to 6)" in refused.message
    # the play aid's SBX and BTX rows come back exactly
    assert [
        base_attack("SBX", e, crippled=False, enemies=["KZI"], order=order) for e in (1, 6)
    ] == [
        27,
        54,
    ]
    assert [base_attack("BTX", e, crippled=False, order=order) for e in (1, 2, 3)] == [9, 14, 18]
    assert [base_attack("BTX", e, crippled=True, order=order) for e in (2, 3)] == [5, 9]


def test_enemy_specific_rows() -> None:
    assert base_attack("SB", 6, crippled=False, enemies=["KZI"]) == 18
    assert base_attack("SB", 6, crippled=False, enemies=["FED", "KLI"]) == 12
    assert base_attack("SB", 6, crippled=False, enemies=["LYR"]) == 6
    assert base_attack("SB", 6, crippled=False, enemies=["KZI", "LYR"]) == 6  # mixed: general
    assert base_attack("SB", 3, crippled=True, enemies=["KZI"]) == 9
    assert base_attack("STB", 4, crippled=False, enemies=["KLI"]) == 9
    assert base_attack("BATS", 2, crippled=True, enemies=["FED"]) == 4
    assert base_attack("BSX", 3, crippled=False, enemies=["FED"]) == 6
    assert base_attack("BS", 2, crippled=False, enemies=["KZI"]) == 10
    assert base_attack("SBv.2", 2, crippled=False) == 30


def test_bases_without_a_chart_are_refused() -> None:
    refused = base_attack("BSX", 1, crippled=True)
    assert isinstance(refused, Violation) and "no EW factor" in refused.message
    assert isinstance(base_attack("SFB", 1, crippled=False), Violation)
    assert base_ewf_range("MB", crippled=False) is None


def test_side_ew_sums_the_force_and_refuses_bad_choices() -> None:
    force = [unit("FED", "SC", uid="a"), unit("FED", "CVL", uid="b"), unit("FED", "CA", uid="c")]
    assert side_ew(force) == 5
    assert side_ew(force, {"b": 4}) == 8
    refused = side_ew(force, {"c": 1})
    assert isinstance(refused, Violation)
    kzinti = [unit("KZI", "BATS", uid="k")]
    assert side_ew(kzinti, {"k": 4}) == 4
    assert unit_ew(kzinti[0], 4, enemies=["KLI"]) == UnitEw(4, 12)  # 6 vs Klingons
    assert unit_ew(kzinti[0], 4, enemies=["LYR"]) == UnitEw(4, 6)


def test_options_read_with_defaults() -> None:
    assert ew_options({}) == ew.EwOptions(RATING, 2)
    assert ew_options({"base-ew-order": "play-aid", "ew-shift-max": 3}) == ew.EwOptions(PLAY_AID, 3)
    assert ew_options({"base-ew-order": "upside-down", "ew-shift-max": True}).order == RATING
    assert ew_options({"ew-shift-max": -1}).shift_max == 2


@pytest.mark.parametrize("kind", sorted(ew.BASE_EW))
def test_every_chart_trades_attack_for_ew(kind: str) -> None:
    """In the rating order each higher EWF keeps no more attack than the one below it."""
    for chart_rows in (ew.BASE_EW[kind].full, ew.BASE_EW[kind].crippled):
        for row in chart_rows:
            assert list(row.attack) == sorted(row.attack, reverse=True), (kind, row)
