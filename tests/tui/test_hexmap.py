"""The map widget in a headless app: cursor keys, messages, zoom, go to, clicks, scrolling.

What the player would see is read back from the screen: either the lines the widget hands
the compositor (`HexMap.render_line`, pinned labels and scrolling included) or, where the
whole screen matters, the compositor's own strips. Positions are found in that text (a
marker, a hex id, the cursor's brackets), not computed from the geometry the widget uses.
"""

from __future__ import annotations

import random
from typing import Any
from unittest.mock import patch

import msgspec
import pytest
from textual import on
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input, Static

from engine.core.face import Board, MapSheet
from engine.fe.face import FACE
from tests.engine.fe.steps.tutorial_states import after_setup
from tests.tui.pilots import after_each_repaint, refreshed, settle_until
from tui.mapgeom import HEADER_LINES, LABEL_WIDTH, Grid, follow, whole_columns
from tui.mapsheet import SheetIndex, board_cells
from tui.maptext import render_line
from tui.widgets import hexmap as hexmap_module
from tui.widgets.goto import GotoDialog, parse_hex
from tui.widgets.hexmap import HexMap, stepped

SIZE = (80, 24)
FE_SHEET = FACE.map_sheet("tutorial")
FE_GRID = Grid(61, 19)


def tutorial() -> Board:
    """The tutorial's board after set-up, as the F&E face gives it."""
    return FACE.board(after_setup())


class MapApp(App[None]):
    """Only the map (F&E's printed map unless told otherwise), and what it posted."""

    def __init__(
        self, board: Board | None = None, *, sheet: MapSheet | None = FE_SHEET, **options: Any
    ) -> None:
        super().__init__()
        self.sheet, self.board, self.options = sheet, board, options
        self.moved: list[int] = []
        self.chosen: list[int] = []

    def compose(self) -> ComposeResult:
        yield HexMap(self.sheet, self.board, **self.options)

    @on(HexMap.CursorMoved)
    def cursor_moved(self, message: HexMap.CursorMoved) -> None:
        assert message.control is self.query_one(HexMap)
        self.moved.append(message.hex_id)

    @on(HexMap.HexChosen)
    def hex_chosen(self, message: HexMap.HexChosen) -> None:
        self.chosen.append(message.hex_id)


def widget_lines(hexmap: HexMap) -> list[str]:
    """The text of every line the widget shows now."""
    return [hexmap.render_line(y).text for y in range(hexmap.scrollable_content_region.height)]


def screen_lines(app: App[Any]) -> list[str]:
    """The whole screen as the compositor draws it (a private API: no public one gives the
    text; a Textual upgrade that breaks it fails here loudly)."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


def find(lines: list[str], token: str) -> list[tuple[int, int]]:
    return [
        (y, x)
        for y, line in enumerate(lines)
        for x in range(len(line))
        if line.startswith(token, x)
    ]


def cursor_spot(hexmap: HexMap) -> tuple[int, int]:
    """(line, x) of the cursor's top opening bracket on screen: the whole box must show, a
    bracket on each of its lines, one above the other."""
    spots = find(widget_lines(hexmap), "[")
    (y, x), height = spots[0] if spots else (0, 0), hexmap.frame.shape.height
    assert spots == [(y + part, x) for part in range(height)], widget_lines(hexmap)
    return y, x


async def recentred(pilot: Pilot[None]) -> None:
    """Wait out the layout a change of detail asks for (`HexMap.watch_detail` centres the
    cursor in it): a scroll of the test's own made before then would be undone."""
    await refreshed(pilot)
    await refreshed(pilot)


async def scrolled(pilot: Pilot[None], hexmap: HexMap, x: int) -> None:
    """Scroll the map to column ``x`` and wait for it: the scroll is made after the next
    refresh."""
    hexmap.scroll_to(x, 0, animate=False)
    await settle_until(pilot, lambda: hexmap.scroll_offset.x == x, f"scrolled to x={x}")


# --- pure parts ---------------------------------------------------------------------------


def test_stepped_moves_one_column_or_row_and_holds_at_the_edges() -> None:
    assert stepped(1411, 1, 0, FE_GRID) == 1511
    assert stepped(1411, -1, 0, FE_GRID) == 1311
    assert stepped(1411, 0, -1, FE_GRID) == 1410
    assert stepped(1411, 0, 1, FE_GRID) == 1412
    assert stepped(101, -1, -1, FE_GRID) == 101
    assert stepped(6119, 1, 1, FE_GRID) == 6119


def test_follow_scrolls_the_least_and_respects_the_pinned_labels() -> None:
    # window of 20, 3 pinned: map positions scroll+3 .. scroll+19 are visible.
    assert follow(10, 20, 3, 15, 20, center=False) == 10  # already visible
    assert follow(10, 20, 3, 12, 15, center=False) == 9  # under the labels: scroll back
    assert follow(10, 20, 3, 28, 32, center=False) == 12  # past the right edge
    assert follow(10, 20, 3, 1, 4, center=False) == 0  # never below zero
    assert follow(0, 20, 3, 40, 44, center=True) == 30  # 42, mid-box, at mid-window
    assert follow(0, 10, 3, 40, 50, center=True) == 37  # too big to centre: show its start


def test_a_scroll_moves_to_whole_column_pairs_keeping_the_cursor_in_view() -> None:
    # pitch 2 (compact): pairs of 4 characters; the cursor box with brackets at 20..24
    assert whole_columns(10, 2, 40, 20, 24) == 8  # down: still in view
    assert whole_columns(8, 2, 40, 20, 24) == 8
    assert whole_columns(11, 2, 20, 16, 30) == 12  # down would lose its right edge
    assert whole_columns(11, 2, 10, 13, 22) == 11  # neither fits: as it was


def test_parse_hex_names_what_is_wrong() -> None:
    assert parse_hex("1411", FE_GRID) == 1411
    assert parse_hex(" 101 ", FE_GRID) == 101
    with pytest.raises(ValueError, match="XXYY"):
        parse_hex("abc", FE_GRID)
    with pytest.raises(ValueError, match="XXYY"):
        parse_hex("", FE_GRID)
    with pytest.raises(ValueError, match="column 62"):
        parse_hex("6201", FE_GRID)
    with pytest.raises(ValueError, match="row 20"):
        parse_hex("1420", FE_GRID)
    with pytest.raises(ValueError, match="row 00"):
        parse_hex("1400", FE_GRID)


# --- keys and messages --------------------------------------------------------------------


async def test_the_cursor_starts_on_the_klingon_capital_and_is_drawn_bracketed() -> None:
    """The tutorial's first side is the Klingons: the cursor starts on their capital."""
    app = MapApp(tutorial())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        hexmap = app.query_one(HexMap)
        assert hexmap.cursor == 1411
        assert hexmap.has_focus
        y, x = cursor_spot(hexmap)
        # The capital; no base mark: the tutorial's board has no starbase there.
        assert widget_lines(hexmap)[y][x : x + 5] == "[K@ ]"
        assert hexmap.hex_at_screen(x + 1, y) == 1411
        reversed_text = [
            segment.text
            for segment in hexmap.render_line(y)
            if segment.style is not None and segment.style.reverse
        ]
        assert reversed_text == ["K@ "]  # reverse video too, for colour terminals


@pytest.mark.parametrize(
    ("keys", "expected"),
    [
        (("right",), 1511),
        (("l",), 1511),
        (("left",), 1311),
        (("h",), 1311),
        (("up",), 1410),
        (("k",), 1410),
        (("down",), 1412),
        (("j",), 1412),
        (("l", "l", "j", "h"), 1512),
    ],
)
async def test_arrows_and_hjkl_move_the_cursor_and_post_cursor_moved(
    keys: tuple[str, ...], expected: int
) -> None:
    app = MapApp(cursor=1411)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*keys)
        await pilot.pause()
        hexmap = app.query_one(HexMap)
        assert hexmap.cursor == expected
        assert app.moved[-1] == expected
        assert len(app.moved) == len(keys)
        y, x = cursor_spot(hexmap)
        assert hexmap.hex_at_screen(x + 1, y) == expected


@pytest.mark.parametrize(
    ("start", "keys"),
    [(101, ("left", "up", "h", "k")), (6119, ("right", "down", "l", "j"))],
)
async def test_the_cursor_holds_at_the_map_edges(start: int, keys: tuple[str, ...]) -> None:
    app = MapApp(cursor=start)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*keys)
        await pilot.pause()
        assert app.query_one(HexMap).cursor == start
        assert app.moved == []  # nothing changed, nothing posted
        cursor_spot(app.query_one(HexMap))  # still on screen


async def test_enter_chooses_the_cursor_hex() -> None:
    app = MapApp(cursor=1411)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("right", "enter")
        await pilot.pause()
        assert app.chosen == [1511]


# --- drawing ------------------------------------------------------------------------------


async def test_z_switches_to_detailed_boxes_with_hex_ids_and_back() -> None:
    app = MapApp(cursor=1411)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        hexmap = app.query_one(HexMap)
        compact = widget_lines(hexmap)
        assert not find(compact, "1411")
        await pilot.press("z")
        await recentred(pilot)
        detailed = widget_lines(hexmap)
        assert hexmap.detail == "detailed"
        spots = find(detailed, "1411")
        assert len(spots) == 1
        y, x = spots[0]
        assert detailed[y][x - 1 : x + 4] == "[1411"  # the id on the box's first line
        assert detailed[y + 1][x - 1 : x + 3] == "[K@#"  # the terrain under it
        await pilot.press("z")
        await recentred(pilot)
        assert str(hexmap.detail) == "compact"
        assert widget_lines(hexmap) == compact


async def test_tutorial_stacks_show_their_markers_and_a_bare_map_does_not() -> None:
    app = MapApp(tutorial())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        hexmap = app.query_one(HexMap)
        lines = screen_lines(app)
        spots = find(lines, "K4")  # the Klingon Strike Force: four ships, its base apart
        assert len(spots) == 1, lines
        y, x = spots[0]
        assert hexmap.hex_at_screen(x, y) == 1307
        assert [hexmap.hex_at_screen(x, y) for y, x in find(lines, "K2")] == [1607]
        hexmap.show_board(None)
        await pilot.pause()
        bare = screen_lines(app)
        assert not find(bare, "K4")
        assert bare[y][x : x + 3] == "K# "  # the battle station's terrain shows again
        assert hexmap.cursor == 1411


async def test_a_cursor_move_redraws_only_the_lines_it_touches(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = MapApp(tutorial())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        drawn: list[int] = []
        draw = render_line  # what tui.widgets.hexmap calls, from tui.maptext

        def counting(frame: Any, y: int, cell_for: Any, window: Any = None) -> Any:
            drawn.append(y)
            return draw(frame, y, cell_for, window)

        monkeypatch.setattr(hexmap_module, "render_line", counting)
        await pilot.press("right")
        await pilot.pause()
        assert drawn  # it did redraw
        assert len(drawn) <= 2 * app.query_one(HexMap).frame.shape.height


# --- go to and the mouse ------------------------------------------------------------------


async def test_goto_moves_the_cursor_and_scrolls_there() -> None:
    app = MapApp(cursor=1411)
    async with app.run_test(size=SIZE) as pilot:
        hexmap = app.query_one(HexMap)
        await pilot.press("g")
        await pilot.pause()
        assert isinstance(app.screen, GotoDialog)
        await pilot.press(*"5517", "enter")
        await pilot.pause()
        assert not isinstance(app.screen, GotoDialog)
        assert hexmap.cursor == 5517
        assert app.moved == [5517]
        assert hexmap.scroll_offset.x > 0 and hexmap.scroll_offset.y > 0
        y, x = cursor_spot(hexmap)
        assert hexmap.hex_at_screen(x + 1, y) == 5517


@pytest.mark.parametrize("typed", ["9999", "1420", "14", ""])
async def test_an_invalid_goto_is_refused_in_the_dialog(typed: str) -> None:
    app = MapApp(cursor=1411)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("g")
        await pilot.pause()
        await pilot.press(*typed, "enter")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, GotoDialog)  # still open
        error = str(dialog.query_one("#goto-error", Static).render())
        assert "off the 61x19 map" in error or "XXYY" in error
        assert app.query_one(HexMap).cursor == 1411
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, GotoDialog)
        assert app.query_one(HexMap).cursor == 1411
        assert app.moved == []


async def test_the_goto_input_takes_digits_only() -> None:
    app = MapApp(cursor=1411)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("g", "x", "1", "4", "q", "1", "1", "7")
        await pilot.pause()
        assert app.screen.query_one(Input).value == "1411"


async def test_goto_refuses_a_hex_off_the_map() -> None:
    app = MapApp(cursor=1411)
    async with app.run_test(size=SIZE):
        with pytest.raises(ValueError, match="off the 61x19 map"):
            app.query_one(HexMap).goto(6201)


async def test_a_click_moves_the_cursor_and_a_double_click_chooses() -> None:
    app = MapApp(cursor=1411, detail="detailed")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        hexmap = app.query_one(HexMap)
        (y, x), *_ = find(widget_lines(hexmap), "1510")
        await pilot.click(HexMap, offset=(x + 2, y + 1))  # the terrain line of 1510's box
        await pilot.pause()
        assert hexmap.cursor == 1510
        assert app.moved == [1510]
        assert app.chosen == []
        await pilot.click(HexMap, offset=(x, y), times=2)
        await pilot.pause()
        assert app.chosen == [1510]
        await pilot.click(HexMap, offset=(1, y))  # a row label: no hex there
        await pilot.pause()
        assert hexmap.cursor == 1510


# --- the map follows the cursor -----------------------------------------------------------


async def test_the_map_scrolls_to_keep_the_cursor_visible_at_80x24() -> None:
    app = MapApp(tutorial(), cursor=111)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        hexmap = app.query_one(HexMap)
        assert hexmap.scroll_offset.x == 0
        for _ in range(60):  # across the whole map, west to east
            await pilot.press("l")
            y, x = cursor_spot(hexmap)
            assert x >= LABEL_WIDTH - 1 and y >= HEADER_LINES
            # by whole pairs of columns: no box cut beside the row numbers
            scroll = hexmap.scroll_offset.x
            assert scroll % 4 == 0 or scroll == hexmap.max_scroll_x, scroll
        assert hexmap.cursor == 6111
        assert hexmap.scroll_offset.x > 0
        for _ in range(8):
            await pilot.press("j")
            cursor_spot(hexmap)
        assert hexmap.cursor == 6119
        assert hexmap.scroll_offset.y > 0
        await pilot.pause()
        lines = screen_lines(app)
        assert "61" in lines[0]  # column numbers stay pinned on top
        assert any(line.startswith("19 ") for line in lines)  # row numbers at the left
        assert find(lines, "[")  # and the compositor shows the cursor
        for _ in range(60):
            await pilot.press("h")
            cursor_spot(hexmap)
        assert hexmap.cursor == 119
        assert hexmap.scroll_offset.x == 0


async def test_pinned_column_numbers_and_cut_boxes_read_right_at_any_scroll() -> None:
    """Issue 4: scrolled one character, column 02 read "2" and column 01 "1". Scrolled by
    part of a column (a drag of the scrollbar), the end of a box that starts left of the
    view ("4" of a Y44) read as a count beside the row numbers: it is blank."""
    app = MapApp(tutorial(), cursor=3010)
    async with app.run_test(size=SIZE) as pilot:
        hexmap = app.query_one(HexMap)
        for detail in ("compact", "detailed"):
            hexmap.detail = detail
            await recentred(pilot)
            frame, cut_lines = hexmap.frame, 0
            for x in range(12):
                await scrolled(pilot, hexmap, x)
                lines = widget_lines(hexmap)
                header = lines[:HEADER_LINES]
                numbers = [n for line in header for n in line.split()]
                assert numbers and all(len(n) == 2 and n.isdigit() for n in numbers), header
                shown = sorted(int(n) for n in numbers)
                assert shown == list(range(shown[0], shown[-1] + 1)), header
                for y in range(HEADER_LINES, len(lines)):
                    cut = frame.cut_at(y + hexmap.scroll_offset.y, LABEL_WIDTH + x)
                    cut_lines += cut > 0
                    assert not lines[y][LABEL_WIDTH : LABEL_WIDTH + cut].strip(), (x, lines[y])
                    assert len(lines[y]) == len(lines[0]), (x, lines[y])  # the rest stays
            assert cut_lines, detail  # some scroll cut boxes
        hexmap.detail = "compact"
        await recentred(pilot)
        await scrolled(pilot, hexmap, 1)
        header = widget_lines(hexmap)[:HEADER_LINES]
        assert header[0].startswith("   01 03  05") and header[1].startswith("    02  04")


def marked(board: Board, h: str, mark: str, owner: str | None = None) -> Board:
    """``board`` with place ``h`` given ``mark`` (and ``owner``)."""
    places = [
        msgspec.structs.replace(p, marks=(*p.marks, mark), owner=owner or p.owner)
        if p.hex == h
        else p
        for p in board.places
    ]
    return msgspec.structs.replace(board, places=tuple(places))


async def test_battle_hexes_and_captures_show_on_the_widget() -> None:
    board = marked(marked(tutorial(), "1307", "battle"), "1411", "captured", "KZI")
    app = MapApp(board, cursor=1411)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        hexmap = app.query_one(HexMap)
        cell = hexmap.cell(1307)
        assert cell is not None and cell.battle and cell.content == "K4x"
        captured = hexmap.cell(1411)
        assert captured is not None and captured.captured and captured.terrain == "z@ "
        lines = widget_lines(hexmap)
        assert find(lines, "K4x") and find(lines, "[z@ ]")


def test_the_side_panel_says_battle_for_a_battle_hex() -> None:
    from tui.screens.hexinfo import BoardIndex, hex_lines

    quiet = hex_lines(BoardIndex(tutorial(), FE_SHEET), 1307)
    assert not any("battle" in line for line in quiet)
    assert "battle" in hex_lines(BoardIndex(marked(tutorial(), "1307", "battle"), FE_SHEET), 1307)


def paints_showing_the_cursor(app: App[Any], hexmap: HexMap) -> list[bool]:
    """A list that gets, at each repaint of the screen from now on, whether the cursor's box
    was whole on the map in it."""
    seen: list[bool] = []
    after_each_repaint(app.screen, lambda: seen.append(hexmap.cursor_in_view()))
    return seen


class MapAndPanel(App[None]):
    """The map over a panel that opens under it (as the checklist does on the game screen)."""

    CSS = "#panel { height: 10; display: none; } HexMap { height: 1fr; }"

    def compose(self) -> ComposeResult:
        yield HexMap(FE_SHEET, tutorial(), cursor=111)
        yield Static("a panel", id="panel")


async def test_a_panel_opening_under_the_map_keeps_the_cursor_on_it_in_every_repaint() -> None:
    """A map that loses lines (``c`` opens the checklist under it) keeps the cursor in view
    in the layout that shrinks it: scrolled after that repaint (on the resize event), the
    cursor near the map's foot was cut off for a frame."""
    app = MapAndPanel()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        hexmap = app.query_one(HexMap)
        window = hexmap.scrollable_content_region.height
        while cursor_spot(hexmap)[0] + hexmap.frame.shape.height < window - 2:
            await pilot.press("j")  # down to the window's last lines
        await pilot.pause()
        seen = paints_showing_the_cursor(app, hexmap)
        app.query_one("#panel").display = True  # the map loses ten lines
        await pilot.pause(0.1)
        assert hexmap.scrollable_content_region.height == window - 10
        assert seen and all(seen), seen
        cursor_spot(hexmap)  # (its whole box, on the smaller map)


def shuffled(board: Board, rng: random.Random, near: int) -> Board:
    """``board`` with a few pieces moved to hexes around ``near``, and battles and captures
    marked and cleared on places there: the changes a review step or a sync brings."""
    col, row = divmod(near, 100)
    around = [f"{c:02d}{r:02d}" for c in range(col - 3, col + 4) for r in range(row - 2, row + 3)]
    pieces = list(board.pieces)
    for i in rng.sample(range(len(pieces)), 6):
        hex_to = rng.choice([*around, None])  # (None: off the board, destroyed)
        pieces[i] = msgspec.structs.replace(pieces[i], hex=hex_to)
    places = []
    for place in board.places:
        if place.hex in around and rng.random() < 0.3:
            marks = tuple(m for m in place.marks if m not in ("battle", "captured"))
            marks += tuple(m for m in ("battle", "captured") if rng.random() < 0.5)
            owner = rng.choice(["KZI", "KLI", place.owner]) if "captured" in marks else place.owner
            places.append(msgspec.structs.replace(place, marks=marks, owner=owner))
        else:
            places.append(place)
    return msgspec.structs.replace(board, pieces=tuple(pieces), places=tuple(places))


async def test_a_new_board_redraws_its_changed_hexes_and_shows_what_a_fresh_drawing_shows() -> None:
    """`HexMap.show_board` on the same sheet draws again only the hexes whose marks changed
    (`tui.mapsheet.changed_hexes`): after each of a run of random changes, every hex's cell
    is the one a fresh reading of the board gives, and the lines on screen are those a
    drawing from scratch shows."""
    rng = random.Random(16)
    first = tutorial()
    index = SheetIndex(FE_SHEET)
    app = MapApp(first, cursor=1307)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        hexmap = app.query_one(HexMap)
        board = first
        for _ in range(12):
            board = shuffled(board, rng, hexmap.cursor)
            hexmap.show_board(board)
            await pilot.pause()
            fresh = board_cells(index, board)
            assert all(hexmap.cell(h) == fresh(h) for h in index.cells), "a stale cell"
            drawn = widget_lines(hexmap)
            hexmap.show_board(None)  # (the bare map, then the board: drawn from scratch)
            hexmap.show_board(board)
            await pilot.pause()
            assert widget_lines(hexmap) == drawn


async def test_a_step_that_moves_one_stack_redraws_only_its_lines(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    board = tutorial()
    app = MapApp(board, cursor=1307)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        hexmap = app.query_one(HexMap)
        drawn: list[int] = []
        draw = render_line

        def counting(frame: Any, y: int, cell_for: Any, window: Any = None) -> Any:
            drawn.append(y)
            return draw(frame, y, cell_for, window)

        monkeypatch.setattr(hexmap_module, "render_line", counting)
        moved = [p for p in board.pieces if p.hex == "1307"]
        assert moved
        stepped_board = msgspec.structs.replace(
            board,
            pieces=tuple(
                msgspec.structs.replace(p, hex="1306") if p.hex == "1307" else p
                for p in board.pieces
            ),
        )
        hexmap.show_board(stepped_board)
        await pilot.pause()
        assert drawn  # it did redraw: the two hexes' boxes
        assert len(set(drawn)) <= 2 * hexmap.frame.shape.height


async def test_z_shows_the_cursor_centred_in_its_first_repaint() -> None:
    """A change of detail doubles the boxes: the map is centred on the cursor in the layout
    of the new size, so no repaint shows the new detail scrolled as the old one was."""
    app = MapApp(tutorial(), cursor=3110)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        hexmap = app.query_one(HexMap)
        seen = paints_showing_the_cursor(app, hexmap)
        for _ in range(4):
            await pilot.press("z")
            await pilot.pause()
        assert hexmap.detail == "compact"
        assert len(seen) >= 4 and all(seen), seen


async def test_a_sheet_given_to_an_empty_map_shows_with_its_scrollbars_in_one_repaint() -> None:
    """The review's map has no sheet until the first record is read: given one, the map is
    drawn with its scrollbars in the same repaint (found in the layout after, they came a
    frame later)."""
    app = MapApp(None, sheet=None)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        hexmap = app.query_one(HexMap)
        assert not hexmap.show_vertical_scrollbar
        seen: list[list[str]] = []
        after_each_repaint(
            app.screen,
            lambda: seen.append(
                [repr(list(strip)) for strip in app.screen._compositor.render_strips()]
            ),
        )
        hexmap.show_board(tutorial(), FE_SHEET)
        await recentred(pilot)
        await pilot.pause()
        changed = [paint for n, paint in enumerate(seen) if n == 0 or paint != seen[n - 1]]
        assert len(changed) == 1
        assert hexmap.show_vertical_scrollbar and hexmap.show_horizontal_scrollbar


async def test_a_sheet_given_before_the_first_layout_is_painted_with_its_scrollbars() -> None:
    """A screen that shows its data before its first paint (the review opened with its first
    packet read, the game screen with its game) gives its map a sheet before the map has a
    size: a map larger than the whole screen needs both scrollbars whatever size the layout
    gives it, so they are in the first paint (they came a layout and a repaint later)."""

    class ShownOnMount(App[None]):
        def compose(self) -> ComposeResult:
            yield HexMap(None, None)

        def on_mount(self) -> None:
            self.query_one(HexMap).show_board(tutorial(), FE_SHEET)

    seen: list[list[str]] = []
    app = ShownOnMount()
    real_refresh = Screen._compositor_refresh

    def noted(screen: Screen[Any]) -> None:
        real_refresh(screen)
        seen.append([repr(list(strip)) for strip in screen._compositor.render_strips()])

    with patch.object(Screen, "_compositor_refresh", noted):
        async with app.run_test(size=SIZE) as pilot:
            await recentred(pilot)
            await pilot.pause()
            hexmap = app.query_one(HexMap)
            assert hexmap.show_vertical_scrollbar and hexmap.show_horizontal_scrollbar
    changed = [paint for n, paint in enumerate(seen) if n == 0 or paint != seen[n - 1]]
    assert len(changed) == 1
