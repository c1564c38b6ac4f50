"""The orders panel: the player's draft orders for the step they owe, and the engine's verdict.

Keyboard first, and small on purpose: a player writes one order at a time, either as the JSON
of `docs/orders.md` (``a``, for any order the engine knows) or with a quick key for the common
ones: ``d`` done, ``n`` a note (asks for its text), ``m`` the stack order of the step (a move,
reaction, retrograde, strategic move or reserve fleet of units of the hex chosen on the map),
``b`` a build (a repair at 2A2, a replacement at 2B4), ``k`` a conversion, ``j`` a typed
adjustment, ``x`` a roll, ``p`` a secret choice (each in a small form,
`tui.widgets.order_forms`).
``u`` takes back the last draft, ``S`` (or ctrl+s) asks to send them all.

Data down, intent up, as for the map: the panel never calls the engine or the store. Every
change of the drafts posts `OrdersPanel.DraftChanged` (the screen checks them in a dry run
and hands the verdict back with `show_check`), and sending posts `OrdersPanel.SendRequested`
(the screen confirms, signs and queues). The screen also tells it the step's order types
(`set_step`) and the hex chosen on the map with the player's units there (`choose_hex`).

A stack order first asks which units go (`UnitPick`, all ticked: Enter takes the whole
stack). Its hexes need the map's keys, which the panel does not have: the panel posts
`OrdersPanel.MoveStarted` so the screen gives the map the focus; each hex chosen there is
passed back with `add_path_hex`. A move or reaction ends when the last hex is chosen again
(or on `end_move`, which the screen calls on Escape); a retrograde or strategic move needs
one hex, its destination; a reserve fleet needs none. Then the draft is added and
`OrdersPanel.MoveEnded` posted. A reaction's trigger is taken to be its last hex, where the
enemy it reacts to came in; the JSON key writes any other.

A build lists this turn's schedule, which only the engine knows: ``b`` posts
`OrdersPanel.BuildRequested`, and the screen answers with `open_build` and the choices; a
conversion (``k``, of the chosen stack's units) likewise with `open_convert`.
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
from tui.widgets.order_forms import (
    adjust_form,
    build_form,
    convert_form,
    repair_form,
    replace_form,
    roll_form,
    secret_form,
)
from tui.widgets.unitpick import UnitPick

ALWAYS = ("done", "note", "adjust")
"""Order types any owed step takes; the step's own ones come first in the hint."""

STACK_ORDERS = ("move", "react", "retrograde", "strategic", "reserve")
"""Orders naming units of one stack; ``m`` writes the first of them the step takes."""

TO_ONE_HEX = ("retrograde", "strategic")
"""Stack orders that name a destination (``to``) rather than a path."""


def path_text(hexes: Iterable[object]) -> str:
    """A path as ``1607> 1608> 1609``: the space after each step lets the narrow side column
    wrap a long path between two hexes, never inside a hex id (``161`` / ``2``)."""
    return "> ".join(map(str, hexes))


def describe(item: Mapping[str, Any]) -> str:
    """One draft order in plain words, short enough for the side column."""
    kind = str(item.get("type", "?"))
    if kind == "done":
        through = f" through {item['through']}" if item.get("through") else ""
        note = f": {item['note']}" if item.get("note") else ""
        return f"done{through}{note}"
    if kind == "note":
        return f"note: {item.get('text', '')}"
    units = item.get("units") or []
    who = units[0] if len(units) == 1 else f"{len(units)} units"
    if kind in ("move", "react") and isinstance(item.get("path"), list):
        return f"{kind} {who} {path_text(item['path'])}"
    if kind in TO_ONE_HEX and "to" in item and units:
        return f"{kind} {who} to {item['to']}"
    if kind == "reserve" and units:
        return f"reserve {who}"
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


class OrdersPanel(Vertical, can_focus=True):
    """Draft orders, one line each, with the check result under them and a one-line input.

    ``items`` is the list of drafts (plain dicts, as `docs/orders.md` writes them).
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("d", "done", "Done", tooltip="Draft a done order (ends the step)"),
        Binding("n", "note", "Note", show=False, tooltip="Draft a note (asks for its text)"),
        Binding("m", "move", "Move", tooltip="The step's stack order for the chosen hex"),
        # Not in the footer, which 80 columns already fill: the hint line names b at the
        # steps that take it, and ? lists them all.
        Binding("b", "build", "Build", show=False, tooltip="Build (repair 2A2, replace 2B4)"),
        Binding("k", "convert", "Convert", show=False, tooltip="Convert a unit (2B3)"),
        Binding("j", "adjust", "Adjust", show=False, tooltip="A typed adjustment (losses, EP...)"),
        Binding("x", "roll", "Roll", show=False, tooltip="Ask for dice"),
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

    class BuildRequested(Message):
        """``b``: the screen should read this turn's build choices and call `open_build`."""

    class ConvertRequested(Message):
        """``k``: the screen should read the conversions of ``units`` and call `open_convert`."""

        def __init__(self, units: list[str]) -> None:
            super().__init__()
            self.units = units

    class MoveEnded(Message):
        """The move's path is complete (or abandoned): the keys can come back here."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.items: list[dict[str, Any]] = []
        self.chosen: tuple[int, list[str]] | None = None
        """The hex chosen on the map and the player's units there."""
        self.path: list[int] | None = None
        """The move being built (its hexes so far), or None."""
        self._units: list[str] = []
        self._names: dict[str, str] = {}
        self._kind = "move"
        """The stack order being written (one of `STACK_ORDERS`)."""
        self._step = ""
        self._takes: tuple[str, ...] = ()
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

    def set_step(self, step: str | None, takes: Sequence[str], *, secret: bool = False) -> None:
        """The step the player owes (None: nothing owed), the order types it takes, and
        whether it is a secret step (``p`` writes its choice)."""
        self._step = step or ""
        self._takes = tuple(takes)
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
    def stack_kind(self) -> str:
        """The stack order ``m`` writes at this step: the first of `STACK_ORDERS` it takes."""
        return next((kind for kind in STACK_ORDERS if kind in self._takes), "move")

    def add_path_hex(self, h: int) -> None:
        """The next hex of the move being built; the last hex again ends the path. For a
        retrograde or strategic move the one hex is the destination."""
        if self.path is None:
            return
        if h == self.path[-1]:
            self.end_move()
            return
        self.path.append(h)
        if self._kind in TO_ONE_HEX:
            self.end_move()
            return
        self._show_hint()

    @property
    def building(self) -> bool:
        """True while a move's path is being chosen on the map."""
        return self.path is not None

    def end_move(self) -> None:
        """End the stack order being built: with a path of two hexes or more (a move or a
        reaction) or a destination (retrograde, strategic), it becomes a draft."""
        path, self.path = self.path, None
        if path is not None and len(path) > 1:
            hexes = [f"{h:04d}" for h in path]
            order: dict[str, Any] = {"type": self._kind, "units": self._units}
            if self._kind in TO_ONE_HEX:
                order["to"] = hexes[-1]
            else:
                order["path"] = hexes
            if self._kind == "react":
                order["trigger"] = hexes[-1]
            self._add(order)
        else:
            self._show_hint()
        self.post_message(self.MoveEnded())

    def open_build(self, choices: Sequence[tuple[str, str, str, str]]) -> None:
        """Show the build form with this turn's ``choices`` (class, instead_of, empire,
        label), at the chosen hex."""
        self._form(build_form(choices, self._chosen_hex()))

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
        return True  # the engine says, with its rule, when an order is out of its step

    def action_done(self) -> None:
        self._add({"type": "done"})

    def action_note(self) -> None:
        self._ask("note", "note text, Enter adds it")

    def action_type_json(self) -> None:
        self._ask("json", '{"type": "batch"}')

    def action_move(self) -> None:
        """Start the step's stack order: first the units (all ticked), then its hexes."""
        if self.chosen is None or not self.chosen[1]:
            self.show_check(False, "choose a hex with your ships first: Enter on the map")
            return
        self._kind = self.stack_kind
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
        assert self.chosen is not None
        self._units = event.units
        if self._kind == "reserve":
            self._add({"type": "reserve", "units": self._units})
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

    def action_build(self) -> None:
        """The production order of the step: a repair at 2A2, a replacement at 2B4, else a
        build (its menu comes from the screen)."""
        units = self.chosen[1] if self.chosen is not None else []
        if "repair" in self._takes:
            self._form(repair_form(units[0] if units else ""))
        elif "replace" in self._takes:
            self._form(replace_form(units[0] if units else ""))
        else:
            self.post_message(self.BuildRequested())

    def action_convert(self) -> None:
        units = self.chosen[1] if self.chosen is not None else []
        self.post_message(self.ConvertRequested(list(units)))

    def open_convert(self, choices: Sequence[tuple[str, str, str]]) -> None:
        """Show the conversion form with ``choices`` (unit, to, label) for the chosen units."""
        units = self.chosen[1] if self.chosen is not None else []
        self._form(convert_form(choices, units[0] if units else ""))

    def action_adjust(self) -> None:
        units = self.chosen[1] if self.chosen is not None else []
        self._form(adjust_form(units[0] if units else "", self._chosen_hex()))

    def action_roll(self) -> None:
        self._form(roll_form())

    def action_secret(self) -> None:
        self._form(secret_form())

    def _chosen_hex(self) -> str:
        return f"{self.chosen[0]:04d}" if self.chosen is not None else ""

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
        if self._input_for == "note":
            items = [{"type": "note", "text": text}]
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

    def _show_hint(self) -> None:
        if self.query_one(UnitPick).display:
            text = f"{self._kind}: which units? space ticks, a all/none, Enter takes, Esc"
        elif self.path is not None and self._kind in TO_ONE_HEX:
            text = (
                f"{self._kind} {len(self._units)} from {self.path[0]:04d}: "
                "cursor to the destination, Enter; Esc gives up"
            )
        elif self.path is not None:
            text = (
                f"{self._kind} {len(self._units)} from {self.path[0]:04d}: "
                f"{path_text(f'{h:04d}' for h in self.path)}\n"
                "cursor+Enter adds a hex; Enter on it again or Esc ends"
            )
        elif not self._step:
            text = "nothing owed now"
        elif self._secret:
            text = f"{self._step} is secret: p writes your hidden choice"
        else:
            takes = ", ".join(dict.fromkeys((*self._takes, *ALWAYS)))
            text = f"{self._step} takes: {takes}"
            production = [k for k in ("repair", "build", "replace") if k in self._takes]
            if production:
                convert = ", k: convert" if "convert" in self._takes else ""
                text += f"\nb: {production[0]}{convert}, j: adjust, x: roll"
            if self.chosen is not None and self.chosen[1]:
                text += f"\nm: {self.stack_kind} of {len(self.chosen[1])} in {self.chosen[0]:04d}"
        self.query_one("#orders-hint", Static).update(text)
