"""The hex panel's lines (`tui.screens.hexinfo.hex_lines`) from the face's board and printed map.

Moved here from ``test_app.py`` when the panel stopped reading F&E's ``views`` record: the
same hex (1205, a Kzinti hex the Klingons captured, its battle station crippled, four
Klingon ships with every kind of note) now comes as a typed `Board`.
"""

from __future__ import annotations

from engine.core.face import Board, HexGrid, MapCell, MapSheet, Piece, Place
from engine.fe.face import FACE
from tests.engine.fe.steps.tutorial_states import after_setup
from tests.tui.test_app import Tutorial
from tui.screens.hexinfo import SCROLL_WIDTH, BoardIndex, hex_lines
from tui.services.board import board_at, map_sheet, sheet_for

GRID = HexGrid(61, 19)
SHEET = MapSheet(GRID, cells=(MapCell("1306", "KLI"), MapCell("2214", zone="neutral")))


def board() -> Board:
    def piece(pid: str, kind: str, side: str, *marks: str, group: str = "") -> Piece:
        return Piece(pid, kind, side, "1205", marks, group)

    return Board(
        GRID,
        pieces=(
            piece("KZI-B001", "BATS", "KZI", "crippled", "supply-main", "base"),
            piece("KLI-0001", "D7C", "KLI", "supply-main", group="Strike Force"),
            piece("KLI-0002", "D7", "KLI", "crippled", "supply-none"),
            piece("KLI-0003", "F5", "KLI", "supply-none", "reserve"),
            piece("KLI-0004", "F5S", "KLI", "supply-partial", "not-released", group="Home"),
        ),
        places=(
            Place(
                "1205",
                "KLI",
                ("minor planet", "BATS KZI-B001"),
                ("KZI-B001", "KLI-0001", "KLI-0002", "KLI-0003", "KLI-0004"),
                ("base", "captured"),
            ),
        ),
    )


def test_the_side_panel_marks_crippled_and_unsupplied_units() -> None:
    lines = hex_lines(BoardIndex(board(), SHEET), 1205)
    assert lines[:5] == [
        "Hex 1205",
        "owner KLI",
        "captured",
        "minor planet",
        "base: BATS* KZI-B001",
    ]
    assert "units (4):" in lines
    assert " KLI-0001 D7C  Strike Force" in lines
    assert " KLI-0002 D7&" in lines
    assert " KLI-0003 F5!  reserve" in lines
    at = lines.index(" KLI-0004 F5S")  # too long for one line: a note a line
    assert lines[at + 1 : at + 3] == ["    partial supply", "    Home (held)"]
    assert lines[-1] == "* crippled ! no supply & both"
    assert all(len(line) <= SCROLL_WIDTH for line in lines[:-1])  # the legend wraps


def test_a_hex_the_board_leaves_out_says_the_printed_owner() -> None:
    index = BoardIndex(board(), SHEET)
    assert hex_lines(index, 1306) == ["Hex 1306", "owner KLI", "nothing here"]
    assert hex_lines(index, 2214)[1] == "owner -  neutral zone"
    assert hex_lines(BoardIndex(None), 1306) == ["Hex 1306", "owner -", "nothing here"]
    assert not BoardIndex(None).has_board and BoardIndex(board()).has_board


def test_the_tutorial_board_in_the_panel() -> None:
    """F&E's face through the panel: the Strike Force in 1307 over its battle station."""
    index = BoardIndex(FACE.board(after_setup()), FACE.map_sheet("tutorial"))
    lines = hex_lines(index, 1307)
    assert lines[:3] == ["Hex 1307", "owner KLI", "base: BATS KLI-B002"]
    assert "units (4):" in lines and " KLI-0001 D7C  Strike Force" in lines
    assert not any("supply" in line for line in lines)  # full supply goes unsaid
    capital = hex_lines(index, 1411)
    assert capital[2] == "capital" and "major Klinshai" in capital


def test_the_services_give_a_games_sheet_and_board(tutorial: Tutorial) -> None:
    """What the screens and ``show --map`` ask for: the printed map by game, by ruleset and
    scenario (the record's ``fe/1.x`` too), and the board at a packet."""
    replica = tutorial.alice.replica
    row = replica.game(tutorial.game_id)
    sheet = FACE.map_sheet(row.scenario)
    assert map_sheet(replica, tutorial.game_id) == sheet
    assert map_sheet(replica, tutorial.game_id.hex()) == sheet
    assert sheet_for(f"{row.ruleset}/1.0", row.scenario) == sheet
    now = board_at(replica, row)
    assert now is not None and {s.id for s in now.sides} == {"KLI", "KZI"}
    assert board_at(replica, row, 0) is None  # the genesis: no board yet
