"""The collector held while the app starts (`tui.startup`): ``hexpost play`` holds it, the
first screen the player waits for lets it go once painted, and nothing else changes."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

from saves.home import Home
from tests.tui.test_app import GAME, SIZE, Tutorial, settle
from tui import startup
from tui.app import HexpostApp
from tui.screens.game import GameScreen
from tui.screens.games import GamesScreen
from tui.startup import collect_if_idle, collector_held, hold_collector, release_collector, thaw


@pytest.fixture(autouse=True)
def collector_back() -> Iterator[None]:
    """Whatever a test does, the collector runs and nothing stays frozen after it."""
    yield
    release_collector()
    thaw()
    gc.enable()


def test_release_without_hold_does_nothing() -> None:
    assert gc.isenabled() and not collector_held()
    # Not 0: Python 3.12 starts with a few hundred objects in the permanent generation.
    frozen = gc.get_freeze_count()
    release_collector()
    assert gc.isenabled() and gc.get_freeze_count() == frozen


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


@pytest.mark.usefixtures("on_terminal")
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


def _due() -> None:
    """As many collections of the middle generation as make a full one due."""
    for _ in range(gc.get_threshold()[2] if not startup._idle else startup._idle[0][2]):
        gc.collect(1)


def test_release_puts_the_full_collections_off_to_idle_moments_and_thaw_restores_them() -> None:
    before = gc.get_threshold()
    hold_collector()
    release_collector()
    assert gc.get_threshold() == (before[0], before[1], startup.FULL_AFTER)
    thaw()
    assert gc.get_threshold() == before


def test_a_full_collection_runs_when_due_and_the_player_is_idle() -> None:
    _due()
    assert not collect_if_idle(10.0), "not without release_collector's policy"
    hold_collector()
    release_collector()
    gc.collect()  # (none due)
    _due()
    assert not collect_if_idle(startup.IDLE_SECONDS / 2), "the player is not idle yet"
    assert gc.get_count()[2] > 0
    gc.collect(1)  # one more of the middle generation: still due, not more
    assert collect_if_idle(startup.IDLE_SECONDS)
    assert gc.get_count()[2] == 0  # the full collection ran
    assert not collect_if_idle(10.0), "nothing due right after one"
    gc.collect(1)
    assert not collect_if_idle(10.0), "not due after one collection of the middle generation"


async def test_the_app_asks_for_idle_collections_timed_from_the_last_key(
    tutorial: Tutorial, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[float] = []

    def noted(idle_for: float, before: object = None) -> bool:
        asked.append(idle_for)
        return False

    monkeypatch.setattr("tui.app.collect_if_idle", noted)
    app = HexpostApp(Home(tutorial.alice.home.path), GAME)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.pause(2 * startup.IDLE_SECONDS)
        assert asked and asked[-1] >= startup.IDLE_SECONDS
        asked.clear()
        await pilot.press("c")
        await pilot.pause(startup.IDLE_SECONDS / 2 + 0.05)  # at least one check after the key
        assert asked and min(asked) < startup.IDLE_SECONDS


def _style_caches() -> int:
    from textual._styles_cache import StylesCache

    gc.collect()
    return sum(1 for o in gc.get_objects() if isinstance(o, StylesCache))


async def test_idle_collections_let_go_of_closed_games_style_caches(tutorial: Tutorial) -> None:
    """Opening and closing a game again and again leaves nothing behind once the app's idle
    collections run: Textual's ``get_inner_outer`` cache kept every closed screen's widgets'
    style caches, with their rendered lines (`tui.app.release_style_caches`)."""
    app = HexpostApp(Home(tutorial.alice.home.path), GAME)
    hold_collector()
    counts: list[int] = []
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert not collector_held()
        for _ in range(5):
            for key in ("escape", "enter"):
                await pilot.press(key)
                await settle(pilot)
            _due()
            app._last_input -= 10 * startup.IDLE_SECONDS  # the player went away
            app._collect_if_idle()
            assert gc.get_count()[2] == 0, "the idle collection did not run"
            counts.append(_style_caches())
    assert counts[-1] <= counts[0] + 5, counts  # without the release: 42, then 94 after five
