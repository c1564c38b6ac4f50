"""The shortcuts the game screen's first paint takes (issue 16, item 5) give the answers of
the general code they skip: the columns a map window reads, a hex read as one number, the
unsafe-text classes compiled only when a string needs them, a board's stacks read once per
hex and per (side, marks), the side panel reading the map's printed cells, those cells
read without a call per cell, and the game screen's record read with one read of the
events and no state hash."""

from __future__ import annotations

import random
from typing import Any, cast

import msgspec
import pytest

from engine.core.face import Board, HexGrid, MapCell, MapSheet, Piece, Place
from engine.core.ruleset import Event
from saves.replica import Replica
from tests.saves.conftest import Player as SavesPlayer
from tests.tui.test_hexmap import FE_SHEET, marked
from tests.tui.test_hexmap import tutorial as tutorial_board
from tui import safe_text as safe_text_module
from tui.mapgeom import LABEL_WIDTH, Frame, HexId, shape_for
from tui.mapsheet import SheetIndex, grid_of, printed_cells
from tui.mapstacks import Counter, board_hex, counter_of, fixed_pieces, stacks_from_board
from tui.maptext import map_frame
from tui.safe_text import safe_lines, safe_text
from tui.screens.hexinfo import BoardIndex, hex_lines
from tui.services.log import event_rows
from tui.services.show import game_view, show
from tui.widgets.hexmap import HexMap


@pytest.mark.parametrize("detail", ["compact", "detailed"])
def test_columns_reaching_a_window_are_those_whose_box_or_brackets_reach_it(detail: str) -> None:
    shape = shape_for(detail)
    frame = Frame(3, 41, 1, 5, shape)
    reach = shape.width + 1  # the box and the bracket after it
    for start in range(frame.width + 2):
        for end in range(start, frame.width + 3):
            wanted = [
                c
                for c in frame.columns
                if not (frame.column_x(c) + reach <= start or frame.column_x(c) - 1 >= end)
            ]
            assert list(frame.columns_reaching(start, end)) == wanted, (start, end)
    assert frame.column_x(frame.col0) == LABEL_WIDTH


def _board_hex_by_parts(text: str | None, digits: int) -> int | None:
    """`board_hex` as it read every hex before its two-digit shortcut."""
    if text is None or len(text) != 2 * digits or not text.isdigit():
        return None
    col, row = int(text[:digits]), int(text[digits:])
    return col * 100 + row if col <= 99 and row <= 99 else None


def test_a_two_digit_hex_read_as_one_number_is_its_column_and_row() -> None:
    draw = random.Random(16)
    texts: list[str | None] = [None, "", "0000", "9999", "0101", "1411", "6119", "141", "14111"]
    texts += ["\u0661\u0664\u0661\u0661", "14a1", " 141", "-141", "+141"]  # Arabic-Indic digits
    texts += [f"{draw.randrange(10_000):04d}" for _ in range(500)]
    for text in texts:
        assert board_hex(text, 2) == _board_hex_by_parts(text, 2), text
    for text in ("010203", "099099", "100100", "001001"):
        assert board_hex(text, 3) == _board_hex_by_parts(text, 3), text


def test_printable_text_compiles_no_class_and_unsafe_text_is_still_escaped() -> None:
    one_line, lines = safe_text_module._UNSAFE, safe_text_module._UNSAFE_BUT_NEWLINE
    saved = (one_line._compiled, lines._compiled)
    try:
        one_line._compiled = lines._compiled = None
        assert safe_text("Klingon fleet \u00e9\u4e2d") == "Klingon fleet \u00e9\u4e2d"
        assert safe_lines("Hex 1411\nowner KLI") == "Hex 1411\nowner KLI"
        assert (one_line._compiled, lines._compiled) == (None, None)
        assert safe_lines("a\nb\x1b[2J\u202e") == "a\nb\\x1b[2J\\u202e"
        assert lines._compiled is not None
        assert safe_text("a\nb") == "a\\nb"  # one line: the newline is escaped
        assert safe_text("a\nb\u00a0c") == "a\\nb\u00a0c"  # unprintable but safe: kept
        assert safe_lines("a\u00a0\nb") == "a\u00a0\nb"
    finally:
        one_line._compiled, lines._compiled = saved


def _stacks_piece_by_piece(board: Board) -> tuple[dict[HexId, list[Counter]], set[HexId]]:
    """`stacks_from_board` as it read every piece before it read each hex text and each
    (side, marks) once."""
    fixed, digits = fixed_pieces(board), board.grid.digits if board.grid is not None else 2
    stacks: dict[HexId, list[Counter]] = {}
    for piece in board.pieces:
        h = board_hex(piece.hex, digits)
        if h is not None and piece.id not in fixed:
            stacks.setdefault(h, []).append(counter_of(piece))
    bases = {
        h
        for place in board.places
        if "base" in place.marks and (h := board_hex(place.hex, digits)) is not None
    }
    return stacks, bases


def _random_board(draw: random.Random, digits: int) -> Board:
    hexes: list[str | None] = [None, "", "01", "0a01", f"{'9' * digits}{'9' * digits}"]
    hexes += [f"{draw.randrange(1, 40):0{digits}d}{draw.randrange(1, 30):0{digits}d}"] * 3
    hexes += [f"{draw.randrange(1, 40):0{digits}d}{draw.randrange(1, 30):0{digits}d}"]
    marks = ["crippled", "base", "supply-main", "supply-partial", "supply-none"]
    marks += ["out-of-supply", "not-released", "reserve"]
    sides = ["KLI", "FED", "ROM"]
    pieces = tuple(
        Piece(
            f"{draw.choice(sides)}-{i:04d}" if draw.random() < 0.9 else "KLI-0000",
            "CC",
            draw.choice(sides),
            draw.choice(hexes),
            tuple(draw.sample(marks, draw.randrange(4))),
        )
        for i in range(draw.randrange(60))
    )
    places = tuple(
        Place(h, draw.choice(sides), marks=tuple(draw.sample(["base", "battle"], 1)))
        for h in hexes
        if h is not None and draw.random() < 0.5
    )
    return Board(HexGrid(40, 30, digits=digits), (), pieces, places)


def test_stacks_read_per_hex_and_marks_are_those_read_piece_by_piece() -> None:
    draw = random.Random(5)
    for _ in range(300):
        board = _random_board(draw, draw.choice([2, 2, 3]))
        assert stacks_from_board(board) == _stacks_piece_by_piece(board)


def test_the_panel_reads_the_maps_printed_cells_as_it_read_the_sheet() -> None:
    """`BoardIndex` given the map's printed cells (`HexMap.printed`, read once for both) says
    of every hex of the grid what it said reading the sheet itself."""
    board = marked(tutorial_board(), "1307", "battle")
    own = BoardIndex(board, FE_SHEET)
    index = SheetIndex(FE_SHEET)
    shared = BoardIndex(board, FE_SHEET, printed=HexMap(FE_SHEET, board).printed)
    assert shared.printed == index.cells
    for h in map_frame(index.grid).hexes():  # the whole grid
        assert hex_lines(shared, h) == hex_lines(own, h), h


def test_a_sheets_cells_read_inline_are_those_board_hex_and_the_grid_give() -> None:
    draw = random.Random(11)
    for _ in range(200):
        digits = draw.choice([2, 2, 3])
        first_column, first_row = draw.sample(range(4), 2)
        grid = HexGrid(
            draw.randrange(1, 40), draw.randrange(1, 30), first_column, first_row, digits
        )
        texts = ["", "01", "0a01", "\u0661\u0664\u0661\u0661", " 141", "-141", "+141", "9999"]
        texts += [
            f"{draw.randrange(45):0{digits}d}{draw.randrange(35):0{digits}d}" for _ in range(60)
        ]
        sheet = MapSheet(grid, (), tuple(MapCell(draw.choice(texts)) for _ in range(80)))
        drawn = grid_of(grid)
        wanted = {
            h: cell
            for cell in sheet.cells
            if (h := board_hex(cell.hex, digits)) is not None and drawn.contains(h)
        }
        assert printed_cells(sheet, drawn) == wanted


class _RollingReplica:
    """A replica whose events also hold a roll after every packet (The Wind's set-up rolls
    no dice), read as `saves.reading.Reader.events` reads them: up to ``upto``."""

    def __init__(self, replica: Replica) -> None:
        self._replica = replica

    def __getattr__(self, name: str) -> Any:
        return getattr(self._replica, name)

    def events(self, game_id: bytes, upto: int | None = None) -> list[tuple[int, Event]]:
        rolled: list[tuple[int, Event]] = []
        for seq, event in self._replica.events(game_id):
            rolled.append((seq, event))
            data = {"purpose": f"after {seq}", "count": 1, "sides": 6, "dice": [seq % 6 + 1]}
            rolled.append((seq, Event("roll", "a die", "coalition", "1A1", data)))
        return [(seq, event) for seq, event in rolled if upto is None or seq <= upto]


def test_the_game_screens_record_reads_the_events_once_and_no_state_hash(
    wind: SavesPlayer,
) -> None:
    """`game_view` reads the events once for the record's rolls and the log: the same as
    each read apart, at the head and at every earlier packet; only the state hash, which
    the screen never shows, is left out."""
    replica = cast(Replica, _RollingReplica(wind.replica))
    row = replica.find("wind")
    every = replica.events(row.game_id)
    for at in (None, *range(row.head_seq + 1)):
        apart = show(replica, row, at=at, checklist=True, extras=False)
        once = show(replica, row, at=at, checklist=True, extras=False, events=every)
        assert once == apart and apart.rolls, at
    view = game_view(replica, row.game_id, mark_read=False)
    fresh = show(replica, row, at=None, checklist=True, extras=False)
    assert view.show == msgspec.structs.replace(fresh, state_hash="")
    assert fresh.state_hash and list(view.events) == event_rows(replica, row.game_id)
