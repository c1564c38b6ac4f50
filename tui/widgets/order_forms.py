"""Order forms built from a ruleset's choices: one form per order the seat may give now.

The ruleset's face says what may be done now as data (`engine.core.face.Choice`: the order's
``type``, a title, its parameters with their kind, whether each is required, the values a
menu allows, and ready-made fillings called presets). `choice_form` turns one choice into a
modal form: a text field per parameter, a menu where the parameter lists its options, a menu
of the presets first when there are some, one field per entry of a ``record`` parameter (a
JSON object such as F&E's EW choices, ``{"UNIT-ID": EW}``: each key a menu of its own, left
blank to leave it out). A ``picks`` parameter is built in the allocation editor instead
(`tui.widgets.allocation_editor`); typed here it is a ``;``-separated line. Nothing here
knows any ruleset's orders, so a new ruleset's orders get their forms without a line of
client code. What the widgets receive is described by the protocols below (`ChoiceData`),
which the face's records satisfy as they are: the widgets never import the engine.

The form asks, pre-filled from what the player already pointed at on the map (a hex parameter
gets the chosen hex, a piece the first unit of the chosen stack). It checks only that nothing
required is blank and that numbers are numbers: the rules are the engine's, and the orders
panel shows its verdict, with the rule number, as soon as the draft is added. Which
parameters a form shows for the values chosen so far may be narrowed by the ruleset's client
code (``shown``: F&E's adjustments ask only for the fields their ``change`` needs); the
screen hands that over as a plain function.

Keys: Tab / shift+Tab (or Enter on a text field) go from field to field, Enter on the last
field adds the order, ctrl+s adds it from anywhere, Escape gives up.

`OrderForm` holds the fields and turns their values into an order with the ``make`` function
it is given; the builders and `order_values` are plain functions, so the tests can check the
order a form makes without a terminal.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, NamedTuple, Protocol

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Input, Label, OptionList, Select, Static
from textual.widgets.option_list import Option

from tui.widgets.dialog import Dialog

Values = dict[str, str]
Make = Callable[[Values], "dict[str, Any] | str"]
"""The values of the shown fields to an order, or the text saying what is wrong."""
Shown = Callable[[Values], Sequence[str]]
"""The values of every field to the names of the fields to show, in the order to show them."""
FieldsFor = Callable[[str, Mapping[str, str]], "Sequence[str] | None"]
"""A ruleset client's choice of fields: (order type, values so far) to the parameters to ask
for, or None for all of them (`tui.rulesets.RulesetClient.form_fields`)."""

PRESET_FIELD = "_preset"
"""The name of a form's preset menu (a leading underscore: no order parameter is named so)."""
TYPE_IT = "-"
"""The preset menu's value for "no preset: type the values"."""


class ParamData(Protocol):
    """One parameter of an order as the face describes it (`engine.core.face.Param`)."""

    @property
    def name(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def required(self) -> bool: ...
    @property
    def options(self) -> Sequence[str]: ...
    @property
    def help(self) -> str: ...
    @property
    def entries(self) -> Sequence[ParamData]: ...
    @property
    def value(self) -> str: ...
    @property
    def suggested(self) -> str: ...


class PresetData(Protocol):
    """A ready filling of some parameters, one line of a menu (`engine.core.face.Preset`)."""

    @property
    def label(self) -> str: ...
    @property
    def values(self) -> Sequence[tuple[str, str]]: ...


class ChoiceData(Protocol):
    """An order the seat may give now (`engine.core.face.Choice`)."""

    @property
    def order(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def params(self) -> Sequence[ParamData]: ...
    @property
    def rule(self) -> str: ...
    @property
    def presets(self) -> Sequence[PresetData]: ...
    @property
    def note(self) -> str: ...


LIST_KINDS = frozenset({"hexes", "pieces", "steps"})
"""Kinds whose value is a list of ids, typed with spaces or commas between them."""

PLACEHOLDERS: Mapping[str, str] = {
    "integer": "a whole number",
    "flag": "yes or no",
    "hex": "a hex",
    "hexes": "hexes, a space between",
    "piece": "a unit or piece id",
    "pieces": "ids, a space between",
    "step": "a step id",
    "steps": "step ids, a space between",
    "texts": "texts, ; between",
    "picks": "texts, ; between",
    "record": 'a JSON object, {"KEY": value}',
    "side": "a side (an empire) you play",
    "group": "a fleet or group, by name",
}


class Field(NamedTuple):
    """One line of a form: a text field, or a choice when ``choices`` (label, value) are given."""

    name: str
    label: str
    value: str = ""
    choices: tuple[tuple[str, str], ...] = ()
    placeholder: str = ""
    blank: bool = False
    """A choice that may be left blank (an optional parameter with a menu)."""


ENTER_ADDS = "Enter on the last field (or ctrl+s) adds it, Esc cancels"
CTRL_S_ADDS = "ctrl+s adds it (Enter opens the menu), Esc cancels"


class OrderForm(Dialog["dict[str, Any] | None"]):
    """A titled column of fields; dismisses with the order `make` builds from them."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", tooltip="Close the form, no order"),
        Binding("ctrl+s", "submit", "Add", tooltip="Add the order to the drafts"),
    ]

    DEFAULT_CSS = """
    OrderForm {
        & > Vertical { width: 60; }
        /* A long label (what the value is for) wraps in the column rather than run out. */
        & Label { color: $text-muted; width: 100%; }
        & #form-error { color: $text-error; height: auto; }
        & #form-about { color: $text-muted; height: auto; }
        & Input, & Select { width: 100%; }
    }
    """

    def __init__(
        self,
        title: str,
        fields: Sequence[Field],
        make: Make,
        shown: Shown | None = None,
        *,
        order: str = "",
        about: str = "",
    ) -> None:
        super().__init__()
        self.title_text = title
        self.about = about
        """What holds for the order now, shown under the title ("" shows nothing)."""
        self.order = order
        """The order type this form writes ("" for one that is not a face's choice)."""
        self.fields = list(fields)
        self._make = make
        self._shown = shown

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.title_text, id="form-title", markup=False)
            if self.about:
                yield Static(self.about, id="form-about", markup=False)
            for field in self.fields:
                yield Label(field.label, id=f"label-{field.name}", markup=False)
                if field.choices:
                    yield Select(
                        field.choices,
                        value=field.value or (Select.NULL if field.blank else field.choices[0][1]),
                        allow_blank=field.blank,
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
            yield Static(ENTER_ADDS, id="form-hint", markup=False)

    def on_mount(self) -> None:
        self._show_fields()
        first = self._visible()
        if first:
            self.query_one(f"#field-{first[0]}").focus()

    @property
    def values(self) -> Values:
        """The values of the fields shown now, by name, in the order shown."""
        return {name: self._raw(name).strip() for name in self._visible()}

    @property
    def error_text(self) -> str:
        return str(self.query_one("#form-error", Static).content)

    def _visible(self) -> list[str]:
        names = [f.name for f in self.fields]
        if self._shown is None:
            return names
        wanted = self._shown({name: self._raw(name) for name in names})
        return [n for n in dict.fromkeys(wanted) if n in names]

    def _raw(self, name: str) -> str:
        widget = self.query_one(f"#field-{name}")
        value = widget.value if isinstance(widget, Input | Select) else ""
        return "" if value is Select.NULL or value is None else str(value)

    def _show_fields(self) -> None:
        """Show the wanted fields in the wanted order (Tab follows it), hide the others."""
        visible = self._visible()
        box = self.query_one(Vertical)
        anchor = self.query_one("#form-about" if self.about else "#form-title")
        for name in visible:
            label, widget = self.query_one(f"#label-{name}"), self.query_one(f"#field-{name}")
            box.move_child(label, after=anchor)
            box.move_child(widget, after=label)
            anchor = widget
        for field in self.fields:
            for prefix in ("label", "field"):
                self.query_one(f"#{prefix}-{field.name}").display = field.name in visible
        # Enter on a menu opens it: a form that ends with one is added with ctrl+s.
        last = self.query_one(f"#field-{visible[-1]}") if visible else None
        hint = CTRL_S_ADDS if isinstance(last, Select) else ENTER_ADDS
        self.query_one("#form-hint", Static).update(hint)

    @property
    def hint_text(self) -> str:
        """The line under the fields: how to add the order."""
        return str(self.query_one("#form-hint", Static).content)

    @on(Select.Changed)
    def _choice_changed(self) -> None:
        if self.is_mounted:
            self._show_fields()

    @on(Input.Submitted)
    def _field_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        visible = self._visible()
        if visible and event.input.id == f"field-{visible[-1]}":
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


def missing(values: Mapping[str, str], *names: str) -> str:
    """What a form says for blank required fields ("" when none is blank)."""
    blank = [name for name in names if not values.get(name)]
    return f"fill in: {', '.join(blank)}" if blank else ""


# --- a face's choice as a form --------------------------------------------------------------


def param_field(param: ParamData, value: str = "") -> Field:
    """The field asking for ``param``: a menu of its options, or a line to type in."""
    # "name (optional): help": a help that ends with its rule in brackets read as brackets
    # within brackets after the name.
    label = param.name + ("" if param.required else " (optional)")
    label += f": {param.help}" if param.help else ""
    if param.options:
        # An empty option (a policy's "keep asking") gets a label a player can see.
        choices = tuple((option or "(none)", option) for option in param.options)
        chosen = value if value in param.options else ""
        return Field(param.name, label, chosen, choices, blank=not param.required)
    if param.kind == "flag":
        choices = (("no", "no"), ("yes", "yes"))
        chosen = value if value in ("yes", "no") else ""
        return Field(param.name, label, chosen, choices, blank=True)
    return Field(param.name, label, value, placeholder=PLACEHOLDERS.get(param.kind, ""))


def entry_field(param: ParamData, index: int) -> str:
    """The form field of entry ``index`` of a ``record`` parameter (a leading underscore:
    no order parameter is named so, and entry names need not suit a widget id)."""
    return f"_{param.name}_{index}"


def field_names(param: ParamData) -> list[str]:
    """The form fields asking for ``param``: one per entry of a ``record`` that lists its
    entries, else the one field named as the parameter."""
    if param.kind == "record" and param.entries:
        return [entry_field(param, index) for index in range(len(param.entries))]
    return [param.name]


def param_fields(param: ParamData, value: str = "") -> list[Field]:
    """The fields asking for ``param``: its entries' for a ``record`` that lists them (each
    labelled with its key and help), else `param_field`'s one; each starts from ``value``,
    else what is in force, else the engine's pick (`ParamData.suggested`)."""
    if param.kind == "record" and param.entries:
        return [
            param_field(entry, entry.value or entry.suggested)._replace(
                name=entry_field(param, index)
            )
            for index, entry in enumerate(param.entries)
        ]
    return [param_field(param, value or param.suggested)]


def record_value(param: ParamData, values: Mapping[str, str]) -> dict[str, Any]:
    """A ``record`` parameter's object from its entries' fields: the filled ones, each as
    its kind wants (`ValueError` says what is wrong)."""
    out: dict[str, Any] = {}
    for index, entry in enumerate(param.entries):
        text = values.get(entry_field(param, index), "").strip()
        if text:
            out[entry.name] = typed_value(entry, text)
    return out


def typed_value(param: ParamData, text: str) -> Any:
    """A field's text as the order's JSON wants it (`ValueError` says what is wrong)."""
    if param.kind == "integer":
        if not re.fullmatch(r"-?[0-9]{1,18}", text):
            raise ValueError(f"{param.name}: a whole number, not {text!r}")
        return int(text)
    if param.kind == "flag":
        return text in ("yes", "true", "1")
    if param.kind in LIST_KINDS:
        return [part for part in re.split(r"[\s,>]+", text) if part]
    if param.kind in ("texts", "picks"):
        return [part.strip() for part in text.split(";") if part.strip()]
    if param.kind == "record" and text.startswith("{"):
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{param.name}: not a JSON object ({exc.msg})") from None
        except RecursionError:  # (the parser recurses per level: pasted nonsense)
            raise ValueError(f"{param.name}: not a JSON object: nested too deeply") from None
        if not isinstance(value, dict):
            raise ValueError(f"{param.name}: not a JSON object")
        return value
    return text


def order_values(
    choice: ChoiceData, values: Mapping[str, str], preset: PresetData | None = None
) -> dict[str, Any] | str:
    """The order a filled form of ``choice`` makes: its ``type``, the preset's values, then
    every non-blank field, each as its kind wants; or what is wrong (a blank required field
    among those shown, a number that is not one)."""
    given = dict(preset.values) if preset is not None else {}
    params = {param.name: param for param in choice.params}
    shown = [name for name in values if name in params]
    required = [name for name in shown if params[name].required and name not in given]
    if problem := missing(values, *required):
        return problem
    order: dict[str, Any] = {"type": choice.order}
    try:
        for name, text in [*given.items(), *((n, values[n]) for n in shown)]:
            if name in params and text:
                order[name] = typed_value(params[name], text)
            elif text:
                order[name] = text
        for param in choice.params:
            asked = [f for f in field_names(param) if f != param.name and f in values]
            if asked and param.name not in order:
                order[param.name] = record_value(param, values)
    except ValueError as problem:
        return str(problem)
    return order


def choice_form(
    choice: ChoiceData,
    prefill: Mapping[str, str] | None = None,
    fields_for: FieldsFor | None = None,
    presets: Sequence[PresetData] | None = None,
) -> OrderForm:
    """The form of ``choice``: its presets (``presets`` when given: those that fit what the
    player chose) as a menu first, then its parameters. With a preset chosen the form asks
    only for the required parameters the preset leaves open; with none (the menu's last
    line), for every parameter. ``fields_for`` may narrow the parameters shown (the ruleset
    client's `FieldsFor`); ``prefill`` gives starting values by parameter name."""
    offered = tuple(choice.presets if presets is None else presets)
    prefill = prefill or {}
    fields: list[Field] = []
    if offered:
        menu = tuple((p.label, str(n)) for n, p in enumerate(offered))
        menu += (("other: type the values in", TYPE_IT),)
        fields.append(Field(PRESET_FIELD, "choose", "0", menu))
    fields += [f for p in choice.params for f in param_fields(p, prefill.get(p.name, ""))]
    params = [p.name for p in choice.params]
    names_of = {p.name: field_names(p) for p in choice.params}
    every = {name for p in choice.params for name in names_of[p.name]}
    required = {p.name for p in choice.params if p.required}

    def preset_of(values: Mapping[str, str]) -> PresetData | None:
        index = values.get(PRESET_FIELD, TYPE_IT)
        return offered[int(index)] if index.isdigit() and int(index) < len(offered) else None

    def shown(values: Values) -> list[str]:
        preset = preset_of(values)
        plain = {k: v for k, v in values.items() if k != PRESET_FIELD}
        if preset is not None:
            plain.update(preset.values)
        wanted = fields_for(choice.order, plain) if fields_for is not None else None
        names = list(params if wanted is None else wanted)
        if preset is not None:
            given = dict(preset.values)
            names = [n for n in names if n in required and n not in given]
        fields = [f for n in names for f in names_of.get(n, [n])]
        return ([PRESET_FIELD] if offered else []) + fields

    def make(values: Values) -> dict[str, Any] | str:
        preset = preset_of(values)
        return order_values(choice, {k: v for k, v in values.items() if k in every}, preset)

    title = f"{choice.title} ({choice.rule})" if choice.rule else choice.title
    return OrderForm(title, fields, make, shown, order=choice.order, about=choice.note)


class ChoiceMenu(Dialog["str | None"]):
    """Every order the seat may give now, one line each; Enter opens the chosen one's form
    (dismisses with its ``type``), Escape gives up."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", tooltip="Close the list, no order"),
    ]

    DEFAULT_CSS = """
    ChoiceMenu {
        & > Vertical { width: 60; }
        & OptionList { height: auto; max-height: 16; }
    }
    """

    def __init__(self, choices: Sequence[ChoiceData], step: str = "") -> None:
        super().__init__()
        self.choices = tuple(choices)
        self.step = step

    def compose(self) -> ComposeResult:
        with Vertical():
            heading = f"Orders {self.step} takes" if self.step else "Orders"
            yield Static(f"{heading} (Enter opens its form, Esc closes)", markup=False)
            yield OptionList(
                *(Option(f"{c.order}: {c.title}", id=c.order) for c in self.choices),
                id="choice-menu",
                compact=True,
            )

    @property
    def orders(self) -> list[str]:
        """The order types listed, in the order shown."""
        menu = self.query_one(OptionList)
        return [str(menu.get_option_at_index(i).id) for i in range(menu.option_count)]

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)


# --- the secret step --------------------------------------------------------------------------


def secret_form() -> OrderForm:
    """A ``secret`` choice, in plain words; only its commitment travels until both chose."""

    def make(values: Values) -> dict[str, Any] | str:
        return missing(values, "choice") or {"type": "secret", "choice": values["choice"]}

    field = Field("choice", "your hidden choice", placeholder="what you choose, in words")
    return OrderForm("Secret choice (revealed when both have chosen)", [field], make)
