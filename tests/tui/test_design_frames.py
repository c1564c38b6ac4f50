"""What a key typed in the ship designer costs the screen (issue 16, item 5), and that the
cheaper drawing shows what the plain one showed.

`FigureList` draws the figures from strips it keeps between keys, where a `Static` holding
`figures_content` rendered the whole list at every layout: the two are compared strip for
strip (text and styles) at several widths, after a change of the figures and after a
resize. A key that changes the figures, the verdict and the line under a field is laid out
once: the field, what it changes and the sizes Textual sets afterwards used to take two or
three layouts of the whole screen, a frame apart (`bench/tui_designer.py` times it; no test
here asserts a time).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.geometry import Region
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Input, Static

from tests.tui.pilots import settle_until
from tests.tui.test_app import SIZE
from tests.tui.test_designer import app_in, form_of, open_designer, retype, shows
from tui.services import designs
from tui.services.designs import FigureLine
from tui.widgets.design_form import FigureList, figures_content

NOTED = FigureLine(
    key="noted",
    label="A figure with a reading",
    formula="(SIZE + 11)^2 with a formula long enough to wrap at the narrowest width tried",
    value="12.5",
    unit="spaces",
    note="the source's table and its text disagree; the table is read, as the errata say",
)
"""A figure whose detail has two lines and wraps: the hanging indent must survive."""


def figures(values: dict[str, str]) -> list[FigureLine]:
    return [*designs.work(values).figures, NOTED]


class Both(App[None]):
    """The figure list and a `Static` of the same figures, side by side at the same width."""

    CSS = """
    Horizontal > * { width: 1fr; height: auto; padding: 0 1; }
    """

    def __init__(self, shown: list[FigureLine]) -> None:
        super().__init__()
        self.shown = shown

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield FigureList(id="drawn")
            yield Static(figures_content(self.shown), id="plain", markup=False)

    def on_mount(self) -> None:
        self.query_one(FigureList).show(self.shown)

    def change(self, shown: list[FigureLine]) -> None:
        self.query_one(FigureList).show(shown)
        self.query_one(Static).update(figures_content(shown))


def drawn(widget: Widget) -> list[Strip]:
    """Every line of ``widget`` as Textual paints it (padding and styles included)."""
    return widget.render_lines(Region(0, 0, widget.size.width, widget.size.height))


async def test_the_figure_list_draws_what_a_static_draws() -> None:
    app = Both(figures({}))
    async with app.run_test(size=(82, 200)) as pilot:
        await pilot.pause()
        figure_list, plain = app.query_one(FigureList), app.query_one(Static)

        def same() -> bool:
            return figure_list.size == plain.size and drawn(figure_list) == drawn(plain)

        assert figure_list.size.width == 39  # 82 columns: two halves, padded 1 a side
        assert figure_list.size.height > len(app.shown) * 2  # some details wrap
        await settle_until(pilot, same, "the same lines at 39 columns")
        app.change(figures({"size": "5", "gs": "12", "armor": "2"}))  # other values
        await settle_until(pilot, same, "the same lines after a change")
        app.change(figures({"size": "x"}))  # no figures from a bad value: fewer lines
        await settle_until(pilot, same, "the same lines after a change of height")
        assert figure_list.size.height < len(app.shown)
        app.change(figures({"size": "5"}))
        await settle_until(pilot, same, "the same lines after a change back")
        for width, half in ((42, 19), (122, 59), (62, 29)):  # columns: terminal, each half
            await pilot.resize_terminal(width, 200)
            # Both halves are also "the same" before the resize is laid out: wait for it.
            await settle_until(
                pilot,
                lambda: figure_list.size.width == half and same(),  # noqa: B023 (awaited at once)
                f"the same lines at {width} columns",
            )


def count_layouts(screen: Screen[Any]) -> list[int]:
    """A list holding how many times ``screen`` laid itself out since (a private method of
    Textual's, wrapped on this one screen: an upgrade that renames it fails here loudly)."""
    counted = [0]
    layout = screen._refresh_layout

    def counting(*args: object, **kwargs: object) -> None:
        counted[0] += 1
        layout(*args, **kwargs)  # type: ignore[arg-type]

    screen._refresh_layout = counting  # type: ignore[method-assign]
    return counted


async def test_a_key_is_laid_out_once(tmp_path: Path) -> None:
    """Hull G's 12 breaks a rule (its line appears under the field, the verdict turns to two
    lines) and 1 mends it: each key changes the field, the figures, the verdict and the
    line under the field, and the screen is laid out once for all of it."""
    app = app_in(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_designer(pilot)
        form = form_of(screen)
        await retype(pilot, screen, "gs", "1")
        for field in screen.query(Input):
            field.cursor_blink = False
        await pilot.pause(0.1)
        layouts = count_layouts(screen)
        for key, value in (("2", "12"), ("backspace", "1"), ("2", "12"), ("backspace", "1")):
            layouts[0] = 0
            await pilot.press(key)
            wanted = "impossible design: 1 rule" if value == "12" else "a possible design"
            await settle_until(pilot, shows(app, wanted), wanted)
            await pilot.pause(0.1)  # six frames: time for any layout the key still causes
            assert shows(app, "[rule: the hull's G")() == (value == "12")
            assert f"Hull hits: {value} hits" in form.figure_text("hull_hits")
            assert layouts[0] == 1, f"{key}: {layouts[0]} layouts"
        # A bad value hides every figure and mending it brings them back: the figure column
        # keeps its scrollbar (`DesignForm`), whose going and coming cost a second layout.
        await retype(pilot, screen, "tl", "15")
        for field in screen.query(Input):
            field.cursor_blink = False
        await pilot.pause(0.1)
        for key, wanted in (("backspace", "no figures: 1 bad value"), ("5", "a possible design")):
            layouts[0] = 0
            await pilot.press(key)
            await settle_until(pilot, shows(app, wanted), wanted)
            await pilot.pause(0.1)
            assert layouts[0] == 1, f"{key}: {layouts[0]} layouts"


async def test_breaking_a_rule_keeps_the_figure_column_as_tall(tmp_path: Path) -> None:
    """The verdict keeps two lines (`DesignForm`): a key that breaks a rule (its verdict has
    two lines) or mends it (one) leaves the figure column's height, and with it the column's
    scrollbar, as it was; a change there makes Textual draw the scrollbar again."""
    app = app_in(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_designer(pilot)
        column = screen.query_one("#design-figures", Widget)
        verdict = screen.query_one("#design-verdict", Widget)
        heights = []
        for value, wanted in (("1", "a possible design"), ("12", "impossible design: 1 rule")):
            await retype(pilot, screen, "gs", value)
            await settle_until(pilot, shows(app, wanted), wanted)
            size, width = verdict.size, verdict.content_size.width
            heights.append((verdict.get_content_height(size, size, width), column.virtual_size))
        assert [lines for lines, _ in heights] == [1, 2]  # its text fills one line, then two
        assert heights[0][1] == heights[1][1]
        assert heights[0][1].height > column.size.height  # (a column that scrolls)
