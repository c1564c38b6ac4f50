"""Stack markers (`tui.mapstacks`) and the map drawn with them (`tui.maptext.render_galaxy`)."""

from __future__ import annotations

from typing import Any

import pytest

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
    stack_legend,
    stack_marker,
    stack_markers,
    stacks_from_views,
)
from tui.maptext import render_galaxy

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
        ("FK+", "three or more empires"),
        ("&", "crippled and out of supply"),
    ]
    assert stack_legend([]) == []


def view_record() -> dict[str, Any]:
    def unit(uid: str, empire: str, h: str | None, **extra: Any) -> dict[str, Any]:
        return {"id": uid, "empire": empire, "hex": h, "crippled": False, "supply": "main"} | extra

    return {
        "units": [
            unit("KLI-0001", "KLI", "1307"),
            unit("KLI-0002", "KLI", "1307", crippled=True),
            unit("KLI-0003", "KLI", None, supply=None),
            unit("KLI-B002", "KLI", "1307"),
            unit("KLI-B003", "KLI", "1507"),
            unit("KZI-0001", "KZI", "1306", supply="none"),
        ],
        "hexes": [
            {"hex": "1306", "bases": [], "units": ["KZI-0001"]},
            {"hex": "1307", "bases": [{"id": "KLI-B002", "class": "BATS"}], "units": []},
            {"hex": "1507", "bases": [{"id": "KLI-B003", "class": "BATS"}], "units": []},
        ],
    }


def test_stacks_from_views_leave_bases_and_off_map_units_out() -> None:
    stacks, bases = stacks_from_views(view_record())
    assert stacks == {
        1307: [Counter("KLI"), Counter("KLI", crippled=True)],
        1306: [Counter("KZI", supply="none")],
    }
    assert bases == {1307, 1507}
    assert stacks_from_views({}) == ({}, set())


def test_render_galaxy_draws_stacks_and_the_bases_of_the_board() -> None:
    stacks, _ = stacks_from_views(view_record())
    lines = render_galaxy("1306:1507", stacks=stacks, bases={1507})
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
    printed = render_galaxy("1307:1307")
    board = render_galaxy("1307:1307", stacks={}, bases=set())
    assert "K#" in printed[2] and board[2].split() == ["07", "K"]


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


def test_battle_and_captured_hexes_from_views() -> None:
    record = view_record() | {
        "battles": [{"hex": "1306", "sides": [["KZI"], ["KLI"]]}],
    }
    record["hexes"].append({"hex": "1407", "owner": "KZI", "captured": True, "bases": []})
    record["hexes"].append({"hex": "1408", "owner": "KLI", "captured": False, "bases": []})
    assert battle_hexes(record) == {1306}
    assert captured_owners(record) == {1407: "KZI"}
    assert battle_hexes({}) == set() and captured_owners({}) == {}


def test_legend_explains_the_battle_and_plan_marks() -> None:
    entries = dict(stack_legend(["KZx", "K3~", "~"], NAMES))
    assert entries[BATTLE] == "battle hex: enemies meet here"
    assert entries["K3~"].startswith("planned:")
    assert entries[PLANNED].startswith("planned:")
    assert "*" not in entries and "!" not in entries
    # The glyphs stay distinct from each other and from the terrain's.
    assert len({BATTLE, PLANNED, CRIPPLED, OUT_OF_SUPPLY, BOTH, "@", "O", "o", "#", ":", "."}) == 11


def test_render_galaxy_marks_battles_and_captures() -> None:
    stacks, _ = stacks_from_views(view_record())
    lines = render_galaxy(
        "1306:1507", stacks=stacks, bases={1507}, battles={1306}, captured={1507: "KZI"}
    )
    row6 = next(line for line in lines if line.startswith("06 "))
    row7 = next(line for line in lines if line.startswith("07 "))
    assert row6.split() == ["06", "Z1x", ":"]
    assert row7.split() == ["07", "K2*", "z#"]
    text = "\n".join(lines)
    assert "x battle hex" in text
    assert "z captured by Kzinti" in text
