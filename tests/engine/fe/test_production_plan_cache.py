"""The remembered production plan (`engine.fe.production._planned`): a build order's check and
its carrying out on the same board share one plan, and every answer equals a fresh one."""

from __future__ import annotations

import random

import msgspec
import pytest

from engine.core import caches
from engine.core.errors import NotPending
from engine.core.ruleset import Violation
from engine.fe.forces import Board, Unit
from engine.fe.galaxy import load_galaxy
from engine.fe.oob import Batch
from engine.fe.production import (
    Build,
    Convert,
    ProductionOptions,
    ProductionOrders,
    check_builds,
    production_changes,
    scheduled,
    slots_of,
)
from engine.fe.scenario import find_scenario
from engine.fe.steps import yard
from tests.engine.fe.helpers import start

GALAXY = load_galaxy()
CAPITAL = 1411
HEXES = (CAPITAL, 1509, 1401, 1510, 1311)
CLASSES = ("D7", "D6", "D5", "F5", "F5L", "E4", "D7C", "C8", "SB", "XX", "D5W", "AD5")


def _schedule() -> tuple[Batch, ...]:
    scenario = find_scenario("the-wind")
    assert scenario is not None and scenario.setup is not None
    setup = scenario.setup.empire("KLI")
    assert setup is not None
    return setup.production


SCHEDULE = _schedule()


def _board(rng: random.Random) -> Board:
    units = [Unit("KLI-0001", "KLI", "SB", CAPITAL), Unit("KZI-0099", "KZI", "BC", 1401)]
    for n in range(2, 2 + rng.randrange(12)):
        cls = rng.choice(("D7", "F5", "E4", "SB", "D6", "D5"))
        crippled = rng.random() < 0.2
        units.append(Unit(f"KLI-{n:04d}", "KLI", cls, rng.choice(HEXES), crippled=crippled))
    owners = ((CAPITAL, "KZI"),) if rng.random() < 0.15 else ()
    return Board(units=tuple(units), owners=owners)


def _orders(rng: random.Random, board: Board) -> ProductionOrders:
    slots = list(scheduled(SCHEDULE, 1)) or ["D7"]
    builds = []
    for _ in range(rng.randrange(5)):
        cls = rng.choice(CLASSES)
        instead = rng.choice(slots) if rng.random() < 0.3 else ""
        builds.append(Build(cls, rng.choice(HEXES), instead))
    ids = [u.id for u in board.units] + ["KLI-0999"]
    conversions = tuple(
        Convert(rng.choice(ids), rng.choice(CLASSES)) for _ in range(rng.randrange(3))
    )
    return ProductionOrders(
        builds=tuple(builds), conversions=conversions, extra_major=rng.random() < 0.2
    )


def _lines(found: list[Violation]) -> list[tuple[str, str]]:
    return [(v.message, v.rule) for v in found]


def _carried(board: Board, treasury2: int, orders: ProductionOrders) -> object:
    try:
        return production_changes(GALAXY, board, "KLI", 1, treasury2, SCHEDULE, orders, None)
    except ValueError as refused:
        return str(refused)


@pytest.mark.parametrize("seed", range(40))
def test_remembered_plans_answer_as_fresh_ones(seed: int) -> None:
    """Random boards and orders, each checked and carried out (with several treasuries, one
    too small) on a plan remembered from the check, against a fresh computation after every
    cache is emptied: the same refusals in the same order, the same units, cost and ids."""
    rng = random.Random(seed)
    board = _board(rng)
    orders = _orders(rng, board)
    options = ProductionOptions(substitution_limit=rng.choice((0, 1, 2)))
    treasuries = (10**9, 2 * 142, rng.randrange(40))
    remembered = []
    for treasury2 in treasuries:
        found = check_builds(GALAXY, board, "KLI", 1, treasury2, SCHEDULE, orders, options=options)
        found.append(Violation("added by a caller", "0"))  # must not reach the next answer
        remembered.append((_lines(found[:-1]), _carried(board, treasury2, orders)))
    caches.clear_all()
    fresh = []
    for treasury2 in treasuries:
        caches.clear_all()
        found = check_builds(GALAXY, board, "KLI", 1, treasury2, SCHEDULE, orders, options=options)
        caches.clear_all()
        fresh.append((_lines(found), _carried(board, treasury2, orders)))
    assert remembered == fresh


def test_the_check_and_the_build_on_one_board_share_one_plan() -> None:
    """The plan is computed once for a board and orders; another board, equal or not, or
    other orders are planned afresh."""
    board = Board(units=(Unit("KLI-0001", "KLI", "SB", CAPITAL),))
    orders = ProductionOrders(builds=(Build("D7", CAPITAL),))
    caches.clear_all()
    check_builds(GALAXY, board, "KLI", 1, 10**9, SCHEDULE, orders)
    size = {i.name: i.size for i in caches.describe()}["engine.fe.production._planned"]
    units, cost2, ids = production_changes(GALAXY, board, "KLI", 1, 2 * 142, SCHEDULE, orders, None)
    assert {i.name: i.size for i in caches.describe()}["engine.fe.production._planned"] == size
    assert ids == ("KLI-0002",) and [u.cls for u in units] == ["D7"] and cost2 > 0
    poor = _lines(check_builds(GALAXY, board, "KLI", 1, 1, SCHEDULE, orders))
    assert poor[-1][1] == "431.0" and "treasury 0.5 EP" in poor[-1][0]
    with pytest.raises(ValueError, match=r"treasury 0\.5 EP"):
        production_changes(GALAXY, board, "KLI", 1, 1, SCHEDULE, orders, None)
    other = Board(units=(Unit("KLI-0001", "KLI", "SB", CAPITAL),), owners=((CAPITAL, "KZI"),))
    refused = _lines(check_builds(GALAXY, other, "KLI", 1, 10**9, SCHEDULE, orders))
    assert refused and "may not appear in 1411" in refused[0][0]


def test_remembered_slots_and_schedules_answer_as_fresh_ones() -> None:
    """`slots_of` (per schedule object and turn) and the build steps' schedule per scenario
    and empire (`engine.fe.steps.yard.schedule`) give what a fresh reading gives, for every
    empire and turn of The Wind, asked twice (the second answer remembered); the schedule
    is the scenario's own tuple (the plan cache keys on it); an unknown scenario is
    refused, and asked again refused again."""
    state = start()
    scenario = find_scenario("the-wind")
    assert scenario is not None and scenario.setup is not None
    seen_slots = 0
    for empire in ("FED", "HYD", "KLI", "KZI", "LYR", "ROM"):
        setup = scenario.setup.empire(empire)
        expected = setup.production if setup is not None else ()
        for _ in range(2):
            got = yard.schedule(state, empire)
            assert got == expected and (setup is None or got is setup.production), empire
        for turn in range(1, 16):
            for _ in range(2):
                assert slots_of(got, turn) == scheduled(expected, turn), (empire, turn)
            seen_slots += bool(scheduled(expected, turn))
    assert seen_slots > 20, "hardly any turn has slots"
    unknown = msgspec.structs.replace(state, scenario="no-such-scenario")
    for _ in range(2):
        with pytest.raises(NotPending):
            yard.schedule(unknown, "KLI")
