"""What a player turn works out cold from a decoded state matches a fresh reading (issue 16).

The first packet of a player turn reads a state just decoded: every board view is built from
nothing there (the occupancy index, each empire's presence flags, the supply points, the
income and captures of phase 1), and then carried or reused for the rest of the turn. The
faster readings group like things (hexes holding the same empires, a board's bases by
empire, provinces no hex of which was captured); here each is compared, after every random
change of The Wind's board (moves, captures, destructions, cripples, wars, devastation,
builds: the changes of ``test_supply_cache``), with a reading unit by unit and hex by hex
that shares none of their shortcuts, both on the warm board (views carried over the
changes) and on a plain copy of it (every view built cold).
"""

from __future__ import annotations

import random

import msgspec
import pytest

from engine.fe import blocking, economics, occupancy, provinces, supply, supply_search, unit_kinds
from engine.fe.board_indexes import own_unit_index
from engine.fe.economics import MAJOR_PLANET_EP2, MINOR_PLANET_EP2
from engine.fe.forces import OFF_MAP, Board, Unit
from engine.fe.galaxy import HexId, load_galaxy
from engine.fe.model import FeState
from engine.fe.steps import base, replacements
from engine.fe.steps import supply as supply_steps
from engine.fe.steps.missions import missions_on
from engine.fe.units import load_units
from tests.engine.fe.helpers import start
from tests.engine.fe.test_supply_cache import (
    CHANGERS,
    CHANGES,
    GALAXY,
    _at_war,
    _copy,
    _presence_unit_by_unit,
)


def _plain(board: Board) -> Board:
    """A copy of ``board`` with none of its indexes: everything read of it is read cold."""
    return Board(board.units, board.owners, board.at_war, board.released, board.devastated)


def _bases_unit_by_unit(board: Board, empire: str) -> tuple[Unit, ...]:
    """The empire's first base (in the board's order) in each hex that holds one."""
    firsts: dict[HexId, Unit] = {}
    for u in board.units:
        if u.empire == empire and u.hex != OFF_MAP and unit_kinds.is_base(u):
            firsts.setdefault(u.hex, u)
    return tuple(firsts.values())


def _captured_hex_by_hex(board: Board, captor: str) -> list[str]:
    """`provinces.captured_provinces` as a reading of every hex of every province."""
    return [
        p.id
        for p in GALAXY.provinces
        if p.empire != captor and all(board.owner(GALAXY, h) == captor for h in p.hexes)
    ]


def _income_hex_by_hex(
    board: Board, empire: str, captured: list[str], captured_planets: list[HexId]
) -> tuple[list[str], int, list[tuple[HexId, int]]]:
    """The provinces that pay ``empire`` (430.1, 438.1), how many it holds that enemy ships
    disrupt (430.22), and the planets that pay it, read hex by hex with `Board.owner` and
    every unit of the board: what `economics.income` answers."""
    given = GALAXY.provinces_of(empire)
    others = [GALAXY.province(pid) for pid in sorted(set(captured))]
    held = [p for p in given if all(board.owner(GALAXY, h) == empire for h in p.hexes)]
    held += [
        p
        for p in others
        if p.empire != empire and all(board.owner(GALAXY, h) == empire for h in p.hexes)
    ]
    paying = [
        p
        for p in held
        if not any(
            u.hex in p.hexes and board.enemies(u.empire, empire) and unit_kinds.is_ship(u)
            for u in board.units
        )
    ]
    extra = {h for p in others for h in p.hexes} | set(captured_planets)
    planets: list[tuple[HexId, int]] = []
    for h in sorted({h for p in given for h in p.hexes} | extra):
        info = GALAXY.hex(h)
        if board.owner(GALAXY, h) != empire or h in board.devastated:
            continue
        if info.empire != empire and h not in extra:
            continue
        for planet in info.planets:
            planets.append((h, MAJOR_PLANET_EP2 if planet.kind == "major" else MINOR_PLANET_EP2))
    return [p.id for p in paying], len(held) - len(paying), planets


def _province_captures(state: FeState, rng: random.Random) -> FeState:
    """Some hexes of some provinces handed to other empires: whole provinces at times (a
    capture complete, 438.1), part of one at others, and now and then a hex listed twice
    (the first entry is the owner, as `Board.owner` reads them)."""
    empires = base.all_empires(state)
    owners = list(state.owners)
    for province in rng.sample(GALAXY.provinces, 3):
        captor = rng.choice([e for e in empires if e != province.empire])
        hexes = province.hexes if rng.random() < 0.6 else province.hexes[:1]
        owners.extend((h, captor) for h in hexes)
        if rng.random() < 0.3:
            owners.append((hexes[0], province.empire))  # shadowed by the capture before it
    return state.with_board(msgspec.structs.replace(state.board, owners=tuple(owners)))


@pytest.mark.parametrize("seed", [21, 22])
def test_cold_and_carried_views_match_a_unit_by_unit_reading(seed: int) -> None:
    rng = random.Random(seed)
    state = _at_war(start())
    empires = base.all_empires(state)
    captures = disruptions = 0
    for number in range(CHANGES):
        state, what = rng.choice(CHANGERS)(state, rng)
        if rng.random() < 0.3:
            state, what = _province_captures(state, rng), "provinces captured"
        where = f"change {number} ({what})"
        warm = state.board
        for board in (warm, _plain(warm)):
            for empire in empires:
                flags = blocking.presence_set(GALAXY, board, empire)
                expected = frozenset(_presence_unit_by_unit(board, empire).items())
                assert flags == expected, f"{where}: {empire}'s presence flags"
            by_empire = supply._bases_by_empire(occupancy.bases_on(GALAXY, board))
            for empire in {u.empire for u in board.units}:
                assert by_empire.get(empire, ()) == _bases_unit_by_unit(board, empire), where
            for empire in empires:
                captured = provinces.captured_provinces(GALAXY, board, empire)
                assert captured == _captured_hex_by_hex(board, empire), f"{where}: {empire}"
                captures += bool(captured)
                planets = provinces.captured_planets(GALAXY, board, empire)
                # A long-term capture on the books whose hexes were since taken back pays
                # nothing: one of another empire's provinces stands for it.
                stale = next(p.id for p in GALAXY.provinces if p.empire != empire)
                captured = [*captured, stale]
                earned = economics.income(
                    GALAXY,
                    board,
                    empire,
                    captured=captured,
                    captured_planets=planets,
                    devastated=board.devastated,
                )
                paying, disrupted, paid = _income_hex_by_hex(board, empire, captured, planets)
                assert list(earned.paying_provinces) == paying, f"{where}: {empire}'s income"
                assert earned.disrupted == disrupted, f"{where}: {empire}'s disruption"
                assert list(earned.paying_planets) == paid, f"{where}: {empire}'s planets"
                disruptions += disrupted
    assert captures > 0, "no province was ever captured: a weak test"
    assert disruptions > 0, "no province was ever disrupted: a weak test"


@pytest.mark.parametrize("seed", [23, 24])
def test_a_supply_check_reports_what_a_unit_by_unit_reading_finds(seed: int) -> None:
    """`supply_steps._check` (what a supply check reports: the main grid's count, the units
    in a partial grid and out of supply) reads hexes, not units; on the warm state and on a
    decoded copy (every view cold) it finds what every unit's own status gives, after each
    random change."""
    rng = random.Random(seed)
    state = _at_war(start())
    cut_off = 0
    for number in range(CHANGES):
        state, what = rng.choice(CHANGERS)(state, rng)
        for tried in (state, _copy(state)):
            for empire in base.all_empires(tried):
                grid = supply_steps.grid_of(tried, empire)
                expected: dict[str, list[Unit]] = {"main": [], "partial": [], "none": []}
                for unit in tried.board.units:
                    if unit.empire == empire and unit.hex != OFF_MAP:
                        expected[grid.status(unit.hex)].append(unit)
                found = supply_steps._check(tried, empire)
                assert found == (
                    len(expected["main"]),
                    tuple(expected["partial"]),
                    tuple(expected["none"]),
                ), f"change {number} ({what}): {empire}"
                cut_off += len(found.none) + len(found.partial)
    assert cut_off > CHANGES, "hardly a unit out of the main grid: a weak test"


def test_hexes_alike_share_one_reading_of_their_flags() -> None:
    """`presence_set` reads each kind of hex once (hexes holding the same empires with the
    same units' flags): the kinds cover every occupied hex once, and hexes of one kind give
    every empire the same flags, as `_presence` (hex by hex) finds them."""
    state = _at_war(start())
    board = _plain(state.board)
    by_hex = occupancy.board_index(GALAXY, board)[0]
    kinds = blocking._alike(by_hex)
    listed = [h for _, hexes in kinds for h in hexes]
    assert sorted(listed) == sorted(by_hex), "every occupied hex in one kind"
    assert len(kinds) < len(by_hex) // 3, "the hexes hardly group: nothing shared"
    for empire in base.all_empires(state):
        flags = blocking._presence(GALAXY, board, empire)
        for _, hexes in kinds:
            assert len({flags.get(h, 0) for h in hexes}) == 1, (empire, hexes)


def test_a_supply_check_of_an_army_all_in_supply_is_its_units_tuple() -> None:
    """`_by_status` answers an empire's units all on the map and in supply with the very
    tuple they came in (nothing to pick out); with units off the map, or cut off, it picks
    them out as a unit-by-unit reading does."""
    state = _at_war(start())
    for empire in base.all_empires(state):
        grid = supply_steps.grid_of(state, empire)
        units = next(f.units for f in state.forces if f.empire == empire)
        on_map = tuple(u for u in units if u.hex != OFF_MAP)
        for tried in (on_map, units):
            found = supply_steps._by_status.__wrapped__(tried, grid)  # type: ignore[attr-defined]
            expected: dict[str, list[Unit]] = {"main": [], "partial": [], "none": []}
            for unit in tried:
                if unit.hex != OFF_MAP:
                    expected[grid.status(unit.hex)].append(unit)
            assert {k: list(v) for k, v in found.items()} == expected, empire
            if not expected["partial"] and not expected["none"] and tried is on_map:
                assert found["main"] is tried, empire


def test_6e_sorts_carriers_by_their_hexes_supply_as_unit_by_unit() -> None:
    """6E's carriers are split by their hexes' supply (`replacements._by_supply`): in
    supply, cut off (a hex no grid reaches), in their order; another empire's units in
    neither list."""
    state = start()
    grid = supply_steps.grid_of(state, "KZI")
    kzi = [u for u in state.board.units if u.empire == "KZI" and u.hex != OFF_MAP]
    cut = Unit("KZI-9001", "KZI", "CV", 3010)
    stray = next(u for u in state.board.units if u.empire == "LYR" and u.hex != OFF_MAP)
    assert grid.status(cut.hex) == "none"
    for carriers in (tuple(kzi), (*kzi[:3], cut, *kzi[3:]), (cut, stray, *kzi)):
        supplied, unsupplied = replacements._by_supply(carriers, grid, "KZI")
        assert list(supplied) == [
            u for u in carriers if u.empire == "KZI" and grid.status(u.hex) != "none"
        ]
        assert list(unsupplied) == [
            u for u in carriers if u.empire == "KZI" and grid.status(u.hex) == "none"
        ]


def test_bases_by_empire_keep_each_empires_order_when_its_runs_are_broken() -> None:
    """A board whose units are not grouped by empire (a captured base keeps its id) still
    gives each empire its bases, in the board's order, the first of each hex; and the grid
    points read from them are those every base gives."""
    bases = (
        Unit("KZI-0001", "KZI", "BATS", 1401),
        Unit("KZI-0002", "LYR", "BATS", 1402),  # captured, id kept
        Unit("KZI-0003", "KZI", "SB", 1403),
        Unit("KZI-0004", "KZI", "SB", 1401),  # a second base in 1401: no second point
        Unit("LYR-0001", "LYR", "BATS", 1404),
    )
    grouped = supply._bases_by_empire(bases)
    assert grouped == {"KZI": (bases[0], bases[2]), "LYR": (bases[1], bases[4])}
    for empire in ("KZI", "LYR"):
        own = tuple(u for u in bases if u.empire == empire)
        assert supply._points.__wrapped__(GALAXY, empire, (), (), grouped[empire]) == (  # type: ignore[attr-defined]
            supply._points.__wrapped__(GALAXY, empire, (), (), own)  # type: ignore[attr-defined]
        )


def test_units_are_picked_by_name_only_when_no_unwanted_side_shares_it() -> None:
    """`replacements._picked` (6E's carriers, 2B4's buyers) picks by class name when every
    side of those names is wanted, and by empire, class and side when one is not (a class
    whose crippled side carries nothing); units off the map are never picked."""
    units = (
        Unit("KZI-0001", "KZI", "CV", 1401),
        Unit("KZI-0002", "KZI", "CV", 1402, crippled=True),
        Unit("KZI-0003", "KZI", "CL", 1403),
        Unit("KZI-0004", "KZI", "CV"),
        Unit("KZI-0005", "KZI", "CV", 1405),
    )
    classes = frozenset((u.empire, u.cls, u.crippled) for u in units)
    both = {("KZI", "CV", False), ("KZI", "CV", True)}
    full = {("KZI", "CV", False)}
    assert replacements._picked(units, classes, both) == (units[0], units[1], units[4])
    assert replacements._picked(units, classes, full) == (units[0], units[4])
    assert replacements._picked(units, classes, set()) == ()


def test_a_carried_index_rereads_the_bases_when_a_base_moves_and_only_then() -> None:
    """`occupancy.carry_index` reads the bases again only when a changed unit's class id is a
    base's in the tables (`base_class_ids`, a captor's prefix set aside): every base class is
    there, captured or not; a base moved gives the bases a fresh reading gives, a ship moved
    keeps the very tuple."""
    for info in load_units().classes:
        for cls in (info.id, f"{info.empire}:{info.id}"):
            unit = Unit("", "LYR", cls)
            if unit_kinds.is_base(unit):
                assert unit_kinds.class_id_of(cls) in unit_kinds.base_class_ids(), cls
    state = start()
    board = state.board
    own_unit_index(board)  # the unit index a carry reads
    # The map the engine reads now: the index is kept by identity, and a test run before this
    # one may have emptied the caches, so the module's `GALAXY` need not be that object.
    galaxy = load_galaxy()
    _, bases = occupancy.board_index(galaxy, board)
    ship = next(u for u in board.units if u.hex != OFF_MAP and unit_kinds.is_ship(u))
    base = next(u for u in bases if u.empire == "KZI")
    for moved, kept in ((ship, True), (base, False)):
        after = state.with_units([msgspec.structs.replace(moved, hex=ship.hex + 1)]).board
        carried = occupancy.board_index(galaxy, after)
        assert carried == occupancy.board_index.__wrapped__(galaxy, _plain(after))  # type: ignore[attr-defined]
        assert (carried[1] is bases) == kept, moved.cls


def _components_every_hex(
    table: dict[HexId, tuple[HexId, ...]],
    reach: dict[HexId, tuple[int, int]],
    blocked: frozenset[HexId],
    count: int,
) -> list[int]:
    """The grids' roots linked from every pair of neighbouring hexes (no hex left out),
    with plain sets merged: each point's smallest partner."""
    groups = [{i} for i in range(count)]
    for h, (distance, label) in reach.items():
        for n in table.get(h, ()):
            other = reach.get(n)
            if h in blocked or n in blocked or other is None or other[1] == label:
                continue
            if distance + 1 + other[0] <= supply.SUPPLY_RANGE:
                merged = groups[label] | groups[other[1]]
                for i in merged:
                    groups[i] = merged
    return [min(groups[i]) for i in range(count)]


@pytest.mark.parametrize("seed", [25, 26])
def test_grids_link_and_reach_as_a_search_of_every_hex_does(seed: int) -> None:
    """`supply_search.components` reads only the hexes within half the range of their point, and
    `supply._grids` takes the main grid's reach from its first search when every point is
    in a main grid: on random boards (every empire's grids, partial grids among them) the
    links are those of every pair of neighbouring hexes, and the main reach is what a search
    from the main grids' points finds."""
    rng = random.Random(seed)
    state = _at_war(start())
    transports = [u.id for u in state.board.units if u.hex != OFF_MAP and unit_kinds.can_supply(u)]
    state = msgspec.structs.replace(state, supply_tugs=tuple(sorted(transports)))
    partial = tugged = 0
    for number in range(CHANGES):
        state, what = rng.choice(CHANGERS)(state, rng)
        board = state.board
        for empire in base.all_empires(state):
            table = supply._neighbour_table(GALAXY, empire)
            blocked = blocking.blocking_hexes(GALAXY, board, empire, "supply")
            points = supply._points_on(GALAXY, board, empire)
            reach = supply_search.reach(table, [(p.hex, i) for i, p in enumerate(points)], blocked)
            found = supply_search.components(table, reach, blocked, len(points))
            assert found == _components_every_hex(table, reach, blocked, len(points)), (
                f"change {number} ({what}): {empire}"
            )
            tugs = missions_on(board, state.supply_tugs, empire)
            grid = supply.supply_grid(GALAXY, board, empire, tugs)
            sources = [(p.hex, p.grid) for p in grid.points if p.main and p.kind != "tug"]
            main_reach = supply_search.reach(table, sources, blocked)
            tug_sources = [(p.hex, p.grid) for p in grid.points if p.main and p.kind == "tug"]
            expected = {*main_reach, *supply_search.reach(table, tug_sources, blocked)}
            assert grid.main == tuple(sorted(expected)), f"change {number} ({what}): {empire}"
            for tug in (p for p in grid.points if p.kind == "tug"):
                to_main = main_reach.get(tug.hex)
                if to_main is not None and to_main[0] <= tug.reach:
                    assert (tug.grid, tug.main) == (to_main[1], True), tug.name
                else:
                    assert not tug.main, tug.name
                tugged += 1
            partial += bool(grid.partial)
    assert partial > 0, "no partial grid ever: a weak test"
    assert tugged > 0, "no tug on the supply mission ever: a weak test"


def test_2b4_buyers_of_one_empire_or_of_several_are_those_a_scan_finds() -> None:
    """`replacements._buyers` reads one empire's class names (or, for a tuple of several
    empires' units, their classes and sides): the units on the map that buy PFs at 2B4, in
    their order, as a scan of every unit finds them."""
    hyd = (
        Unit("HYD-0001", "HYD", "SBv.2", 1401),
        Unit("HYD-0002", "HYD", "PAL", 1402),
        Unit("HYD-0003", "HYD", "BATSv.2"),
        Unit("HYD-0004", "HYD", "BATSv.2", 1404, crippled=True),
    )
    mixed = (*hyd, Unit("GOR-0001", "GOR", "PFT", 1405), Unit("GOR-0002", "GOR", "DN", 1406))
    for units in (hyd, mixed):
        expected = tuple(u for u in units if u.hex != OFF_MAP and replacements._buyable(u))
        assert replacements._buyers.__wrapped__(units) == expected  # type: ignore[attr-defined]
        assert expected, "nothing to buy: a weak test"
