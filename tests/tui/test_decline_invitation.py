"""Declining an invitation in the app: ``d`` on the invitation's row (issue: an unwanted
invitation had no answer but silence, and its creator's game waited for ever)."""

from __future__ import annotations

from textual.widgets import DataTable, Static

from mail.sync import sync
from tests.saves.conftest import CHAIN_LENGTH, Player, invite_to_tutorial, now
from tests.tui.test_app import SIZE, app_for, settle, status_text, top
from tui.screens.games import GamesScreen, game_cells
from tui.services import games
from tui.widgets.confirm import ConfirmDialog


def _footer_keys(screen: GamesScreen) -> set[str]:
    return {key for key, active in screen.active_bindings.items() if active.enabled}


async def test_d_declines_the_highlighted_invitation_and_the_creator_hears_it(
    two_homes: tuple[Player, Player],
) -> None:
    alice, bob = two_homes
    unwanted = invite_to_tutorial(alice, bob, "unwanted")
    kept = invite_to_tutorial(alice, bob, "kept")
    await sync(alice.replica, alice.transport, now)
    await sync(bob.replica, bob.transport, now)
    bob.replica.accept(kept, now=now(), chain_length=CHAIN_LENGTH)  # a game, not an invitation
    app = app_for(bob)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = top(app)
        assert isinstance(screen, GamesScreen)
        table = screen.query_one(DataTable)
        table.move_cursor(row=table.get_row_index(kept.hex()))
        await settle(pilot)
        assert "d" not in _footer_keys(screen)  # no invitation under the cursor
        await pilot.press("d")
        await settle(pilot)
        assert top(app) is screen  # nothing asked

        table.move_cursor(row=table.get_row_index(unwanted.hex()))
        await settle(pilot)
        assert "d" in _footer_keys(screen)
        await pilot.press("d")
        await settle(pilot)
        dialog = top(app)
        assert isinstance(dialog, ConfirmDialog)
        text = str(dialog.query_one("#confirm-lines", Static).content)
        assert "unwanted (tutorial), you play alliance" in text
        assert "Declining ends the game before it began" in text
        await pilot.press("n")
        await settle(pilot)
        assert bob.row(unwanted).status == "invited"  # no: nothing signed

        await pilot.press("d")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert top(app) is screen
        assert status_text(app) == (
            "declined the invitation to unwanted: the game ends before it began: "
            "s tells the creator"
        )
    assert bob.row(unwanted).status == "active"
    await sync(bob.replica, bob.transport, now)
    await sync(alice.replica, alice.transport, now)
    core = alice.replica.state(unwanted).core
    assert core.resigned == "alliance"
    assert core.seat_state("alliance").public_key == bob.public_key
    (summary,) = [g for g in games.summaries(alice.replica) if g.game == unwanted.hex()]
    assert summary.ended == "over: Bob declined the invitation"
    assert summary.waits is None
    assert "over: Bob declined the invitation" in game_cells(summary)
