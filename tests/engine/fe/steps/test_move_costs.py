"""A move order's checks and bookkeeping take the usual stack in a few passes done in C
(issue 16): on random orders, good and bad, they give what reading each unit gives.

- `movement._stack` (the seat's units named, 105.0) against `base.own_units` unit by unit;
- `engine.fe.movement.check_move` (the list, ownership and start hex, 203.1) against the
  checks as they read each unit;
- `movement.spent` (the hexes each unit moved this phase) against `engine.fe.movement.spend`.
"""

from __future__ import annotations

import random

import msgspec

from engine.core.ruleset import Violation
from engine.fe.forces import OFF_MAP, Board, Unit
from engine.fe.model import FeState
from engine.fe.movement import (
    MOVE_RULE,
    OWN_UNITS_RULE,
    Move,
    check_allowance,
    check_move,
    check_path,
    check_pins,
    check_released,
    spend,
)
from engine.fe.steps import base, movement
from tests.engine.fe.helpers import start

ROUNDS = 300


def _stack_unit_by_unit(
    state: FeState, seat: str, unit_ids: list[str]
) -> tuple[list[Unit], str, list[Violation]]:
    units, problems = base.own_units(state, seat, unit_ids, "105.0")
    empires = sorted({u.empire for u in units})
    if len(empires) > 1:
        text = f"a stack moves as one empire's units, not {', '.join(empires)}"
        problems.append(Violation(text, "105.0"))
    return units, (empires[0] if empires else ""), problems


def _check_move_unit_by_unit(board: Board, empire: str, move: Move) -> list[Violation]:
    """`check_move` with its unit list and ownership read unit by unit (no moved hexes)."""
    out: list[Violation] = []
    if not move.unit_ids:
        out.append(Violation("a move needs at least one unit", MOVE_RULE))
    seen: dict[str, Unit] = {}
    for uid in sorted(move.unit_ids):
        if uid in seen:
            out.append(Violation(f"{uid} is listed twice", MOVE_RULE))
        elif uid in board._by_id:
            seen[uid] = board.unit(uid)
        else:
            out.append(Violation(f"there is no unit {uid}", MOVE_RULE))
    start_hex = move.path[0] if move.path else None
    for unit in seen.values():
        if unit.empire != empire:
            text = f"{unit.id} belongs to {unit.empire}; {empire} moves only its own units"
            out.append(Violation(text, OWN_UNITS_RULE))
        elif start_hex is not None and unit.hex != start_hex:
            where = f"{unit.hex:04d}" if unit.hex else "off the map"
            out.append(Violation(f"{unit.id} is in {where}, not in {start_hex:04d}", MOVE_RULE))
    own = [u for u in seen.values() if u.empire == empire]
    out.extend(check_released(board, own))
    galaxy = base.galaxy()
    path_problems = check_path(galaxy, move.path)
    out.extend(path_problems)
    if path_problems:
        return out
    out.extend(check_allowance(move, own, None))
    out.extend(check_pins(board, empire, move))
    return out


def _random_ids(state: FeState, rng: random.Random) -> list[str]:
    """A stack's ids, as often as not spoiled: an id twice, one unknown, another empire's or
    another hex's unit."""
    board = state.board
    unit = rng.choice([u for u in board.units if u.hex != OFF_MAP])
    here = [u.id for u in board.at(unit.hex) if u.empire == unit.empire]
    ids = rng.sample(here, rng.randint(1, len(here)))
    spoil = rng.randrange(8)
    if spoil == 0:
        ids.append(rng.choice(ids))
    elif spoil == 1:
        ids.insert(rng.randrange(len(ids) + 1), "KLI-9999")
    elif spoil == 2:
        ids.append(rng.choice(board.units).id)  # any unit: another empire's, another hex's
    elif spoil == 3:
        ids = []
    return ids


def test_a_stack_is_named_as_reading_each_unit_gives() -> None:
    rng = random.Random(105)
    state = start()
    good = 0
    for _ in range(ROUNDS):
        ids = _random_ids(state, rng)
        seat = rng.choice(["coalition", "alliance"])
        found = movement._stack(state, seat, ids, "105.0")
        assert found == _stack_unit_by_unit(state, seat, ids), (seat, ids)
        good += not found[2]
    assert 50 < good < ROUNDS - 50


def _released(state: FeState) -> FeState:
    fleets = {(u.empire, u.fleet) for u in state.board.units if u.fleet}
    held = sorted(fleets)[::3]  # every third fleet is held
    return msgspec.structs.replace(state, released=tuple(sorted(fleets - set(held))))


def _one_step(h: int) -> tuple[int, int]:
    """``h`` and the hex north of it (south on the map's first row)."""
    return (h, h - 1 if h % 100 > 1 else h + 1)


def test_a_moves_unit_list_and_start_are_checked_as_reading_each_unit_gives() -> None:
    rng = random.Random(203)
    state = _released(start())
    board = state.board
    good = 0
    for _ in range(ROUNDS):
        ids = _random_ids(state, rng)
        named = [u for u in map(board._by_id.get, ids) if u is not None]
        empire = rng.choice(named).empire if named else "KLI"
        path = _one_step(named[0].hex if named and rng.random() < 0.9 else 1411)
        if rng.random() < 0.1:
            path = (path[0], 9999)  # off the map: no allowance, no pins
        move = Move(tuple(ids), path)
        found = check_move(base.galaxy(), board, empire, move)
        assert found == _check_move_unit_by_unit(board, empire, move), (empire, move)
        good += not found
    assert 20 < good < ROUNDS - 50


def test_the_hexes_spent_are_those_spend_gives() -> None:
    """`spent` keeps the tally's order and merges the new ids in: the sorted tally `spend`
    gives, whether the stack's ids come after the rest, among them, or are there already."""
    rng = random.Random(2031)
    ids = [f"{e}-{n:04d}" for e in ("FED", "KLI", "KZI") for n in range(40)]
    tally: tuple[tuple[str, int], ...] = ()
    for _ in range(ROUNDS):
        stack = tuple(rng.sample(ids, rng.randint(1, 12)))
        cost = rng.randint(1, 3)
        expected = tuple(spend(dict(tally), Move(stack, (0,) * (cost + 1))).items())
        found = movement.spent(tally, stack, cost)
        assert found == expected
        tally = found if rng.random() < 0.98 else ()
    assert len(tally) > 40


def test_a_stack_moving_on_a_board_changed_at_random_is_judged_the_same() -> None:
    """The same comparisons on boards where stacks moved and units changed hands (a captured
    ship keeps its id): `_stack` and `check_move` still agree with a reading of each unit."""
    rng = random.Random(7)
    state = _released(start())
    for _ in range(60):
        unit = rng.choice([u for u in state.board.units if u.hex != OFF_MAP])
        if rng.random() < 0.3:
            other = rng.choice([e for e in ("FED", "KLI", "KZI", "LYR", "HYD") if e != unit.empire])
            builder, _, cls = unit.class_key()[0], None, unit.class_key()[1]
            taken = msgspec.structs.replace(unit, empire=other, cls=f"{builder}:{cls}")
            state = state.with_units([taken])
        else:
            to = rng.choice([u.hex for u in state.board.units if u.hex != OFF_MAP])
            state = state.with_units(
                [msgspec.structs.replace(u, hex=to) for u in state.board.at(unit.hex)]
            )
        ids = _random_ids(state, rng)
        assert movement._stack(state, "coalition", ids, "105.0") == _stack_unit_by_unit(
            state, "coalition", ids
        )
        named = [u for u in map(state.board._by_id.get, ids) if u is not None]
        if named:
            move = Move(tuple(ids), _one_step(named[0].hex or 1411))
            found = check_move(base.galaxy(), state.board, named[0].empire, move)
            assert found == _check_move_unit_by_unit(state.board, named[0].empire, move)


def test_a_stack_of_neighbouring_ids_goes_into_the_tally_as_one_block() -> None:
    """Stacks whose ids are neighbours (a fleet's, as `spent` puts them in at once): before,
    between and after the ids tallied, partly or wholly tallied already, in any order; the
    tally is the sorted one `spend` gives."""
    rng = random.Random(2032)
    ids = [f"{e}-{n:04d}" for e in ("FED", "KLI", "KZI") for n in range(60)]
    tally: tuple[tuple[str, int], ...] = ()
    for _ in range(ROUNDS):
        first = rng.randrange(len(ids))
        stack = ids[first : first + rng.randint(1, 15)]
        rng.shuffle(stack)
        cost = rng.randint(1, 3)
        expected = tuple(spend(dict(tally), Move(tuple(stack), (0,) * (cost + 1))).items())
        found = movement.spent(tally, tuple(stack), cost)
        assert found == expected
        tally = found if rng.random() < 0.95 else ()
    assert len(tally) > 60
