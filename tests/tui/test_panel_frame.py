"""The side panel follows a key in the same repaint as the map (issue 16, item 5).

Every compositor repaint is noted with what the side panel's hex details said at that moment
(`Screen._compositor_refresh` wrapped, as `bench/tui_map.py` does): the first repaint after a
key press must already show the hex the cursor moved to. With the panel updated from
`HexMap.CursorMoved`, which reaches the screen only after the map's repaint, that first
repaint still showed the old hex and the test fails.
"""

from __future__ import annotations

import pytest
from textual.screen import Screen
from textual.widgets import Static

from tests.tui.test_app import SIZE, Tutorial, app_for, open_game
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
