"""The F&E map as a Textual widget: the whole 61x19 map, a hex cursor, stacks of counters.

`HexMap` draws with the line API (`ScrollView.render_line`): Textual asks only for the lines
on screen, and each is cropped to the visible columns, so the full map with every unit of
The Wind scrolls over SSH without drawing what nobody sees. The drawing itself is
`tui.maptext` (what a hex box says) on `tui.mapgeom` (where it lands), the same code as
``hexpost show --map``, so the widget and the printed map cannot disagree.

What it costs per key press: the `Frame` is built once per detail level, each hex's `Cell`
once per `show_view`, and each map line's `Strip` once until something on it changes (a
cursor move redraws only the lines of the old and the new cursor box). A repaint then crops
cached strips.

Data down, intent up: the screen hands it a ``views`` record (`engine.fe.views`, the record
``show --json`` prints) with `HexMap.show_view`; the widget posts `HexMap.CursorMoved` and
`HexMap.HexChosen` and never calls the engine, the store or the network. The one thing it
reads itself is the printed map (`engine.fe.galaxy.load_galaxy`, static data, cached) when
the screen passes no galaxy.

The column numbers (top two lines) and the row numbers (left three characters) stay pinned
while the map scrolls: in an 80x24 terminal most of the map is off screen, and a player who
cannot read coordinates is lost. Everything else follows the scroll offsets.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any, ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui.mapgeom import HEADER_LINES, LABEL_WIDTH, Detail, Frame, HexId, hex_col, hex_id, hex_row
from tui.mapstacks import (
    battle_hexes,
    captured_owners,
    plan_markers,
    stack_markers,
    stacks_from_views,
)
from tui.maptext import Cell, CellFor, StyledLine, cells_from_galaxy, map_frame, render_line
from tui.widgets.goto import GotoDialog

if TYPE_CHECKING:
    from engine.fe.galaxy import Galaxy

DEFAULT_CURSOR: HexId = 1411
"""Where the cursor starts unless the screen says otherwise: the Klingon capital. It is near
the middle of The Wind's opening front (Klingons, Kzintis, Federation, Hydrans), whichever
side the player takes, and it exists on the map whatever the game's state; "the first hex
with units" would change with every view and jump about as the game goes on."""

MOVE = Binding.Group("Move", compact=True)


@lru_cache(maxsize=256)
def rich_style(style: str) -> Style:
    """`maptext` styles are Rich style strings; a map has a dozen distinct ones, so each is
    parsed once instead of once per box per line."""
    return Style.parse(style)


def styled_strip(line: StyledLine, label: Style, *, header: bool) -> Strip:
    """One full-width map line as a `Strip`: the spans in their styles, the gaps plain, and
    the labels in ``label`` (the whole line for the column numbers, the row number's
    ``LABEL_WIDTH`` characters otherwise). The widget's own colours fill in whatever a
    segment leaves unset."""
    text = line.text
    if header:
        return Strip([Segment(text, label)], len(text))
    segments = [Segment(text[:LABEL_WIDTH], label)]
    position = LABEL_WIDTH
    for start, end, style in line.spans:
        if start > position:
            segments.append(Segment(text[position:start], _PLAIN))
        segments.append(Segment(text[start:end], rich_style(style)))
        position = end
    if position < len(text):
        segments.append(Segment(text[position:], _PLAIN))
    return Strip(segments, len(text))


_PLAIN = Style.null()
"""The gaps' style: null rather than None, which some line filters (``NO_COLOR``) reject."""


def stepped(h: HexId, dcol: int, drow: int, cols: int, rows: int) -> HexId:
    """The hex ``dcol`` columns and ``drow`` rows away from ``h``, held inside the map: a
    cursor pushed against an edge stays on it."""
    col = min(max(hex_col(h) + dcol, 1), cols)
    row = min(max(hex_row(h) + drow, 1), rows)
    return hex_id(col, row)


def follow(scroll: int, window: int, pinned: int, lo: int, hi: int, *, center: bool) -> int:
    """The scroll offset along one axis that shows map characters (or lines) ``lo..hi``
    (``hi`` exclusive) in a window of ``window`` cells whose first ``pinned`` cells show the
    pinned labels: map position ``p`` is on screen when ``scroll + pinned <= p < scroll +
    window``. Moves as little as possible unless ``center``; too small a window shows
    ``lo``. The caller's scroll validation clamps the far end."""
    if hi - lo > window - pinned:
        target = lo - pinned
    elif center:
        target = (lo + hi - pinned - window) // 2
    elif lo < scroll + pinned:
        target = lo - pinned
    elif hi > scroll + window:
        target = hi - window
    else:
        target = scroll
    return max(0, target)


class HexMap(ScrollView, can_focus=True):
    """The whole map, scrollable, with a hex cursor that the view follows.

    ``cursor`` is the selected hex id (``XXYY``); ``detail`` is ``"compact"`` (3x1 boxes:
    terrain or the units' marker, ``K4``) or ``"detailed"`` (7x2 boxes: the hex id, then
    terrain and units). The cursor shows as ``[K4]`` brackets and in reverse video, so it
    reads in monochrome too.

    Keys: arrows or ``h j k l`` move the cursor one column left/right or one row up/down,
    held at the map's edges; Enter chooses the hex; ``z`` switches the detail; ``g`` asks
    for a hex id to go to (`GotoDialog`). A click moves the cursor to the clicked hex, a
    double click also chooses it.
    """

    # Only Enter shows in the footer: 80 columns cannot hold the map's keys and the screen's
    # ones, and the arrows need no telling. `?` and the palette list the rest.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left,h", "move(-1, 0)", "West", group=MOVE, show=False, tooltip="One column left"),
        Binding("down,j", "move(0, 1)", "South", group=MOVE, show=False, tooltip="One row down"),
        Binding("up,k", "move(0, -1)", "North", group=MOVE, show=False, tooltip="One row up"),
        Binding(
            "right,l", "move(1, 0)", "East", group=MOVE, show=False, tooltip="One column right"
        ),
        Binding("enter", "choose", "Choose", tooltip="Choose the hex under the cursor"),
        Binding("z", "toggle_detail", "Zoom", show=False, tooltip="Compact or detailed hexes"),
        Binding("g", "goto", "Go to", show=False, tooltip="Go to a hex by its id (XXYY)"),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {"hexmap--label"}
    """``hexmap--label``: the pinned column and row numbers."""

    DEFAULT_CSS = """
    HexMap {
        width: 1fr;
        height: 1fr;
        scrollbar-size: 1 1;
        & > .hexmap--label {
            color: $text-muted;
            text-style: bold;
        }
        &:focus > .hexmap--label {
            color: $text-accent;
        }
    }
    """

    cursor: reactive[HexId] = reactive(DEFAULT_CURSOR, repaint=False)
    """The selected hex; setting it redraws, scrolls to it and posts `CursorMoved`."""

    detail: reactive[Detail] = reactive("compact", repaint=False)
    """``"compact"`` or ``"detailed"``: the size of the hex boxes."""

    class CursorMoved(Message):
        """The cursor went to another hex (keys, click, goto, or the screen setting it)."""

        def __init__(self, hex_id: HexId, hexmap: HexMap) -> None:
            super().__init__()
            self.hex_id = hex_id
            self.hexmap = hexmap

        @property
        def control(self) -> HexMap:
            return self.hexmap

    class HexChosen(Message):
        """The player chose the cursor's hex (Enter, or a double click)."""

        def __init__(self, hex_id: HexId, hexmap: HexMap) -> None:
            super().__init__()
            self.hex_id = hex_id
            self.hexmap = hexmap

        @property
        def control(self) -> HexMap:
            return self.hexmap

    def __init__(
        self,
        view: Mapping[str, Any] | None = None,
        *,
        galaxy: Galaxy | None = None,
        cursor: HexId | None = None,
        detail: Detail = "compact",
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
        disabled: bool = False,
    ) -> None:
        """``view`` is a ``views`` record (None: the bare map); ``galaxy`` the map to draw
        (None: the shipped F&E map); ``cursor`` the starting hex (None: `DEFAULT_CURSOR`, or
        0101 on a map without it)."""
        super().__init__(name=name, id=id, classes=classes, disabled=disabled)
        if galaxy is None:
            from engine.fe.galaxy import load_galaxy

            galaxy = load_galaxy()
        self._galaxy = galaxy
        self._cols, self._rows = galaxy.width, galaxy.height
        self._frames: dict[str, Frame] = {}
        self._cells: dict[HexId, Cell | None] = {}
        self._strips: dict[int, Strip] = {}
        self._cell_for: CellFor = cells_from_galaxy(galaxy)
        self._view: Mapping[str, Any] | None = None
        self.planned: dict[HexId, str] = {}
        """The what-if markers shown over the view (`show_plan`), by hex; empty for none."""
        if cursor is None:
            cursor = DEFAULT_CURSOR if self.on_map(DEFAULT_CURSOR) else hex_id(1, 1)
        elif not self.on_map(cursor):
            raise ValueError(f"hex {cursor:04d} is off the {self._cols}x{self._rows} map")
        self.set_reactive(HexMap.cursor, cursor)
        self.set_reactive(HexMap.detail, self.validate_detail(detail))
        self.virtual_size = Size(self.frame.width, self.frame.height)
        self.show_view(view)

    # --- data down ----------------------------------------------------------------------

    def show_view(self, view: Mapping[str, Any] | None) -> None:
        """Draw the stacks and bases of ``view`` (a ``views`` record), or the bare printed
        map for None. The cursor and the scroll position stay where they are; a plan shown
        over the old view is dropped (it was worked out from that view)."""
        self._view = view or None
        self.planned = {}
        self._redraw()

    def show_plan(self, planned: Mapping[str, Any] | None) -> None:
        """Show over the view what the draft orders would change: ``planned`` is the
        ``views`` record of the game after them (None clears the plan). Only the hexes whose
        stack changes are redrawn, with a ``~`` marker (`tui.mapstacks.planned_marker`)."""
        markers = (
            plan_markers(self._view, planned, self._glyphs()) if self._view and planned else {}
        )
        if markers != self.planned:
            self.planned = markers
            self._redraw()

    def _glyphs(self) -> dict[str, str]:
        return {e.id: e.glyph for e in self._galaxy.empires if e.glyph}

    def _redraw(self) -> None:
        view = self._view
        if view:
            stacks, bases = stacks_from_views(view)
            battles = battle_hexes(view)
            markers = {**stack_markers(stacks, self._glyphs(), battles), **self.planned}
            self._cell_for = cells_from_galaxy(
                self._galaxy,
                markers,
                bases,
                self.planned,
                captured=captured_owners(view),
                battles=battles,
            )
        else:
            self._cell_for = cells_from_galaxy(self._galaxy)
        self._cells.clear()
        self._strips.clear()
        self.refresh()

    def goto(self, h: HexId) -> None:
        """Put the cursor on hex ``h`` and centre the map on it; raises `ValueError` for a
        hex off the map (the dialog refuses those before they get here)."""
        if not self.on_map(h):
            raise ValueError(f"hex {h:04d} is off the {self._cols}x{self._rows} map")
        self.cursor = h
        self.scroll_to_cursor(center=True)

    # --- reading --------------------------------------------------------------------------

    @property
    def frame(self) -> Frame:
        """The whole map's layout at the current detail (built once per detail level)."""
        frame = self._frames.get(self.detail)
        if frame is None:
            frame = map_frame(self._cols, self._rows, detail=self.detail)
            self._frames[self.detail] = frame
        return frame

    @property
    def map_size(self) -> tuple[int, int]:
        """(columns, rows) of the map."""
        return self._cols, self._rows

    def on_map(self, h: HexId) -> bool:
        return 1 <= hex_col(h) <= self._cols and 1 <= hex_row(h) <= self._rows

    def cell(self, h: HexId) -> Cell | None:
        """What hex ``h`` shows now (cursor aside), computed once per `show_view`."""
        try:
            return self._cells[h]
        except KeyError:
            cell = self._cells[h] = self._cell_for(h)
            return cell

    # --- reactives ------------------------------------------------------------------------

    def validate_cursor(self, h: HexId) -> HexId:
        """A cursor set off the map lands on the nearest hex of the map's edge."""
        return stepped(h, 0, 0, self._cols, self._rows)

    def validate_detail(self, detail: str) -> Detail:
        if detail == "compact":
            return "compact"
        if detail == "detailed":
            return "detailed"
        raise ValueError(f"detail {detail!r}: use 'compact' or 'detailed'")

    def watch_cursor(self, old: HexId, new: HexId) -> None:
        for h in (old, new):
            self._forget_box(h)
        if self.is_mounted:
            self.scroll_to_cursor()
        self.post_message(self.CursorMoved(new, self))

    def watch_detail(self) -> None:
        self._strips.clear()
        self.virtual_size = Size(self.frame.width, self.frame.height)
        self.refresh()
        if self.is_mounted:
            # The new virtual size reaches the scroll limits at the next layout.
            self.call_after_refresh(self.scroll_to_cursor, center=True)

    # --- drawing --------------------------------------------------------------------------

    def _drawn_cell(self, h: HexId) -> Cell | None:
        cell = self.cell(h)
        if cell is not None and h == self.cursor:
            return replace(cell, selected=True)
        return cell

    def _map_strip(self, line: int) -> Strip:
        """Map line ``line`` at full width, drawn once until something on it changes."""
        strip = self._strips.get(line)
        if strip is None:
            label = self.get_component_rich_style("hexmap--label")
            drawn = render_line(self.frame, line, self._drawn_cell)
            strip = styled_strip(drawn, label, header=line < HEADER_LINES)
            self._strips[line] = strip
        return strip

    def _forget_box(self, h: HexId) -> None:
        """Drop the cached lines of hex ``h``'s box (its brackets are on them too) and
        repaint them."""
        line, _ = self.frame.origin(h)
        height = self.frame.shape.height
        for y in range(line, line + height):
            self._strips.pop(y, None)
        self.refresh_lines(line, height)

    def render_line(self, y: int) -> Strip:
        """Screen line ``y``: the pinned column numbers, or the map line under it, each as
        the pinned row numbers plus the visible stretch of the line."""
        scroll_x, scroll_y = self.scroll_offset
        width = self.size.width  # Textual trims whatever a scrollbar covers
        if y < HEADER_LINES:
            # Drawn for the window, not cropped from the map: a number whose column is half
            # scrolled off moves onto the visible part instead of showing cut ("2" for 02).
            text = self.frame.pinned_header(scroll_x, max(0, width - LABEL_WIDTH))[y]
            label = self.get_component_rich_style("hexmap--label")
            return Strip([Segment(text, label)], len(text))
        strip = self._map_strip(y + scroll_y)
        start = LABEL_WIDTH + scroll_x
        body = strip.crop(start, start + max(0, width - LABEL_WIDTH))
        return Strip.join([strip.crop(0, LABEL_WIDTH), body])

    def notify_style_update(self) -> None:
        """A theme or CSS change restyles the labels: the cached strips hold the old one."""
        self._strips.clear()
        super().notify_style_update()

    # --- following the cursor ---------------------------------------------------------------

    def scroll_to_cursor(self, *, center: bool = False) -> None:
        """Scroll (no animation: it must keep up with key repeat over SSH) so the cursor box,
        its brackets and a margin of neighbouring hexes are visible below and right of the
        pinned labels; ``center`` puts it mid-window (after a jump or a zoom)."""
        window = self.scrollable_content_region.size
        if window.width <= LABEL_WIDTH or window.height <= HEADER_LINES:
            return
        frame = self.frame
        shape = frame.shape
        line, x = frame.origin(self.cursor)
        x_margin, y_margin = 1 + shape.pitch, shape.height
        left, right = x - x_margin, x + shape.width + x_margin
        top, bottom = line - y_margin, line + shape.height + y_margin
        if right - left > window.width - LABEL_WIDTH:
            left, right = x - 1, x + shape.width + 1
        if bottom - top > window.height - HEADER_LINES:
            top, bottom = line, line + shape.height
        scroll_x, scroll_y = self.scroll_offset
        self.scroll_to(
            follow(scroll_x, window.width, LABEL_WIDTH, left, right, center=center),
            follow(scroll_y, window.height, HEADER_LINES, top, bottom, center=center),
            animate=False,
        )

    def on_mount(self) -> None:
        self.call_after_refresh(self.scroll_to_cursor, center=True)

    def on_resize(self) -> None:
        self.call_after_refresh(self.scroll_to_cursor)

    # --- intent up ------------------------------------------------------------------------

    def action_move(self, dcol: int, drow: int) -> None:
        self.cursor = stepped(self.cursor, dcol, drow, self._cols, self._rows)

    def action_choose(self) -> None:
        self.post_message(self.HexChosen(self.cursor, self))

    def action_toggle_detail(self) -> None:
        self.detail = "detailed" if self.detail == "compact" else "compact"

    def action_goto(self) -> None:
        """Ask for a hex id in a small dialog; a valid answer moves the cursor there."""
        dialog = GotoDialog(self._cols, self._rows, current=self.cursor)
        self.app.push_screen(dialog, self._went_to)

    def _went_to(self, h: HexId | None) -> None:
        if h is not None:
            self.goto(h)

    def hex_at_screen(self, x: int, y: int) -> HexId | None:
        """The hex drawn at content offset (``x``, ``y``) of the widget, pinned labels and
        scrolling accounted for; None over labels and gaps."""
        scroll_x, scroll_y = self.scroll_offset
        if x < LABEL_WIDTH or y < HEADER_LINES:
            return None
        return self.frame.hex_at(y + scroll_y, x + scroll_x)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        h = self.hex_at_screen(offset.x, offset.y)
        if h is None:
            return
        self.cursor = h
        if event.chain >= 2:
            self.post_message(self.HexChosen(h, self))


__all__ = ["DEFAULT_CURSOR", "HexMap", "follow", "stepped", "styled_strip"]
