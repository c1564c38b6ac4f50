"""Retrograde movement (206.0): eligible units fall back to a supply point within their
allowance, never through hexes that block retrograde."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from engine.core import hexgrid
from engine.core.ruleset import Violation
from engine.fe.blocking import blocks
from engine.fe.forces import Board
from engine.fe.galaxy import HexId
from engine.fe.retrograde import (
    RetrogradeMove,
    apply_retrograde,
    check_retrograde,
    destinations,
    retrograde_path,
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

WAR = (("FED", "KLI"),)


def check(
    b: Board,
    move: RetrogradeMove,
    battle_hexes: Sequence[HexId] | None = None,
    already: Sequence[str] = (),
) -> list[Violation]:
    grid = supply_grid(GALAXY, b, "FED")
    return check_retrograde(
        GALAXY, b, grid, "FED", move, battle_hexes=battle_hexes, already=already
    )


def around(h: HexId) -> tuple[HexId, ...]:
    return hexgrid.neighbours(h, GALAXY.width, GALAXY.height)


def texts(violations: list[Violation]) -> list[str]:
    return [f"{v.message} ({v.rule})" for v in violations]


def test_a_ship_retrogrades_to_its_capital() -> None:
    b = board(unit("FED-1", "CA", SE_LINE[5]), owners=FED_ALONE)
    move = RetrogradeMove(("FED-1",), FED_CAPITAL)
    assert check(b, move, battle_hexes=[SE_LINE[5]]) == []
    after = apply_retrograde(b, move)
    assert after.unit("FED-1").hex == FED_CAPITAL
    assert retrograde_path(GALAXY, b, "FED", SE_LINE[5], FED_CAPITAL) == tuple(SE_LINE[5::-1])


def test_the_full_allowance_of_six_hexes() -> None:
    b = board(unit("FED-1", "CA", SE_LINE[6]), owners=FED_ALONE)
    assert check(b, RetrogradeMove(("FED-1",), FED_CAPITAL)) == []


def test_out_of_supply_units_move_half() -> None:
    b = board(unit("FED-1", "CA", SE_LINE[7]), owners=FED_ALONE)
    assert texts(check(b, RetrogradeMove(("FED-1",), FED_CAPITAL))) == [
        f"2908 is 7 hexes from {SE_LINE[7]:04d}; FED-1 is out of supply and moves half its "
        "6 hexes (410.31) (206.0)"
    ]


def test_the_destination_must_be_a_supply_point() -> None:
    b = board(unit("FED-1", "CA", SE_LINE[5]), owners=FED_ALONE)
    grid = supply_grid(GALAXY, b, "FED")
    assert FED_CAPITAL in destinations(grid)
    assert texts(check(b, RetrogradeMove(("FED-1",), SE_LINE[2]))) == [
        f"{SE_LINE[2]:04d} holds no FED supply point: a retrograde ends at one (206.0)"
    ]


def test_only_units_from_battle_hexes_retrograde() -> None:
    b = board(unit("FED-1", "CA", SE_LINE[5]), owners=FED_ALONE)
    found = check(b, RetrogradeMove(("FED-1",), FED_CAPITAL), battle_hexes=[SE_LINE[4]])
    assert texts(found) == [
        f"no combat took place in {SE_LINE[5]:04d} this turn: its units may not retrograde (206.0)"
    ]


def test_units_in_a_hex_with_enemy_units_are_pinned() -> None:
    b = board(
        unit("FED-1", "CA", SE_LINE[5]), unit("KLI-1", "D7", SE_LINE[5]), owners=FED_ALONE, wars=WAR
    )
    assert [v.rule for v in check(b, RetrogradeMove(("FED-1",), FED_CAPITAL))] == ["206.0"]


def test_hexes_that_block_retrograde_force_a_longer_path() -> None:
    """An enemy ship two hexes from the capital, on the line: going around it takes seven
    hexes. A mobile base three hexes behind keeps the ship in supply (full allowance)."""
    ship = unit("FED-1", "CA", SE_LINE[5])
    base = unit("FED-2", "MB", SE_LINE[8])
    enemy = unit("KLI-1", "D7", SE_LINE[2])
    b = board(ship, base, enemy, owners=FED_ALONE, wars=WAR)
    assert texts(check(b, RetrogradeMove(("FED-1",), FED_CAPITAL))) == [
        f"2908 is 7 hexes from {SE_LINE[5]:04d} around the hexes that block retrograde; "
        "FED-1 may retrograde at most 6 hexes (206.0)"
    ]
    assert check(b, RetrogradeMove(("FED-1",), SE_LINE[8])) == []


def test_a_stack_opens_the_hexes_around_its_own_start() -> None:
    """S (F&E Q&A Oct 2007): an enemy next to the start and to the next hex of the path does
    not stop the stack: its own ships open the hexes around it."""
    start, step = SE_LINE[5], SE_LINE[4]
    enemy_hex = next(h for h in around(step) if h in around(start) and h not in SE_LINE)
    b = board(
        unit("FED-1", "CA", start), unit("KLI-1", "D7", enemy_hex), owners=FED_ALONE, wars=WAR
    )
    assert check(b, RetrogradeMove(("FED-1",), FED_CAPITAL)) == []
    # without the stack, the same hex next to the enemy blocks retrograde
    empty = board(unit("KLI-1", "D7", enemy_hex), wars=WAR)
    assert blocks(GALAXY, empty, "FED", step, "retrograde")


def test_a_destination_next_to_enemy_ships_blocks_retrograde() -> None:
    base = unit("FED-2", "MB", SE_LINE[3])
    enemy = unit("KLI-1", "D7", SE_LINE[4])
    ship = unit("FED-1", "CA", SE_LINE[1])
    b = board(ship, base, enemy, owners=FED_ALONE, wars=WAR)
    assert texts(check(b, RetrogradeMove(("FED-1",), SE_LINE[3]))) == [
        f"{SE_LINE[3]:04d} blocks retrograde (enemy units in or next to it) (206.0)"
    ]


def test_a_stack_moves_together_at_the_pace_of_its_slowest() -> None:
    ships = [unit("FED-1", "CA", SE_LINE[3]), unit("FED-2", "CONVOY", SE_LINE[3])]
    b = board(*ships, owners=FED_ALONE)
    found = texts(check(b, RetrogradeMove(("FED-1", "FED-2"), FED_CAPITAL)))
    assert found == [
        f"2908 is 3 hexes from {SE_LINE[3]:04d}; FED-2 may retrograde at most 2 hexes (206.0)"
    ]
    assert check(b, RetrogradeMove(("FED-1",), FED_CAPITAL)) == []


def test_malformed_retrogrades() -> None:
    b = board(
        unit("FED-1", "CA", SE_LINE[3]),
        unit("FED-2", "CA", SE_LINE[4]),
        unit("FED-3", "CA", SE_LINE[4], fleet="Third Fleet"),
        unit("FED-4", "MB", SE_LINE[4]),
        unit("KLI-1", "D7", 1411),
        owners=FED_ALONE,
    )
    assert texts(check(b, RetrogradeMove((), FED_CAPITAL))) == [
        "a retrograde needs at least one unit (206.0)"
    ]
    assert texts(check(b, RetrogradeMove(("FED-1", "FED-2"), FED_CAPITAL))) == [
        f"a retrograde stack must start in one hex, not {SE_LINE[3]:04d}, {SE_LINE[4]:04d} (206.0)"
    ]
    assert texts(check(b, RetrogradeMove(("KLI-1", "FED-9"), FED_CAPITAL))) == [
        "there is no unit FED-9 (206.0)",
        "KLI-1 is KLI's: FED retrogrades only its own units (105.0)",
    ]
    assert texts(check(b, RetrogradeMove(("FED-3", "FED-4"), FED_CAPITAL), already=["FED-4"])) == [
        "FED-3 (CA) belongs to Third Fleet, which is not released (600.3)",
        "FED-4 has already retrograded this phase (206.0)",
        "FED-4 (MB) cannot move by itself (203.1)",
    ]
    assert texts(check(b, RetrogradeMove(("FED-1",), SE_LINE[3]))) == [
        f"the retrograde must leave {SE_LINE[3]:04d} (206.0)"
    ]


def test_same_inputs_same_answer() -> None:
    b = board(
        unit("FED-1", "CA", SE_LINE[5]),
        unit("FED-2", "MB", SE_LINE[8]),
        unit("KLI-1", "D7", SE_LINE[2]),
        owners=FED_ALONE,
        wars=WAR,
    )
    move = RetrogradeMove(("FED-1",), FED_CAPITAL)
    first = msgspec.json.encode(check(b, move))
    assert all(msgspec.json.encode(check(b, move)) == first for _ in range(3))
    path = retrograde_path(GALAXY, b, "FED", SE_LINE[5], FED_CAPITAL)
    assert path == retrograde_path(GALAXY, b, "FED", SE_LINE[5], FED_CAPITAL)
    assert path is not None and len(path) == 8
