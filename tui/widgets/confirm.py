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
    """Ask ``question`` over ``lines`` (shown scrollable, by the arrow and page keys while
    Yes has the focus); True for yes."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
        # Yes keeps the focus; these scroll the lines (at 80x24 a long packet overflows).
        Binding("down", "lines('down')", show=False),
        Binding("up", "lines('up')", show=False),
        Binding("pagedown", "lines('page_down')", show=False),
        Binding("pageup", "lines('page_up')", show=False),
        Binding("home", "lines('home')", show=False),
        Binding("end", "lines('end')", show=False),
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
        self.watch(self.query_one(VerticalScroll), "virtual_size", self._say_length)

    def _say_length(self) -> None:
        """Past the box's height, the question says how long the list is and how to see it
        all: nothing else shows that lines lie below the edge. Asked again each time the
        list's size changes (its first sizes come before the box has its height)."""
        scroll = self.query_one(VerticalScroll)
        over = scroll.container_size.height > 0 and scroll.max_scroll_y > 0
        said = f"{self.question} ({len(self.lines)} lines: ↑ ↓ PgUp PgDn scroll)"
        self.query_one(Label).update(said if over else self.question)

    def action_lines(self, how: str) -> None:
        scroll = self.query_one(VerticalScroll)
        moves = {
            "down": scroll.scroll_down,
            "up": scroll.scroll_up,
            "page_down": scroll.scroll_page_down,
            "page_up": scroll.scroll_page_up,
            "home": scroll.scroll_home,
            "end": scroll.scroll_end,
        }
        moves[how](animate=False)

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
