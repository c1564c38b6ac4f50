"""One game open in the app, driven headless at 80x24 as in `tests.tui.test_app`.

The games list and the helpers every app test shares (the tutorial's two homes, `app_for`,
`settle`, `open_game`) are in `tests.tui.test_app`; this file holds what happens once a game
is open: the side panel following the map's cursor, the checklist and the log, syncing and
sending from the game screen, the palette, quitting, the ways in from the command line
(``hexpost play``) and on to the review, and the first repaint of the checklist and the log.
It was split off `tests.tui.test_app` to keep each file a readable size.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, Static

from mail.loopback import LoopbackTransport
from mail.sync import sync
from saves.home import Home
from tests.saves.conftest import now
from tests.tui.pilots import after_each_repaint
from tests.tui.test_app import (
    GAME,
    SIZE,
    Tutorial,
    app_for,
    open_game,
    settle,
    side_text,
    sign_a_done,
    status_text,
    top,
)
from tui.app import HexpostApp
from tui.screens.games import GamesScreen
from tui.services.sync import keep_backup_after_sync
from tui.widgets.checklist import ChecklistTree
from tui.widgets.eventlog import EventLog
from tui.widgets.hexmap import HexMap

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
