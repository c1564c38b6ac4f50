"""The help screen (``?``) and playing without colour, driven headless at 80x24.

The homes are the ``tutorial`` fixture's (`tests/tui/conftest.py`: Alice and Bob at turn 1 of
the tutorial). Every check reads the help's own text, so a help that lists another screen's
keys, a key that cannot act, or forgets a legend, fails; the colour tests run the real
screens with Textual's no-colour filter and a 16-colour console.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import textual.constants
from rich.style import Style
from textual.filter import Monochrome
from textual.screen import Screen
from textual.widgets import Input

from engine.fe.face import FACE
from saves.home import Home
from tests.engine.fe.steps.tutorial_states import after_setup
from tests.tui.pilots import screen_cells, settle_until
from tests.tui.test_app import GAME, SIZE, Tutorial, app_for, open_game, settle
from tui.app import HexpostApp
from tui.screens.game import GameScreen
from tui.screens.games import GamesScreen
from tui.screens.help import HelpScreen, checklist_legend, map_legend
from tui.widgets.goto import GotoDialog
from tui.widgets.hexmap import HexMap

FE_SHEET = FACE.map_sheet("tutorial")


def help_text(app: HexpostApp) -> str:
    screen = app.screen
    assert isinstance(screen, HelpScreen), f"help is not open: {type(screen).__name__}"
    return screen.text


def key_line(text: str, key: str, description: str) -> bool:
    """Whether ``text`` has the line for ``key`` doing ``description`` (the key column is
    padded, so the spacing is not part of the check)."""
    for line in text.splitlines():
        parts = line.split(maxsplit=1)
        if len(parts) == 2 and parts[0] == key and parts[1].startswith(description):
            return True
    return False


# --- the games list --------------------------------------------------------------------------


async def test_help_on_the_games_list_lists_its_keys(tutorial: Tutorial) -> None:
    app = app_for(tutorial.alice)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        text = help_text(app)
        assert key_line(text, "⏎", "Open")
        assert key_line(text, "s", "Sync")
        assert key_line(text, "r", "Refresh")
        assert key_line(text, "q", "Quit")
        assert key_line(text, "?", "Help")
        assert "This screen:" in text and "Everywhere:" in text
        assert "arrows move between the games" in text
        # Nothing of the game screen: its map is not here.
        assert "Zoom" not in text and "Go to" not in text
        # The legends are there wherever help is opened: without a map, a made-up one's.
        assert "@ capital" in text and "A side A" in text
        assert "[>] current" in text
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, GamesScreen)


async def test_help_lists_only_keys_that_can_act(tmp_path: Path) -> None:
    """An empty home has nothing to open: neither the footer nor the help offers Enter."""
    app = HexpostApp(Home(tmp_path / "empty"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        offered = {a.binding.description for a in app.screen.active_bindings.values()}
        assert "Open" not in offered and "Sync" in offered
        await pilot.press("question_mark")
        await pilot.pause()
        text = help_text(app)
        assert not key_line(text, "⏎", "Open")
        assert key_line(text, "s", "Sync")


async def test_a_running_sync_shows_as_not_now(tutorial: Tutorial) -> None:
    app = app_for(tutorial.alice)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, GamesScreen)
        screen.syncing = True  # as while a sync runs; the binding stays, disabled
        await pilot.press("question_mark")
        await pilot.pause()
        sync_line = next(line for line in help_text(app).splitlines() if "Sync" in line)
        assert "(not now)" in sync_line
        screen.syncing = False


async def test_q_closes_the_help_and_does_not_quit(tutorial: Tutorial) -> None:
    app = app_for(tutorial.alice)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for close in ("q", "question_mark"):
            await pilot.press("question_mark")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            await pilot.press(close)
            await pilot.pause()
            assert isinstance(app.screen, GamesScreen), close
        assert app.is_running


# --- one game --------------------------------------------------------------------------------


async def test_help_on_the_game_screen_lists_map_keys_and_the_stack_legend(
    tutorial: Tutorial,
) -> None:
    app = app_for(tutorial.alice)
    async with app.run_test(size=SIZE) as pilot:
        await open_game(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        text = help_text(app)
        assert "Map:" in text
        assert key_line(text, "z", "Zoom")
        assert key_line(text, "g", "Go to")
        assert key_line(text, "←/h", "West")
        assert key_line(text, "esc", "Games")
        assert key_line(text, "e", "Log")
        # The panels under the map, with the keys they take once focused.
        assert "Checklist, when it has the focus:" in text
        assert key_line(text, "v", "Verbose")
        # The stack legend, with the galaxy's empires.
        assert "KZ Klingon and Kzinti units" in text
        assert "* some crippled" in text
        assert "! some out of supply" in text
        assert "& crippled and out of supply" in text
        assert "K Klingon" in text and ": neutral zone" in text
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, GameScreen)
        assert isinstance(app.focused, HexMap)  # the keys go back to the map


async def test_help_follows_the_map_detail(tutorial: Tutorial) -> None:
    app = app_for(tutorial.alice)
    async with app.run_test(size=SIZE) as pilot:
        await open_game(pilot)
        await pilot.press("z")
        await pilot.press("question_mark")
        await pilot.pause()
        assert "Each hex: its id" in help_text(app)


async def test_help_fits_80x24_and_scrolls(tutorial: Tutorial) -> None:
    app = app_for(tutorial.alice)
    async with app.run_test(size=SIZE) as pilot:
        await open_game(pilot)
        await pilot.press("question_mark")
        box = app.screen.query_one("#help")
        # Longer than a screen: it must scroll (known once it is laid out).
        await settle_until(pilot, lambda: box.max_scroll_y > 0, "the help scrolls")
        assert box.region.right <= SIZE[0] and box.region.bottom <= SIZE[1]
        await pilot.press("end")  # scrolls after the next refresh
        await settle_until(pilot, lambda: box.scroll_y == box.max_scroll_y, "at the end")
        for line in help_text(app).splitlines():
            assert len(line) <= box.content_region.width, line


async def test_question_mark_in_the_go_to_dialog_opens_no_help(tutorial: Tutorial) -> None:
    """The go-to dialog takes the keyboard whole: ``?`` goes to its input (which takes only
    digits), and help does not open over it."""
    app = app_for(tutorial.alice)
    async with app.run_test(size=SIZE) as pilot:
        await open_game(pilot)
        await pilot.press("g")
        await pilot.pause()
        await pilot.press("?")
        await pilot.pause()
        assert isinstance(app.screen, GotoDialog)
        assert app.screen.query_one(Input).value == ""
        await pilot.press("1", "4")
        assert app.screen.query_one(Input).value == "14"


async def test_go_to_works_from_the_orders_panel_too(tutorial: Tutorial) -> None:
    """g from the orders panel goes to the map's hex, as from the map: not a silent key (the
    digits typed next would be order keys in the panel: 1 drafts the step's first order)."""
    app = app_for(tutorial.alice)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        await pilot.press("o", "g")
        await pilot.pause()
        assert isinstance(app.screen, GotoDialog)
        await pilot.press(*"1411", "enter")
        await settle(pilot)
        hexmap = screen.query_one(HexMap)
        assert hexmap.cursor == 1411 and hexmap.has_focus


async def test_help_is_in_the_command_palette(tutorial: Tutorial) -> None:
    app = app_for(tutorial.alice)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        titles = [command.title for command in app.get_system_commands(app.screen)]
        assert "Help" in titles


# --- the legends alone -----------------------------------------------------------------------


def test_the_legends_fit_the_help_box() -> None:
    for sheet in (FE_SHEET, None):
        for detail in ("compact", "detailed"):
            lines = map_legend(sheet, None, detail)
            assert lines and all(len(line) <= 74 for line in lines)
    assert all(len(line) <= 74 for line in checklist_legend())
    wide = checklist_legend(200)  # one kind of mark per line
    assert [line.split()[0] for line in wide] == ["[x]", "A", "P", "(standing)", "(your"]
    assert wide[-2].endswith("(policy) SEAT its signed policy answers it")
    assert wide[-1] == "  (your drafts) the later step your unsigned drafts go on at"


def test_the_map_legend_explains_battles_captures_and_the_plan() -> None:
    text = "\n".join(map_legend(FE_SHEET, FACE.board(after_setup())))
    assert "KZ Klingon and Kzinti units" in text  # the tutorial's two sides, in its order
    assert "x battle hex" in text
    assert "z captured by Kzinti" in text
    assert "K3~ planned:" in text
    assert "~ planned:" in text


# --- without colour --------------------------------------------------------------------------


async def test_the_app_runs_with_no_color(
    tutorial: Tutorial, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``NO_COLOR`` (read when the app is built) turns every colour into shades of grey; the
    help must still explain the glyphs, since they carry the meaning."""
    monkeypatch.setenv("NO_COLOR", "1")
    app = app_for(tutorial.alice)
    assert app.no_color
    assert any(isinstance(f, Monochrome) for f in app.get_line_filters())
    async with app.run_test(size=SIZE) as pilot:
        await open_game(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert "KZ Klingon and Kzinti units" in help_text(app)


async def test_the_app_runs_in_16_colours(
    tutorial: Tutorial, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``TEXTUAL_COLOR_SYSTEM=standard`` (Textual reads it into `textual.constants` at import,
    so the test sets the constant) gives the app a 16-colour console, as on a vt100-like
    terminal; the game screen, its map and the help must draw with it."""
    monkeypatch.setattr(textual.constants, "COLOR_SYSTEM", "standard")
    app = app_for(tutorial.alice)
    assert app.console.color_system == "standard"
    async with app.run_test(size=SIZE) as pilot:
        await open_game(pilot)
        screenshot = app.export_screenshot()
        assert "1411" in screenshot or "K@" in screenshot  # the map was drawn
        await pilot.press("question_mark")
        await pilot.pause()
        assert "@ capital" in help_text(app)


# --- how it opens ----------------------------------------------------------------------------


async def test_the_help_opens_whole_in_one_repaint_without_drawing_the_game_under_it(
    tutorial: Tutorial, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first repaint that shows the help is the one it settles on, cell for cell and
    style for style (a scrollbar that showed up a layout later made two), and no repaint
    draws the game under it: the help covers the screen, and a see-through modal redrew all
    of the screen below, dimmed, at every paint."""
    from textual.renderables.background_screen import BackgroundScreen

    dimmed: list[object] = []
    real_dim = BackgroundScreen.process_segments

    def dim(*args: Any, **kwargs: Any) -> Any:
        dimmed.append(args)
        return real_dim(*args, **kwargs)

    monkeypatch.setattr(BackgroundScreen, "process_segments", dim)
    shown: list[list[tuple[str, Style | None]]] = []
    real_refresh = Screen._compositor_refresh

    def noted(screen: Screen[Any]) -> None:
        real_refresh(screen)
        if isinstance(screen, HelpScreen) and screen.app.screen is screen:
            shown.append(screen_cells(screen))

    monkeypatch.setattr(Screen, "_compositor_refresh", noted)
    app = app_for(tutorial.alice, game=GAME)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        final = screen_cells(app.screen)
    assert shown and shown[0] == final
    assert dimmed == []
