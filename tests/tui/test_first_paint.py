"""The game screen's first paint is the game as the player will see it, and no more than
that (issue 16, item 5).

- A game named on the command line is shown before the screen's first layout, so no paint
  of the screen shows it unread, and the map centres its cursor in the layout that gives it
  its size: the first paint shows the player's stack, not the map's top left corner (which
  the map scrolled away from a frame later, once the game had been painted).
- The orders panel, closed at that paint, is not part of it: `OrdersSlot` mounts it after
  the paint, hidden, told the step; or at once when the player wants it first.

Each paint is observed where the bench observes it (`Screen._compositor_refresh`, a private
API: a Textual upgrade that renames it fails here loudly).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from engine.core.face import Board
from tests.tui.test_app import GAME, SIZE, Tutorial, app_for, settle
from tests.tui.test_hexmap import FE_SHEET, cursor_spot
from tests.tui.test_hexmap import tutorial as tutorial_board
from tui.screens.game import GameScreen
from tui.screens.game_orders import OrdersSlot
from tui.screens.hexinfo import hex_lines
from tui.widgets.hexdetails import HexDetails
from tui.widgets.hexmap import HexMap
from tui.widgets.orders import OrdersPanel

FAR = 5215
"""A hex far to the right and below the map's top left corner: off the first window."""


@pytest.fixture
def paints(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, Any]]]:
    """Every paint of the screen on top as (its class name, what `probe` saw then)."""
    seen: list[tuple[str, Any]] = []
    real = Screen._compositor_refresh

    def noted(screen: Screen[Any]) -> None:
        real(screen)
        if screen.app.screen is screen:
            seen.append((type(screen).__name__, probe(screen)))

    monkeypatch.setattr(Screen, "_compositor_refresh", noted)
    yield seen


def probe(screen: Screen[Any]) -> tuple[bool, bool, bool] | None:
    """What a paint shows of the map and the game: (data read, cursor shown, orders panel)."""
    maps = screen.query(HexMap)
    if not maps:
        return None
    hexmap = maps.first()
    shown = hexmap.sheet is not None and hexmap.cursor_in_view()
    data = getattr(screen, "data", None) is not None
    return data, shown, bool(screen.query(OrdersPanel))


class FarMapApp(App[None]):
    """F&E's map with the tutorial's board, the cursor asked for far from the corner."""

    def __init__(self, board: Board) -> None:
        super().__init__()
        self.board = board

    def compose(self) -> ComposeResult:
        yield HexMap(FE_SHEET, self.board, cursor=FAR)


async def test_the_map_is_centred_on_its_cursor_in_its_first_paint(
    paints: list[tuple[str, Any]],
) -> None:
    app = FarMapApp(tutorial_board())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        hexmap = app.query_one(HexMap)
        assert hexmap.scroll_offset != (0, 0)  # the cursor is off the first window
        cursor_spot(hexmap)  # drawn bracketed, whole
    sized = [seen for _, seen in paints if seen is not None]
    assert sized and sized[0] == (False, True, False)  # the very first paint shows it


async def test_a_named_game_paints_once_read_and_centred(
    tutorial: Tutorial, paints: list[tuple[str, Any]]
) -> None:
    app = app_for(tutorial.alice, game=GAME)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, GameScreen) and app.screen.data is not None
    games = [seen for name, seen in paints if name == "GameScreen"]
    # The first paint: the game read, its cursor shown, the closed orders panel not built.
    assert games[0] == (True, True, False)
    assert games[-1] == (True, True, True)  # built after it


async def test_the_orders_panel_is_built_after_the_paint_and_told_the_step(
    tutorial: Tutorial,
) -> None:
    app = app_for(tutorial.alice, game=GAME)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, GameScreen)
        panel = screen.query_one(OrdersPanel)
        assert screen.orders.panel is panel and not panel.display
        assert panel.parent is screen.query_one("#side")  # where it was composed before
        assert panel.hint_text.startswith("1A1 takes: ")  # told the step the game owes


async def test_o_before_the_panel_is_built_builds_it_told_the_step(
    tutorial: Tutorial, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The player who presses ``o`` in the frame after the game's paint, before the panel
    was built, finds the same panel: it is built then, told the step, shown and focused."""
    monkeypatch.setattr(OrdersSlot, "build_later", lambda slot: None)
    app = app_for(tutorial.alice, game=GAME)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, GameScreen)
        assert screen.orders.panel is None and not screen.query(OrdersPanel)
        await pilot.press("o")
        await pilot.pause()
        panel = screen.query_one(OrdersPanel)
        assert panel.display and panel.has_focus
        assert not screen.query_one("#hex-scroll").display
        assert panel.hint_text.startswith("1A1 takes: ")
        await pilot.press("o")  # and closes as before
        await pilot.pause()
        assert not panel.display and screen.query_one(HexMap).has_focus


async def test_the_side_panel_says_the_hex_the_cursor_ends_on_once_when_the_game_opens(
    tutorial: Tutorial, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Opening the game moves the cursor (to the player's first stack): the panel is filled
    once, for the hex it ends on, and follows the cursor again after that."""
    shown: list[int] = []
    real = GameScreen.show_hex

    def noted(screen: GameScreen, h: int) -> None:
        shown.append(h)
        real(screen, h)

    monkeypatch.setattr(GameScreen, "show_hex", noted)
    app = app_for(tutorial.alice, game=GAME)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, GameScreen)
        hexmap = screen.query_one(HexMap)
        assert shown[0] == hexmap.cursor and shown.count(shown[0]) == len(shown)
        panel = str(screen.query_one("#hex-info", Static).render())
        assert panel == "\n".join(hex_lines(screen.board, hexmap.cursor))
        before = hexmap.cursor
        await pilot.press("j")
        await pilot.pause()
        assert hexmap.cursor != before and shown[-1] == hexmap.cursor  # it follows again
        panel = str(screen.query_one("#hex-info", Static).render())
        assert panel == "\n".join(hex_lines(screen.board, hexmap.cursor))


async def test_a_game_opened_from_the_list_paints_once_read(
    tutorial: Tutorial, paints: list[tuple[str, Any]]
) -> None:
    """Enter on the games list reads the game first and pushes its screen then: the screen's
    first paint is the game, centred, not "reading the game..." over an empty map drawn
    again a read later."""
    app = app_for(tutorial.alice)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, GameScreen) and app.screen.data is not None
    games = [seen for name, seen in paints if name == "GameScreen"]
    assert games[0] == (True, True, False)


class DetailsApp(App[None]):
    """The side panel's scroll of hex details, given its text before its first layout."""

    CSS = "#hex-scroll { height: 10; } #hex-info { min-height: 100%; }"

    def __init__(self, lines: int) -> None:
        super().__init__()
        self.text = "\n".join(f"line {n}" for n in range(lines))

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="hex-scroll"):
            yield HexDetails("", id="hex-info")

    def on_mount(self) -> None:
        self.query_one(HexDetails).show(self.text)


@pytest.fixture
def shown(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """What the screen looked like after each repaint, every segment with its style."""
    painted: list[list[str]] = []
    real = Screen._compositor_refresh

    def noted(screen: Screen[Any]) -> None:
        real(screen)
        painted.append([repr(list(strip)) for strip in screen._compositor.render_strips()])

    monkeypatch.setattr(Screen, "_compositor_refresh", noted)
    return painted


@pytest.mark.parametrize("lines", [5, 40])
async def test_hex_details_given_before_the_layout_paint_with_their_scrollbar(
    lines: int, shown: list[list[str]]
) -> None:
    """Details longer than the screen (a capital's fleets) need the scroll's scrollbar
    whatever height it gets: it is in the first paint (Textual found it in the first layout
    and showed it a repaint later). Short ones are left to the layout, as before."""
    app = DetailsApp(lines)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.1)
        assert app.query_one("#hex-scroll").show_vertical_scrollbar == (lines > 10)
    changed = [paint for n, paint in enumerate(shown) if n == 0 or paint != shown[n - 1]]
    assert len(changed) == 1


@pytest.mark.parametrize(("first", "then"), [(5, 40), (40, 5), (40, 60)])
async def test_hex_details_that_change_height_repaint_with_their_scrollbar(
    first: int, then: int, shown: list[list[str]]
) -> None:
    """The cursor moved to a hex whose details no longer fit (or fit again): the scroll's
    scrollbar comes or goes in the repaint that shows the new lines, not one after it."""
    app = DetailsApp(first)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.1)
        scroll = app.query_one("#hex-scroll")
        assert scroll.show_vertical_scrollbar == (first > 10)
        before = len(shown)
        app.query_one(HexDetails).show("\n".join(f"row {n}" for n in range(then)))
        await pilot.pause(0.1)
        assert scroll.show_vertical_scrollbar == (then > 10)
    after = shown[before - 1 :]
    changed = [paint for n, paint in enumerate(after) if n and paint != after[n - 1]]
    assert len(changed) == 1
