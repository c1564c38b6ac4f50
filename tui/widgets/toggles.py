"""Check boxes and radio buttons whose mark says whether they are on.

Textual draws its `Checkbox` as ``X`` and its `RadioButton` as ``●`` whether on or off, and
shows the state in colour alone. Over SSH on a monochrome terminal, or with ``NO_COLOR``
(where Textual draws both in near-identical greys), a player could not tell whether "No
passphrase: key stored unencrypted" was ticked. These keep Textual's widgets, messages and
styles, and put the state in the mark too: ``X`` or a blank, ``●`` or a blank.
"""

from __future__ import annotations

from typing import Any

from textual.widgets import Checkbox, RadioButton

BLANK = " "


def _mark(button: Checkbox | RadioButton, on_mark: str) -> None:
    """The mark follows the value (Textual's toggle base class is not public: each widget
    below calls this from its own watcher)."""
    button.BUTTON_INNER = on_mark if button.value else BLANK


class MarkedCheckbox(Checkbox):
    """A `Checkbox` drawn ``X`` when ticked and blank when not."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _mark(self, "X")

    def watch_value(self) -> None:
        _mark(self, "X")
        super().watch_value()


class MarkedRadioButton(RadioButton):
    """A `RadioButton` drawn ``●`` when chosen and blank when not."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _mark(self, "\u25cf")

    def watch_value(self) -> None:
        _mark(self, "\u25cf")
        super().watch_value()
