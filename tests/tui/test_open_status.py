"""A game named on the command line opens with its status said at once, without the busy bar
a read would show (issue 16, item 5): its data came already read, so the bar would only be
started and stopped again before the first paint. A game opened from the list still shows
the bar while it is read."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.tui.test_app import GAME, SIZE, Tutorial, app_for, open_game, settle, status_text
from tui.screens.base import BusyBar
from tui.screens.game import GameScreen


@pytest.fixture
def bars(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The class name of the screen of every busy bar started."""
    started: list[str] = []
    real = BusyBar.start

    def noted(bar: BusyBar) -> None:
        started.append(type(bar.screen).__name__)
        real(bar)

    monkeypatch.setattr(BusyBar, "start", noted)
    yield started


async def test_a_named_game_says_its_status_without_starting_the_busy_bar(
    tutorial: Tutorial, bars: list[str]
) -> None:
    app = app_for(tutorial.alice, game=GAME)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, GameScreen) and screen.data is not None
        assert status_text(app).startswith(f"{GAME}: ")  # what arrived (news), not "reading"
        assert not screen.query_one(BusyBar).display
    assert "GameScreen" not in bars


async def test_a_game_opened_from_the_list_shows_the_bar_while_it_is_read(
    tutorial: Tutorial, bars: list[str]
) -> None:
    app = app_for(tutorial.alice)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_game(pilot)
        assert screen.data is not None
        assert status_text(app).startswith(f"{GAME}: ")
        assert not screen.query_one(BusyBar).display
    assert "GameScreen" in bars
