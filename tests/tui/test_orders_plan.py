"""The what-if markers (`tui.mapstacks.plan_markers`) on hand-made boards (`engine.core.face`).

Only hexes whose stack the drafts change get a marker, each ending in ``~`` so monochrome
reads it; a hex the drafts empty shows ``~`` alone, and bases never count.
"""

from __future__ import annotations

from engine.core.face import Board, HexGrid, Piece
from tui.mapstacks import PLANNED, Counter, plan_markers, planned_marker

GLYPHS = {"KLI": "K", "KZI": "Z"}


def view(*units: tuple[str, str, str | None], bases: dict[str, list[str]] | None = None) -> Board:
    """A board: (id, side, hex) per piece; ``bases`` (pieces marked ``base``) by hex."""
    fixed = {b for ids in (bases or {}).values() for b in ids}
    pieces = tuple(
        Piece(u, "D7", e, h, ("supply-main", "base") if u in fixed else ("supply-main",))
        for u, e, h in units
    )
    return Board(HexGrid(61, 19), pieces=pieces)


def test_only_changed_hexes_get_a_planned_marker() -> None:
    now = view(("K1", "KLI", "1307"), ("K2", "KLI", "1307"), ("Z1", "KZI", "1305"))
    moved = view(("K1", "KLI", "1307"), ("K2", "KLI", "1306"), ("Z1", "KZI", "1305"))
    assert plan_markers(now, moved, GLYPHS) == {1306: "K1~", 1307: "K1~"}
    gone = view(("K1", "KLI", "1306"), ("K2", "KLI", "1306"), ("Z1", "KZI", "1305"))
    assert plan_markers(now, gone, GLYPHS) == {1306: "K2~", 1307: PLANNED}
    assert plan_markers(now, now, GLYPHS) == {}


def test_a_new_unit_and_a_base_hex() -> None:
    now = view(("SB", "KLI", "1411"), bases={"1411": ["SB"]})
    built = view(("SB", "KLI", "1411"), ("K9", "KLI", "1411"), bases={"1411": ["SB"]})
    assert plan_markers(now, built, GLYPHS) == {1411: "K1~"}  # the base is not counted


def test_planned_markers_stay_three_characters() -> None:
    assert planned_marker([Counter("KLI", crippled=True)], GLYPHS) == "K1~"  # flag gives way
    assert planned_marker([Counter("KLI")] * 12, GLYPHS) == "K+~"
    assert planned_marker([Counter("KLI"), Counter("KZI")], GLYPHS) == "KZ~"
    three = [Counter("KLI"), Counter("KLI"), Counter("KZI"), Counter("HYD")]
    assert planned_marker(three, {**GLYPHS, "HYD": "H"}) == "KH~"  # the + gives way too
    assert planned_marker([], GLYPHS) == PLANNED
