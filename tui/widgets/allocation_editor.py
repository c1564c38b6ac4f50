"""The allocation editor: a list of picks built one legal pick at a time, from the rules' menu.

Some orders hold a list whose legal entries change with every entry already in it: F&E's
``allocate`` (302.6) names losses one by one, each priced on a unit's defences, until the
damage is resolved, and the forced-resolution rule (302.61) says when the list may end. A
line of text would let a player type a list the engine then refuses; this editor offers only
what the rules allow next. The face marks such a parameter ``picks`` and answers, for the
picks made so far, with a stepwise menu (`engine.core.face.StepMenu`, described here by
`StepMenuData`): the legal next picks with their costs, what remains, whether the list may
end now and why not, and a whole legal list it suggests.

Data down, intent up: the editor never asks the rules itself. Each time the picks change it
posts `AllocationEditor.MenuWanted` to the widget that opened it (the orders panel; the
message bubbles up to the game screen, which reads the menu on the store thread) and waits;
the answer comes back through `show_menu`. A menu for other picks than the editor's current
ones (the player was quicker than the store) is dropped.

It opens filled with the suggested list, so one key (``f``) accepts it. Keys: Enter adds the
highlighted pick, ``u`` (or Backspace) takes back the last one, ``c`` clears them all, ``s``
puts the suggestion back, ``f`` (or ctrl+s) finishes (only when the menu says the list may
end: otherwise it shows why not, with the rule), Escape gives up. Nothing here knows F&E.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Protocol

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.message_pump import MessagePump
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from tui.safe_text import safe_text
from tui.widgets.dialog import Dialog
from tui.widgets.order_forms import ChoiceData


class MenuItemData(Protocol):
    """One legal next pick (`engine.core.face.MenuItem`)."""

    @property
    def value(self) -> str: ...
    @property
    def label(self) -> str: ...
    @property
    def cost(self) -> str: ...


class StepMenuData(Protocol):
    """What may be picked next (`engine.core.face.StepMenu`)."""

    @property
    def order(self) -> str: ...
    @property
    def param(self) -> str: ...
    @property
    def chosen(self) -> Sequence[str]: ...
    @property
    def heading(self) -> str: ...
    @property
    def remaining(self) -> str: ...
    @property
    def items(self) -> Sequence[MenuItemData]: ...
    @property
    def can_stop(self) -> bool: ...
    @property
    def why_not(self) -> str: ...
    @property
    def suggested(self) -> Sequence[str]: ...
    @property
    def problem(self) -> str: ...


NO_MENU = "the rules offer no menu for this order now: nothing to allocate (Esc closes)"
KEYS = "Enter adds, u takes back, c clears, s suggests, f finishes, Esc cancels"


def option_line(item: MenuItemData, width: int = 60) -> str:
    """A pick as the list shows it: its label, then its cost at the right."""
    cost = f"{item.cost} pts" if item.cost else ""
    label = safe_text(item.label)
    room = max(width - len(cost) - 1, 8)
    return f"{label[:room]:<{room}} {cost}".rstrip()


class AllocationEditor(Dialog[dict[str, Any] | None]):
    """Builds order ``choice``'s ``param`` (a ``picks`` parameter) from the rules' menu;
    dismisses with the order (``{"type": ..., param: [picks]}``) or None."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", tooltip="Close the editor, no order"),
        Binding("u,backspace", "undo", "Undo", tooltip="Take back the last pick"),
        Binding("c", "clear", "Clear", tooltip="Take back every pick"),
        Binding("s", "suggest", "Suggested", tooltip="Start again from the suggested list"),
        Binding("f,ctrl+s", "finish", "Finish", tooltip="Add the order (when it may end)"),
    ]

    DEFAULT_CSS = """
    AllocationEditor {
        & > Vertical { width: 76; }
        & Static { height: auto; }
        & #picks-heading { color: $text-muted; }
        & #picks-remaining { text-style: bold; }
        & #picks-why.-refused { color: $text-error; }
        & #picks-keys { color: $text-muted; }
        & OptionList { height: auto; max-height: 8; }
    }
    """

    class MenuWanted(Message):
        """The editor needs the menu after ``chosen`` for ``order`` (answer: `show_menu`)."""

        def __init__(self, editor: AllocationEditor, order: str, chosen: tuple[str, ...]) -> None:
            super().__init__()
            self.editor = editor
            self.order = order
            self.chosen = chosen

    def __init__(self, choice: ChoiceData, param: str, opener: MessagePump) -> None:
        super().__init__()
        self.choice = choice
        self.param = param
        self.chosen: list[str] = []
        self.menu: StepMenuData | None = None
        """The menu for ``chosen``; None while it is being read (or when there is none)."""
        self._opener = opener
        self._suggested_once = False

    def compose(self) -> ComposeResult:
        title = (
            f"{self.choice.title} ({self.choice.rule})" if self.choice.rule else self.choice.title
        )
        with Vertical():
            yield Static(title, id="picks-title", markup=False)
            yield Static("", id="picks-heading", markup=False)
            yield Static("", id="picks-chosen", markup=False)
            yield Static("", id="picks-remaining", markup=False)
            yield OptionList(id="picks-options", compact=True)
            yield Static("", id="picks-why", markup=False)
            yield Static(KEYS, id="picks-keys", markup=False)

    def on_mount(self) -> None:
        self._ask()
        self.query_one(OptionList).focus()

    # --- what the screen tells it --------------------------------------------------------------

    def show_menu(self, menu: StepMenuData | None) -> None:
        """The rules' menu for the picks made so far (None: the rules have none now)."""
        if menu is None:
            self.menu = None
            self._say(NO_MENU, refused=True)
            return
        if tuple(menu.chosen) != tuple(self.chosen):
            return  # an answer for picks taken back or added meanwhile
        if not self._suggested_once and not self.chosen and menu.suggested:
            self._suggested_once = True  # open on the suggestion: f accepts it
            self.chosen = list(menu.suggested)
            self._ask()
            return
        self._suggested_once = True
        self.menu = menu
        self._show()

    # --- what it shows --------------------------------------------------------------------------

    @property
    def offered(self) -> list[str]:
        """The picks offered now, in the order shown (empty while the menu is read)."""
        return [item.value for item in self.menu.items] if self.menu is not None else []

    @property
    def remaining_text(self) -> str:
        return str(self.query_one("#picks-remaining", Static).content)

    @property
    def why_text(self) -> str:
        return str(self.query_one("#picks-why", Static).content)

    @property
    def can_finish(self) -> bool:
        """Whether ``f`` adds the order now: the menu for these picks says the list may end."""
        menu = self.menu
        return menu is not None and not menu.problem and menu.can_stop

    def _show(self) -> None:
        menu = self.menu
        assert menu is not None
        self.query_one("#picks-heading", Static).update(safe_text(menu.heading))
        picks = "; ".join(safe_text(p) for p in self.chosen)
        self.query_one("#picks-chosen", Static).update(f"picked: {picks or 'nothing yet'}")
        self.query_one("#picks-remaining", Static).update(safe_text(menu.remaining))
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options(
            [Option(option_line(item), id=str(n)) for n, item in enumerate(menu.items)]
        )
        if menu.items:
            options.highlighted = 0
        if menu.problem:
            self._say(f"{menu.problem}: u takes it back", refused=True)
        elif menu.can_stop:
            ending = "f adds the order" if not menu.items else "f adds the order, or pick more"
            self._say(ending, refused=False)
        else:
            self._say(f"cannot finish yet: {menu.why_not}", refused=True)

    def _say(self, text: str, *, refused: bool) -> None:
        why = self.query_one("#picks-why", Static)
        why.set_class(refused, "-refused")
        why.update(safe_text(text))

    # --- keys ---------------------------------------------------------------------------------

    @on(OptionList.OptionSelected)
    def _picked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        menu = self.menu
        if menu is None or event.option.id is None:
            return  # still reading the menu for the last pick
        self.chosen.append(menu.items[int(event.option.id)].value)
        self._ask()

    def action_undo(self) -> None:
        if self.chosen:
            self.chosen.pop()
            self._ask()

    def action_clear(self) -> None:
        if self.chosen:
            self.chosen = []
            self._ask()

    def action_suggest(self) -> None:
        if self.menu is not None and self.menu.suggested:
            self.chosen = list(self.menu.suggested)
            self._ask()

    def action_finish(self) -> None:
        if self.menu is None:
            self._say("still reading the rules' menu", refused=True)
        elif self.can_finish:
            self.dismiss({"type": self.choice.order, self.param: list(self.chosen)})
        else:
            self._show()  # says why not, with the rule

    def action_cancel(self) -> None:
        self.dismiss(None)

    def _ask(self) -> None:
        """Ask for the menu after the picks made so far; show nothing to pick meanwhile."""
        self.menu = None
        self.query_one(OptionList).clear_options()
        self._say("reading the rules...", refused=False)
        self._opener.post_message(self.MenuWanted(self, self.choice.order, tuple(self.chosen)))
