"""`KeysFooter` (`tui.widgets.footer`): the screen's keys drawn as one line, redrawn in the
frame that changed them and only when they changed; clicks, hover, groups, the palette."""

from __future__ import annotations

from typing import ClassVar

import pytest
from rich.style import Style
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Footer, Static

from tests.tui.pilots import after_each_repaint, refreshed, settle_until
from tui.widgets.footer import Key, KeysFooter, Shown, Span

MOVE = Binding.Group("Move", compact=True)


class Pane(Widget, can_focus=True):
    """A focusable widget with keys of its own."""

    DEFAULT_CSS = "Pane { height: 1; }"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "step(-1)", "West", group=MOVE),
        Binding("right", "step(1)", "East", group=MOVE),
        Binding("z", "zoom", "Zoom", tooltip="Change the detail"),
    ]

    def action_step(self, by: int) -> None:
        pass

    def action_zoom(self) -> None:
        pass


class Keys(App[None]):
    AUTO_FOCUS = None  # the pane takes the focus only when a test gives it
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a,A", "first", "First", tooltip="The first key"),
        Binding("b", "second", "Second"),
        Binding("x", "hidden", "Hidden", show=False),
    ]

    second_on = True
    palette = False

    def __init__(self) -> None:
        super().__init__()
        self.done: list[str] = []
        self.bells = 0

    def compose(self) -> ComposeResult:
        yield Static("keys")
        yield Pane()
        yield KeysFooter(show_command_palette=self.palette)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "second":
            return True if self.second_on else None  # None: shown greyed out
        return True

    def action_first(self) -> None:
        self.done.append("first")

    def action_second(self) -> None:
        self.done.append("second")

    def action_hidden(self) -> None:
        pass

    def bell(self) -> None:
        self.bells += 1


class WithPalette(Keys):
    palette = True


def line(app: App[None]) -> str:
    """The footer's line as the screen shows it."""
    return app.screen._compositor.render_strips()[-1].text


def cells(app: App[None]) -> list[tuple[str, Style | None]]:
    """The footer's line as the screen shows it, cell by cell with what shows of each
    cell's style: a blank's background only, and no mouse metadata."""
    out: list[tuple[str, Style | None]] = []
    for segment in app.screen._compositor.render_strips()[-1]:
        style = segment.style.clear_meta_and_links() if segment.style else None
        blank = Style(bgcolor=style.bgcolor) if style else None
        out.extend((char, blank if char == " " else style) for char in segment.text)
    return out


class Textuals(Keys):
    """The same keys in Textual's own compact footer."""

    def compose(self) -> ComposeResult:
        yield Static("keys")
        yield Pane()
        yield Footer(compact=True, show_command_palette=self.palette)


class TextualsWithPalette(Textuals):
    palette = True


async def seen(app: Keys, case: str) -> list[tuple[str, Style | None]]:
    """The footer line of ``app`` after the test case's changes."""
    async with app.run_test(size=(70, 5)) as pilot:
        await pilot.pause()
        if case == "greyed":
            app.second_on = False
            app.refresh_bindings()
        if case == "group":
            app.screen.query_one(Pane).focus()
        await refreshed(pilot)
        await refreshed(pilot)  # Textual's footer rebuilds its keys a frame later
        if case == "hover":
            await pilot.hover(Static)
            await pilot.hover(Static, offset=(2, 4))  # the footer's line, over "First"
            await refreshed(pilot)
        return cells(app)


@pytest.mark.parametrize("case", ["plain", "greyed", "group", "hover"])
@pytest.mark.parametrize("palette", [False, True], ids=["bare", "palette"])
async def test_the_line_is_what_textuals_compact_footer_draws(case: str, palette: bool) -> None:
    """Cell for cell, in the same characters and styles: each key and its description,
    a greyed-out key, a compact group, the key under the mouse, the palette's key."""
    ours = await seen(WithPalette() if palette else Keys(), case)
    theirs = await seen(TextualsWithPalette() if palette else Textuals(), case)
    assert "".join(c for c, _ in ours).strip()
    assert ours == theirs


async def test_the_line_shows_each_shown_key_with_its_description() -> None:
    app = Keys()
    async with app.run_test(size=(60, 5)) as pilot:
        await pilot.pause()
        assert line(app).rstrip() == "a First b Second"
        app.screen.query_one(Pane).focus()
        await settle_until(pilot, lambda: "Zoom" in line(app), "the pane's keys")
        # The pane's keys come first; its two moves are a compact group under one label.
        assert line(app).rstrip() == " ←→ Movez Zoom a First b Second"


async def test_a_click_runs_the_key_and_a_greyed_out_key_rings_the_bell() -> None:
    app = Keys()
    async with app.run_test(size=(60, 5)) as pilot:
        await pilot.pause()
        app.second_on = False
        app.refresh_bindings()
        await refreshed(pilot)
        await pilot.click(KeysFooter, offset=(line(app).index("Second"), 0))
        await pilot.click(KeysFooter, offset=(line(app).index("First"), 0))
        await pilot.click(KeysFooter, offset=(line(app).index("Second") + 7, 0))  # a margin
        await pilot.pause()
        assert (app.done, app.bells) == (["first"], 1)


def draws_of(footer: KeysFooter) -> list[Shown]:
    """What ``footer`` draws from now on, one entry per line drawn (not taken from its cache)."""
    drawn: list[Shown] = []
    real = footer._draw

    def draw(shown: Shown, width: int, hovered: Key | None) -> tuple[Strip, list[Span]]:
        drawn.append(shown)
        return real(shown, width, hovered)

    footer._draw = draw  # type: ignore[method-assign]
    return drawn


async def test_signals_that_change_nothing_draw_nothing() -> None:
    app = Keys()
    async with app.run_test(size=(60, 5)) as pilot:
        await pilot.pause()
        footer = app.query_one(KeysFooter)
        drawn = draws_of(footer)
        for _ in range(4):
            app.refresh_bindings()
        await refreshed(pilot)
        assert drawn == []
        app.second_on = False
        app.refresh_bindings()
        app.refresh_bindings()
        await refreshed(pilot)
        assert len(drawn) == 1


async def test_a_change_of_focus_shows_its_keys_in_the_same_repaint() -> None:
    """Every repaint that shows the pane focused shows its keys too (Textual's footer
    rebuilt its keys after the repaint of the focus change)."""
    app = Keys()
    async with app.run_test(size=(60, 5)) as pilot:
        await pilot.pause()
        pane = app.screen.query_one(Pane)
        seen: list[tuple[bool, bool]] = []
        after_each_repaint(app.screen, lambda: seen.append((pane.has_focus, "Zoom" in line(app))))
        pane.focus()
        await settle_until(pilot, lambda: seen and seen[-1] == (True, True), "pane focused")
        pane.blur()
        await settle_until(pilot, lambda: seen[-1] == (False, False), "pane blurred")
        assert all(focused == keys for focused, keys in seen), seen


async def test_the_mouse_over_a_key_highlights_it_and_gives_its_tooltip() -> None:
    app = Keys()
    async with app.run_test(size=(60, 5)) as pilot:
        await pilot.pause()
        footer = app.query_one(KeysFooter)
        plain = app.screen._compositor.render_strips()[-1]
        await pilot.hover(KeysFooter, offset=(line(app).index("First"), 0))
        assert footer.tooltip == "The first key"
        await refreshed(pilot)
        lit = app.screen._compositor.render_strips()[-1]
        backgrounds = [(s.text, s.style.bgcolor if s.style else None) for s in lit]
        assert lit.text == plain.text and list(lit) != list(plain), backgrounds
        await pilot.hover(Static)
        assert footer.tooltip is None


async def test_the_palette_stays_at_the_right_end_when_the_keys_are_cut() -> None:
    app = WithPalette()
    async with app.run_test(size=(60, 5)) as pilot:
        await pilot.pause()
        text = line(app)
        assert text.startswith("a First b Second ") and text.endswith("▏^p palette ")
    narrow = WithPalette()
    async with narrow.run_test(size=(24, 5)) as pilot:
        await pilot.pause()
        assert line(narrow) == "a First b Se▏^p palette "
        await pilot.click(KeysFooter, offset=(14, 0))  # on "^p"
        await settle_until(pilot, lambda: narrow.screen is not narrow.screen_stack[0], "palette")
    scrolled = WithPalette()
    async with scrolled.run_test(size=(24, 5)) as pilot:
        await pilot.pause()
        for _ in range(4):  # the keys scroll to their end, beside the palette
            wheel(scrolled.query_one(KeysFooter), down=True)
        await refreshed(pilot)
        assert line(scrolled) == "a First b Second "[-12:] + "▏^p palette "


def wheel(footer: KeysFooter, down: bool) -> None:
    """One turn of the mouse wheel over the footer."""
    kind = events.MouseScrollDown if down else events.MouseScrollUp
    footer.post_message(kind(footer, 0, 0, 0, 1 if down else -1, 0, False, False, False))


async def test_the_wheel_scrolls_the_keys_that_do_not_fit() -> None:
    full = "a First b Second "  # each key's margin after it
    app = Keys()
    async with app.run_test(size=(10, 5)) as pilot:
        await pilot.pause()
        footer = app.query_one(KeysFooter)
        assert line(app) == full[:10]
        wheel(footer, down=True)
        await refreshed(pilot)
        assert line(app) == full[4:14]
        for _ in range(5):  # no further than the end of the keys
            wheel(footer, down=True)
        await refreshed(pilot)
        assert line(app) == full[-10:]
        drawn = draws_of(footer)
        footer._line()
        assert drawn == []  # the line scrolled to its end was kept, not drawn again
        wheel(footer, down=False)
        await refreshed(pilot)
        assert line(app) == full[-14:-4]
        await pilot.click(KeysFooter, offset=(full[-14:].index("b"), 0))
        await pilot.pause()
        assert app.done == ["second"]
