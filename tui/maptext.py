"""A ruleset's hex map as plain text (and style spans): the drawing the Textual map widget reuses.

Pure: no Textual, no I/O, no ruleset. The geometry (which hex lands where) lives in
`tui.mapgeom`; this module decides what each hex's box says, from a `Cell` per hex given by
any ``cell_for(hex)`` callable: `draw` / `draw_styled` / `render_line`, `legend`, for any
rectangular hex grid. Where the cells come from is `tui.mapsheet`: a ruleset's printed map
(`engine.core.face.MapSheet`) and its board now (`Board`), which it also draws whole for
``hexpost show --map`` (`tui.mapsheet.render_sheet`). The game's pieces arrive as stacks of
counters (`tui.mapstacks`: ``K4*`` four Klingon units, one crippled).

What a hex's box says (monochrome must be readable, so the characters carry the meaning and
colour only helps). The terrain is three characters: the owner, then the marks of what the
hex holds, packed left (``K@#`` Klingon capital with bases, ``Zo`` Kzinti minor planet,
``F#`` Federation base, ``:o`` neutral-zone planet):

====== ===============================================================================
slot   glyphs
====== ===============================================================================
owner  the side's glyph (`SideStyle.glyph`), ``:`` a neutral zone, ``.`` unowned space;
       in lower case (``z@#``) a captured hex, held by that side, not its printed owner
planet ``@`` capital, ``O`` major planet, ``o`` minor planet (the biggest one shown)
base   ``#`` a base
====== ===============================================================================

`tui.mapsheet` says which words of the ruleset's face become which marks.

Compact boxes (3x1) show the terrain, or the units' marker (``K3``, ``F1*``: up to three
characters, chosen by the caller) when there are units: counters cover the paper map too.
Detailed boxes (7x2) show the hex id on the first line and ``terrain units`` on the second::

    compact   K@#          detailed   1411
                                      K@# K3

The cursor is drawn as brackets in the gaps around its box (``[K@#]``) in plain text and as
reverse video in the styles. A battle hex says so in its units' marker (``KZx``,
`tui.mapstacks.battle_marker`) and in its style (bold white on dark red); a captured hex is
in its captor's colours, in italics; a neutral zone in grey.

Styles for a Textual renderer: `draw_styled` and `render_line` return `StyledLine`s, the
full-width text plus `Span`s ``(start, end, style)`` where ``style`` is a Rich style string
(``"bold #ffffff on #000000 reverse"``). A widget builds one `Frame` for the whole map
(``map_frame(grid, detail=...)``); its ``render_line(y)`` calls
``render_line(frame, y + scroll_y, cell_for)``, turns each span into
``Segment(text[start:end], Style.parse(style))`` (the gaps between spans as plain segments)
and crops the `Strip` to the visible columns; `Frame.origin` (hex to box) and `Frame.hex_at`
(click to hex) serve the cursor and the mouse. Nothing here imports Rich: the string is the
contract (a test builds the Strip).
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import NamedTuple

import msgspec

from tui.mapgeom import (
    HEADER_LINES,
    LABEL_WIDTH,
    Detail,
    Frame,
    Grid,
    HexId,
    Shape,
    band_frames,
    hex_col,
    hex_row,
    shape_for,
)

UNOWNED = "."
NEUTRAL = ":"
CAPITAL = "@"
MAJOR = "O"
MINOR = "o"
BASE = "#"
CONTENT_WIDTH = 3
NBSP = "\u00a0"
BATTLE_COLOR = "#aa0000"
BATTLE_TEXT = "#ffffff"


class Cell(msgspec.Struct, frozen=True):
    """What one hex shows. ``glyph`` is the owner's glyph (``""`` for none: the box then
    shows ``:`` in a neutral zone and ``.`` elsewhere); ``content`` the units' marker, at
    most three characters, chosen by the caller.

    ``color`` and ``text_color`` only feed the styles: the owner's counter colours (Klingon
    white on black, Lyran green on yellow...). They are used as background and text
    together, never the primary alone as text colour: black Klingon letters would vanish on
    a black terminal.

    A frozen `msgspec.Struct` (`msgspec.structs.replace` makes a changed copy): it is
    defined without the methods a dataclass compiles at import, and the few hundred cells of
    the game screen's first paint are built in C (issue 16).
    """

    hex: HexId
    glyph: str = ""
    color: str | None = None
    text_color: str | None = None
    content: str = ""
    minor_planet: bool = False
    major_planet: bool = False
    capital: bool = False
    base: bool = False
    neutral: bool = False
    selected: bool = False
    planned: bool = False
    """The content is a what-if (`tui.mapstacks.plan_markers`): underlined where styles
    show, and the ``~`` of the marker says it in monochrome."""
    captured: bool = False
    """``glyph`` is the captor's, not the printed owner's: the owner slot shows it in lower
    case."""
    battle: bool = False
    """A battle hex now: styled apart; the marker's ``x`` says it in monochrome."""
    target: bool = False
    """A hex the order being written may go to (`engine.core.face.Destinations`): drawn
    between braces, ``{K3 }``, which read in monochrome too; two side by side share a
    ``|``; the cursor's brackets win where they meet."""

    def __post_init__(self) -> None:
        if len(self.glyph) > 1 or self.glyph.isspace():
            raise ValueError(f"hex {self.hex:04d}: glyph {self.glyph!r} must be one character")
        if len(self.content) > CONTENT_WIDTH or "\n" in self.content:
            raise ValueError(
                f"hex {self.hex:04d}: content {self.content!r} is longer than "
                f"{CONTENT_WIDTH} characters"
            )

    @property
    def owner(self) -> str:
        """The owner slot: the glyph (in lower case when captured), or the neutral-zone or
        empty-space mark."""
        if self.glyph:
            return self.glyph.lower() if self.captured else self.glyph
        return NEUTRAL if self.neutral else UNOWNED

    @property
    def planet(self) -> str:
        """The planet mark: the most important planet of the hex, or ``""``."""
        if self.capital:
            return CAPITAL
        if self.major_planet:
            return MAJOR
        if self.minor_planet:
            return MINOR
        return ""

    @property
    def terrain(self) -> str:
        """Three characters: the owner, then the planet and base marks packed left (``K@#``,
        ``Ko``, ``K#``): a lone ``#`` after a blank would float between two hexes."""
        return (self.owner + self.planet + (BASE if self.base else "")).ljust(3)

    @property
    def style(self) -> str:
        """A Rich style string for the box ("" for none)."""
        parts = ["bold"] if self.capital or self.battle else []
        if self.battle:
            parts += [BATTLE_TEXT, "on", BATTLE_COLOR]
        elif self.color and self.text_color:
            parts += [self.text_color, "on", self.color]
        elif self.color:
            parts.append(self.color)
        if self.captured:
            parts.append("italic")
        if self.planned:
            parts.append("underline")
        if self.selected:
            parts.append("reverse")
        elif self.target:
            parts.append("bold")
        return " ".join(parts)

    def box(self, shape: Shape) -> list[str]:
        """The box's lines, each exactly ``shape.width`` characters."""
        if shape.detail == "compact":
            lines = [self.content or self.terrain]
        else:
            lines = [f"{self.hex:04d}", f"{self.terrain} {self.content}"]
        return [line.ljust(shape.width) for line in lines]


CellFor = Callable[[HexId], Cell | None]
"""Returns the cell of a hex, or None for a hex that is not on the map (left blank)."""


class Span(NamedTuple):
    """Characters ``start`` to ``end`` (exclusive) of a line share ``style`` (Rich syntax)."""

    start: int
    end: int
    style: str


class StyledLine(NamedTuple):
    """One text line at the frame's full width, and its styled spans, left to right."""

    text: str
    spans: tuple[Span, ...]


# --- drawing ------------------------------------------------------------------------------


def render_line(
    frame: Frame, y: int, cell_for: CellFor, window: tuple[int, int] | None = None
) -> StyledLine:
    """Line ``y`` of ``frame`` (0 = first header line): the unit a line-API widget draws.
    Lines outside the frame are blank, so a widget taller than the map needs no care.

    ``window`` (characters ``start`` to ``end``, exclusive) draws only the boxes (and the
    cursor's brackets) reaching into it: the line keeps its full width and its row label,
    and characters ``start..end`` are those of the whole line, the rest blank. A widget
    showing a quarter of the map's width asks for no more (issue 16: the game screen's first
    paint drew every hex of each line on screen)."""
    if not 0 <= y < frame.height:
        return StyledLine(" " * frame.width, ())
    if y < HEADER_LINES:
        return StyledLine(frame.header()[y], ())
    chars = [" "] * frame.width
    chars[:LABEL_WIDTH] = frame.row_label(y)
    spans: list[Span] = []
    first, last = window if window is not None else (0, frame.width)
    reach = frame.shape.width + 1  # a box and the bracket after it
    for placed in frame.on_line(y, window):
        if placed.x + reach <= first or placed.x - 1 >= last:
            continue  # neither the box nor its brackets reach into the window
        cell = cell_for(placed.hex)
        if cell is None:
            continue
        text = cell.box(frame.shape)[placed.part]
        x, end = placed.x, placed.x + len(text)
        chars[x:end] = text
        if cell.selected:  # the cursor's brackets win over a target's braces beside it
            chars[x - 1] = "|" if chars[x - 1] == "]" else "["
            chars[end] = "]"
        elif cell.target:
            if chars[x - 1] != "]":
                chars[x - 1] = "|" if chars[x - 1] == "}" else "{"
            chars[end] = "}"
        style = cell.style
        if style:
            spans.append(Span(x, end, style))
    return StyledLine("".join(chars), tuple(spans))


def draw_frame(frame: Frame, cell_for: CellFor) -> list[StyledLine]:
    return [render_line(frame, y, cell_for) for y in range(frame.height)]


def map_frame(
    grid: Grid, *, region: tuple[HexId, HexId] | None = None, detail: Detail = "compact"
) -> Frame:
    """The frame of ``region`` (two corner hexes, any order) on ``grid``, or of the whole
    board."""
    if region is None:
        region = (grid.first, grid.last)
    for h in region:
        if not grid.contains(h):
            raise ValueError(f"hex {h:04d} is off {grid.size}")
    a, b = region
    cols = sorted((hex_col(a), hex_col(b)))
    rows = sorted((hex_row(a), hex_row(b)))
    return Frame(cols[0], cols[1], rows[0], rows[1], shape_for(detail), grid.odd_high)


def draw_styled(
    grid: Grid,
    cell_for: CellFor,
    *,
    region: tuple[HexId, HexId] | None = None,
    detail: Detail = "compact",
) -> list[StyledLine]:
    """`draw` with styles: full-width lines (trailing blanks kept) and their spans."""
    return draw_frame(map_frame(grid, region=region, detail=detail), cell_for)


def draw(
    grid: Grid,
    cell_for: CellFor,
    *,
    region: tuple[HexId, HexId] | None = None,
    detail: Detail = "compact",
) -> list[str]:
    """The board of ``grid`` (or ``region`` of it) as plain text lines, column numbers on
    top, trailing blanks removed. One frame, however wide: callers that must fit a width
    split it with `draw_bands`."""
    lines = draw_styled(grid, cell_for, region=region, detail=detail)
    return [line.text.rstrip() for line in lines]


def draw_bands(frame: Frame, cell_for: CellFor, width: int = 80) -> tuple[list[str], list[Frame]]:
    """``frame`` cut into bands of whole columns at most ``width`` characters wide, a blank
    line between bands; returns the lines and the bands' frames."""
    bands = band_frames(frame, width)
    lines: list[str] = []
    for band in bands:
        if lines:
            lines.append("")
        lines.extend(line.text.rstrip() for line in draw_frame(band, cell_for))
    return lines, bands


# --- legend -------------------------------------------------------------------------------


def legend_entries(
    cells: Iterable[Cell],
    owners: Mapping[str, str] | None = None,
    detail: Detail = "compact",
    units: Sequence[tuple[str, str]] = (),
) -> list[tuple[str, list[tuple[str, str]]]]:
    """The glyphs ``cells`` use, by slot: ``[(slot, [(glyph, meaning), ...]), ...]``.

    Only glyphs that appear are listed, so a legend under a small region stays short;
    ``owners`` names the owner letters (glyph -> name). ``units`` explains the markers when
    the caller knows what they mean (`tui.mapstacks.stack_legend`); otherwise one marker
    stands for all.
    """
    owners = owners or {}
    seen_owner: set[str] = set()
    seen: set[str] = set()
    marker = ""
    for cell in cells:
        seen_owner.add(cell.owner)
        if cell.planet:
            seen.add(cell.planet)
        if cell.base:
            seen.add(BASE)
        marker = marker or cell.content
        if cell.selected:
            seen.add("cursor")
        if cell.target:
            seen.add("target")
    letters = sorted(seen_owner - {NEUTRAL, UNOWNED})
    owner = [(g, owners.get(g, "owner")) for g in letters if not g.islower()]
    owner += [
        (g, f"captured by {owners.get(g.upper(), 'another')}") for g in letters if g.islower()
    ]
    owner += [
        (g, m) for g, m in ((NEUTRAL, "neutral zone"), (UNOWNED, "unowned")) if g in seen_owner
    ]
    planet = [
        (g, m)
        for g, m in ((CAPITAL, "capital"), (MAJOR, "major planet"), (MINOR, "minor planet"))
        if g in seen
    ]
    slots = [("owner", owner), ("planet", planet)]
    if BASE in seen:
        slots.append(("base", [(BASE, "base")]))
    if marker and units:
        slots.append(("units", list(units)))
    elif marker:
        hides = " (it hides the terrain)" if detail == "compact" else ""
        slots.append(("units", [(marker, f"the units' marker{hides}")]))
    marks = [("[ ]", "the selected hex")] if "cursor" in seen else []
    if "target" in seen:
        marks.append(("{ }", "where the order being written may go"))
    if marks:
        slots.append(("cursor", marks))
    return [(slot, entries) for slot, entries in slots if entries]


def legend(
    cells: Iterable[Cell],
    owners: Mapping[str, str] | None = None,
    *,
    detail: Detail = "compact",
    width: int = 80,
    units: Sequence[tuple[str, str]] = (),
    odd_high: bool = True,
) -> list[str]:
    """Lines (each at most ``width`` characters) saying what every glyph of ``cells`` means
    and how to read the layout (``odd_high``: which columns sit higher, `Grid.odd_high`);
    ``units`` as for `legend_entries`."""
    if detail == "compact":
        head = "Each hex: its owner, then planet and base marks (units replace them)."
    else:
        head = "Each hex: its id, then its owner, planet and base marks, and its units."
    lines = textwrap.wrap(head, width)
    entries_by_slot = legend_entries(cells, owners, detail, units)
    for slot, entries in entries_by_slot:
        # Non-breaking spaces keep "o minor planet" on one line; an entry longer than a
        # whole line still wraps (textwrap breaks it), so no line outgrows ``width``.
        items = "  ".join(f"{glyph} {meaning}".replace(" ", NBSP) for glyph, meaning in entries)
        wrapped = textwrap.wrap(
            items, width, initial_indent=f"  {slot + ':':8}", subsequent_indent=" " * 10
        )
        for i, line in enumerate(wrapped):
            text = line.replace(NBSP, " ")
            lines.append(text if i == 0 else " " * 10 + text[10:].lstrip())
    if units and any(slot == "units" for slot, _ in entries_by_slot):
        hides = ", and a stack hides the terrain" if detail == "compact" else ""
        lines += textwrap.wrap(f"Stacks leave out bases (the terrain's {BASE}){hides}.", width)
    higher = "Odd" if odd_high else "Even"
    lines += textwrap.wrap(
        f"{higher} columns sit half a hex higher: a hex touches the hexes above and below it "
        "and the two nearest hexes of each neighbouring column. Row numbers at the left.",
        width,
    )
    return lines


# --- regions ----------------------------------------------------------------------------


_REGION = r"\s*(\d{4})\s*:\s*(\d{4})\s*"
"""Compiled (and cached by `re`) when a region is first read, not for every map's import."""


def parse_region(text: str, grid: Grid) -> tuple[HexId, HexId]:
    """``"XXYY:XXYY"`` (two corner hexes, any order) checked against the grid."""
    match = re.fullmatch(_REGION, text)
    if match is None:
        raise ValueError(f"region {text!r}: give two corner hexes as XXYY:XXYY, e.g. 1005:2012")
    corners = (int(match[1]), int(match[2]))
    size = grid.size
    for h in corners:
        if not grid.first_column <= hex_col(h) <= grid.last_column:
            raise ValueError(f"region {text.strip()}: column {hex_col(h):02d} is off {size}")
    for h in corners:
        if not grid.first_row <= hex_row(h) <= grid.last_row:
            raise ValueError(f"region {text.strip()}: row {hex_row(h):02d} is off {size}")
    return corners
