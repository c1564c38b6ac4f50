"""Provinces in the economy: disruption (430.22), long-term capture (438.1), partial-grid EP
(413.44), on small hand-made boards of the real map."""

from __future__ import annotations

import random

from engine.fe import economics, provinces
from engine.fe.forces import Board
from engine.fe.galaxy import HexId, Province
from engine.fe.occupancy import ship_empires
from engine.fe.supply import supply_grid
from tests.engine.fe.supply_boards import GALAXY, THO_ALONE, THO_CAPITAL, board, unit

WAR = (("KLI", "KZI"),)
KZI_05 = GALAXY.province("KZI-05")  # 1104 1105 1204 1205 1305; a minor planet in 1105
NZ_PLANET = 2214  # a neutral-zone minor planet 8 hexes from Tholia: a partial grid of its own


def test_an_enemy_ship_in_any_hex_disrupts_a_province() -> None:
    assert not provinces.disrupted(board(), KZI_05, "KZI")
    raider = unit("KLI-1", "D7", 1204)
    assert provinces.disrupted(board(raider, wars=WAR), KZI_05, "KZI")
    assert not provinces.disrupted(board(raider), KZI_05, "KZI")  # not at war
    base = unit("KLI-2", "BATS", 1204)
    assert not provinces.disrupted(board(base, wars=WAR), KZI_05, "KZI")  # not a ship


KINDS = {"KLI": ["D7", "F5", "BATS", "D6"], "KZI": ["BC", "CL", "BATS"], "LYR": ["CA", "DD"]}
"""The classes of the random boards' units: ships, bases and cripples of three empires."""


def _random_board(rng: random.Random, hexes: list[HexId]) -> Board:
    """Up to 30 units of `KINDS` in ``hexes``, some crippled; some of the three pairs at war;
    six of the hexes given to a random owner."""
    units = [
        unit(f"{e}-{n}", rng.choice(KINDS[e]), rng.choice(hexes), crippled=rng.random() < 0.2)
        for n in range(rng.randint(0, 30))
        for e in [rng.choice(list(KINDS))]
    ]
    wars = tuple(p for p in (("KLI", "KZI"), ("KZI", "LYR"), ("KLI", "LYR")) if rng.random() < 0.6)
    owners = tuple(sorted({h: rng.choice(list(KINDS)) for h in rng.sample(hexes, 6)}.items()))
    return board(*{u.id: u for u in units}.values(), owners=owners, wars=wars)


def test_disruption_reads_what_the_occupancy_index_reads_on_random_boards() -> None:
    """`disrupted` reads each hex's units from the board's hex index; the answer is the
    occupancy index's (`occupancy.ship_empires`) for every province and empire, on random
    boards of ships, bases and cripples of three empires in and around their provinces, at
    war or not; and `economics.income` reads the owners as `Board.owner` does."""
    rng = random.Random(430)
    kinds = KINDS
    hexes = [h for p in GALAXY.provinces if p.empire in kinds for h in p.hexes]
    checked = 0
    for trial in range(40):
        b = _random_board(rng, hexes)
        for province in GALAXY.provinces:
            if province.empire not in kinds:
                continue
            for owner in kinds:
                expected = any(
                    b.enemies(empire, owner)
                    for h in province.hexes
                    for empire in ship_empires(GALAXY, b, h)
                )
                assert provinces.disrupted(b, province, owner) == expected, (trial, province.id)
                checked += expected
        owner_of = provinces.owner_of(GALAXY, b)
        assert all(owner_of(h) == b.owner(GALAXY, h) for h in hexes)
    assert checked > 20  # the boards did disrupt provinces
    doubled = board(owners=((1104, "KLI"), (1104, "LYR"), (1204, "LYR")))  # the first answers
    assert [provinces.owner_of(GALAXY, doubled)(h) for h in (1104, 1204, 1105)] == [
        doubled.owner(GALAXY, h) for h in (1104, 1204, 1105)
    ]


def test_income_reads_disruption_from_one_set_of_hexes_as_province_by_province() -> None:
    """`economics.income` tells disrupted provinces from one set of hexes holding foes' ships
    (`provinces.disrupting_hexes`, asked once for all its provinces): on random boards its
    answer is what asking `provinces.disrupted` of each province the empire holds gives, and
    so are the provinces that pay; a board asked again answers alike."""
    rng = random.Random(4302)
    kinds = KINDS
    hexes = [h for p in GALAXY.provinces if p.empire in kinds for h in p.hexes]
    disrupted_seen = 0
    for trial in range(40):
        b = _random_board(rng, hexes)
        owner_of = provinces.owner_of(GALAXY, b)
        for owner in kinds:
            foes = provinces.foes_of(b, owner)
            hot = provinces.disrupting_hexes(
                b, foes, (h for p in GALAXY.provinces for h in p.hexes)
            )
            for province in GALAXY.provinces:
                fresh = provinces.disrupted(b, province, owner)
                assert (not hot.isdisjoint(province.hexes)) == fresh, (trial, province.id)
            held = [
                p for p in GALAXY.provinces_of(owner) if all(owner_of(h) == owner for h in p.hexes)
            ]
            hit = [p.id for p in held if provinces.disrupted(b, p, owner)]
            for _ in range(2):  # the second time from the remembered ship hexes
                earned = economics.income(GALAXY, b, owner)
                assert earned.disrupted == len(hit), (trial, owner)
                assert earned.paying_provinces == tuple(p.id for p in held if p.id not in hit)
            disrupted_seen += len(hit)
    assert disrupted_seen > 20  # the boards did disrupt provinces


def test_a_disrupted_province_pays_its_owner_nothing() -> None:
    quiet = economics.income(GALAXY, board(wars=WAR), "KZI")
    raided = economics.income(GALAXY, board(unit("KLI-1", "D7", 1204), wars=WAR), "KZI")
    assert quiet.provinces - raided.provinces == 1 and raided.disrupted == 1
    assert quiet.total2 - raided.total2 == 4  # the province's 2 EP; its planet still pays
    assert raided.minor2 == quiet.minor2
    assert ("1 provinces disrupted", "0") in raided.lines()
    assert "KZI-05" in quiet.paying_provinces and "KZI-05" not in raided.paying_provinces


def test_turns_toward_long_term_capture_are_counted_for_the_captor_only() -> None:
    owners = tuple((h, "KLI") for h in KZI_05.hexes)
    b = board(owners=owners, wars=WAR)
    assert provinces.captured_provinces(GALAXY, b, "KLI") == ["KZI-05"]
    assert provinces.captured_provinces(GALAXY, board(owners=owners[1:]), "KLI") == []
    held = provinces.count_held(GALAXY, b, (), ["KLI"])
    assert held == (("KZI-05", "KLI", 1),)
    held = provinces.count_held(GALAXY, b, held, ["KZI"])  # the Kzinti turn: no change
    assert held == (("KZI-05", "KLI", 1),)
    held = provinces.count_held(GALAXY, b, held, ["KLI"])
    assert held == (("KZI-05", "KLI", 2),)
    assert provinces.long_term(held, "KLI", 2) == ["KZI-05"]
    assert provinces.long_term(held, "KLI", 3) == []
    lost = board(owners=owners[1:], wars=WAR)  # the Kzinti took a hex back
    assert provinces.count_held(GALAXY, lost, held, ["KLI"]) == ()


def test_a_long_term_capture_pays_the_captor() -> None:
    owners = tuple((h, "KLI") for h in KZI_05.hexes)
    b = board(owners=owners, wars=WAR)
    before = economics.income(GALAXY, b, "KLI")
    after = economics.income(GALAXY, b, "KLI", captured=["KZI-05"])
    assert after.provinces2 - before.provinces2 == 4


def test_the_long_term_capture_option() -> None:
    assert provinces.long_term_turns({}) == 2
    assert provinces.long_term_turns({provinces.LONG_TERM_TURNS: 4}) == 4
    assert provinces.long_term_turns({provinces.LONG_TERM_TURNS: True}) == 2


def _tholians(*extra: tuple[int, str]) -> tuple[tuple[int, str], ...]:
    return (*THO_ALONE, (NZ_PLANET, "THO"), *extra)


def test_income_earned_in_a_partial_grid_stays_there() -> None:
    grid = supply_grid(GALAXY, board(owners=_tholians()), "THO")
    assert provinces.grid_keys(grid) == {1: NZ_PLANET}
    planets = [(NZ_PLANET, 6), (THO_CAPITAL, 10)]
    split = provinces.split(GALAXY, grid, 16, 1000, [], planets, 0)
    assert split == provinces.Split(10, ((NZ_PLANET, 6),))
    # at half income (a peace economy) each grid keeps its share rounded down
    half = provinces.split(GALAXY, grid, 8, 500, [], planets, 0)
    assert half == provinces.Split(5, ((NZ_PLANET, 3),))
    # a province with a hex in the main grid pays the treasury
    tholia: Province = GALAXY.provinces_of("THO")[0]
    assert provinces.where(grid, tholia.hexes) is None
    assert provinces.where(grid, (NZ_PLANET,)) == NZ_PLANET


def test_where_reads_the_main_grid_as_the_grids_status_does() -> None:
    """`provinces.where` tells a source in the main grid from a set of the grid's main hexes
    kept per grid: for every province and planet hex of the map, asked twice, its answer is
    the one read hex by hex from `SupplyGrid.status` and `grid_of`."""
    grid = supply_grid(GALAXY, board(owners=_tholians()), "THO")
    keys = provinces.grid_keys(grid)

    def fresh(hexes: tuple[int, ...]) -> int | None:
        if any(grid.status(h) == "main" for h in hexes):
            return None
        numbers = [grid.grid_of(h) for h in sorted(hexes)]
        return next((keys[n] for n in numbers if n is not None and n in keys), None)

    sources = [p.hexes for p in GALAXY.provinces] + [(info.hex,) for info in GALAXY.hexes]
    answers = [provinces.where(grid, hexes) for hexes in sources]
    assert answers == [fresh(hexes) for hexes in sources]
    assert answers == [provinces.where(grid, hexes) for hexes in sources]
    assert {None, NZ_PLANET} <= set(answers)  # both kinds of answer were given


def test_kept_ep_follow_their_grid() -> None:
    earned = provinces.Split(10, ((NZ_PLANET, 6),))
    grid = supply_grid(GALAXY, board(owners=_tholians()), "THO")
    kept = (("KLI", 1411, 8), ("THO", NZ_PLANET, 4))
    settled = provinces.settle(kept, "THO", grid, earned)
    assert settled.grid_ep == (("KLI", 1411, 8), ("THO", NZ_PLANET, 10))
    assert settled.to_treasury2 == 0 and settled.lost == ()
    # a base at 2213 joins the planet's grid: the grid's key is now 2213, the EP move
    joined = supply_grid(GALAXY, board(unit("THO-1", "MB", 2213), owners=_tholians()), "THO")
    moved = provinces.settle(kept, "THO", joined, provinces.Split(0))
    assert moved.grid_ep == (("KLI", 1411, 8), ("THO", 2213, 4))
    assert moved.moved == ((NZ_PLANET, 2213, 4),)
    # the key hex in the main grid: the EP come into the treasury
    home = provinces.settle((("THO", THO_CAPITAL, 4),), "THO", grid, provinces.Split(0))
    assert home.to_treasury2 == 4 and home.grid_ep == ()
    # the planet lost (no longer the Tholians'): its EP are lost
    gone = supply_grid(GALAXY, board(owners=THO_ALONE), "THO")
    lost = provinces.settle(kept, "THO", gone, provinces.Split(0))
    assert lost.lost == ((NZ_PLANET, 4),) and lost.grid_ep == (("KLI", 1411, 8),)
