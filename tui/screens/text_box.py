"""A dialog that is one scrolling box of text over the whole screen: the help (``?``) and a
game's pace (``w``) are both this, each with its own content and the key that opened it.
"""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.screen import ModalScreen


class TextBoxScreen(ModalScreen[None]):
    """The box (the widget of class ``text-box`` a subclass composes) takes the focus, so
    the arrows and page keys scroll it; Escape or ``q`` closes the dialog, and a subclass
    binds the key that opened it to ``close`` as well."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", tooltip="Back to the screen below"),
        Binding("q", "close", "Close", show=False),
    ]

    DEFAULT_CSS = """
    TextBoxScreen {
        align: center middle;
        /* Opaque: a see-through modal redraws the whole screen under it, dimmed, at every
           paint (Textual's BackgroundScreen), and at 80x24 the box covers all of it. */
        background: $background;
        & > .text-box {
            width: 100%;
            max-width: 80;
            height: 100%;
            padding: 0 1;
            border: round $accent;
            border-title-style: bold;
            background: $surface;
            scrollbar-size-vertical: 1;
            /* Always shown: the text runs longer than a screen, and a scrollbar that shows
               up once the text is measured cost a second layout and repaint. */
            overflow-y: scroll;
        }
    }
    """

    def on_mount(self) -> None:
        self.query_one(".text-box").focus()

    def action_close(self) -> None:
        self.dismiss(None)
