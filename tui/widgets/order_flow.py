"""The orders written on the map: a stack order's units and hexes, a set-up placement's hex.

`MapOrders` is the part of the orders panel (`tui.widgets.orders.OrdersPanel`, which extends
it) that needs the map's keys, kept apart so the panel's module stays small. Three flows:

- the step's *stack order* (``m``; the first choice naming several pieces, F&E's move,
  reaction, retrograde...): first which units of the stack chosen on the map (`UnitPick`,
  all ticked: Enter takes the whole stack), then its hexes on the map. When the order takes
  a path (a parameter of kind ``hexes``), it ends when the last hex is chosen again (or on
  `end_move`, which the screen calls on Escape); when it takes one hex, that hex is its
  destination; when it takes none, the units are all it needs. While the hexes are
  chosen the map marks where the order may go next (the screen asks the ruleset's face,
  `engine.core.face.Destinations`), and what the face fills with them (F&E: a
  withdrawal's flagship, a reaction's trigger) goes into the draft. Other hex parameters
  the order requires take the path's last hex;
- a *placement* (``m`` at a step whose order puts waiting pieces on the board, F&E's
  set-up ``place``: `tui.widgets.order_text.is_placement`): first the group (a fleet) or
  the piece, from a list of the player's pieces off the board, then the hex on the map;
- a *hex pick* (``m`` at a step whose order names no pieces but takes a hex the face lists,
  F&E's retreat: `tui.widgets.order_text.hex_pick`): the listed hexes are marked on the
  map at once, and the hex chosen there is the order's. The form offers the same list as a
  menu; the map shows where each hex lies, next to what is in it.

The panel has no map keys, so it posts `MoveStarted` for the screen to give the map the
focus; each hex chosen there comes back through `add_path_hex`, and `MoveEnded` gives the
keys back. Whatever is still required and blank then is asked in the order's form.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from textual import on
from textual.containers import Vertical
from textual.message import Message
from textual.widget import Widget

from tui.widgets.offered import Offered
from tui.widgets.order_forms import ChoiceData, order_values
from tui.widgets.order_text import hex_pick, param_named, path_text, placement_items
from tui.widgets.ticklist import PickDialog
from tui.widgets.unitpick import UnitPick

Waiting = tuple[str, str, str]
"""A piece of the player's off the board: (id, kind, group; "" when it has none)."""


class MapOrders(Vertical):
    """The map-driven flows of the orders panel; the panel supplies the hooks at the end."""

    class MoveStarted(Message):
        """A move is being built: the map should take the keys (cursor + Enter). ``order``
        and ``pieces`` name a stack order and the pieces it moves (for a placement, the one
        group or piece it places), so the screen can mark where they may go
        (`engine.core.face.Destinations`); ``path`` is the path drawn so far (its first
        hex) when the order takes one, else empty. ``targets`` are the hexes to mark when
        the choice lists them itself (a hex pick), so the screen need not ask."""

        def __init__(
            self,
            order: str = "",
            pieces: tuple[str, ...] = (),
            path: tuple[str, ...] = (),
            targets: tuple[str, ...] = (),
        ) -> None:
            super().__init__()
            self.order = order
            self.pieces = pieces
            self.path = path
            self.targets = targets

    class PathDrawn(Message):
        """The path of the stack order being built has a new hex: ``path``, as the order
        writes its hexes, so the screen can mark where it may end one hex further."""

        def __init__(self, order: str, pieces: tuple[str, ...], path: tuple[str, ...]) -> None:
            super().__init__()
            self.order = order
            self.pieces = pieces
            self.path = path

    class MoveEnded(Message):
        """The move's path is complete (or abandoned): the keys can come back here."""

    class HexWanted(Message):
        """``m`` found no hex chosen (the panel had the keys, so Enter never reached the
        map): the screen chooses the hex under the map's cursor, as ``m`` on the map does,
        and starts the move there."""

    class Notice(Message):
        """A key found nothing to do here (nothing owed, no such order, nothing left to
        place): ``text`` says why, for the status line. It is no verdict on the drafts,
        so the engine's last one stays in the panel."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.offered = Offered()
        """The step owed and what its orders are written from (the panel's `set_step`)."""
        self.chosen: tuple[int, list[str]] | None = None
        """The hex chosen on the map and the player's units there."""
        self.path: list[int] | None = None
        """The stack order's hexes so far while they are chosen on the map, or None."""
        self.waiting: tuple[Waiting, ...] = ()
        """The player's pieces off the board, which a placement puts on it: as the game
        stands, or after the drafts when the engine took them (`after_drafts`)."""
        self._waiting_now: tuple[Waiting, ...] = ()
        """The same as the game stands, whatever the drafts place."""
        self._units: list[str] = []
        self._names: dict[str, str] = {}
        self._stay: frozenset[str] = frozenset()
        self._stack: ChoiceData | None = None
        """The stack order (or placement) being written."""
        self._placing: tuple[str, str] | None = None
        """The placement's (parameter, value) naming what it places, while its hex is chosen."""
        self._picking: str | None = None
        """The hex parameter of the hex pick, while its hex is chosen on the map."""
        self._fills: dict[str, str] = {}
        """Other parameters the ruleset filled for the units being moved (`use_reach`)."""
        self._reach_note = ""
        """Why the ruleset lists no hex for the order being built, and what else it says
        with its hexes (`use_reach`)."""

    # --- what the screen tells ----------------------------------------------------------------

    def choose_hex(
        self,
        h: int,
        units: Sequence[str],
        names: Mapping[str, str] | None = None,
        stay: Collection[str] = (),
    ) -> None:
        """The hex chosen on the map and the player's units in it (the stack ``m`` orders);
        ``names`` gives their classes for the unit list, ``stay`` those that may not move
        now (offered unticked)."""
        self.chosen = (h, list(units))
        self._names = dict(names or {})
        self._stay = frozenset(stay)
        self._show_hint()

    def add_path_hex(self, h: int) -> None:
        """The next hex of the order being built; the last hex again ends the path. For an
        order that takes one hex (a destination, a placement's hex), that hex is it."""
        if self._placing is not None:
            self._place_at(h)
            return
        if self._picking is not None:
            self._pick_at(h)
            return
        if self.path is None:
            return
        if h == self.path[-1]:
            self.end_move()
            return
        self.path.append(h)
        self._reach_note = ""  # (the next answer says it again if it still holds)
        if not self._takes_path:
            self.end_move()
            return
        self._show_hint()
        self._path_drawn()

    def back_path(self) -> bool:
        """Take back the last hex of the path being drawn (never its first, the units'
        hex); False when there is none to take back."""
        if self.path is None or len(self.path) < 2:
            return False
        self.path.pop()
        self._reach_note = ""
        self._show_hint()
        self._path_drawn()
        return True

    def use_reach(self, fills: Sequence[tuple[str, str]], note: str = "") -> None:
        """What came with the destinations of the stack order being built: parameters the
        ruleset fills for its units (F&E: a withdrawal's flagship), which the draft takes
        where nothing else gave a value (the player sees them in it), and ``note``, why no
        hex is listed and what else the ruleset says with them (F&E: the strategic moves
        left free), shown under the hint in full (the status line cuts it)."""
        self._fills = dict(fills)
        self._reach_note = note
        self._show_hint()

    @property
    def building(self) -> bool:
        """True while an order's hexes are being chosen on the map."""
        return self.path is not None or self._placing is not None or self._picking is not None

    @property
    def _takes_path(self) -> bool:
        return self._stack is not None and param_named(self._stack, "hexes") is not None

    def end_move(self) -> None:
        """End the order being built: a stack order with a path of two hexes or more, or a
        destination, becomes a draft (or its form, if it still lacks something); a placement
        without its hex is given up."""
        path, self.path = self.path, None
        self._placing = self._picking = None
        self._reach_note = ""
        if path is not None and len(path) > 1 and self._stack is not None:
            hexes = [f"{h:04d}" for h in path]
            values = {param_named(self._stack, "pieces") or "units": " ".join(self._units)}
            route = param_named(self._stack, "hexes")
            if route is not None:
                values[route] = " ".join(hexes)
            for param in self._stack.params:  # what the ruleset filled first (a trigger)
                if param.name in self._fills:
                    values.setdefault(param.name, self._fills[param.name])
                if param.kind == "hex" and param.required:
                    values.setdefault(param.name, hexes[-1])
            self._stack_order(values)
        else:
            self._show_hint()
        self.post_message(self.MoveEnded())

    def _path_drawn(self) -> None:
        assert self._stack is not None and self.path is not None
        path = tuple(f"{h:04d}" for h in self.path)
        self.post_message(self.PathDrawn(self._stack.order, tuple(self._units), path))

    # --- the stack order ----------------------------------------------------------------------

    def action_move(self) -> None:
        """Start the step's stack order (first the units, all ticked, then its hexes), its
        placement (first what to place, then its hex), or its hex pick (the hex at once)."""
        stack = self.stack
        if stack is None and self.placement is not None:
            self._start_placement(self.placement)
            return
        if stack is None and self.pick is not None:
            self._start_pick(self.pick)
            return
        if stack is None:
            self._not_offered("stack")
            return
        if self.chosen is None:
            self.post_message(self.HexWanted())
            return
        if not self.chosen[1]:
            self.notice("choose a hex with your ships first: Enter on the map")
            return
        self._stack = stack
        self._fills, self._reach_note = {}, ""
        pick = self.units_list()
        pick.offer(self.chosen[1], self._names, self._stay)
        pick.display = True
        pick.focus()
        self._into_view(pick)
        self._show_hint()
        if not pick.picked:
            self.notice("none of these may move now (held, or moved only by another): space ticks")

    @on(UnitPick.Picked)
    def _units_picked(self, event: UnitPick.Picked) -> None:
        event.stop()
        if not event.units:
            self.notice("no unit ticked: space ticks one, Escape gives up")
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
        drawn = (f"{self.chosen[0]:04d}",) if self._takes_path else ()
        self.post_message(self.MoveStarted(stack.order, tuple(self._units), drawn))

    @on(UnitPick.Abandoned)
    def _pick_abandoned(self, event: UnitPick.Abandoned) -> None:
        event.stop()
        self._close_pick()
        self._show_hint()

    def _close_pick(self) -> None:
        pick = self.units_list()
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

    def notice(self, text: str) -> None:
        """Tell the player why a key did nothing (`Notice`)."""
        self.post_message(self.Notice(text))

    # --- the placement --------------------------------------------------------------------------

    def stand_waiting(self, waiting: Sequence[Waiting]) -> None:
        """The pieces off the board as the game stands (the step was read again)."""
        self.waiting = self._waiting_now = tuple(waiting)

    def after_drafts(self, waiting: Sequence[Waiting] | None) -> None:
        """The pieces still off the board once the drafts are applied, or None for the game
        as it stands (no drafts, or drafts the engine refused): a fleet a draft places is
        not offered again, since placing it twice could only be refused."""
        self.waiting = self._waiting_now if waiting is None else tuple(waiting)

    def _start_placement(self, choice: ChoiceData) -> None:
        items = placement_items(choice, self.waiting)
        if not items:
            self.notice(f"nothing waits to be placed: f opens the {choice.order} form")
            return

        def picked(values: list[str] | None) -> None:
            self.focus()
            if not values:
                return
            kind, _, value = values[0].partition(":")
            name = param_named(choice, "group" if kind == "g" else "piece")
            assert name is not None
            self._stack = choice
            self._placing = (name, value)
            self._show_hint()
            self.post_message(self.MoveStarted(choice.order, (value,)))

        self.app.push_screen(PickDialog(f"{choice.title}: what?", items), picked)

    def _place_at(self, h: int) -> None:
        assert self._placing is not None and self._stack is not None
        name, value = self._placing
        hex_param = param_named(self._stack, "hex", required=True) or "hex"
        self._placing = None
        self._stack_order({name: value, hex_param: f"{h:04d}"})
        self.post_message(self.MoveEnded())

    # --- the hex pick -----------------------------------------------------------------------------

    def _start_pick(self, choice: ChoiceData) -> None:
        param = hex_pick(choice)
        assert param is not None
        self._stack = choice
        self._picking = param.name
        self._show_hint()
        self.post_message(self.MoveStarted(choice.order, targets=tuple(param.options)))

    def _pick_at(self, h: int) -> None:
        """The hex chosen: the order names it (a hex not listed is drafted too, so the
        engine's refusal says why it is not one)."""
        assert self._picking is not None and self._stack is not None
        name, self._picking = self._picking, None
        self._stack_order({name: f"{h:04d}"})
        self.post_message(self.MoveEnded())

    def map_hint(self, *, picking_units: bool) -> str | None:
        """The hint line while an order is built on the map (``picking_units``: its unit
        list is shown): what to do next and how to give up; None when none is."""
        kind = self._stack.order if self._stack is not None else ""
        if picking_units:
            return f"{kind}: which units? space ticks, * all/none, Enter takes, Esc"
        if self._placing is not None:
            return f"{kind} {self._placing[1]}: cursor to its hex, Enter; Esc gives up"
        if self._picking is not None:
            params = self._stack.params if self._stack is not None else ()
            param = next(p for p in params if p.name == self._picking)
            text = f"{kind}: cursor to a marked hex, Enter; Esc gives up\n"
            return (
                text
                + f"marked: {' '.join(param.options)}"
                + (f"\n{param.help}" if param.help else "")
            )
        if self.path is None:
            return None
        if self._takes_path:
            text = (
                f"{kind} {len(self._units)} from {self.path[0]:04d}: "
                f"{path_text(f'{h:04d}' for h in self.path)}\n"
                "cursor+Enter adds a hex, Backspace takes one back; Enter on the end or Esc ends"
            )
        else:
            text = (
                f"{kind} {len(self._units)} from {self.path[0]:04d}: "
                "cursor to the destination, Enter; Esc gives up"
            )
        return text + (f"\n{self._reach_note}" if self._reach_note else "")

    # --- what the step offers (`Offered`) ----------------------------------------------------

    @property
    def stack(self) -> ChoiceData | None:
        """The stack order ``m`` writes at this step (`Offered.stack`)."""
        return self.offered.stack

    @property
    def placement(self) -> ChoiceData | None:
        """The placement ``m`` writes at this step (`Offered.placement`)."""
        return self.offered.placement

    @property
    def pick(self) -> ChoiceData | None:
        """The hex pick ``m`` writes at this step (`Offered.pick`)."""
        return self.offered.pick

    @property
    def stack_kind(self) -> str:
        """The type of the stack order ``m`` writes at this step ("" when it has none)."""
        return self.offered.stack_kind

    def choice(self, order: str) -> ChoiceData | None:
        """The offered choice of type ``order``, if the step offers it."""
        return self.offered.choice(order)

    # --- supplied by the panel ----------------------------------------------------------------

    def units_list(self) -> UnitPick:
        raise NotImplementedError

    def show_check(self, ok: bool, text: str) -> None:
        raise NotImplementedError

    def _show_hint(self) -> None:
        raise NotImplementedError

    def _into_view(self, widget: Widget) -> None:
        raise NotImplementedError

    def _not_offered(self, what: str) -> None:
        raise NotImplementedError

    def _add(self, item: dict[str, Any]) -> None:
        raise NotImplementedError

    def _open(self, choice: ChoiceData, values: Mapping[str, str] | None = None) -> None:
        raise NotImplementedError
