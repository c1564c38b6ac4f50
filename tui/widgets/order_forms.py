"""Small forms for the orders that need more than a key: build, adjust, roll, secret choice.

Each form is a modal dialog (`OrderForm`, a ``ModalScreen`` that returns the order as a
plain dict, or None when the player gives up). It asks only for the fields the order needs,
pre-filled from what the player already pointed at on the map (the chosen hex, the first
unit of the stack). The form checks only that nothing required is blank: the rules are the
engine's, and the orders panel shows its verdict, with the rule number, as soon as the draft
is added. That keeps one source of truth for what is legal.

Keys: Tab / shift+Tab (or Enter on a text field) go from field to field, Enter on the last
field adds the order, ctrl+s adds it from anywhere, Escape gives up.

The builders (`build_form`, `adjust_form`, `roll_form`, `secret_form`) only describe the
fields and how the values become an order; the screen-free parts are plain functions so the
tests can check them without a terminal.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Any, ClassVar, NamedTuple

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Select, Static

from engine.fe.model import ADJUST_FIELDS

Values = dict[str, str]
Make = Callable[[Values], "dict[str, Any] | str"]
"""The values of the shown fields to an order, or the text saying what is missing."""


class Field(NamedTuple):
    """One line of a form: a text field, or a choice when ``choices`` (label, value) are given."""

    name: str
    label: str
    value: str = ""
    choices: tuple[tuple[str, str], ...] = ()
    placeholder: str = ""


class OrderForm(ModalScreen["dict[str, Any] | None"]):
    """A titled column of fields; dismisses with the order `make` builds from them."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", tooltip="Close the form, no order"),
        Binding("ctrl+s", "submit", "Add", tooltip="Add the order to the drafts"),
    ]

    DEFAULT_CSS = """
    OrderForm {
        align: center middle;
        & > Vertical {
            width: 60;
            max-width: 100%;
            height: auto;
            border: round $accent;
            padding: 0 1;
            background: $surface;
        }
        & Label { color: $text-muted; }
        & #form-error { color: $text-error; height: auto; }
        & Input, & Select { width: 100%; }
    }
    """

    def __init__(
        self,
        title: str,
        fields: Sequence[Field],
        make: Make,
        shown: Callable[[Values], Collection[str]] | None = None,
    ) -> None:
        super().__init__()
        self.title_text = title
        self.fields = list(fields)
        self._make = make
        self._shown = shown

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.title_text, markup=False)
            for field in self.fields:
                yield Label(field.label, id=f"label-{field.name}", markup=False)
                if field.choices:
                    yield Select(
                        field.choices,
                        value=field.value or field.choices[0][1],
                        allow_blank=False,
                        compact=True,
                        id=f"field-{field.name}",
                    )
                else:
                    yield Input(
                        field.value,
                        placeholder=field.placeholder,
                        compact=True,
                        id=f"field-{field.name}",
                    )
            yield Static("", id="form-error", markup=False)
            yield Static("Enter on the last field adds it, Esc cancels", markup=False)

    def on_mount(self) -> None:
        self._show_fields()
        first = self._visible()
        if first:
            self.query_one(f"#field-{first[0]}").focus()

    @property
    def values(self) -> Values:
        """The values of the fields shown now, by name."""
        found: Values = {}
        for name in self._visible():
            widget = self.query_one(f"#field-{name}")
            value = widget.value if isinstance(widget, Input | Select) else ""
            found[name] = "" if value is Select.BLANK else str(value).strip()
        return found

    @property
    def error_text(self) -> str:
        return str(self.query_one("#form-error", Static).content)

    def _visible(self) -> list[str]:
        names = [f.name for f in self.fields]
        if self._shown is None:
            return names
        everything = {f.name: self._raw(f.name) for f in self.fields}
        wanted = set(self._shown(everything))
        return [n for n in names if n in wanted]

    def _raw(self, name: str) -> str:
        widget = self.query_one(f"#field-{name}")
        value = widget.value if isinstance(widget, Input | Select) else ""
        return "" if value is Select.BLANK else str(value)

    def _show_fields(self) -> None:
        visible = set(self._visible())
        for field in self.fields:
            for prefix in ("label", "field"):
                self.query_one(f"#{prefix}-{field.name}").display = field.name in visible

    @on(Select.Changed)
    def _choice_changed(self) -> None:
        self._show_fields()

    @on(Input.Submitted)
    def _field_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        visible = self._visible()
        if event.input.id == f"field-{visible[-1]}":
            self.action_submit()
        else:
            self.focus_next()

    def action_submit(self) -> None:
        result = self._make(self.values)
        if isinstance(result, str):
            self.query_one("#form-error", Static).update(result)
        else:
            self.dismiss(result)

    def action_cancel(self) -> None:
        self.dismiss(None)


def missing(values: Values, *names: str) -> str:
    """What a form says for blank required fields ("" when none is blank)."""
    blank = [name for name in names if not values.get(name)]
    return f"fill in: {', '.join(blank)}" if blank else ""


# --- build ----------------------------------------------------------------------------------


def build_form(choices: Sequence[tuple[str, str, str, str]], hex_text: str) -> OrderForm:
    """A ``build`` at ``hex_text``: the class from ``choices`` (class, instead_of, empire,
    label: `tui.screens.order_data.BuildChoice`), typed in when the schedule offers none."""
    if choices:
        options = tuple((label, "|".join((cls, sub, emp))) for cls, sub, emp, label in choices)
        what = Field("what", "class (this turn's schedule)", choices=options)
    else:
        what = Field("what", "class (nothing scheduled this turn)", placeholder="D7")

    def make(values: Values) -> dict[str, Any] | str:
        if problem := missing(values, "what", "hex"):
            return problem
        cls, _, rest = values["what"].partition("|")
        instead_of, _, empire = rest.partition("|")
        order: dict[str, Any] = {"type": "build", "cls": cls, "hex": values["hex"]}
        if instead_of:
            order["instead_of"] = instead_of
        if empire:
            order["empire"] = empire
        return order

    hex_field = Field("hex", "at hex (capital or shipyard)", hex_text, placeholder="1411")
    return OrderForm("Build from the schedule", [what, hex_field], make)


def convert_form(choices: Sequence[tuple[str, str, str]], unit: str) -> OrderForm:
    """A ``convert`` (2B3): one of ``choices`` (unit, to, label:
    `tui.screens.order_data.ConvertChoice`), or the unit and class typed in without any."""
    if choices:
        options = tuple((label, f"{unit_id}|{to}") for unit_id, to, label in choices)
        fields = [Field("what", "conversion (from the unit tables)", choices=options)]
    else:
        fields = [
            Field("unit", "unit to convert", unit, placeholder="KZI-0006"),
            Field("to", "into class", placeholder="CC"),
        ]

    def make(values: Values) -> dict[str, Any] | str:
        if "what" in values:
            unit_id, _, to = values["what"].partition("|")
            values = {"unit": unit_id, "to": to}
        return missing(values, "unit", "to") or {"type": "convert", **values}

    return OrderForm("Convert where it stands (starbase or capital)", fields, make)


def repair_form(unit: str) -> OrderForm:
    """A ``repair`` (2A2) of a crippled unit at a base or FRD in its hex."""

    def make(values: Values) -> dict[str, Any] | str:
        return missing(values, "unit") or {"type": "repair", "unit": values["unit"]}

    field = Field("unit", "crippled unit to repair", unit, placeholder="KZI-0006")
    return OrderForm("Repair at a base or FRD", [field], make)


def replace_form(unit: str) -> OrderForm:
    """A ``replace`` (2B4): fighter factors (halves allowed) or PFs of one unit."""

    def make(values: Values) -> dict[str, Any] | str:
        if problem := missing(values, "unit", "amount"):
            return problem
        order: dict[str, Any] = {"type": "replace", "unit": values["unit"]}
        if values["what"] == "pfs":
            if not values["amount"].isdigit():
                return "PFs come whole: a number such as 6"
            order["pfs"] = int(values["amount"])
        else:
            order["fighters"] = values["amount"]
        return order

    fields = [
        Field("unit", "unit", unit, placeholder="KZI-B004"),
        Field("what", "replace", "fighters", (("fighter factors", "fighters"), ("PFs", "pfs"))),
        Field("amount", "how many (fighters in halves: 4, 2.5)", placeholder="4"),
    ]
    return OrderForm("Replace fighters or PFs", fields, make)


# --- adjust ---------------------------------------------------------------------------------


def adjust_form(unit: str, hex_text: str) -> OrderForm:
    """A typed ``adjust``: the change first, then only the fields it needs and the reason."""
    fields = [
        Field("change", "change", "treasury", tuple((c, c) for c in ADJUST_FIELDS)),
        Field("unit", "unit id", unit, placeholder="KLI-0003"),
        Field("hex", "hex", hex_text, placeholder="1411"),
        Field("cls", "class", placeholder="D7"),
        Field("ep", "EP (halves allowed, minus to pay)", placeholder="-3.5"),
        Field("reason", "reason (goes into the log)", placeholder="combat at 1305"),
    ]

    def shown(values: Values) -> list[str]:
        return ["change", *ADJUST_FIELDS.get(values.get("change", ""), ()), "reason"]

    def make(values: Values) -> dict[str, Any] | str:
        change = values["change"]
        if problem := missing(values, *ADJUST_FIELDS[change], "reason"):
            return problem
        return {"type": "adjust", **values}

    return OrderForm("Typed adjustment", fields, make, shown)


# --- roll and secret ------------------------------------------------------------------------


def roll_form() -> OrderForm:
    """A ``roll``: the dice and what they are for."""

    def make(values: Values) -> dict[str, Any] | str:
        return missing(values, "dice", "purpose") or {"type": "roll", **values}

    fields = [
        Field("dice", "dice (NdS)", "2d6"),
        Field("purpose", "what for (shown with the result)", placeholder="capture 305.1"),
    ]
    return OrderForm("Ask for dice", fields, make)


def secret_form() -> OrderForm:
    """A ``secret`` choice, in plain words; only its commitment travels until both chose."""

    def make(values: Values) -> dict[str, Any] | str:
        return missing(values, "choice") or {"type": "secret", "choice": values["choice"]}

    field = Field("choice", "your hidden choice", placeholder="Flagship D7C; battle force ...")
    return OrderForm("Secret choice (revealed when both have chosen)", [field], make)
