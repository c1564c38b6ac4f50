"""At a combat step the game opens on the battle being fought, not on the player's first
stack: the board names the place its step is about (`engine.core.face.Board.focus`), and the
map's cursor starts there. Found in a game by mail: at 5-3C the map opened on the player's
first stack, not on the battle the step was about.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

from engine.fe.face import FACE
from tests.tui.test_app import (
    SIZE,
    TUTORIAL_ATTACK,
    Tutorial,
    app_for,
    open_game,
    tutorial_at,
)
from tui.screens.hexinfo import first_own_hex, focus_moved, start_hex
from tui.widgets.hexmap import HexMap

BATTLE = 1205
"""Where `TUTORIAL_ATTACK` ends: the Kzinti battle station's hex."""


@pytest.fixture
def at_5_3e(tmp_path: Path) -> Iterator[Tutorial]:
    with tutorial_at(tmp_path, "5-3E", TUTORIAL_ATTACK) as game:
        yield game


def test_the_board_names_the_battle_being_fought(at_5_3e: Tutorial) -> None:
    state = at_5_3e.alice.replica.state(at_5_3e.game_id)
    assert state.rules is not None
    board = FACE.board(state.rules)
    assert board.focus == f"{BATTLE:04d}"
    assert FACE.quick_board(state.rules).focus == board.focus
    # The Kzinti's first stack is elsewhere (the battle station is no stack: it never moves).
    assert first_own_hex(board, "alliance") != BATTLE
    assert start_hex(board, "alliance") == BATTLE
    assert start_hex(board, "coalition") == BATTLE


def test_outside_a_battle_the_board_names_no_place(tmp_path: Path) -> None:
    with tutorial_at(tmp_path, "3B2") as game:
        state = game.alice.replica.state(game.game_id)
        assert state.rules is not None
        board = FACE.board(state.rules)
        assert board.focus == ""
        assert start_hex(board, "coalition") == first_own_hex(board, "coalition")


@pytest.mark.parametrize("seat", ["alice", "bob"])
async def test_the_map_opens_on_the_battle(at_5_3e: Tutorial, seat: str) -> None:
    app = app_for(at_5_3e.alice if seat == "alice" else at_5_3e.bob)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        assert screen.query_one(HexMap).cursor == BATTLE


def test_the_cursor_goes_to_a_battle_only_when_the_board_names_a_new_one(
    at_5_3e: Tutorial,
) -> None:
    """A game read again (after a sync) moves the map's cursor to a battle begun since the
    last read, or to the next battle hex; the same battle read again leaves it where the
    player put it."""
    state = at_5_3e.alice.replica.state(at_5_3e.game_id)
    assert state.rules is not None
    battle = FACE.board(state.rules)
    calm = msgspec.structs.replace(battle, focus="")
    assert focus_moved(calm, battle) == BATTLE
    assert focus_moved(None, battle) == BATTLE
    assert focus_moved(battle, battle) is None
    assert focus_moved(battle, calm) is None
    assert focus_moved(battle, msgspec.structs.replace(battle, focus="0303")) == 303
    assert focus_moved(calm, msgspec.structs.replace(battle, focus="9999")) is None  # off the map
