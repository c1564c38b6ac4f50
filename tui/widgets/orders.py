"""The orders panel: the player's draft orders for the step they owe, and the engine's verdict.

Keyboard first, and small on purpose: a player writes one order at a time. What may be
written comes from the ruleset's face as data: the screen hands over the choices of the
pending step (`set_step`: each order type with its parameters and presets, see
`tui.widgets.order_forms.ChoiceData`), and every choice gets a form built from its parameters
(`choice_form`). ``f`` lists them all and opens the one picked. Quick keys reach the usual
ones, each only when the step offers it:

- ``d`` a ``done`` at once, ``n`` a ``note`` (asks for its text on the panel's own line),
  ``x`` a ``roll``, ``j`` an ``adjust``: the names the sequence-of-play machinery and most
  rulesets share;
- ``b`` and ``k`` the step's own orders (those not offered at every step), first and second:
  a build and a conversion at F&E's 2B3, a repair at 2A2;
- ``m`` the step's stack order, the first choice naming several pieces: first which units of
  the stack chosen on the map (`UnitPick`, all ticked: Enter takes the whole stack), then its
  hexes on the map;
- ``p`` the hidden choice of a secret step, ``a`` any order typed as JSON (`docs/orders.md`).

``u`` takes back the last draft, ``S`` (or ctrl+s) asks to send them all.

Data down, intent up, as for the map: the panel never calls the engine, the store or a
ruleset's client code. Every change of the drafts posts `OrdersPanel.DraftChanged` (the
screen checks them in a dry run and hands the verdict back with `show_check`), and sending
posts `OrdersPanel.SendRequested` (the screen confirms, signs and queues). The screen also
tells it the hex chosen on the map with the player's units there (`choose_hex`).

A stack order's hexes need the map's keys, which the panel does not have: the panel posts
`OrdersPanel.MoveStarted` so the screen gives the map the focus; each hex chosen there is
passed back with `add_path_hex`. When the order takes a path (a parameter of kind
``hexes``), it ends when the last hex is chosen again (or on `end_move`, which the screen
calls on Escape); when it takes one hex, that hex is its destination; when it takes none, the
units are all it needs. Other hex parameters the order requires take the path's last hex
(F&E's reaction: its trigger, where the enemy it reacts to came in); the JSON key writes any
other. Whatever is still required and blank then is asked in the order's form.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, Static

from tui.safe_text import safe_text
from tui.widgets.allocation_editor import AllocationEditor
from tui.widgets.order_forms import (
    ChoiceData,
    ChoiceMenu,
    FieldsFor,
    PresetData,
    choice_form,
    order_values,
    secret_form,
)
from tui.widgets.unitpick import UnitPick

NAMED_KEYS: Mapping[str, str] = {"d": "done", "n": "note", "x": "roll", "j": "adjust"}
"""Quick keys for orders known by a shared name; each acts only when the step offers it."""

OWN_KEYS = ("b", "k")
"""Quick keys for the step's own orders (not offered at every step), in the order offered."""


def path_text(hexes: Iterable[object]) -> str:
    """A path as ``1607> 1608> 1609``: the space after each step lets the narrow side column
    wrap a long path between two hexes, never inside a hex id (``161`` / ``2``)."""
    return "> ".join(map(str, hexes))


def describe(item: Mapping[str, Any]) -> str:
    """One draft order in plain words, short enough for the side column: ``done`` and
    ``note`` in words, an order naming ``units`` by them (and its ``path`` or ``to``),
    anything else as its type and JSON."""
    kind = str(item.get("type", "?"))
    if kind == "done":
        through = f" through {item['through']}" if item.get("through") else ""
        note = f": {item['note']}" if item.get("note") else ""
        return f"done{through}{note}"
    if kind == "note":
        return f"note: {item.get('text', '')}"
    units = item.get("units")
    if isinstance(units, list) and units:
        who = units[0] if len(units) == 1 else f"{len(units)} units"
        if isinstance(item.get("path"), list):
            return f"{kind} {who} {path_text(item['path'])}"
        if "to" in item:
            return f"{kind} {who} to {item['to']}"
        return f"{kind} {who}"
    rest = {key: value for key, value in item.items() if key != "type"}
    return f"{kind} {json.dumps(rest, separators=(',', ':'))}" if rest else kind


def parse_items(text: str) -> list[dict[str, Any]]:
    """Orders typed as JSON: one object, or a list of them. `ValueError` says what is wrong."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON: {exc.msg} at column {exc.colno}") from None
    items = value if isinstance(value, list) else [value]
    if not items or not all(isinstance(i, dict) and "type" in i for i in items):
        raise ValueError('an order is a JSON object with a "type", e.g. {"type": "done"}')
    return items


def param_named(choice: ChoiceData, kind: str, *, required: bool = False) -> str | None:
    """The name of ``choice``'s first parameter of ``kind`` (required ones only if asked)."""
    return next(
        (p.name for p in choice.params if p.kind == kind and (p.required or not required)),
        None,
    )


class OrdersPanel(Vertical, can_focus=True):
    """Draft orders, one line each, with the check result under them and a one-line input.

    ``items`` is the list of drafts (plain dicts, as `docs/orders.md` writes them).
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("d", "done", "Done", tooltip="Draft a done order (ends the step)"),
        Binding("n", "note", "Note", show=False, tooltip="Draft a note (asks for its text)"),
        Binding("m", "move", "Move", tooltip="The step's stack order for the chosen hex"),
        # Not in the footer, which 80 columns already fill: the hint line names them at the
        # steps that take them, and ? lists them all.
        Binding("f", "forms", "Forms", show=False, tooltip="Any order of the step, by its form"),
        Binding("b", "own(0)", "Own order", show=False, tooltip="The step's first own order"),
        Binding("k", "own(1)", "2nd order", show=False, tooltip="The step's second own order"),
        Binding("j", "named('adjust')", "Adjust", show=False, tooltip="A typed adjustment"),
        Binding("x", "named('roll')", "Roll", show=False, tooltip="Ask for dice"),
        Binding("p", "secret", "Secret", tooltip="Write the hidden choice of a secret step"),
        Binding("a", "type_json", "JSON", show=False, tooltip="Type one order as JSON"),
        Binding("u", "undo", "Undo", tooltip="Take back the last draft"),
        Binding("S,ctrl+s", "send", "Send", key_display="S", tooltip="Sign and queue the drafts"),
        Binding("escape", "cancel", "Cancel", show=False),
    ]

    DEFAULT_CSS = """
    OrdersPanel {
        height: 1fr;
        & #orders-hint { height: auto; color: $text-muted; }
        & #orders-drafts { height: auto; }
        & #orders-check { height: auto; }
        & #orders-check.-refused { color: $text-error; }
        & Input { width: 100%; }
        &:focus-within { background: $boost; }
    }
    """

    class DraftChanged(Message):
        """The drafts changed (added, undone, cleared); ``items`` is the whole new list."""

        def __init__(self, items: list[dict[str, Any]]) -> None:
            super().__init__()
            self.items = items

    class SendRequested(Message):
        """The player asked to sign and queue ``items``."""

        def __init__(self, items: list[dict[str, Any]]) -> None:
            super().__init__()
            self.items = items

    class MoveStarted(Message):
        """A move is being built: the map should take the keys (cursor + Enter)."""

    class MoveEnded(Message):
        """The move's path is complete (or abandoned): the keys can come back here."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.items: list[dict[str, Any]] = []
        self.chosen: tuple[int, list[str]] | None = None
        """The hex chosen on the map and the player's units there."""
        self.path: list[int] | None = None
        """The stack order's hexes so far while they are chosen on the map, or None."""
        self._units: list[str] = []
        self._names: dict[str, str] = {}
        self._stack: ChoiceData | None = None
        """The stack order being written."""
        self._step = ""
        self._choices: tuple[ChoiceData, ...] = ()
        self._own: tuple[ChoiceData, ...] = ()
        self._fields: FieldsFor | None = None
        self._secret = False
        self._input_for = ""

    def compose(self) -> ComposeResult:
        yield Static("", id="orders-hint", markup=False)
        yield Static("no draft orders", id="orders-drafts", markup=False)
        yield Static("", id="orders-check", markup=False)
        yield UnitPick(id="orders-units", compact=True)
        yield Input(id="orders-input", compact=True)

    def on_mount(self) -> None:
        self.query_one(Input).display = False
        self.query_one(UnitPick).display = False
        self._show_hint()

    # --- what the screen tells the panel ---------------------------------------------------

    def set_step(
        self,
        step: str | None,
        choices: Sequence[ChoiceData] = (),
        *,
        own: Sequence[str] = (),
        secret: bool = False,
        fields: FieldsFor | None = None,
    ) -> None:
        """The step the player owes (None: nothing owed) and the orders they may give there
        (``choices``, the face's); ``own`` names those that are the step's own rather than
        offered at every step (``b`` and ``k`` reach them); ``secret`` when it is a secret
        step (``p`` writes its choice); ``fields`` narrows a form's fields (the ruleset
        client's choice, `FieldsFor`)."""
        self._step = step or ""
        self._choices = tuple(choices) if step else ()
        self._own = tuple(c for c in self._choices if c.order in own and c is not self.stack)
        self._fields = fields
        self._secret = secret and bool(step)
        self._show_hint()
        self.refresh_bindings()

    def choose_hex(
        self, h: int, units: Sequence[str], names: Mapping[str, str] | None = None
    ) -> None:
        """The hex chosen on the map and the player's units in it (the stack ``m`` orders);
        ``names`` gives their classes for the unit list."""
        self.chosen = (h, list(units))
        self._names = dict(names or {})
        self._show_hint()

    @property
    def orders(self) -> list[str]:
        """The order types offered now (their forms), in the face's order."""
        return [c.order for c in self._choices]

    @property
    def stack(self) -> ChoiceData | None:
        """The stack order ``m`` writes at this step: the first choice naming pieces."""
        return next((c for c in self._choices if param_named(c, "pieces", required=True)), None)

    @property
    def stack_kind(self) -> str:
        """The type of the stack order ``m`` writes at this step ("" when it has none)."""
        return self.stack.order if self.stack is not None else ""

    def choice(self, order: str) -> ChoiceData | None:
        """The offered choice of type ``order``, if the step offers it."""
        return next((c for c in self._choices if c.order == order), None)

    def add_path_hex(self, h: int) -> None:
        """The next hex of the stack order being built; the last hex again ends the path.
        For an order that takes one hex, that hex is its destination."""
        if self.path is None:
            return
        if h == self.path[-1]:
            self.end_move()
            return
        self.path.append(h)
        if not self._takes_path:
            self.end_move()
            return
        self._show_hint()

    @property
    def building(self) -> bool:
        """True while a stack order's hexes are being chosen on the map."""
        return self.path is not None

    @property
    def _takes_path(self) -> bool:
        return self._stack is not None and param_named(self._stack, "hexes") is not None

    def end_move(self) -> None:
        """End the stack order being built: with a path of two hexes or more, or a
        destination, it becomes a draft (or its form, if it still lacks something)."""
        path, self.path = self.path, None
        if path is not None and len(path) > 1 and self._stack is not None:
            hexes = [f"{h:04d}" for h in path]
            values = {param_named(self._stack, "pieces") or "units": " ".join(self._units)}
            route = param_named(self._stack, "hexes")
            if route is not None:
                values[route] = " ".join(hexes)
            for param in self._stack.params:
                if param.kind == "hex" and param.required:
                    values.setdefault(param.name, hexes[-1])
            self._stack_order(values)
        else:
            self._show_hint()
        self.post_message(self.MoveEnded())

    def show_check(self, ok: bool, text: str) -> None:
        """The engine's verdict on the drafts: legal, or the refusal with its rule."""
        check = self.query_one("#orders-check", Static)
        check.set_class(not ok, "-refused")
        text = safe_text(text, multiline=True)  # may quote event texts and refusals
        check.update(text if ok else f"REFUSED: {text}")

    @property
    def check_text(self) -> str:
        """The verdict as shown (for tests and the screen)."""
        return str(self.query_one("#orders-check", Static).content)

    @property
    def hint_text(self) -> str:
        """The hint line as shown: what the step takes, or the move being built."""
        return str(self.query_one("#orders-hint", Static).content)

    def clear(self) -> None:
        """Forget every draft (after they were sent); posts `DraftChanged` with none."""
        self.items = []
        self._changed()

    # --- keys --------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel":
            # Only when there is something to cancel; otherwise Escape goes on to the screen.
            return self.query_one(Input).display or self.building
        if action in ("undo", "send"):
            return bool(self.items)  # hidden, not greyed: the 80-column footer has no room
        if action == "secret":
            return self._secret
        if action == "done":
            return self.choice("done") is not None
        if action == "move":
            return self.stack is not None
        return True  # the others say why when the step does not take them

    def action_done(self) -> None:
        self.action_named("done")

    def action_note(self) -> None:
        self.action_named("note")

    def action_type_json(self) -> None:
        self._ask("json", '{"type": "batch"}')

    def action_named(self, order: str) -> None:
        """The form of the offered order ``order`` (a ``done`` is drafted at once, a
        ``note`` asks only its text, on the panel's own line)."""
        choice = self.choice(order)
        if choice is None:
            self._not_offered(order)
        elif order == "done" and not any(p.required for p in choice.params):
            self._add({"type": "done"})  # the usual done asks nothing; f opens its form
        elif order == "note" and [p.kind for p in choice.params] == ["text"]:
            self._ask("note", f"{choice.params[0].name}, Enter adds it")
        else:
            self._open(choice)

    def action_own(self, index: int) -> None:
        """The step's own order number ``index`` (``b`` the first, ``k`` the second)."""
        if index < len(self._own):
            self._open(self._own[index])
        elif not self._step:
            self.show_check(False, "nothing owed now")
        else:
            has = ", ".join(c.order for c in self._own) or "no order of its own"
            self.show_check(False, f"{self._step} has {has}: f lists every order it takes")

    def action_forms(self) -> None:
        """Every order of the step in a list; the one picked opens its form."""
        if not self._choices:
            self.show_check(False, "nothing owed now" if not self._step else "no orders here")
            return

        def picked(order: str | None) -> None:
            self.focus()
            choice = self.choice(order) if order else None
            if choice is not None:
                self._open(choice)

        self.app.push_screen(ChoiceMenu(self._choices, self._step), picked)

    def action_move(self) -> None:
        """Start the step's stack order: first the units (all ticked), then its hexes."""
        stack = self.stack
        if stack is None:
            self._not_offered("stack")
            return
        if self.chosen is None or not self.chosen[1]:
            self.show_check(False, "choose a hex with your ships first: Enter on the map")
            return
        self._stack = stack
        pick = self.query_one(UnitPick)
        pick.offer(self.chosen[1], self._names)
        pick.display = True
        pick.focus()
        self._show_hint()

    @on(UnitPick.Picked)
    def _units_picked(self, event: UnitPick.Picked) -> None:
        event.stop()
        if not event.units:
            self.show_check(False, "no unit ticked: space ticks one, Escape gives up")
            return
        self._close_pick()
        assert self.chosen is not None and self._stack is not None
        self._units = event.units
        stack = self._stack
        if param_named(stack, "hexes") is None and param_named(stack, "hex") is None:
            self._stack_order({param_named(stack, "pieces") or "units": " ".join(self._units)})
            return
        self.path = [self.chosen[0]]
        self._show_hint()
        self.post_message(self.MoveStarted())

    @on(UnitPick.Abandoned)
    def _pick_abandoned(self, event: UnitPick.Abandoned) -> None:
        event.stop()
        self._close_pick()
        self._show_hint()

    def _close_pick(self) -> None:
        pick = self.query_one(UnitPick)
        pick.display = False
        self.focus()

    def _stack_order(self, values: dict[str, str]) -> None:
        """The stack order from the units and hexes chosen: a draft when nothing required
        is missing, else its form, filled so far."""
        assert self._stack is not None
        stack = self._stack
        filled = {p.name: values.get(p.name, "") for p in stack.params}
        blank = [p.name for p in stack.params if p.required and not filled[p.name]]
        if blank:
            self._open(stack, filled)
            return
        order = order_values(stack, {k: v for k, v in filled.items() if v})
        if isinstance(order, str):
            self.show_check(False, order)
        else:
            self._add(order)

    def action_secret(self) -> None:
        """The hidden choice's form: as the face describes it (a number, a menu), else text."""
        choice = self.choice("secret")
        self._form(choice_form(choice) if choice is not None else secret_form())

    def _not_offered(self, what: str) -> None:
        if not self._step:
            self.show_check(False, "nothing owed now")
        else:
            self.show_check(False, f"{self._step} takes no {what} order: f lists what it takes")

    def _prefill(self) -> dict[str, str]:
        """Starting values from what the player pointed at: the chosen hex, its units."""
        if self.chosen is None:
            return {}
        units = self.chosen[1]
        return {
            "hex": f"{self.chosen[0]:04d}",
            "piece": units[0] if units else "",
            "pieces": " ".join(units),
        }

    def _open(self, choice: ChoiceData, values: Mapping[str, str] | None = None) -> None:
        """The form of ``choice``, or the order at once when it asks for nothing; a list
        picked step by step (``picks``) opens `AllocationEditor`, which asks via this panel."""
        if not choice.params and not choice.presets:
            self._add({"type": choice.order})
            return
        picks = param_named(choice, "picks")
        if picks is not None:
            self._form(AllocationEditor(choice, picks, self))
            return
        by_kind = self._prefill()
        filled = {p.name: by_kind.get(p.kind, "") for p in choice.params}
        filled.update(values or {})
        presets = self._fitting(choice.presets)
        self._form(choice_form(choice, filled, self._fields, presets))

    def _fitting(self, presets: Sequence[PresetData]) -> Sequence[PresetData]:
        """The presets about the chosen units, when some are (a conversion of the stack the
        player pointed at); all of them otherwise."""
        units = set(self.chosen[1]) if self.chosen is not None else set()
        fit = [p for p in presets if any(value in units for _, value in p.values)]
        return fit or presets

    def _form(self, form: Any) -> None:
        """Push an order form; the order it returns becomes a draft."""

        def answered(order: dict[str, Any] | None) -> None:
            self.focus()
            if order is not None:
                self._add(order)

        self.app.push_screen(form, answered)

    def action_undo(self) -> None:
        if self.items:
            self.items.pop()
            self._changed()

    def action_send(self) -> None:
        if self.items:
            self.post_message(self.SendRequested(list(self.items)))

    def action_cancel(self) -> None:
        if self.building:
            self.end_move()
        self._close_input()

    @on(Input.Submitted, "#orders-input")
    def submitted(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        if not text:
            self._close_input()
            return
        note = self.choice("note")
        if self._input_for == "note" and note is not None:
            items = [{"type": "note", note.params[0].name: text}]
        else:
            try:
                items = parse_items(text)
            except ValueError as problem:
                self.show_check(False, str(problem))
                return
        self._close_input()
        for item in items:
            self.items.append(item)
        self._changed()

    # --- inside ----------------------------------------------------------------------------

    def _add(self, item: dict[str, Any]) -> None:
        self.items.append(item)
        self._changed()

    def _changed(self) -> None:
        lines = [f"{n}. {describe(item)}" for n, item in enumerate(self.items, 1)]
        self.query_one("#orders-drafts", Static).update("\n".join(lines) or "no draft orders")
        if not self.items:
            self.show_check(True, "")
        self._show_hint()
        self.refresh_bindings()
        self.post_message(self.DraftChanged(list(self.items)))

    def _ask(self, purpose: str, placeholder: str) -> None:
        field = self.query_one(Input)
        self._input_for = purpose
        field.placeholder = placeholder
        field.value = ""
        field.display = True
        field.focus()

    def _close_input(self) -> None:
        field = self.query_one(Input)
        if field.display:
            field.display = False
            self.focus()

    def key_text(self) -> str:
        """The quick keys of this step's orders: ``b: build, k: convert, j: adjust...``."""
        keys = [f"{key}: {c.order}" for key, c in zip(OWN_KEYS, self._own, strict=False)]
        keys += [
            f"{key}: {order}"
            for key, order in NAMED_KEYS.items()
            if key in ("j", "x") and self.choice(order) is not None
        ]
        return ", ".join([*keys, "f: forms"])

    def _show_hint(self) -> None:
        kind = self._stack.order if self._stack is not None else ""
        if self.query_one(UnitPick).display:
            text = f"{kind}: which units? space ticks, a all/none, Enter takes, Esc"
        elif self.path is not None and not self._takes_path:
            text = (
                f"{kind} {len(self._units)} from {self.path[0]:04d}: "
                "cursor to the destination, Enter; Esc gives up"
            )
        elif self.path is not None:
            text = (
                f"{kind} {len(self._units)} from {self.path[0]:04d}: "
                f"{path_text(f'{h:04d}' for h in self.path)}\n"
                "cursor+Enter adds a hex; Enter on it again or Esc ends"
            )
        elif not self._step:
            text = "nothing owed now"
        elif self._secret:
            text = f"{self._step} is secret: p writes your hidden choice"
        else:
            takes = ", ".join(dict.fromkeys(self.orders)) or "nothing you can write here"
            text = f"{self._step} takes: {takes}\n{self.key_text()}"
            if self.chosen is not None and self.chosen[1] and self.stack is not None:
                text += f"\nm: {self.stack_kind} of {len(self.chosen[1])} in {self.chosen[0]:04d}"
        self.query_one("#orders-hint", Static).update(text)
