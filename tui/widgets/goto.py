"""A small dialog asking for a hex id (``XXYY``): the map's "go to hex".

Its own modal screen rather than an input inside the map: the map keeps every key for moving
the cursor, and the dialog gets the keyboard whole until it closes. It checks the answer
itself and says what is wrong in place (no move, no closing), so only a hex of the map ever
reaches the caller; Escape closes it with None.
"""

from __future__ import annotations

import re
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Input, Label, Static

from tui.mapgeom import Grid, HexId, hex_col, hex_label, hex_row
from tui.widgets.dialog import Dialog

_HEX = re.compile(r"\d{3,4}")


def parse_hex(text: str, grid: Grid) -> HexId:
    """The hex id ``text`` names (``"1411"``; ``"101"`` for 0101), checked against ``grid``;
    `ValueError` says what is wrong in words a player can act on."""
    text = text.strip()
    if not _HEX.fullmatch(text):
        example = hex_label(grid.last)
        raise ValueError(f"{text!r} is not a hex: give its id as XXYY, e.g. {example}")
    h = int(text)
    if not grid.first_column <= hex_col(h) <= grid.last_column:
        raise ValueError(f"hex {h:04d}: column {hex_col(h):02d} is off {grid.size}")
    if not grid.first_row <= hex_row(h) <= grid.last_row:
        raise ValueError(f"hex {h:04d}: row {hex_row(h):02d} is off {grid.size}")
    return h


class GotoDialog(Dialog[HexId | None]):
    """Ask for a hex of ``grid``; dismisses with its id, or None (Escape).

    ``current`` (the cursor's hex) is shown as the placeholder, so an empty Enter is not a
    silent jump somewhere else: it is refused like any other text that names no hex.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", tooltip="Close without moving"),
    ]

    DEFAULT_CSS = """
    GotoDialog {
        & > Vertical { width: 44; }
        & Input {
            width: 100%;
        }
        & #goto-error {
            color: $text-error;
            height: auto;
        }
    }
    """

    def __init__(self, grid: Grid, *, current: HexId | None = None) -> None:
        super().__init__()
        self.grid = grid
        self.current = current

    def compose(self) -> ComposeResult:
        placeholder = hex_label(self.current) if self.current is not None else "XXYY"
        with Vertical():
            first, last = hex_label(self.grid.first), hex_label(self.grid.last)
            yield Label(f"Go to hex: XXYY, {first} to {last}")
            yield Input(placeholder=placeholder, max_length=4, restrict=r"\d*", id="goto-hex")
            yield Static("", id="goto-error")

    @on(Input.Submitted)
    def submitted(self, event: Input.Submitted) -> None:
        event.stop()
        try:
            h = parse_hex(event.value, self.grid)
        except ValueError as problem:
            self.query_one("#goto-error", Static).update(str(problem))
            event.input.select_all()  # (what comes next replaces it: four digits at most)
            return
        self.dismiss(h)

    def action_cancel(self) -> None:
        self.dismiss(None)
