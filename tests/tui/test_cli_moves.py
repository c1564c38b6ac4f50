"""Movement orders through the command line: a refused packet names the rule and the numbers,
and changes nothing, not even the legal orders written before the bad one."""

from __future__ import annotations

import json

import pytest

from tests.tui.conftest import Player, assert_refused, deliver, joined_tutorial, set_up_tutorial
from tests.tui.test_cli import plan_walk

GOOD = {"type": "move", "units": ["KLI-0001"], "path": ["1307", "1306"]}
TOO_FAR = {
    "type": "move",
    "units": ["KLI-0005"],
    "path": ["1607", "1608", "1609", "1610", "1611", "1612", "1613", "1614"],
}


@pytest.fixture(scope="module")
def game(alice: Player, bob: Player) -> str:
    """A tutorial game set up and walked to the coalition's movement step 3B2."""
    game = joined_tutorial(alice, bob, "moves")
    set_up_tutorial(alice, bob, game)
    deliver({"coalition": alice, "alliance": bob}, game, plan_walk(alice.home, game, "3B2"))
    return game


def test_a_move_beyond_the_allowance_refuses_the_whole_packet(alice: Player, game: str) -> None:
    before = alice.show(game)
    assert before["step"] == "3B2"
    done = alice.run("orders", game, "-", stdin=json.dumps({"orders": [GOOD, TOO_FAR]}))
    assert_refused(done, "order 2", "1607->1614 needs 7 hexes, allowance 6", "203.1")
    after = alice.show(game)
    assert (after["seq"], after["state_hash"]) == (before["seq"], before["state_hash"])
    units = {u["id"]: u for u in after["units"]}
    assert units["KLI-0001"]["hex"] == "1307", "the legal first move was not kept either"


def test_a_legal_batch_is_signed_and_reported(alice: Player, game: str) -> None:
    out = alice.ok("orders", game, "-", stdin=json.dumps({"orders": [GOOD, {"type": "batch"}]}))
    assert "KLI moves D7C KLI-0001 1307->1306 (1 hex)" in out
    units = {u["id"]: u for u in alice.show(game)["units"]}
    assert units["KLI-0001"]["hex"] == "1306"
