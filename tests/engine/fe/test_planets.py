"""Planets (508.0, 759.0): capital PDUs at set-up, planets as defenders, when a planet falls."""

from __future__ import annotations

from collections import Counter

from engine.fe import planets
from engine.fe.battles import BattleHex, battle_hexes
from engine.fe.forces import Board
from engine.fe.scenario import find_scenario
from engine.fe.steps.setup_stage import starting_board
from tests.engine.fe.supply_boards import GALAXY, board, unit

WAR = (("FED", "KLI"),)
KZI_PLANET = 1504  # a Kzinti minor planet, no units of anyone there at the start


def test_the_capital_systems_start_with_their_pdus() -> None:
    scenario = find_scenario("the-wind")
    assert scenario is not None
    pdus = Counter((u.empire, u.hex) for u in starting_board(scenario).units if u.cls == "PDU")
    # 759.0: capital planet 2 PDUs (two defense brigades), every other planet 1 (760.1).
    # FED 2908: 15 planets (7 major incl. Earth, 8 minor) -> 2 + 14; KLI 1411: 13 -> 14;
    # LYR 0408: 9 -> 10; KZI 1401: 8 -> 9; HYD 0617: 6 -> 7.
    assert pdus == {
        ("FED", 2908): 16,
        ("KLI", 1411): 14,
        ("LYR", 408): 10,
        ("KZI", 1401): 9,
        ("HYD", 617): 7,
    }
    ids = sorted(u.id for u in starting_board(scenario).units if u.empire == "HYD" and u.hex == 617)
    assert ids[-7:] == [f"HYD-P{n:03d}" for n in range(1, 8)]


def test_an_empire_without_a_pdu_class_gets_none() -> None:
    assert planets.starting_pdus(GALAXY, "XXX", (2908,)) == []
    assert len(planets.starting_pdus(GALAXY, "FED", (2908,))) == 16


def test_a_ship_alone_at_an_enemy_planet_makes_a_battle_hex() -> None:
    raider = unit("KLI-1", "D7", 2908)
    at_war = board(raider, wars=WAR)
    assert battle_hexes(at_war, GALAXY) == [BattleHex(2908, ("FED", "KLI"), "FED")]
    # without the map, only units count (the old reading): no Federation unit is there
    assert battle_hexes(at_war) == []
    # not at war: nothing to fight
    assert battle_hexes(board(raider), GALAXY) == []


def test_a_devastated_planet_and_a_non_ship_do_not_make_a_battle_hex() -> None:
    raider = unit("KLI-1", "D7", 2908)
    ruined = Board(units=(raider,), at_war=board(wars=WAR).at_war, devastated=(2908,))
    assert battle_hexes(ruined, GALAXY) == []
    base = unit("KLI-2", "BATS", 2908)
    assert battle_hexes(board(base, wars=WAR), GALAXY) == []  # a base is no ship


def test_a_planet_defends_for_its_current_owner() -> None:
    # 2908 captured by the Klingons: a Federation ship there now attacks the planet
    liberator = unit("FED-1", "CA", 2908)
    b = board(liberator, owners=((2908, "KLI"),), wars=WAR)
    assert battle_hexes(b, GALAXY) == [BattleHex(2908, ("FED", "KLI"), "KLI")]


def test_a_planet_falls_only_when_its_defenders_are_gone_and_in_combat() -> None:
    ship = unit("KLI-1", "D7", 2908)
    pdu = unit("FED-P001", "PDU", 2908)
    b = board(ship, pdu, wars=WAR)
    assert planets.fall_problems(GALAXY, b, "KLI", 2908, combat_phase=False) == [
        "the planet in 2908 falls in combat: record its capture or devastation in the "
        "combat phase (5) of KLI's own player turn"
    ]
    assert planets.fall_problems(GALAXY, b, "KLI", 2908, combat_phase=True) == [
        "the planet in 2908 is not defeated: 1 enemy unit defends it (PDU FED-P001)"
    ]
    crippled = board(ship, unit("FED-P001", "PDU", 2908, crippled=True), wars=WAR)
    assert planets.fall_problems(GALAXY, crippled, "KLI", 2908, combat_phase=True) == []
    assert (
        planets.fall_problems(GALAXY, board(ship, wars=WAR), "KLI", 2908, combat_phase=True) == []
    )
    nobody = board(pdu, wars=WAR)
    assert planets.fall_problems(GALAXY, nobody, "KLI", 2908, combat_phase=True) == [
        "KLI has no ship in 2908"
    ]


def test_planets_are_described_in_words() -> None:
    assert planets.describe(GALAXY, 2908) == "capital planets (15)"
    assert planets.describe(GALAXY, KZI_PLANET) == "minor planet"
