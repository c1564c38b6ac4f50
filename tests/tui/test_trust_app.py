"""The app's side of trust under attack: the creator accepts a joined key on the game screen,
and a damaged packet shows as a note in the games list and the game's status.
"""

from __future__ import annotations

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Static

from engine.core.owed import pending
from engine.core.packets import fingerprint
from engine.core.ruleset import DecisionKind
from engine.fe import RULESET
from mail.sync import sync
from saves import quarantine
from tests.saves.conftest import Player, join_tutorial, now
from tests.tui.test_app import SIZE, app_for, settle
from tui.screens.base import StatusLine
from tui.screens.game import GameScreen
from tui.widgets.confirm import ConfirmDialog


@pytest.fixture
def joined(two_homes: tuple[Player, Player]) -> tuple[Player, Player, bytes]:
    """Alice's tutorial game that Bob has joined; Alice has not accepted his key yet."""
    alice, bob = two_homes
    return alice, bob, join_tutorial(alice, bob, "border", accept_key=False)


async def test_the_creator_accepts_the_joined_key_after_seeing_its_fingerprint(
    joined: tuple[Player, Player, bytes],
) -> None:
    alice, _bob, game_id = joined
    app = app_for(alice, game="border")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, GameScreen)
        status = str(screen.query_one("#game-status", Static).content)
        assert "Bob <bob@example.org> as alliance" in status
        assert "hexpost accept border" in status
        assert screen.check_action("accept_key", ()) is True
        await pilot.press("a")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ConfirmDialog)
        shown = str(dialog.query_one("#confirm-lines", Static).content)
        joined_key = alice.replica.state(game_id).core.seat_state("alliance").public_key
        assert fingerprint(joined_key) in shown
        await pilot.press("y")
        await settle(pilot)
        assert app.screen is screen
        assert screen.check_action("accept_key", ()) is False
    # The Kzinti set up first: the acceptance went out as a packet of its own.
    state = alice.replica.state(game_id)
    assert state.core.unaccepted == ()
    assert pending(RULESET, state)[0].kind == DecisionKind.ORDERS
    assert alice.row(game_id).head_seq == 2


async def test_the_creator_declines_a_key_that_is_not_the_invited_players(
    joined: tuple[Player, Player, bytes],
) -> None:
    """A stranger who read the invitation joined first: X (after a yes) resigns the game,
    and Bob sees it ended."""
    alice, bob, game_id = joined
    app = app_for(alice, game="border")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, GameScreen)
        assert screen.check_action("decline_key", ()) is True
        accepting = await open_dialog(pilot, "a")
        assert "X declines the key, which ends the game." in dialog_text(accepting)
        await pilot.press("n")
        await settle(pilot)
        declining = await open_dialog(pilot, "X")
        joined_key = alice.replica.state(game_id).core.seat_state("alliance").public_key
        assert fingerprint(joined_key) in dialog_text(declining)
        await pilot.press("n")  # no: nothing signed
        await settle(pilot)
        assert alice.row(game_id).head_seq == 1
        await open_dialog(pilot, "X")
        await pilot.press("y")
        await settle(pilot)
        assert app.screen is screen
        assert screen.query_one(StatusLine).text == (
            "packet 2 declines the key: the game ends; s sends it"
        )
        assert screen.check_action("decline_key", ()) is False
    state = alice.replica.state(game_id)
    assert state.core.resigned == "coalition" and pending(RULESET, state) == []
    await sync(alice.replica, alice.transport, now)
    await sync(bob.replica, bob.transport, now)
    assert bob.replica.state(game_id).core.resigned == "coalition"


async def open_dialog(pilot: Pilot[None], key: str) -> ConfirmDialog:
    await pilot.press(key)
    await settle(pilot)
    dialog = pilot.app.screen
    assert isinstance(dialog, ConfirmDialog)
    return dialog


def dialog_text(dialog: ConfirmDialog) -> str:
    return str(dialog.query_one("#confirm-lines", Static).content)


async def test_no_answers_nothing_and_the_joiner_sees_whom_it_waits_for(
    joined: tuple[Player, Player, bytes],
) -> None:
    alice, bob, game_id = joined
    app = app_for(alice, game="border")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("a", "n")
        await settle(pilot)
    assert alice.row(game_id).head_seq == 1  # nothing signed
    app = app_for(bob)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = app.screen.query_one(DataTable)
        cells = [str(cell) for cell in table.get_row_at(0)]
        assert "waiting for coalition to accept your key" in cells


async def test_a_damaged_packet_is_a_note_in_the_games_list(
    joined: tuple[Player, Player, bytes],
) -> None:
    _alice, bob, game_id = joined
    store = bob.replica.store
    with store.transaction():
        quarantine.reject(
            store, game_id, "folder:/x f.hxp", "bad signature", b"x", now(), seq=2,
            seat="coalition",
        )  # fmt: skip
    app = app_for(bob)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        cells = [str(cell) for cell in app.screen.query_one(DataTable).get_row_at(0)]
        assert any(
            "waiting for packet 2 from coalition (last copy was damaged)" in c for c in cells
        )
