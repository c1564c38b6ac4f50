"""The collector held while the app starts (`tui.startup`): ``hexpost play`` holds it, the
first screen the player waits for lets it go once painted, and nothing else changes."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

from saves.home import Home
from tests.tui.test_app import GAME, SIZE, Tutorial, settle
from tui.app import HexpostApp
from tui.screens.game import GameScreen
from tui.screens.games import GamesScreen
from tui.startup import collector_held, hold_collector, release_collector, thaw


@pytest.fixture(autouse=True)
def collector_back() -> Iterator[None]:
    """Whatever a test does, the collector runs and nothing stays frozen after it."""
    yield
    release_collector()
    thaw()
    gc.enable()


def test_release_without_hold_does_nothing() -> None:
    assert gc.isenabled() and not collector_held()
    release_collector()
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_hold_then_release_collects_freezes_and_runs_again() -> None:
    hold_collector()
    assert not gc.isenabled() and collector_held()
    hold_collector()  # a second hold changes nothing
    assert collector_held()
    release_collector()
    assert gc.isenabled() and not collector_held()
    assert gc.get_freeze_count() > 0
    thaw()
    assert gc.get_freeze_count() == 0


def test_play_holds_the_collector_until_the_app_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tui import cli

    seen: list[tuple[bool, bool]] = []

    def fake_run(self: HexpostApp) -> None:
        seen.append((gc.isenabled(), collector_held()))

    monkeypatch.setattr(HexpostApp, "run", fake_run)
    assert cli.main(["--home", str(tmp_path / "home"), "play", GAME]) == 0
    assert seen == [(False, True)]  # the app started with the collector held
    assert gc.isenabled() and not collector_held() and gc.get_freeze_count() == 0


async def test_the_game_screen_lets_the_collector_go_once_the_game_is_painted(
    tutorial: Tutorial,
) -> None:
    app = HexpostApp(Home(tutorial.alice.home.path), GAME)
    hold_collector()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, GameScreen) and app.screen.data is not None
        await pilot.pause()
        assert not collector_held() and gc.isenabled()
        assert gc.get_freeze_count() > 0


async def test_the_games_list_lets_the_collector_go_once_its_rows_are_painted(
    tutorial: Tutorial,
) -> None:
    app = HexpostApp(Home(tutorial.alice.home.path))
    hold_collector()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, GamesScreen) and app.screen.overview is not None
        await pilot.pause()
        assert not collector_held() and gc.isenabled()


async def test_the_app_lets_the_collector_go_after_a_while_whatever_the_screens_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The list never lets it go here: only the app's timer can.
    monkeypatch.setattr("tui.screens.games.release_collector", lambda: None)
    monkeypatch.setattr("tui.app.FALLBACK_SECONDS", 0.2)
    app = HexpostApp(Home(tmp_path / "bare"))
    hold_collector()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.pause(0.5)
        assert not collector_held() and gc.isenabled()
