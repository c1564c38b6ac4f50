"""What every hexpost screen shares: the session, the status line and the sync action.

Sync lives here so it behaves the same wherever the player presses ``s``: one async worker
per screen (group ``sync``, exclusive) awaits `Session.sync`, which runs on the store thread;
the result comes back as a `HexpostScreen.Synced` message, the status line says what
happened, and the screen reloads its data when a packet changed something. While a sync
runs the binding is shown disabled (`check_action`), so a second press cannot queue another.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, ClassVar, TypeVar

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.reactive import reactive
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Static

from engine.core.errors import HexpostError
from tui.safe_text import safe_text
from tui.screens.session import Checked, Session, SyncResult

T = TypeVar("T")

SLOW_READ = 0.15
"""Seconds a read may take before the status line says that it is under way (`push_read`):
a quicker one shows nothing in between, so its screen lands in one repaint."""


class BusyBar(Static):
    """An indeterminate progress bar: a block sweeping to and fro while work runs.

    Textual's `ProgressBar` redraws at the screen's frame rate, and during a load that
    drawing competes for the interpreter with the store thread doing the reading (the app
    started a third slower with it). Ten steps a second are enough to show the app has not
    hung, and the block reads in monochrome.
    """

    BLOCK = 4
    """Width of the moving block, in cells."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)
        self._step = 0
        self._timer: Timer | None = None

    def start(self) -> None:
        self.display = True
        if self._timer is None:
            self._timer = self.set_interval(0.1, self._advance)
        self._draw()

    def stop(self) -> None:
        self.display = False
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def _advance(self) -> None:
        self._step += 1
        self._draw()

    def _draw(self) -> None:
        room = max(1, self.size.width - 2 - self.BLOCK)
        bounce = self._step % (2 * room)
        at = bounce if bounce < room else 2 * room - bounce
        inside = " " * at + "\u2588" * self.BLOCK
        self.update(f"[{inside.ljust(room + self.BLOCK)}]")


class StatusLine(Horizontal):
    """One line at the bottom: the last thing that happened, and a bar while work runs.

    The bar is indeterminate: a sync cannot know in advance how many packets wait, and a
    moving bar is enough to tell the player the app has not hung.
    """

    news: str | None = None
    """The news of what arrived, while the line tells it (`say` with ``news``): a
    sync that brings nothing keeps it in view rather than hide it (`HexpostScreen.synced`).
    Anything else said since forgets it."""

    def compose(self) -> ComposeResult:
        yield Static("", id="status-text", markup=False)
        yield BusyBar(id="status-bar")

    def on_mount(self) -> None:
        self.query_one(BusyBar).stop()

    def busy(self, text: str) -> None:
        self.query_one("#status-text", Static).update(safe_text(text))
        self.query_one(BusyBar).start()

    def say(self, text: str, *, news: str | None = None) -> None:
        """Show ``text`` as one line; it may quote a game's name or a refusal reason, so its
        control characters are shown escaped (`tui.safe_text`). ``news``: the news of what
        arrived that ``text`` tells (`news`)."""
        self.news = news
        self.query_one("#status-text", Static).update(safe_text(text))
        self.query_one(BusyBar).stop()

    @property
    def text(self) -> str:
        """What the line says now (for tests and the command palette's echo)."""
        return str(self.query_one("#status-text", Static).content)


class HexpostScreen(Screen[None]):
    """A screen of the hexpost app: reaches the home through the app's `Session`."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "sync", "Sync", tooltip="Fetch and apply packets, then send the outbox"),
        Binding("r", "reload", "Refresh", show=False, tooltip="Read the store again"),
    ]

    syncing: reactive[bool] = reactive(False, bindings=True)
    """True while a sync runs; the sync binding is greyed out meanwhile."""

    STYLED_ONCE: ClassVar[bool] = False
    """Whether the screen's widgets are styled once before its first paint, not twice
    (`_styled_once`): for the screens a key opens, each checked by
    ``tests/tui/test_open_styles.py``."""

    _resumed = False
    """The screen has been shown once (`_styled_once`)."""

    _sync_again = False
    """Something was signed while a sync ran (`send_signed`): one more sync follows it."""
    _said_before: tuple[str, str | None] | None = None
    """What the status line said before a sync nobody pressed a key for (its text and
    news): a quiet one leaves it there (`sync_unasked`)."""

    class Synced(Message):
        """A sync finished (or could not start); ``result`` says what it did."""

        def __init__(self, result: SyncResult) -> None:
            super().__init__()
            self.result = result

    class Failed(Message):
        """Reading the home failed for a reason the player can act on (a game that is gone,
        a name that matches none); ``reason`` goes to the status line."""

        def __init__(self, reason: str) -> None:
            super().__init__()
            self.reason = reason

    @on(events.ScreenResume)
    def _styled_once(self, event: events.ScreenResume) -> None:
        """The first time a `STYLED_ONCE` screen is shown, its widgets are not styled again.

        Textual styles each widget as it is mounted, and then again, every widget of the
        screen, when the pushed screen resumes: between the two nothing a rule depends on
        has changed (the focused widget restyles itself), so the second pass gave the same
        styles: some 3% of the instructions before the game screen's first paint, 7 ms of
        the review's 70-100 (issue 16; ``tests/tui/test_open_styles.py`` compares them with
        a fresh pass). Later resumes (back from a dialog, a theme change) restyle as
        Textual does. This handler runs before `Screen`'s own, which reads
        ``refresh_styles`` (Textual calls a class's handlers before its bases').
        """
        if self.STYLED_ONCE and not self._resumed:
            self._resumed = True
            event.refresh_styles = False

    @property
    def session(self) -> Session:
        """The app's session: any app hosting these screens offers one as ``.session``."""
        session = getattr(self.app, "session", None)
        if not isinstance(session, Session):
            raise TypeError("hexpost screens need an app with a `session` (tui.app.HexpostApp)")
        return session

    async def fetch(self, read: Awaitable[T], loaded: Callable[[T], Message]) -> None:
        """Await one read of the home (in a worker) and post ``loaded(value)``, or `Failed`
        with the reason when the home refuses it (a game that is gone, a bad name): the
        same three steps every screen's loading worker takes."""
        try:
            value = await read
        except HexpostError as exc:
            self.post_message(self.Failed(str(exc)))
        else:
            self.post_message(loaded(value))

    @work(exclusive=True, group="push")
    async def push_read(self, read: Callable[[], Awaitable[Screen[Any]]], what: str) -> None:
        """Push the screen ``read()`` returns once its data is read, so that its first paint
        shows the data rather than an empty screen drawn again a read later. A read slower
        than `SLOW_READ` says ``what`` is under way on the status line; a refusal is said
        there (`Failed`); the screen is not pushed over one the player went to meanwhile."""
        status = next(iter(self.query(StatusLine)), None)  # (none on a list not built yet)
        said = status.text if status is not None else ""
        news = status.news if status is not None else None
        told: list[bool] = []

        def tell() -> None:
            if status is not None:
                told.append(True)
                status.busy(f"{what}...")

        slow = self.set_timer(SLOW_READ, tell)
        try:
            screen = await read()
        except HexpostError as exc:
            self.post_message(self.Failed(str(exc)))
            return
        finally:
            slow.stop()
        if status is not None and told:
            status.say(said, news=news)
        if self.app.screen is self:  # (not under a dialog or the help either)
            self.app.push_screen(screen)

    @property
    def status(self) -> StatusLine:
        return self.query_one(StatusLine)

    def asked_passphrase(
        self, result: Checked, purpose: str, retry: Callable[[], object], refused: str
    ) -> bool:
        """Whether ``result`` was refused only for want of the key's passphrase. If so the
        passphrase is asked ("Passphrase of your key, to ``purpose``") and ``retry`` runs once
        the key opens; Escape leaves ``refused`` on the status line. The identity screen's
        module is imported only then (no screen's first paint needs it)."""
        if not result.locked:
            return False
        from tui.screens.identity import ask_passphrase

        ask_passphrase(self, purpose, retry, cancelled=lambda: self.status.say(refused))
        return True

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "sync" and self.syncing:
            return None  # shown, but disabled until the running sync ends
        return True

    def action_sync(self) -> None:
        self.syncing = True
        self.status.busy("syncing: fetching and applying packets, then sending the outbox...")
        self.run_sync()

    def sync_unasked(self) -> None:
        """A sync nobody pressed a key for: the watch saw mail or the shared folder change
        (`tui.app.HexpostApp.sync_arrivals`: our own packet landing there too), or one
        follows a sync that ran while something was signed. When it turns out quiet, the
        status line keeps what it said: "received 0, sent 0" after a move just sent reads
        as a move that never left."""
        self._said_before = (self.status.text, self.status.news)
        self.action_sync()

    @work(exclusive=True, group="sync")
    async def run_sync(self) -> None:
        self.post_message(self.Synced(await self.session.sync()))

    def send_signed(self) -> None:
        """Something was just signed and queued (orders, a chat line, an answer to a joined
        key, a join, a new game's invitation): send it now, with a sync. A move must not wait
        in the outbox for a key the player did not know to press, an hour or a day, while
        the other player waits for it; and the key that signs says Send. A sync that was
        already running may have pushed the outbox before this was queued: one more follows
        it."""
        if self.syncing:
            self._sync_again = True
        else:
            self.action_sync()

    @on(Synced)
    def synced(self, message: Synced) -> None:
        self.syncing = False
        news = self.status.news
        before, self._said_before = self._said_before, None
        if message.result.quiet and before is not None:
            self.status.say(before[0], news=before[1])
        elif message.result.quiet and news is not None:
            self.status.say(f"synced, nothing since: {news}", news=news)
        else:
            self.status.say(message.result.summary)
        self.after_sync(message.result)
        if self._sync_again:
            self._sync_again = False
            self.sync_unasked()

    @on(Failed)
    def failed(self, message: Failed) -> None:
        self.status.say(message.reason)

    def after_sync(self, result: SyncResult) -> None:
        """Reload what the sync may have changed (each screen decides what that is)."""

    def home_changed(self, games: frozenset[str]) -> None:
        """Another process changed the home: ``games`` (hex ids) changed, or, empty, something
        that is no game's (`tui.app.HexpostApp.check_home`). Each screen decides what to read
        again; by default nothing (a form keeps what the player types)."""

    def action_reload(self) -> None:
        self.reload()

    def reload(self) -> None:
        """Start reading this screen's data again (in a worker)."""
        raise NotImplementedError
