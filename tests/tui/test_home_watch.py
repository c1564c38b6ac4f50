"""The app sees what another process changed in its home (`tui.services.home_watch`).

The other process here is the player's own connection in `tests.saves.conftest.Player`: a
second SQLite connection to the same file, which SQLite tells apart from the app's as it
tells another process's (``PRAGMA data_version``). The app's own writes must never count as
another's change, before or after one.
"""

from __future__ import annotations

from typing import Any

from textual.widgets import DataTable

from saves import chat_messages, outbox, store_games
from saves.home import Home
from tests.saves.conftest import now
from tests.tui.pilots import settle_until
from tests.tui.test_app import SIZE, app_for, open_game, settle, status_text
from tests.tui.test_review import open_review
from tui.screens.game import GameScreen
from tui.screens.games import GamesScreen
from tui.services.home_watch import HomeWatch

NOTE = [{"type": "note", "text": "written in a shell"}]


def test_only_another_connections_changes_name_games(tutorial: Any) -> None:
    alice, game = tutorial.alice, tutorial.game_id
    other = alice.replica  # the shell, the service: another connection
    app_home = Home(alice.home.path)
    try:
        mine = app_home.store()  # the app's connection
        watch = HomeWatch()
        assert watch.changes(mine) is None  # the first look only takes note
        assert watch.changes(mine) is None  # nothing committed since
        row = store_games.game(mine, game)
        assert row is not None and row.unread > 0  # Bob's set-up packets, unread

        store_games.mark_read(mine, game)  # the app's own write: no news
        assert watch.changes(mine) is None
        # Another connection commits and changes no game (a watch round's cursor): no game
        # is named, and the app's own write before it is not taken for another's.
        with other.store.transaction():
            outbox.save_cursor(other.store, "loopback:alice", "seen up to 7")
        assert watch.changes(mine) == frozenset()
        other.mark_read(game)  # read already: SQLite writes nothing, so there is no news
        assert watch.changes(mine) is None

        other.submit(game, NOTE, now=now())
        assert watch.changes(mine) == frozenset({game.hex()})
        assert watch.changes(mine) is None
        # A chat message beside the chain (`hexpost chat`): no row of the game changes.
        row = store_games.game(mine, game)
        chat_messages.write(other, game, "a chat line from the shell", now())
        assert store_games.game(mine, game) == row
        assert watch.changes(mine) == frozenset({game.hex()})
        assert watch.changes(mine) is None
    finally:
        app_home.close()


async def test_the_game_screen_reads_a_packet_signed_elsewhere(tutorial: Any) -> None:
    alice, game = tutorial.alice, tutorial.game_id
    app = app_for(alice, home_seconds=0.05)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        assert screen.data is not None
        before = screen.data.show.seq
        alice.replica.submit(game, NOTE, now=now())  # `hexpost orders` in a shell

        def read_again() -> bool:
            return screen.data is not None and screen.data.show.seq == before + 1

        await settle_until(pilot, read_again, "the game screen shows the new packet")
        assert isinstance(app.screen, GameScreen)
        assert "another hexpost on this home changed the game" in status_text(app)
        await settle(pilot)


async def test_the_games_list_reads_a_step_done_elsewhere(tutorial: Any) -> None:
    alice, game = tutorial.alice, tutorial.game_id
    app = app_for(alice, home_seconds=0.05)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, GamesScreen)
        table = screen.query_one(DataTable)
        assert str(table.get_row_at(0)[2]) == "1A1"
        alice.replica.submit(game, [{"type": "done"}], now=now())

        def moved_on() -> bool:
            return str(table.get_row_at(0)[2]) != "1A1"

        await settle_until(pilot, moved_on, "the list shows the step done elsewhere")
        await settle(pilot)


async def test_without_changes_elsewhere_nothing_is_read_again(tutorial: Any) -> None:
    app = app_for(tutorial.alice, home_seconds=0.05)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        loaded = screen.data
        for _ in range(10):  # some twenty looks at the home
            await pilot.pause(0.1)
        assert screen.data is loaded  # not read again: the screen holds the same data


async def test_the_review_reaches_a_packet_signed_elsewhere(tutorial: Any) -> None:
    alice, game = tutorial.alice, tutorial.game_id
    app = app_for(alice, home_seconds=0.05)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(pilot)
        assert screen.index is not None
        last, seq = screen.index.last, screen.seq
        alice.replica.submit(game, NOTE, now=now())

        def longer() -> bool:
            return screen.index is not None and screen.index.last == last + 1

        await settle_until(pilot, longer, "the review's chain reaches the new packet")
        assert screen.seq == seq  # the view stays where the player was
        await settle(pilot)
