"""The supply checks as automatic steps: what the players are told, and the ``show`` summary."""

from __future__ import annotations

import msgspec

from engine.core.ruleset import Event
from engine.fe.forces import OFF_MAP, Unit
from engine.fe.model import FeState
from engine.fe.steps import base, supply
from engine.fe.supply import unit_supply
from tests.engine.fe.steps.tutorial_states import after_setup, orders, placed, run_to, texts

CAPTURED_PLANET = 1611
"""A Klingon minor planet, eight hexes from the nearest Kzinti supply point."""
BEYOND = 1613
"""Two hexes south of it: supplied by that planet alone once the Kzinti hold it."""
BETWEEN = 1612


def _kzinti_raid(state: FeState) -> FeState:
    """The Kzinti CL KZI-0003 in 1613, the Kzinti holding the planet in 1611."""
    state = placed(state, {"KZI-0003": BEYOND})
    board = msgspec.structs.replace(state.board, owners=((CAPTURED_PLANET, "KZI"),))
    return state.with_board(board)


def _check_1a2(state: FeState) -> list[Event]:
    """Complete 1A1: the engine then plays the combat supply check 1A2."""
    _, events = orders(state, "coalition", {"type": "done"})
    return [e for e in events if e.kind == "supply"]


def test_1a2_reports_both_sides_in_supply_after_setup() -> None:
    events = _check_1a2(after_setup())
    assert [e.text for e in events] == [
        "KLI: 11 in supply (410.22)",
        "KZI: 13 in supply (410.22)",
    ]
    assert [(e.seat, e.step) for e in events] == [("coalition", "1A2"), ("alliance", "1A2")]
    assert events[1].data == {
        "empire": "KZI",
        "main": 13,
        "partial": [],
        "none": [],
        "rule": "410.22",
    }


def test_a_phasing_check_reports_the_phasing_side_only() -> None:
    events: list[Event] = []
    run_to(after_setup(), "3B2", events)
    assert [e.text for e in events if e.kind == "supply" and e.step == "3B1"] == [
        "KLI: 11 in supply (410.21)"
    ]


def test_a_captured_planet_makes_a_partial_grid() -> None:
    (_, kzi) = _check_1a2(_kzinti_raid(after_setup()))
    assert kzi.text == "KZI: 12 in supply, 1 in a partial grid (1613) (410.22)"
    assert kzi.data["partial"] == ["KZI-0003"]


def test_an_enemy_ship_cuts_the_partial_grid_and_leaving_restores_it() -> None:
    raid = _kzinti_raid(after_setup())
    cut = placed(raid, {"KLI-0005": BETWEEN})
    (_, kzi) = _check_1a2(cut)
    assert kzi.text == "KZI: 12 in supply, 1 out of supply: CL KZI-0003 in 1613 (410.22)"
    assert kzi.data["none"] == ["KZI-0003"]
    restored = placed(cut, {"KLI-0005": 1607})
    (_, kzi) = _check_1a2(restored)
    assert kzi.text == "KZI: 12 in supply, 1 in a partial grid (1613) (410.22)"


def test_without_the_planet_the_raider_is_out_of_supply() -> None:
    state = placed(after_setup(), {"KZI-0003": BEYOND})
    assert supply.unit_statuses(state)["KZI-0003"] == "none"
    assert supply.empire_supply(state)["KZI"]["out_of_supply"] == ["KZI-0003"]


def test_unit_statuses_are_each_units_own_status_in_board_order() -> None:
    """Worked out once per empire and hex, the statuses are still each unit's own
    (`engine.fe.supply.unit_supply`), in the board's order: units in supply, in a partial
    grid, out of it, and off the map, of both sides, sharing hexes."""
    raid = _kzinti_raid(after_setup())
    off = Unit("KLI-0199", "KLI", "F5", OFF_MAP)
    raiders = [Unit(f"KLI-01{n:02d}", "KLI", "F5", 1302) for n in range(3)]
    shared = placed(raid, {"KLI-0005": BEYOND})  # a hex the two sides see differently
    for state in (after_setup(), raid, shared, placed(raid, {"KLI-0005": BETWEEN}, off, *raiders)):
        grids = supply.grids(state)
        galaxy = base.galaxy()
        expected = {
            u.id: unit_supply(galaxy, state.board, grids[u.empire], u.id)
            for u in state.board.units
            if u.empire in grids
        }
        statuses = supply.unit_statuses(state)
        assert list(statuses.items()) == list(expected.items())
        if state is shared:
            assert statuses["KLI-0005"] != statuses["KZI-0003"]
    assert {statuses[u.id] for u in raiders} == {"none"}
    assert statuses["KZI-0003"] == "none" and "KLI-0199" in statuses


def test_a_long_list_of_units_out_of_supply_is_cut_short() -> None:
    raiders = [Unit(f"KLI-01{n:02d}", "KLI", "F5", 1302) for n in range(10)]
    state = placed(after_setup(), {}, *raiders)
    text = supply.supply_text(state, "KLI", "410.22")
    named = ", ".join(f"F5 KLI-01{n:02d} in 1302" for n in range(supply.NAMED_OUT))
    assert text == f"KLI: 11 in supply, 10 out of supply: {named} and 2 more (410.22)"
    (kli, _) = _check_1a2(state)
    assert kli.data["none"] == [u.id for u in raiders]


def test_empire_supply_summarises_grids_and_statuses() -> None:
    summary = supply.empire_supply(_kzinti_raid(after_setup()))
    assert summary["KZI"] == {
        "main_grids": 1,
        "partial_grids": 1,
        "points": 22,
        "units": {"main": 12, "partial": 1, "none": 0},
        "out_of_supply": [],
    }
    assert summary["KLI"]["units"] == {"main": 11, "partial": 0, "none": 0}


def test_an_empire_with_nothing_on_the_map_says_so() -> None:
    state = after_setup()
    gone = {u.id: 0 for u in state.board.units if u.empire == "KLI"}
    assert supply.supply_text(placed(state, gone), "KLI", "410.22") == (
        "KLI: no units on the map (410.22)"
    )
    assert texts(_check_1a2(placed(state, gone)), "supply")[0] == (
        "KLI: no units on the map (410.22)"
    )
