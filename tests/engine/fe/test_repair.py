"""Repair at bases (420.x) and in the field (422.0) on small hand-made boards."""

from __future__ import annotations

from engine.fe.forces import Board, Unit
from engine.fe.galaxy import load_galaxy
from engine.fe.repair import (
    Repair,
    RepairOptions,
    apply_repairs,
    check_repairs,
    repair_capacity,
    repair_options,
    repair_points,
)

GALAXY = load_galaxy()


def klingon_capital(*extra: Unit) -> Board:
    """A starbase at 1411 with two crippled D7s (8 points each) and a crippled E4 (4)."""
    return Board(
        units=(
            Unit("KLI-0001", "KLI", "SB", 1411),
            Unit("KLI-0002", "KLI", "D7", 1411, crippled=True),
            Unit("KLI-0003", "KLI", "D7", 1411, crippled=True),
            Unit("KLI-0004", "KLI", "E4", 1411, crippled=True),
            *extra,
        )
    )


def test_capacity_adds_up_the_facilities_in_the_hex() -> None:
    board = klingon_capital(
        Unit("KLI-0005", "KLI", "FRD", 1411),
        Unit("KLI-0006", "KLI", "BATS", 1509),
        Unit("KLI-0007", "KLI", "SB", 1509, crippled=True),
        Unit("KZI-0001", "KZI", "SB", 1509),
    )
    assert repair_capacity(GALAXY, board, "KLI", 1411) == 16 + 12
    assert repair_capacity(GALAXY, board, "KLI", 1509) == 4  # the crippled SB repairs nothing
    assert repair_capacity(GALAXY, board, "KZI", 1509) == 16
    assert repair_capacity(GALAXY, board, "KLI", 1210) == 0
    generous = RepairOptions(crippled_facilities=True)
    assert repair_capacity(GALAXY, board, "KLI", 1509, options=generous) == 4 + 16


def test_field_capacity_counts_repair_ships_and_the_repair_tug() -> None:
    board = Board(
        units=(
            Unit("KLI-0001", "KLI", "REPR", 1210),
            Unit("KLI-0002", "KLI", "TGA", 1210),
            Unit("KLI-0003", "KLI", "FRD", 1210),
        )
    )
    assert repair_capacity(GALAXY, board, "KLI", 1210, field=True) == 8
    tug = repair_capacity(GALAXY, board, "KLI", 1210, field=True, repair_tugs=["KLI-0002"])
    assert tug == 16
    assert repair_capacity(GALAXY, board, "KLI", 1210) == 12


def test_points_per_ship_are_its_defense_factor_by_default() -> None:
    d7 = Unit("KLI-0002", "KLI", "D7", 1411, crippled=True)
    assert repair_points(d7) == 8
    assert repair_points(d7, repair_options({"repair-points": "difference"})) == 4


def test_repairs_within_capacity_flip_the_ships_and_cost_half_an_ep_a_point() -> None:
    board = klingon_capital()
    orders = [Repair("KLI-0002"), Repair("KLI-0003")]
    assert check_repairs(GALAXY, board, "KLI", 20, orders) == []
    done = apply_repairs(GALAXY, board, "KLI", 20, orders)
    assert done.cost2 == 16 and done.treasury2 == 4  # 16 points x 0.5 EP = 8 EP
    assert not done.board.unit("KLI-0002").crippled
    assert not done.board.unit("KLI-0003").crippled
    assert done.board.unit("KLI-0004").crippled


def test_repairs_beyond_capacity_are_refused_with_the_numbers() -> None:
    board = klingon_capital()
    orders = [Repair("KLI-0002"), Repair("KLI-0003"), Repair("KLI-0004")]
    (violation,) = check_repairs(GALAXY, board, "KLI", 100, orders)
    assert violation.message == "repairs at 1411 need 20 points, capacity 16"
    assert violation.rule == "420.42"


def test_repairs_beyond_the_treasury_are_refused_with_the_numbers() -> None:
    board = klingon_capital()
    orders = [Repair("KLI-0002"), Repair("KLI-0003")]
    (violation,) = check_repairs(GALAXY, board, "KLI", 15, orders)
    assert violation.message == "repairs cost 8 EP, treasury 7.5 EP"
    assert violation.rule == "420.2"


def test_field_repair_costs_one_ep_a_point() -> None:
    board = Board(
        units=(
            Unit("KLI-0001", "KLI", "REPR", 1210),
            Unit("KLI-0002", "KLI", "D7", 1210, crippled=True),
        )
    )
    orders = [Repair("KLI-0002")]
    assert check_repairs(GALAXY, board, "KLI", 16, orders, field=True) == []
    assert apply_repairs(GALAXY, board, "KLI", 16, orders, field=True).cost2 == 16
    (broke,) = check_repairs(GALAXY, board, "KLI", 15, orders, field=True)
    assert broke.message == "repairs cost 8 EP, treasury 7.5 EP" and broke.rule == "422.0"
    (no_base,) = check_repairs(GALAXY, board, "KLI", 16, orders)
    assert no_base.message == "repairs at 1210 need 8 points, capacity 0"


def test_what_cannot_be_repaired() -> None:
    board = klingon_capital(
        Unit("KLI-0005", "KLI", "D7", 1411),
        Unit("KZI-0001", "KZI", "BC", 1411, crippled=True),
        Unit("KLI-0006", "KLI", "BATS", 1411, crippled=True),
    )
    orders = [
        Repair("KLI-0005"),
        Repair("KZI-0001"),
        Repair("KLI-0006"),
        Repair("KLI-9999"),
        Repair("KLI-0002"),
        Repair("KLI-0002"),
    ]
    messages = [v.message for v in check_repairs(GALAXY, board, "KLI", 100, orders)]
    assert messages == [
        "KLI-0005 (D7) is not crippled",
        "KZI-0001 is not a unit of KLI: only an empire's own ships are repaired",
        "KLI-0006 (BATS) is a base: bases are repaired by SIDS steps (420.6)",
        "there is no unit KLI-9999",
        "KLI-0002 is repaired twice",
    ]


def test_out_of_supply_hexes_repair_nothing() -> None:
    board = klingon_capital()
    (violation,) = check_repairs(GALAXY, board, "KLI", 100, [Repair("KLI-0002")], unsupplied=[1411])
    assert violation.rule == "410.23" and "1411" in violation.message


def test_repairs_are_deterministic() -> None:
    board = klingon_capital()
    orders = [Repair("KLI-0003"), Repair("KLI-0002")]
    assert apply_repairs(GALAXY, board, "KLI", 20, orders) == apply_repairs(
        GALAXY, board, "KLI", 20, orders
    )
