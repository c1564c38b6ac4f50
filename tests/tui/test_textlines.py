"""`TextLines` (`tui.widgets.textlines`): plain lines in a scroll, drawn only where they show,
shown from the top, with other players' control characters made visible."""

from __future__ import annotations

from textual.app import App, ComposeResult

from tests.tui.pilots import after_each_repaint, refreshed
from tui.widgets.textlines import TextLines

LINES = [f"line {n}" for n in range(200)]


class Lines(App[None]):
    def compose(self) -> ComposeResult:
        yield TextLines(id="lines")


def screen_text(app: App[None]) -> list[str]:
    return [strip.text.rstrip() for strip in app.screen._compositor.render_strips()]


async def test_it_shows_the_lines_from_the_top_and_draws_only_those_on_screen() -> None:
    app = Lines()
    async with app.run_test(size=(30, 6)) as pilot:
        lines = app.query_one(TextLines)
        lines.show(LINES)
        await refreshed(pilot)
        shown = app.screen._compositor.render_strips()
        assert [strip.text[:29].rstrip() for strip in shown] == LINES[:6]  # 1 column: scrollbar
        assert set(lines._strips) == set(range(6))  # 6 of the 200 lines were drawn
        lines.scroll_to(y=100, animate=False)
        await refreshed(pilot)
        assert screen_text(app)[0].startswith("line 100")
        lines.show(["other", "lines"])  # new lines: from the top again, no scrollbar
        await refreshed(pilot)
        assert screen_text(app)[:3] == ["other", "lines", ""]
        assert lines.scroll_offset.y == 0


async def test_control_characters_show_as_escapes() -> None:
    app = Lines()
    async with app.run_test(size=(30, 4)) as pilot:
        lines = app.query_one(TextLines)
        lines.show(["moved \x1b[2J ships", "a\u202eb"])
        await refreshed(pilot)
        assert screen_text(app)[:2] == ["moved \\x1b[2J ships", "a\\u202eb"]
        assert lines.lines == ["moved \\x1b[2J ships", "a\\u202eb"]


async def test_a_new_theme_draws_the_lines_again() -> None:
    app = Lines()
    async with app.run_test(size=(30, 4)) as pilot:
        lines = app.query_one(TextLines)
        lines.show(["one line"])
        await refreshed(pilot)
        before = app.screen._compositor.render_strips()[0]
        app.theme = "textual-light"
        await refreshed(pilot)
        after = app.screen._compositor.render_strips()[0]
        assert after.text == before.text and list(after) != list(before)


async def test_new_lines_that_fit_or_overflow_land_in_one_repaint() -> None:
    """The scrollbar comes and goes with the lines in the repaint that shows them (found
    in the layout after it, it made a second repaint a frame later)."""
    app = Lines()
    async with app.run_test(size=(30, 6)) as pilot:
        lines = app.query_one(TextLines)
        lines.show(LINES)
        await refreshed(pilot)
        seen: list[list[str]] = []
        after_each_repaint(app.screen, lambda: seen.append(painted(app)))
        for shown in (["few", "lines"], LINES, ["few"]):
            seen.clear()
            lines.show(shown)
            await refreshed(pilot)
            await refreshed(pilot)
            changed = [paint for n, paint in enumerate(seen) if n == 0 or paint != seen[n - 1]]
            assert len(changed) == 1, shown
            assert lines.show_vertical_scrollbar == (len(shown) > 6)


def painted(app: App[None]) -> list[str]:
    """Every cell of the screen with its style, line by line."""
    return [repr(list(strip)) for strip in app.screen._compositor.render_strips()]
