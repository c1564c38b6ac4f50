"""The board diff the review screen shows: two boards of the ruleset's face in, plain lines out."""

from __future__ import annotations

from engine.core.face import Board, Fact, HexGrid, Piece, Place, Side
from tui.screens.changes import Change, diff, fact_change

GRID = HexGrid(61, 19)


def piece(piece_id: str, kind: str, hex_id: str | None, *, crippled: bool = False) -> Piece:
    return Piece(piece_id, kind, piece_id[:3], hex_id, ("crippled",) if crippled else ())


def side(name: str, treasury: str) -> Side:
    """A side with F&E's treasury fact, worded as F&E's face words it (``"9 EP"``)."""
    return Side(name, name, "seat", (Fact("treasury", treasury),))


def board(
    pieces: list[Piece], sides: list[Side] | None = None, places: list[Place] | None = None
) -> Board:
    return Board(GRID, tuple(sides or ()), tuple(pieces), tuple(places or ()))


def texts(changes: list[Change]) -> list[str]:
    return [change.text for change in changes]


def test_nothing_changed_says_nothing() -> None:
    before = board([piece("KLI-0001", "D7C", "1307")], [side("KLI", "9 EP")])
    assert diff(before, before) == []


def test_moves_placements_and_departures() -> None:
    before = board(
        [
            piece("KLI-0001", "D7C", "1307"),
            piece("KLI-0002", "D7", None),
            piece("KZI-0001", "CC", "1105"),
        ]
    )
    after = board(
        [
            piece("KLI-0001", "D7C", "1306"),
            piece("KLI-0002", "D7", "1307"),
            piece("KZI-0001", "CC", None),
        ]
    )
    changes = diff(before, after)
    assert texts(changes) == [
        "KLI-0001 D7C moved 1307->1306",
        "KLI-0002 D7 placed in 1307",
        "KZI-0001 CC left the map from 1105",
    ]
    assert changes[0].hexes == (1306, 1307)  # where it is now first: the map goes there


def test_crippled_repaired_destroyed_and_built() -> None:
    before = board(
        [
            piece("KZI-0002", "BC", "1105"),
            piece("KZI-0003", "CL", "1105", crippled=True),
            piece("KZI-0004", "FF", "1105"),
        ]
    )
    after = board(
        [
            piece("KZI-0002", "BC", "1105", crippled=True),
            piece("KZI-0003", "CL", "1105"),
            piece("KZI-0009", "FF", "1704"),
            piece("KZI-0010", "FF", None),
        ]
    )
    assert texts(diff(before, after)) == [
        "KZI-0002 BC crippled in 1105",
        "KZI-0003 CL repaired in 1105",
        "KZI-0004 FF destroyed in 1105",
        "KZI-0009 FF new in 1704",
        "KZI-0010 FF new (off the map)",
    ]


def test_treasuries_and_captures() -> None:
    places_before = [Place("1205", "KZI"), Place("1307", "KLI")]
    places_after = [Place("1205", "KLI"), Place("1307", "KLI")]
    before = board([], [side("KLI", "9 EP"), side("KZI", "20 EP")], places_before)
    after = board([], [side("KLI", "18 EP"), side("KZI", "17.5 EP")], places_after)
    changes = diff(before, after)
    assert texts(changes) == [
        "hex 1205 now KLI (was KZI)",
        "KLI treasury 9->18 (+9)",
        "KZI treasury 20->17.5 (-2.5)",
    ]
    assert changes[0].hexes == (1205,)
    assert [c.kind for c in changes] == ["captured", "fact", "fact"]


def test_a_sides_figures_in_its_own_words() -> None:
    """Any fact of any ruleset: amounts in one unit give their difference, the rest their
    two values."""
    assert fact_change(Fact("x", "3"), Fact("x", "4.5")) == "3->4.5 (+1.5)"
    assert fact_change(Fact("x", "1 EP"), Fact("x", "0.5 EP")) == "1->0.5 (-0.5)"
    assert fact_change(Fact("x", "2 EP"), Fact("x", "2 PP")) == "2 EP->2 PP"
    assert fact_change(Fact("x", "calm"), Fact("x", "war")) == "calm->war"
    before = Board(None, (Side("north", "North", "north", (Fact("morale", "high"),)),))
    after = Board(None, (Side("north", "North", "north", (Fact("morale", "low"),)),))
    assert texts(diff(before, after)) == ["north morale high->low"]


def test_the_first_board_is_one_line_not_every_unit() -> None:
    after = board([piece("KLI-0001", "D7C", None), piece("KZI-0001", "CC", None)])
    assert texts(diff(None, after)) == ["the board is laid out: 2 units"]
    assert texts(diff(board([]), after)) == ["the board is laid out: 2 units"]
    assert diff(None, None) == []
