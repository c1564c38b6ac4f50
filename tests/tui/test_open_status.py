"""A game opens with its status said at once, without the busy bar a read would show (issue
16, item 5): its data came already read (named on the command line, or read by the list before
it pushed the screen), so the bar would only be started and stopped again before the first
paint. A slow read from the list shows the bar on the list meanwhile."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from tests.tui.pilots import settle_until
from tests.tui.test_app import GAME, SIZE, Tutorial, app_for, settle, status_text
from tui.screens.base import BusyBar
from tui.screens.game import GameScreen
from tui.screens.session import Session


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
        assert status_text(app).startswith("your move: ")  # what arrived (news), not "reading"
        assert not screen.query_one(BusyBar).display
    assert "GameScreen" not in bars


async def test_a_game_opened_from_the_list_is_read_first_with_the_bar_on_the_list_if_slow(
    tutorial: Tutorial, bars: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The list reads the game before it pushes the game's screen (`HexpostScreen.push_read`):
    that screen opens read, with no bar of its own. A read that outlasts `SLOW_READ` says so
    on the list's status line, with its bar, until the game is up."""
    release = threading.Event()
    real_game = Session._game

    def slow_game(session: Session, *args: Any) -> Any:
        release.wait(10)
        return real_game(session, *args)

    monkeypatch.setattr(Session, "_game", slow_game)
    app = app_for(tutorial.alice)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        games = app.screen
        bars.clear()  # (the list's own read of the games)
        await pilot.press("enter")
        await settle_until(pilot, lambda: "GamesScreen" in bars, "the list's bar")
        assert status_text(app) == "opening the game..."
        release.set()
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, GameScreen) and screen.data is not None
        assert status_text(app).startswith("your move: ")
        assert not screen.query_one(BusyBar).display
        assert not games.query_one(BusyBar).display
    assert "GameScreen" not in bars
