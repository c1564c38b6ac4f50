"""The Textual app, driven headless at 80x24 with `App.run_test`: no terminal needed.

Each test builds real homes in ``tmp_path`` (as `tests.saves.conftest` does: unencrypted
keys, a loopback network, the deterministic clock): Alice (coalition) invites Bob (alliance)
to the tutorial, both set up their fleets as `TUTORIAL_SETUP` says, and the app opens one of
the homes. The keys are pressed through the pilot, and every check reads what the widgets
hold (table cells, the side panel's text, which panels are shown), so a screen that shows
the wrong thing, or nothing, fails.

This file holds the helpers that build those homes and drive the app (many test files
import them) and the tests of the games list; what happens once a game is open is tested in
`tests.tui.test_app_game`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import DataTable, Static

from engine.core.owed import pending
from engine.fe import RULESET
from mail.loopback import LoopbackNetwork, LoopbackTransport
from saves.home import Home
from tests.engine.fe.steps.tutorial_states import TUTORIAL_SETUP
from tests.saves.conftest import Player, exchange, join_tutorial, now, start_game
from tests.tui.pilots import passing_workers, settle_until, workers_done
from tests.tui.test_cli import plan_walk
from tui.app import HexpostApp
from tui.screens.base import StatusLine
from tui.screens.game import GameScreen
from tui.screens.games import COLUMNS, GamesScreen, game_cells
from tui.services.games import GameSummary, TurnRecord
from tui.when import age

SIZE = (80, 24)
GAME = "border"


@dataclass
class Tutorial:
    """Two homes holding one tutorial game at turn 1, step 1A1 (the coalition's move)."""

    alice: Player
    bob: Player
    network: LoopbackNetwork
    game_id: bytes


def tutorial_homes(tmp_path: Path) -> Tutorial:
    """Alice's and Bob's homes with the tutorial joined and set up (turn 1, step 1A1)."""
    network = LoopbackNetwork()
    alice = Player(tmp_path / "alice", "Alice", "alice@example.org", network)
    bob = Player(tmp_path / "bob", "Bob", "bob@example.org", network)
    game_id = join_tutorial(alice, bob, GAME)
    players = {"coalition": alice, "alliance": bob}
    while (rules := alice.replica.state(game_id).rules) is not None and rules.setup:
        seat = pending(RULESET, alice.replica.state(game_id))[0].seats[0]
        author = players[seat]
        author.replica.submit(game_id, TUTORIAL_SETUP[seat], now=now())
        exchange(author, alice if author is bob else bob)
    return Tutorial(alice, bob, network, game_id)


TUTORIAL_ATTACK: dict[str, Any] = {
    "type": "move",
    "units": ["KLI-0001", "KLI-0002", "KLI-0003", "KLI-0004"],
    "path": ["1307", "1206", "1205"],
}
"""The Klingon Strike Force onto the Kzinti battle station in 1205: a battle for the walks to
a combat step (`walk_to`'s ``attack``)."""


def walk_to(game: Tutorial, target: str, attack: dict[str, Any] | None = None) -> None:
    """Both seats complete their steps (plain ``done``s, `plan_walk`) until ``target``; with
    ``attack`` the coalition gives that move at its operational movement (3B2)."""
    players = {"coalition": game.alice, "alliance": game.bob}
    plan = plan_walk(
        game.alice.home.path,
        game.game_id.hex(),
        target,
        None if attack is None else ("coalition", attack),
    )
    for seat, orders in plan:
        author = players[seat]
        author.replica.submit(game.game_id, orders, now=now())
        exchange(author, game.bob if author is game.alice else game.alice)


@contextmanager
def tutorial_at(
    tmp_path: Path, step: str = "", attack: dict[str, Any] | None = None
) -> Iterator[Tutorial]:
    """The tutorial's two homes walked to ``step`` (`walk_to`; none: as set up, at 1A1),
    closed afterwards: the body of the fixtures that open a test at one step."""
    game = tutorial_homes(tmp_path)
    if step:
        walk_to(game, step, attack)
        assert pending(RULESET, game.alice.replica.state(game.game_id))[0].step == step
    try:
        yield game
    finally:
        game.alice.close()
        game.bob.close()


@contextmanager
def wind_at(tmp_path: Path, step: str) -> Iterator[Tutorial]:
    """The Wind set up by two homes (`tests.saves.conftest.start_game`) and walked to
    ``step``, closed afterwards."""
    network = LoopbackNetwork()
    alice = Player(tmp_path / "alice", "Alice", "alice@example.org", network)
    bob = Player(tmp_path / "bob", "Bob", "bob@example.org", network)
    game = Tutorial(alice, bob, network, start_game(alice, bob))
    walk_to(game, step)
    try:
        yield game
    finally:
        alice.close()
        bob.close()


async def sign_a_done(pilot: Pilot[None]) -> None:
    """Draft a done in the orders panel (o, d), ask to send it (S) and say yes (y), each
    key's work finished before the next."""
    for keys in (("o", "d"), ("S",), ("y",)):
        await pilot.press(*keys)
        await settle(pilot)


def app_for(player: Player, **kwargs: Any) -> HexpostApp:
    """The app on a second connection to the player's home (as a separate process would)."""
    return HexpostApp(Home(player.home.path), **kwargs)


async def settle(pilot: Pilot[None]) -> None:
    """Let the workers finish and their messages be handled: three rounds of waiting for the
    workers and pausing, and more while a round's pause started another worker (a key's
    messages can take more than three short pauses to reach the one that starts it)."""
    for _ in range(3):
        await workers_done(pilot.app)
        await pilot.pause()
    await settle_until(pilot, lambda: not passing_workers(pilot.app), "every worker finished")


def top(app: HexpostApp) -> object:
    """The screen on top now. Asked through a call, so that a test comparing it with a
    screen after a key press is not judged by an earlier ``isinstance`` of ``app.screen``
    (a type checker would keep that narrowing across the ``await``)."""
    return app.screen


def status_text(app: HexpostApp) -> str:
    return app.screen.query_one(StatusLine).text


def side_text(app: HexpostApp) -> str:
    return str(app.screen.query_one("#hex-info", Static).content)


async def open_game(pilot: Pilot[None]) -> GameScreen:
    await settle(pilot)
    await pilot.press("enter")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, GameScreen)
    return screen


# --- the games list --------------------------------------------------------------------------


async def test_games_list_shows_the_game(tutorial: Tutorial) -> None:
    app = app_for(tutorial.alice)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, GamesScreen)
        table = app.screen.query_one(DataTable)
        assert table.display
        assert table.row_count == 1
        cells = [str(cell) for cell in table.get_row_at(0)]
        assert cells[0] == GAME
        assert cells[1] == "T1 Fall Y168"
        assert cells[2] == "1A1"
        assert cells[3].startswith("YOU")  # the coalition owes 1A1
        assert cells[6] == "tutorial"
        assert "Alice <alice@example.org>" in str(app.screen.sub_title)


async def test_a_config_broken_by_hand_still_lists_the_games(tutorial: Tutorial) -> None:
    """config.toml is edited by hand: a table written as a value (``transport = 5``) is
    named in the header and by a sync, and the games still list (the app once stopped on it
    before its first screen)."""
    home = Home(tutorial.alice.home.path)
    kept = home.config_path.read_bytes() if home.config_path.exists() else None
    home.config_path.write_text("transport = 5\n", encoding="utf-8")
    try:
        app = app_for(tutorial.alice)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert isinstance(app.screen, GamesScreen)
            assert app.screen.query_one(DataTable).row_count == 1
            assert "transport must be a table" in str(app.screen.sub_title)
    finally:
        if kept is None:
            home.config_path.unlink()
        else:
            home.config_path.write_bytes(kept)


async def test_games_list_is_drawn_whole_before_the_table_measures_it(tutorial: Tutorial) -> None:
    """A frame can be drawn between the rows landing and the table's idle, where Textual's
    `DataTable` measures auto-width columns; its line cache then kept the cells cut to their
    headers' width after the measurement (seen after Escape from a game at 120x40). Every
    cell must be whole in a line drawn right away, and in the lines drawn after."""
    app = app_for(tutorial.alice)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, GamesScreen) and screen.overview is not None
        table = screen.query_one(DataTable)
        table.clear(columns=True)  # columns never measured, as a list composed on Escape
        table.add_columns(*COLUMNS)
        await settle(pilot)
        screen.show(GamesScreen.Loaded(screen.overview))  # its rows land
        drawn = [table.render_line(1).text]  # a frame before the table's idle
        await settle(pilot)
        drawn.append(table.render_line(1).text)
        cells = [str(cell) for cell in table.get_row_at(0)]
        assert cells[1] == "T1 Fall Y168" and len(cells[5]) > len("NOTE")
        for line in drawn:
            for cell in cells:
                assert cell in line, (cell, line)


def test_game_cells_say_who_is_waiting_and_what_is_wrong() -> None:
    row = GameSummary(
        game="00" * 32,
        name="wind",
        scenario="the-wind",
        my_seat="alliance",
        status="active",
        seq=40,
        turn=TurnRecord(2, "Turn 2, Spring Y169", "T2 Spring Y169"),
        step="3B2",
        waiting_for=("coalition",),
        since="2030-01-01T00:00:00.000000001Z",
        unread=3,
        frozen="desync at packet 7",
        unsent=0,
        claim=None,
        notes=(),
    )
    cells = game_cells(row)
    assert cells[:5] == ("wind", "T2 Spring Y169", "3B2", cells[3], "3")
    assert cells[3].startswith("coalition ")
    assert cells[5] == "FROZEN: desync at packet 7"
    assert age("not a time") == ""


async def test_an_empty_home_says_how_to_begin(tmp_path: Path) -> None:
    app = HexpostApp(Home(tmp_path / "empty"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert not app.screen.query_one(DataTable).display
        empty = app.screen.query_one("#empty", Static)
        assert empty.display
        text = str(empty.content)
        assert "No games in this home yet" in text
        assert "hexpost identity create" in text
        assert "hexpost transport folder" in text
        assert "hexpost demo" in text
        await pilot.press("enter")  # nothing to open: no crash, still the list
        assert isinstance(app.screen, GamesScreen)


async def test_sync_without_identity_or_transport_says_so(tmp_path: Path) -> None:
    home = Home(tmp_path / "bare")
    app = HexpostApp(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        assert "no identity yet" in status_text(app)
    home.create_identity("Carol", "carol@example.org", None, scrypt_n=2)
    home.close()
    app = HexpostApp(Home(tmp_path / "bare"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        assert "no transport is set" in status_text(app)
        assert "hexpost transport folder" in status_text(app)
        assert isinstance(app.screen, GamesScreen)  # still running, still usable
        assert app.screen.check_action("sync", ()) is True
        app.screen.syncing = True  # while a sync runs, its key is shown greyed out
        assert app.screen.check_action("sync", ()) is None


async def test_an_encrypted_key_syncs_without_automatic_replies_unless_unlocked(
    tmp_path: Path,
) -> None:
    home = Home(tmp_path / "locked")
    home.create_identity("Dana", "dana@example.org", b"secret words", scrypt_n=2)
    home.close()
    network = LoopbackNetwork()
    for passphrase, note in ((None, True), (b"secret words", False)):
        app = HexpostApp(
            Home(tmp_path / "locked"),
            passphrase=passphrase,
            transport=lambda _home: LoopbackTransport(network, "loopback:dana"),
        )
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("s")
            await settle(pilot)
            text = status_text(app)
            assert text.startswith("synced: received 0, applied 0, sent 0")
            assert ("passphrase needed" in text) is note


async def test_a_game_named_on_the_command_line_opens_at_once(tutorial: Tutorial) -> None:
    app = app_for(tutorial.alice, game=GAME)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, GameScreen)
        assert app.screen.game_id == tutorial.game_id.hex()
    app = app_for(tutorial.alice, game="no-such-game")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, GamesScreen)
        assert "no game matches 'no-such-game'" in status_text(app)
