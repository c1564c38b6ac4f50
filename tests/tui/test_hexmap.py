"""The map widget in a headless app: cursor keys, messages, zoom, go to, clicks.

What the player would see is read back from the screen: either the lines the widget hands
the compositor (`HexMap.render_line`, pinned labels and scrolling included) or, where the
whole screen matters, the compositor's own strips. Positions are found in that text (a
marker, a hex id, the cursor's brackets), not computed from the geometry the widget uses.

The helpers that do so live here; `tests.tui.test_hexmap_repaints` imports them for the map
following the cursor as it scrolls, its battle and capture marks, and its repaints.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from textual import on
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import Input, Static

from engine.core.face import Board, MapSheet
from engine.fe.face import FACE
from tests.engine.fe.steps.tutorial_states import after_setup
from tests.tui.pilots import refreshed
from tui.mapgeom import Grid, follow, whole_columns
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


def marked(board: Board, h: str, mark: str, owner: str | None = None) -> Board:
    """``board`` with place ``h`` given ``mark`` (and ``owner``)."""
    places = [
        msgspec.structs.replace(p, marks=(*p.marks, mark), owner=owner or p.owner)
        if p.hex == h
        else p
        for p in board.places
    ]
    return msgspec.structs.replace(board, places=tuple(places))


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
        # What was typed is selected: the next digits replace it (four digits at most: a
        # wrong 9999 took four backspaces before anything could be typed).
        await pilot.press(*"1307", "enter")
        await pilot.pause()
        assert not isinstance(app.screen, GotoDialog)
        assert app.query_one(HexMap).cursor == 1307
        assert app.moved == [1307]
        await pilot.press("g", *typed, "enter", "escape")  # refused, then given up
        await pilot.pause()
        assert not isinstance(app.screen, GotoDialog)
        assert app.query_one(HexMap).cursor == 1307 and app.moved == [1307]


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
