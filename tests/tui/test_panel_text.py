"""The side column's text as an 80x24 terminal shows it: what wraps, where, and what is cut.

The side column is narrow (`tui.screens.hexinfo.PANEL_WIDTH`, one less inside a scroll
with its scrollbar), so these tests read the lines Textual actually renders, not the
strings the code hands it: a line a column too long is re-wrapped by Textual at its last
space, which is how a fleet note once came out as a stray, unindented ``(he~``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Static

from tests.saves import conftest as saves
from tests.saves.conftest import Player, exchange
from tests.tui.test_app import (
    SIZE,
    Tutorial,
    app_for,
    open_game,
    settle,
    tutorial_at,
)
from tests.tui.test_orders_panel import TOO_FAR
from tests.tui.test_review import HEAD, MOVE
from tui.screens.hexinfo import hex_lines
from tui.screens.review import ReviewScreen
from tui.widgets.orders import OrdersPanel


def shown(widget: Widget) -> list[str]:
    """The widget's lines as drawn on the terminal (trailing blanks dropped)."""
    width, height = widget.size
    return [strip.text.rstrip() for strip in widget.render_lines(Region(0, 0, width, height))]


def whole_hexes(lines: list[str]) -> list[str]:
    """Every run of digits in ``lines``: a hex id cut by a line break shows as two runs."""
    return [run for line in lines for run in re.findall(r"\d+", line)]


async def test_a_long_fleet_note_wraps_under_its_unit(wind: Player) -> None:
    """The Wind's first hex, 0111: the Lyrans held in the Enemy's Blood Fleet."""
    app = app_for(wind)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        await settle(pilot)
        assert screen.board is not None
        info = screen.query_one("#hex-info", Static)
        lines = shown(info)
        # Nothing re-wrapped by Textual: each line handed over fits the scroll's width.
        assert lines == hex_lines(screen.board, 111)
        at = lines.index(" LYR-0001 BC")
        assert lines[at + 1 : at + 3] == ["    Enemy's Blood Fleet", "    (held)"]
        assert not any(line.endswith("~") for line in lines), lines


@pytest.fixture
def at_3b2(tmp_path: Path) -> Iterator[Tutorial]:
    """The tutorial walked to 3B2, the coalition's movement."""
    with tutorial_at(tmp_path, "3B2") as game:
        yield game


async def test_a_drafted_path_breaks_between_hexes(at_3b2: Tutorial) -> None:
    """A long path, in the drafts list and in the hint of a move being built, wraps only
    between two hex ids, never inside one."""
    app = app_for(at_3b2.alice)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        panel = screen.query_one(OrdersPanel)
        await pilot.press("o", "{", *json.dumps(TOO_FAR), "enter")
        await settle(pilot)
        drafts = shown(panel.query_one("#orders-drafts", Static))
        assert len(drafts) > 1, drafts  # long enough to wrap at all
        assert whole_hexes(drafts) == ["1", "0005", *TOO_FAR["path"]], drafts
        await pilot.press("u", "o")  # the draft gone, back to the map at 1307
        await settle(pilot)
        await pilot.press("enter", "o", "m", "enter")  # the Strike Force moves
        path = ["1307", "1306", "1305", "1304", "1303", "1302"]
        for _ in path[1:]:
            await pilot.press("up", "enter")
        assert panel.building
        hint = shown(panel.query_one("#orders-hint", Static))
        keys = next(i for i, line in enumerate(hint) if line.startswith("cursor+Enter"))
        # (the lines after the keys carry the ruleset's note: the movement left)
        assert whole_hexes(hint[:keys]) == ["4", "1307", *path], hint


@pytest.fixture
def moved(at_3b2: Tutorial) -> Tutorial:
    """Alice moved at 3B2 (packet `HEAD`), the one packet Bob has not read yet."""
    at_3b2.bob.replica.mark_read(at_3b2.game_id)
    at_3b2.alice.replica.submit(at_3b2.game_id, MOVE, now=saves.now())
    exchange(at_3b2.alice, at_3b2.bob)
    return at_3b2


async def test_the_review_wraps_the_step_as_the_game_screen_does(moved: Tutorial) -> None:
    """Bob at 3B2, "Operational movement (refits, WYN trade)": two lines on the game
    screen's status, and the same two in the review's, not one clipped."""
    app = app_for(moved.bob)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        in_game = shown(screen.query_one("#game-status", Static))
        step = [line for line in in_game if line.startswith("step 3B2")]
        assert step, in_game
        two = in_game[in_game.index(step[0]) :][:2]
        assert " ".join(two) == "step 3B2 Operational movement (refits, WYN trade)"
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("v")
        await wait_for_review(pilot)
        review = pilot.app.screen
        assert isinstance(review, ReviewScreen) and review.seq == HEAD
        head = shown(review.query_one("#game-status", Static))
        assert two == head[head.index(two[0]) :][:2], head
        assert not any(line.endswith("~") for line in head), head


async def wait_for_review(pilot: Pilot[None]) -> None:
    for _ in range(20):
        await settle(pilot)
        screen = pilot.app.screen
        if isinstance(screen, ReviewScreen) and screen.seq is not None:
            return
    raise AssertionError(f"{pilot.app.screen!r} never showed a packet")
