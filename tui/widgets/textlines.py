"""Plain lines of text in a scroll, drawn only where they show.

A `Static` in a `VerticalScroll` renders every line of its text whenever it is updated,
however few show: the review's list of what a packet changed runs to some 200 lines for a
turn's movement, and drawing them took 17-18 ms of each review step's repaint (issue 16,
item 5). `TextLines` keeps the lines and draws a line the first time it shows, so a step
costs the dozen lines of the panel.

The lines are shown as given, one per row, without wrapping (the caller wraps them to the
panel's width), each through `tui.safe_text.safe_text`: they may name things another
player's client wrote.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
from rich.segment import Segment
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui.safe_text import safe_text
from tui.widgets.scrollbars import settle_scrollbars


class TextLines(ScrollView, can_focus=True):
    """Lines of plain text, scrolled; `show` replaces them and scrolls to the top."""

    DEFAULT_CSS = """
    TextLines {
        height: 1fr;
        overflow-x: hidden;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._lines: list[str] = []
        self._strips: dict[int, Strip] = {}
        """The lines drawn so far, by index (their style is the widget's)."""

    @property
    def lines(self) -> list[str]:
        """The lines shown (after `safe_text`)."""
        return list(self._lines)

    def show(self, lines: Sequence[str]) -> None:
        """Show ``lines`` from the top."""
        self._lines = [safe_text(line) for line in lines]
        self._strips.clear()
        width = max((cell_len(line) for line in self._lines), default=0)
        self.virtual_size = Size(width, len(self._lines))
        settle_scrollbars(self)  # in the layout the new size asks for, not the one after
        self.scroll_to(0, 0, animate=False)
        self.refresh()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strips.clear()  # drawn in the old colours

    def render_line(self, y: int) -> Strip:
        index = y + self.scroll_offset.y
        width = self.size.width
        style = self.rich_style
        if index >= len(self._lines):
            return Strip.blank(width, style)
        strip = self._strips.get(index)
        if strip is None:
            text = self._lines[index]
            strip = self._strips[index] = Strip([Segment(text, style)], cell_len(text))
        return strip.crop_extend(0, width, style)
