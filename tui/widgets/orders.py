"""The orders panel: the player's draft orders for the step they owe, and the engine's verdict.

Keyboard first, and small on purpose: a player writes one order at a time, either as the JSON
of `docs/orders.md` (``a``, for any order the engine knows) or with a quick key for the common
ones: ``d`` done, ``n`` a note (asks for its text), ``m`` a move of the stack at the hex chosen
on the map. ``u`` takes back the last draft, ``S`` (or ctrl+s) asks to send them all.

Data down, intent up, as for the map: the panel never calls the engine or the store. Every
change of the drafts posts `OrdersPanel.DraftChanged` (the screen checks them in a dry run
and hands the verdict back with `show_check`), and sending posts `OrdersPanel.SendRequested`
(the screen confirms, signs and queues). The screen also tells it the step's order types
(`set_step`) and the hex chosen on the map with the player's units there (`choose_hex`).

Building a move needs the map's keys, which the panel does not have: ``m`` posts
`OrdersPanel.MoveStarted` so the screen gives the map the focus; each hex chosen there is
passed back with `add_path_hex`; choosing the last hex again (or `end_move`, which the screen
calls on Escape) ends the path, adds the ``move`` draft and posts `OrdersPanel.MoveEnded`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, Static

ALWAYS = ("done", "note", "adjust")
"""Order types any owed step takes; the step's own ones come first in the hint."""


def describe(item: Mapping[str, Any]) -> str:
    """One draft order in plain words, short enough for the side column."""
    kind = str(item.get("type", "?"))
    if kind == "done":
        through = f" through {item['through']}" if item.get("through") else ""
        note = f": {item['note']}" if item.get("note") else ""
        return f"done{through}{note}"
    if kind == "note":
        return f"note: {item.get('text', '')}"
    if kind in ("move", "react") and isinstance(item.get("path"), list):
        units = item.get("units") or []
        who = units[0] if len(units) == 1 else f"{len(units)} units"
        return f"{kind} {who} {'>'.join(map(str, item['path']))}"
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
        Binding("n", "note", "Note", tooltip="Draft a note (asks for its text)"),
        Binding("m", "move", "Move", tooltip="Move the stack at the chosen hex"),
        Binding("a", "type_json", "JSON", tooltip="Type one order as JSON"),
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
        """The move being built (its hexes so far), or None."""
        self._units: list[str] = []
        self._step = ""
        self._takes: tuple[str, ...] = ()
        self._input_for = ""

    def compose(self) -> ComposeResult:
        yield Static("", id="orders-hint", markup=False)
        yield Static("no draft orders", id="orders-drafts", markup=False)
        yield Static("", id="orders-check", markup=False)
        yield Input(id="orders-input", compact=True)

    def on_mount(self) -> None:
        self.query_one(Input).display = False
        self._show_hint()

    # --- what the screen tells the panel ---------------------------------------------------

    def set_step(self, step: str | None, takes: Sequence[str]) -> None:
        """The step the player owes (None: nothing owed) and the order types it takes."""
        self._step = step or ""
        self._takes = tuple(takes)
        self._show_hint()

    def choose_hex(self, h: int, units: Sequence[str]) -> None:
        """The hex chosen on the map and the player's units in it (the stack ``m`` moves)."""
        self.chosen = (h, list(units))
        self._show_hint()

    def add_path_hex(self, h: int) -> None:
        """The next hex of the move being built; the last hex again ends the path."""
        if self.path is None:
            return
        if h == self.path[-1]:
            self.end_move()
            return
        self.path.append(h)
        self._show_hint()

    @property
    def building(self) -> bool:
        """True while a move's path is being chosen on the map."""
        return self.path is not None

    def end_move(self) -> None:
        """End the move being built: a path of two hexes or more becomes a ``move`` draft."""
        path, self.path = self.path, None
        if path is not None and len(path) > 1:
            self._add({"type": "move", "units": self._units, "path": [f"{h:04d}" for h in path]})
        else:
            self._show_hint()
        self.post_message(self.MoveEnded())

    def show_check(self, ok: bool, text: str) -> None:
        """The engine's verdict on the drafts: legal, or the refusal with its rule."""
        check = self.query_one("#orders-check", Static)
        check.set_class(not ok, "-refused")
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
            return bool(self.items) or None
        return True

    def action_done(self) -> None:
        self._add({"type": "done"})

    def action_note(self) -> None:
        self._ask("note", "note text, Enter adds it")

    def action_type_json(self) -> None:
        self._ask("json", '{"type": "batch"}')

    def action_move(self) -> None:
        if self.chosen is None or not self.chosen[1]:
            self.show_check(False, "choose a hex with your ships first: Enter on the map")
            return
        h, units = self.chosen
        self._units = list(units)
        self.path = [h]
        self._show_hint()
        self.post_message(self.MoveStarted())

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
        if self.path is not None:
            text = (
                f"moving {len(self._units)} from {self.path[0]:04d}: "
                f"{'>'.join(f'{h:04d}' for h in self.path)}\n"
                "cursor+Enter adds a hex; Enter on it again or Esc ends"
            )
        elif not self._step:
            text = "nothing owed now"
        else:
            takes = ", ".join(dict.fromkeys((*self._takes, *ALWAYS)))
            text = f"{self._step} takes: {takes}"
            if self.chosen is not None and self.chosen[1]:
                text += f"\nm: move {len(self.chosen[1])} from {self.chosen[0]:04d}"
        self.query_one("#orders-hint", Static).update(text)
