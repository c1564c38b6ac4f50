"""The pace dialog (``w`` on a game): where the game's time went, as ``hexpost pace`` says.

The report is read on the session's store thread (`tui.services.pace`, which replays
nothing) and worded by the same text view as the command line (`tui.pace_text`), cut to the
dialog's columns, so the app and the command line cannot tell two stories.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Static

from tui.pace_text import pace_text
from tui.safe_text import safe_record, safe_text
from tui.screens.text_box import TextBoxScreen

if TYPE_CHECKING:
    from tui.screens.session import Session

WIDTH = 74
"""Text columns inside the dialog's box at 80 columns (border, padding and scrollbar taken)."""


class PaceScreen(TextBoxScreen):
    """The pace of one game as text; escape, ``w`` or ``q`` closes it, the arrows scroll."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("w", "close", "Close", show=False)]

    def __init__(self, name: str, text: str) -> None:
        super().__init__(id="pace-screen")
        self.game_name = name
        self.text = text

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="pace", classes="text-box") as box:
            box.border_title = f"Pace: {self.game_name}"
            box.border_subtitle = "escape, w or q closes"
            yield Static(self.text, id="pace-text", markup=False)


async def open_pace(session: Session, game_id: str) -> PaceScreen:
    """The dialog for ``game_id`` with its report already read (pushed from a worker)."""
    name, text = await session.call(_read, session, game_id)
    return PaceScreen(name, text)


def _read(session: Session, game_id: str) -> tuple[str, str]:
    """On the store thread: the game's name and its pace in words, every string made safe."""
    from tui.services.jsonform import json_form
    from tui.services.pace import pace_report

    replica = session.reader()
    row = replica.game(bytes.fromhex(game_id))
    record = safe_record(json_form(pace_report(replica, row)))
    return safe_text(row.name), pace_text(record, WIDTH)
