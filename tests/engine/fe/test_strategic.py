"""Strategic movement (204.0): node to node through unblocked space, free moves, paid moves."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec
import pytest

from engine.core.ruleset import Violation
from engine.fe.forces import OFF_MAP, Board, Unit
from engine.fe.strategic import (
    Route,
    StrategicMove,
    apply_strategic,
    check_strategic,
    free_moves,
    nodes,
    strategic_cost,
    strategic_route,
    towed_bases,
)
from engine.fe.supply import supply_grid
from tests.engine.fe.supply_boards import (
    FED_ALONE,
    FED_CAPITAL,
    GALAXY,
    SE_LINE,
    board,
    unit,
)

L = SE_LINE
WAR = (("FED", "KLI"),)
BASES = (unit("FED-B6", "MB", L[6]), unit("FED-B12", "MB", L[12]), unit("FED-B18", "MB", L[18]))


def fed(*units: Unit, wars: tuple[tuple[str, str], ...] = ()) -> Board:
    return board(*units, owners=FED_ALONE, wars=wars)


def check(
    b: Board,
    move: StrategicMove,
    moves_before: int = 0,
    treasury2: int | None = None,
    tugs: Sequence[str] = (),
    already: Sequence[str] = (),
) -> list[str]:
    grid = supply_grid(GALAXY, b, "FED", tugs)
    found: list[Violation] = check_strategic(
        GALAXY, b, grid, "FED", move, moves_before, treasury2=treasury2, already=already
    )
    return [f"{v.message} ({v.rule})" for v in found]


def test_free_moves_per_empire() -> None:
    assert [free_moves(GALAXY, e) for e in ("FED", "KLI", "THO", "LYR", "KZI", "ROM")] == [
        15,
        15,
        5,
        10,
        10,
        10,
    ]


def test_strategic_cost() -> None:
    assert strategic_cost(0, 15) == 0
    assert strategic_cost(15, 15) == 0
    assert strategic_cost(16, 15) == 1  # the first paid move costs 1 EP
    assert strategic_cost(20, 15) == 5
    assert strategic_cost(6, 5) == 1


def test_a_move_along_a_chain_of_bases_within_the_free_moves() -> None:
    b = fed(unit("FED-1", "CA", FED_CAPITAL), *BASES)
    move = StrategicMove("FED-1", L[18])
    assert check(b, move) == []
    grid = supply_grid(GALAXY, b, "FED")
    assert strategic_route(GALAXY, b, grid, FED_CAPITAL, L[18]) == Route(
        (FED_CAPITAL, L[6], L[12], L[18]), 18
    )
    assert apply_strategic(b, move).unit("FED-1").hex == L[18]


def test_the_first_paid_move_needs_an_ep() -> None:
    b = fed(unit("FED-1", "CA", FED_CAPITAL), *BASES)
    move = StrategicMove("FED-1", L[6])
    assert check(b, move, moves_before=14, treasury2=0) == []  # the 15th move is free
    assert check(b, move, moves_before=15, treasury2=0) == [
        "strategic move 16 costs 1 EP (15 are free per turn); the treasury holds 0 EP (204.0)"
    ]
    assert check(b, move, moves_before=15, treasury2=2) == []


def test_a_move_to_a_hex_that_is_no_node_is_refused() -> None:
    b = fed(unit("FED-1", "CA", FED_CAPITAL), *BASES)
    assert check(b, StrategicMove("FED-1", L[3])) == [
        f"{L[3]:04d} is no FED strategic movement node (base, planet, supply tug) (756.2)"
    ]


def test_a_move_must_start_at_a_node() -> None:
    b = fed(unit("FED-1", "CA", L[3]), *BASES)
    assert check(b, StrategicMove("FED-1", L[12])) == [
        f"FED-1 is in {L[3]:04d}, which is no FED strategic movement node (756.2)"
    ]


def test_nodes_more_than_six_hexes_apart_do_not_link() -> None:
    b = fed(unit("FED-1", "CA", FED_CAPITAL), BASES[0], BASES[2])
    assert check(b, StrategicMove("FED-1", L[18])) == [
        "no chain of FED nodes, each within 6 hexes of the next through unblocked hexes, "
        f"joins 2908 to {L[18]:04d} (204.0)"
    ]


def test_an_enemy_between_two_nodes_breaks_the_link() -> None:
    b = fed(unit("FED-1", "CA", FED_CAPITAL), *BASES, unit("KLI-1", "D7", L[9]), wars=WAR)
    assert check(b, StrategicMove("FED-1", L[6])) == []
    assert [v.split(",")[0] for v in check(b, StrategicMove("FED-1", L[12]))] == [
        "no chain of FED nodes"
    ]


def test_auxiliaries_and_frds_move_at_most_12_hexes() -> None:
    frd = unit("FED-2", "FRD", FED_CAPITAL)
    aux = unit("FED-3", "SAV", FED_CAPITAL)
    b = fed(frd, aux, *BASES)
    assert check(b, StrategicMove("FED-2", L[12])) == []
    assert check(b, StrategicMove("FED-3", L[12])) == []
    assert check(b, StrategicMove("FED-2", L[18])) == [
        f"the route from 2908 to {L[18]:04d} is 18 hexes; FED-2 (FRD) moves at most 12 hexes "
        "strategically (204.0)"
    ]
    assert check(b, StrategicMove("FED-3", L[18])) == [
        f"the route from 2908 to {L[18]:04d} is 18 hexes; FED-3 (SAV) moves at most 12 hexes "
        "strategically (549.24)"
    ]


def test_a_supply_tug_is_a_node() -> None:
    b = fed(unit("FED-1", "CA", FED_CAPITAL), BASES[0], unit("FED-T", "TG", L[12]))
    move = StrategicMove("FED-1", L[12])
    assert check(b, move, tugs=["FED-T"]) == []
    assert check(b, move) == [
        f"{L[12]:04d} is no FED strategic movement node (base, planet, supply tug) (756.2)"
    ]
    grid = supply_grid(GALAXY, b, "FED", ["FED-T"])
    assert nodes(grid)[L[12]] == -6  # a tug links to grid points only, within 6


def test_two_tugs_do_not_chain() -> None:
    b = fed(
        unit("FED-1", "CA", FED_CAPITAL),
        unit("FED-T1", "TG", L[6]),
        unit("FED-T2", "TG", L[12]),
    )
    assert check(b, StrategicMove("FED-1", L[6]), tugs=["FED-T1", "FED-T2"]) == []
    assert check(b, StrategicMove("FED-1", L[12]), tugs=["FED-T1", "FED-T2"]) == [
        f"{L[12]:04d} is no FED strategic movement node (base, planet, supply tug) (756.2)"
    ]


@pytest.mark.parametrize(
    ("units", "move", "expected"),
    [
        (
            (unit("FED-1", "CA", FED_CAPITAL), unit("KLI-1", "D7", L[6])),
            StrategicMove("FED-1", L[6]),
            [f"{L[6]:04d} holds enemy units (204.0)"],
        ),
        (
            (unit("FED-1", "CA", FED_CAPITAL), unit("KLI-1", "D7", FED_CAPITAL)),
            StrategicMove("FED-1", L[6]),
            ["2908 holds enemy units: FED-1 is pinned there (204.0)"],
        ),
        (
            (unit("FED-1", "CA", FED_CAPITAL, fleet="First Fleet"),),
            StrategicMove("FED-1", L[6]),
            ["FED-1 (CA) belongs to First Fleet, which is not released (600.3)"],
        ),
        (
            (unit("FED-1", "MB", FED_CAPITAL),),
            StrategicMove("FED-1", L[6]),
            [
                "FED-1 (MB) cannot move by itself: a tug on the mobile-base mission, moving in "
                "the same strategic order, carries one mobile base (509.1-C)",
            ],
        ),
        (
            (unit("KLI-1", "D7", FED_CAPITAL),),
            StrategicMove("KLI-1", L[6]),
            ["KLI-1 is KLI's: FED moves only its own units (105.0)"],
        ),
        ((), StrategicMove("FED-9", L[6]), ["there is no unit FED-9 (204.0)"]),
        (
            (unit("FED-1", "CA", FED_CAPITAL),),
            StrategicMove("FED-1", FED_CAPITAL),
            ["FED-1 is already in 2908 (204.0)"],
        ),
        (
            (unit("FED-1", "CA", FED_CAPITAL),),
            StrategicMove("FED-1", 0),
            ["the off-map area: strategic moves off the map are not modelled yet (756.2)"],
        ),
    ],
)
def test_refusals(units: tuple[Unit, ...], move: StrategicMove, expected: list[str]) -> None:
    b = fed(*units, BASES[0], wars=WAR)
    assert check(b, move) == expected


def test_one_strategic_move_per_unit_and_turn() -> None:
    b = fed(unit("FED-1", "CA", FED_CAPITAL), *BASES)
    assert check(b, StrategicMove("FED-1", L[6]), already=["FED-1"]) == [
        "FED-1 has already moved strategically this turn (204.0)"
    ]


def test_the_real_map_links_the_federation() -> None:
    """On the starting map, Earth reaches the Federation's far bases through its network."""
    b = board(unit("FED-1", "CA", FED_CAPITAL))
    grid = supply_grid(GALAXY, b, "FED")
    far = max((h for h in nodes(grid) if h != OFF_MAP), key=lambda h: (abs(h // 100 - 29), h))
    route = strategic_route(GALAXY, b, grid, FED_CAPITAL, far)
    assert route is not None and route.nodes[0] == FED_CAPITAL and route.nodes[-1] == far
    assert len(route.nodes) > 2 and route.hexes > 6
    assert check_strategic(GALAXY, b, grid, "FED", StrategicMove("FED-1", far)) == []


def test_same_inputs_same_route() -> None:
    b = fed(unit("FED-1", "CA", FED_CAPITAL), *BASES, unit("KLI-1", "D7", L[15]), wars=WAR)
    grid = supply_grid(GALAXY, b, "FED")
    routes = [strategic_route(GALAXY, b, grid, FED_CAPITAL, L[12]) for _ in range(3)]
    assert len({msgspec.json.encode(r) for r in routes}) == 1


def test_a_tug_carries_one_mobile_base_of_its_order() -> None:
    """509.1-C: each uncrippled unit that may take the mobile-base mission carries the next
    MB of the order; a ship without the mission, a crippled tug or a second MB gets none."""
    tug = unit("FED-T1", "TG", FED_CAPITAL)
    crippled = msgspec.structs.replace(unit("FED-T2", "TG", FED_CAPITAL), crippled=True)
    first, second = unit("FED-M1", "MB", FED_CAPITAL), unit("FED-M2", "MB", FED_CAPITAL)
    cruiser = unit("FED-1", "CA", FED_CAPITAL)
    assert towed_bases([first, tug, second]) == {"FED-M1"}
    assert towed_bases([first, cruiser, crippled]) == set()
    assert towed_bases([first, second, tug, unit("FED-T3", "TG", FED_CAPITAL)]) == {
        "FED-M1",
        "FED-M2",
    }


def test_a_towed_mobile_base_moves_strategically() -> None:
    b = fed(unit("FED-M1", "MB", FED_CAPITAL), *BASES)
    grid = supply_grid(GALAXY, b, "FED")
    move = StrategicMove("FED-M1", L[6])
    assert check_strategic(GALAXY, b, grid, "FED", move, towed=True) == []
    (alone,) = check_strategic(GALAXY, b, grid, "FED", move)
    assert alone.rule == "509.1-C"
