"""A ruleset's hex map as a Textual widget: the whole board, a hex cursor, stacks of counters.

`HexMap` draws with the line API (`ScrollView.render_line`): Textual asks only for the lines
on screen, and each is cropped to the visible columns, so the full map with every unit of
The Wind scrolls over SSH without drawing what nobody sees. The drawing itself is
`tui.mapsheet` (the face's words as glyphs) and `tui.maptext` (what a hex box says) on
`tui.mapgeom` (where it lands), the same code as ``hexpost show --map``, so the widget and
the printed map cannot disagree.

What it costs per key press: the `Frame` is built once per detail level, each hex's `Cell`
once per `show_board`, and each map line's `Strip` once until something on it changes (a
cursor move redraws only the lines of the old and the new cursor box) or the view scrolls
half a window sideways (a line is drawn for the window on screen and half its width either
side, not the whole map's width). A repaint then crops cached strips.

Data down, intent up: the screen hands it the ruleset's printed map (a `MapSheet`, which it
asks the services for: `tui.services.board`) and the board now (a `Board`, from the game's
record) with `HexMap.show_board`; the widget posts `HexMap.CursorMoved` and
`HexMap.HexChosen` and never calls the engine, the store or the network. It knows no game:
the grid's size and numbering, the sides' glyphs and colours, all come with the sheet. A
game without a sheet gets an empty widget (no hexes, no cursor moves).

The column numbers (top two lines) and the row numbers (left three characters) stay pinned
while the map scrolls: in an 80x24 terminal most of the map is off screen, and a player who
cannot read coordinates is lost. Everything else follows the scroll offsets.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from functools import lru_cache
from typing import ClassVar

import msgspec
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui.mapgeom import (
    HEADER_LINES,
    LABEL_WIDTH,
    Detail,
    Frame,
    Grid,
    HexId,
    follow,
    hex_col,
    hex_row,
    whole_columns,
)
from tui.mapsheet import (
    BoardMarks,
    SheetIndex,
    board_marks,
    changed_hexes,
    marks_cells,
    start_hex,
)
from tui.mapstacks import plan_markers
from tui.maptext import Cell, CellFor, StyledLine, map_frame, render_line
from tui.services.board import Board, MapCell, MapSheet
from tui.widgets.scrollbars import settle_scrollbars

NO_GRID = Grid(1, 1)
"""The stand-in grid of a map shown without a sheet: nothing on it is drawn."""

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


def stepped(h: HexId, dcol: int, drow: int, grid: Grid) -> HexId:
    """The hex ``dcol`` columns and ``drow`` rows away from ``h``, held inside ``grid``: a
    cursor pushed against an edge stays on it."""
    return grid.clamp(hex_col(h) + dcol, hex_row(h) + drow)


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

    _sized = False
    """Whether the map has had a real size yet (its first one centres the cursor)."""
    _centre_due = False
    """A new sheet was shown: centre the cursor at the next layout that can scroll the map."""

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

    cursor: reactive[HexId] = reactive(NO_GRID.first, repaint=False)
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
        sheet: MapSheet | None = None,
        board: Board | None = None,
        *,
        cursor: HexId | None = None,
        detail: Detail = "compact",
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
        disabled: bool = False,
    ) -> None:
        """``sheet`` is the printed map (None: nothing to draw until `show_board` brings
        one); ``board`` the board on it (None: the bare printed map); ``cursor`` the starting
        hex (None: `tui.mapsheet.start_hex`)."""
        super().__init__(name=name, id=id, classes=classes, disabled=disabled)
        self._index: SheetIndex | None = None
        self._grid = NO_GRID
        self._frames: dict[str, Frame] = {}
        self._cells: dict[HexId, Cell | None] = {}
        self._strips: dict[int, tuple[int, int, Strip]] = {}
        """Each map line drawn, with the characters drawn in it (``start``, ``end``)."""
        self._cell_for: CellFor = _nothing
        self._board: Board | None = None
        self._marks: BoardMarks | None = None
        """What the board shown adds to the printed map (None: no board, or no sheet)."""
        self.planned: dict[HexId, str] = {}
        """The what-if markers shown over the board (`show_plan`), by hex; empty for none."""
        self.targets: frozenset[HexId] = frozenset()
        """The hexes the order being written may go to (`show_targets`), drawn in braces."""
        self.set_reactive(HexMap.detail, self.validate_detail(detail))
        self.show_board(board, sheet, cursor=cursor)

    # --- data down ----------------------------------------------------------------------

    @property
    def sheet(self) -> MapSheet | None:
        """The printed map drawn (None: none yet)."""
        return self._index.sheet if self._index is not None else None

    @property
    def printed(self) -> Mapping[HexId, MapCell]:
        """The printed map's cells by hex on its grid, as drawn (empty without a sheet):
        the side panel reads them too (`tui.screens.hexinfo.BoardIndex`)."""
        return self._index.cells if self._index is not None else {}

    @property
    def board(self) -> Board | None:
        """The board drawn on the sheet (None: the bare printed map)."""
        return self._board

    def show_board(
        self, board: Board | None, sheet: MapSheet | None = None, *, cursor: HexId | None = None
    ) -> None:
        """Draw ``board`` (its stacks, bases, captures and battles) on the printed map, or the
        bare printed map for None. ``sheet`` replaces the printed map when given and not the
        one drawn already; the cursor then goes to ``cursor`` or `tui.mapsheet.start_hex`.
        Otherwise the cursor and the scroll position stay where they are. A plan shown over
        the old board is dropped (it was worked out from that board)."""
        new_sheet = False
        if sheet is not None and (self._index is None or sheet is not self._index.sheet):
            new_sheet = True
            self._use_sheet(SheetIndex(sheet), board, cursor)
        elif cursor is not None:
            self.goto(cursor)
        old, index, planned = self._marks, self._index, self.planned
        self._board = board
        self.planned = {}
        if new_sheet or planned or old is None or board is None or index is None:
            self._redraw()
            return
        # The same sheet, no plan: only the hexes whose marks changed are drawn again (a
        # review step, a sync that moved a stack), not every line of the map.
        marks = board_marks(board, index.glyphs)
        changed = changed_hexes(old, marks)
        self._marks, self._cell_for = marks, marks_cells(index, marks)
        for h in changed:
            self._cells.pop(h, None)
            self._forget_box(h)

    def _use_sheet(self, index: SheetIndex, board: Board | None, cursor: HexId | None) -> None:
        grid = index.grid
        if cursor is not None and not grid.contains(cursor):
            raise ValueError(f"hex {cursor:04d} is off {grid.size}")
        self._index, self._grid = index, grid
        self._frames.clear()
        start = cursor if cursor is not None else start_hex(index, board)
        self.virtual_size = Size(self.frame.width, self.frame.height)
        settle_scrollbars(self)  # in the layout the new size asks for, not the one after
        self._centre_due = True
        if self.is_mounted:
            self.cursor = start
            self.call_after_refresh(self.scroll_to_cursor, center=True)
        else:
            self.set_reactive(HexMap.cursor, start)

    def show_plan(self, planned: Board | None) -> None:
        """Show over the board what the draft orders would change: ``planned`` is the
        board after them (None clears the plan). Only the hexes whose stack changes are
        redrawn, with a ``~`` marker (`tui.mapstacks.planned_marker`)."""
        index, board = self._index, self._board
        markers = (
            plan_markers(board, planned, index.glyphs)
            if index is not None and board is not None and planned is not None
            else {}
        )
        if markers != self.planned:
            self.planned = markers
            self._redraw()

    def show_targets(self, hexes: Collection[HexId]) -> None:
        """Mark ``hexes`` as the ones the order being written may go to (empty: none). Only
        the boxes whose mark changes are drawn again."""
        targets = frozenset(h for h in hexes if self.on_map(h))
        if targets == self.targets:
            return
        changed = targets ^ self.targets
        self.targets = targets
        for h in sorted(changed):
            self._forget_box(h)

    def _redraw(self) -> None:
        if self._index is None:
            self._marks, self._cell_for = None, _nothing
        else:
            board = self._board
            self._marks = board_marks(board, self._index.glyphs) if board is not None else None
            self._cell_for = marks_cells(self._index, self._marks, self.planned)
        self._cells.clear()
        self._strips.clear()
        self.refresh()

    def goto(self, h: HexId) -> None:
        """Put the cursor on hex ``h`` and centre the map on it; raises `ValueError` for a
        hex off the map (the dialog refuses those before they get here)."""
        if not self.on_map(h):
            raise ValueError(f"hex {h:04d} is off {self._grid.size}")
        self.cursor = h
        self.scroll_to_cursor(center=True)

    # --- reading --------------------------------------------------------------------------

    @property
    def frame(self) -> Frame:
        """The whole map's layout at the current detail (built once per detail level)."""
        frame = self._frames.get(self.detail)
        if frame is None:
            frame = map_frame(self._grid, detail=self.detail)
            self._frames[self.detail] = frame
        return frame

    @property
    def grid(self) -> Grid:
        """The hexes of the map (a one-hex stand-in while there is no sheet)."""
        return self._grid

    def on_map(self, h: HexId) -> bool:
        return self._index is not None and self._grid.contains(h)

    def cell(self, h: HexId) -> Cell | None:
        """What hex ``h`` shows now (cursor aside), computed once per `show_board`."""
        try:
            return self._cells[h]
        except KeyError:
            cell = self._cells[h] = self._cell_for(h)
            return cell

    # --- reactives ------------------------------------------------------------------------

    def validate_cursor(self, h: HexId) -> HexId:
        """A cursor set off the map lands on the nearest hex of the map's edge."""
        return stepped(h, 0, 0, self._grid)

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
        if self._index is None:
            return
        self.virtual_size = Size(self.frame.width, self.frame.height)
        settle_scrollbars(self)
        self.refresh()
        # Centred now, in the new virtual size, so that a paint before the layout (the
        # screen's update can come first on a busy machine) shows the cursor; and again in
        # the layout the new size asks for, before its paint, in case the scrollbars changed
        # the window: asked only after that paint, the first frame at the new detail showed
        # the map unscrolled, the cursor elsewhere or off it.
        if self.is_mounted:
            self.scroll_to_cursor(center=True)
        self._centre_due = True

    # --- drawing --------------------------------------------------------------------------

    def _drawn_cell(self, h: HexId) -> Cell | None:
        cell = self.cell(h)
        if cell is not None and h == self.cursor:
            return msgspec.structs.replace(cell, selected=True)
        if cell is not None and h in self.targets:
            return msgspec.structs.replace(cell, target=True)
        return cell

    def _map_strip(self, line: int, start: int, end: int) -> Strip:
        """Map line ``line`` at full width with at least characters ``start..end`` drawn,
        kept until something on it changes or the view scrolls past what was drawn.

        Only the window on screen and half its width on either side are drawn: the map is
        some five windows wide at 80x24, and a line drawn whole cost every hex on it before
        the game's first paint (issue 16). A scroll sideways redraws a line once it has
        moved half a window."""
        kept = self._strips.get(line)
        if kept is not None and kept[0] <= start and end <= kept[1]:
            return kept[2]
        margin = (end - start) // 2
        window = (max(0, start - margin), min(self.frame.width, end + margin))
        label = self.get_component_rich_style("hexmap--label")
        drawn = render_line(self.frame, line, self._drawn_cell, window)
        strip = styled_strip(drawn, label, header=line < HEADER_LINES)
        self._strips[line] = (*window, strip)
        return strip

    def _forget_box(self, h: HexId) -> None:
        """Drop the cached lines of hex ``h``'s box (its brackets are on them too) and
        repaint them."""
        if not self.frame.contains(h):
            return  # the cursor of a map shown before this sheet
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
        if self._index is None:
            return Strip.blank(width)
        if y < HEADER_LINES:
            # Drawn for the window, not cropped from the map: a number whose column is half
            # scrolled off moves onto the visible part instead of showing cut ("2" for 02).
            text = self.frame.pinned_header(scroll_x, max(0, width - LABEL_WIDTH))[y]
            label = self.get_component_rich_style("hexmap--label")
            return Strip([Segment(text, label)], len(text))
        start = LABEL_WIDTH + scroll_x
        end = start + max(0, width - LABEL_WIDTH)
        strip = self._map_strip(y + scroll_y, start, end)
        body = strip.crop(start, end)
        cut = self.frame.cut_at(y + scroll_y, start)
        if cut:
            # The end of a box that starts left of the view ("4" of a Y44 beside the row
            # numbers, read as a count of the hex next to it): shown blank, in its colours.
            blank = [Segment(" " * len(s.text), s.style) for s in body.crop(0, cut)]
            body = Strip.join([Strip(blank, cut), body.crop(cut, body.cell_length)])
        return Strip.join([strip.crop(0, LABEL_WIDTH), body])

    def notify_style_update(self) -> None:
        """A theme or CSS change restyles the labels: the cached strips hold the old one."""
        self._strips.clear()
        super().notify_style_update()

    # --- following the cursor ---------------------------------------------------------------

    def cursor_in_view(self) -> bool:
        """Whether the cursor's whole box is on screen, clear of the pinned labels (what a
        player looks for first: the app's first paint and the benches wait for it)."""
        line, x = self.frame.origin(self.cursor)
        shape = self.frame.shape
        left, top = self.scroll_offset
        width, height = self.scrollable_content_region.size
        across = left + LABEL_WIDTH <= x and x + shape.width <= left + width
        return across and top + HEADER_LINES <= line and line + shape.height <= top + height

    def scroll_to_cursor(self, *, center: bool = False) -> None:
        """Scroll (no animation: it must keep up with key repeat over SSH) so the cursor box,
        its brackets and a margin of neighbouring hexes are visible below and right of the
        pinned labels; ``center`` puts it mid-window (after a jump or a zoom). (A
        `ScrollView` scrolls at once: the repaint that shows the cursor's new box shows the
        map scrolled to it.)"""
        window = self.scrollable_content_region.size
        if window.width <= LABEL_WIDTH or window.height <= HEADER_LINES or self._index is None:
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
        across = follow(scroll_x, window.width, LABEL_WIDTH, left, right, center=center)
        self.scroll_to(
            whole_columns(across, shape.pitch, window.width, x - 1, x + shape.width + 1),
            follow(scroll_y, window.height, HEADER_LINES, top, bottom, center=center),
            animate=False,
        )

    def on_mount(self) -> None:
        self.call_after_refresh(self.scroll_to_cursor, center=True)

    def _size_updated(
        self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
    ) -> bool:
        """Textual's hook for a new size, run in the layout before its paint: a sheet shown
        before the map had its size (or its scrollbars) is centred on the cursor here, so
        the first paint with the sheet is already centred. The scroll asked for after the
        refresh (`on_mount`, `on_resize`, `_use_sheet`) came a frame later: that first paint
        showed the map's top left corner, without the cursor (issue 16)."""
        resized = super()._size_updated(size, virtual_size, container_size, layout)
        if self._index is not None and self.size.area:
            window = self.scrollable_content_region.size
            if window.width > LABEL_WIDTH and window.height > HEADER_LINES:
                if self._centre_due:
                    self._centre_due = False
                    self.scroll_to_cursor(center=True)
                elif resized and self._sized:
                    # A panel opened or closed under the map (or the terminal was resized):
                    # the cursor is kept in view in the paint of the new size, not a frame
                    # after it (issue 16, item 5).
                    self.scroll_to_cursor()
        return resized

    def on_resize(self) -> None:
        # The first real size centres the cursor: a jump made before the map had a size
        # (the screen's first record arrives while it is laid out) could not scroll, and a
        # minimal move would leave the map at its top with the cursor merely in view. Later
        # sizes keep it in view in `_size_updated`.
        first = not self._sized
        self._sized = self.size.width > 0 and self.size.height > 0
        if first:
            self.call_after_refresh(self.scroll_to_cursor, center=True)

    # --- intent up ------------------------------------------------------------------------

    def action_move(self, dcol: int, drow: int) -> None:
        if self._index is not None:
            self.cursor = stepped(self.cursor, dcol, drow, self._grid)

    def action_choose(self) -> None:
        self.post_message(self.HexChosen(self.cursor, self))

    def action_toggle_detail(self) -> None:
        self.detail = "detailed" if self.detail == "compact" else "compact"

    def action_goto(self) -> None:
        """Ask for a hex id in a small dialog; a valid answer moves the cursor there."""
        from tui.widgets.goto import GotoDialog  # its dialog and label only when asked for

        if self._index is not None:
            self.app.push_screen(GotoDialog(self._grid, current=self.cursor), self._went_to)

    def _went_to(self, h: HexId | None) -> None:
        if h is not None:
            self.goto(h)

    def hex_at_screen(self, x: int, y: int) -> HexId | None:
        """The hex drawn at content offset (``x``, ``y``) of the widget, pinned labels and
        scrolling accounted for; None over labels and gaps."""
        scroll_x, scroll_y = self.scroll_offset
        if x < LABEL_WIDTH or y < HEADER_LINES or self._index is None:
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


def _nothing(h: HexId) -> Cell | None:
    """The cells of a map without a sheet: none."""
    return None


__all__ = ["HexMap", "follow", "stepped", "styled_strip"]
