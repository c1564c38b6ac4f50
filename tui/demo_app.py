"""`hexpost demo` on a terminal: the demo game in the Textual app, both seats at one keyboard.

The homes and the game come from the installed ruleset's demo (`tui.rulesets.demo`; F&E's
is the text demo's own set-up, so the two demos start from the same game): two players in a
temporary folder, joined and set up, exchanging packets through the in-memory loopback
transport. `DemoApp` opens Alice's home on that game; ctrl+t ("Switch seat") hands the
keyboard to the other player, as passing a laptop across the table would.

Each seat has its own `Session` (its own home on its own store thread). A switch syncs the
seat being left (what it just signed goes out) and then the seat being entered (it applies
that and writes its automatic replies, such as a die roll's answer), and only then points
the app at the other session and opens the game there afresh; so what one player sent is
what the other sees. One screen stack serves both seats (the screens have fixed ids, so two
stacks of them cannot live in one app): unsent drafts in the orders panel do not survive a
switch, as they would not survive passing the keyboard in a real hotseat either.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from textual import work
from textual.binding import Binding, BindingType
from textual.screen import ModalScreen, Screen

from mail.transport import Transport
from saves.home import Home
from tui.app import HexpostApp
from tui.rulesets import DemoSeat, demo
from tui.screens.base import HexpostScreen
from tui.screens.games import GamesScreen
from tui.screens.session import Session

GREETING_SECONDS = 15
"""How long a seat's greeting stays, unless the player opens a dialog first."""


def hint(seat: DemoSeat, other: DemoSeat) -> str:
    """The first-visit notice: who you are and the few keys that play a turn."""
    return (
        f"You are {seat.name} ({seat.side}). o: orders, d: done, S: send; "
        f"ctrl+t: switch to {other.name}"
    )


class DemoApp(HexpostApp):
    """The hexpost app over two homes, one seat at a time; ``game`` opens in each seat.

    `HexpostApp` keeps one ``session`` that every screen reads through ``app.session``;
    this app holds one per seat and points ``session`` at the seat being played, so the
    screens need no change.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        # Priority: the map and the orders panel hold the focus and take most keys.
        Binding(
            "ctrl+t",
            "switch_seat",
            "Switch seat",
            priority=True,
            tooltip="Sync, then hand the keyboard to the other player",
        ),
    ]

    def __init__(self, seats: tuple[DemoSeat, DemoSeat], game: str) -> None:
        super().__init__(Home(Path(seats[0].path)), game, transport=_fixed(seats[0].transport))
        self.seats = seats
        self.sessions = [self.session] + [
            Session(Home(Path(seat.path)), transport=_fixed(seat.transport)) for seat in seats[1:]
        ]
        self.seat = 0
        """The index of the seat whose screens are shown (and whose session is in use)."""
        self.switching = False
        self.game_name = game
        self._greeted: set[int] = set()
        self._greeting_until = 0.0
        """When the greeting shown last times out (`time.monotonic`); 0 once it is gone."""

    def on_mount(self) -> None:
        self.screen_change_signal.subscribe(self, self._screen_changed)
        self._enter(0)

    def _screen_changed(self, screen: Screen[object]) -> None:
        """A dialog opened while the greeting is up takes it away: at 80x24 the toast's four
        lines sat over the help's last keys, and by then the player has found the keys it
        names. Textual clears notices only all at once, so a notice shown with the greeting
        (the switch's sync summary) goes too. (A smaller dialog shows the screen under it
        through its backdrop as that screen was last laid out, and Textual lays out only the
        screen on top: there the greeting stays in sight until the dialog closes.)"""
        if isinstance(screen, ModalScreen) and time.monotonic() < self._greeting_until:
            self._greeting_until = 0.0
            self.clear_notifications()

    def on_unmount(self) -> None:
        # Textual runs `HexpostApp.on_unmount` too (handlers run along the class chain),
        # and it closes the session in use: close only the others here.
        for session in self.sessions:
            if session is not self.session:
                session.close()

    def _enter(self, index: int) -> None:
        """Name the seat in the title and greet its player once."""
        seat, other = self.seats[index], self.seats[1 - index]
        self.title = f"hexpost demo: {seat.name}'s seat"
        self.sub_title = f"{seat.name} ({seat.side})"
        if index not in self._greeted:
            self._greeted.add(index)
            self._greeting_until = time.monotonic() + GREETING_SECONDS
            self.notify(hint(seat, other), title=f"{seat.name}'s seat", timeout=GREETING_SECONDS)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "switch_seat" and self.switching:
            return None  # shown but greyed out while the two syncs run
        return True

    def action_switch_seat(self) -> None:
        if self.switching:  # the palette can run it even while the key is greyed out
            return
        self.switching = True
        self.refresh_bindings()
        leaving, entering = self.seats[self.seat], self.seats[1 - self.seat]
        screen = self.screen
        if isinstance(screen, HexpostScreen):
            screen.status.busy(f"syncing {leaving.name}, then {entering.name}...")
        self.switch_seat()

    @work(group="switch-seat")
    async def switch_seat(self) -> None:
        """Sync the seat being left, then the one being entered, then show the latter."""
        index = 1 - self.seat
        sent = await self.sessions[self.seat].sync()
        received = await self.sessions[index].sync()
        # Back to the games list (it is the bottom of the stack), then the other home.
        while len(self.screen_stack) > 1:
            await self.pop_screen()
        self.seat = index
        self.session = self.sessions[index]
        # The notices of the seat left (its greeting, its sync) are not the new player's,
        # and at 80x24 a stack of them hides half the screen.
        self.clear_notifications()
        self._enter(index)
        games = self.screen
        if isinstance(games, GamesScreen):
            games.reload()
            games.open(await self.session.find(self.game_name))
        self.switching = False
        self.refresh_bindings()
        summary = received.summary if sent.ok else sent.summary
        self.notify(f"{self.seats[index].name}'s seat: {summary}", timeout=4)


def _fixed(transport: Transport) -> Callable[[Home], Transport]:
    """A transport factory for a `Session`: always the seat's own loopback transport."""
    return lambda _home: transport


def run_demo_app(keep: Path | None = None) -> int:
    """Run the hotseat demo in the terminal; ``keep`` keeps the two homes there."""
    script = demo()
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        DemoApp(script.seats(keep), script.game_name).run()
        return 0
    with tempfile.TemporaryDirectory(prefix="hexpost-demo-") as root:
        DemoApp(script.seats(Path(root)), script.game_name).run()
    return 0
