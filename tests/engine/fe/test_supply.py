"""Supply (410.0-413.0): grids, partial grids, supply tugs and the blocking table."""

from __future__ import annotations

import msgspec
import pytest

from engine.core import hexgrid
from engine.fe.blocking import blocks
from engine.fe.forces import OFF_MAP
from engine.fe.supply import supply_grid, unit_supply
from engine.fe.unit_kinds import can_supply, is_base, is_ship, movement_points
from tests.engine.fe.supply_boards import (
    FED_ALONE,
    FED_CAPITAL,
    GALAXY,
    NORTH_LINE,
    SE_LINE,
    THO_ALONE,
    THO_CAPITAL,
    board,
    line,
    unit,
)

WAR = (("KLI", "THO"),)


def test_a_capitals_grid_covers_six_hexes_and_not_seven() -> None:
    grid = supply_grid(GALAXY, board(owners=THO_ALONE), "THO")
    assert [(p.hex, p.kind, p.main) for p in grid.points] == [(THO_CAPITAL, "capital", True)]
    for info in GALAXY.hexes:
        expected = "main" if hexgrid.distance(THO_CAPITAL, info.hex) <= 6 else "none"
        assert grid.status(info.hex) == expected, info.hex
    assert grid.status(NORTH_LINE[6]) == "main"
    assert grid.status(NORTH_LINE[7]) == "none"
    assert grid.partial == ()


def test_the_starting_map_is_one_main_grid_per_empire() -> None:
    for empire in sorted({c.empire for c in GALAXY.capitals}):
        grid = supply_grid(GALAXY, board(), empire)
        assert {(p.grid, p.main) for p in grid.points} == {(0, True)}, empire
    fed = supply_grid(GALAXY, board(), "FED")
    assert fed.status(OFF_MAP) == "main"  # the survey area links through the base at 2901
    assert all(p.main for p in fed.points)


def test_supply_cut_by_a_blocking_hex_and_restored() -> None:
    """The golden case: an enemy stack on the only short path cuts supply; it leaves, and
    supply comes back."""
    ship = unit("THO-1", "CA", NORTH_LINE[6])
    enemy = unit("KLI-1", "D7", NORTH_LINE[3])
    before = board(ship, owners=THO_ALONE, wars=WAR)
    assert unit_supply(GALAXY, before, supply_grid(GALAXY, before, "THO"), "THO-1") == "main"

    cut = board(ship, enemy, owners=THO_ALONE, wars=WAR)
    assert blocks(GALAXY, cut, "THO", NORTH_LINE[3], "supply")  # enemy ships, no friends
    assert blocks(GALAXY, cut, "THO", NORTH_LINE[2], "supply")  # empty, enemy next door
    grid = supply_grid(GALAXY, cut, "THO")
    assert unit_supply(GALAXY, cut, grid, "THO-1") == "none"
    assert grid.status(NORTH_LINE[1]) == "main"

    gone = cut.with_units([msgspec.structs.replace(enemy, hex=101)])
    assert unit_supply(GALAXY, gone, supply_grid(GALAXY, gone, "THO"), "THO-1") == "main"


def test_friendly_ships_next_door_reopen_the_path() -> None:
    ship = unit("THO-1", "CA", NORTH_LINE[6])
    enemy = unit("KLI-1", "D7", 2815)  # next to NORTH_LINE[3] (2916) and [4] (2915)
    cut = board(ship, enemy, owners=THO_ALONE, wars=WAR)
    assert unit_supply(GALAXY, cut, supply_grid(GALAXY, cut, "THO"), "THO-1") == "none"
    guard = unit("THO-2", "PC", NORTH_LINE[3])
    opened = board(ship, enemy, guard, owners=THO_ALONE, wars=WAR)
    assert unit_supply(GALAXY, opened, supply_grid(GALAXY, opened, "THO"), "THO-1") == "main"


def test_no_war_no_blocking() -> None:
    ship = unit("THO-1", "CA", NORTH_LINE[6])
    stranger = unit("KLI-1", "D7", NORTH_LINE[3])
    peace = board(ship, stranger, owners=THO_ALONE)
    assert unit_supply(GALAXY, peace, supply_grid(GALAXY, peace, "THO"), "THO-1") == "main"


@pytest.mark.parametrize(
    ("cls", "ship", "base", "moves", "supplies"),
    [
        ("CA", True, False, 6, False),
        ("TG", True, False, 6, True),
        ("LTT", True, False, 6, True),  # not in the tables yet: recognised by name
        ("CONVOY", False, False, 2, True),
        ("FRD", False, False, 1, False),
        ("SB", False, True, 0, False),
        ("MB", False, True, 0, False),
        ("MB (ND)", False, False, 0, False),
        ("PDU", False, False, 0, False),
        ("SAV", False, False, 3, False),  # an auxiliary (549.0)
    ],
)
def test_what_a_unit_is(cls: str, ship: bool, base: bool, moves: int, supplies: bool) -> None:
    u = unit("FED-1", cls, FED_CAPITAL)
    assert (is_ship(u), is_base(u), movement_points(u), can_supply(u)) == (
        ship,
        base,
        moves,
        supplies,
    )


# The blocking table, row by row, around 2913 (no starting base within two hexes of it).
CENTRE = 2913
AROUND = hexgrid.neighbours(CENTRE, GALAXY.width, GALAXY.height)  # 2912, 3012, 3013, 2914...
FAR = line(CENTRE, hexgrid.NORTH, 2)[2]  # 2911: next to AROUND[0], not to the centre


@pytest.mark.parametrize(
    ("here", "next_door", "supply", "retrograde"),
    [
        (("KLI-1:D7",), (), True, True),  # enemy units, no friendly ones
        (("KLI-1:D7", "THO-1:CA"), (), False, True),  # both sides (retrograde "N/A": C)
        (("THO-1:CA",), ("KLI-1:D7",), False, False),  # friendly ships, enemy ships adjacent
        (("THO-1:FRD",), ("KLI-1:D7",), False, True),  # friendly non-ship unit only
        ((), ("KLI-1:D7",), True, True),  # open, enemy ships adjacent
        ((), ("KLI-1:D7", "THO-1:CA"), False, False),  # open, friendly and enemy ships
        ((), ("KLI-1:PDU",), True, True),  # open, enemy fighters (a PDU's squadron)
        ((), ("KLI-1:PDU", "THO-1:PDU"), True, False),  # open, friendly and enemy fighters
        ((), ("KLI-1:MB",), False, False),  # an enemy base without fighters next door
        ((), (), False, False),  # nobody around
    ],
)
def test_the_blocking_table(
    here: tuple[str, ...], next_door: tuple[str, ...], supply: bool, retrograde: bool
) -> None:
    units = [unit(spec.split(":")[0], spec.split(":")[1], CENTRE) for spec in here]
    for n, spec in enumerate(next_door):
        uid, cls = spec.split(":")
        units.append(unit(f"{uid}{n}", cls, AROUND[n]))
    b = board(*units, wars=WAR)
    assert blocks(GALAXY, b, "THO", CENTRE, "supply") is supply
    assert blocks(GALAXY, b, "THO", CENTRE, "retrograde") is retrograde


def test_enemy_ships_two_hexes_away_do_not_block() -> None:
    b = board(unit("KLI-1", "D7", FAR), wars=WAR)
    assert not blocks(GALAXY, b, "THO", CENTRE, "supply")
    assert blocks(GALAXY, b, "THO", AROUND[0], "supply")


def test_enemy_starting_bases_block_their_hex_and_their_fighters_the_hexes_around() -> None:
    # 2816 is a Federation base (a BATS, with fighters) in a Federation hex.
    b = board(wars=(("FED", "THO"),))
    assert blocks(GALAXY, b, "THO", 2816, "supply")
    assert blocks(GALAXY, b, "THO", 2817, "supply")
    assert not blocks(GALAXY, board(), "THO", 2816, "supply")


def test_a_partial_grid() -> None:
    planet = 2214  # a neutral-zone planet, 8 hexes from Tholia
    owners = (*THO_ALONE, (planet, "THO"))
    grid = supply_grid(GALAXY, board(owners=owners), "THO")
    assert [(p.hex, p.kind, p.grid, p.main) for p in grid.points] == [
        (planet, "planet", 1, False),
        (THO_CAPITAL, "capital", 0, True),
    ]
    away = line(planet, hexgrid.NORTHWEST, 7)
    assert grid.status(planet) == "partial"
    assert grid.status(away[6]) == "partial"
    assert grid.status(away[7]) == "none"
    assert grid.grid_of(away[6]) == 1
    assert grid.grid_of(THO_CAPITAL) is None
    # a hex both grids reach is in the main grid
    both = 2517
    assert hexgrid.distance(both, THO_CAPITAL) <= 6 and hexgrid.distance(both, planet) <= 6
    assert grid.status(both) == "main"


def test_supply_points_within_six_hexes_chain_into_one_grid() -> None:
    planet = 2816  # 3 hexes from Tholia: captured, it joins the main grid
    grid = supply_grid(GALAXY, board(owners=(*THO_ALONE, (planet, "THO"))), "THO")
    assert all(p.main for p in grid.points)
    far = line(planet, hexgrid.NORTH, 6)[6]
    assert hexgrid.distance(far, THO_CAPITAL) > 6
    assert grid.status(far) == "main"


def test_a_blockaded_planet_is_a_grid_by_itself() -> None:
    planet = 2816
    enemy = unit("KLI-1", "D7", planet)
    b = board(enemy, owners=(*THO_ALONE, (planet, "THO")), wars=WAR)
    grid = supply_grid(GALAXY, b, "THO")
    assert [(p.hex, p.main) for p in grid.points] == [(planet, False), (THO_CAPITAL, True)]
    assert grid.status(planet) == "partial"


def test_a_base_unit_is_a_supply_point_and_an_undeployed_one_is_not() -> None:
    base = unit("FED-1", "MB", SE_LINE[10])
    crate = unit("FED-2", "MB (ND)", SE_LINE[18])
    grid = supply_grid(GALAXY, board(base, crate, owners=FED_ALONE), "FED")
    assert [p.name for p in grid.points if p.kind == "base"] == ["MB FED-1"]
    assert grid.status(SE_LINE[16]) == "partial"
    assert grid.status(SE_LINE[17]) == "none"


def test_a_supply_tug_extends_the_grid_six_hexes() -> None:
    alone = supply_grid(GALAXY, board(owners=FED_ALONE), "FED")
    assert alone.status(SE_LINE[6]) == "main"
    assert alone.status(SE_LINE[7]) == "none"
    b = board(unit("FED-1", "TG", SE_LINE[6]), owners=FED_ALONE)
    grid = supply_grid(GALAXY, b, "FED", ["FED-1"])
    tug = grid.points[-1]
    assert (tug.kind, tug.hex, tug.main, tug.reach) == ("tug", SE_LINE[6], True, 6)
    assert grid.status(SE_LINE[12]) == "main"
    assert grid.status(SE_LINE[13]) == "none"
    # the same tug, not on supply mission, supplies nothing beyond the grid
    assert supply_grid(GALAXY, b, "FED").status(SE_LINE[7]) == "none"


def test_an_ltt_must_be_within_three_hexes_of_the_grid() -> None:
    near = board(unit("FED-1", "LTT", SE_LINE[3]), owners=FED_ALONE)
    grid = supply_grid(GALAXY, near, "FED", ["FED-1"])
    assert grid.status(SE_LINE[9]) == "main"  # three hexes beyond the grid's six
    assert grid.status(SE_LINE[10]) == "none"
    far = board(unit("FED-1", "LTT", SE_LINE[4]), owners=FED_ALONE)
    grid = supply_grid(GALAXY, far, "FED", ["FED-1"])
    assert grid.points[-1].grid == -1
    assert grid.status(SE_LINE[7]) == "none"


def test_supply_tugs_do_not_chain() -> None:
    b = board(unit("FED-1", "TG", SE_LINE[6]), unit("FED-2", "TG", SE_LINE[12]), owners=FED_ALONE)
    grid = supply_grid(GALAXY, b, "FED", ["FED-1", "FED-2"])
    assert [(p.name, p.grid) for p in grid.points if p.kind == "tug"] == [
        ("TG FED-1", 0),
        ("TG FED-2", -1),
    ]
    assert grid.status(SE_LINE[12]) == "main"
    for k in range(13, 19):
        assert grid.status(SE_LINE[k]) == "none", k


def test_a_crippled_tug_supplies_nothing() -> None:
    b = board(unit("FED-1", "TG", SE_LINE[6], crippled=True), owners=FED_ALONE)
    assert supply_grid(GALAXY, b, "FED", ["FED-1"]).status(SE_LINE[8]) == "none"


def test_a_tug_cannot_join_two_grids() -> None:
    base = unit("FED-1", "MB", SE_LINE[12])
    tug = unit("FED-2", "TG", SE_LINE[6])
    grid = supply_grid(GALAXY, board(base, tug, owners=FED_ALONE), "FED", ["FED-2"])
    assert [(p.kind, p.main) for p in grid.points] == [
        ("offmap", False),  # the survey area, beyond 2901, is 8 hexes from Earth
        ("capital", True),
        ("base", False),
        ("tug", True),
    ]
    assert grid.status(SE_LINE[12]) == "main"  # through the tug
    assert grid.grid_of(SE_LINE[18]) == 2  # the base's own partial grid


@pytest.mark.parametrize(
    ("ids", "message"),
    [(["FED-9"], "no unit FED-9"), (["KLI-1"], "KLI's"), (["FED-2"], "no tug")],
)
def test_supply_missions_need_the_empires_own_transports(ids: list[str], message: str) -> None:
    b = board(unit("KLI-1", "TGA", 2901), unit("FED-2", "CA", 2901))
    with pytest.raises(ValueError, match=message):
        supply_grid(GALAXY, b, "FED", ids)


def test_unit_supply_checks_the_grids_empire() -> None:
    b = board(unit("KLI-1", "D7", 1411), unit("FED-1", "CA", OFF_MAP))
    grid = supply_grid(GALAXY, b, "FED")
    with pytest.raises(ValueError, match="FED's supply grid"):
        unit_supply(GALAXY, b, grid, "KLI-1")
    assert unit_supply(GALAXY, b, grid, "FED-1") == "main"  # in the off-map area


def test_same_inputs_same_grid() -> None:
    units = [unit(f"FED-{n}", "CA", h) for n, h in enumerate(SE_LINE)]
    units += [unit("KLI-1", "D7", SE_LINE[9]), unit("FED-99", "TG", SE_LINE[4])]
    wars = (("FED", "KLI"),)
    one = supply_grid(GALAXY, board(*units, wars=wars), "FED", ["FED-99"])
    backwards = board(wars=wars).with_units(reversed(units))
    two = supply_grid(GALAXY, backwards, "FED", ["FED-99"])
    assert msgspec.msgpack.encode(one) == msgspec.msgpack.encode(two)
    assert list(one.main) == sorted(one.main)
