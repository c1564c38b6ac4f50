"""`hexpost orders` reminds a player who has no standing order (pace.md): a seat signs only
on its own move, so the command line says it where the app's send confirmation does, with
the JSON that signs one."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.engine.fe.steps.tutorial_states import TUTORIAL_SETUP as SETUP
from tests.tui.conftest import Player, describe, exchange, joined_tutorial

MANUAL: dict[str, Any] = {"type": "standing", "steps": ["manual"]}


@pytest.fixture(scope="module")
def game(alice: Player, bob: Player) -> str:
    return joined_tutorial(alice, bob, "tips")


def signed(player: Player, game: str, orders: list[dict[str, Any]]) -> str:
    done = player.run("orders", game, "-", stdin=json.dumps(orders))
    assert done.returncode == 0, describe(done)
    assert "signed and queued" in done.stdout
    return done.stderr


def test_orders_without_a_standing_order_say_how_to_sign_one(
    game: str, alice: Player, bob: Player
) -> None:
    tip = signed(bob, game, SETUP["alliance"])
    assert "tip: you have no standing order" in tip
    assert json.dumps(MANUAL) in tip  # the order to write, as written
    assert max(len(line) for line in tip.splitlines()) <= 80, tip  # (over SSH)
    exchange(bob, alice)
    # With it, in the same packet: no reminder; the dry run never reminds.
    dry = alice.run("orders", game, "-", "--dry-run", stdin=json.dumps(SETUP["coalition"]))
    assert dry.returncode == 0 and "tip:" not in dry.stderr, describe(dry)
    tip = signed(alice, game, [*SETUP["coalition"], MANUAL])
    assert "standing order" not in tip
    # The policy's JSON, longer than a line, wraps between its items on lines of its own,
    # within 80 columns, and still reads as the order to write.
    assert max(len(line) for line in tip.splitlines()) <= 80, tip
    lines = tip.splitlines()
    start = next(n for n, line in enumerate(lines) if line.startswith("tip: you have no policy"))
    written = " ".join(line.strip() for line in lines[start + 1 :] if line.startswith("    "))
    assert json.loads(written)["type"] == "policy", tip


def test_orders_that_leave_the_step_owed_say_so(alice: Player, bob: Player) -> None:
    """A note alone leaves the set-up step Bob's: the packet would reach Alice with nothing
    for her to do. The command line says so, dry run or not; orders that end it do not."""
    game = joined_tutorial(alice, bob, "open")
    note = json.dumps([{"type": "note", "text": "setting up tomorrow"}])
    dry = bob.run("orders", game, "-", "--dry-run", stdin=note)
    assert dry.returncode == 0, describe(dry)
    assert "the game still waits for you at " in dry.stderr, describe(dry)
    assert '{"type": "done"}' in dry.stderr
    placed = bob.run("orders", game, "-", "--dry-run", stdin=json.dumps(SETUP["alliance"]))
    assert placed.returncode == 0 and "still waits for you" not in placed.stderr
    # Orders that hand the game over say to whom, and at which step.
    assert "then the game waits for Alice (coalition): " in placed.stdout, describe(placed)
    assert "then the game" not in dry.stdout, describe(dry)
    assert "still waits for you" in signed(bob, game, [{"type": "note", "text": "later"}])


def test_orders_that_run_into_another_step_of_the_player_s_say_so(
    alice: Player, bob: Player
) -> None:
    """At 1A1 a done leads to 1A3A, the coalition's again: the packet would reach Bob with
    nothing for him to do. The command line says so; a done through the coalition's part
    does not."""
    game = joined_tutorial(alice, bob, "then")
    signed(bob, game, SETUP["alliance"])
    exchange(bob, alice)
    signed(alice, game, SETUP["coalition"])
    dry = alice.run("orders", game, "-", "--dry-run", stdin=json.dumps([{"type": "done"}]))
    assert dry.returncode == 0, describe(dry)
    assert "the game waits for you again, at 1A3A: sent alone" in dry.stderr, describe(dry)
    assert max(len(line) for line in (dry.stdout + dry.stderr).splitlines()) <= 80, describe(dry)
    through = json.dumps([{"type": "done", "through": "end"}])
    ended = alice.run("orders", game, "-", "--dry-run", stdin=through)
    assert ended.returncode == 0 and "waits for you again" not in ended.stderr, describe(ended)
