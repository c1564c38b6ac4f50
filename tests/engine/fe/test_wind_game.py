"""The scripted Wind game (set-up and both player turns of turn 1): what the engine did.

The golden file pins every state hash of this chain (`tests/golden`); these tests say what
those hashes stand for, so a changed golden file can be judged by reading them.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.core.ruleset import Event
from engine.fe.holdings import scenario_holdings
from engine.fe.model import FeState
from engine.fe.scenario import find_scenario
from engine.fe.setup import placeable
from tests.engine.fe_wind import play_wind_turns
from tests.engine.table import Table


@pytest.fixture(scope="module")
def table() -> Table:
    return play_wind_turns()


def events(table: Table, kind: str) -> list[Event]:
    return [e for r in table.results for e in r.events if e.kind == kind]


def final(table: Table) -> FeState:
    assert table.state is not None and table.state.rules is not None
    rules: Any = table.state.rules
    return rules  # type: ignore[no-any-return]


def test_every_fleet_that_sets_up_on_the_map_was_placed(table: Table) -> None:
    state = final(table)
    assert not state.setup
    placed = {u for e in events(table, "place") for u in e.data["units"]}
    setup = find_scenario("the-wind").setup  # type: ignore[union-attr]
    assert setup is not None
    with_hexes = {(e.empire, f.name) for e in setup.empires for f in e.fleets if placeable(f)}
    delivered = {u for e in events(table, "reinforcement") for u in e.data["units"]}
    assert delivered, "the Third Fleet's DN and the Hydran Home Fleet's 5 ships (431.0)"
    starting = {
        u.id
        for u in state.board.units
        if (u.empire, u.fleet) in with_hexes and u.id not in delivered
    }
    lost = {e.data["unit"] for e in events(table, "adjust") if e.data["change"] == "destroy"}
    lost |= allocated_destroyed(table)
    assert placed - lost == starting and len(placed) > 500
    off_map = {u.fleet for u in state.board.units if u.hex == 0}
    assert off_map and not off_map & {fleet for _, fleet in with_hexes}


SHARE = {"FED": 750, "HYD": 500}
"""Thousandths of the chart income collected on turn 1 (the default options, C): the Hydrans
are on a peace economy; the Federation went on limited war when the Lyrans entered Kzinti
space in the Coalition's player turn (601.0), before its own economic phase."""

DISRUPTED2 = {"KZI": 4}
"""EP (halves) the chart's income lost to disruption (430.22, `engine.fe.provinces`): the
Lyran ships still in 0701 at the Kzinti Phase 1C stand in a Kzinti province (2 EP)."""


def earned2(empire: str, chart: int) -> int:
    """Turn 1's income in halves: the chart's (753.0) less the disrupted provinces, at the
    empire's economy share rounded down to the half EP."""
    return (2 * chart - DISRUPTED2.get(empire, 0)) * SHARE.get(empire, 1000) // 1000


def test_each_empire_collected_its_chart_income_once(table: Table) -> None:
    expected = {h.empire: earned2(h.empire, h.income) for h in scenario_holdings("the-wind")}
    collected = {e.data["empire"]: e.data["ep2"] for e in events(table, "income")}
    assert collected == expected
    assert expected["FED"] == 331 and expected["HYD"] == 74  # 165.5 EP and 37 EP
    (change,) = events(table, "economy")
    assert (change.data["empire"], change.data["economy"]) == ("FED", "limited-war")
    assert change.data["reason"].startswith("LYR entered KZI space")


def test_treasuries_are_income_less_builds_and_moves(table: Table) -> None:
    state = final(table)
    spent: dict[str, int] = {}
    for event in events(table, "build"):
        spent[event.data["empire"]] = spent.get(event.data["empire"], 0) + event.data["cost2"]
    for event in events(table, "strategic"):
        empire = event.data["empire"]
        spent[empire] = spent.get(empire, 0) + event.data.get("cost2", 0)
    for holding in scenario_holdings("the-wind"):
        earned = earned2(holding.empire, holding.income)
        assert state.ep2(holding.empire) == earned - spent.get(holding.empire, 0)
    assert spent["LYR"] == spent["KZI"] == 5  # a frigate each, 2.5 EP


def test_movement_opened_a_reaction_window_and_made_a_battle(table: Table) -> None:
    batches = events(table, "batch")
    assert len(batches) == 1
    moved = events(table, "move")
    assert [e.seat for e in moved] == ["coalition", "coalition", "alliance"]
    listed = events(table, "battle-hexes")
    assert len(listed) == 2 and "0701" in listed[0].text
    assert "LYR 6 ships vs KZI 17 ships" in listed[0].text
    # The Kzinti ships retreat, their BATS fights on; the Lyrans retreat in round 2 to 0702
    # (302.72, 302.741), so nobody fights in the alliance's combat phase.
    assert [e.data["to"] for e in events(table, "retreat") if "to" in e.data] == ["0601", "0702"]
    assert listed[1].data["hexes"] == []


def allocated_destroyed(table: Table) -> set[str]:
    """Units the engine's damage allocations destroyed (302.6)."""
    return {
        loss.split()[0]
        for e in events(table, "allocation")
        for loss in e.data["losses"]
        if loss.endswith(" destroyed")
    }


def test_typed_adjustments_changed_the_board(table: Table) -> None:
    """The cripple recorded by hand holds (or the engine's damage later destroyed it)."""
    state = final(table)
    by_change = {e.data["change"]: e for e in events(table, "adjust")}
    assert len(by_change) == len(events(table, "adjust")) == 2
    cripple, destroy = by_change["cripple"], by_change["destroy"]
    if cripple.data["unit"] not in allocated_destroyed(table):
        assert state.board.unit(cripple.data["unit"]).crippled
    with pytest.raises(KeyError):
        state.board.unit(destroy.data["unit"])


def test_the_engine_allocated_the_battle_s_damage(table: Table) -> None:
    """Both sides of the 0701 battle resolved the damage the engine scored (302.6)."""
    allocations = events(table, "allocation")
    assert {e.seat for e in allocations} == {"coalition", "alliance"}
    assert all(e.data["hex"] == "0701" for e in allocations)


def test_turn_two_began_with_the_scripted_war(table: Table) -> None:
    state = final(table)
    assert (state.turn, state.player_turn, state.setup) == (2, 0, False)
    assert ("KLI", "KZI") in state.at_war
    assert ("KLI", "Northern Fleet") in state.released
    assert state.reserves == ()  # the Lyran reserve ended as the coalition's phase 1 began
