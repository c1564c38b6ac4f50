"""The shortcuts a move order takes give what the full reading gives.

- `check_path` reads a path against each hex's steps (`movement._steps_from`) before
  reading hex by hex: random paths (on and off the map, steps and jumps) against the plain
  reading of each hex and step.
- `check_move` given the stack's units (``found``, as `check_move_order` passes what its
  own look-up found) answers as when it looks them up itself; `check_released` answers as
  reading each unit's fleet (`Board.is_released`).
- `neutral_entries` answers the usual hexes (unowned, own, an enemy's) at once: random paths
  against `closed_to` read for each hex.
- A board of moved units (`board_update.with_units` with ``moved``) keeps the id order its
  board had (`Board._id_sorted`): against a fresh board's, on boards in id order and boards
  out of it (a captured ship keeps its id); a stack whose units lie at even gaps among its
  empire's (`board_update._replaced` guesses the next place) gives the full regrouping.
"""

from __future__ import annotations

import random
from itertools import pairwise

import msgspec
import pytest

from engine.core import hexgrid
from engine.core.ruleset import Violation
from engine.fe import board_update
from engine.fe.forces import OFF_MAP, Board, Unit
from engine.fe.galaxy import load_galaxy
from engine.fe.model import FeState
from engine.fe.movement import MOVE_RULE, Move, check_move, check_path, check_released
from engine.fe.steps import access
from tests.engine.fe.helpers import start

G = load_galaxy()


def _plain_path(path: tuple[int, ...]) -> list[Violation]:
    """`check_path` read hex by hex and step by step, as it reads a path it refuses."""
    if len(path) < 2:
        return [
            Violation("a move needs a path of at least two hexes (start and one step)", MOVE_RULE)
        ]
    out = [
        Violation(f"hex {h:04d} is not on the map", MOVE_RULE)
        for h in path
        if not hexgrid.valid(h, G.width, G.height)
    ]
    if out:
        return out
    return [
        Violation(f"{a:04d}->{b:04d} is not a step to an adjacent hex", MOVE_RULE)
        for a, b in pairwise(path)
        if b not in hexgrid.neighbours(a, G.width, G.height)
    ]


def _random_path(rng: random.Random) -> tuple[int, ...]:
    """A walk of steps from a random hex, now and then with a jump, a hex off the map, a
    stop in place or a single hex."""
    on_map = [info.hex for info in G.hexes]
    path = [rng.choice(on_map)]
    for _ in range(rng.randint(0, 6)):
        roll = rng.random()
        if roll < 0.06:
            path.append(rng.choice([0, 100, 1, 99, 10000, G.width * 100 + G.height + 1]))
        elif roll < 0.12:
            path.append(rng.choice(on_map))
        elif roll < 0.15:
            path.append(path[-1])
        elif hexgrid.valid(path[-1], G.width, G.height):
            path.append(rng.choice(hexgrid.neighbours(path[-1], G.width, G.height)))
    return tuple(path)


@pytest.mark.parametrize("seed", [1, 2])
def test_a_path_reads_as_each_hex_and_step(seed: int) -> None:
    rng = random.Random(seed)
    good = bad = 0
    for number in range(600):
        path = _random_path(rng)
        expected = _plain_path(path)
        assert check_path(G, path) == expected, f"path {number}: {path}"
        good += not expected
        bad += bool(expected)
    assert good > 100 and bad > 100, "too few paths of either kind"


def _units_here(board: Board, rng: random.Random) -> tuple[str, list[Unit]]:
    """An empire and some of its units in one hex, now and then with a unit of another
    empire or from another hex."""
    on_map = [u for u in board.units if u.hex != OFF_MAP]
    unit = rng.choice(on_map)
    here = [u for u in board.at(unit.hex) if u.empire == unit.empire]
    units = rng.sample(here, rng.randint(1, len(here)))
    if rng.random() < 0.15:
        units.append(rng.choice([u for u in on_map if u.id not in {x.id for x in units}]))
    return unit.empire, units


@pytest.mark.parametrize("seed", [3, 4])
def test_a_stack_given_is_checked_as_one_looked_up(seed: int) -> None:
    rng = random.Random(seed)
    state = start()
    fleets = sorted({(u.empire, u.fleet) for u in state.board.units if u.fleet})
    refused = 0
    for number in range(300):
        released = tuple(sorted(rng.sample(fleets, rng.randint(0, len(fleets)))))
        board = msgspec.structs.replace(state.board, released=released)
        empire, units = _units_here(board, rng)
        ids = tuple(u.id for u in units)
        path = _random_path(rng)
        move = Move(ids, (units[0].hex, *path[1:]) if rng.random() < 0.9 else path)
        found = sorted(units, key=lambda u: u.id)
        expected = check_move(G, board, empire, move)
        assert check_move(G, board, empire, move, found=found) == expected, f"move {number}"
        refused += bool(expected)
        held = [u for u in units if not board.is_released(u)]
        assert bool(check_released(board, units)) == bool(held), f"move {number}: release"
    assert refused > 30, "hardly any move was refused"


def _plain_entries(state: FeState, empire: str, path: tuple[int, ...]) -> list[Violation]:
    """`access.neutral_entries` read through `access.closed_to` for each hex."""
    out: list[Violation] = []
    for h in path[1:]:
        if not hexgrid.valid(h, G.width, G.height):
            return []
        owner = access.closed_to(state, empire, h)
        if owner == "NZ":
            zone = access._zone_problem(state, empire, h)
            if zone is not None:
                out.append(zone)
        elif owner:
            out.append(
                Violation(
                    f"{h:04d} is {owner} space and {empire} is not at war with {owner}",
                    access.NEUTRAL_RULE,
                )
            )
    return out


@pytest.mark.parametrize("seed", [5, 6])
def test_a_path_enters_the_spaces_closed_to_it_as_read_hex_by_hex(seed: int) -> None:
    rng = random.Random(seed)
    state = start()
    empires = sorted({u.empire for u in state.board.units})
    pairs = [(a, b) for a in empires for b in empires if a < b]
    closed = 0
    for number in range(200):
        at_war = tuple(sorted(rng.sample(pairs, rng.randint(0, len(pairs)))))
        at = msgspec.structs.replace(state, at_war=at_war)
        empire = rng.choice(empires)
        path = _random_path(rng)
        expected = _plain_entries(at, empire, path)
        assert access.neutral_entries(at, empire, path) == expected, f"path {number}"
        closed += bool(expected)
    assert closed > 20, "hardly any path entered a closed space"


def _moved(state: FeState, rng: random.Random) -> list[Unit]:
    """Some units of one empire in one hex, with their hex alone changed."""
    empire, units = _units_here(state.board, rng)
    units = [u for u in units if u.empire == empire]
    to = rng.choice([u.hex for u in state.board.units if u.hex != OFF_MAP])
    return [msgspec.structs.replace(u, hex=to) for u in units]


@pytest.mark.parametrize("captured", [False, True])
def test_moved_units_keep_the_id_order_a_fresh_board_reads(captured: bool) -> None:
    rng = random.Random(7)
    state = start()
    if captured:  # a ship changes hands and keeps its id: the board is out of id order
        ship = next(u for u in state.board.units if u.empire == "KLI" and u.hex != OFF_MAP)
        state = state.with_units([msgspec.structs.replace(ship, empire="KZI")])
    for number in range(30):
        if rng.random() < 0.5:
            state.board._id_sorted  # noqa: B018  (known on the board moved from, or not)
        state = board_update.with_units(state, _moved(state, rng), moved=True)
        fresh = Board(state.board.units)._id_sorted
        assert state.board._id_sorted == fresh, f"move {number}"
        assert fresh is not captured


@pytest.mark.parametrize("stride", [1, 2, 3])
def test_a_stack_spread_evenly_among_an_empires_units_moves_as_fresh(stride: int) -> None:
    """Every ``stride``-th unit of an empire moves (a stack whose ids lie at even gaps among
    its empire's units, as `board_update._replaced` guesses): the state is the one the
    full regrouping gives."""
    state = start()
    forces = max(state.forces, key=lambda f: len(f.units))
    to = next(u.hex for u in state.board.units if u.hex != OFF_MAP)
    units = [msgspec.structs.replace(u, hex=to) for u in forces.units[1::stride][:40]]
    board = state.board.with_units(units)
    plain = Board(board.units, board.owners, board.at_war, board.released, board.devastated)
    assert board_update.with_units(state, units, moved=True) == state.with_board(plain)
