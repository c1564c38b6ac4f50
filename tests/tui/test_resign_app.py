"""Resigning in the app: ``R`` on the game screen, after a yes, on one's own move (before,
a player could not concede a game at all, and it stayed open on both sides for ever)."""

from __future__ import annotations

import pytest
from textual.widgets import Static

from engine.core.owed import pending
from engine.fe import RULESET
from mail.sync import sync
from tests.saves.conftest import Player, join_tutorial, now
from tests.tui.test_app import SIZE, app_for, settle, status_text
from tui.screens.game import GameScreen
from tui.services import games
from tui.widgets.confirm import ConfirmDialog


@pytest.fixture
def border(two_homes: tuple[Player, Player]) -> tuple[Player, Player, bytes]:
    """Alice's tutorial game that Bob joined and she accepted: Bob's Kzinti set up first."""
    alice, bob = two_homes
    return alice, bob, join_tutorial(alice, bob, "border")


async def test_off_ones_move_r_asks_to_resign_on_the_next_and_r_takes_it_back(
    border: tuple[Player, Player, bytes],
) -> None:
    alice, _bob, game_id = border
    app = app_for(alice, game="border")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, GameScreen)
        assert screen.check_action("resign", ()) is True
        await pilot.press("R")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ConfirmDialog)
        assert "It is not your move" in str(dialog.query_one("#confirm-lines", Static).content)
        await pilot.press("y")
        await settle(pilot)
        assert app.screen is screen
        assert status_text(app) == (
            "you will resign border on your next move: the sync that brings it signs it"
        )
        assert alice.row(game_id).resign_at
        status = str(screen.query_one("#game-status", Static).content)
        assert "you asked to resign" in status, status
        await pilot.press("R")  # asked already: R offers to take it back
        await settle(pilot)
        again = app.screen
        assert isinstance(again, ConfirmDialog)
        assert "Take that back?" in str(again.query_one("#confirm-lines", Static).content)
        await pilot.press("y")
        await settle(pilot)
        assert status_text(app) == "took back your resignation of border: it goes on"
    assert alice.row(game_id).resign_at == ""
    assert alice.row(game_id).head_seq == 2  # nothing was signed


async def test_r_resigns_after_a_yes_and_the_other_side_sees_the_game_over(
    border: tuple[Player, Player, bytes],
) -> None:
    alice, bob, game_id = border
    app = app_for(bob, game="border")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, GameScreen)
        await pilot.press("R")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ConfirmDialog)
        text = str(dialog.query_one("#confirm-lines", Static).content)
        assert "The game ends for both players, for good" in text
        assert "send a chat message first (t)" in text
        await pilot.press("n")  # no: nothing signed
        await settle(pilot)
        assert app.screen is screen
        assert bob.row(game_id).head_seq == 2
        await pilot.press("R")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert app.screen is screen
        assert status_text(app) == "resigned border (packet 3): the game is over; s sends it"
        assert screen.check_action("resign", ()) is False  # over: nothing left to resign
        panel = str(screen.query_one("#game-status", Static).content)
        assert "the game is over: Bob resigned" in panel.splitlines(), panel
    await sync(bob.replica, bob.transport, now)
    await sync(alice.replica, alice.transport, now)
    state = alice.replica.state(game_id)
    assert state.core.resigned == "alliance" and pending(RULESET, state) == []
    (summary,) = games.summaries(alice.replica)
    assert summary.ended == "over: Bob resigned"


def test_a_sync_that_resigns_as_asked_says_so() -> None:
    from mail.sync import SyncReport
    from tui.services.sync import describe

    said = describe(SyncReport([], [9], [], resigned=["border"]), True)
    assert said.summary == "synced: received 0, applied 0, sent 1, resigned border"
    assert said.details == ("border: you resigned, as you asked: the game is over",)


@pytest.fixture
def unaccepted(two_homes: tuple[Player, Player]) -> tuple[Player, Player, bytes]:
    """Alice's tutorial game that Bob joined; she has not accepted his key yet."""
    alice, bob = two_homes
    return alice, bob, join_tutorial(alice, bob, "border", accept_key=False)


async def test_before_the_acceptance_r_points_the_creator_to_x_and_asks_the_joiner(
    unaccepted: tuple[Player, Player, bytes],
) -> None:
    """The creator owes the acceptance, which X answers; the joiner waits for it, so R keeps
    the resignation for the joiner's next move, like any move of the other side's."""
    alice, bob, _game = unaccepted
    app = app_for(alice, game="border")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("R")
        await settle(pilot)
        assert isinstance(app.screen, GameScreen)
        assert status_text(app) == ("the key that joined waits: X declines it, which ends the game")
    async with app_for(bob, game="border").run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("R")
        await settle(pilot)
        dialog = pilot.app.screen
        assert isinstance(dialog, ConfirmDialog)
        assert "It is not your move" in str(dialog.query_one("#confirm-lines", Static).content)
