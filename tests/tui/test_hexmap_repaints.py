"""The map widget as it scrolls with the cursor and is repainted, in a headless app.

`tests.tui.test_hexmap` tests the map's keys, messages, drawing, go to and clicks, and holds
the helpers both files use (the test app, reading the lines back, finding the cursor). Here
are the map following the cursor (scrolling, the pinned labels at any scroll), battle and
capture marks, and what each repaint shows: when a panel opens under the map, when a new
board or a new sheet is given, when the detail changes. They were split off
`tests.tui.test_hexmap` to keep each file a readable size.
"""

from __future__ import annotations

import random
from typing import Any
from unittest.mock import patch

import msgspec
import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Static

from engine.core.face import Board
from tests.tui.pilots import after_each_repaint, settle_until
from tests.tui.test_hexmap import (
    FE_SHEET,
    SIZE,
    MapApp,
    cursor_spot,
    find,
    marked,
    recentred,
    screen_lines,
    tutorial,
    widget_lines,
)
from tui.mapgeom import HEADER_LINES, LABEL_WIDTH
from tui.mapsheet import SheetIndex, board_cells
from tui.maptext import render_line
from tui.widgets import hexmap as hexmap_module
from tui.widgets.hexmap import HexMap


async def scrolled(pilot: Pilot[None], hexmap: HexMap, x: int) -> None:
    """Scroll the map to column ``x`` and wait for it: the scroll is made after the next
    refresh."""
    hexmap.scroll_to(x, 0, animate=False)
    await settle_until(pilot, lambda: hexmap.scroll_offset.x == x, f"scrolled to x={x}")


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
