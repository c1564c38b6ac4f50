"""Archived games (`tui.services.games.archive`, ``hexpost archive``, ``a`` and ``A`` in the
games list): left out of the list while they need nothing from the player, back in it the
moment they do (their move, unread packets), and out again after."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable, Static

from tests.saves.conftest import Player, exchange, first_setup, join_tutorial, now
from tests.tui.test_app import SIZE, app_for, settle, status_text, top
from tui.screens.games import GamesScreen, game_cells
from tui.services import games


def _listed(player: Player, *, every: bool = False) -> tuple[list[str], int]:
    shown, hidden = games.shown(games.summaries(player.replica), every=every)
    return [game.name for game in shown], hidden


def test_an_archived_game_comes_back_when_it_needs_its_player(
    two_homes: tuple[Player, Player],
) -> None:
    alice, bob = two_homes
    game = join_tutorial(alice, bob, "border")
    alice.replica.mark_read(game)
    said = games.archive(alice.replica, alice.row(game), now())
    assert said.startswith("archived border: the games list leaves it out until it needs you")
    assert _listed(alice) == ([], 1)
    assert _listed(alice, every=True) == (["border"], 0)
    assert "archived" in game_cells(games.summaries(alice.replica)[0])[5]
    assert games.archive(alice.replica, alice.row(game), now()).startswith(
        "border was archived already"
    )

    # Bob sets up: now Alice is to move (and has an unread packet): the game is back.
    bob.replica.submit(game, first_setup(bob, game), now=now())
    exchange(bob, alice)
    assert _listed(alice) == (["border"], 0)
    assert alice.row(game).archived  # still archived: it goes again once it needs nothing
    alice.replica.submit(game, first_setup(alice, game), now=now())
    alice.replica.submit(game, [{"type": "done", "through": "end"}], now=now())  # Bob's move
    alice.replica.mark_read(game)
    assert _listed(alice) == ([], 1)

    assert games.archive(alice.replica, alice.row(game), now(), undo=True) == (
        "border is back in the games list"
    )
    assert _listed(alice) == (["border"], 0)
    assert games.archive(alice.replica, alice.row(game), now(), undo=True) == (
        "border is not archived: nothing to do"
    )


def test_a_game_that_needs_its_player_stays_listed_when_archived(
    two_homes: tuple[Player, Player],
) -> None:
    alice, bob = two_homes
    game = join_tutorial(alice, bob, "border")
    bob.replica.mark_read(game)
    said = games.archive(bob.replica, bob.row(game), now())
    assert said == "archived border; it stays in the list while it needs you"
    assert _listed(bob) == (["border"], 0)


@pytest.fixture
def two_games(two_homes: tuple[Player, Player]) -> tuple[Player, bytes]:
    """Alice's home with two tutorial games where Bob is to move, both read."""
    alice, bob = two_homes
    game = join_tutorial(alice, bob, "border")
    other = join_tutorial(alice, bob, "second")
    for gid in (game, other):
        alice.replica.mark_read(gid)
    return alice, game


async def test_a_archives_and_capital_a_lists_every_game(two_games: tuple[Player, bytes]) -> None:
    alice, game = two_games
    app = app_for(alice)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = top(app)
        assert isinstance(screen, GamesScreen)
        table = screen.query_one(DataTable)
        assert table.row_count == 2
        table.move_cursor(row=table.get_row_index(game.hex()))
        await pilot.press("a")
        await settle(pilot)
        assert status_text(app).startswith("archived border: the games list leaves it out")
        assert table.row_count == 1
        note = str(screen.query_one("#home-note", Static).content)
        assert "1 archived game not listed: A lists them too" in note
        await pilot.press("A")
        await settle(pilot)
        assert table.row_count == 2
        table.move_cursor(row=table.get_row_index(game.hex()))
        await pilot.press("a")  # on an archived game: brings it back
        await settle(pilot)
        assert status_text(app) == "border is back in the games list"
        await pilot.press("A")
        await settle(pilot)
        assert table.row_count == 2
    assert alice.row(game).archived == ""
