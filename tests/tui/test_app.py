"""The Textual app, driven headless at 80x24 with `App.run_test`: no terminal needed.

Each test builds real homes in ``tmp_path`` (as `tests.saves.conftest` does: unencrypted
keys, a loopback network, the deterministic clock): Alice (coalition) invites Bob (alliance)
to the tutorial, both set up their fleets as `TUTORIAL_SETUP` says, and the app opens one of
the homes. The keys are pressed through the pilot, and every check reads what the widgets
hold (table cells, the side panel's text, which panels are shown), so a screen that shows
the wrong thing, or nothing, fails.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Static

from engine.core.owed import pending
from engine.fe import RULESET
from mail.loopback import LoopbackNetwork, LoopbackTransport
from mail.sync import sync
from saves.home import Home
from tests.engine.fe.steps.tutorial_states import TUTORIAL_SETUP
from tests.saves.conftest import Player, exchange, join_tutorial, now, start_game
from tests.tui.pilots import after_each_repaint, passing_workers, settle_until, workers_done
from tests.tui.test_cli import plan_walk
from tui.app import HexpostApp
from tui.screens.base import StatusLine
from tui.screens.game import GameScreen
from tui.screens.games import COLUMNS, GamesScreen, game_cells
from tui.services.games import GameSummary, TurnRecord
from tui.services.sync import keep_backup_after_sync
from tui.when import age
from tui.widgets.checklist import ChecklistTree
from tui.widgets.eventlog import EventLog
from tui.widgets.hexmap import HexMap

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


# --- one game ------------------------------------------------------------------------------------


async def test_enter_opens_the_game_and_the_side_panel_follows_the_cursor(
    tutorial: Tutorial,
) -> None:
    app = app_for(tutorial.alice)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        hexmap = screen.query_one(HexMap)
        assert hexmap.has_focus
        # The cursor starts on the player's first stack: the Klingon Strike Force in 1307.
        assert hexmap.cursor == 1307
        text = side_text(app)
        assert text.startswith("Hex 1307")
        assert "owner KLI" in text
        assert "KLI-0001 D7C  Strike Force" in text
        assert "units (4):" in text  # the four ships; the battle station is listed as a base
        assert "base: " in text
        status = str(screen.query_one("#game-status", Static).content)
        assert "T1 Fall Y168" in status
        assert "step 1A1" in status
        assert "YOUR MOVE (coalition)" in status

        await pilot.press("down")
        assert hexmap.cursor == 1308
        assert side_text(app).startswith("Hex 1308")
        assert "KLI-0001" not in side_text(app)
        await pilot.press("up", "right", "right", "right")
        assert hexmap.cursor == 1607  # the Flank Patrol
        assert "KLI-0005 D6  Flank Patrol" in side_text(app)
        await pilot.press("h")  # the map keeps h j k l (so the log is on e, not l)
        assert hexmap.cursor == 1507


async def test_c_and_e_toggle_the_checklist_and_the_log(tutorial: Tutorial) -> None:
    app = app_for(tutorial.alice)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        checklist = screen.query_one(ChecklistTree)
        log = screen.query_one(EventLog)
        assert not checklist.display and not log.display  # 80x24: the map first
        await pilot.press("c")
        assert checklist.display and checklist.has_focus
        assert checklist.current_step == "1A1"
        await pilot.press("c")
        assert not checklist.display
        assert screen.query_one(HexMap).has_focus
        await pilot.press("e")
        assert log.display
        assert any("KLI sets up Strike Force in 1307" in row[3] for row in log.rows)
        chain = [widget.id for widget in screen.focus_chain]
        assert chain == ["map", "hex-scroll", "log"]  # tab: the map, the hex details, the log
        await pilot.press("tab", "tab")
        assert log.has_focus
        await pilot.press("e")
        assert not log.display
        assert screen.query_one(HexMap).has_focus
        # 24 lines hold one of the two under the map: opening one closes the other.
        await pilot.press("c", "e")
        assert log.display and not checklist.display
        assert screen.query_one(HexMap).has_focus
        await pilot.press("c")
        assert checklist.display and not log.display


async def test_escape_goes_back_to_the_games_list(tutorial: Tutorial) -> None:
    app = app_for(tutorial.alice)
    async with app.run_test(size=SIZE) as pilot:
        await open_game(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, GamesScreen)
        # Looking at the game read its packets: the list no longer counts them as new.
        assert str(app.screen.query_one(DataTable).get_row_at(0)[4]) == ""


async def test_sync_brings_in_the_opponents_packet(tutorial: Tutorial) -> None:
    bob, alice = tutorial.bob, tutorial.alice
    app = app_for(bob, transport=lambda _home: LoopbackTransport(tutorial.network, "loopback:bob"))
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        before = screen.data
        assert before is not None
        assert before.show.seq == 4
        # Alice marks 1A1 done and sends it while Bob looks at the map.
        alice.replica.submit(tutorial.game_id, [{"type": "done"}], now=now())
        await sync(alice.replica, alice.transport, now)
        await pilot.press("s")
        await settle(pilot)
        assert "; Alice: done at 1A1" in status_text(app)  # what arrived, in words
        after = screen.data
        assert after is not None and after is not before
        assert after.show.seq == 5
        assert f"#{after.show.seq}" in str(screen.query_one("#game-status", Static).content)
        assert len(screen.query_one(EventLog).rows) > len(before.events)


async def test_a_sync_that_only_sends_updates_what_the_game_has_left_to_send(
    tutorial: Tutorial,
) -> None:
    """Nothing arrives, the queued packet leaves: the side panel's ``1 to send`` goes (it
    stayed until something else reloaded the game)."""
    alice = tutorial.alice
    alice.replica.submit(tutorial.game_id, [{"type": "done"}], now=now())
    transport = LoopbackTransport(tutorial.network, "loopback:alice")
    app = app_for(alice, transport=lambda _home: transport)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        assert "1 to send" in str(screen.query_one("#game-status", Static).content)
        await pilot.press("s")
        await settle(pilot)
        assert "sent 1" in status_text(app)
        assert "to send" not in str(screen.query_one("#game-status", Static).content)


async def test_a_signed_packet_is_sent_at_once(tutorial: Tutorial) -> None:
    """S signs and sends: the key says Send, and a move left in the outbox for a key the
    player did not know to press leaves the other player waiting for nothing."""
    from tui.widgets.orders import OrdersPanel

    transport = LoopbackTransport(tutorial.network, "loopback:alice")
    app = app_for(tutorial.alice, transport=lambda _home: transport)
    before = tutorial.alice.row(tutorial.game_id).head_seq
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        panel = screen.query_one(OrdersPanel)
        await sign_a_done(pilot)
        assert "sent 1" in status_text(app)
        assert panel.check_text == ""  # it was sent: no longer queued
        assert "to send" not in str(screen.query_one("#game-status", Static).content)
        # The map has the keys back, the panel still in view: o focuses it (it hid it, when
        # the panel kept the focus: a player pressing o for the orders lost them).
        assert screen.query_one(HexMap).has_focus and panel.display
        await pilot.press("o")
        assert panel.has_focus and panel.display
    sent = [m.packet.seq for m in tutorial.network.messages if m.sender == "loopback:alice"]
    assert sent[-1] == before + 1


async def test_a_packet_the_network_did_not_take_waits_for_s(tutorial: Tutorial) -> None:
    """The sync after S could not send (the network is down): the panel says the packet is
    queued and s sends it, and s does once the network is back."""
    from tui.widgets.orders import OrdersPanel

    transport = LoopbackTransport(tutorial.network, "loopback:alice")
    tutorial.network.fail_next_sends = 1
    app = app_for(tutorial.alice, transport=lambda _home: transport)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        panel = screen.query_one(OrdersPanel)
        await sign_a_done(pilot)
        assert panel.check_text.splitlines()[0].endswith("signed and queued: s sends it")
        assert "NOT SENT: 1 packet" in str(screen.query_one("#game-status", Static).content)
        await pilot.press("s")
        await settle(pilot)
        assert "sent 1" in status_text(app)
        assert panel.check_text == ""


async def test_a_sync_that_brings_a_packet_backs_the_home_up_when_asked_to(
    tutorial: Tutorial, tmp_path: Path
) -> None:
    bob, alice = tutorial.bob, tutorial.alice
    kept = tmp_path / "bobs-backup"
    keep_backup_after_sync(bob.home, str(kept))
    app = app_for(bob, transport=lambda _home: LoopbackTransport(tutorial.network, "loopback:bob"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        alice.replica.submit(tutorial.game_id, [{"type": "done"}], now=now())
        await sync(alice.replica, alice.transport, now)
        await pilot.press("s")
        await settle(pilot)
        assert status_text(app).endswith("; backed up")
    assert Home(kept).identity_info() == bob.home.identity_info()


async def test_the_palette_lists_the_screens_actions(tutorial: Tutorial) -> None:
    app = app_for(tutorial.alice)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        titles = {command.title for command in app.get_system_commands(app.screen)}
        assert {"Sync", "Open"} <= titles
        screen = await open_game(pilot)
        commands = {command.title: command for command in app.get_system_commands(screen)}
        assert {"Sync", "Checklist", "Log", "Games"} <= commands.keys()
        await commands["Log"].callback()  # the palette runs the screen's own action
        assert screen.query_one(EventLog).display


async def test_quitting_closes_the_store(tutorial: Tutorial) -> None:
    app = app_for(tutorial.alice)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.session.home._store is not None
        await pilot.press("q")
    assert app.session.home._store is None


# --- the command line entry ---------------------------------------------------------------------


def test_play_and_no_command_open_the_app(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    request: pytest.FixtureRequest,
) -> None:
    from tui import cli

    opened: list[tuple[Path, str | None]] = []

    def fake_run(self: HexpostApp) -> None:
        opened.append((self.session.home.path, self._game))

    monkeypatch.setattr(HexpostApp, "run", fake_run)
    home = tmp_path / "home"
    # Not on a terminal, `hexpost` alone still prints the help (scripts rely on it), and
    # `play` and `review` say they need one rather than wait for keys that never come.
    assert cli.main(["--home", str(home)]) == 0
    assert "play" in capsys.readouterr().out
    for command in (["play"], ["play", GAME], ["review", GAME]):
        assert cli.main(["--home", str(home), *command]) == 1
        said = capsys.readouterr().err
        assert said.startswith(f"hexpost: {command[0]} opens the full-screen app, which needs a")
        assert said.count("\n") == 1
    assert opened == []
    # On a terminal they open the app.
    request.getfixturevalue("on_terminal")
    assert cli.main(["--home", str(home), "play", GAME]) == 0
    assert cli.main(["--home", str(home), "play"]) == 0
    assert cli.main(["--home", str(home)]) == 0
    assert opened == [(home, GAME), (home, None), (home, None)]


async def test_v_on_the_game_screen_opens_its_review(tutorial: Tutorial) -> None:
    from tui.screens.review import ReviewScreen

    app = app_for(tutorial.alice)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_game(pilot)
        await pilot.press("v")
        await settle(pilot)
        assert isinstance(app.screen, ReviewScreen)
        assert app.screen.game_id == screen.game_id
        await pilot.press("escape")
        await settle(pilot)
        assert top(app) is screen


async def test_c_shows_the_checklist_whole_in_its_first_repaint(tutorial: Tutorial) -> None:
    """``c`` shows the checklist scrolled to the current step, with its scrollbar, in the
    repaint that shows it: the scroll left for after that repaint, and the scrollbar the
    tree only found it needs once shown, each came a frame later and moved the tree."""
    app = app_for(tutorial.alice)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        checklist = screen.query_one(ChecklistTree)
        await pilot.pause(0.1)
        seen: list[tuple[float, bool]] = []

        def noted() -> None:
            if checklist.display:  # (the scrollbar is drawn once it is in the layout)
                drawn = checklist.vertical_scrollbar in screen._compositor.full_map
                seen.append((checklist.scroll_y, drawn))

        after_each_repaint(screen, noted)
        await pilot.press("c")
        await settle(pilot)
        await pilot.pause(0.1)
        assert checklist.display and checklist.current_step == "1A1"
        assert seen and set(seen) == {(checklist.scroll_y, True)}, seen


async def test_e_shows_the_log_drawn_and_at_its_end_in_its_first_repaint(
    tutorial: Tutorial,
) -> None:
    """At 80x24 the log is mounted hidden, with no width to draw its rows for: the first
    ``e`` gives it one in a layout, and it draws its rows and scrolls to its end there, so
    the repaint that shows it shows the latest events (drawn on the resize event, they came
    a frame after an empty log, and the scroll to the end a frame after that)."""
    app = app_for(tutorial.alice)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        log = screen.query_one(EventLog)
        await pilot.pause(0.1)
        assert not log.display and not log.lines  # never drawn yet
        seen: list[tuple[int, bool]] = []

        def noted() -> None:
            if log.display:
                seen.append((len(log.lines), log.scroll_y == log.max_scroll_y))

        after_each_repaint(screen, noted)
        await pilot.press("e")
        await settle(pilot)
        await pilot.pause(0.1)
        assert log.display and log.max_scroll_y > 0  # (more rows than it shows)
        assert seen and set(seen) == {(len(log.lines), True)}, seen
