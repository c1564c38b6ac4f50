"""The board diff the review screen shows: two ``views`` records in, plain lines out."""

from __future__ import annotations

from typing import Any

from tui.screens.changes import Change, diff, ep_text


def unit(unit_id: str, cls: str, hex_id: str | None, *, crippled: bool = False) -> dict[str, Any]:
    return {"id": unit_id, "class": cls, "empire": unit_id[:3], "hex": hex_id, "crippled": crippled}


def empire(name: str, treasury2: int) -> dict[str, Any]:
    return {"empire": name, "treasury": ep_text(treasury2), "treasury2": treasury2}


def view(units: list[dict[str, Any]], empires: list[dict[str, Any]] | None = None, **extra: Any):
    return {"units": units, "empires": empires or [], "hexes": extra.get("hexes", [])}


def texts(changes: list[Change]) -> list[str]:
    return [change.text for change in changes]


def test_nothing_changed_says_nothing() -> None:
    before = view([unit("KLI-0001", "D7C", "1307")], [empire("KLI", 18)])
    assert diff(before, before) == []


def test_moves_placements_and_departures() -> None:
    before = view(
        [
            unit("KLI-0001", "D7C", "1307"),
            unit("KLI-0002", "D7", None),
            unit("KZI-0001", "CC", "1105"),
        ]
    )
    after = view(
        [
            unit("KLI-0001", "D7C", "1306"),
            unit("KLI-0002", "D7", "1307"),
            unit("KZI-0001", "CC", None),
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
    before = view(
        [
            unit("KZI-0002", "BC", "1105"),
            unit("KZI-0003", "CL", "1105", crippled=True),
            unit("KZI-0004", "FF", "1105"),
        ]
    )
    after = view(
        [
            unit("KZI-0002", "BC", "1105", crippled=True),
            unit("KZI-0003", "CL", "1105"),
            unit("KZI-0009", "FF", "1704"),
            unit("KZI-0010", "FF", None),
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
    hexes_before = [{"hex": "1205", "owner": "KZI"}, {"hex": "1307", "owner": "KLI"}]
    hexes_after = [{"hex": "1205", "owner": "KLI"}, {"hex": "1307", "owner": "KLI"}]
    before = view([], [empire("KLI", 18), empire("KZI", 40)], hexes=hexes_before)
    after = view([], [empire("KLI", 36), empire("KZI", 35)], hexes=hexes_after)
    changes = diff(before, after)
    assert texts(changes) == [
        "hex 1205 now KLI (was KZI)",
        "KLI treasury 9->18 (+9)",
        "KZI treasury 20->17.5 (-2.5)",
    ]
    assert changes[0].hexes == (1205,)
    assert [c.kind for c in changes] == ["captured", "treasury", "treasury"]


def test_the_first_board_is_one_line_not_every_unit() -> None:
    after = view([unit("KLI-0001", "D7C", None), unit("KZI-0001", "CC", None)])
    assert texts(diff(None, after)) == ["the board is laid out: 2 units"]
    assert texts(diff({}, after)) == ["the board is laid out: 2 units"]
    assert diff(None, None) == []


def test_ep_text() -> None:
    assert [ep_text(h) for h in (0, 1, 18, -5)] == ["0", "0.5", "9", "-2.5"]
    assert ep_text(3, signed=True) == "+1.5"
