"""Draft orders outlive the visit that wrote them (`saves.drafts`): leaving the game screen
or closing the app keeps them, opening the game again brings them back checked anew, and
signing them forgets them."""

from __future__ import annotations

from saves import drafts
from tests.tui.test_app import SIZE, Tutorial, app_for, open_game, settle
from tests.tui.test_order_keys import PLACED, in_setup, place_border_guard
from tui import render
from tui.screens.games import COLUMNS, GamesScreen, game_cells
from tui.services import games
from tui.services.jsonform import json_form
from tui.widgets.confirm import ConfirmDialog
from tui.widgets.orders import OrdersPanel

__all__ = ["in_setup"]  # the fixture, used by name


async def test_drafts_come_back_after_leaving_the_game_and_the_app(in_setup: Tutorial) -> None:
    game = in_setup
    before = game.bob.replica.game(game.game_id).head_seq
    app = app_for(game.bob)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        await place_border_guard(pilot, screen)
        await pilot.press("escape")  # back to the games list
        await settle(pilot)
        assert isinstance(app.screen, GamesScreen)
        summary = games.summary(game.bob.replica, game.bob.replica.game(game.game_id))
        assert summary.drafts == 1
        assert game_cells(summary)[COLUMNS.index("NOTE")] == "1 draft order not signed"
        listed = render.games_text([json_form(summary)])
        # (the row with its note would pass 80 columns: the note goes under it)
        assert listed.splitlines()[2] == " " * 10 + "1 draft order not signed (app)"
        screen = await open_game(pilot)
        panel = screen.query_one(OrdersPanel)
        assert panel.items == [PLACED]
        assert panel.check_text.startswith("legal"), panel.check_text  # checked again
        assert screen.status.text == "1 draft order kept from your last visit: o shows them"
    # A new app on the home (a closed terminal, a dropped SSH connection) finds them too.
    app = app_for(game.bob)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        panel = screen.query_one(OrdersPanel)
        assert panel.items == [PLACED]
        await pilot.press("o", "S")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("y")
        await settle(pilot)
        assert panel.items == []
        assert game.bob.replica.game(game.game_id).head_seq == before + 1  # signed
    assert drafts.kept(game.bob.replica.store, game.game_id) == []
    app = app_for(game.bob)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        assert screen.query_one(OrdersPanel).items == []
        assert "kept from your last visit" not in screen.status.text


async def test_undoing_every_draft_keeps_none(in_setup: Tutorial) -> None:
    game = in_setup
    app = app_for(game.bob)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        panel = await place_border_guard(pilot, screen)
        assert drafts.kept(game.bob.replica.store, game.game_id) == [PLACED]
        await pilot.press("u")
        await settle(pilot)
        assert panel.items == []
    assert drafts.kept(game.bob.replica.store, game.game_id) == []
