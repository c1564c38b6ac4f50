"""The game screen's side of the orders: the hex chosen on the map, a move drawn on it, the
drafts checked as they change and signed when the player says so.

`GameScreen` is built on `DraftsScreen`, so that its own module keeps to loading the game,
the map, the side panel and the keys. Every change of the drafts is checked in a dry run on
the store thread (worker group ``check``, exclusive: only the last check counts, and a
verdict for drafts that changed meanwhile is dropped); sending asks `ConfirmDialog` first,
then signs and queues on the store thread, clears the drafts and reloads the game. The
orders panel's messages are handled by name, not with ``@on``: its module is imported when
the panel is built, after the first paint (`tui.screens.game_orders`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from textual import on, work
from textual.message import Message

from engine.core.face import Board, Piece
from tui.mapstacks import board_hex
from tui.safe_text import safe_text
from tui.screens.game_signed import SignedLinesScreen, ask_passphrase
from tui.screens.hexinfo import STAY_MARKS, own_pieces, waiting_pieces
from tui.screens.session import Checked
from tui.widgets.hexmap import HexMap

if TYPE_CHECKING:
    from tui.screens.game_orders import OrdersSlot
    from tui.screens.order_data import NextStep
    from tui.widgets.allocation_editor import AllocationEditor
    from tui.widgets.order_flow import MapOrders
    from tui.widgets.orders import OrdersPanel
    from tui.widgets.step_offer import StepOffer


Drawing = tuple[str, tuple[str, ...], tuple[str, ...]]
"""A stack order being drawn on the map: its order, its pieces and its path so far."""


class DraftsScreen(SignedLinesScreen):
    """The orders handlers of a game's screen (`GameScreen` sets ``orders``, the panel's
    slot, and ``_verdict``, the last dry run's drafts and whether the engine took them)."""

    orders: OrdersSlot
    _verdict: tuple[list[dict[str, Any]], bool] | None
    _move_prompt: str = ""
    """The status line's words on the move being drawn (`_prompt`)."""
    _then: str = ""
    """The step of the player's the last legal dry run runs into (`OrdersVerdict.then`)."""
    _hands_to: str = ""
    """Whose move the game is after the legal drafts, when they hand it over (the verdict's
    `tui.services.orders.OrdersVerdict.hands_to`): the send's confirmation says it."""
    _left_open: str = ""
    """The step the last legal dry run leaves the player's (`OrdersVerdict.left_open`)."""
    _marked_for: Drawing | None = None
    """The stack order being drawn whose next hexes the map marks now, once they are read."""
    _notice: tuple[str, list[dict[str, Any]]] = ("", [])
    """The panel's last notice as the status line says it, and the drafts it was said of."""
    _step_offer: StepOffer | None = None
    """The step owed as the game stands (`offer_step`)."""
    _drafted_for: list[dict[str, Any]] | None = None
    """The legal drafts that run into the step the panel offers instead (`NextStep`): its
    menus and marks are read after them. None while the panel offers the step owed."""
    _next_board: Board | None = None
    """The board after those drafts, where ``m`` finds the player's pieces."""

    class OrdersChecked(Message):
        """A dry run or a send of ``items`` finished; ``result`` is what the engine said,
        ``plan`` the board after legal drafts (the map's what-if), or None."""

        def __init__(
            self,
            items: list[dict[str, Any]],
            result: Checked,
            *,
            dry_run: bool,
            plan: Board | None = None,
        ) -> None:
            super().__init__()
            self.items = items
            self.result = result
            self.dry_run = dry_run
            self.plan = plan

    def _typed_board(self) -> Board | None:
        """The board of the game as loaded (the face's), None before it has one."""
        return self.data.show.board if self.data is not None else None

    def offer_step(self, offer: StepOffer) -> None:
        """The step the player owes as the game stands, for the orders panel: offered until
        legal drafts run into another step of the player's (`offer_next`)."""
        self._step_offer, self._drafted_for, self._next_board = offer, None, None
        self.orders.set_step(offer)
        self.drafting_for(None)
        self._choose_again()

    def offer_next(self, items: list[dict[str, Any]], then: NextStep | None) -> None:
        """Legal ``items`` run into ``then``, another step of the player's: the panel offers
        its orders, read after them, and the drafts go on there (one packet for the run, as
        the command line writes it). None: they do not, and the panel offers the step owed."""
        base = self._step_offer
        if base is None or (then is None and self._drafted_for is None):
            return
        if then is None:
            self._drafted_for, self._next_board = None, None
            self.orders.set_step(base)
            self.drafting_for(None)
            self._choose_again()
            return
        self._drafted_for, self._next_board = items, then.board
        self._choose_again()
        offer = replace(
            base,
            step=then.step,
            choices=then.choices,
            own=then.step_orders,
            secret=then.secret,
            steps=then.checklist or base.steps,
            waiting=waiting_pieces(then.board, base.seat) if then.board is not None else (),
        )
        self.orders.set_step(offer)
        title = next((line.title for line in then.checklist if line.step == then.step), "")
        self.drafting_for(then.step, title)

    def drafting_for(self, step: str | None, title: str = "") -> None:
        """Tell the rest of the screen which step the drafts go on at (None: the step owed);
        the game screen says it in its side panel and its checklist."""

    def my_pieces(self, h: int) -> list[Piece]:
        """The player's pieces in hex ``h`` that can move (bases never do): pieces of the
        board's sides whose seat is this player's (after the drafts, at the step they run
        into)."""
        board = self._next_board or self._typed_board()
        if board is None or self.data is None:
            return []
        where = f"{h:04d}"
        return [p for p in own_pieces(board, self.data.show.my_seat) if p.hex == where]

    def _choose(self, panel: OrdersPanel, h: int) -> tuple[dict[str, str], list[str]]:
        """Tell ``panel`` hex ``h`` is chosen, with the player's pieces there on the board
        the drafts go on at; returns them (id: kind) and those that may not move."""
        pieces = self.my_pieces(h)
        ships = {p.id: p.kind for p in pieces}
        stay = [p.id for p in pieces if STAY_MARKS.intersection(p.marks)]
        panel.choose_hex(h, list(ships), ships, stay)
        return ships, stay

    def _choose_again(self) -> None:
        """The board changed (the game read again, drafts run into another step): the hex
        chosen holds what is there now. Kept as it was, it held the units a signed move
        had taken away, and ``m`` drew their path from a hex they had left."""
        panel = self.orders.panel
        if panel is not None and panel.chosen is not None and not panel.building:
            self._choose(panel, panel.chosen[0])

    @on(HexMap.HexChosen)
    async def hex_chosen(self, message: HexMap.HexChosen) -> None:
        panel = await self.orders.build()
        if panel.building:
            drawing = self._unmarked(panel.path, message.hex_id)
            if drawing is not None:
                self.pass_or_refuse(drawing, message.hex_id)
            else:
                panel.add_path_hex(message.hex_id)
            return
        ships, stay = self._choose(panel, message.hex_id)
        kind = panel.stack_kind
        if ships and kind:
            # The step's stack order (`OrdersPanel.stack`): a move in movement, a withdrawal
            # before combat, and so on; ``m`` writes it.
            where = f"{message.hex_id:04d} chosen"
            free = len(ships) - len(stay)
            some = f"{free} of your {len(ships)} pieces may move" if stay else f"{free} pieces"
            does = "moves them" if kind == "move" else f"writes a {kind} order for them"
            self.status.say(f"{where}, {some}: m {does}")

    # The orders panel's messages are handled by name, not with ``@on``: its module is
    # imported when the panel is built, after the first paint.

    def on_map_orders_move_started(self, message: MapOrders.MoveStarted) -> None:
        hexmap = self.query_one(HexMap)
        hexmap.focus()
        if message.targets:  # a hex pick: the choice lists its hexes, no need to ask
            targets = self._board_hexes(message.targets)
            hexmap.show_targets(targets)
            if targets and hexmap.cursor not in targets:
                hexmap.goto(targets[0])  # (the face lists its own pick first)
            listed = " ".join(message.targets)
            self._prompt(f"{message.order} to {listed}: cursor to one, Enter; Escape gives up")
            return
        self._prompt("move: cursor to the next hex, Enter; Enter again or Escape ends")
        if message.pieces:
            self.read_destinations(message.order, message.pieces, message.path)

    def on_map_orders_path_drawn(self, message: MapOrders.PathDrawn) -> None:
        self._marked_for = None  # (until the marks of the path as it is now are read)
        self.read_destinations(message.order, message.pieces, message.path)

    def _unmarked(self, path: Sequence[int] | None, h: int) -> Drawing | None:
        """The path being drawn, when the map marks where it may go on (`read_destinations`)
        and ``h`` is neither marked nor the path's end (which ends it); else None. A
        placement's or a destination's hex is drafted whatever it is (the engine says why
        if it is wrong, and one key undoes the draft); a wrong hex in a path would leave
        every hex after it refused."""
        marked = self._marked_for
        if path is None or h == path[-1] or marked is None:
            return None
        if marked[2] != tuple(f"{p:04d}" for p in path):
            return None
        return None if h in self.query_one(HexMap).targets else marked

    @work(exclusive=True, group="unmarked")
    async def pass_or_refuse(self, drawing: Drawing, h: int) -> None:
        """Enter on an unmarked hex: the path may not end there, but it may still pass
        through it (then the ruleset lists hexes beyond it), and it goes on; else the status
        line says why, in the ruleset's words, and the path stays as it was."""
        order, pieces, path = drawing
        found = await self.session.destinations(
            self.game_id, order, pieces, (*path, f"{h:04d}"), self._drafted_for
        )
        panel = self.orders.panel
        if panel is None or panel.path is None or self._marked_for != drawing:
            return  # the path changed meanwhile
        if found is not None and found.hexes:
            panel.add_path_hex(h)
            return
        why = found.why if found is not None and found.why else "not a hex the path may take"
        self._prompt(f"{h:04d} is not marked {{ }}: {why}")  # (gone when the move ends)

    def action_path_back(self) -> None:
        """Backspace: take back the last hex of the path being drawn; the cursor goes back
        to the path's end and the marks follow."""
        panel = self.orders.panel
        if panel is None or panel.path is None:
            self.status.say("no path is being drawn: Backspace takes back a hex of one")
        elif panel.back_path():
            self.query_one(HexMap).cursor = panel.path[-1]
        else:
            self.status.say("the path is only its first hex: Escape gives the move up")

    def on_map_orders_move_ended(self) -> None:
        self._marked_for = None
        self.workers.cancel_group(self, "destinations")
        self.query_one(HexMap).show_targets(())
        if self.status.text == self._move_prompt:  # it told how to end what just ended
            self.status.say("")
        panel = self.orders.built()
        if panel.display:
            panel.focus()

    def on_map_orders_notice(self, message: MapOrders.Notice) -> None:
        self.status.say(message.text)
        panel = self.orders.panel
        self._notice = (self.status.text, list(panel.items) if panel is not None else [])

    def _drop_stale_notice(self, items: list[dict[str, Any]]) -> None:
        """The panel's last word on the status line (why a key did nothing: "no later step
        is yours to play on to after these drafts") goes once the drafts it was said of have
        changed: left there, it told something no longer true."""
        said, drafts = self._notice
        if said and self.status.text == said and items != drafts:
            self.status.say("")
        self._notice = ("", [])

    def _prompt(self, text: str) -> None:
        """Say on the status line how to go on with the move or pick being drawn; the move's
        end takes the line away again (unless something else was said meanwhile)."""
        self._move_prompt = safe_text(text)
        self.status.say(text)

    @work(exclusive=True, group="destinations")
    async def read_destinations(
        self, order: str, pieces: tuple[str, ...], path: tuple[str, ...] = ()
    ) -> None:
        """Mark on the map the hexes the stack order may go to (for a path, those that may
        end it one hex further), when the ruleset lists them
        (`engine.core.face.Destinations`), and say how many on the status line."""
        found = await self.session.destinations(
            self.game_id, order, pieces, path, self._drafted_for
        )
        if found is None or not self.orders.built().building:
            return
        hexmap = self.query_one(HexMap)
        targets = self._board_hexes(found.hexes)
        hexmap.show_targets(targets)
        drawing = self.orders.built().path is not None
        if not drawing and targets and hexmap.cursor not in targets:
            # One hex to choose (a placement, a withdrawal's destination), as a hex pick: the
            # cursor goes to the first marked, which may be far from where the map looked. A
            # path being drawn keeps the cursor on its end.
            hexmap.goto(targets[0])
        self._marked_for = (order, pieces, path) if drawing else None
        from tui.screens.order_data import reach_words

        status, note = reach_words(order, path, found)
        self.orders.built().use_reach(found.fills, note)
        self._prompt(status)

    def _board_hexes(self, texts: Sequence[str]) -> list[int]:
        """The map's hexes named ``texts`` (as the ruleset writes them), those it has."""
        board = self._typed_board()
        digits = board.grid.digits if board is not None and board.grid is not None else 2
        return [h for text in texts if (h := board_hex(text, digits)) is not None]

    def on_orders_panel_draft_changed(self, message: OrdersPanel.DraftChanged) -> None:
        if message.items:
            self.orders.built().show_check(True, "checking...")
            self.check_orders(message.items)
        else:
            self._drop_stale_notice([])
            self.offer_next([], None)
            self.query_one(HexMap).show_plan(None)
            self.orders.built().after_drafts(None)
        self.keep_drafts(message.items)

    @work(exclusive=True, group="drafts")
    async def keep_drafts(self, items: list[dict[str, Any]]) -> None:
        """Keep the drafts in the home, so that leaving the game loses none (`saves.drafts`)."""
        if not await self.session.keep_drafts(self.game_id, items):
            self.status.say("these drafts are too large to keep if you leave the game: send them")

    def on_step_orders_through_wanted(self) -> None:
        """``D``: the list of steps to play on to waits for the rules' word on where the
        player may stop (`tui.widgets.step_orders.StepOrders.pick_through`)."""
        self.read_stops()

    @work(exclusive=True, group="stops")
    async def read_stops(self) -> None:
        """After the drafts when the engine took them (a standing order among them may
        have played the player's part to its end), else after the last legal ones that ran
        into the step offered, else as the game stands."""
        items = self.orders.built().items
        drafts = items if items and self._verdict == (items, True) else self._drafted_for
        stops = await self.session.own_stops(self.game_id, list(drafts or ()))
        panel = self.orders.panel
        if panel is not None and panel.is_attached:
            panel.pick_through(stops)

    def on_allocation_editor_menu_wanted(self, message: AllocationEditor.MenuWanted) -> None:
        """The allocation editor's next menu, read from the rules on the store thread."""
        self.read_menu(message.editor, message.order, message.chosen)

    @work(exclusive=True, group="menu")
    async def read_menu(
        self, editor: AllocationEditor, order: str, chosen: tuple[str, ...]
    ) -> None:
        menu = await self.session.step_menu(self.game_id, order, chosen, self._drafted_for)
        if editor.is_attached:
            editor.show_menu(menu)

    @work(exclusive=True, group="check")
    async def check_orders(self, items: list[dict[str, Any]]) -> None:
        result = await self.session.check_orders(self.game_id, items)
        self.post_message(self.OrdersChecked(items, result, dry_run=True, plan=result.plan))

    @on(OrdersChecked)
    def orders_checked(self, message: OrdersChecked) -> None:
        panel = self.orders.built()
        if message.result.locked:  # the drafts stay; the passphrase, then the same send
            panel.show_check(False, message.result.text)
            ask_passphrase(self, "sign these orders", lambda: self.send_orders(message.items))
            return
        if message.result.sent:
            panel.show_queued(message.result.text)
            # The keys go back to the map, the panel stays in view: o then focuses it (with
            # the focus kept, the o of a player wanting the orders hid them).
            self.query_one(HexMap).focus()
            self.status.say(message.result.text.replace("\n", "; "))  # (one line)
            self.reload()
            if message.result.sending:
                self.send_signed()
        elif message.items == panel.items:  # a verdict on older drafts is dropped
            if message.dry_run:  # a send that could not sign blocks no later try
                self._drop_stale_notice(message.items)
                self._verdict = (message.items, message.result.ok)
                verdict = message.result.verdict
                self._left_open = verdict.left_open if verdict is not None else ""
                self._then = verdict.then if verdict is not None else ""
                self._hands_to = verdict.hands_to if verdict is not None else ""
                if message.result.ok:  # (refused: the step offered stays, to mend the drafts)
                    self.offer_next(message.items, message.result.next)
                # They end the step offered: the one owed, not one of the player's they run into.
                ended = verdict is not None and not self._left_open and not verdict.then
                panel.ends_step = message.result.ok and ended
                self.query_one(HexMap).show_plan(message.plan)  # the what-if, before signing
                panel.after_drafts(self._waiting_after(message.plan))
            panel.show_check(message.result.ok, message.result.text)

    def _waiting_after(self, plan: Board | None) -> list[tuple[str, str, str]] | None:
        """The player's pieces still off the board on ``plan`` (legal drafts' board), or
        None when the drafts change no board."""
        if plan is None or self.data is None:
            return None
        return waiting_pieces(plan, self.data.show.my_seat)

    def on_orders_panel_send_requested(self, message: OrdersPanel.SendRequested) -> None:
        items = message.items
        if self._verdict == (items, False):
            self.status.say("the engine refused these orders: fix them or undo (u) first")
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.orders.built().show_check(True, "signing...")
                self.send_orders(items)

        from tui.widgets.confirm import ConfirmDialog
        from tui.widgets.order_text import describe

        lines = [f"{n}. {describe(item)}" for n, item in enumerate(items, 1)]
        if self._left_open and self._verdict == (items, True):
            lines += ["", f"These orders do not end it: the game still waits for you at "
                      f"{self._left_open}. Sent alone, they give the other player nothing "
                      "to do (d adds done, which ends most steps)."]  # fmt: skip
        elif self._then and self._verdict == (items, True):
            lines += ["", f"The game then waits for you at {self._then}: sent now, they give "
                      "the other player nothing to do. The panel offers its orders: add "
                      "them first (d ends most steps)."]  # fmt: skip
        elif self._hands_to and self._verdict == (items, True):
            lines += ["", f"Then the game {self._hands_to}."]  # (the hand-off they make)
        if self.data is not None:
            from tui.screens.order_data import policy_note, standing_note

            show = self.data.show
            notes = (
                standing_note(show.checklist or (), show.my_seat, items),
                policy_note(show.choices, items),
            )
            lines += ["", *(note for note in notes if note)] if any(notes) else []

        self.app.push_screen(ConfirmDialog("Sign and send these orders?", lines), answered)

    @work(exclusive=True, group="send")
    async def send_orders(self, items: list[dict[str, Any]]) -> None:
        result = await self.session.submit_orders(self.game_id, items)
        self.post_message(self.OrdersChecked(items, result, dry_run=False))
