"""Reinforcements of The Wind: pre-war construction delivered on its turn, off-map fleets that
arrive by strategic movement (`engine.fe.reinforcements`, `engine.fe.steps.arrivals`).

Figures from the order of battle (engine/fe/data/setups/the-wind.json, converted from
default_oob.json): the Federation Third Fleet receives a DN in Fall Y168 (turn 1) and a CVB,
a DE and an FFE in Spring Y169 (turn 2); the Hydran Home Fleet receives RN, HR and 3 HN
(5 ships) in Fall Y168 and PAL, RN, HR and 3 HN (6 ships) in Spring Y169, 11 in all, then a
12-ship batch in Fall Y169, the turn the script takes the Hydrans to war. The Lyran Far Stars
Fleet (23 units, no set-up hexes) and the Kzinti Baron's Fleet (15 units, arriving at 1401)
come by strategic movement in Y169 (spring: turn 2).
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from engine.core.ruleset import Event
from engine.fe import RULESET, flow
from engine.fe.forces import OFF_MAP, Unit
from engine.fe.galaxy import load_galaxy
from engine.fe.model import FeState
from engine.fe.orders import Place, StrategicOrder
from engine.fe.reinforcements import delivery_hex, describe, due, scripted_wars
from engine.fe.scenario import Scenario, find_scenario
from engine.fe.setup import Placement, check_placements
from engine.fe.steps.setup_stage import starting_board
from engine.fe.strategic import StrategicMove, check_strategic
from engine.fe.supply import supply_grid
from tests.engine.fe.helpers import fresh, play, run_until, start


def wind() -> Scenario:
    found = find_scenario("the-wind")
    assert found is not None and found.setup is not None
    return found


def current(state: FeState) -> str:
    step = flow.current(state)
    return step.id if step is not None else ""


def at(turn: int, player_turn: int, step: str) -> Callable[[FeState], bool]:
    def check(state: FeState) -> bool:
        return state.turn == turn and state.player_turn == player_turn and current(state) == step

    return check


def until(turn: int, player_turn: int, step: str, events: list[Event] | None = None) -> FeState:
    return run_until(start(), at(turn, player_turn, step), events)


# --- due: what each turn brings --------------------------------------------------------------


def test_due_on_turn_1_lists_the_third_fleet_dn_and_the_hydran_home_fleet_batch() -> None:
    items = {(d.empire, d.fleet): d for d in due(wind(), 1)}
    assert set(items) == {("FED", "Third Fleet"), ("HYD", "Home Fleet")}
    third = items["FED", "Third Fleet"]
    assert (third.kind, third.count, third.units[0].unit) == ("prewar", 1, "DN")
    assert third.rule == "431.0" and third.source == "Third Fleet pre-war construction, Fall Y168"
    assert 2211 in third.hexes and not third.withheld
    assert items["HYD", "Home Fleet"].count == 5
    assert describe(third).startswith("FED Third Fleet: DN in 2006, 2007")


def test_due_on_turn_2_lists_the_arrivals_and_the_hydrans_reach_11_ships() -> None:
    items = {(d.empire, d.fleet, d.kind): d for d in due(wind(), 2)}
    assert items["FED", "Third Fleet", "prewar"].count == 3
    hydran = sum(d.count for t in (1, 2) for d in due(wind(), t) if d.empire == "HYD")
    assert hydran == 11
    far = items["LYR", "Far Stars Fleet", "arrival"]
    assert (far.count, far.hexes, far.rule) == (23, (), "204.0")
    baron = items["KZI", "Baron's Fleet", "arrival"]
    assert (baron.count, baron.hexes) == (15, (1401,))


def test_pre_war_ships_are_withheld_once_the_empire_is_at_war() -> None:
    """Turn 3: the script takes the Hydrans to war; the Federation is still at peace."""
    assert ("HYD", "KLI") in scripted_wars(wind().setup, 3)  # type: ignore[arg-type]
    items = {(d.empire, d.fleet): d for d in due(wind(), 3)}
    home = items["HYD", "Home Fleet"]
    assert home.count == 12 and home.withheld.startswith("HYD is at war with KLI, LYR")
    assert items["FED", "Sixth Fleet"].count == 1 and not items["FED", "Sixth Fleet"].withheld
    peaceful = {(d.empire, d.fleet): d for d in due(wind(), 3, wars=())}
    assert not peaceful["HYD", "Home Fleet"].withheld


def test_nothing_is_due_outside_the_order_of_battle_dates() -> None:
    assert due(wind(), 0) == ()
    assert not [d for d in due(wind(), 6) if d.kind == "arrival"]


# --- delivery in the production step -----------------------------------------------------------


def test_pre_war_ships_arrive_in_the_owners_phase_2_at_a_starbase_of_the_fleet_area() -> None:
    events: list[Event] = []
    coalition = until(1, 0, "2B3", events)
    assert not [e for e in events if e.kind == "reinforcement"], "nothing for LYR and KLI"
    before = {u.id for u in coalition.board.units}
    state = until(1, 1, "2B3", events)
    new = [u for u in state.board.units if u.id not in before and u.empire in ("FED", "HYD")]
    shown = sorted((u.empire, u.cls, u.hex, u.fleet) for u in new)
    assert ("FED", "DN", 2211, "Third Fleet") in shown
    assert sorted(u.cls for u in new if u.empire == "HYD") == ["HN", "HN", "HN", "HR", "RN"]
    assert all(u.hex == 617 and u.fleet == "Home Fleet" for u in new if u.empire == "HYD")
    (fed,) = [e for e in events if e.kind == "reinforcement" and e.data["empire"] == "FED"]
    assert fed.step == "2B3" and fed.data["rule"] == "431.0"
    assert "Third Fleet pre-war construction, Fall Y168" in fed.text and "2211" in fed.text


def test_the_hydrans_at_war_on_turn_3_receive_nothing_and_the_event_says_why() -> None:
    events: list[Event] = []
    state = until(3, 1, "2B3", events)
    hydran = [e for e in events if e.kind == "reinforcement" and e.data["empire"] == "HYD"]
    assert [len(e.data["units"]) for e in hydran] == [5, 6, 0]
    assert "at war with KLI, LYR" in hydran[-1].text and "(431.0)" in hydran[-1].text
    assert sum(1 for u in state.board.units if u.empire == "HYD" and u.fleet == "Home Fleet") == (
        16 + 11
    )


def test_the_delivery_hex_falls_back_when_the_fleet_area_is_lost() -> None:
    scenario = wind()
    galaxy = load_galaxy()
    third = scenario.setup.empire("FED").fleet("Third Fleet")  # type: ignore[union-attr]
    assert third is not None
    board = starting_board(scenario)
    assert delivery_hex(galaxy, board, "FED", third) == 2211  # the starbase
    lost = msgspec.structs.replace(board, owners=((2211, "KLI"),))
    assert delivery_hex(galaxy, lost, "FED", third) == 2006  # a battle station
    everything = tuple((h, "KLI") for h in third.hexes)
    gone = msgspec.structs.replace(board, owners=everything)
    assert delivery_hex(galaxy, gone, "FED", third) == 2908  # the capital
    capital = msgspec.structs.replace(board, owners=(*everything, (2908, "KLI")))
    assert delivery_hex(galaxy, capital, "FED", third) == OFF_MAP


# --- off-map fleets ------------------------------------------------------------------------------


def test_the_barons_fleet_does_not_set_up_on_the_map() -> None:
    state = fresh()
    setup = wind().setup.empire("KZI")  # type: ignore[union-attr]
    assert setup is not None
    (problem,) = check_placements(state.board, setup, [Placement(1401, fleet="Baron's Fleet")])
    assert problem.rule == "600.0"
    assert "arrives by strategic movement in Spring Y169" in problem.message
    after = start()
    baron = [u for u in after.board.units if u.fleet == "Baron's Fleet"]
    assert len(baron) == 15 and all(u.hex == OFF_MAP for u in baron)


def test_a_placement_order_for_the_barons_fleet_is_refused_whole() -> None:
    state = run_until(fresh(), lambda s: current(s) == "0-KZI")
    order = Place(hex="1401", fleet="Baron's Fleet")
    (violation,) = RULESET.validate(state, "alliance", order)
    assert violation.rule == "600.0" and "starts off the map" in violation.message


def test_the_barons_fleet_may_not_arrive_before_spring_y169() -> None:
    state = until(1, 1, "8A")
    ids = [u.id for u in state.board.units if u.fleet == "Baron's Fleet"][:2]
    refused = RULESET.validate(state, "alliance", StrategicOrder(ids, "1401"))
    found = {(v.rule, v.message) for v in refused}
    assert ("600.3", f"{ids[0]} (CV) belongs to Baron's Fleet, which is not released") in found
    assert (
        "204.0",
        f"{ids[0]} (CV, Baron's Fleet) arrives by strategic movement from Spring Y169 (turn 2) "
        "on; this is Fall Y168 (turn 1)",
    ) in found


def test_the_barons_fleet_arrives_at_the_capital_by_strategic_movement_on_turn_2() -> None:
    state = until(2, 1, "8A")
    ids = [u.id for u in state.board.units if u.fleet == "Baron's Fleet"][:3]
    wrong = RULESET.validate(state, "alliance", StrategicOrder(ids[:1], "1101"))
    assert [(v.rule, v.message) for v in wrong if v.rule == "204.0"] == [
        ("204.0", "Baron's Fleet arrives from the off-map area in 1401, not 1101")
    ]
    events: list[Event] = []
    after = play(state, "alliance", StrategicOrder(ids, "1401"), events)
    assert all(after.board.unit(i).hex == 1401 for i in ids)
    (moved,) = [e for e in events if e.kind == "strategic"]
    assert "from the off-map area (1 hex)" in moved.text


def test_the_whole_barons_fleet_arrives_its_tug_carrying_the_mobile_base() -> None:
    """509.1-C: the Baron's Fleet's TGT takes the mobile-base mission and brings its MB; all
    15 units reach 1401 (15 strategic moves, 10 free: 5 EP)."""
    state = until(2, 1, "8A")
    fleet = [u for u in state.board.units if u.fleet == "Baron's Fleet"]
    assert len(fleet) == 15 and [u.cls for u in fleet].count("MB") == 1
    ids = [u.id for u in fleet]
    before = state.ep2("KZI")
    after = play(state, "alliance", StrategicOrder(ids, "1401"))
    assert all(after.board.unit(i).hex == 1401 for i in ids)
    assert after.ep2("KZI") == before - 2 * (15 - 10)


def test_the_barons_mobile_base_without_its_tug_is_refused_whole() -> None:
    state = until(2, 1, "8A")
    fleet = [u for u in state.board.units if u.fleet == "Baron's Fleet"]
    (mb,) = [u.id for u in fleet if u.cls == "MB"]
    others = [u.id for u in fleet if u.cls not in ("MB", "TGT")][:2]
    refused = RULESET.validate(state, "alliance", StrategicOrder([*others, mb], "1401"))
    assert [(v.rule, v.message) for v in refused] == [
        (
            "509.1-C",
            f"{mb} (MB) cannot move by itself: a tug on the mobile-base mission, moving in the "
            "same strategic order, carries one mobile base",
        )
    ]


def test_the_far_stars_fleet_leaves_its_box_on_turn_2() -> None:
    state = until(2, 0, "8A")
    ids = [u.id for u in state.board.units if u.fleet == "Far Stars Fleet"][:3]
    assert all(state.board.unit(i).hex == OFF_MAP for i in ids)
    after = play(state, "coalition", StrategicOrder(ids, "0408"))
    assert all(after.board.unit(i).hex == 408 for i in ids)


def test_an_empire_without_an_off_map_area_cannot_move_from_off_the_map() -> None:
    galaxy = load_galaxy()
    ship = Unit("KLI-0001", "KLI", "D7", OFF_MAP)
    board = msgspec.structs.replace(starting_board(wind()), units=(ship,))
    grid = supply_grid(galaxy, board, "KLI")
    (problem,) = check_strategic(galaxy, board, grid, "KLI", StrategicMove(ship.id, 1411))
    assert problem.rule == "756.2" and "KLI has no off-map area" in problem.message
