"""A hand-made hex board, not F&E's, drawn by the same code as F&E's map: the proof that the
map knows no game.

The board is 5x4 hexes whose EVEN columns sit higher (F&E's odd ones do), two sides with the
glyphs ``A`` and ``B`` and colours of their own, a neutral zone, a capital each, a captured
hex, a battle, a base piece and a crippled one. It goes through `tui.mapsheet.render_sheet`
(what ``hexpost show --map`` prints), the hex panel (`tui.screens.hexinfo`), the help's
legend, and the `HexMap` widget in a headless app, with nothing but the face's records
(`engine.core.face.MapSheet` and `Board`).
"""

from __future__ import annotations

import msgspec
import pytest
from textual.app import App, ComposeResult
from textual.widgets import Label

from engine.core.face import Board, HexGrid, MapCell, MapSheet, Piece, Place, Side, SideStyle
from tui.mapsheet import render_sheet
from tui.screens.help import map_legend
from tui.screens.hexinfo import BoardIndex, hex_lines
from tui.widgets.goto import GotoDialog
from tui.widgets.hexmap import HexMap

GRID = HexGrid(5, 4, low_columns="odd")
ALPHA = SideStyle("A", "Side Alpha", "Alpha", "A", "#112233", "#ffffff")
BETA = SideStyle("B", "Side Beta", "Beta", "B", "#445566", "#000000")
SHEET = MapSheet(
    GRID,
    (ALPHA, BETA),
    (
        MapCell("0101", "A", features=("capital", "major-planet", "base")),
        MapCell("0102", "A"),
        MapCell("0201", "A", features=("minor-planet",)),
        MapCell("0202", "A"),
        MapCell("0303", zone="neutral", features=("minor-planet",)),
        MapCell("0403", "B", features=("major-planet",)),
        MapCell("0404", "B", features=("base",)),
        MapCell("0504", "B", features=("capital", "major-planet")),
    ),
)
BOARD = Board(
    GRID,
    (Side("A", "Side Alpha", "north"), Side("B", "Side Beta", "south")),
    (
        Piece("a1", "scout", "A", "0202"),
        Piece("a2", "scout", "A", "0202"),
        Piece("a3", "cruiser", "A", "0202", ("crippled",), "First Wing"),
        Piece("a4", "cruiser", "A", None),
        Piece("a5", "cruiser", "A", "0403"),
        Piece("b1", "raider", "B", "0403", ("out-of-supply",)),
        Piece("bf", "fort", "B", "0404", ("base", "crippled")),
    ),
    (
        Place("0202", "A", pieces=("a1", "a2", "a3")),
        Place("0201", "B", ("a minor planet",), marks=("captured",)),
        Place("0403", "B", ("a major planet",), ("a5", "b1"), ("battle",)),
        Place("0404", "B", ("fort bf",), ("bf",), ("base",)),
    ),
)

COMPACT = """\
     02  04
   01  03  05
01   bo  .
   A@  .   .
02   A3* .
   A   .   .
03   .   ABx
   .   :o  .
04   .   B#
   .   .   B@
"""
"""The toy board as ``show --map`` draws it: 0101's printed base is gone (the board holds
none there), 0201 is Beta's capture, 0202 three Alpha pieces (one crippled), 0403 a battle,
0404 Beta's fort (a base piece: terrain, not a stack), 0303 a neutral-zone planet."""


def test_the_toy_board_draws_as_text() -> None:
    lines = render_sheet(SHEET, BOARD)
    assert "\n".join(lines[:10]) + "\n" == COMPACT
    text = "\n".join(lines)
    assert "owner:  A Alpha  B Beta  b captured by Beta  : neutral zone  . unowned" in text
    assert "A3 3 Alpha units" in text and "x battle hex" in text and "* some crippled" in text
    assert "Even columns sit half a hex higher" in text
    assert "Odd columns" not in text


def test_the_toy_board_in_detail_and_bare() -> None:
    detailed = render_sheet(SHEET, BOARD, detail="detailed")
    assert detailed[2].split() == ["01", "0201", "0401"]  # the higher, even, columns first
    assert "A   A3*" in detailed[7]  # 0102's terrain, 0202's stack under its id
    bare = render_sheet(SHEET)
    assert bare[3].split() == ["A@#", ".", "."]  # the printed map keeps its base
    assert bare[2].split() == ["01", "Ao", "."]
    assert "units:" not in "\n".join(bare)


def test_a_region_of_the_toy_board_and_its_limits() -> None:
    lines = render_sheet(SHEET, BOARD, region="0403:0504")
    assert lines[0].split() == ["04"] and lines[1].split() == ["05"]
    with pytest.raises(ValueError, match="column 06 is off the 5x4 map"):
        render_sheet(SHEET, BOARD, region="0101:0605")


def test_the_hex_panel_reads_the_toy_board() -> None:
    index = BoardIndex(BOARD, SHEET)
    assert hex_lines(index, 202) == [
        "Hex 0202",
        "owner A",
        "units (3):",
        " a1 scout",
        " a2 scout",
        " a3 cruiser*  First Wing",
        "* crippled ! no supply & both",
    ]
    assert hex_lines(index, 201)[1:3] == ["owner B", "captured"]
    assert hex_lines(index, 404)[1:3] == ["owner B", "base: fort* bf"]  # its feature says no more
    assert " b1 raider!" in hex_lines(index, 403)
    assert hex_lines(index, 303) == ["Hex 0303", "owner -  neutral zone", "nothing here"]


def test_the_help_legend_of_the_toy_board() -> None:
    text = "\n".join(map_legend(SHEET, BOARD))
    assert "AB Alpha and Beta units" in text
    assert "b captured by Beta" in text
    assert "Even columns sit half a hex higher" in text


class ToyApp(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.moved: list[int] = []

    def compose(self) -> ComposeResult:
        yield HexMap(SHEET, BOARD)

    def on_hex_map_cursor_moved(self, message: HexMap.CursorMoved) -> None:
        self.moved.append(message.hex_id)


def map_text(hexmap: HexMap) -> list[str]:
    return [hexmap.render_line(y).text for y in range(hexmap.scrollable_content_region.height)]


async def test_the_map_widget_draws_and_moves_on_the_toy_board() -> None:
    app = ToyApp()
    async with app.run_test(size=(40, 16)) as pilot:
        await pilot.pause()
        hexmap = app.query_one(HexMap)
        assert hexmap.cursor == 101  # Alpha, the board's first side: its capital
        lines = map_text(hexmap)
        assert [line.rstrip() for line in lines[:2]] == ["     02  04", "   01  03  05"]
        assert lines[3].startswith("  [A@ ]")  # the cursor's brackets around 0101
        assert "A3*" in lines[4] and "ABx" in lines[6]
        cell = hexmap.cell(202)
        assert cell is not None and cell.style == "#ffffff on #112233"  # Alpha's colours
        battle = hexmap.cell(403)
        assert battle is not None and battle.battle and battle.content == "ABx"
        assert hexmap.cell(601) is None and not hexmap.on_map(601)
        await pilot.press("right", "down", "down", "down", "down", "right", "right", "right")
        assert hexmap.cursor == 504  # held at the board's corner
        assert app.moved[:2] == [201, 202]
        await pilot.press("g")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, GotoDialog)
        assert "0101 to 0504" in str(dialog.query_one(Label).render())
        await pilot.press("0", "6", "0", "1", "enter")
        await pilot.pause()
        assert isinstance(app.screen, GotoDialog)  # off the toy board: refused in place
        await pilot.press("escape")
        # The what-if of a move of a1 to 0302.
        moved = tuple(
            msgspec.structs.replace(p, hex="0302") if p.id == "a1" else p for p in BOARD.pieces
        )
        hexmap.show_plan(msgspec.structs.replace(BOARD, pieces=moved))
        await pilot.pause()
        assert hexmap.planned == {202: "A2~", 302: "A1~"}
        # A game without a sheet: an empty map, keys do nothing.
        hexmap.show_board(None)
        assert hexmap.cell(101) is not None  # the sheet stays
        empty = HexMap()
        await app.mount(empty)
        await pilot.pause()
        assert empty.sheet is None and empty.cell(101) is None and not empty.on_map(101)
        assert all(not line.strip() for line in map_text(empty))
