"""The game screen and the review are styled once before their first paint, with the styles a
fresh pass gives.

Textual styles each widget as it is mounted and, by default, every widget of a screen again
when the screen resumes; `HexpostScreen._styled_once` leaves that second pass out the first
time a `STYLED_ONCE` screen is shown (issue 16, item 5). These tests compare, at that first
paint, every node's styles (its own rules and its component classes') with what a fresh pass
over the whole screen gives, and check that later resumes still restyle.

Scrollbars are left out of the comparison: Textual makes a widget's scrollbars in its first
layout and styles them in the next pass over the widget, with or without that second pass
at the resume (which comes before the layout), and draws them with their parent's
``scrollbar-*`` styles, not their own.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from textual import events
from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode
from textual.screen import Screen

from tests.tui.test_app import GAME, SIZE, Tutorial, app_for, settle
from tui.app import HexpostApp
from tui.screens.base import HexpostScreen
from tui.screens.game import GameScreen
from tui.screens.review import ReviewScreen

Styled = dict[int, tuple[str, object, dict[str, object]]]
"""Each node's styles by ``id(node)``: (its class name, its rules, its component classes')."""


def styles_of(nodes: list[DOMNode]) -> Styled:
    return {
        id(node): (
            type(node).__name__,
            node._css_styles.get_rules(),
            {name: c.base.get_rules() for name, c in node._component_styles.items()},
        )
        for node in nodes
    }


OPENED: list[type[HexpostScreen]] = [GameScreen, ReviewScreen]
"""The screens styled once (`HexpostScreen.STYLED_ONCE`): the game's, and the review `v`
opens from it."""


@pytest.fixture(params=OPENED, ids=lambda screen: screen.__name__)
def screen_type(request: pytest.FixtureRequest) -> type[HexpostScreen]:
    screen: type[HexpostScreen] = request.param
    assert screen.STYLED_ONCE
    return screen


async def _open(app: HexpostApp, pilot: Any, screen_type: type[HexpostScreen]) -> HexpostScreen:
    """The game screen as the app opens it, and the review from there."""
    await settle(pilot)
    if screen_type is ReviewScreen:
        await pilot.press("v")
        await settle(pilot)
    screen = app.screen
    assert isinstance(screen, screen_type)
    return screen


@pytest.fixture
def first_paint(
    monkeypatch: pytest.MonkeyPatch, screen_type: type[HexpostScreen]
) -> Iterator[list[tuple[Styled, Styled]]]:
    """At the first paint of a screen of ``screen_type``: (its styles then, the same nodes
    after a fresh pass of the whole stylesheet over them)."""
    seen: list[tuple[Styled, Styled]] = []
    real = Screen._compositor_refresh

    def noted(screen: Screen[Any]) -> None:
        real(screen)
        if isinstance(screen, screen_type) and screen.app.screen is screen and not seen:
            nodes = list(screen.walk_children(with_self=True))
            painted = styles_of(nodes)
            screen.app.stylesheet.update_nodes(nodes, animate=False)
            seen.append((painted, styles_of(nodes)))

    monkeypatch.setattr(Screen, "_compositor_refresh", noted)
    yield seen


@pytest.fixture
def styled(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[DOMNode]]:
    """Every node the stylesheet styles, in order (one entry per pass over it)."""
    passes: list[DOMNode] = []
    real = Stylesheet.apply

    def noted(sheet: Stylesheet, node: DOMNode, **kwargs: Any) -> None:
        passes.append(node)
        real(sheet, node, **kwargs)

    monkeypatch.setattr(Stylesheet, "apply", noted)
    yield passes


async def test_the_first_paint_has_the_styles_a_fresh_pass_gives(
    tutorial: Tutorial, screen_type: type[HexpostScreen], first_paint: list[tuple[Styled, Styled]]
) -> None:
    app = app_for(tutorial.alice, game=GAME)
    async with app.run_test(size=SIZE) as pilot:
        await _open(app, pilot, screen_type)
    assert first_paint, f"no {screen_type.__name__} was painted"
    painted, fresh = first_paint[0]
    assert len(painted) > 10  # the map, the side panel, the status line, the footer...
    assert painted == fresh


async def test_the_screen_is_styled_once_before_its_first_paint_and_again_when_it_resumes(
    tutorial: Tutorial, screen_type: type[HexpostScreen], styled: list[DOMNode]
) -> None:
    app = app_for(tutorial.alice, game=GAME)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot, screen_type)
        assert styled.count(screen) == 1  # when it was mounted: not again when it resumed
        screen.post_message(events.ScreenResume())  # as `App.push_screen` sends it
        await settle(pilot)
        assert styled.count(screen) == 2  # a later resume restyles as Textual does
