"""Where each hex of a rectangular region lands in a text grid: the map's geometry, no drawing.

Kept apart from the drawing (`tui.maptext`) because two renderers share it: the plain-text
map of the command line draws whole frames, and the Textual map widget (line API,
``render_line(y)``) asks for one line at a time, and only for the lines on screen, so the
full 61x19 map with hundreds of counters scrolls without drawing what nobody sees.

Hex ids are ``XXYY`` (column = ``h // 100``, row = ``h % 100``), whatever digits a ruleset
writes them with (`Grid` says which columns exist). In F&E, and by default, ODD columns sit
half a hex HIGHER than even ones; a board whose even columns sit higher (``Grid.odd_high``
False) is drawn the same way with the parities swapped: the pictures below then read with
"odd" and "even" exchanged. The text layout is a checkerboard of hex boxes: each hex is a box
``width`` characters wide and ``height`` lines tall; columns advance ``pitch`` characters;
rows advance ``2 * height`` lines and even columns start ``height`` lines below odd ones (the
half hex). Two columns side by side are never on the same text line, so a box can be wider
than the pitch (``pitch <= width < 2 * pitch``) and overlap its neighbour columns
horizontally: that is what makes the six neighbours touch. Compact (3x1 boxes, pitch 2;
``aaa`` is hex 0101, ``bbb`` 0201, ``ccc`` 0102, ``eee`` 0301)::

       01  03  05       header: odd column numbers on the first line,
         02  04                 even ones a line lower, like their hexes
    01 aaa eee iii
         bbb fff        bbb (0201) overlaps the last character of aaa (0101) and the first
    02 ccc ggg kkk      of eee (0301) on the line above, of ccc (0102) and ggg (0302) on the
         ddd hhh        line below, and sits over ddd (0202): its six neighbours.

Exactly the six neighbours of a hex have a box that overlaps its own box's characters
horizontally and lies at most ``height`` lines above or below it; tests check that on the
drawn text, for both column parities.

Detailed mode uses 7x2 boxes at pitch 4 (the id on the first line, terrain and units on the
second). Column numbers head every band; row numbers sit at the left on the line of the
odd (higher) hex of each row. A scrolling window pins them: `Frame.pinned_header` shifts a
number whose column is half scrolled off so it never shows cut ("2" for 02).

The geometry's records are frozen `msgspec.Struct`s, not dataclasses: the same fields,
equality, hash and repr, but a dataclass writes and compiles its methods when its module is
imported (some 3.5 million instructions a class, before the game screen's first paint;
issue 16), and a frozen one sets each field through ``object.__setattr__``, where
`Frame.on_line` makes a `Placed` for every box of every line drawn.
"""

from __future__ import annotations

from typing import Literal

import msgspec

HexId = int
"""A hex id: column * 100 + row, whatever digits the ruleset writes hexes with (`Grid`)."""

Detail = Literal["compact", "detailed"]

MAX_INDEX = 99
"""The largest column or row number a `HexId` holds (two decimal digits each)."""

LABEL_WIDTH = 3
"""Row numbers at the left: two digits and a space."""

HEADER_LINES = 2
"""Column numbers: odd columns on the first line, even columns on the second."""


def hex_col(h: HexId) -> int:
    return h // 100


def hex_row(h: HexId) -> int:
    return h % 100


def hex_id(col: int, row: int) -> HexId:
    return col * 100 + row


def hex_label(h: HexId) -> str:
    """A hex as players type it: ``"1411"``, ``"0101"``."""
    return f"{hex_col(h):02d}{hex_row(h):02d}"


class Grid(msgspec.Struct, frozen=True):
    """Which hexes a board has: columns ``first_column`` .. ``first_column + columns - 1``
    and rows likewise, and whether the odd columns sit half a hex higher (``odd_high``; the
    even ones otherwise). The drawing's side of a ruleset's ``HexGrid`` (`tui.maptext`
    converts one), kept free of the engine so the geometry stays testable on its own."""

    columns: int
    rows: int
    first_column: int = 1
    first_row: int = 1
    odd_high: bool = True

    def __post_init__(self) -> None:
        if self.columns < 1 or self.rows < 1 or self.first_column < 0 or self.first_row < 0:
            raise ValueError(f"a board of {self.columns}x{self.rows} hexes cannot be drawn")
        if self.last_column > MAX_INDEX or self.last_row > MAX_INDEX:
            raise ValueError(
                f"a board up to column {self.last_column}, row {self.last_row}: the map draws "
                f"column and row numbers up to {MAX_INDEX}"
            )

    @property
    def last_column(self) -> int:
        return self.first_column + self.columns - 1

    @property
    def last_row(self) -> int:
        return self.first_row + self.rows - 1

    @property
    def size(self) -> str:
        """The board in words for messages: ``"the 61x19 map"``."""
        return f"the {self.columns}x{self.rows} map"

    def contains(self, h: HexId) -> bool:
        col, row = divmod(h, 100)  # hex_col, hex_row: asked for every hex a map reads
        return 0 <= col - self.first_column < self.columns and 0 <= row - self.first_row < self.rows

    def clamp(self, col: int, row: int) -> HexId:
        """The hex nearest to column ``col``, row ``row`` on the board."""
        col = min(max(col, self.first_column), self.last_column)
        row = min(max(row, self.first_row), self.last_row)
        return hex_id(col, row)

    @property
    def first(self) -> HexId:
        return hex_id(self.first_column, self.first_row)

    @property
    def last(self) -> HexId:
        return hex_id(self.last_column, self.last_row)


class Shape(msgspec.Struct, frozen=True):
    """The size of one hex box in text: ``width`` x ``height`` characters, columns ``pitch``
    characters apart. ``width < 2 * pitch`` keeps two hexes of one text line apart (the gap
    also holds the plain-text cursor brackets); ``width >= pitch`` makes neighbours touch.
    ``detail`` names what the drawing puts in the box."""

    detail: Detail
    pitch: int
    width: int
    height: int

    def __post_init__(self) -> None:
        if not self.pitch <= self.width < 2 * self.pitch or self.height < 1:
            raise ValueError(f"unusable hex box {self}: need pitch <= width < 2 * pitch")


SHAPES: dict[str, Shape] = {
    "compact": Shape("compact", pitch=2, width=3, height=1),
    "detailed": Shape("detailed", pitch=4, width=7, height=2),
}


def shape_for(detail: str) -> Shape:
    try:
        return SHAPES[detail]
    except KeyError:
        raise ValueError(f"detail {detail!r}: use 'compact' or 'detailed'") from None


class Placed(msgspec.Struct, frozen=True):
    """One hex box crossing one text line: the box starts at character ``x`` and this line
    is its ``part``-th line (0 = top)."""

    x: int
    hex: HexId
    part: int


class Frame(msgspec.Struct, frozen=True):
    """A rectangle of hexes (columns ``col0..col1``, rows ``row0..row1``, inclusive) laid out
    as text: ``HEADER_LINES`` of column numbers, then the body. Lines are numbered from the
    top of the frame (header included); characters from its left edge (row labels included).
    """

    col0: int
    col1: int
    row0: int
    row1: int
    shape: Shape
    odd_high: bool = True
    """Odd columns sit half a hex higher (F&E's maps); False: the even ones do."""

    def __post_init__(self) -> None:
        if self.col0 > self.col1 or self.row0 > self.row1:
            raise ValueError(f"empty frame {self}")

    def high(self, col: int) -> bool:
        """Whether column ``col`` sits half a hex higher than its neighbours."""
        return col % 2 == (1 if self.odd_high else 0)

    @property
    def columns(self) -> range:
        return range(self.col0, self.col1 + 1)

    @property
    def rows(self) -> range:
        return range(self.row0, self.row1 + 1)

    @property
    def width(self) -> int:
        """Characters per line, counting one character right of the last box for a cursor."""
        return LABEL_WIDTH + (self.col1 - self.col0) * self.shape.pitch + self.shape.width + 1

    @property
    def height(self) -> int:
        return HEADER_LINES + len(self.rows) * 2 * self.shape.height

    def column_x(self, col: int) -> int:
        return LABEL_WIDTH + (col - self.col0) * self.shape.pitch

    def origin(self, h: HexId) -> tuple[int, int]:
        """(line, x) of the top-left character of hex ``h``'s box."""
        if not self.contains(h):
            raise ValueError(f"hex {h:04d} is outside {self}")
        col, row = hex_col(h), hex_row(h)
        half = 0 if self.high(col) else self.shape.height
        line = HEADER_LINES + (row - self.row0) * 2 * self.shape.height + half
        return line, self.column_x(col)

    def hexes(self) -> list[HexId]:
        """Every hex of the frame, column by column."""
        return [hex_id(c, r) for c in self.columns for r in self.rows]

    def on_line(self, y: int, window: tuple[int, int] | None = None) -> list[Placed]:
        """The hex boxes crossing body line ``y``, left to right (empty for header lines):
        all of one column parity, all of one row. This is what ``render_line`` needs.
        ``window`` (characters ``start`` to ``end``, exclusive) keeps the boxes whose
        characters or cursor brackets (one character either side) reach into it."""
        body = y - HEADER_LINES
        if body < 0 or y >= self.height:
            return []
        h = self.shape.height
        block, offset = divmod(body, 2 * h)
        row = self.row0 + block
        columns = self.columns if window is None else self.columns_reaching(*window)
        return [
            Placed(self.column_x(c), hex_id(c, row), offset % h)
            for c in columns
            if self.high(c) == (offset < h)
        ]

    def cut_at(self, y: int, x: int) -> int:
        """How many characters from ``x`` on line ``y`` belong to a box that starts left of
        ``x`` (0 when none does): what a view starting at ``x`` shows of a box cut in two."""
        width = self.shape.width
        for placed in self.on_line(y, (x, x + 1)):
            if placed.x < x < placed.x + width:
                return placed.x + width - x
        return 0

    def columns_reaching(self, start: int, end: int) -> range:
        """The columns whose boxes, with a bracket either side, reach into characters
        ``start..end`` (exclusive): box ``x..x + width - 1`` with brackets at ``x - 1`` and
        ``x + width``, so ``start - width <= x <= end``."""
        pitch, width = self.shape.pitch, self.shape.width
        first = self.col0 - ((LABEL_WIDTH + width - start) // pitch)  # the ceiling
        last = self.col0 + (end - LABEL_WIDTH) // pitch
        return range(max(self.col0, first), min(self.col1, last) + 1)

    def contains(self, h: HexId) -> bool:
        col, row = divmod(h, 100)
        return self.col0 <= col <= self.col1 and self.row0 <= row <= self.row1

    def hex_at(self, y: int, x: int) -> HexId | None:
        """The hex whose box covers character ``x`` of line ``y`` (a mouse click), if any."""
        for placed in self.on_line(y):
            if placed.x <= x < placed.x + self.shape.width:
                return placed.hex
        return None

    def header(self) -> list[str]:
        """The column-number lines: each number sits over the left of its column's boxes."""
        lines: list[list[str]] = [[" "] * self.width for _ in range(HEADER_LINES)]
        for c in self.columns:
            x = self.column_x(c)
            lines[0 if self.high(c) else 1][x : x + 2] = f"{c:02d}"
        return ["".join(line) for line in lines]

    def pinned_header(self, scroll: int, width: int) -> list[str]:
        """The column-number lines of a window showing ``width`` map characters from
        ``scroll`` characters right of the first column, under the pinned row-label blank:
        each ``LABEL_WIDTH + width`` characters. A number is shown whole or not at all: one
        its box's left part scrolled off is moved right onto the visible part (as long as it
        keeps a gap before the next number of its line), one cut at the right is left out."""
        lines: list[list[str]] = [[" "] * width for _ in range(HEADER_LINES)]
        for c in self.columns:
            x = self.column_x(c) - LABEL_WIDTH - scroll
            if x < 0 and x + 2 * self.shape.pitch >= 3 and x + self.shape.width > 0:
                x = 0
            if x >= 0 and x + 2 <= width:
                lines[0 if self.high(c) else 1][x : x + 2] = f"{c:02d}"
        return [" " * LABEL_WIDTH + "".join(line) for line in lines]

    def row_label(self, y: int) -> str:
        """``"07 "`` on the line of row 7's higher hexes, blanks elsewhere."""
        body = y - HEADER_LINES
        if body >= 0 and body % (2 * self.shape.height) == 0:
            return f"{self.row0 + body // (2 * self.shape.height):02d} "
        return " " * LABEL_WIDTH


def band_frames(frame: Frame, width: int) -> list[Frame]:
    """Split ``frame``'s columns into bands that each fit in ``width`` characters.

    The bands are as even as possible (61 compact columns become 31 + 30, not 37 + 24):
    the halves of a printed map then look alike.
    """
    col0, col1, shape = frame.col0, frame.col1, frame.shape
    fixed = LABEL_WIDTH + shape.width + 1
    if width < fixed:
        raise ValueError(f"width {width}: a map needs at least {fixed} characters")
    most = 1 + (width - fixed) // shape.pitch
    total = col1 - col0 + 1
    count = -(-total // most)
    base, extra = divmod(total, count)
    frames = []
    start = col0
    for i in range(count):
        size = base + (1 if i < extra else 0)
        frames.append(Frame(start, start + size - 1, frame.row0, frame.row1, shape, frame.odd_high))
        start += size
    return frames


# --- scrolling ------------------------------------------------------------------------------


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


def whole_columns(scroll: int, pitch: int, window: int, lo: int, hi: int) -> int:
    """``scroll`` moved to a whole pair of columns (``2 * pitch`` characters), as the map
    lies unscrolled: scrolled by part of one, the boxes cut at the left edge show their
    last characters beside the row numbers ("11 18 Y" for a Y18 in 0111). Down if the
    cursor box and its brackets (``lo..hi``) stay in view, else up, else as it was."""
    step = 2 * pitch
    down = scroll - scroll % step
    for target in (down, down + step):
        if target + LABEL_WIDTH <= lo and hi <= target + window:
            return target
    return scroll
