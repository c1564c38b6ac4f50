"""Stack markers (`tui.mapstacks`) read from a typed board, and F&E's printed map drawn with
them (`tui.mapsheet.render_sheet`)."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from engine.core.face import Board, HexGrid, Piece, Place
from engine.fe.face import FACE
from tui.mapstacks import (
    BATTLE,
    BOTH,
    CRIPPLED,
    OUT_OF_SUPPLY,
    PLANNED,
    Counter,
    battle_hexes,
    battle_marker,
    captured_owners,
    counter_of,
    stack_legend,
    stack_marker,
    stack_markers,
    stacks_from_board,
)

FE_SHEET = FACE.map_sheet("the-wind")


def render(region: str, board: Board | None = None, **options: Any) -> list[str]:
    from tui.mapsheet import render_sheet

    return render_sheet(FE_SHEET, board, region=region, **options)


GLYPHS = {"KLI": "K", "KZI": "Z", "FED": "F"}
NAMES = {"K": "Klingon", "Z": "Kzinti", "F": "Federation"}
K, Z, F = Counter("KLI"), Counter("KZI"), Counter("FED")
K_CRIPPLED = Counter("KLI", crippled=True)
K_CUT_OFF = Counter("KLI", supply="none")


@pytest.mark.parametrize(
    ("counters", "marker"),
    [
        ([], ""),
        ([K], "K1"),
        ([K, K, K], "K3"),
        ([K, K_CRIPPLED], "K2*"),
        ([K, K_CUT_OFF], "K2!"),
        ([K_CRIPPLED, K_CUT_OFF], "K2&"),
        ([K, Counter("KLI", supply="partial")], "K2"),
        ([K] * 9, "K9"),
        ([K] * 10, "K10"),
        ([K] * 12, "K12"),
        ([K] * 8 + [K_CRIPPLED], "K9*"),
        ([K] * 11 + [K_CRIPPLED], "K+*"),
        ([K] * 100, "K+"),
        ([Z, K, K], "KZ"),
        ([Z, K], "KZ"),
        ([Z, Z, K_CRIPPLED], "ZK*"),
        ([Z, K, F], "FK+"),
        ([Counter("ROM")], "?1"),
    ],
)
def test_markers(counters: list[Counter], marker: str) -> None:
    got = stack_marker(counters, GLYPHS)
    assert got == marker
    assert len(got) <= 3


def test_markers_leave_empty_stacks_out() -> None:
    assert stack_markers({1307: [K, K], 1105: []}, GLYPHS) == {1307: "K2"}


def test_legend_explains_only_the_forms_drawn() -> None:
    assert stack_legend(["K3"], NAMES) == [("K3", "3 Klingon units")]
    assert stack_legend(["Z1", "K2*", "ZK!"], NAMES) == [
        ("K2", "2 Klingon units"),
        ("ZK", "Kzinti and Klingon units, the larger stack first"),
        ("*", "some crippled"),
        ("!", "some out of supply"),
    ]
    assert stack_legend(["K+&", "FK+"], NAMES) == [
        ("K+", "ten or more units"),
        ("FK", "Federation and Klingon units, the larger stack first"),
        ("FK+", "three or more sides"),
        ("&", "crippled and out of supply"),
    ]
    assert stack_legend([]) == []


def board(*extra_places: Place) -> Board:
    """Two Klingon ships in 1307 (one crippled) over a battle station, one off the map, a
    lone battle station in 1507, a Kzinti ship out of supply in 1306."""

    def piece(pid: str, side: str, h: str | None, *marks: str) -> Piece:
        return Piece(pid, "D7", side, h, ("supply-main", *marks) if h else marks)

    places = [
        Place("1306", "KLI", pieces=("KZI-0001",)),
        Place("1307", "KLI", ("BATS KLI-B002",), ("KLI-0001", "KLI-0002", "KLI-B002"), ("base",)),
        Place("1507", "KLI", ("BATS KLI-B003",), ("KLI-B003",), ("base",)),
    ]
    return Board(
        HexGrid(61, 19),
        pieces=(
            piece("KLI-0001", "KLI", "1307"),
            Piece("KLI-0002", "D7", "KLI", "1307", ("crippled", "supply-partial")),
            piece("KLI-0003", "KLI", None),
            piece("KLI-B002", "KLI", "1307", "base"),
            piece("KLI-B003", "KLI", "1507", "base"),
            Piece("KZI-0001", "CC", "KZI", "1306", ("supply-none",)),
        ),
        places=tuple(places) + extra_places,
    )


def test_stacks_from_a_board_leave_bases_and_off_map_pieces_out() -> None:
    stacks, bases = stacks_from_board(board())
    assert stacks == {
        1307: [Counter("KLI"), Counter("KLI", crippled=True, supply="partial")],
        1306: [Counter("KZI", supply="none")],
    }
    assert bases == {1307, 1507}
    assert stacks_from_board(Board(None)) == ({}, set())


def test_counters_read_the_piece_marks() -> None:
    assert counter_of(Piece("a", "x", "S", "0101")) == Counter("S")
    assert counter_of(Piece("a", "x", "S", "0101", ("out-of-supply",))) == Counter(
        "S", False, "none"
    )
    assert counter_of(Piece("a", "x", "S", "0101", ("reserve", "crippled"))).crippled


def test_render_draws_stacks_and_the_bases_of_the_board() -> None:
    lines = render("1306:1507", board())
    assert max(len(line) for line in lines) <= 80
    drawn = "\n".join(lines)
    row6 = next(line for line in lines if line.startswith("06 "))
    row7 = next(line for line in lines if line.startswith("07 "))
    assert row6.split() == ["06", "Z1!", ":"], drawn
    assert row7.split() == ["07", "K2*", "K#"], drawn
    assert "  units:  K2 2 Klingon units  * some crippled  ! some out of supply" in lines
    assert "Stacks leave out bases (the terrain's #), and a stack hides the terrain." in lines


def test_bases_follow_the_board_when_given() -> None:
    """1307 has a battle station on the printed map; once it is gone the # goes too."""
    printed = render("1307:1307")
    empty = render("1307:1307", Board(HexGrid(61, 19)))
    assert "K#" in printed[2] and empty[2].split() == ["07", "K"]


# --- battles, captures and the plan in the legend -------------------------------------------


@pytest.mark.parametrize(
    ("counters", "marker"),
    [
        ([Z, K, K], "KZx"),
        ([Z, K_CRIPPLED], "KZx"),  # the battle mark takes the flag's place
        ([Z, K, F], "FKx"),  # and the "+" of three empires
        ([K, K], "K2x"),  # ships against a base (bases are not counted)
        ([K] * 12, "K+x"),
        ([], ""),  # nothing to mark: the cell's style says it
    ],
)
def test_battle_markers(counters: list[Counter], marker: str) -> None:
    assert battle_marker(counters, GLYPHS) == marker
    assert stack_markers({1307: counters}, GLYPHS, battles={1307}).get(1307, "") == marker


def with_marks(base: Board, marks: dict[str, tuple[str, ...]], owner: dict[str, str]) -> Board:
    """``base`` with places' marks and owners changed (places added as needed)."""
    places = {p.hex: p for p in base.places}
    for h in sorted(marks.keys() | owner.keys()):
        place = places.get(h, Place(h))
        places[h] = msgspec.structs.replace(
            place, marks=place.marks + marks.get(h, ()), owner=owner.get(h, place.owner)
        )
    return msgspec.structs.replace(base, places=tuple(places.values()))


def test_battle_and_captured_hexes_from_place_marks() -> None:
    marked = with_marks(
        board(), {"1306": ("battle",), "1407": ("captured",)}, {"1407": "KZI", "1408": "KLI"}
    )
    assert battle_hexes(marked) == {1306}
    assert captured_owners(marked) == {1407: "KZI"}
    assert battle_hexes(Board(None)) == set() and captured_owners(Board(None)) == {}


def test_legend_explains_the_battle_and_plan_marks() -> None:
    entries = dict(stack_legend(["KZx", "K3~", "~"], NAMES))
    assert entries[BATTLE] == "battle hex: enemies meet here"
    assert entries["K3~"].startswith("planned:")
    assert entries[PLANNED].startswith("planned:")
    assert "*" not in entries and "!" not in entries
    # The glyphs stay distinct from each other and from the terrain's.
    assert len({BATTLE, PLANNED, CRIPPLED, OUT_OF_SUPPLY, BOTH, "@", "O", "o", "#", ":", "."}) == 11


def test_render_marks_battles_and_captures() -> None:
    marked = with_marks(board(), {"1306": ("battle",), "1507": ("captured",)}, {"1507": "KZI"})
    lines = render("1306:1507", marked)
    row6 = next(line for line in lines if line.startswith("06 "))
    row7 = next(line for line in lines if line.startswith("07 "))
    assert row6.split() == ["06", "Z1x", ":"]
    assert row7.split() == ["07", "K2*", "z#"]
    text = "\n".join(lines)
    assert "x battle hex" in text
    assert "z captured by Kzinti" in text
