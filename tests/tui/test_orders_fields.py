"""The orders panel's unit list and text field are mounted after the game's first paint
(`OrdersPanel.build_fields`, issue 16), or when one is wanted first, and work the same."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Input

from tests.tui.test_app import GAME, SIZE, Tutorial, app_for, settle
from tui.screens.game import GameScreen
from tui.widgets.orders import OrdersPanel
from tui.widgets.unitpick import UnitPick


class PanelApp(App[None]):
    def compose(self) -> ComposeResult:
        yield OrdersPanel(id="orders")


def fields(panel: OrdersPanel) -> list[tuple[str, bool]]:
    return [
        (type(w).__name__, w.display) for w in panel.children if isinstance(w, UnitPick | Input)
    ]


async def test_the_fields_are_built_hidden_once_and_when_first_wanted() -> None:
    app = PanelApp()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        panel = app.query_one(OrdersPanel)
        assert fields(panel) == []  # not composed with the panel
        assert not panel.check_action("cancel", ())  # nothing shown to cancel
        pick = panel.units_list()  # wanted before any build: built now, usable at once
        pick.offer(["KLI-0001", "KLI-0002"], {"KLI-0001": "D7"})
        assert pick.picked == ["KLI-0001", "KLI-0002"]
        panel.build_fields()  # a second build changes nothing
        await pilot.pause()
        assert fields(panel) == [("UnitPick", False), ("Input", False)]
        assert panel.text_field() is panel.query_one(Input)
        assert panel.units_list() is pick


def test_a_panel_off_any_screen_builds_nothing() -> None:
    """The game screen asks after its first paint; a panel no longer (or not yet) on a screen
    by then, as when the app quit in that frame, mounts nothing (it raised `MountError`)."""
    panel = OrdersPanel(id="orders")
    assert not panel.is_attached
    panel.build_fields()
    assert fields(panel) == []


async def test_the_game_screen_builds_them_after_its_first_paint_with_the_game(
    tutorial: Tutorial, monkeypatch: pytest.MonkeyPatch
) -> None:
    built_with_data: list[bool] = []
    real_build = OrdersPanel.build_fields

    def build(panel: OrdersPanel) -> None:
        screen = panel.screen
        built_with_data.append(isinstance(screen, GameScreen) and screen.data is not None)
        real_build(panel)

    monkeypatch.setattr(OrdersPanel, "build_fields", build)
    app = app_for(tutorial.alice, game=GAME)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        panel = app.screen.query_one(OrdersPanel)
        assert built_with_data == [True]
        assert fields(panel) == [("UnitPick", False), ("Input", False)]
