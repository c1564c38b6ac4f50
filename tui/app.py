"""The hexpost Textual app: a home's games, one game at a time, in a terminal.

The app itself only wires things: it owns the `Session` (the home on its store thread, see
`tui.screens.session`), starts on the games list, opens a game named on the command line,
and closes the store on the way out. The screens do the talking to the home and the widgets
only show data. Every binding a screen shows in its footer is also in the command palette
(ctrl+p), so a player who forgot a key can search for what they want to do, and ``?`` opens
`HelpScreen` over any screen: that screen's keys, read from its live bindings, and the legends.
The palette also opens the ship designer (`tui.screens.designer`) over any screen: it needs
no game, so it has no key of its own on the games list or a game.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events, work
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.color import Color
from textual.dom import DOMNode
from textual.filter import LineFilter, Monochrome
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget

from tui.safe_text import safe_text
from tui.screens.games import GamesScreen
from tui.screens.session import Session
from tui.startup import FALLBACK_SECONDS, IDLE_SECONDS, collect_if_idle, release_collector
from tui.typeahead import QUIET_PASSES, RELEASE_SECONDS, KeyOrder, TypeAhead

if TYPE_CHECKING:
    from textual.timer import Timer

    from mail.transport import Transport
    from saves.home import Home
    from tui.screens.base import HexpostScreen


WATCH_SECONDS = 15 * 60.0
"""How long one IMAP IDLE lasts before it is issued again (servers drop idlers after 30). A
wait that ends with nothing announced is followed by a sync all the same: mail a spam filter
moved announces nothing (`mail.imapjunk`), and a send that failed is due again."""

HOME_SECONDS = 2.0
"""How often the app asks whether another process changed the home (`check_home`)."""


class SafeMonochrome(Monochrome):
    """Textual's ``NO_COLOR`` filter, safe for segments without a style.

    Rich allows a `Segment` whose style is None (the map draws the gaps between hex boxes
    so), but Textual's `Monochrome` reads ``style.color`` unconditionally: with ``NO_COLOR``
    set, the first repaint of the map raised and the game screen could not open. Giving
    such segments the null style changes nothing on screen.
    """

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        null = Style.null()
        plain = [Segment(text, style or null, control) for text, style, control in segments]
        return super().apply(plain, background)


def release_style_caches() -> None:
    """Let go of the style caches of widgets long gone, before a full collection.

    Textual's ``StylesCache.get_inner_outer`` is an ``lru_cache`` on a method, so it keeps up
    to 1,024 widgets' style caches alive, with the lines they rendered (Textual issue 6665):
    every game opened and closed left some 4,800 objects behind (2,968 of them the caches of
    rendered lines), and each full collection walked them all. Cleared, it fills again at the
    cost of a colour sum per widget. Nothing is done if a Textual version no longer has it."""
    try:
        from textual._styles_cache import StylesCache
    except ImportError:  # pragma: no cover - a Textual without the module
        return
    clear = getattr(getattr(StylesCache, "get_inner_outer", None), "cache_clear", None)
    if callable(clear):
        clear()


class HexpostApp(App[None]):
    """Play the games of ``home``; ``game`` (a name or id prefix) opens that game at once.

    ``passphrase`` unlocks an encrypted identity so a sync can sign automatic replies;
    ``transport`` replaces the configured transport (tests use a loopback one); ``clock``
    is the time the games list measures how long a game has waited against (default: the
    wall clock; the snapshot tests freeze it); ``home_seconds`` how often it looks for
    changes another process made to the home (`check_home`).
    """

    CSS_PATH = "app.tcss"
    TITLE = "hexpost"

    BINDINGS: ClassVar[list[BindingType]] = [
        # An app binding so every screen has it; a modal screen (the help itself, the go-to
        # dialog) cuts the app off its binding chain, so `?` there is the modal's own key.
        Binding(
            "question_mark", "help", "Help", tooltip="The keys of this screen and the map marks"
        ),
    ]

    def __init__(
        self,
        home: Home,
        game: str | None = None,
        *,
        passphrase: bytes | None = None,
        transport: Callable[[Home], Transport] | None = None,
        clock: Callable[[], datetime] | None = None,
        home_seconds: float = HOME_SECONDS,
    ) -> None:
        super().__init__()
        self.session = Session(home, passphrase=passphrase, transport=transport)
        self._game = game
        self._clock = clock
        self._home_seconds = home_seconds
        self._checking_home = False
        """A `check_home` is under way (a tick meanwhile starts none)."""
        self._home_timer: Timer | None = None
        self._monochrome = SafeMonochrome()
        self._last_input = time.monotonic()
        """When the player last pressed a key or used the mouse (`_collect_if_idle`)."""
        self._typeahead = TypeAhead()
        self._key_order = KeyOrder()
        self._key_screen: Screen[Any] | None = None
        """The screen on top when the key in flight was routed (`_key_handled`)."""
        self.failure: str | None = None
        """Why the app stopped by itself (`stop`): `tui.cli` says it once the screen is back."""

    def stop(self, why: str) -> None:
        """End the app because it can do nothing (the home's database cannot be read): the
        command line prints ``why`` and exits 1."""
        self.failure = why
        self.exit(return_code=1)

    def get_default_screen(self) -> Screen[None]:
        # The games list is the bottom of the stack: escape from a game always lands there.
        return GamesScreen(open_game=self._game, clock=self._clock)

    def get_line_filters(self) -> Sequence[LineFilter]:
        """Textual's filters, with `SafeMonochrome` for its ``NO_COLOR`` one (monochrome play
        over SSH must not depend on every widget styling every segment)."""
        return [
            self._monochrome if type(f) is Monochrome else f for f in super().get_line_filters()
        ]

    def on_mount(self) -> None:
        self.watch_mail()
        self._home_timer = self.set_interval(self._home_seconds, self._tick_home)
        # The first screen lets the collector go once painted; this, whatever it does.
        self.set_timer(FALLBACK_SECONDS, release_collector)
        # The full collections wait for a pause in the player's keys (`tui.startup`).
        self.set_interval(IDLE_SECONDS / 2, self._collect_if_idle)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.InputEvent):
            self._last_input = time.monotonic()
        if isinstance(event, events.Key) and self.screen_stack:
            on_top = self.screen_stack[-1]
            if not event.is_forwarded:  # read from the terminal: about to be routed
                if self._key_order.hold(event):
                    # A key typed before it is still being handled (`KeyOrder`); the first
                    # key to wait for it starts the clock that lets it go at the latest.
                    if len(self._key_order.waiting) == 1:
                        self._release_later()
                    return
                self._typeahead.routed(event, on_top)
                self._key_screen = on_top
                target: Widget = self.focused or self.screen  # where Textual routes it
                await super().on_event(event)
                if not target.call_later(self._follow, event, target):
                    self._key_handled(event)
                return
            if self._typeahead.typed_for_another(event, on_top):
                # Typed for the screen a key before it opened (`tui.typeahead`): read again,
                # as the key in flight (the keys after it still wait for it).
                again = events.Key(event.key, event.character)
                self._key_order.in_flight = again
                if self._key_order.waiting:
                    self._release_later()
                self.post_message(again)
                return
        await super().on_event(event)

    def _follow(self, key: events.Key, node: DOMNode) -> None:
        """``node`` has taken what came before this call in its queue: ``key`` too (handled
        there, stopped, or passed on up to its parent). Follow it up the same way; past the
        app, whose binding for it has run by then, the key is handled (`KeyOrder`)."""
        parent = None if node is self else node.parent
        if parent is None or not parent.call_later(self._follow, key, parent):
            self._quieted(key, 0)

    def _quieted(self, key: events.Key, passes: int) -> None:
        """``key`` went up its chain; while keys wait behind it, let the messages it caused
        be handled too before the next goes (`KeyOrder`): Enter in a dialog's field posts
        ``Submitted``, which closes the dialog only once it has bubbled up to it. Each pass
        waits for every node of the screen on top (and the app) that has messages queued,
        until none has or `QUIET_PASSES` were made."""
        if self._key_order.in_flight is not key:
            return  # let go already (`RELEASE_SECONDS`)
        nodes = [self, *self.screen.walk_children(with_self=True)]
        busy = [node for node in nodes if node.message_queue_size]
        if not self._key_order.waiting or not busy or passes >= QUIET_PASSES:
            self._key_handled(key)
            return
        left = len(busy)

        def done() -> None:
            nonlocal left
            left -= 1
            if not left:
                self._quieted(key, passes + 1)

        for node in busy:
            if not node.call_later(done):
                done()  # (a node closing: nothing more of it to wait for)

    def _release_later(self) -> None:
        """Let the key in flight go after `RELEASE_SECONDS` at the latest, for the keys that
        wait for it (a widget gone with the key in its queue would hold them for ever). Only
        while keys wait: a key typed alone starts no timer."""
        key = self._key_order.in_flight
        if key is not None:
            self.set_timer(RELEASE_SECONDS, partial(self._key_handled, key))

    def _key_handled(self, key: events.Key) -> None:
        following = self._key_order.handled(key)
        if following is None:
            return
        # Sent by the app, wherever this runs (a widget's queue, after `_quieted`): Textual
        # stops a message bubbling at its sender's child, so a key sent by the screen would
        # never come back up to the app and its bindings.
        following.set_sender(self)
        if self._key_order.waiting:
            self._release_later()
        if self._key_screen is self.screen:
            self.post_message(following)
        else:  # the key changed the screen on top: once it is up, its focus is set
            self.screen.call_after_refresh(self.post_message, following)

    def _collect_if_idle(self) -> None:
        collect_if_idle(time.monotonic() - self._last_input, release_style_caches)

    @work(group="mail-watch", exclusive=True, exit_on_error=False)
    async def watch_mail(self, *, fresh: bool = False) -> None:
        """Sync as soon as new packets may be there, so they appear by themselves: the mail
        server announces new mail (IMAP IDLE), or the shared folder changed (its modification
        time, looked at every 2 s: `mail.folder.FolderTransport.wait`). A failed wait (the
        network is down) is tried again after a growing pause; the sync it triggers is the
        screen's own, so the status line says what arrived. ``fresh``: the home's transport
        changed, so the one waited on so far is let go first (this worker, one per app, has
        replaced the one that waited on it).
        """
        from engine.core.errors import HexpostError

        if fresh:
            self.session.transport_changed()
        failures = 0
        while True:
            try:
                arrived = await self.session.wait_for_mail(WATCH_SECONDS)
            except HexpostError as exc:
                if not getattr(exc, "retryable", True):
                    reason = safe_text(exc)  # the mail server's words, shown as typed
                    self.notify(
                        f"not watching for mail: {reason}", severity="warning", markup=False
                    )
                    return
                failures += 1
                await asyncio.sleep(min(300.0, 5.0 * 2**failures))
                continue
            if arrived is None:
                return
            failures = 0
            self.sync_arrivals()  # (after a quiet wait too: see WATCH_SECONDS)

    def on_settings_screen_transport_changed(self, _: Message) -> None:
        """The settings changed the home's transport: watch the new one."""
        self.watch_mail(fresh=True)

    def sync_arrivals(self) -> None:
        """Start the sync of the topmost hexpost screen (under a dialog if one is open), when
        the watch says packets may have arrived, by mail or in the shared folder."""
        screen = self._hexpost_screen()
        if screen is not None and not screen.syncing:
            screen.sync_unasked()

    def _hexpost_screen(self) -> HexpostScreen | None:
        """The topmost hexpost screen (under a dialog or the help if one is open)."""
        from tui.screens.base import HexpostScreen

        for screen in reversed(self.screen_stack):
            if isinstance(screen, HexpostScreen):
                return screen
        return None

    def _tick_home(self) -> None:
        if not self._checking_home:  # (a check waiting behind a long sync is enough)
            self._checking_home = True
            self.check_home()

    @work(group="home-watch")
    async def check_home(self) -> None:
        """Show what another process changed in the home: ``sync --watch`` running as a
        service, ``hexpost orders`` in a shell, a second window (`tui.services.home_watch`).

        The topmost hexpost screen is told which games changed and reads them again, as
        after its own sync: a game screen keeps its drafts and checks them against the new
        head. Nothing is read while nothing changed."""
        try:
            games = await self.session.home_changes()
        finally:
            self._checking_home = False
        screen = self._hexpost_screen()
        if games is not None and screen is not None:
            screen.home_changed(games)

    def on_unmount(self) -> None:
        if self._home_timer is not None:  # no look at the home once its store is closing
            self._home_timer.stop()
        self.session.close()

    def action_help(self) -> None:
        """Help for the screen on top; pressed again (from the palette) it closes."""
        # Imported on first use: it draws the map legends, so it brings the galaxy and the map
        # modules along, which the games list's first paint does not need.
        from tui.screens.help import HelpScreen

        if isinstance(self.screen, HelpScreen):
            self.screen.dismiss(None)
        else:
            self.push_screen(HelpScreen(self.screen))

    def action_designer(self) -> None:
        """The ship designer (`tui.screens.designer`) over the screen on top; it needs no game."""
        # Imported on first use: it brings the design procedure along, which no other
        # screen needs.
        from tui.screens.designer import DesignerScreen

        self.push_screen(DesignerScreen())

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Textual's own commands, then every hexpost key that can act now, by its
        description (only the ones `check_action` allows at this moment).

        The footer of an 80-column terminal shows only the commonest keys, so the palette
        also offers hexpost's keys kept out of it (talk, review, build...). Textual's own
        widgets' hidden keys and grouped navigation keys (a table's or the map's cursor
        moves) would only bury them and stay out.
        """
        yield from super().get_system_commands(screen)
        # By class name: importing the designer here would load the design procedure for
        # every palette opened, though it is needed only once the command runs.
        if type(screen).__name__ != "DesignerScreen":
            yield SystemCommand(
                "Ship designer",
                "Design a starship from its size and tech level (no game needed)",
                self.action_designer,
            )
        seen: set[str] = set()
        for active in screen.active_bindings.values():
            binding = active.binding
            if not (active.enabled and binding.description) or binding.group is not None:
                continue
            ours = type(active.node).__module__.startswith("tui.")
            if not (binding.show or ours):
                continue
            if binding.action in seen:
                continue
            if binding.action in ("quit", "app.quit", "command_palette"):
                continue
            seen.add(binding.action)
            key = binding.key_display or binding.key
            help_text = f"{binding.tooltip} (key {key})" if binding.tooltip else f"key {key}"
            run = partial(self.run_action, binding.action, active.node)
            yield SystemCommand(binding.description, help_text, run)
