"""A yes/no question on its own modal screen: "sign and queue these orders?".

Signing cannot be taken back (the packet is chained and will be sent), so the orders are
shown once more in plain words and the answer needs a key of its own: ``y`` (or Enter on the
focused Yes button) confirms, ``n`` or Escape declines. Dismisses with True or False.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Label, Static

from tui.widgets.dialog import Dialog


class ConfirmDialog(Dialog[bool]):
    """Ask ``question`` over ``lines`` (shown scrollable); True for yes."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]

    DEFAULT_CSS = """
    ConfirmDialog {
        & > Vertical { width: 60; }
        & VerticalScroll { height: auto; max-height: 12; }
        & Horizontal { height: auto; align-horizontal: right; }
        & Button { margin: 0 1; min-width: 8; }
    }
    """

    def __init__(self, question: str, lines: Sequence[str]) -> None:
        super().__init__()
        self.question = question
        self.lines = list(lines)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.question)
            with VerticalScroll():
                yield Static("\n".join(self.lines), markup=False, id="confirm-lines")
            with Horizontal():
                yield Button("Yes (y)", id="yes", compact=True)
                yield Button("No (n)", id="no", compact=True)

    def on_mount(self) -> None:
        self.query_one("#yes", Button).focus()

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
