"""The app syncs by itself when the transport announces new mail (as IMAP IDLE does), or
when the shared folder changes.

The mail transport here is the loopback one with a `wait` that the test controls, standing in
for the mail transport's IDLE (which `tests/mail/test_mail_game.py` tests on the real
servers); the folder is a real one (`mail.folder.FolderTransport.wait`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.widgets import Input

import mail.folder
import tui.app
from mail.folder import FolderTransport
from mail.loopback import LoopbackNetwork, LoopbackTransport
from mail.sync import sync
from saves.home import Home
from tests.saves.conftest import now
from tests.tui.test_app import SIZE, Tutorial, app_for, open_game, settle, status_text
from tui.app import HexpostApp
from tui.screens.game import GameScreen
from tui.screens.settings import SettingsScreen


class AnnouncingTransport(LoopbackTransport):
    """Loopback mail whose `wait` returns when the test says mail arrived."""

    def __init__(self, network: LoopbackNetwork, name: str, bell: asyncio.Event) -> None:
        super().__init__(network, name)
        self.bell = bell
        self.waits = 0

    async def wait(self, timeout: float) -> bool:
        self.waits += 1
        try:
            await asyncio.wait_for(self.bell.wait(), timeout)
        except TimeoutError:
            return False
        self.bell.clear()
        return True


async def _until(condition: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.02)


def bobs_app(
    tutorial: Tutorial, bell: asyncio.Event
) -> tuple[HexpostApp, list[AnnouncingTransport]]:
    """Bob's app on the tutorial, its mail announced by ``bell``; the transports it made."""
    made: list[AnnouncingTransport] = []

    def transport(_home: Home) -> AnnouncingTransport:
        made.append(AnnouncingTransport(tutorial.network, "loopback:bob", bell))
        return made[-1]

    return HexpostApp(Home(tutorial.bob.home.path), "border", transport=transport), made


async def bobs_game(app: HexpostApp) -> GameScreen:
    """Bob's game screen once shown, at the tutorial's packet 4."""
    await _until(lambda: isinstance(app.screen, GameScreen) and app.screen.data is not None)
    screen = app.screen
    assert isinstance(screen, GameScreen)
    assert screen.data is not None and screen.data.show.seq == 4
    return screen


async def test_new_mail_is_synced_and_shown_without_a_key(tutorial: Tutorial) -> None:
    bell = asyncio.Event()
    app, made = bobs_app(tutorial, bell)
    async with app.run_test(size=SIZE) as pilot:
        screen = await bobs_game(app)
        await _until(lambda: any(t.waits for t in made))
        # Alice moves; Bob's mail server announces it; nobody presses a key on Bob's side.
        tutorial.alice.replica.submit(tutorial.game_id, [{"type": "done"}], now=now())
        await sync(tutorial.alice.replica, tutorial.alice.transport, now)
        bell.set()
        await _until(lambda: screen.data is not None and screen.data.show.seq == 5)
        assert "; Alice: done at 1A1" in status_text(app)  # what arrived, in words
        await pilot.pause()


async def test_a_quiet_wait_ends_in_a_sync_all_the_same(
    tutorial: Tutorial, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Mail a spam filter moved announces nothing: when a wait ends with no announcement the
    app syncs anyway (every `tui.app.WATCH_SECONDS`), and the packet appears."""
    monkeypatch.setattr(tui.app, "WATCH_SECONDS", 0.3)
    bell = asyncio.Event()  # (never rung)
    app, made = bobs_app(tutorial, bell)
    async with app.run_test(size=SIZE) as pilot:
        screen = await bobs_game(app)
        tutorial.alice.replica.submit(tutorial.game_id, [{"type": "done"}], now=now())
        await sync(tutorial.alice.replica, tutorial.alice.transport, now)
        await _until(lambda: screen.data is not None and screen.data.show.seq == 5)
        assert not bell.is_set() and made[0].waits >= 1
        await pilot.pause()


async def test_no_watch_without_a_transport_that_announces(tutorial: Tutorial) -> None:
    app = HexpostApp(
        Home(tutorial.bob.home.path),
        transport=lambda _home: LoopbackTransport(tutorial.network, "loopback:bob"),
    )
    async with app.run_test(size=SIZE) as pilot:
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert not [w for w in app.workers if w.group == "mail-watch" and w.is_running]


async def test_a_packet_in_the_shared_folder_is_synced_by_itself(
    tutorial: Tutorial, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a shared folder the app syncs when the folder changes, as IMAP IDLE makes it
    sync when mail comes (`mail.folder.FolderTransport.wait`)."""
    monkeypatch.setattr(mail.folder, "WATCH_POLL_SECONDS", 0.05)
    alice, bob, game = tutorial.alice, tutorial.bob, tutorial.game_id
    shared = tmp_path / "shared"
    shared.mkdir()
    app = app_for(bob, transport=lambda _home: FolderTransport(shared))
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)  # (`settle` leaves the watch running)
        assert screen.data is not None
        before = screen.data.show.seq
        alice.replica.submit(game, [{"type": "done"}], now=now())
        await sync(alice.replica, FolderTransport(shared), now)  # Alice's side of the folder

        def arrived() -> bool:
            return screen.data is not None and screen.data.show.seq == before + 1

        await _until(arrived)
        assert "; Alice: done at 1A1" in status_text(app)


async def test_the_watch_starts_when_a_transport_is_chosen_in_the_settings(
    tutorial: Tutorial, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A home opened with no transport has nothing to watch; once the player chooses a
    shared folder in the settings, packets landing there are synced by themselves, as in a
    home that had the folder from the start (the watch once stayed off until the app was
    started again)."""
    monkeypatch.setattr(mail.folder, "WATCH_POLL_SECONDS", 0.05)
    alice, bob, game = tutorial.alice, tutorial.bob, tutorial.game_id
    shared = tmp_path / "shared"
    shared.mkdir()
    app = HexpostApp(Home(bob.home.path))  # the home's own transport: none yet
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert not [w for w in app.workers if w.group == "mail-watch" and w.is_running]
        await pilot.press("comma")
        await settle(pilot)
        assert isinstance(app.screen, SettingsScreen)
        app.screen.query_one("#folder-path", Input).value = str(shared)
        await app.screen.query_one("#folder-path", Input).action_submit()
        await settle(pilot)
        await pilot.press("escape")
        screen = await open_game(pilot)
        assert screen.data is not None
        before = screen.data.show.seq
        alice.replica.submit(game, [{"type": "done"}], now=now())
        await sync(alice.replica, FolderTransport(shared), now)

        def arrived() -> bool:
            return screen.data is not None and screen.data.show.seq == before + 1

        await _until(arrived)


async def test_a_transport_let_go_is_closed_without_waiting_for_it(tmp_path: Path) -> None:
    """The transport the watch waited on is closed when the settings change the transport,
    but its close is not waited for (a mail transport's would queue behind an IDLE)."""
    from tui.screens.session import Session

    class Slow:
        closed = asyncio.Event()
        release = asyncio.Event()

        async def close(self) -> None:
            await self.release.wait()
            self.closed.set()

    session = Session(Home(tmp_path / "home"))
    try:
        old = Slow()
        session._waiter = old
        session.transport_changed()  # returns at once, the close still going on
        assert session._waiter is None and not old.closed.is_set()
        old.release.set()
        await asyncio.wait_for(old.closed.wait(), 10)
        await asyncio.sleep(0)
        assert not session._closing  # (let go of once done)
    finally:
        session.close()
