"""The ship design form: one text field per design input, the derived figures beside them.

A player designing a ship tries values and watches what they do: the habitable space of a
size, what armor a speed allows. So the form sends its values up at every keystroke
(`DesignForm.Changed`) and the screen answers with what the design procedure made of them
(`DesignForm.show`): the figures, and each complaint on the line under the field it is
about (a value that is no number or out of its range, or a rule the design breaks). The
form itself checks nothing and imports no engine: the fields and the results arrive as data
(`FieldData`, `FigureData`, which `engine.design.InputField` and
`tui.services.designs.FigureLine` satisfy as they are).

Layout for 80x24: the inputs on the left and the figures on the right, each in its own
scrolling column, so the figures stay in view while the inputs are typed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar, Protocol

from rich.console import Group
from rich.padding import Padding
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from tui.safe_text import safe_text


class FieldData(Protocol):
    """One input of the design procedure (`engine.design.InputField`)."""

    @property
    def name(self) -> str: ...
    @property
    def label(self) -> str: ...
    @property
    def minimum(self) -> int: ...
    @property
    def maximum(self) -> int: ...
    @property
    def default(self) -> int: ...
    @property
    def help(self) -> str: ...


class FigureData(Protocol):
    """One derived figure, its value already worded for display."""

    @property
    def key(self) -> str: ...
    @property
    def label(self) -> str: ...
    @property
    def formula(self) -> str: ...
    @property
    def value(self) -> str: ...
    @property
    def unit(self) -> str: ...
    @property
    def note(self) -> str: ...


def value_text(field: FieldData, number: int) -> str:
    """``number`` as field ``field`` shows it: a stat that can go below zero is a modifier,
    written signed as the source writes one (``+2``, ``-3``, ``0``); a count is not."""
    return f"+{number}" if number > 0 and field.minimum < 0 else str(number)


def range_text(field: FieldData) -> str:
    """The allowed values, shown beside the field: ``-10..+10``, ``10..30``."""
    return f"{value_text(field, field.minimum)}..{value_text(field, field.maximum)}"


def figure_head(figure: FigureData) -> str:
    """A figure's first line: its label and value (rounded for display only), with unit."""
    return safe_text(f"{figure.label}: {figure.value} {figure.unit}".rstrip())


def figure_detail(figure: FigureData) -> str:
    """Under it: the formula's name, and the reading chosen where the source is ambiguous."""
    detail = safe_text(figure.formula)
    if figure.note:
        detail += f"\nreading: {safe_text(figure.note)}"
    return detail


def figures_content(figures: Sequence[FigureData]) -> Group:
    """Every figure in procedure order: its head line, and its detail dimmed and indented
    under it (a wrapped line keeps the indent). One renderable for the whole list, not a
    widget per figure: a key that changes the figures then lays out one widget again, where
    some fifty figures (a hundred and fifty widgets) took tens of ms a key (issue 16, item 5).
    Rich's `Padding` gives the hanging indent that a text of its own could not."""
    parts: list[Text | Padding] = []
    for figure in figures:
        parts.append(Text(figure_head(figure)))
        parts.append(Padding(Text(figure_detail(figure), style="dim"), (0, 0, 0, 2)))
    return Group(*parts)


class DesignForm(Horizontal):
    """The inputs (left) and the figures with the design's verdict (right)."""

    DEFAULT_CSS = """
    DesignForm {
        height: 1fr;
        & #design-inputs { width: 36; height: 1fr; padding: 0 1 0 0; }
        & #design-figures { width: 1fr; height: 1fr; border-left: vkey $foreground 30%; }
        & .design-field { height: auto; }
        & .design-row { height: 1; }
        & .design-row Label { width: 15; color: $text-muted; }
        & .design-row Input { width: 8; }
        & .design-range { width: 11; padding-left: 1; color: $text-muted; }
        & .design-error { height: auto; color: $text-error; padding-left: 2; }
        & #design-verdict { height: auto; text-style: bold; padding: 0 1; }
        & #design-verdict.-impossible { color: $text-error; }
        & #design-figure-list { height: auto; padding: 0 1; }
    }
    """

    class Changed(Message):
        """The values typed, by field name (stripped), after any keystroke or a load."""

        def __init__(self, values: dict[str, str]) -> None:
            super().__init__()
            self.values = values

    def __init__(self, fields: Sequence[FieldData], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.fields = list(fields)
        self._ready = False
        """Set once mounted: a change posted before then finds fields not yet there to read."""
        self._figures: dict[str, FigureData] = {}
        """The figures shown, by key, in procedure order."""

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="design-inputs"):
            for field in self.fields:
                with Vertical(classes="design-field"):
                    with Horizontal(classes="design-row"):
                        yield Label(field.label, markup=False)
                        yield Input(
                            str(field.default),
                            compact=True,
                            id=f"design-{field.name}",
                            tooltip=field.help,
                        )
                        yield Static(range_text(field), classes="design-range", markup=False)
                    yield Static(
                        "", id=f"design-error-{field.name}", classes="design-error", markup=False
                    )
        with VerticalScroll(id="design-figures"):
            yield Static("", id="design-verdict", markup=False)
            yield Static("", id="design-figure-list", markup=False)

    def on_mount(self) -> None:
        for field in self.fields:
            self._show_error(field.name, [])
        self._ready = True
        self.post_message(self.Changed(self.values))

    @property
    def values(self) -> dict[str, str]:
        """Every field's text, stripped, by name."""
        return {
            field.name: self.query_one(f"#design-{field.name}", Input).value.strip()
            for field in self.fields
        }

    def fill(self, values: Mapping[str, object]) -> None:
        """Put ``values`` (a loaded design) in the fields; fields it does not name take their
        defaults. One `Changed` follows, not one per field."""
        with self.prevent(Input.Changed):
            for field in self.fields:
                value = values.get(field.name, field.default)
                text = value_text(field, value) if isinstance(value, int) else str(value)
                self.query_one(f"#design-{field.name}", Input).value = text
        self.post_message(self.Changed(self.values))

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        if self._ready:
            self.post_message(self.Changed(self.values))

    @on(Input.Submitted)
    def _next_field(self, event: Input.Submitted) -> None:
        event.stop()
        self.screen.focus_next()

    def show(
        self,
        verdict: str,
        figures: Sequence[FigureData],
        errors: Mapping[str, Sequence[str]],
        *,
        ok: bool,
    ) -> None:
        """Show the outcome: ``verdict`` over the figures (marked when not ``ok``), and under
        each field the complaints ``errors`` holds for it (none: the line is hidden)."""
        for field in self.fields:
            self._show_error(field.name, errors.get(field.name, ()))
        line = self.query_one("#design-verdict", Static)
        line.update(safe_text(verdict, multiline=True))
        line.set_class(not ok, "-impossible")
        if tuple(figures) != tuple(self._figures.values()):
            self._figures = {figure.key: figure for figure in figures}
            self.query_one("#design-figure-list", Static).update(figures_content(figures))

    def error_text(self, name: str) -> str:
        """What the line under field ``name`` says ("" when nothing is wrong with it)."""
        return str(self.query_one(f"#design-error-{name}", Static).content)

    @property
    def verdict_text(self) -> str:
        return str(self.query_one("#design-verdict", Static).content)

    def figure_text(self, key: str) -> str:
        """The figure ``key`` as shown (label, value, formula), "" when it is not shown."""
        figure = self._figures.get(key)
        if figure is None:
            return ""
        return f"{figure_head(figure)}\n{figure_detail(figure)}"

    def _show_error(self, name: str, lines: Sequence[str]) -> None:
        line = self.query_one(f"#design-error-{name}", Static)
        line.update("\n".join(safe_text(text) for text in lines))
        line.display = bool(lines)


class NameDialog(ModalScreen[str | None]):
    """Ask the name to save a design under; dismisses with it (stripped), or None (Escape).

    It refuses a blank name in place; whether a name is allowed, or taken, is the store's
    say, asked once the dialog has closed: a name it does not allow opens the dialog again
    with its reason (``problem``)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", tooltip="Close without saving"),
    ]

    DEFAULT_CSS = """
    NameDialog {
        align: center middle;
        & > Vertical {
            width: 50;
            max-width: 100%;
            height: auto;
            padding: 0 1;
            border: round $accent;
            background: $surface;
        }
        & #name-problem { color: $text-error; height: auto; }
    }
    """

    def __init__(self, name: str = "", problem: str = "") -> None:
        super().__init__()
        self.start = name
        self.problem = problem
        """Why the name asked before would not do ("" the first time)."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Save the design as (Enter saves, Esc cancels):")
            yield Input(self.start, compact=True, id="design-name")
            yield Static(safe_text(self.problem), id="name-problem", markup=False)

    def on_mount(self) -> None:
        self.query_one("#design-name", Input).focus()

    @on(Input.Submitted)
    def submitted(self, event: Input.Submitted) -> None:
        event.stop()
        name = event.value.strip()
        if not name:
            self.query_one("#name-problem", Static).update("a design needs a name")
            return
        self.dismiss(name)

    def action_cancel(self) -> None:
        self.dismiss(None)


class PickDialog(ModalScreen[str | None]):
    """Pick one of the saved designs (``names``); dismisses with its name, or None (Escape)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", tooltip="Close without loading"),
    ]

    DEFAULT_CSS = """
    PickDialog {
        align: center middle;
        & > Vertical {
            width: 50;
            max-width: 100%;
            height: auto;
            max-height: 100%;
            padding: 0 1;
            border: round $accent;
            background: $surface;
        }
        & OptionList { height: auto; max-height: 16; }
    }
    """

    def __init__(self, names: Sequence[str]) -> None:
        super().__init__()
        self.names = list(names)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Load which design? (Enter loads, Esc cancels)")
            yield OptionList(*(Option(safe_text(name), id=name) for name in self.names))

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    @on(OptionList.OptionSelected)
    def picked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
