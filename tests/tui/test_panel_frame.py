"""The side panel follows a key in the same repaint as the map, with no layout when its
height stays (issue 16, item 5).

Every compositor repaint is noted with what the side panel's hex details said at that moment
(`Screen._compositor_refresh` wrapped, as `bench/tui_map.py` does): the first repaint after a
key press must already show the hex the cursor moved to. With the panel updated from
`HexMap.CursorMoved`, which reaches the screen only after the map's repaint, that first
repaint still showed the old hex and the test fails.
"""

from __future__ import annotations

from typing import Any

import pytest
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from tests.saves.conftest import Player
from tests.tui.pilots import refreshed
from tests.tui.test_app import SIZE, Tutorial, app_for, open_game, settle
from tui.screens.hexinfo import hex_lines
from tui.widgets.hexmap import HexMap


async def test_one_key_repaints_the_map_and_the_panel_together(
    tutorial: Tutorial, monkeypatch: pytest.MonkeyPatch
) -> None:
    painted: list[str] = []
    real = Screen._compositor_refresh

    def noted(screen: Screen[object]) -> None:
        real(screen)
        found = screen.query("#hex-info")
        if found:
            painted.append(str(found.first(Static).content).split("\n", 1)[0])

    monkeypatch.setattr(Screen, "_compositor_refresh", noted)
    app = app_for(tutorial.alice)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        hexmap = screen.query_one(HexMap)
        assert hexmap.cursor == 1307
        for key, moved_to in (("down", "Hex 1308"), ("right", "Hex 1408"), ("up", "Hex 1407")):
            painted.clear()
            await pilot.press(key)
            await pilot.pause()
            assert painted, f"no repaint after {key}"
            assert painted[0] == moved_to, (key, painted)


async def test_a_key_lays_the_screen_out_again_only_when_the_panel_changes_height(
    wind: Player, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A layout re-renders the whole game screen and its scroll bars (issue 16, item 5), so a
    move between hexes whose details fit the panel must not ask for one; a hex with more
    lines than the panel holds must, and the scroll area then measures exactly its lines,
    shrinking back when the cursor leaves it. The Wind's row 11, from 0111 east: 0311 holds
    the Lyran home fleets (more lines than 20), 0411 and 0511 a few lines or none."""
    layouts: list[int] = []
    real = Screen._refresh_layout

    def noted(screen: Screen[object], *args: Any, **kwargs: Any) -> None:
        layouts.append(1)
        real(screen, *args, **kwargs)

    monkeypatch.setattr(Screen, "_refresh_layout", noted)
    app = app_for(wind)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        await settle(pilot)
        hexmap = screen.query_one(HexMap)
        info = screen.query_one("#hex-info", Static)
        scroll = screen.query_one("#hex-scroll", VerticalScroll)
        board = screen.board
        short = [h for h in (411, 511, 611, 711) if len(hex_lines(board, h)) < scroll.size.height]
        long = next(h for h in (111, 211, 311) if len(hex_lines(board, h)) > scroll.size.height)
        assert len(short) >= 2, short

        async def go(h: int) -> None:
            hexmap.cursor = h
            await settle(pilot)
            await refreshed(pilot)  # a layout it asked for is made by then
            assert str(info.content) == "\n".join(hex_lines(board, h))

        await go(short[0])
        layouts.clear()
        await go(short[1])
        assert layouts == [], "a hex whose details fit the panel laid the screen out"
        await go(long)
        assert layouts, "a hex longer than the panel kept the old height"
        assert scroll.virtual_size.height == len(hex_lines(board, long))
        assert scroll.max_scroll_y > 0
        await go(short[0])
        assert scroll.virtual_size.height == scroll.size.height
        assert scroll.max_scroll_y == 0
