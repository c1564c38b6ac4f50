"""Ask for one line of text on a modal screen: the key's passphrase, or a chat message.

The dialog only asks: it dismisses with what was typed (Enter) or None (Escape), and the
screen that pushed it hands the text to the session. That keeps the passphrase out of any
widget state beyond the dialog's own `Input`, and lets the caller decide what a wrong answer
means (the passphrase dialog is pushed again with ``error`` saying so).
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Input, Label, Static

from tui.widgets.dialog import Dialog


class LineDialog(Dialog[str | None]):
    """``question`` over one `Input`; Enter answers with its text, Escape with None.

    ``password`` hides what is typed. An empty answer is not sent back (Enter on an empty
    line says what is needed instead), so the caller never gets "" by accident.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
    ]

    DEFAULT_CSS = """
    LineDialog {
        & > Vertical { width: 64; }
        & #line-error { color: $error; }
        & #line-hint { color: $text-muted; }
    }
    """

    def __init__(
        self,
        question: str,
        *,
        password: bool = False,
        placeholder: str = "",
        error: str = "",
        max_length: int = 0,
    ) -> None:
        super().__init__()
        self.question = question
        self.password = password
        self.placeholder = placeholder
        self.error = error
        self.max_length = max_length

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.question, markup=False)
            yield Input(
                password=self.password,
                placeholder=self.placeholder,
                max_length=self.max_length,
                id="line-input",
            )
            yield Static(self.error, id="line-error", markup=False)
            yield Static("Enter: done   Escape: cancel", id="line-hint", markup=False)

    def on_mount(self) -> None:
        self.query_one("#line-error").display = bool(self.error)
        self.query_one(Input).focus()

    @on(Input.Submitted)
    def submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if not event.value.strip():
            self.say("type something first, or Escape to cancel")
            return
        self.dismiss(event.value)

    def say(self, text: str) -> None:
        """Show ``text`` under the input (a problem with the answer)."""
        error = self.query_one("#line-error", Static)
        error.update(text)
        error.display = bool(text)

    def action_cancel(self) -> None:
        self.dismiss(None)


class PassphraseDialog(LineDialog):
    """The identity key's passphrase, hidden as it is typed, to sign ``purpose``."""

    def __init__(self, purpose: str, *, error: str = "") -> None:
        super().__init__(
            f"Passphrase of your key, to {purpose}:",
            password=True,
            placeholder="passphrase",
            error=error,
        )
