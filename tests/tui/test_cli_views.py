"""`hexpost show` with the board: the JSON record's empires, units and hexes, the per-empire
lines of the text form, and the map's stacks (`tui.mapstacks`) drawn from the game's state.

One tutorial game for the module, played through the command line's entry point in-process
(scaffolding): Bob (alliance, KZI) and Alice (coalition, KLI) set up their fleets, then Alice
records a loss with a typed adjustment. Everything asserted on is read through real `hexpost`
subprocesses.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.tui.conftest import Player, deliver, joined_tutorial, set_up_tutorial

CRIPPLE = {
    "type": "adjust",
    "change": "cripple",
    "unit": "KLI-0003",
    "reason": "combat at 1105: lost round 1",
}


@pytest.fixture(scope="module")
def game(alice: Player, bob: Player) -> str:
    game = joined_tutorial(alice, bob, "views")
    set_up_tutorial(alice, bob, game)
    deliver({"coalition": alice, "alliance": bob}, game, [("coalition", [CRIPPLE])])
    return game


def by(items: list[dict[str, Any]], key: str) -> dict[str, dict[str, Any]]:
    return {item[key]: item for item in items}


def test_show_json_has_empires_units_and_hexes(bob: Player, game: str) -> None:
    record = bob.show(game)
    assert record["step"] == "1A1"
    empires = by(record["empires"], "empire")
    assert list(empires) == ["KLI", "KZI"]
    assert empires["KZI"]["seat"] == "alliance" and empires["KZI"]["treasury"] == "0"
    assert empires["KLI"]["income2"] == 18 and empires["KLI"]["units_on_map"] == 11
    units = by(record["units"], "id")
    assert units["KLI-0003"]["hex"] == "1307" and units["KLI-0003"]["crippled"]
    assert units["KZI-0001"]["hex"] == "1105" and not units["KZI-0001"]["crippled"]
    hexes = by(record["hexes"], "hex")
    assert hexes["1105"]["units"] == [f"KZI-000{n}" for n in range(1, 6)]
    assert hexes["1704"]["bases"] == [{"id": "KZI-B004", "class": "SB"}]
    assert record["battles"] == []


def test_the_adjustment_is_in_the_log(bob: Player, game: str) -> None:
    texts = [text for entry in bob.json("log", game) for text in entry["events"]]
    assert "KLI adjusts: D7 KLI-0003 crippled at 1307 (combat at 1105: lost round 1)" in texts


def test_show_text_has_a_line_per_empire(alice: Player, game: str) -> None:
    lines = alice.ok("show", game).splitlines()
    assert "  KLI coalition  treasury 0 EP, income 9 EP, units on the map 11" in lines
    assert "  KZI alliance   treasury 0 EP, income 12 EP, units on the map 13" in lines


def test_show_map_draws_the_stacks_with_their_legend(alice: Player, game: str) -> None:
    lines = alice.ok("show", game, "--map", "--region", "1003:1808").splitlines()
    assert max(len(line) for line in lines) <= 80
    row5, row7 = (next(line for line in lines if line.startswith(r)) for r in ("05 ", "07 "))
    assert row5.split() == ["05", "Z5", "Z", "Z", "Z"], "the Border Guard in 1105"
    assert row7.split() == ["07", "K#", "K4*", "K#", "K#"], "the Strike Force, one crippled"
    text = "\n".join(lines)
    assert "* some crippled" in text
    assert "Stacks leave out bases (the terrain's #)" in text


def test_show_map_detailed_keeps_the_terrain_next_to_the_stack(alice: Player, game: str) -> None:
    lines = alice.ok("show", game, "--detailed", "--region", "1306:1408").splitlines()
    assert any("K#  K4*" in line for line in lines), "\n".join(lines)


def test_show_map_at_an_earlier_packet_shows_the_board_then(bob: Player, game: str) -> None:
    """Packet 3 is Bob's set-up: the Kzinti stand, the Klingons wait off the map."""
    before = bob.show(game, "--at", "3")
    assert before["step"] == "0-KLI"
    units = by(before["units"], "id")
    assert units["KZI-0001"]["hex"] == "1105" and units["KLI-0001"]["hex"] is None
    lines = bob.ok("show", game, "--map", "--region", "1003:1808", "--at", "3").splitlines()
    row5, row7 = (next(line for line in lines if line.startswith(r)) for r in ("05 ", "07 "))
    assert row5.split() == ["05", "Z5", "Z", "Z", "Z"]
    assert row7.split() == ["07", "K#", "K#", "K#", "K#"]


def test_show_json_is_the_same_on_both_sides(alice: Player, bob: Player, game: str) -> None:
    keys = ("empires", "units", "hexes", "battles")
    a, b = alice.show(game), bob.show(game)
    assert json.dumps([a[k] for k in keys]) == json.dumps([b[k] for k in keys])
