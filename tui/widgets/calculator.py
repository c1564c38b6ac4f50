"""The calculator dialog: one of a ruleset's calculators, worked again at every keystroke.

Players plan a battle's intensity by asking "what would this potential score at that BIR
with each die?" (F&E's combat damage, ``hexpost calc combat`` on the command line). The
dialog asks for the calculator's fields (a text field each, a menu where the field allows
only some values) and shows the result under them as the values change.

Data down, as for the order forms: the fields arrive as data (`CalcFieldData`, which the
ruleset client's `tui.rulesets.CalcField` satisfies as it is) and the work is a plain
function handed over by the screen (`Work`), which asks the service; the widget imports no
engine, store or ruleset client code. The rules are the ruleset's: the dialog checks nothing
but that the required fields are filled in. A value the rules refuse comes back as an
`Outcome` naming the field at fault, and its reason (which names the value and the rule) is
shown on the line under that field, not somewhere far from it.

Keys: Tab / shift+Tab (or Enter in a text field) go from field to field, Escape closes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar, NamedTuple, Protocol

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Input, Label, Select, Static

from tui.safe_text import safe_text
from tui.widgets.dialog import Dialog


class CalcFieldData(Protocol):
    """One value a calculator takes (`tui.rulesets.CalcField`)."""

    @property
    def name(self) -> str: ...
    @property
    def label(self) -> str: ...
    @property
    def default(self) -> str: ...
    @property
    def choices(self) -> Sequence[str]: ...
    @property
    def required(self) -> bool: ...


class Outcome(NamedTuple):
    """What the calculator said: its result, or its refusal and the field at fault ("" when
    no one field is to blame)."""

    text: str
    refused: bool = False
    field: str = ""


Work = Callable[[dict[str, str]], Outcome]
"""The values by field name to the calculator's outcome (the screen asks the service)."""


class CalculatorDialog(Dialog[None]):
    """A calculator's fields with its result, or the reason it refuses, kept up to date."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", tooltip="Close the calculator"),
    ]

    DEFAULT_CSS = """
    CalculatorDialog {
        & > Vertical { width: 72; }
        & #calc-title { text-style: bold; }
        & .calc-row { height: 1; }
        & .calc-row Label { width: 12; color: $text-muted; }
        & .calc-row Input, & .calc-row Select { width: 1fr; }
        & .calc-error { color: $text-error; height: auto; padding-left: 12; }
        & #calc-result { height: auto; margin-top: 1; }
        & #calc-result.-refused { color: $text-muted; }
        & #calc-hint { color: $text-muted; }
    }
    """

    def __init__(self, title: str, fields: Sequence[CalcFieldData], work: Work) -> None:
        super().__init__()
        self.title_text = title
        self.fields = list(fields)
        self._work = work
        self.outcome: Outcome | None = None
        """The last outcome shown (None while a required field is blank)."""
        self._ready = False
        """Set once mounted: a change posted before then finds fields not yet there to read."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.title_text, id="calc-title", markup=False)
            for field in self.fields:
                with Horizontal(classes="calc-row"):
                    yield Label(field.label, markup=False)
                    if field.choices:
                        options = [(choice, choice) for choice in field.choices]
                        yield Select(
                            options,
                            value=field.default or field.choices[0],
                            allow_blank=False,
                            compact=True,
                            id=f"calc-{field.name}",
                        )
                    else:
                        yield Input(field.default, compact=True, id=f"calc-{field.name}")
                yield Static("", id=f"calc-error-{field.name}", classes="calc-error", markup=False)
            yield Static("", id="calc-result", markup=False)
            hint = "Tab: next field; the result follows the values. Esc closes"
            yield Static(hint, id="calc-hint")

    def on_mount(self) -> None:
        if self.fields:
            self.query_one(f"#calc-{self.fields[0].name}").focus()
        self._ready = True
        self.recompute()

    @property
    def values(self) -> dict[str, str]:
        """Every field's value, stripped, by name."""
        found: dict[str, str] = {}
        for field in self.fields:
            widget = self.query_one(f"#calc-{field.name}")
            if isinstance(widget, Select):
                found[field.name] = "" if widget.is_blank() else str(widget.value)
            elif isinstance(widget, Input):
                found[field.name] = widget.value.strip()
        return found

    @property
    def result_text(self) -> str:
        return str(self.query_one("#calc-result", Static).content)

    def error_text(self, name: str) -> str:
        """What the line under field ``name`` says ("" when nothing is wrong with it)."""
        return str(self.query_one(f"#calc-error-{name}", Static).content)

    @on(Input.Changed)
    @on(Select.Changed)
    def _changed(self) -> None:
        self.recompute()

    @on(Input.Submitted)
    def _next_field(self) -> None:
        self.focus_next()

    def recompute(self) -> None:
        """Work the calculator on the values now and show the outcome: the result under the
        fields, or the refusal under the field at fault (under the result line when the
        refusal blames no field). Nothing is worked while a required field is blank."""
        if not self._ready:
            return
        values = self.values
        for field in self.fields:
            self._show_error(field.name, "")
        result = self.query_one("#calc-result", Static)
        blank = [f.label for f in self.fields if f.required and not values.get(f.name)]
        if blank:
            self.outcome = None
            result.set_class(True, "-refused")
            result.update(f"fill in: {', '.join(blank)}")
            return
        outcome = self.outcome = self._work(values)
        result.set_class(outcome.refused, "-refused")
        if not outcome.refused:
            result.update(safe_text(outcome.text, multiline=True))
            return
        if outcome.field in {f.name for f in self.fields}:
            self._show_error(outcome.field, outcome.text)
            result.update("no result: see the marked field")
        else:
            result.update(safe_text(outcome.text))

    def _show_error(self, name: str, text: str) -> None:
        line = self.query_one(f"#calc-error-{name}", Static)
        line.update(safe_text(text))
        line.display = bool(text)

    def action_close(self) -> None:
        self.dismiss(None)
