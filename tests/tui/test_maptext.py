"""The ASCII hex map: geometry read back from the drawn text, F&E's printed map, the legend.

Positions are found in the text itself (by searching for each hex's id or tag), not taken
from `tui.mapgeom`, so a drawing bug cannot hide behind the geometry it was computed with.
Expected neighbours come from the rule "odd columns sit half a hex higher" (or the even
ones, for a grid that says so), written out here and cross-checked against
`engine.core.hexgrid`. F&E's map is drawn from its face's `MapSheet` alone
(`tui.mapsheet`) and checked against the galaxy data directly.

Snapshots under ``tests/tui/snapshots/`` are regenerated only on purpose:
``.venv/bin/python -m tests.tui.test_maptext``.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from msgspec.structs import replace

from engine.core import hexgrid
from engine.fe.face import FACE
from engine.fe.galaxy import NEUTRAL_ZONE, load_galaxy
from tui.mapgeom import HEADER_LINES, LABEL_WIDTH, SHAPES, Detail, Frame, Grid, band_frames
from tui.mapsheet import SheetIndex, cells_from_sheet, render_sheet
from tui.maptext import (
    Cell,
    CellFor,
    StyledLine,
    draw,
    draw_frame,
    draw_styled,
    legend,
    legend_entries,
    map_frame,
    parse_region,
    render_line,
)

FE_SHEET = FACE.map_sheet("the-wind")
FE = SheetIndex(FE_SHEET)
FE_GRID = FE.grid


def render_galaxy(region: str | None = None, width: int = 80, **options: object) -> list[str]:
    """F&E's printed map drawn as ``hexpost show --map`` draws it."""
    draw_it: Callable[..., list[str]] = render_sheet
    return draw_it(FE, region=region, width=width, **options)


SNAPSHOTS = Path(__file__).parent / "snapshots"
SNAPSHOT_CASES: dict[str, dict[str, object]] = {
    "fe_2005_3010_compact.txt": {"region": "2005:3010", "units": {2508: "K3", 2708: "F1*"}},
    "fe_1308_1613_detailed.txt": {
        "region": "1308:1613",
        "detail": "detailed",
        "units": {1411: "K3", 1510: "F1*"},
    },
}


def expected_neighbours(h: int, cols: int, rows: int, *, odd_high: bool = True) -> set[int]:
    """The rule, spelled out: odd columns are half a hex higher than even ones (the even
    ones, when not ``odd_high``)."""
    c, r = divmod(h, 100)
    side = (r - 1, r) if (c % 2 == 1) == odd_high else (r, r + 1)
    near = [(c, r - 1), (c, r + 1)] + [(c + dc, rr) for dc in (-1, 1) for rr in side]
    return {x * 100 + y for x, y in near if 1 <= x <= cols and 1 <= y <= rows}


def tagged(cols: int, rows: int) -> CellFor:
    """A hand-made map whose every hex shows a unique 3-character tag: a letter for the
    column (a = 1), two digits for the row; letters keep tags apart from the ids."""

    def cell_for(h: int) -> Cell:
        return Cell(hex=h, glyph="A", content=tag(h))

    assert cols <= 26 and rows <= 99
    return cell_for


def tag(h: int) -> str:
    return f"{chr(ord('a') - 1 + h // 100)}{h % 100:02d}"


def find_all(lines: list[str], token: str) -> list[tuple[int, int]]:
    found = []
    for y, line in enumerate(lines):
        x = line.find(token)
        while x >= 0:
            found.append((y, x))
            x = line.find(token, x + 1)
    return found


def touching(a: tuple[int, int], b: tuple[int, int], width: int, height: int) -> bool:
    """Two boxes are visually adjacent: their characters overlap horizontally and they lie at
    most one box height apart vertically (the same column's next box is 2 heights down)."""
    (ya, xa), (yb, xb) = a, b
    return abs(ya - yb) <= 2 * height and xa < xb + width and xb < xa + width


# --- geometry -----------------------------------------------------------------------------


def test_neighbour_rule_matches_the_engine_hexgrid() -> None:
    for h in (101, 201, 1411, 1510, 2908, 6119, 6101, 119):
        assert expected_neighbours(h, 61, 19) == set(hexgrid.neighbours(h, 61, 19))


@pytest.mark.parametrize("odd_high", [True, False])
@pytest.mark.parametrize("detail", ["compact", "detailed"])
def test_each_hex_touches_exactly_its_six_neighbours_in_the_text(
    detail: Detail, odd_high: bool
) -> None:
    cols, rows = 8, 6
    lines = draw(Grid(cols, rows, odd_high=odd_high), tagged(cols, rows), detail=detail)
    shape = SHAPES[detail]
    where = {}
    for c in range(1, cols + 1):
        for r in range(1, rows + 1):
            spots = find_all(lines, tag(c * 100 + r))
            assert len(spots) == 1, (c, r, spots)
            y, x = spots[0]
            if detail == "detailed":  # the tag follows the 3 terrain characters and a blank
                y, x = y - 1, x - 4
                assert lines[y][x : x + 4] == f"{c:02d}{r:02d}"
            where[c * 100 + r] = (y, x)
    interior_checked = {1: False, 0: False}
    for h, spot in where.items():
        near = {
            o
            for o, other in where.items()
            if o != h and touching(spot, other, shape.width, shape.height)
        }
        assert near == expected_neighbours(h, cols, rows, odd_high=odd_high), h
        if 1 < h // 100 < cols and 1 < h % 100 < rows:
            assert len(near) == 6
            interior_checked[(h // 100) % 2] = True
    assert all(interior_checked.values())  # both column parities had six neighbours


def test_odd_columns_sit_half_a_hex_higher() -> None:
    lines = draw(Grid(4, 3), tagged(4, 3))
    (y101, x101), (y201, x201), (y301, _) = (find_all(lines, tag(h))[0] for h in (101, 201, 301))
    assert y101 == y301 == y201 - 1
    assert x201 - x101 == SHAPES["compact"].pitch
    assert lines[0].split() == ["01", "03"] and lines[1].split() == ["02", "04"]


def test_even_columns_sit_higher_when_the_grid_says_so() -> None:
    lines = draw(Grid(4, 3, odd_high=False), tagged(4, 3))
    (y101, _), (y201, _), (y301, _) = (find_all(lines, tag(h))[0] for h in (101, 201, 301))
    assert y201 == y101 - 1 == y301 - 1
    assert lines[0].split() == ["02", "04"] and lines[1].split() == ["01", "03"]
    assert lines[HEADER_LINES].startswith("01 ")  # the row number on the higher hexes' line


def test_a_grid_need_not_start_at_column_one() -> None:
    grid = Grid(3, 2, first_column=0, first_row=0)
    lines = draw(grid, lambda h: Cell(hex=h, glyph="A"))
    assert lines[0].split() == ["01"] and lines[1].split() == ["00", "02"]
    assert [line[:3] for line in lines[HEADER_LINES:]][::2] == ["00 ", "01 "]
    with pytest.raises(ValueError, match="off the 3x2 map"):
        map_frame(grid, region=(0, 301))
    with pytest.raises(ValueError, match="up to 99"):
        Grid(100, 5)


def test_on_line_agrees_with_origin_for_the_line_api() -> None:
    for shape in SHAPES.values():
        frame = Frame(3, 9, 2, 7, shape)
        placed = {(y, p.x, p.hex, p.part) for y in range(frame.height) for p in frame.on_line(y)}
        expected = set()
        for h in frame.hexes():
            y, x = frame.origin(h)
            expected |= {(y + part, x, h, part) for part in range(shape.height)}
        assert placed == expected
        assert frame.on_line(0) == frame.on_line(frame.height) == []
        for h in frame.hexes():
            y, x = frame.origin(h)
            box = [(y + dy, x + dx) for dy in range(shape.height) for dx in range(shape.width)]
            assert {frame.hex_at(*spot) for spot in box} == {h}
        assert frame.hex_at(HEADER_LINES, 0) is None  # the row label
        assert render_line(frame, frame.height, tagged(9, 9)).text.strip() == ""
        assert render_line(frame, -1, tagged(9, 9)).text.strip() == ""


def test_render_line_is_the_frame_line_by_line() -> None:
    frame = map_frame(Grid(8, 6), detail="detailed")
    cells = tagged(8, 6)
    whole = draw_frame(frame, cells)
    assert [render_line(frame, y, cells) for y in range(frame.height)] == whole
    assert all(len(line.text) == frame.width for line in whole)
    assert [line.text.rstrip() for line in whole] == draw(Grid(8, 6), cells, detail="detailed")


@pytest.mark.parametrize("detail", ["compact", "detailed"])
def test_a_window_of_a_line_is_that_stretch_of_the_whole_line(detail: Detail) -> None:
    """`render_line` with a window (what the map widget draws: the stretch on screen) gives
    the characters and styles of the whole line there, for every line and every window,
    with the cursor's brackets on either edge of it."""
    frame = map_frame(Grid(12, 4), detail=detail)
    tags = tagged(12, 4)

    def cell_for(h: int) -> Cell:
        cell = tags(h)
        assert cell is not None
        styled = replace(cell, color="red" if h % 3 else "", battle=h % 5 == 0)
        return replace(styled, selected=True) if h == 503 else styled

    def styled_chars(line: StyledLine, first: int, last: int) -> list[tuple[str, str]]:
        styles = [""] * len(line.text)
        for span in line.spans:
            styles[span.start : span.end] = [span.style] * (span.end - span.start)
        return list(zip(line.text, styles, strict=True))[first:last]

    for y in range(frame.height):
        whole = render_line(frame, y, cell_for)
        for first in range(frame.width):
            for last in range(first, frame.width + 1, 3):
                part = render_line(frame, y, cell_for, (first, last))
                assert len(part.text) == frame.width
                assert part.text[:LABEL_WIDTH] == whole.text[:LABEL_WIDTH]
                assert styled_chars(part, first, last) == styled_chars(whole, first, last)


def test_bands_are_even_and_fit() -> None:
    frames = band_frames(Frame(1, 61, 1, 19, SHAPES["compact"]), 80)
    assert [(f.col0, f.col1) for f in frames] == [(1, 31), (32, 61)]
    for width in (30, 50, 80, 120):
        for shape in SHAPES.values():
            bands = band_frames(Frame(1, 61, 1, 19, shape), width)
            assert all(f.width <= width for f in bands)
            assert [c for f in bands for c in f.columns] == list(range(1, 62))
            sizes = [len(f.columns) for f in bands]
            assert max(sizes) - min(sizes) <= 1
    with pytest.raises(ValueError, match="at least"):
        band_frames(Frame(1, 61, 1, 19, SHAPES["detailed"]), 10)


# --- cells, cursor, styles ----------------------------------------------------------------


def test_cell_refuses_what_does_not_fit() -> None:
    with pytest.raises(ValueError, match="longer than 3"):
        Cell(hex=101, content="K12*")
    with pytest.raises(ValueError, match="one character"):
        Cell(hex=101, glyph="KL")


def test_terrain_packs_marks_left() -> None:
    assert Cell(101, "K", capital=True, major_planet=True, base=True).terrain == "K@#"
    assert Cell(101, "K", base=True).terrain == "K# "
    assert Cell(101, "K", minor_planet=True, major_planet=True).terrain == "KO "
    assert Cell(101, neutral=True, minor_planet=True).terrain == ":o "
    assert Cell(101).terrain == ".  "


def test_cursor_brackets_and_styles() -> None:
    def cells(h: int) -> Cell:
        return Cell(
            hex=h,
            glyph="K",
            color="#000000",
            text_color="#ffffff",
            capital=h == 202,
            major_planet=h == 202,
            selected=h in (202, 402, 602),
        )

    styled = draw_styled(Grid(6, 3), cells)
    text = [line.text for line in styled]
    y, x = find_all(text, "K@")[0]
    assert text[y][x - 1 : x + 13] == "[K@ |K  |K  ]"  # one line's neighbours share a gap
    lone = draw(Grid(6, 3), lambda h: Cell(hex=h, glyph="K", selected=h == 301))
    assert "[K  ]" in lone[HEADER_LINES]
    spans = {span.start: span.style for span in styled[y].spans}
    assert spans[x] == "bold #ffffff on #000000 reverse"
    assert spans[x + 4] == "#ffffff on #000000 reverse"
    for line in styled:
        ends = [(s.start, s.end) for s in line.spans]
        assert ends == sorted(ends)
        assert all(a_end <= b for (_, a_end), (b, _) in pairwise(ends))
    assert draw(Grid(6, 3), cells) == [line.text.rstrip() for line in styled]


def test_targets_are_drawn_in_braces_and_the_cursor_wins() -> None:
    """A hex an order may go to reads ``{K3 }`` in monochrome; two side by side share a
    ``|`` as the cursor's brackets do; the cursor on a target shows its own brackets."""
    targets, cursor = {102, 203, 303, 302, 403, 502}, 302

    def cells(h: int) -> Cell:
        return Cell(hex=h, content="K3", target=h in targets, selected=h == cursor)

    text = draw(Grid(8, 3), cells)
    # 0302: the cursor, not braces; its brackets win over its neighbours' on the line
    assert text[HEADER_LINES + 2] == "02{K3 [K3 ]K3 }K3"
    assert text[HEADER_LINES + 4] == "03 K3 {K3 }K3  K3"  # 0303 alone
    assert text[HEADER_LINES + 5] == "    {K3 |K3 }K3  K3"  # 0203 and 0403 side by side
    styled = draw_styled(Grid(8, 3), cells)
    spans = {span.start: span.style for span in styled[HEADER_LINES + 5].spans}
    assert spans[5] == "bold"
    assert draw(Grid(8, 3), lambda h: Cell(hex=h, content="K3")) == [
        line.replace("{", " ").replace("}", " ").replace("|", " ").replace("[", " ")
        .replace("]", " ").rstrip()
        for line in text
    ]  # fmt: skip


def test_styles_feed_a_textual_strip() -> None:
    """The recipe of the module docstring: spans become Segments of one Strip per line."""
    from rich.segment import Segment
    from rich.style import Style
    from textual.strip import Strip

    frame = map_frame(FE_GRID, region=(1310, 1512), detail="detailed")
    cell_for = cells_from_sheet(FE)
    for y in range(frame.height):
        line = render_line(frame, y, cell_for)
        segments, at = [], 0
        for span in line.spans:
            segments.append(Segment(line.text[at : span.start]))
            segments.append(Segment(line.text[span.start : span.end], Style.parse(span.style)))
            at = span.end
        segments.append(Segment(line.text[at:]))
        strip = Strip(segments)
        assert strip.cell_length == frame.width
        assert strip.text == line.text
    y, x = frame.origin(1411)
    (span,) = [s for s in render_line(frame, y + 1, cell_for).spans if s.start == x]
    assert Style.parse(span.style) == Style.parse("bold #ffffff on #000000")


# --- F&E's printed map, from its face's sheet -------------------------------------------


def galaxy_box(h: int) -> str:
    """What the compact map must show at ``h``, worked out from the galaxy data directly."""
    info = load_galaxy().hex(h)
    owner = ":" if info.empire == NEUTRAL_ZONE else load_galaxy().empire(info.empire).glyph
    kinds = {p.kind for p in info.planets}
    planet = "@" if info.capital else "O" if "major" in kinds else "o" if "minor" in kinds else ""
    return (owner + planet + ("#" if info.bases else "")).ljust(3)


def box_in(lines: list[str], frame: Frame, h: int) -> str:
    y, x = frame.origin(h)
    return lines[y][x : x + frame.shape.width].ljust(frame.shape.width)


def test_every_hex_of_the_galaxy_shows_its_owner_planets_and_bases() -> None:
    galaxy = load_galaxy()
    assert (FE_GRID.columns, FE_GRID.rows) == (galaxy.width, galaxy.height)
    frame = map_frame(FE_GRID)
    lines = draw(FE_GRID, cells_from_sheet(FE))
    assert len(galaxy.hexes) == 61 * 19
    for info in galaxy.hexes:
        assert box_in(lines, frame, info.hex) == galaxy_box(info.hex), info.hex


@pytest.mark.parametrize(
    ("hex_", "box"),
    [
        (1411, "K@#"),  # Klingon capital
        (2908, "F@#"),  # Federation capital
        (2214, ":o "),  # neutral-zone planet
        (5910, "I@ "),  # ISC capital, no starting base
        (2919, "T@#"),  # Tholian capital
        (906, "K# "),  # a base at game start
        (5309, "I  "),  # owner only
    ],
)
def test_known_hexes_in_a_rendered_region(hex_: int, box: str) -> None:
    c, r = divmod(hex_, 100)
    lines = render_galaxy(f"{c - 1:02d}{max(r - 1, 1):02d}:{c + 1:02d}{min(r + 1, 19):02d}")
    frame = Frame(c - 1, c + 1, max(r - 1, 1), min(r + 1, 19), SHAPES["compact"])
    assert box_in(lines, frame, hex_) == box


def test_neutral_zone_planets_and_hexes() -> None:
    galaxy = load_galaxy()
    frame = map_frame(FE_GRID)
    lines = draw(FE_GRID, cells_from_sheet(FE))
    assert galaxy.neutral_zone.planets == (2214, 3415, 3912, 4309, 5109, 5403)
    for h in galaxy.neutral_zone.planets:
        assert box_in(lines, frame, h) == ":o "
    assert all(box_in(lines, frame, h)[0] == ":" for h in galaxy.neutral_zone.hexes)


@pytest.mark.parametrize("detail", ["compact", "detailed"])
@pytest.mark.parametrize("width", [80, 60])
def test_whole_map_fits_and_shows_every_hex_once(detail: Detail, width: int) -> None:
    lines = render_galaxy(None, width, detail=detail)
    assert all(len(line) <= width for line in lines)
    bands = band_frames(Frame(1, 61, 1, 19, SHAPES[detail]), width)
    body: list[str] = []
    y = 0
    for band in bands:
        chunk = lines[y : y + band.height]
        assert chunk[0].split() == [f"{c:02d}" for c in band.columns if c % 2]
        assert chunk[1].split() == [f"{c:02d}" for c in band.columns if c % 2 == 0]
        body += [line[LABEL_WIDTH:] for line in chunk[HEADER_LINES:]]
        y += band.height + 1  # a blank line after each band
    if detail == "compact":
        assert sum(len(line.split()) for line in body) == 1159  # one token per hex
    else:
        ids = [token for line in body for token in line.split() if token.isdigit()]
        assert sorted(ids) == [f"{c:02d}{r:02d}" for c in range(1, 62) for r in range(1, 20)]
    assert lines[y - 1] == ""
    assert lines[y].startswith("Each hex")  # the legend follows the bands


def test_compact_whole_map_is_two_bands_within_80_columns() -> None:
    lines = render_galaxy(None)
    assert lines[0].startswith("   01  03")
    assert max(len(line) for line in lines) <= 80
    assert len([line for line in lines if line.startswith("   01")]) == 1
    assert len([line for line in lines if line.lstrip().startswith("32")]) == 1


def test_units_replace_terrain_in_compact_and_follow_it_in_detailed() -> None:
    compact = render_galaxy("1310:1512", units={1411: "K3"})
    frame = Frame(13, 15, 10, 12, SHAPES["compact"])
    assert box_in(compact, frame, 1411) == "K3 "
    detailed = render_galaxy("1310:1512", detail="detailed", units={1411: "K3"})
    frame = Frame(13, 15, 10, 12, SHAPES["detailed"])
    y, x = frame.origin(1411)
    assert detailed[y][x : x + 7].ljust(7) == "1411   "
    assert detailed[y + 1][x : x + 7].ljust(7) == "K@# K3 "


# --- regions ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("0100:9999", "region 0100:9999: column 99 is off the 61x19 map"),
        ("6201:0101", "region 6201:0101: column 62 is off the 61x19 map"),
        ("0100:0101", "region 0100:0101: row 00 is off the 61x19 map"),
        ("0120:0101", "region 0120:0101: row 20 is off the 61x19 map"),
        ("1411", "give two corner hexes as XXYY:XXYY"),
        ("14-11:2012", "give two corner hexes as XXYY:XXYY"),
        ("", "give two corner hexes"),
    ],
)
def test_region_errors(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_region(text, Grid(61, 19))
    with pytest.raises(ValueError, match=message):
        render_galaxy(text)


def test_region_corners_in_any_order() -> None:
    assert parse_region(" 1005:2012 ", Grid(61, 19)) == (1005, 2012)
    assert render_galaxy("2012:1005") == render_galaxy("1005:2012")
    assert render_galaxy("2005:1012") == render_galaxy("1005:2012")
    single = render_galaxy("1411:1411")
    assert "K@#" in single[3]


# --- legend -------------------------------------------------------------------------------


def legend_glyphs(entries: list[tuple[str, list[tuple[str, str]]]]) -> set[str]:
    return {g for _, items in entries for glyph, _ in items for g in glyph if g != " "}


def test_legend_lists_every_glyph_on_the_whole_map() -> None:
    galaxy = load_galaxy()
    cell_for = cells_from_sheet(FE)
    cells = [c for info in galaxy.hexes if (c := cell_for(info.hex)) is not None]
    lines = draw(FE_GRID, cell_for)
    drawn = {ch for line in lines[HEADER_LINES:] for ch in line[LABEL_WIDTH:] if ch != " "}
    assert drawn == legend_glyphs(legend_entries(cells))
    text = "\n".join(render_galaxy(None))
    for empire in galaxy.empires:
        if empire.id != NEUTRAL_ZONE:
            assert f"{empire.glyph} {empire.short_name}" in text
    assert ": neutral zone" in text
    assert "@ capital" in text and "O major planet" in text and "o minor planet" in text


def test_legend_covers_unowned_units_and_cursor_and_stays_short() -> None:
    cells = [
        Cell(101),
        Cell(201, "K", content="K3", selected=True),
    ]
    entries = legend_entries(cells, {"K": "Klingon"})
    assert [slot for slot, _ in entries] == ["owner", "units", "cursor"]
    assert {"K", ".", "3", "[", "]"} <= legend_glyphs(entries)
    lines = legend(cells, {"K": "Klingon"}, width=40)
    assert all(len(line) <= 40 for line in lines)
    assert "planet" not in "\n".join(lines[1:-2])  # no planet drawn, none explained


# --- snapshots ----------------------------------------------------------------------------


def snapshot_text(case: dict[str, Any]) -> str:
    return "\n".join(render_galaxy(**case)) + "\n"


@pytest.mark.parametrize("name", sorted(SNAPSHOT_CASES))
def test_snapshot(name: str) -> None:
    expected = (SNAPSHOTS / name).read_text(encoding="utf-8")
    assert snapshot_text(SNAPSHOT_CASES[name]) == expected, (
        f"{name} changed; if on purpose, run .venv/bin/python -m tests.tui.test_maptext"
    )


if __name__ == "__main__":
    SNAPSHOTS.mkdir(exist_ok=True)
    for snapshot_name, snapshot_case in sorted(SNAPSHOT_CASES.items()):
        (SNAPSHOTS / snapshot_name).write_text(snapshot_text(snapshot_case), encoding="utf-8")
        print(f"wrote {SNAPSHOTS / snapshot_name}")


# --- captures, battles and the pinned column numbers ----------------------------------------


def test_a_captured_hex_shows_its_captor_in_lower_case() -> None:
    cell_for = cells_from_sheet(FE, captured={1411: "KZI"})
    cell = cell_for(1411)
    assert cell is not None and cell.captured
    assert cell.terrain.startswith("z@")  # Kzinti-held, once the Klingon capital
    assert "italic" in cell.style.split() and "#ffffff" in cell.style  # Kzinti colours
    home = cell_for(1410)
    assert home is not None and not home.captured and home.owner == "K"
    # Taken back by its printed owner: the board no longer marks it captured.
    entries = dict(legend_entries([cell, home], {"K": "Klingon", "Z": "Kzinti"}))
    assert ("z", "captured by Kzinti") in entries["owner"]
    assert ("K", "Klingon") in entries["owner"]


def test_a_battle_hex_is_styled_and_explained() -> None:
    cell_for = cells_from_sheet(FE, {1411: "KZx"}, battles={1411})
    cell = cell_for(1411)
    assert cell is not None and cell.battle and cell.box(SHAPES["compact"]) == ["KZx"]
    other = cell_for(1410)
    assert other is not None and not other.battle
    assert cell.style != other.style
    # With no units counted (a base under attack), the terrain shows and the style marks it.
    bare = cells_from_sheet(FE, battles={1410})(1410)
    assert bare is not None and bare.battle and "bold" in bare.style


@pytest.mark.parametrize("detail", ["compact", "detailed"])
def test_pinned_column_numbers_are_never_cut(detail: Detail) -> None:
    """The widget pins the column numbers and scrolls the map under them: a number half
    scrolled off the left shows whole over its box's visible part, or not at all."""
    frame = map_frame(FE_GRID, detail=detail)
    for scroll in range(0, 3 * frame.shape.pitch):
        for width in (20, 21, 22, 23):
            lines = frame.pinned_header(scroll, width)
            assert all(len(line) == LABEL_WIDTH + width for line in lines)
            for line in lines:
                assert line[:LABEL_WIDTH] == " " * LABEL_WIDTH
                numbers = line.split()
                assert all(len(n) == 2 and n.isdigit() for n in numbers), (scroll, line)
            shown = sorted(int(n) for line in lines for n in line.split())
            assert shown == list(range(shown[0], shown[-1] + 1)), (scroll, width, lines)
    # Scrolled one character: column 01's box shows its last two characters, and 01 in full.
    compact = map_frame(FE_GRID)
    assert compact.pinned_header(1, 12) == ["   01 03  05   ", "    02  04  06 "]
    assert compact.pinned_header(0, 12) == frame_header(compact, 12)


def frame_header(frame: Frame, width: int) -> list[str]:
    return [line[: LABEL_WIDTH + width] for line in frame.header()]
