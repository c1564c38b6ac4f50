"""Phase 1 income (430.1) on the real map: the chart at the start, then captures and options."""

from __future__ import annotations

import pytest

from engine.fe.economics import (
    EconomyOptions,
    Income,
    collect,
    economy_options,
    fmt_ep,
    income,
    replacement_cost2,
)
from engine.fe.forces import Board, Unit
from engine.fe.galaxy import load_galaxy
from engine.fe.holdings import scenario_holdings
from engine.fe.oob import EmpireSetup
from engine.fe.scenario import find_scenario

CHART = {"LYR": 115, "KLI": 142, "KZI": 93, "HYD": 74, "FED": 221}
"""The economics chart (753.0) for The Wind's five empires."""


def setups(scenario: str = "the-wind") -> dict[str, EmpireSetup]:
    found = find_scenario(scenario)
    assert found is not None and found.setup is not None
    return {e.empire: e for e in found.setup.empires}


def parts(earned: Income) -> int:
    return earned.provinces2 + earned.minor2 + earned.major2 + earned.capital2 + earned.offmap2


def test_the_winds_starting_incomes_follow_the_chart_and_the_holdings() -> None:
    galaxy = load_galaxy()
    holdings = {h.empire: h.income for h in scenario_holdings("the-wind")}
    for empire, setup in setups().items():
        earned = income(galaxy, Board(), empire, setup.economy, provinces=setup.provinces)
        assert earned.gross2 == 2 * CHART[empire] == 2 * holdings[empire], empire
        assert parts(earned) == earned.gross2
        share = {"war": 1000, "limited-war": 750, "peace": 500}[setup.economy]
        assert earned.total2 == earned.gross2 * share // 1000, empire  # FED and HYD: peace
        assert earned.provinces == len(galaxy.provinces_of(empire))


def test_the_breakdown_shows_the_capital_and_off_map_lines() -> None:
    earned = income(load_galaxy(), Board(), "KZI")
    # The Kzinti capital 1401: four major and four minor planets (759.0).
    assert (earned.capital_planets, earned.capital2) == (8, 2 * (4 * 5 + 4 * 3))
    # Off the map: 3 provinces, 2 minor and 1 major planet (753.0).
    assert (earned.offmap_provinces, earned.offmap_planets) == (3, 3)
    assert earned.offmap2 == 2 * (3 * 2 + 2 * 3 + 5)
    assert earned.lines()[-1] == ("total", "93")


def test_a_scenario_with_some_provinces_earns_only_from_those() -> None:
    galaxy = load_galaxy()
    tutorial = {h.empire: h.income for h in scenario_holdings("tutorial")}
    for empire, setup in setups("tutorial").items():
        earned = income(galaxy, Board(), empire, setup.economy, provinces=setup.provinces)
        assert earned.total2 == 2 * tutorial[empire], empire


def test_a_captured_province_pays_neither_side_until_the_hook_says_so() -> None:
    galaxy = load_galaxy()
    province = galaxy.province("KZI-05")  # five hexes, a minor planet in 1105
    board = Board(owners=tuple((h, "LYR") for h in province.hexes))
    kzinti = income(galaxy, board, "KZI")
    assert kzinti.total2 == 2 * (93 - 2 - 3)
    assert kzinti.provinces == len(galaxy.provinces_of("KZI")) - 1
    assert income(galaxy, board, "LYR").total2 == 2 * 115
    held = income(galaxy, board, "LYR", captured=["KZI-05"])
    assert held.total2 == 2 * (115 + 2 + 3)


def test_one_captured_hex_costs_the_province_but_not_its_other_planets() -> None:
    galaxy = load_galaxy()
    board = Board(owners=((1104, "LYR"),))  # KZI-05 without its planet hex
    kzinti = income(galaxy, board, "KZI")
    assert kzinti.total2 == 2 * (93 - 2)
    assert kzinti.minor_planets == income(galaxy, Board(), "KZI").minor_planets


def test_a_devastated_planet_pays_nothing() -> None:
    galaxy = load_galaxy()
    earned = income(galaxy, Board(), "KZI", devastated=[1502])  # a major planet
    assert earned.total2 == 2 * (93 - 5)


def test_a_lost_off_map_area_pays_nothing() -> None:
    earned = income(load_galaxy(), Board(), "KZI", offmap_held=False)
    assert earned.offmap2 == 0 and earned.total2 == 2 * (93 - 17)


def test_peace_and_limited_war_shares_apply_by_default_and_can_be_turned_off() -> None:
    """C (rules notes): 50% at peace, 75% at limited war, by default; rounded down to 0.5 EP."""
    galaxy = load_galaxy()
    assert economy_options({}) == EconomyOptions(fractions=True)
    peace = income(galaxy, Board(), "FED", "peace")
    assert (peace.permille, peace.gross2, peace.total2) == (500, 442, 221)  # 221 EP -> 110.5
    assert ("economy share 50%", "110.5") in peace.lines()
    limited = income(galaxy, Board(), "FED", "limited-war")
    assert limited.total2 == 331  # 221 x 3/4 = 165.75 EP, rounded down to 165.5
    assert ("economy share 75%", "165.5") in limited.lines()
    assert income(galaxy, Board(), "FED", "war").total2 == 442
    off = economy_options({"economy-fractions": "off"})
    assert income(galaxy, Board(), "FED", "peace", options=off).total2 == 442
    thirds = economy_options({"peace-income-permille": 333})
    assert income(galaxy, Board(), "FED", "peace", options=thirds).total2 == 147  # 73.593 -> 73.5


def test_collect_adds_the_income_to_the_treasury() -> None:
    earned = income(load_galaxy(), Board(), "HYD")
    assert collect(7, earned) == 7 + 2 * 74


@pytest.mark.parametrize(("ep2", "text"), [(75, "37.5"), (62, "31"), (0, "0"), (-5, "-2.5")])
def test_money_is_printed_as_the_tables_print_it(ep2: int, text: str) -> None:
    assert fmt_ep(ep2) == text


def test_fighter_and_pf_prices_follow_the_specified_costs() -> None:
    carrier = Unit("KZI-0001", "KZI", "CV", 1401)
    base = Unit("KZI-0002", "KZI", "SB", 1401)
    pdu = Unit("KZI-0003", "KZI", "PDU", 1401)
    hybrid = Unit("HYD-0001", "HYD", "HR", 617)
    assert replacement_cost2(carrier, 4) == 8  # 2 factors x 2 EP
    assert replacement_cost2(base, 4) == 4  # 2 factors x 1 EP
    assert replacement_cost2(hybrid, 4) == 4  # 2 factors x 1 EP
    assert replacement_cost2(pdu, 4) == 2  # 2 factors x 0.5 EP
    assert replacement_cost2(pdu, 1) == 1  # half a factor: a quarter EP rounds up to a half
    assert replacement_cost2(base, 0, pfs=3) == 3  # 3 PFs x 0.5 EP


def test_income_is_deterministic() -> None:
    galaxy = load_galaxy()
    board = Board(owners=((1104, "LYR"), (1105, "LYR")))
    first = income(galaxy, board, "KZI", devastated=[1502, 1001], captured=[])
    again = income(galaxy, board, "KZI", devastated=[1001, 1502])
    assert first == again
