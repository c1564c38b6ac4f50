"""The hotseat hand-over (`tui.demo_app`): a blank screen between two players at one keyboard.

When the demo passes the keyboard to the other seat, the screen shows only whose turn it is
and what came in, until that player presses Enter. Passing a laptop across the table should
not show the next player the screen the last one left (their orders panel, a secret choice
not yet revealed), and the seat's greeting belongs here rather than in a toast: a toast sat
over the bottom right of every dialog opened while it lasted, and dialogs smaller than the
screen kept showing it behind them after it had gone (Textual lays out only the screen on
top). Nothing here knows a ruleset: the seat's name and side come from the demo's seats.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Static


def hand_over_lines(name: str, other: str, *, left: str = "", news: str = "") -> list[str]:
    """The paragraphs of what the hand-over says to ``name``, whose other player is
    ``other``: ``left`` names the player who just left the keyboard (empty at the start of
    the demo), ``news`` what the switch's sync brought in."""
    if left:
        lines = [
            f"{left} has handed over. Pass the keyboard to {name}: {left}'s screen stays "
            f"hidden until {name} takes the seat."
        ]
    else:
        lines = [
            "Both players of this demo game share one keyboard, as at one table; the packets "
            "they sign travel between their two homes as they would by mail."
        ]
    if news:
        lines += ["", f"{name}'s home {news}"]
    return [
        *lines,
        "",
        "o  orders      d  done (the step)      S  send      ?  help",
        f"ctrl+t  sync, then hand the keyboard to {other}      ctrl+q  quit",
        "",
        f"Press Enter to play {name}'s seat.",
    ]


class HandOverScreen(Screen[None]):
    """The whole screen, opaque, until Enter: then the demo opens the game for the seat."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "take_seat", "Take the seat", priority=True),
    ]

    DEFAULT_CSS = """
    HandOverScreen {
        align: center middle;
        & > #hand-over {
            width: 100%;
            max-width: 78;
            height: auto;
            padding: 1 2;
            border: round $accent;
            border-title-style: bold;
            background: $surface;
        }
        & #hand-over-text {
            width: 100%;
        }
    }
    """

    def __init__(self, title: str, lines: list[str]) -> None:
        super().__init__(id="hand-over-screen")
        self._title = title
        self._lines = lines

    def compose(self) -> ComposeResult:
        box = Vertical(id="hand-over")
        box.border_title = self._title
        with box:
            yield Static("\n".join(self._lines), id="hand-over-text", markup=False)

    @property
    def text(self) -> str:
        """What the screen says, as shown."""
        return "\n".join(self._lines)

    def action_take_seat(self) -> None:
        self.dismiss(None)
