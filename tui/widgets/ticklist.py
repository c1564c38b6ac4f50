"""Lists to pick from: a list with ticks that read without colour, and a dialog around it.

Textual's `SelectionList` marks a ticked line only by the colour of its button (the same
``X`` either way), which a monochrome terminal or ``NO_COLOR`` loses. `TickList` draws the
tick itself: ``[x]`` ticked, ``[ ]`` not, in the same four columns, colour only repeating it.

`PickDialog` asks for one line of a list (Enter takes the highlighted one) or, with
``multiple``, for any number of them (space ticks, Enter takes the ticked ones); Escape gives
up; typing goes to the first line whose value starts with what was typed. The orders panel
uses it for the steps of a standing order or a ``done through``, and for the group or piece
a set-up placement puts on the map: the lines come from the ruleset's data, the dialog only
shows them and returns the values picked.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.segment import Segment
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.strip import Strip
from textual.widgets import OptionList, SelectionList, Static
from textual.widgets.option_list import Option, OptionDoesNotExist

from tui.widgets.dialog import Dialog

TICKED, UNTICKED = "[x]", "[ ]"
"""The marks of a ticked and an unticked line."""

PickItem = tuple[str, str, bool]
"""(label, value, ticked at first) of one line."""


class TickList(SelectionList[str]):
    """A `SelectionList` whose ticks are characters: ``[x]`` or ``[ ]`` before each line."""

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        _, scroll_y = self.scroll_offset
        try:
            selection = self.get_option_at_index(scroll_y + y)
        except OptionDoesNotExist:
            return strip
        segments = list(strip)
        if len(segments) < 4:
            return strip
        mark = TICKED if selection.value in self._selected else UNTICKED
        style = segments[1].style
        return Strip([Segment(mark, style), *segments[3:]])

    @property
    def picked(self) -> list[str]:
        """The ticked values in the order the list shows them."""
        chosen = set(self.selected)
        values = [self.get_option_at_index(i).value for i in range(self.option_count)]
        return [str(value) for value in values if value in chosen]


class PickDialog(Dialog["list[str] | None"]):
    """A titled list; dismisses with the values picked (one, or the ticked ones), or None."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", tooltip="Close the list, nothing picked"),
    ]
    """Enter is no binding: `on_key` takes it, in the order the keys were typed."""

    DEFAULT_CSS = """
    PickDialog {
        & > Vertical { width: 70; }
        & OptionList, & TickList { height: auto; max-height: 16; }
        & Static { width: 100%; }
    }
    """

    def __init__(self, title: str, items: Sequence[PickItem], *, multiple: bool = False) -> None:
        super().__init__()
        self.title_text = title
        self.items = tuple(items)
        self.multiple = multiple

    def compose(self) -> ComposeResult:
        how = "space ticks, Enter takes the ticked" if self.multiple else "Enter takes one"
        with Vertical():
            yield Static(f"{self.title_text} ({how}, Esc closes)", markup=False)
            if self.multiple:
                yield TickList(*self.items, id="pick-list", compact=True)
            else:
                yield OptionList(
                    *(Option(label, id=value) for label, value, _ in self.items),
                    id="pick-list",
                    compact=True,
                )
            note = Static("", id="pick-note", markup=False)
            note.display = False
            yield note

    typed = ""
    """What was typed to go to a line (`on_key`)."""
    found = True
    """Whether ``typed`` found a line (or nothing was typed yet)."""

    def on_mount(self) -> None:
        self.query_one("#pick-list").focus()

    def on_key(self, event: events.Key) -> None:
        """A letter, digit or dash goes to the first line whose value starts with what was
        typed (``3B1`` among a hundred steps). After a line was found, one that extends no
        value starts the typing over from it (the next id typed). Typing that finds nothing
        moves nothing, says so under the list, and stays so until backspace clears it: a
        ``3B2`` typed where no step begins with 3 must not land on 2A3, which its last key
        alone would find. Backspace clears what was typed.

        Enter takes the line (`action_take`) here too, not as a priority binding: keys that
        arrive in one burst (over SSH, or pasted by tmux) reach this handler in the order
        typed, while a priority binding runs as its key arrives, before the list has read
        the keys ahead of it. Stopped here, it never reaches the list's own Enter (which
        would tick a line of a `TickList` instead of taking the ticked ones)."""
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            self.action_take()
            return
        if event.key == "backspace" and self.typed:
            event.stop()
            self._typed("", found=True)
            return
        char = event.character or ""
        if len(char) != 1 or not (char.isalnum() or char == "-"):
            return
        event.stop()
        tries = (self.typed + char, char) if self.found else (self.typed + char,)
        for typed in tries:
            at = self._first(typed)
            if at is not None:
                self._typed(typed, found=True)
                self.query_one("#pick-list", OptionList).highlighted = at
                return
        self._typed(self.typed + char, found=False)

    def _first(self, typed: str) -> int | None:
        """The first line whose value starts with ``typed`` (any case), or None."""
        wanted = typed.casefold()
        return next((i for i, v in enumerate(self.values) if v.casefold().startswith(wanted)), None)

    def _typed(self, typed: str, *, found: bool) -> None:
        self.typed, self.found = typed, found
        note = self.query_one("#pick-note", Static)
        note.display = not found
        if not found:
            note.update(f"nothing listed starts with {typed} (backspace clears it)")

    @property
    def values(self) -> list[str]:
        """The values listed, in the order shown."""
        return [value for _, value, _ in self.items]

    def action_take(self) -> None:
        """Enter: the highlighted line (or the ticked ones); nothing while what was typed
        finds no line, since the line highlighted is then not the one the player named."""
        if not self.found:
            self.app.bell()
            return
        pick = self.query_one("#pick-list")
        if isinstance(pick, TickList):
            self.dismiss(pick.picked)
        elif isinstance(pick, OptionList) and pick.highlighted is not None:
            option = pick.get_option_at_index(pick.highlighted)
            self.dismiss([str(option.id)])

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if not self.found:
            return
        if not self.multiple:  # a click on a line
            self.dismiss([str(event.option.id)])

    def action_cancel(self) -> None:
        self.dismiss(None)
