"""The game screen's first paint draws the footer's blank line without the footer (issue 16).

Textual's footer shows no key before the screen's bindings are signalled, after the first
paint; the game screen composes `FooterSpace` there instead and mounts its `KeysFooter`
after that paint (`GameScreen.show_keys`). These tests check that the first paint's footer
line is the one an empty footer draws, that no paint shows both lines or neither, that the
keys are there once the screen has settled, and that the footer's modules are not imported
before the game screen is shown.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.strip import Strip
from textual.widgets._footer import FooterKey

from tests.tui.fresh import run_child
from tests.tui.test_app import GAME, SIZE, Tutorial, app_for, settle
from tui.screens.base import FooterSpace
from tui.screens.game import GameScreen
from tui.widgets.footer import KeysFooter

Paint = tuple[Strip, int, int]
"""One paint of the game screen: its last line, its `FooterSpace`s and its `KeysFooter`s."""


@pytest.fixture
def paints(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Paint]]:
    """Every paint of the game screen while it is on top."""
    seen: list[Paint] = []
    real = Screen._compositor_refresh

    def noted(screen: Screen[Any]) -> None:
        real(screen)
        if isinstance(screen, GameScreen) and screen.app.screen is screen:
            last = screen._compositor.render_strips()[-1]
            seen.append((last, len(screen.query(FooterSpace)), len(screen.query(KeysFooter))))

    monkeypatch.setattr(Screen, "_compositor_refresh", noted)
    yield seen


class EmptyFooter(App[None]):
    """Textual's footer as the game screen composed it before: no key shown yet."""

    def compose(self) -> ComposeResult:
        yield KeysFooter(compact=True, show_command_palette=False)


async def empty_footer_line() -> Strip:
    app = EmptyFooter()
    async with app.run_test(size=SIZE):
        footer = app.query_one(KeysFooter)
        assert not footer.children  # no key before the bindings are signalled
        return app.screen._compositor.render_strips()[-1]


async def test_the_first_paint_draws_the_line_an_empty_footer_draws(
    tutorial: Tutorial, paints: list[Paint]
) -> None:
    app = app_for(tutorial.alice, game=GAME)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
    first, spaces, footers = paints[0]
    assert (spaces, footers) == (1, 0)
    blank = await empty_footer_line()
    assert first.text == blank.text == " " * SIZE[0]
    assert list(first) == list(blank)  # the same characters in the same styles


async def test_the_footer_replaces_the_space_in_one_frame_and_shows_the_keys(
    tutorial: Tutorial, paints: list[Paint]
) -> None:
    app = app_for(tutorial.alice, game=GAME)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, GameScreen)
        keys = [key.description for key in screen.query(FooterKey)]
        assert {"Checklist", "Log", "Orders"} <= set(keys)
        assert not screen.query(FooterSpace)
    assert all(spaces + footers == 1 for _, spaces, footers in paints)  # never both, never none
    assert paints[-1][1:] == (0, 1)


def test_the_footer_is_not_imported_before_the_game_screen_is_shown() -> None:
    """A fresh interpreter importing the app and the game screen has not loaded Textual's
    footer (its widgets cost some 12M instructions before the first paint)."""
    child = (
        "import sys, tui.app, tui.screens.game\n"
        "print(sorted(m for m in ('textual.widgets._footer', 'tui.widgets.footer')"
        " if m in sys.modules))\n"
    )
    done = run_child(child)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"
