"""The frame every hexpost dialog shares: a box in the middle of the screen, as wide as its
subclass says and never wider or taller than the screen (a taller one scrolls, and Tab
brings the focused field into view), drawn over what it covers.

Each dialog (`ConfirmDialog`, `LineDialog`, the order forms, the calculator...) composes a
`Vertical` holding its content and sets only that box's width and its own parts: Textual's
type selectors match subclasses, so the frame is written once, here.
"""

from __future__ import annotations

from typing import TypeVar

from textual.screen import ModalScreen

ResultType = TypeVar("ResultType")


class Dialog(ModalScreen[ResultType]):
    """A modal screen whose `Vertical` child is the dialog's box."""

    DEFAULT_CSS = """
    Dialog {
        align: center middle;
        & > Vertical {
            max-width: 100%;
            height: auto;
            max-height: 100%;
            overflow-y: auto;  /* taller than the screen (a form of many fields at 80x24) */
            padding: 0 1;
            border: round $accent;
            background: $surface;
        }
    }
    """
