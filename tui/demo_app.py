"""`hexpost demo` on a terminal: the demo game in the Textual app, both seats at one keyboard.

The homes and the game come from the installed ruleset's demo (`tui.rulesets.demo`; F&E's
is the text demo's own set-up, so the two demos start from the same game): two players in a
temporary folder, joined and set up, exchanging packets through the in-memory loopback
transport. `DemoApp` opens Alice's home on that game; ctrl+t ("Switch seat") hands the
keyboard to the other player, as passing a laptop across the table would, through a
hand-over screen that hides the seat left until the next player presses Enter.

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
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import ClassVar

from textual import work
from textual.binding import Binding, BindingType

from engine.core.errors import HexpostError
from mail.transport import Transport
from saves.home import Home
from tui.app import HexpostApp
from tui.rulesets import DemoSeat, demo
from tui.screens.base import HexpostScreen
from tui.screens.games import GamesScreen
from tui.screens.hand_over import HandOverScreen, hand_over_lines
from tui.screens.session import Session


class DemoApp(HexpostApp):
    """The hexpost app over two homes, one seat at a time; ``game`` opens in each seat.

    `HexpostApp` keeps one ``session`` that every screen reads through ``app.session``;
    this app holds one per seat and points ``session`` at the seat being played, so the
    screens need no change. Each seat begins behind a hand-over screen (`HandOverScreen`):
    who plays now, what the switch brought in, the keys that play a turn; Enter opens the
    game for that seat.
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
        # No game named to the games list: it opens once the first player takes the seat.
        super().__init__(Home(Path(seats[0].path)), transport=_fixed(seats[0].transport))
        self.seats = seats
        self.sessions = [self.session] + [
            Session(Home(Path(seat.path)), transport=_fixed(seat.transport)) for seat in seats[1:]
        ]
        self.seat = 0
        """The index of the seat whose screens are shown (and whose session is in use)."""
        self.switching = False
        self.game_name = game

    def on_mount(self) -> None:
        self.greet(0)

    def on_unmount(self) -> None:
        # Textual runs `HexpostApp.on_unmount` too (handlers run along the class chain),
        # and it closes the session in use: close only the others here.
        for session in self.sessions:
            if session is not self.session:
                session.close()

    @work(group="switch-seat")
    async def greet(self, index: int, left: str = "", synced: str = "") -> None:
        """Name the seat in the title and put the hand-over screen up for its player, with
        what is new in the game for them (read, not marked read: the game screen shows it
        again as news once they take the seat)."""
        seat, other = self.seats[index], self.seats[1 - index]
        self.title = f"hexpost demo: {seat.name}'s seat"
        self.sub_title = f"{seat.name} ({seat.side})"
        arrived: Sequence[str] = ()
        try:
            game_id = await self.session.find(self.game_name)
            arrived = (await self.session.game(game_id, mark_read=False, quick=True)).news
        except HexpostError:
            pass  # (the synced line says what the sync did; the game screen says the rest)
        lines = hand_over_lines(seat.name, other.name, left=left, synced=synced, arrived=arrived)
        title = f"{seat.name}'s seat: {seat.side}"
        self.push_screen(HandOverScreen(title, lines), self._seated)
        self.switching = False
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "switch_seat" and (self.switching or isinstance(self.screen, HandOverScreen)):
            return None  # shown but greyed out while the two syncs run, or nobody sits yet
        return True

    def action_switch_seat(self) -> None:
        if self.switching or isinstance(self.screen, HandOverScreen):
            return  # (the palette can run it even while the key is greyed out)
        self.switching = True
        self.refresh_bindings()
        leaving, entering = self.seats[self.seat], self.seats[1 - self.seat]
        screen = self.screen
        if isinstance(screen, HexpostScreen):
            screen.status.busy(f"syncing {leaving.name}, then {entering.name}...")
        self.switch_seat()

    @work(group="switch-seat")
    async def switch_seat(self) -> None:
        """Sync the seat being left, then the one being entered, then hand over."""
        index = 1 - self.seat
        sent = await self.sessions[self.seat].sync()
        received = await self.sessions[index].sync()
        # Back to the games list (it is the bottom of the stack), then the other home.
        while len(self.screen_stack) > 1:
            await self.pop_screen()
        left = self.seats[self.seat].name
        self.seat = index
        self.session = self.sessions[index]
        # The notices of the seat left (its sync, say) are not the new player's.
        self.clear_notifications()
        games = self.screen
        if isinstance(games, GamesScreen):
            games.reload()
        self.greet(index, left, received.summary if sent.ok else sent.summary)

    def _seated(self, _: None) -> None:
        self.take_seat()

    @work(group="switch-seat")
    async def take_seat(self) -> None:
        """The player at the keyboard took the seat: open the game in its home."""
        games = self.screen
        if isinstance(games, GamesScreen):
            games.open(await self.session.find(self.game_name))


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
