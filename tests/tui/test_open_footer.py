"""The game screen's footer shows the map's keys from the first paint on, and a change of
focus shows the new keys in the repaint that shows the new focus (issue 16, item 5).

Textual's footer showed no key before the screen's bindings were signalled, after the first
paint, and rebuilt its keys a frame after each change of focus. `KeysFooter` draws its line
from the screen's active bindings whenever it is drawn.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from textual.screen import Screen

from tests.tui.test_app import GAME, SIZE, Tutorial, app_for, settle
from tui.screens.game import GameScreen
from tui.widgets.checklist import ChecklistTree
from tui.widgets.hexmap import HexMap

MAP_KEYS = "⏎ Choose s Sync c Checklist"
"""How the footer starts while the map has the focus."""

Paint = tuple[str, str]
"""One paint of the game screen: its last line, and which widget had the focus."""


@pytest.fixture
def paints(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Paint]]:
    """Every paint of the game screen while it is on top."""
    seen: list[Paint] = []
    real = Screen._compositor_refresh

    def noted(screen: Screen[Any]) -> None:
        real(screen)
        if isinstance(screen, GameScreen) and screen.app.screen is screen:
            last = screen._compositor.render_strips()[-1].text
            seen.append((last, type(screen.focused).__name__))

    monkeypatch.setattr(Screen, "_compositor_refresh", noted)
    yield seen


async def test_the_first_paint_shows_the_maps_keys(tutorial: Tutorial, paints: list[Paint]) -> None:
    app = app_for(tutorial.alice, game=GAME)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
    assert paints
    assert all(last.startswith(MAP_KEYS) for last, _ in paints), paints[0]


async def test_the_checklist_key_shows_the_checklists_keys_in_the_same_repaint(
    tutorial: Tutorial, paints: list[Paint]
) -> None:
    app = app_for(tutorial.alice, game=GAME)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        start = len(paints)
        await pilot.press("c")
        await settle(pilot)
        assert isinstance(app.screen.focused, ChecklistTree)
        await pilot.press("c")
        await settle(pilot)
        assert isinstance(app.screen.focused, HexMap)
    after = paints[start:]
    assert {focus for _, focus in after} >= {"ChecklistTree", "HexMap"}
    for last, focus in after:
        assert last.startswith(MAP_KEYS) == (focus == "HexMap"), (focus, last)
