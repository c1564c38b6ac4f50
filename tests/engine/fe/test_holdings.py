"""Starting holdings of a scenario's empires: provinces, planets, capitals, income (753.0)."""

from __future__ import annotations

import pytest

from engine.fe.holdings import scenario_holdings


def test_the_wind_incomes_follow_the_economics_chart() -> None:
    holdings = {h.empire: h for h in scenario_holdings("the-wind")}
    assert [h.empire for h in scenario_holdings("the-wind")] == ["LYR", "KLI", "KZI", "HYD", "FED"]
    assert {e: h.income for e, h in holdings.items()} == {
        "LYR": 115, "KLI": 142, "KZI": 93, "HYD": 74, "FED": 221,
    }  # fmt: skip
    assert holdings["FED"].capitals == (2908,)
    assert holdings["KZI"].offmap_provinces == 3


def test_a_scenario_with_some_provinces_counts_only_those() -> None:
    tutorial = {h.empire: h for h in scenario_holdings("tutorial")}
    klingon = tutorial["KLI"]
    assert klingon.provinces == ("KLI-05", "KLI-11", "KLI-15")
    assert klingon.capitals == () and klingon.offmap_provinces == 0
    minors = sum(1 for p in klingon.planets if p.kind == "minor")
    majors = sum(1 for p in klingon.planets if p.kind == "major")
    assert klingon.income == 2 * 3 + 3 * minors + 5 * majors


def test_unknown_scenario() -> None:
    with pytest.raises(KeyError):
        scenario_holdings("nope")
