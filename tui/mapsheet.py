"""A ruleset's printed map and board, read for the drawing of `tui.maptext`.

The drawing knows hex boxes and glyphs; this module is where the ruleset's face
(`engine.core.face`) becomes those glyphs, for any ruleset: the printed map (`MapSheet`: the
grid, each side's glyph and colours, each hex's owner, zone and features) and the board now
(`Board`: pieces, and places with their owner and marks). Nothing here names a game; what
the words mean:

=================== =================================================================
face                drawn as
=================== =================================================================
side's ``glyph``    the owner slot of its hexes, and the letter of its stacks
``color``,          the box's background and text (both or neither: a black glyph
``text_color``      alone would vanish on a black terminal)
zone ``neutral``    ``:`` in the owner slot, in grey
``capital``,        ``@``, ``O``, ``o`` in the planet slot (the biggest one shown)
``major-planet``,
``minor-planet``
``base`` (sheet)    ``#`` before the game begins, and on a map drawn without a board
place ``base``      ``#``: with a board, the bases it holds now (a destroyed one is gone)
place ``captured``  the owner slot in lower case, in the captor's (the place's owner) colours
place ``battle``    ``x`` in the stack's marker, bold white on dark red
piece marks         ``*`` crippled, ``!`` out of supply (`tui.mapstacks`)
=================== =================================================================

`render_sheet` is what ``hexpost show --map`` prints; the map widget keeps a `SheetIndex`
and asks `board_marks` and `marks_cells` for the ``cell_for`` it draws with (a new board
redraws only the `changed_hexes`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import NamedTuple

from engine.core.face import Board, HexGrid, MapCell, MapSheet, SideStyle
from tui.mapgeom import Detail, Grid, HexId, hex_id
from tui.mapstacks import (
    battle_hexes,
    board_hex,
    captured_owners,
    stack_legend,
    stack_markers,
    stacks_from_board,
)
from tui.maptext import Cell, CellFor, draw_bands, legend, map_frame, parse_region

NEUTRAL_COLOR = "#888888"
NEUTRAL_TEXT = "#000000"
"""A neutral zone's colours (grey, black letters): the zone is nobody's, so no side's."""

NEUTRAL_ZONE = "neutral"
"""The `MapCell.zone` drawn as ``:``."""
FEATURE_CAPITAL = "capital"
FEATURE_MAJOR = "major-planet"
FEATURE_MINOR = "minor-planet"
FEATURE_BASE = "base"


def grid_of(grid: HexGrid) -> Grid:
    """The drawing's `Grid` for a ruleset's ``HexGrid``; `ValueError` for a board past what
    the map draws (column or row numbers over two digits)."""
    if grid.low_columns not in ("odd", "even"):
        raise ValueError(f"low columns {grid.low_columns!r}: the grid says 'odd' or 'even'")
    return Grid(
        grid.columns,
        grid.rows,
        grid.first_column,
        grid.first_row,
        odd_high=grid.low_columns == "even",
    )


class SheetIndex:
    """A `MapSheet` read once for drawing: its grid, each hex's printed cell, each side's
    style by id, and the glyphs and names the markers and the legend use. Built once per
    sheet (a widget keeps it): a sheet holds a cell for most hexes of the board."""

    def __init__(self, sheet: MapSheet) -> None:
        self.sheet = sheet
        self.grid = grid_of(sheet.grid)
        self.cells: dict[HexId, MapCell] = printed_cells(sheet, self.grid)
        self.sides: dict[str, SideStyle] = {side.id: side for side in sheet.sides}
        self.glyphs: dict[str, str] = {s.id: s.glyph for s in sheet.sides if s.glyph}
        """Side id to map glyph, for `tui.mapstacks.stack_markers`."""
        self.owners: dict[str, str] = {
            s.glyph: s.short_name or s.name for s in sheet.sides if s.glyph
        }
        """Map glyph to the side's short name, for the legends."""


def printed_cells(sheet: MapSheet, grid: Grid) -> dict[HexId, MapCell]:
    """The sheet's cells on ``grid``, by hex. A sheet has a cell for most hexes of its map
    (F&E's: 1,159, read before the game screen's first paint), so a two-digit hex is read
    here as `board_hex` and `Grid.contains` read it, without a call to either per cell."""
    digits = sheet.grid.digits
    if digits != 2:
        return {
            h: cell
            for cell in sheet.cells
            if (h := board_hex(cell.hex, digits)) is not None and grid.contains(h)
        }
    col0, row0, columns, rows = grid.first_column, grid.first_row, grid.columns, grid.rows
    cells: dict[HexId, MapCell] = {}
    for cell in sheet.cells:
        text = cell.hex
        if len(text) == 4 and text.isdigit():
            h = int(text)
            col, row = divmod(h, 100)
            if 0 <= col - col0 < columns and 0 <= row - row0 < rows:
                cells[h] = cell
    return cells


def start_hex(index: SheetIndex, board: Board | None = None) -> HexId:
    """Where a map's cursor starts unless the screen says otherwise: the printed capital of
    the first side of the board (of the sheet without a board), else the middle of the map.

    A fixed place, not "the first hex with units", which would change with every board and
    jump about as the game goes on. In F&E's tutorial and The Wind the first side is the
    Klingons: their capital, 1411, is near the middle of the opening front."""
    first = board.sides[0].id if board is not None and board.sides else ""
    if not first and index.sheet.sides:
        first = index.sheet.sides[0].id
    for h, cell in sorted(index.cells.items()):
        if cell.owner == first and FEATURE_CAPITAL in cell.features:
            return h
    grid = index.grid
    return hex_id(grid.first_column + grid.columns // 2, grid.first_row + grid.rows // 2)


class BoardMarks(NamedTuple):
    """What a board adds to the printed map, by hex: the units' markers, the hexes holding
    bases, the captured hexes and their captors, the battle hexes."""

    units: dict[HexId, str]
    bases: set[HexId]
    captured: dict[HexId, str]
    battles: set[HexId]


def board_marks(board: Board, glyphs: Mapping[str, str]) -> BoardMarks:
    """The markers and marks of ``board`` (`tui.mapstacks` reads it); ``glyphs`` maps side
    ids to map glyphs (`SheetIndex.glyphs`)."""
    stacks, bases = stacks_from_board(board)
    battles = battle_hexes(board)
    units = stack_markers(stacks, glyphs, battles)
    return BoardMarks(units, bases, captured_owners(board), battles)


def changed_hexes(old: BoardMarks, new: BoardMarks) -> set[HexId]:
    """The hexes whose cell differs between two boards' marks: a marker, a base, a captor
    or a battle came, went or changed there. A cell is drawn from its own hex's marks only,
    so a map going from one board to the next redraws these and nothing else."""
    changed = {
        h for h in old.units.keys() | new.units.keys() if old.units.get(h) != new.units.get(h)
    }
    changed |= old.bases ^ new.bases
    changed |= {
        h
        for h in old.captured.keys() | new.captured.keys()
        if old.captured.get(h) != new.captured.get(h)
    }
    changed |= old.battles ^ new.battles
    return changed


def cells_from_sheet(
    index: SheetIndex,
    units: Mapping[HexId, str] | None = None,
    bases: Collection[HexId] | None = None,
    planned: Collection[HexId] = (),
    *,
    captured: Mapping[HexId, str] | None = None,
    battles: Collection[HexId] = (),
) -> CellFor:
    """The `Cell` of each hex of the sheet's grid (None off it); ``units`` maps hexes to
    their units' markers (``{1411: "K3"}``), at most three characters each. The base mark
    follows ``bases``, the hexes holding a base now, when given; otherwise the printed
    map's. ``planned`` are the hexes whose marker is a what-if of the draft orders;
    ``captured`` the captured hexes and the side holding each now; ``battles`` the battle
    hexes (`board_marks` gives all of these from a board)."""
    units = units or {}
    captured = captured or {}
    grid, sides = index.grid, index.sides

    def cell_for(h: HexId) -> Cell | None:
        if not grid.contains(h):
            return None
        printed = index.cells.get(h)
        features = printed.features if printed is not None else ()
        taken = h in captured
        side = sides.get(captured[h] if taken else printed.owner if printed else "")
        zone = printed is not None and printed.zone == NEUTRAL_ZONE
        # A captured hex is its captor's; a neutral zone nobody holds gets the ':' mark.
        neutral = zone and (not taken or side is None)
        color = side.color if side is not None else NEUTRAL_COLOR if neutral else ""
        text = side.text_color if side is not None else NEUTRAL_TEXT if neutral else ""
        return Cell(
            hex=h,
            glyph=side.glyph if side is not None else "",
            color=color or None,
            text_color=text or None,
            content=units.get(h, ""),
            minor_planet=FEATURE_MINOR in features,
            major_planet=FEATURE_MAJOR in features,
            capital=FEATURE_CAPITAL in features,
            base=FEATURE_BASE in features if bases is None else h in bases,
            neutral=neutral,
            planned=h in planned,
            captured=taken and side is not None and bool(side.glyph),
            battle=h in battles,
        )

    return cell_for


def board_cells(
    index: SheetIndex,
    board: Board | None,
    planned: Mapping[HexId, str] | None = None,
) -> CellFor:
    """The cells of the sheet with ``board`` on it (None: the bare printed map), and the
    what-if markers ``planned`` over the board's."""
    marks = board_marks(board, index.glyphs) if board is not None else None
    return marks_cells(index, marks, planned)


def marks_cells(
    index: SheetIndex,
    marks: BoardMarks | None,
    planned: Mapping[HexId, str] | None = None,
) -> CellFor:
    """`board_cells` from a board's marks (`board_marks`; None: the bare printed map)."""
    if marks is None:
        return cells_from_sheet(index)
    planned = planned or {}
    return cells_from_sheet(
        index,
        {**marks.units, **planned},
        marks.bases,
        planned,
        captured=marks.captured,
        battles=marks.battles,
    )


def render_sheet(
    sheet: MapSheet | SheetIndex,
    board: Board | None = None,
    *,
    region: str | None = None,
    width: int = 80,
    detail: Detail = "compact",
    units: Mapping[HexId, str] | None = None,
) -> list[str]:
    """The printed map of ``sheet`` with ``board`` on it (or ``region``, ``"XXYY:XXYY"``) as
    text lines at most ``width`` characters wide: bands of whole columns, each headed by
    its column numbers, then the legend of the glyphs drawn. Raises `ValueError` for a bad
    region or width.

    The board's pieces are drawn as stacks (`tui.mapstacks`: markers and their legend), its
    places' marks as bases, captures and battles; without a board the printed map alone,
    with ready markers ``units`` if given (explained by one line)."""
    index = sheet if isinstance(sheet, SheetIndex) else SheetIndex(sheet)
    grid = index.grid
    corners = parse_region(region, grid) if region is not None else None
    frame = map_frame(grid, region=corners, detail=detail)
    cell_for = board_cells(index, board) if board is not None else cells_from_sheet(index, units)
    lines, _ = draw_bands(frame, cell_for, width)
    drawn = [c for h in frame.hexes() if (c := cell_for(h)) is not None]
    owners = index.owners
    explained = stack_legend((c.content for c in drawn), owners) if board is not None else ()
    text = legend(
        drawn, owners, detail=detail, width=width, units=explained, odd_high=grid.odd_high
    )
    return [*lines, "", *text]
