"""A move's units given to the state as moved (`board_update.with_units` with ``moved``,
as `engine.fe.steps.movement.apply_move_order` does) keep each empire's unit classes without
comparing them unit by unit (`board_views.keep_classes`): the state, its board and the
classes then held are those a fresh computation gives, after random moves of random stacks
(whole or in part, back to their own hex too) on boards whose classes, kinds or nothing
were read before; and a move order's units differ from the board's in their hex alone.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

import msgspec
import pytest

from engine.core import caches
from engine.fe import board_update, board_views
from engine.fe.forces import OFF_MAP, Board, Unit
from engine.fe.model import FeState
from engine.fe.orders import MoveOrder
from tests.engine.fe.helpers import play, start
from tests.engine.fe.steps.tutorial_states import after_setup, run_to

MOVES = 40


def _full(state: FeState, board: Board) -> FeState:
    """``state`` with ``board``'s units by the full regrouping, sharing nothing."""
    plain = Board(board.units, board.owners, board.at_war, board.released, board.devastated)
    return state.with_board(plain)


def _stack(state: FeState, rng: random.Random) -> list[Unit]:
    """Some units of one empire in one hex, moved to another hex (or their own)."""
    board = state.board
    on_map = [u for u in board.units if u.hex != OFF_MAP]
    unit = rng.choice(on_map)
    here = [u for u in board.at(unit.hex) if u.empire == unit.empire]
    count = rng.randint(1, len(here))
    to = unit.hex if rng.random() < 0.1 else rng.choice(on_map).hex
    return [msgspec.structs.replace(u, hex=to) for u in rng.sample(here, count)]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_moved_units_keep_the_classes_a_fresh_reading_gives(seed: int) -> None:
    rng = random.Random(seed)
    state = start()
    carried = 0
    for number in range(MOVES):
        reading = rng.random()
        for forces in state.forces:
            if reading < 0.4:  # the classes are held
                board_views.unit_classes(forces.units)
            elif reading < 0.7:  # only the kinds (a fresh board's first reading)
                board_views.kinds_of(forces.units)
        units = _stack(state, rng)
        expected = _full(state, state.board.with_units(units))
        moved = board_update.with_units(state, units, moved=True)
        assert moved == expected, f"move {number}: the state"
        assert moved.board == expected.board, f"move {number}: the board"
        for forces in moved.forces:
            held = caches.peek(board_views.unit_classes, forces.units)
            fresh = frozenset((u.empire, u.cls, u.crippled) for u in forces.units)
            assert held is None or held == fresh, f"move {number}: {forces.empire}'s classes"
            changed = all(forces.units is not f.units for f in state.forces)
            carried += changed and held is not None
        state = moved
    assert carried > MOVES // 3, "the classes were hardly ever carried"


def test_a_move_order_gives_the_units_with_their_hex_alone_changed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What `apply_move_order` hands `board_update.with_units` as moved: the board's own
    units, each with only its hex changed."""
    seen: list[tuple[FeState, list[Unit], Mapping[str, Unit] | None]] = []
    real = board_update.with_units

    def spy(
        state: FeState,
        units: list[Unit],
        *,
        moved: bool = False,
        priors: Mapping[str, Unit] | None = None,
    ) -> FeState:
        units = list(units)
        if moved:
            seen.append((state, units, priors))
        return real(state, units, moved=moved, priors=priors)

    monkeypatch.setattr(board_update, "with_units", spy)
    state = run_to(after_setup(), "3B2")
    strike = ["KLI-0001", "KLI-0002", "KLI-0003", "KLI-0004"]
    state = play(state, "coalition", MoveOrder(units=strike[:2], path=["1307", "1306"]))
    state = play(state, "coalition", MoveOrder(units=strike[2:], path=["1307", "1306", "1307"]))
    assert [len(units) for _, units, _ in seen] == [2, 2]
    for before, units, priors in seen:
        # The units it replaces, given as found, are the board's, in the same order.
        assert priors is not None
        assert list(priors.items()) == [(u.id, before.board.unit(u.id)) for u in units]
        for unit in units:
            prior = before.board.unit(unit.id)
            assert msgspec.structs.replace(prior, hex=unit.hex) == unit, unit.id
    assert state.board.unit("KLI-0001").hex == 1306
