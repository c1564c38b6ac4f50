"""`hexpost choices` and `hexpost find` through the real command line, and a move naming a
stack refused whole when one of its units cannot make it."""

from __future__ import annotations

import json

import pytest

from tests.tui.conftest import (
    Player,
    assert_refused,
    assert_usage_error,
    deliver,
    joined_tutorial,
    set_up_tutorial,
)
from tests.tui.test_cli import plan_walk


@pytest.fixture(scope="module")
def game(alice: Player, bob: Player) -> str:
    """A tutorial game both players joined, at its first set-up step (the alliance's KZI)."""
    return joined_tutorial(alice, bob, "choices")


@pytest.fixture(scope="module")
def moving(game: str, alice: Player, bob: Player) -> str:
    """The same game set up and walked to the coalition's operational movement (3B2)."""
    set_up_tutorial(alice, bob, game)
    deliver({"coalition": alice, "alliance": bob}, game, plan_walk(alice.home, game, "3B2"))
    return game


def test_set_up_choices_name_each_fleet_and_its_hexes(game: str, bob: Player) -> None:
    record = bob.json("choices", game)
    assert record["owes"] and record["step"] == "0-KZI"
    kinds = {k["order"]: k for k in record["orders"]}
    assert json.loads(kinds["place"]["template"]) == {"type": "place", "hex": "HEX"}
    (listed,) = record["lists"]
    assert (listed["key"], listed["order"], listed["rule"]) == ("setup", "place", "600.0")
    guard = next(i for i in listed["items"] if ["fleet", "Border Guard"] in i["values"])
    assert {"label": "set-up hexes", "value": "1105 1205 1305 1405 1505 1605"} in guard["facts"]
    text = bob.ok("choices", game)
    assert "alliance owes 0-KZI" in text
    assert "Fleets waiting to set up (place, 600.0):" in text
    assert "set-up hexes 1105 1205 1305 1405 1505 1605" in text


def test_a_fleet_s_set_up_hexes_are_listed_for_it(game: str, bob: Player) -> None:
    record = bob.json("choices", game, "--to", "place", "Border Guard")
    assert record == {
        "order": "place",
        "pieces": ["Border Guard"],
        "path": [],
        "hexes": ["1105", "1205", "1305", "1405", "1505", "1605"],
        "why": "",
        "fills": [],
        "note": "",
    }
    text = bob.ok("choices", game, "--to", "place", "Border Guard")
    assert text.strip() == "place Border Guard: 6 hexes: 1105 1205 1305 1405 1505 1605"
    unknown = bob.ok("choices", game, "--to", "place", "No Such Fleet").strip()
    assert unknown == (
        "place No Such Fleet: no hex now: no fleet or unit No Such Fleet waits to set up"
    )


def test_the_seat_that_owes_nothing_is_told_so(game: str, alice: Player) -> None:
    record = alice.json("choices", game)
    assert not record["owes"] and record["lists"] == []
    assert "coalition owes nothing now" in alice.ok("choices", game)


def test_movement_choices_list_units_and_points_left(moving: str, alice: Player) -> None:
    record = alice.json("choices", moving)
    assert record["step"] == "3B2"
    (listed,) = record["lists"]
    rows = {dict(i["values"])["units"]: i for i in listed["items"]}
    assert sorted(rows) == [f"KLI-000{n}" for n in range(1, 7)]
    assert {"label": "movement left", "value": "6"} in rows["KLI-0001"]["facts"]
    text = alice.ok("choices", moving)
    assert "KLI-0001 D7C in 1307: 6 left   [units=KLI-0001]" in text
    kinds = {k["order"]: k for k in record["orders"]}
    assert kinds["move"]["destinations"] and not kinds["done"]["destinations"]
    assert "    where to: hexpost choices GAME --to move PIECE..." in text


def test_a_move_s_next_hexes_follow_its_path(moving: str, alice: Player) -> None:
    """One hex past the path so far, as the map marks them; none once the allowance (6) is
    spent."""
    first = alice.json("choices", moving, "--to", "move", "KLI-0001", "--path", "1307")
    assert "1306" in first["hexes"] and "1307" not in first["hexes"]
    path = ["1307", "1306", "1305", "1304", "1303", "1302", "1301"]
    spent = alice.ok("choices", moving, "--to", "move", "KLI-0001", "--path", *path)
    assert spent.startswith(f"move KLI-0001 along {' '.join(path)}: no hex now: ")
    first, note = spent.strip().splitlines()
    assert "allowance 6" in first and first.endswith("(203.1)")
    assert note == "  0 hexes of movement left past 1301"
    text = alice.ok("choices", moving, "--to", "move", "KLI-0001", "--path", *path[:6])
    assert text.startswith(f"move KLI-0001 along {' '.join(path[:6])}: ") and "1301" in text


def test_find_lists_a_fleet_and_a_hex(moving: str, alice: Player) -> None:
    rows = alice.json("find", moving, "strike", "force")
    assert [r["piece"] for r in rows] == ["KLI-0001", "KLI-0002", "KLI-0003", "KLI-0004"]
    assert {r["hex"] for r in rows} == {"1307"} and rows[0]["group"] == "Strike Force"
    text = alice.ok("find", moving, "1607")
    assert "1607    KLI  KLI-0005 D6  Flank Patrol" in text and "[hex]" in text


def test_a_stack_move_where_one_unit_cannot_go_is_refused_whole(moving: str, alice: Player) -> None:
    before = alice.show(moving)
    orders = [
        {"type": "move", "units": ["KLI-0001"], "path": ["1307", "1308", "1307"]},
        {"type": "move", "stack": "1307", "path": ["1307", "1308", "1309", "1310", "1311", "1312"]},
    ]
    done = alice.run("orders", moving, "-", "--dry-run", stdin=json.dumps({"orders": orders}))
    assert_refused(
        done, "order 2", "KLI-0001 (D7C)", "needs 5 hexes, allowance 6 (2 already moved", "203.1"
    )
    assert alice.show(moving)["seq"] == before["seq"]
    good = [{"type": "move", "fleet": "Strike Force", "path": ["1307", "1308"]}]
    out = alice.ok("orders", moving, "-", "--dry-run", stdin=json.dumps({"orders": good}))
    assert "orders are legal" in out and "KLI moves Strike Force:" in out


def test_bad_input_is_refused_by_name(moving: str, alice: Player) -> None:
    assert_refused(alice.run("choices", "nosuchgame"), "no game matches 'nosuchgame'")
    assert_refused(alice.run("find", "nosuchgame", "D7"), "no game matches")
    assert_refused(alice.run("find", moving, "zz-top"), "nothing in game", "'zz-top'")
    ambiguous = [{"type": "move", "fleet": "Nobody's Fleet", "path": ["1307", "1308"]}]
    done = alice.run("orders", moving, "-", "--dry-run", stdin=json.dumps({"orders": ambiguous}))
    assert_refused(done, "no fleet named", "203.0")
    assert_usage_error(alice.run("find", moving))
    assert_refused(
        alice.run("choices", moving, "--to", "build", "KLI-0001"),
        "lists no destinations for 'build'",
    )
    assert_refused(alice.run("choices", moving, "--to", "move"), "name the pieces")
    assert_refused(alice.run("choices", moving, "--path", "1307"), "--path goes with --to")


def test_a_policy_in_force_is_printed_with_its_order(moving: str, alice: Player) -> None:
    """Last in this module: it signs a policy (nothing else reads one here)."""
    alice.orders(moving, [{"type": "policy", "force": "auto", "bir": 2}])
    record = alice.json("choices", moving)
    kinds = {k["order"]: k for k in record["orders"]}
    assert kinds["policy"]["now"] == [["force", "auto"], ["bir", "2"]]
    assert not kinds["done"]["now"]
    text = alice.ok("choices", moving)
    assert "    in force now: force=auto bir=2" in text
    # What each field takes, in the face's words: with its menu, or alone without one.
    assert "    bir: -1, 1, 2, 3, 4 (your BIR pick; -1 asks each round)" in text, text
    assert "    retreat: 0 never, N after round N, -1 ask" in text, text
    assert ["bir", "your BIR pick; -1 asks each round"] in kinds["policy"]["helps"]


def test_choices_list_the_steps_to_play_on_to(moving: str, alice: Player) -> None:
    """At 3B2 the coalition may play on through its turn's steps as far as the rules let it
    stay the one to act; the JSON lists them, the text wraps them with an order to copy."""
    stops = alice.json("choices", moving)["play_on"]
    assert stops[:2] == ["3B4", "3B5"] and "3B2" not in stops and "4A" not in stops, stops
    text = alice.ok("choices", moving)
    assert "Steps you may play on to and still act at (a done through the one before):" in text
    example = {"type": "done", "through": stops[-2]}
    assert f"  e.g. {json.dumps(example)} stops at {stops[-1]}" in text
