"""The game's events in plain language, one entry per event, newest at the bottom.

Built on `RichLog` rather than `ListView` or `OptionList`: a game gathers thousands of
events, and the log only ever grows at the end. `RichLog` renders each entry once, when it is
written, and paints only the lines on screen, so appending after every packet costs the new
lines alone; a list widget would keep a widget or an option per event and is meant for
choosing, which nobody does here. The price is that lines are fixed once drawn, so the log
keeps its rows and redraws them all when the filter or the width changes (rare events).

Each entry reads ``#12   coalition  * text``: the packet number, the seat, a one-character
gutter and the event's own text, wrapped under itself in narrow terminals. The gutter carries
the meaning in monochrome (colour and bold only repeat it): ``*`` a note or chat line, ``.``
bookkeeping (a step completed, a phase begun), shown only in verbose mode, blank otherwise.

The widget only shows what it is given (`EventLog.show_events`, `EventLog.add_events`: rows
of ``(seq, seat, kind, text)`` as ``hexpost log GAME --json`` holds them); it never reads the
store. It follows the end as rows arrive unless the player has scrolled up to read; scrolling
back to the bottom (``end``) follows again.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Any, ClassVar

from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.events import Resize
from textual.geometry import Size
from textual.reactive import var
from textual.widgets import RichLog

from tui.safe_text import safe_text

Row = tuple[int, str, str, str]
"""``(seq, seat, kind, text)``: one event of packet ``seq``; ``seat`` may be empty (the
engine's own events)."""

BOOKKEEPING = frozenset(
    {"step-done", "step-part", "step-auto", "step-passed", "step-skipped", "phase"}
)
"""Event kinds hidden unless verbose: the sequence of play moving on, which the checklist
already shows and which would otherwise outnumber the events that matter three to one."""
HIGHLIGHTED = frozenset({"note", "chat", "chat-message"})
"""Event kinds people wrote to each other: they stand out."""

GUTTER_NOTE = "*"
GUTTER_BOOKKEEPING = "."
SEQ_WIDTH = 4
SEAT_WIDTH = 10
MIN_TEXT_WIDTH = 20
"""Below this the text is not wrapped narrower; the line is cut at the edge instead."""


class EventLog(RichLog):
    """The events of a game, filtered (or not: ``v``), following the end."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("v", "toggle_verbose", "Verbose"),
    ]
    """``v`` shows or hides bookkeeping events. The scrolling keys (arrows, page up and down,
    ``home``, ``end``) come from `RichLog`; ``end`` also resumes following new events."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "eventlog--prefix",
        "eventlog--note",
        "eventlog--bookkeeping",
    }
    """The packet number and seat; notes and chat; bookkeeping events."""

    DEFAULT_CSS = """
    EventLog {
        scrollbar-size-vertical: 1;
        & > .eventlog--prefix { color: $text-muted; }
        & > .eventlog--note { text-style: bold; color: $warning; }
        & > .eventlog--bookkeeping { text-style: dim; }
    }
    """

    verbose: var[bool] = var(False)
    """Show the bookkeeping events too."""

    def __init__(
        self,
        *,
        verbose: bool = False,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
        disabled: bool = False,
    ) -> None:
        super().__init__(
            min_width=1, wrap=False, name=name, id=id, classes=classes, disabled=disabled
        )
        self.set_reactive(EventLog.verbose, verbose)
        self._rows: list[Row] = []
        self._width = 0
        """The text width the lines were drawn for; 0 until the widget has a size."""
        self._follow = True
        """Whether new lines scroll the log to the end: off once the player scrolls up."""

    # --- data in ----------------------------------------------------------------------------

    @property
    def rows(self) -> Sequence[Row]:
        """Every row given, shown or not."""
        return tuple(self._rows)

    @property
    def following(self) -> bool:
        """Whether the log keeps to its end as rows arrive."""
        return self._follow

    def show_events(self, rows: Sequence[Row], *, from_top: bool = False) -> None:
        """Replace the content with ``rows``. The scroll position is kept: at the end if the
        player was following, else where they were reading (call ``scroll_end`` for a new
        game). ``from_top``: shown from the first row instead, not following (the review
        shows one packet's events at a time), scrolled there in this frame: a scroll left to
        Textual's default waits for the next repaint, one more layout and paint later."""
        self._rows = [_row(row) for row in rows]
        if from_top:
            self._follow = False
        self._redraw(from_top=from_top)

    def add_events(self, rows: Sequence[Row]) -> None:
        """Append ``rows``: the cheap path for the events of newly arrived packets."""
        added = [_row(row) for row in rows]
        self._rows.extend(added)
        if not self._width:
            return  # drawn with the rest once the widget has a size
        follow = self._follow
        for row in added:
            if self._shown(row):
                self.write(self._entry(row), scroll_end=follow)

    # --- drawing ----------------------------------------------------------------------------

    def _shown(self, row: Row) -> bool:
        return self.verbose or row[2] not in BOOKKEEPING

    def _redraw(self, *, from_top: bool = False, at_once: bool = False) -> None:
        """Draw every shown row again for the current width and filter; ``from_top``: and
        show the first at once (`show_events`); ``at_once``: scroll now, in a layout that
        knows the log's size (`_size_updated`), not after the next repaint."""
        follow = self._follow
        y = self.scroll_y
        self.clear()
        self._width = self.scrollable_content_region.width
        if not self._width:
            return
        for row in self._rows:
            if self._shown(row):
                self.write(self._entry(row), scroll_end=False)
        if from_top:
            self.scroll_to(y=0, animate=False, immediate=True)
        elif follow:
            self.scroll_end(animate=False, x_axis=False, immediate=at_once)
        else:
            self.scroll_to(y=y, animate=False, immediate=at_once)
        self._follow = follow

    def _style(self, component: str) -> Style:
        return self.get_component_rich_style(component, partial=True)

    def _entry(self, row: Row) -> Text:
        """One event as lines of text: the prefix, the gutter, the text wrapped under itself."""
        seq, seat, kind, text = row
        if kind in HIGHLIGHTED:
            gutter, style = GUTTER_NOTE, self._style("eventlog--note")
        elif kind in BOOKKEEPING:
            gutter, style = GUTTER_BOOKKEEPING, self._style("eventlog--bookkeeping")
        else:
            gutter, style = " ", Style()
        prefix = f"#{seq:<{SEQ_WIDTH}} {seat or '-':<{SEAT_WIDTH}} "
        indent = " " * (len(prefix) + 2)
        chunks = textwrap.wrap(text, max(MIN_TEXT_WIDTH, self._width - len(indent))) or [""]
        entry = Text(no_wrap=True, overflow="crop")
        entry.append(prefix, self._style("eventlog--prefix"))
        entry.append(f"{gutter} {chunks[0]}", style)
        for chunk in chunks[1:]:
            entry.append(f"\n{indent}")
            entry.append(chunk, style)
        return entry

    # --- reacting ---------------------------------------------------------------------------

    def _size_updated(
        self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
    ) -> bool:
        """Textual's hook for a new size, in the layout before its paint: the rows are drawn
        for a new width here, so the repaint that shows the log (``e``, the first time) shows
        them, at the end. Drawn on the resize event instead, they came a frame after the
        empty log, and the scroll to the end a frame after that."""
        resized = super()._size_updated(size, virtual_size, container_size, layout)
        width = self.scrollable_content_region.width
        if width and width != self._width:
            self._size_known = True  # (what `RichLog` notes on its resize: writes may go)
            self._redraw(at_once=True)
            # The scrollbars as the rows just drawn need them, in this layout: Textual
            # sized them for the content the layout found, and showed their thumbs a
            # repaint later.
            self._scroll_update(self.virtual_size)
        return resized

    def on_resize(self, event: Resize) -> None:
        """The rows again if the width changed since the layout drew them (`_size_updated`).
        `RichLog`'s own handler runs after this one."""
        if self.scrollable_content_region.width != self._width:
            self._redraw()

    def watch_verbose(self) -> None:
        self._redraw()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        """Follow the end exactly when the player is at it: scrolling up stops following,
        scrolling back down (or ``end``) resumes it. New lines only raise the maximum, so
        they never count as the player scrolling away."""
        super().watch_scroll_y(old_value, new_value)
        self._follow = new_value >= self.max_scroll_y

    def action_toggle_verbose(self) -> None:
        self.verbose = not self.verbose


def _row(row: Sequence[Any]) -> Row:
    """A row as the plain tuple (rows read back from JSON are lists), its seat and text made
    one harmless line each: chat, notes and roll purposes are the other player's words, and
    a control character in them is shown escaped rather than obeyed (`tui.safe_text`). The
    entries are `Text`, never parsed as markup, so brackets show as typed."""
    seq, seat, kind, text = row
    return int(seq), safe_text(seat or ""), str(kind), safe_text(text)
