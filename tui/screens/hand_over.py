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

from collections.abc import Sequence
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Static

from tui.screens.hexinfo import clip

ARRIVED_LINES = 9
"""Lines of what arrived shown at most: with the rest, the box fits 24 rows."""
WIDTH = 72
"""Columns of text in the box at 80 (its border and padding taken); a longer line of what
arrived is cut (`clip`), so that the box keeps its height."""


def hand_over_lines(
    name: str, other: str, *, left: str = "", synced: str = "", arrived: Sequence[str] = ()
) -> list[str]:
    """The paragraphs of what the hand-over says to ``name``, whose other player is
    ``other``: ``left`` names the player who just left the keyboard (empty at the start of
    the demo), ``arrived`` what is new in the game for ``name`` (`GameData.news`: who
    played what), else ``synced`` what the switch's sync did."""
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
    if arrived:
        shown = list(arrived)
        if len(shown) > ARRIVED_LINES:  # the first ones, and the last: whom the game waits for
            shown = [*shown[: ARRIVED_LINES - 2], "  ... (e shows the game's log)", shown[-1]]
        lines += ["", *(clip(line, WIDTH) for line in shown)]
    elif synced:
        lines += ["", f"{name}'s home {synced}"]
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
