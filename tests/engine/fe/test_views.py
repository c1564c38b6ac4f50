"""The players' view of an F&E game (`engine.fe.views`): empires, units, hexes as plain data."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.core.ruleset import DecisionKind
from engine.core.turn_orders import Done
from engine.fe import FE
from engine.fe.model import FeState
from engine.fe.orders import parse_orders
from tests.engine.fe.steps.test_adjust_area import tutorial_after_setup

STRIKE_FORCE = ["KLI-0001", "KLI-0002", "KLI-0003", "KLI-0004"]


@pytest.fixture(scope="module")
def after_setup() -> FeState:
    return tutorial_after_setup()


def by(items: list[dict[str, Any]], key: str) -> dict[str, dict[str, Any]]:
    return {item[key]: item for item in items}


def test_units_are_listed_in_their_hexes(after_setup: FeState) -> None:
    view = FE.views(after_setup)
    units = by(view["units"], "id")
    assert [u["id"] for u in view["units"]] == sorted(units)
    assert units["KLI-0002"] == {
        "id": "KLI-0002",
        "class": "D7",
        "empire": "KLI",
        "hex": "1307",
        "crippled": False,
        "fleet": "Strike Force",
        "released": True,
        "reserve": False,
        "supply": "main",
    }
    assert {u["id"] for u in view["units"] if u["hex"] == "1105"} == {
        f"KZI-000{n}" for n in range(1, 6)
    }
    assert units["KZI-B004"]["class"] == "SB" and units["KZI-B004"]["fleet"] is None


def test_hexes_hold_units_bases_and_planets(after_setup: FeState) -> None:
    hexes = by(FE.views(after_setup)["hexes"], "hex")
    assert hexes["1307"] == {
        "hex": "1307",
        "owner": "KLI",
        "captured": False,
        "devastated": False,
        "province": "KLI-05",
        "capital": False,
        "planets": [],
        "bases": [{"id": "KLI-B002", "class": "BATS"}],
        "units": [*STRIKE_FORCE, "KLI-B002"],
    }
    assert hexes["1105"]["planets"] == [{"kind": "minor", "name": None, "capital": False}]
    assert hexes["1411"]["capital"] and hexes["1411"]["units"] == []
    assert "1306" not in hexes, "an empty hex without planets is left out"
    assert [h["hex"] for h in FE.views(after_setup)["hexes"]] == sorted(hexes)


def test_treasury_after_income(after_setup: FeState) -> None:
    state = after_setup
    for _ in range(50):
        if state.ep2("KLI"):
            break
        decision = FE.pending(state)[0]
        assert decision.kind == DecisionKind.ORDERS
        state = FE.apply(state, decision.seats[0], Done()).state
    empires = by(FE.views(state)["empires"], "empire")
    kli = empires["KLI"]
    assert kli["treasury2"] == kli["income2"] == 18
    assert (kli["treasury"], kli["income"], kli["seat"]) == ("9", "9", "coalition")
    assert empires["KZI"]["treasury2"] == 0, "only the phasing empire has collected"
    assert [e["empire"] for e in FE.views(state)["empires"]] == ["KLI", "KZI"]


def test_empire_counts_and_supply(after_setup: FeState) -> None:
    kli = by(FE.views(after_setup)["empires"], "empire")["KLI"]
    assert (kli["units_on_map"], kli["units_off_map"]) == (11, 0)
    assert kli["supply"] == {
        "main_grids": 1,
        "partial_grids": 0,
        "points": kli["supply"]["points"],
        "units": {"main": 11, "partial": 0, "none": 0},
        "out_of_supply": [],
    }
    assert kli["supply"]["points"] >= 5, "the five battle stations at least"


def test_before_set_up_units_are_off_the_map() -> None:
    state = FE.initial_state("tutorial", ["coalition", "alliance"], {})
    view = FE.views(state)
    units = by(view["units"], "id")
    assert units["KLI-0001"]["hex"] is None
    assert units["KLI-B002"]["hex"] == "1307", "map bases stand from the start"
    kli = by(view["empires"], "empire")["KLI"]
    assert (kli["units_on_map"], kli["units_off_map"]) == (5, 6)
    assert units["KLI-0001"]["supply"] is None and units["KLI-B002"]["supply"] == "main"


def test_adjustments_show_in_the_view(after_setup: FeState) -> None:
    orders = parse_orders(
        [
            {"type": "adjust", "change": "cripple", "unit": "KLI-0003", "reason": "combat"},
            {"type": "adjust", "change": "move", "unit": "KLI-0004", "hex": "1306", "reason": "r"},
        ]
    )
    state = after_setup
    for order in orders:
        assert not FE.validate(state, "coalition", order)
        state = FE.apply(state, "coalition", order).state
    view = FE.views(state)
    units = by(view["units"], "id")
    assert units["KLI-0003"]["crippled"] and units["KLI-0004"]["hex"] == "1306"
    assert by(view["hexes"], "hex")["1306"]["units"] == ["KLI-0004"]
    assert view["battles"] == []


def test_battles_and_units_out_of_supply(after_setup: FeState) -> None:
    """The Strike Force moved (by adjustment) onto the Kzinti in 1105 and deep into space."""
    state = after_setup
    for unit, to in (("KLI-0002", "1105"), ("KLI-0003", "5010")):
        (order,) = parse_orders(
            [{"type": "adjust", "change": "move", "unit": unit, "hex": to, "reason": "test"}]
        )
        state = FE.apply(state, "coalition", order).state
    view = FE.views(state)
    (battle,) = view["battles"]
    assert battle["hex"] == "1105" and battle["sides"] == [["KLI"], ["KZI"]]
    units = by(view["units"], "id")
    assert units["KLI-0003"]["supply"] == "none"
    kli = by(view["empires"], "empire")["KLI"]
    assert kli["supply"]["out_of_supply"] == ["KLI-0003"]


def test_the_view_is_plain_json_and_deterministic(after_setup: FeState) -> None:
    text = json.dumps(FE.views(after_setup), sort_keys=False)
    assert json.loads(text) == FE.views(tutorial_after_setup())
