"""The orders panel: the player's draft orders for the step they owe, and the engine's verdict.

Keyboard first, and small on purpose: a player writes one order at a time. What may be
written comes from the ruleset's face as data: the screen hands over the choices of the
pending step (`set_step`: each order type with its parameters and presets, see
`tui.widgets.order_forms.ChoiceData`), the sequence of play's steps and the player's sides,
and every choice gets a form built from its parameters (`choice_form`). ``f`` lists them all
and opens the one picked. Quick keys reach the usual ones, each only when the step offers it:

- ``d`` a ``done`` at once, ``D`` a ``done`` that plays on to a step picked from the sequence,
  ``n`` a ``note`` (asks for its text on the panel's own line), ``x`` a ``roll``, ``A`` an
  ``adjust``, ``O`` a ``standing`` order (its steps and phases ticked in a list, with their
  titles), ``P`` a ``policy``: the names the sequence-of-play machinery and most rulesets
  share;
- ``1`` to ``4`` (``b`` too, for the first) the step's own orders (those not offered at
  every step), in the order offered: a build and a conversion at F&E's 2B3, the end of a
  movement batch at 3B2 (an order that asks nothing is drafted at once);
- ``m`` the step's stack order, placement or hex pick (`tui.widgets.order_flow.MapOrders`);
- ``p`` the hidden choice of a secret step, ``{`` any order typed as JSON (`docs/orders.md`).

``u`` takes back the last draft, ``S`` (or ctrl+s) asks to send them all. No key here means
anything on the map (its ``h j k l g z`` and Enter) or on the game screen (``a c e g i o r s
t v``), so a key does the same wherever the focus is; ``?`` lists them.

Data down, intent up, as for the map: the panel never calls the engine, the store or a
ruleset's client code. Every change of the drafts posts `OrdersPanel.DraftChanged` (the
screen checks them in a dry run and hands the verdict back with `show_check`), and sending
posts `OrdersPanel.SendRequested` (the screen confirms, signs and queues). The screen also
tells it the hex chosen on the map with the player's units there (`choose_hex`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input, Static

from tui.safe_text import safe_text
from tui.widgets.allocation_editor import AllocationEditor
from tui.widgets.offered import Offered, draft_position
from tui.widgets.order_forms import (
    ChoiceData,
    ChoiceMenu,
    FieldsFor,
    PresetData,
    choice_form,
    secret_form,
)
from tui.widgets.order_text import describe, param_named, parse_items, path_text, with_options
from tui.widgets.step_offer import StepOffer
from tui.widgets.step_orders import StepOrders
from tui.widgets.step_picks import StepData, standing_items
from tui.widgets.unitpick import UnitPick

__all__ = ["OrdersPanel", "describe", "parse_items", "path_text"]

F_LISTS = ": f lists what it takes"


class OrdersPanel(StepOrders, can_focus=True):
    """Draft orders, one line each, with the check result under them and a one-line input.

    ``items`` is the list of drafts (plain dicts, as `docs/orders.md` writes them).
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("d", "done", "Done", tooltip="Draft a done order (ends the step)"),
        Binding("m", "move", "Move", tooltip="The step's stack order, placement or hex"),
        # Not in the footer, which 80 columns already fill: the hint line names them at the
        # steps that take them, and ? lists them all.
        Binding("D", "through", "Done through", show=False, tooltip="On to a step, left yours"),
        Binding("n", "note", "Note", show=False, tooltip="Draft a note (asks for its text)"),
        Binding("f", "forms", "Forms", show=False, tooltip="Any order of the step, by its form"),
        Binding("b,1", "own(0)", "Own order", show=False, tooltip="The step's first own order"),
        Binding("2", "own(1)", "2nd order", show=False, tooltip="The step's second own order"),
        Binding("3", "own(2)", "3rd order", show=False, tooltip="The step's third own order"),
        Binding("4", "own(3)", "4th order", show=False, tooltip="The step's fourth own order"),
        Binding("A", "named('adjust')", "Adjust", show=False, tooltip="A typed adjustment"),
        Binding("x", "named('roll')", "Roll", show=False, tooltip="Ask for dice"),
        Binding("O", "named('standing')", "Standing", show=False, tooltip="Steps done for you"),
        Binding("P", "named('policy')", "Policy", show=False, tooltip="A combat policy"),
        Binding("p", "secret", "Secret", tooltip="Write the hidden choice of a secret step"),
        Binding(
            "left_curly_bracket",
            "type_json",
            "JSON",
            show=False,
            key_display="{",
            tooltip="Type one order as JSON",
        ),
        Binding("u", "undo", "Undo", tooltip="Take back the last draft"),
        Binding("S,ctrl+s", "send", "Send", key_display="S", tooltip="Sign and send the drafts"),
        Binding("escape", "cancel", "Cancel", show=False),
        # Keys `check_action` hides when the step has no use for them, again: hidden, a key
        # passes on and does nothing; these say why (no description: ? lists them not).
        Binding("d", "why_not('done')", show=False),
        Binding("m", "why_not('move')", show=False),
        Binding("u,S,ctrl+s", "why_not('drafts')", show=False),
        Binding("p", "why_not('secret')", show=False),
    ]

    DEFAULT_CSS = """
    OrdersPanel {
        height: 1fr;
        /* Scrolls to a long refusal (show_check); no scrollbar: its column would make
           every line of the narrow side column wrap one word earlier. */
        overflow-y: auto;
        scrollbar-size-vertical: 0;
        & #orders-hint { height: auto; color: $text-muted; }
        & #orders-drafts { height: auto; }
        & #orders-check { height: auto; width: 100%; }
        & #orders-check.-refused { color: $text-error; text-style: bold; }
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

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.items: list[dict[str, Any]] = []
        self._added: list[dict[str, Any]] = []
        """The drafted items in the order they were added (not always their place in
        ``items``: `draft_position`), so that ``u`` takes back the last one added."""
        self._fields: FieldsFor | None = None
        self._input_for = ""
        self._steps: tuple[StepData, ...] = ()
        self._sides: tuple[str, ...] = ()
        self._seat = ""
        self._queued = False  # (`queued`)
        self.ends_step = False
        """The engine's dry run found the drafts end the step owed (the screen tells)."""

    def compose(self) -> ComposeResult:
        # The drafts and the engine's verdict first, the hint under them: at 80x24 the side
        # column cannot hold all three, and the verdict is what must not be cut off.
        yield Static("no draft orders", id="orders-drafts", markup=False)
        yield Static("", id="orders-check", markup=False)
        yield Static("", id="orders-hint", markup=False)
        # The unit list and the text field come later, hidden (`build_fields`): the game's
        # first paint has the panel closed, and they cost more than the rest (issue 16).

    def on_mount(self) -> None:
        self._show_hint()

    def build_fields(self) -> None:
        """Mount the unit list and the text field, hidden, unless they are there: the game
        screen asks after its first paint, the panel when one is wanted before that. Nothing
        once the panel has left the screen (the player quit or left the game in the frame
        before the screen's call came): there is nothing to mount them in."""
        if not self.is_attached or self.query(UnitPick):
            return
        pick = UnitPick(id="orders-units", compact=True)
        field = Input(id="orders-input", compact=True)
        pick.display = field.display = False
        self.mount(pick, field)

    def units_list(self) -> UnitPick:
        """The stack's unit list (`UnitPick`), mounted first if it is not there yet."""
        self.build_fields()
        return self.query_one(UnitPick)

    def text_field(self) -> Input:
        """The one-line input, mounted first if it is not there yet."""
        self.build_fields()
        return self.query_one(Input)

    def _shown(self, kind: type[UnitPick] | type[Input]) -> bool:
        return any(widget.display for widget in self.query(kind))  # not built: not shown

    # --- what the screen tells the panel ---------------------------------------------------

    def set_step(self, offer: StepOffer) -> None:
        """The step the player owes and the orders they may give there (`StepOffer`)."""
        self.offered = Offered.of(offer)
        self._fields = offer.fields
        self._steps = tuple(offer.steps)
        self._sides = tuple(offer.sides)
        self._seat = offer.seat
        self.stand_waiting(offer.waiting)
        self._show_hint()
        self.refresh_bindings()

    @property
    def orders(self) -> list[str]:
        """The order types offered now (their forms), in the face's order."""
        return self.offered.orders

    def show_check(self, ok: bool, text: str) -> None:
        """The engine's verdict on the drafts: legal, or the refusal with its rule."""
        check = self.query_one("#orders-check", Static)
        check.set_class(not ok, "-refused")
        text = safe_text(text, multiline=True)  # may quote event texts and refusals
        check.update(text if ok else f"REFUSED: {text}")
        if not ok:
            self.call_after_refresh(self.scroll_to_widget, check, animate=False)

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
        self._added = []
        self._changed()

    def show_queued(self, text: str) -> None:
        """The drafts were signed and queued (``text`` says as which packet): cleared, and
        that said until the packet has left (`read_again`) or new drafts come."""
        self.clear()
        self.show_check(True, text)
        self._queued = True

    def read_again(self, unsent: bool) -> None:
        """The game was read again after a packet was queued here: once nothing is
        ``unsent`` the line about it goes; else (the sync that was to send it is over: the
        network is down) it says how to try again."""
        if self._queued and unsent:
            self.show_check(True, self.check_text.replace(": sending it", ": s sends it", 1))
        elif self._queued:
            self._queued = False
            self.show_check(True, "")

    @property
    def queued(self) -> bool:
        """The verdict line says the last drafts were signed and queued (`show_queued`)."""
        return self._queued

    def restore(self, items: Sequence[dict[str, Any]]) -> None:
        """Take up the drafts kept from an earlier visit; posts `DraftChanged`, so they are
        checked against the game as it stands now."""
        self.items = list(items)
        self._added = list(self.items)
        self._changed()

    # --- keys --------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel":
            # Only when there is something to cancel; otherwise Escape goes on to the screen.
            return self._shown(Input) or self.building
        if action in ("undo", "send"):
            return bool(self.items)  # hidden, not greyed: the 80-column footer has no room
        if action == "secret":
            return self.offered.secret
        if action == "done":
            return self.choice("done") is not None
        if action == "move":
            return any(c is not None for c in (self.stack, self.placement, self.pick))
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
        """The step's own order number ``index`` (``1`` the first, ``2`` the second...)."""
        step, own = self.offered.step, self.offered.own
        if index < len(own):
            self._open(own[index])
        elif not step:
            self.notice("nothing owed now")
        elif own:
            has = ", ".join(c.order for c in own)
            self.notice(f"{step} has {has}: f lists every order it takes")
        elif self.stack is not None:
            self.notice(f"{step}'s own order is {self.stack_kind}: {self._stack_how()}")
        else:
            self.notice(f"{step} has no order of its own: f lists every order it takes")

    def _stack_how(self) -> str:
        """How the step's stack order is written (the map chooses its units)."""
        return (
            f"m writes the {self.stack_kind} of the units in the hex under the map's cursor "
            "(or in the hex chosen with Enter)"
        )

    def action_forms(self) -> None:
        """Every order of the step in a list; the one picked opens its form."""
        if not self.offered.choices:
            self.notice("nothing owed now" if not self.offered.step else "no orders here")
            return

        def picked(order: str | None) -> None:
            self.focus()
            choice = self.choice(order) if order else None
            if choice is not None:
                self._open(choice)

        self.app.push_screen(ChoiceMenu(self.offered.choices, self.offered.step), picked)

    def action_secret(self) -> None:
        """The hidden choice's form: as the face describes it (a number, a menu), else text."""
        choice = self.choice("secret")
        self._form(choice_form(choice) if choice is not None else secret_form())

    def action_why_not(self, what: str) -> None:
        """Why a key the footer hides for the step (`check_action`) did nothing."""
        lacks = {"done": "is not ended by done", "move": "has nothing for m to move or place"}
        step = self.offered.step
        if what == "drafts" or not step:
            self.notice("no draft orders yet" if what == "drafts" else "nothing owed now")
        else:
            self.notice(f"{step} {lacks.get(what, 'has no hidden choice')}{self._then}")

    def _not_offered(self, what: str) -> None:
        step = self.offered.step
        self.notice(f"{step} takes no {what} order{self._then}" if step else "nothing owed now")

    @property
    def _then(self) -> str:
        """The keys offer the step owed now: signed, drafts that end it bring the next's."""
        return ": your drafts end it, S signs them" if self.ends_step else F_LISTS

    def _prefill(self) -> dict[str, str]:
        """Starting values from what the player pointed at: the chosen hex, its units."""
        if self.chosen is None:
            return {}
        h, units = self.chosen
        return {"hex": f"{h:04d}", "piece": units[0] if units else "", "pieces": " ".join(units)}

    def _open(self, choice: ChoiceData, values: Mapping[str, str] | None = None) -> None:
        """The form of ``choice``, or the order at once when it asks for nothing; a list
        picked step by step (``picks``) opens `AllocationEditor`, which asks via this panel;
        a list of steps alone (a standing order) is ticked in a list of the sequence."""
        if not choice.params and not choice.presets:
            self._add({"type": choice.order})
            return
        picks = param_named(choice, "picks")
        if picks is not None:
            self._form(AllocationEditor(choice, picks, self))
            return
        kinds = [p.kind for p in choice.params]
        if kinds == ["steps"] and self._steps and values is None:
            name = choice.params[0].name
            offered = [(p.label, v) for p in choice.presets for k, v in p.values if k == name]
            items = standing_items(self._steps, offered, self._seat)
            self._pick_steps(choice, name, items, multiple=True)
            return
        if len(self._sides) > 1:  # a seat playing several sides says which (blank: the rules')
            choice = with_options(choice, "side", self._sides)
        by_kind = self._prefill()  # (what is in force wins: a policy is replaced whole)
        filled = {p.name: p.value or p.suggested or by_kind.get(p.kind, "") for p in choice.params}
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
            last = self._added.pop() if self._added else self.items[-1]
            self.items = [item for item in self.items if item is not last]
            self._changed()
            # Said on the status line: the panel may be closed, or scrolled off the list.
            left = len(self.items)
            rest = f"{left} draft{'s' if left != 1 else ''} left" if left else "no drafts left"
            self.notice(f"took back: {describe(last)}; {rest}")

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
            self._place(item)
        self._changed()

    # --- inside ----------------------------------------------------------------------------

    def _add(self, item: dict[str, Any]) -> None:
        self._place(item)
        self._changed()

    def _place(self, item: dict[str, Any]) -> None:
        self.items.insert(draft_position(self.items, item), item)
        self._added.append(item)

    def _changed(self) -> None:
        self._queued = self.ends_step = False  # (until the screen's dry run says)
        lines = [f"{n}. {describe(item)}" for n, item in enumerate(self.items, 1)]
        self.query_one("#orders-drafts", Static).update("\n".join(lines) or "no draft orders")
        if not self.items:
            self.show_check(True, "")
        self._show_hint()
        self.refresh_bindings()
        self.post_message(self.DraftChanged(list(self.items)))

    def _ask(self, purpose: str, placeholder: str) -> None:
        field = self.text_field()
        self._input_for = purpose
        field.placeholder = placeholder
        field.value = ""
        field.display = True
        field.focus()
        self._into_view(field)

    def _close_input(self) -> None:
        if self._shown(Input):
            self.query_one(Input).display = False
            self.focus()

    def key_text(self) -> str:
        """The quick keys of this step's orders (`Offered.key_text`)."""
        return self.offered.key_text()

    def _show_hint(self) -> None:
        """The hint line: the order being built on the map (`MapOrders.map_hint`), else
        what the step takes and the keys that write it (`Offered.hint`)."""
        building = self.map_hint(picking_units=self._shown(UnitPick))
        text = building or self.offered.hint(
            secret_drafted=any(item.get("type") == "secret" for item in self.items),
            chosen=self.chosen,
        )
        hint = self.query_one("#orders-hint", Static)
        hint.update(text)
        if building and not self._shown(UnitPick):  # (the list, under it, is in view)
            self._into_view(hint)

    def _into_view(self, widget: Widget) -> None:
        """Scroll the panel to ``widget`` once it is laid out: below long drafts and a
        verdict listing many steps' events, the unit list, the move's prompt and the text
        field fell under the side column's bottom, out of sight."""
        self.call_after_refresh(self.scroll_to_widget, widget, animate=False)
