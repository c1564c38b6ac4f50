"""What a board carries or shares from the board before it, read by hex, matches a pass over
every unit, on The Wind's set-up board changed at random (the changes of `test_supply_cache`).

Each empire's presence flags, and the blocking sets worked out from them, are carried to a
board made by a change of units (`blocking.carry_presence`), and handed to a board of the
very same units (a war declared or ended) for the empires the change leaves alone
(`blocking.share_presence`); the units that may react to a batch are looked for only near
the hexes it reached (`engine.fe.steps.reactors`). Unlike the warm caches of
`test_supply_cache`, checked all together against one fresh computation, each shortcut here
is compared with its own reading unit by unit. A file of its own so that each holds one
subject; the random changes and the unit-by-unit readings of presence and blocking stay in
`test_supply_cache`, whose fresh computation uses them too, and are imported from there.
"""

from __future__ import annotations

import random

import msgspec
import pytest

from engine.core import caches, hexgrid
from engine.fe import blocking
from engine.fe.blocking import blocking_hexes
from engine.fe.forces import OFF_MAP, Board, war_pairs
from engine.fe.galaxy import load_galaxy
from engine.fe.model import FeState
from engine.fe.reaction import EXTENDED_REACTION_RANGE, why_not
from engine.fe.steps import base
from engine.fe.steps import reactors as reactor_steps
from tests.engine.fe.helpers import start
from tests.engine.fe.test_supply_cache import (
    CHANGERS,
    CHANGES,
    GALAXY,
    PURPOSES,
    _at_war,
    _blocking_hex_by_hex,
    _on_map,
    _presence_unit_by_unit,
)


@pytest.mark.parametrize("seed", [4, 5])
def test_blocking_sets_carried_with_the_presence_flags_match_a_fresh_reading(seed: int) -> None:
    """A board made from another by a change of units gets each empire's blocking sets from
    the other's when they were asked about there (`blocking.carry_presence`): only the hexes
    whose flags changed and their neighbours are read again. After every change the carried
    sets (found before anything asks for them) are compared with the table evaluated hex by
    hex on a presence index rebuilt unit by unit."""
    rng = random.Random(seed)
    galaxy = load_galaxy()  # the map the engine reads now (a test before may have cleared it)
    state = _at_war(start())
    empires = base.all_empires(state)
    for empire in empires:
        for purpose in PURPOSES:
            blocking_hexes(galaxy, state.board, empire, purpose)
    before = {e: blocking.presence_set(galaxy, state.board, e) for e in empires}
    carried = 0
    for number in range(CHANGES):
        state, what = rng.choice(CHANGERS)(state, rng)
        board = state.board
        for empire in empires:
            presence = blocking.presence_set(galaxy, board, empire)  # carries the index
            changed, before[empire] = presence != before[empire], presence
            for purpose in PURPOSES:
                held = caches.peek(blocking._blocked_by, galaxy, presence, purpose)
                carried += changed and held is not None
                answer = blocking_hexes(galaxy, board, empire, purpose)
                assert held is None or held is answer
                expected = _blocking_hex_by_hex(board, empire, purpose)  # (on GALAXY, an equal map)
                assert answer == expected, f"change {number} ({what}): {empire} {purpose}"
    assert carried >= CHANGES, "the blocking sets of changed flags were hardly ever carried"


@pytest.mark.parametrize("seed", [6, 7])
def test_flags_shared_across_a_war_change_are_those_of_the_empires_it_leaves_alone(
    seed: int,
) -> None:
    """A state whose units are the last state's (a war declared, a fleet released) gets a
    board that takes the last board's presence flags of every empire whose enemies stay the
    same (`blocking.share_presence`): the same frozenset, equal to a reading unit by unit;
    the two empires a war changes, and every empire when a hex changes hands, read theirs
    again."""
    rng = random.Random(seed)
    galaxy = load_galaxy()
    state = _at_war(start())
    empires = base.all_empires(state)
    shared = fresh = 0
    for number in range(12):
        before, forces = state.board, state.forces
        held = {e: blocking.presence_set(galaxy, before, e) for e in empires}
        # As the engine changes them: the state's own fields, its units tuples untouched.
        if number % 4 == 3:
            info = rng.choice([i for i in GALAXY.hexes if i.planets or i.bases])
            owners = {**dict(state.owners), info.hex: rng.choice(empires)}
            state = msgspec.structs.replace(state, owners=tuple(sorted(owners.items())))
            what, touched = f"{info.hex} changed hands", set(empires)
        else:
            a, b = rng.sample(empires, 2)
            pairs = set(state.at_war) ^ {(min(a, b), max(a, b))}  # declared, or ended
            state = msgspec.structs.replace(state, at_war=war_pairs(tuple(pairs)))
            what, touched = f"{a} and {b} at war or not", {a, b}
        after = state.board
        assert after is not before and state.forces is forces  # (the same units tuples)
        for empire in empires:
            flags = blocking.presence_set(galaxy, after, empire)
            expected = _presence_unit_by_unit(after, empire)
            assert dict(flags) == expected, f"change {number} ({what}): {empire}"
            if empire in touched:
                fresh += flags is not held[empire]
            else:
                assert flags is held[empire], f"change {number} ({what}): {empire} not shared"
                shared += 1
    assert shared and fresh, "no flags were shared, or none read again: a weak test"


def _reactors_unit_by_unit(state: FeState) -> list[str]:
    """`movement.reactors` as it read the board before: every unit in the board's order,
    the held hexes in range worked out per unit, on a copy of the board that shares none
    of its views (the empires by hex read afresh)."""
    made = state.board
    board = Board(made.units, made.owners, made.at_war, made.released, made.devastated)
    phasing = base.phasing_empires(state)
    steps = state.batch
    held = [
        h for h in sorted({to for _, to in steps}) if any(u.empire in phasing for u in board.at(h))
    ]
    found = []
    for unit in board.units:
        if unit.empire in phasing or unit.hex == OFF_MAP:
            continue
        near = [h for h in held if hexgrid.distance(unit.hex, h) <= EXTENDED_REACTION_RANGE]
        if any(
            why_not(board, phasing, to, frm, unit, state.reacted) is None
            for frm, to in steps
            if to in near
        ):
            found.append(unit.id)
    return found


@pytest.mark.parametrize("seed", [4, 5])
def test_reactors_hex_by_hex_match_a_unit_by_unit_reading(seed: int) -> None:
    """The units that may react to a batch (205.0), found hex by hex, are those a pass over
    every unit finds, in the same order, on boards changed at random."""
    rng = random.Random(seed)
    state = _at_war(start())
    fleets = {(u.empire, u.fleet) for u in state.board.units if u.fleet}
    state = msgspec.structs.replace(state, released=tuple(sorted(fleets)))  # all may react
    asked = 0
    for _ in range(CHANGES):
        state, _what = rng.choice(CHANGERS)(state, rng)
        phasing = base.phasing_empires(state)
        movers = [u for u in _on_map(state) if u.empire in phasing]
        others = [u for u in _on_map(state) if u.empire not in phasing]
        steps = set()
        for unit in rng.sample(movers, min(6, len(movers))):  # next to the other side
            to = rng.choice(hexgrid.neighbours(rng.choice(others).hex, GALAXY.width, GALAXY.height))
            state = state.with_units([msgspec.structs.replace(unit, hex=to)])
            steps.add((unit.hex, to))
        # Some of the other side reacted already (like units of a stack then differ).
        reacted = tuple(sorted(u.id for u in others if rng.random() < 0.2))
        batched = msgspec.structs.replace(state, batch=tuple(sorted(steps)), reacted=reacted)
        expected = _reactors_unit_by_unit(batched)
        assert reactor_steps.reactors(batched) == expected
        asked += bool(expected)
    assert asked > CHANGES // 2, "hardly any batch could be reacted to: a weak test"
