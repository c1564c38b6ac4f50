"""One game: the map with its stacks, the hex under the cursor, the status, checklist and log.

Layout for 80x24 (the SSH case), from top to bottom::

    +--------------------------------------+--------------------------+
    | HexMap (all the room left)           | status: turn, step, move |
    |                                      | hex under the cursor:    |
    |                                      |   owner, planets, bases, |
    |                                      |   units with their marks |
    +--------------------------------------+--------------------------+
    | ChecklistTree (c) or EventLog (e): one at a time below 40 lines |
    | status line (sync)                                              |
    | footer (keys)                                                   |

The orders panel (``o``, `OrdersPanel`) takes the hex details' place in the side column
while the player writes orders: 80x24 has no room for both; it is mounted after the game's
first paint, which does not show it (`tui.screens.game_orders`); ``i`` opens the ruleset's
calculator over it (`tui.screens.calculator`; F&E's works combat damage, to plan intensities).
Enter on the map (`HexMap.HexChosen`) tells it the chosen hex and the player's ships there,
or adds the next hex of a move being built; that, and the drafts checked as they change and
signed when the player says so, are `tui.screens.game_drafts`'s (`DraftsScreen`, which this
screen is built on). ``v`` opens the review of the game's packets (`tui.screens.review`).

Data: one async worker (group ``load``) reads `Session.game` on the store thread, which is
`tui.services.show.game_view` (the typed record with the ruleset face's summary, board,
choices and checklist, and its JSON form) plus the game's events, and posts
`GameScreen.Loaded`; the handler hands each part to its widget, and shows what arrived since
the player last looked (`tui.services.news`) as a notification. A game named on the command
line comes already read (the games list reads it before pushing this screen), so its first
paint is the game. That first read has the face's quick board (F&E's without the supply and
the income, `tui.services.board.QuickBoard`); worker ``board`` reads the whole one after the
paint and `BoardCompleted` shows it (a reload reads the whole board). The checklist and the log are
`tui.screens.game_panels`'s. Nothing here knows a ruleset: the player's pieces are those of
the board's sides whose seat is theirs, the orders panel gets the face's choices, and the
ruleset's client code (`tui.rulesets.client_for`) only says which fields its forms ask for.
A sync that changed this game loads it again; the log then only appends the new events.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import msgspec
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Input, Static

from engine.core.face import Board
from engine.core.text import counted
from tui.safe_text import safe_text
from tui.screens.base import StatusLine
from tui.screens.game_drafts import DraftsScreen
from tui.screens.game_orders import OrdersSlot
from tui.screens.game_panels import ROOMY, GamePanels
from tui.screens.game_signed import ask_passphrase
from tui.screens.hexinfo import (
    BoardIndex,
    drafting_line,
    focus_moved,
    hex_lines,
    start_hex,
    status_lines,
    waiting_pieces,
)
from tui.screens.session import GameData, SyncResult
from tui.services.board import sheet_for
from tui.startup import release_collector
from tui.widgets.footer import KeysFooter
from tui.widgets.hexdetails import HexDetails
from tui.widgets.hexmap import HexMap
from tui.widgets.step_offer import StepOffer

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from tui.widgets.checklist import ChecklistTree

NEWS_WIDTH = 120
"""Characters of one line of the arrivals notification: a toast wraps, this only caps."""
NEWS_LINES = 12
"""Lines of the arrivals notification (in a roomy terminal); the rest is counted, and the log
has it all."""
NEWS_SECONDS = 12
"""How long the arrivals notification stays; the log (``e``) keeps every event."""


PANEL_KEYS = (
    "d", "D", "n", "f", "b", "1", "2", "3", "4", "A", "x", "O", "P", "p",
    "left_curly_bracket", "u", "S", "ctrl+s",
)  # fmt: skip
"""The orders panel's keys (`tui.widgets.orders.OrdersPanel`; ``m`` has its own action
here) that the screen hands to the panel when the map has the keys: a key does the same
wherever the focus is, and ``o`` first is not needed. A test checks them against the
panel's bindings."""


class GameScreen(DraftsScreen):
    """A game of this home, by its hex id."""

    STYLED_ONCE = True

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Games", show=False, tooltip="Back to the list of games"),
        # Priority: the checklist binds c itself (back to the current step), and the same key
        # must also close it again. Opening it already shows the current step.
        Binding("c", "checklist", "Checklist", priority=True),
        # Not l: the map takes h j k l for moving its cursor.
        Binding("e", "log", "Log", tooltip="Show or hide the events of the game"),
        Binding("o", "orders", "Orders", tooltip="Write orders (in place of the hex details)"),
        Binding("r", "reload", "Refresh", show=False),
        Binding("v", "review", "Review", tooltip="Step through the game's packets"),
        # Hidden like Review: 80 columns of footer are full; ? lists both.
        Binding("t", "talk", "Talk", show=False, tooltip="Send a chat line to the players"),
        # Hidden too; ? and the palette list it. i: players plan intensities with it (F&E's).
        Binding("i", "calculator", "Calculator", show=False, tooltip="Work out combat damage"),
        Binding("w", "pace", "Pace", show=False, tooltip="Where the game's time went: hand-offs"),
        # The map's own g, from any panel (no description: ? lists the map's). Backspace
        # takes back a hex of the path being drawn: the panel's hint says so while one is.
        Binding("g", "goto", show=False),
        # m where the map has the keys: Enter, o and m in one (the panel's own m wins there).
        Binding("m", "move_here", show=False),
        # The orders panel's other keys where the map has the keys: the panel acts on them.
        *(Binding(key, f"panel_key({key!r})", show=False) for key in PANEL_KEYS),
        Binding("backspace", "path_back", show=False),
        # Shown only while a key that joined this player's game waits for acceptance.
        Binding("a", "accept_key", "Accept key", tooltip="Accept the key that joined the game"),
        Binding(
            "X", "decline_key", "Decline key", tooltip="Refuse the key that joined: the game ends"
        ),
        # Hidden: rare, and asks first; ? and the palette list it.
        Binding("R", "resign", "Resign", show=False, tooltip="Concede the game, on your move"),
    ]

    class Loaded(Message):
        """The worker read the game; ``data`` is everything the widgets show."""

        def __init__(self, data: GameData) -> None:
            super().__init__()
            self.data = data

    class BoardCompleted(Message):
        """The whole board of the game after packet ``seq`` (its supply worked out), to show
        in place of the quick board of the first paint."""

        def __init__(self, seq: int, board: Board | None) -> None:
            super().__init__()
            self.seq = seq
            self.board = board

    def __init__(self, game_id: str, data: GameData | None = None) -> None:
        super().__init__()
        self.game_id = game_id
        """The game's id in hex, as `render.game_summary` gives it."""
        self._preloaded = data
        """The game as the games list read it before pushing this screen (a game named on
        the command line): shown at once instead of read again (issue 16)."""
        self.data: GameData | None = None
        self.board = BoardIndex(None)
        self._drafting_line = ""
        """The side panel's "drafting for" line (`drafting_for`), or nothing."""
        self.panels = GamePanels(self)
        """The checklist and the log under the map (`tui.screens.game_panels`)."""
        self.orders = OrdersSlot(self)
        """The orders panel, built after the first paint (`tui.screens.game_orders`)."""
        self._verdict: tuple[list[dict[str, Any]], bool] | None = None
        self._panel_held = False
        """`show` is moving the cursor: the panel waits for the hex it ends on."""
        """The last dry run's drafts and whether the engine took them."""

    def compose(self) -> ComposeResult:
        with Horizontal(id="game-body"):
            yield HexMap(id="map")
            with Vertical(id="side"):
                yield Static("reading the game...", id="game-status", markup=False)
                with VerticalScroll(id="hex-scroll"):
                    yield HexDetails("", id="hex-info", markup=False)
                # The orders panel, closed, is mounted here after the first paint (`orders`).
        yield from self.panels.compose(self.app.size)  # below 120x40: built after the paint
        yield StatusLine()
        # 80 columns hold the map's keys and this screen's only without the "^p palette"
        # hint; ctrl+p still opens it (the games list's footer shows it).
        yield KeysFooter(show_command_palette=False)

    def on_mount(self) -> None:
        hexmap = self.query_one(HexMap)
        hexmap.focus()
        self.watch(hexmap, "cursor", self.cursor_moved, init=False)
        if self._preloaded is not None:
            # Shown before the first layout, so the first paint is the game: the map centres
            # its cursor when it gets its size (`HexMap`), before that paint (issue 16). No
            # busy bar: it would be started and stopped again in this handler.
            data, self._preloaded = self._preloaded, None
            self.show(self.Loaded(data))
        else:
            self.status.busy("reading the game...")
            self.reload()

    # --- loading -----------------------------------------------------------------------------

    def reload(self) -> None:
        self.load()

    @work(exclusive=True, group="load")
    async def load(self) -> None:
        # The first read with the quick board (its supply and income read after the paint); a
        # reload with the whole board, so no mark the player saw goes away and comes back.
        quick = self.data is None
        await self.fetch(self.session.game(self.game_id, quick=quick), self.Loaded)

    @work(exclusive=True, group="board")
    async def complete_board(self) -> None:
        """Read the whole board in place of the quick one (its supply and income worked out)."""
        await self.fetch(self.session.board(self.game_id), lambda got: self.BoardCompleted(*got))

    @on(BoardCompleted)
    def board_completed(self, message: BoardCompleted) -> None:
        data = self.data
        if data is None or not data.board_later or data.show.seq != message.seq:
            return  # a reload read the game since (with its whole board), or reads it now
        show = msgspec.structs.replace(data.show, board=message.board)
        self.data = msgspec.structs.replace(data, show=show, board_later=False)
        hexmap = self.query_one(HexMap)
        self.board = BoardIndex(message.board, hexmap.sheet, printed=hexmap.printed)
        hexmap.show_board(message.board)  # on the same sheet: the cursor and scroll stay
        self.show_hex(hexmap.cursor)
        panel = self.orders.panel
        if panel is not None and panel.items:
            self.check_orders(list(panel.items))  # the drafts' plan, over the whole board
        # The hidden panels, left until the supply was on the screen (`show`); one opened
        # meanwhile was built as it opened.
        self.orders.build_later()
        self.panels.fill_later()

    @on(Loaded)
    def show(self, message: Loaded) -> None:
        first = self.data is None
        before = None if self.data is None else self.data.show.board
        data = self.data = message.data
        record = data.show
        # The printed map is static data the services keep (read ahead by the games list).
        sheet = sheet_for(record.ruleset, record.scenario)
        hexmap = self.query_one(HexMap)
        # The cursor moves here (the player's first stack given with a new sheet, then centred
        # there): the panel says the hex it ends on once, below, not on each move (issue 16).
        self._panel_held = True
        try:
            # Where the map opens (the battle being fought, else the player's first stack):
            # given with a new sheet, the map does not look for its own start first
            # (`tui.mapsheet.start_hex`).
            # Later, a battle begun since the last read, or the next one fought, takes it.
            start = (
                start_hex(record.board, record.my_seat)
                if first
                else focus_moved(before, record.board)
            )
            hexmap.show_board(record.board, sheet, cursor=start)
            # The printed cells the map has just indexed, not indexed a second time.
            self.board = BoardIndex(
                record.board, sheet, later=data.board_later, printed=hexmap.printed
            )
            if data.board_later:
                # The quick board: the whole one is read once this paint is done, and the
                # hidden panels are built once it has landed (`board_completed`). Read while
                # the screen was laid out, it took 6.5 ms of CPU from that paint on the
                # store thread (`bench/tui.py` c/a 1.62-1.65 against 1.55-1.58 read after
                # it). Asked with `call_later`, the read queues behind the layout the map
                # just asked for, whose handler paints the screen; `call_after_refresh`
                # waited for the next timed repaint too, some 25 ms more for the supply
                # (`bench/tui_keys.py` game open: 59 ms to the supply against 75).
                self.call_later(self.complete_board)
            if first:
                if start is not None:
                    hexmap.goto(start)  # centred now, as before the sheet was given it
                self.call_after_refresh(release_collector)  # the game is on the screen
                if not data.board_later:
                    self.orders.build_later()  # the orders panel, left out of that paint
        finally:
            self._panel_held = False
        self._paint_status()
        # Hidden (80x24): built and filled once the map and the side panel are on the screen
        # (with the quick board, once the whole one is: `board_completed`).
        self.panels.load(record.checklist or (), data.events, later=not data.board_later)
        self.show_hex(hexmap.cursor)
        owed = record.owed_step
        secret = owed is not None and record.pending[0].kind == "secret"
        ruleset = record.ruleset.partition("/")[0]
        fields = form_fields(ruleset)  # the ruleset's say on its forms' fields
        mine = (
            [side.id for side in record.board.sides if side.seat == record.my_seat]
            if record.board is not None
            else []
        )
        offer = StepOffer(
            owed,
            record.choices,
            own=data.step_orders,
            secret=secret,
            fields=fields,
            steps=record.checklist or (),
            sides=mine,
            waiting=waiting_pieces(record.board, record.my_seat),
            seat=record.my_seat,
        )
        self.offer_step(offer)
        panel = self.orders.panel
        if panel is not None and panel.items and not first:
            self.check_orders(list(panel.items))  # the game moved on: check the drafts again
        if panel is not None and not (record.unsent and self.syncing):
            panel.read_again(bool(record.unsent))  # (once sent: "packet 5 queued" goes)
        if first and data.drafts:  # left unsigned last time (`saves.drafts`): checked anew
            self.orders.restore(list(data.drafts))
            kept = counted(len(data.drafts), "draft order")
            self.status.say(f"{kept} kept from your last visit: o shows them")
        if not self.status.text or self.status.text.startswith("reading"):
            self.status.say(f"{record.name}: packet {record.seq}, {len(data.events)} events")
        if data.news:  # what arrived since the player last looked (`tui.services.news`)
            self._show_news(data.news, data.news_line)
        self.refresh_bindings()

    def _show_news(self, news: Sequence[str], line: str) -> None:
        """What arrived: a notification where the screen has room for it beside the panels;
        at 80x24 a toast would cover the hex panel, so the status line says who sent what, the
        first thing it did and what the game waits for (the log, ``e``, has every event)."""
        width, height = self.app.size
        if width < ROOMY[0] or height < ROOMY[1]:
            self.status.say(line, news=line)
            return
        shown = news[:NEWS_LINES]
        if len(news) > NEWS_LINES:
            more = len(news) - NEWS_LINES + 1
            shown = [*news[: NEWS_LINES - 1], f"{more} more lines: e shows the log"]
        text = "\n".join(safe_text(line, limit=NEWS_WIDTH) for line in shown)
        self.notify(text, title="What arrived", timeout=NEWS_SECONDS, markup=False)

    def after_sync(self, result: SyncResult) -> None:
        panel = self.orders.panel
        if self.game_id in result.changed or (panel is not None and panel.queued):
            self.reload()  # (a packet queued here: sent, or the panel says s sends it)
        if result.replies_owed and self.session.locked:
            ask_passphrase(self, "sign the automatic replies", self.action_sync)

    def home_changed(self, games: frozenset[str]) -> None:
        if self.game_id in games:
            # (the news of what arrived, if any, takes the status line once it is read)
            self.status.say("another hexpost on this home changed the game: read again")
            self.reload()

    # --- the side panel ------------------------------------------------------------------------

    def drafting_for(self, step: str | None, title: str = "") -> None:
        """The drafts go on at ``step``, a later step of the player's than the one loaded:
        the side panel says so under the game's step, and the checklist marks it."""
        line = drafting_line(step, title) if step else ""
        self.panels.mark_drafting(step)
        if line != self._drafting_line:
            self._drafting_line = line
            self._paint_status()

    def _paint_status(self) -> None:
        """The game's status in the side panel (`status_lines`), with a late claim still open
        (`saves.claims`), the notes that need the player (a damaged packet to ask for again,
        a joined key to accept: `games.attention_notes`) and the step the drafts are for."""
        if self.data is None:
            return
        record = self.data.show
        status = status_lines(record)
        if self._drafting_line:
            status.insert(_after_step(status), self._drafting_line)
        if record.claim:
            status.append(safe_text(record.claim))
        status.extend(safe_text(note) for note in record.notes)
        self.query_one("#game-status", Static).update("\n".join(status))

    def cursor_moved(self, h: int) -> None:
        """A watcher on the map's ``cursor``: it runs inside the key's handler, so the panel
        lands in the map's repaint (from `BoardIndex`, in memory). `HexMap.CursorMoved` came
        through two more queues, a frame or two (32-40 ms) after the map (issue 16)."""
        if not self._panel_held:  # else `show` says the hex the cursor ends on
            self.show_hex(h)

    def show_hex(self, h: int) -> None:
        info = self.query_one("#hex-info", HexDetails)
        if self.data is None:
            return
        if not self.board.has_board:
            info.update("this game has no map to show yet")
            return
        info.show("\n".join(hex_lines(self.board, h)))

    def on_checklist_tree_step_selected(self, message: ChecklistTree.StepSelected) -> None:
        """Show the chosen step in full (`StepDetail`: at 80 columns its line is cut), and say
        it on the status line. (By its name, not ``@on``: the checklist's module is imported
        once the panel is built.)"""
        items = (self.data.show.checklist or ()) if self.data else ()
        item = next((i for i in items if i.step == message.step_id), None)
        if item is not None:
            from tui.widgets.checklist import step_words
            from tui.widgets.step_detail import StepDetail

            self.status.say(step_words(item))
            self.app.push_screen(StepDetail(item))

    # --- actions -------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "checklist" and isinstance(self.focused, Input):
            return False  # a priority key: let the c reach the text being typed
        if action == "checklist":
            return self.data is not None and bool(self.data.show.checklist)
        if action in ("accept_key", "decline_key"):
            return self._joined_key() is not None
        if action == "resign":
            return self.can_resign()
        return super().check_action(action, parameters)

    def action_back(self) -> None:
        panel = self.orders.panel
        if panel is not None and panel.building:
            panel.end_move()  # Escape while building a move ends the move, not the game
            return
        self.app.pop_screen()

    def action_review(self) -> None:
        """Step through this game's packets, from the first one not read yet."""
        from tui.screens.review import open_review  # not needed for the first paint

        self.push_read(lambda: open_review(self.session, self.game_id), "opening the review")

    def action_pace(self) -> None:
        """The game's hand-offs: who was waited for, where, and how long (`tui.screens.pace`)."""
        from tui.screens.pace import open_pace  # not needed for the first paint

        self.push_read(lambda: open_pace(self.session, self.game_id), "counting the hand-offs")

    async def action_orders(self) -> None:
        """Closed: show the panel in place of the hex details and focus it. Open but not
        focused: focus it. Focused: give the hex details back and the keys to the map."""
        panel = await self.orders.build()
        details = self.query_one("#hex-scroll")
        if not panel.display:
            details.display = False
            panel.display = True
            panel.focus()
        elif panel.has_focus_within:
            panel.display = False
            details.display = True
            self.query_one(HexMap).focus()
        else:
            panel.focus()

    def action_calculator(self) -> None:
        """The ruleset's calculator (`tui.screens.calculator`), for planning intensities
        while writing orders; a ruleset without one says so on the status line."""
        if self.data is None:
            self.status.say("the game is still being read")
            return
        from tui.screens.calculator import NO_CALCULATOR, calculator_dialog

        dialog = calculator_dialog(self.data.show.ruleset.partition("/")[0])
        if dialog is None:
            self.status.say(NO_CALCULATOR)
            return
        self.app.push_screen(dialog)

    async def action_checklist(self) -> None:
        """Closed: open it at the current step and focus it. Open but not focused: focus it.
        Focused: close it and give the keys back to the map."""
        await self.panels.toggle_checklist()

    def action_goto(self) -> None:
        """g where the map has not the focus: the map takes the keys back and asks for the
        hex, as its own g does."""
        hexmap = self.query_one(HexMap)
        hexmap.focus()
        hexmap.action_goto()

    async def action_move_here(self) -> None:
        """m while the map has the keys: the hex under its cursor is chosen (as Enter does),
        the orders panel is shown and starts the step's stack order there (its placement or
        hex pick where the step has one instead: `MapOrders.action_move`)."""
        panel = await self.orders.build()
        if panel.building:
            return  # (a path is being drawn: the map's Enter adds its hexes)
        hexmap = self.query_one(HexMap)
        await self.hex_chosen(HexMap.HexChosen(hexmap.cursor, hexmap))
        if panel.stack is not None and not (panel.chosen and panel.chosen[1]):
            self.status.say(f"{hexmap.cursor:04d}: none of your pieces here to move")
            return
        if not panel.display:
            await self.action_orders()
        panel.action_move()

    async def on_map_orders_hex_wanted(self) -> None:
        """m in the orders panel with no hex chosen (the panel had the keys, so Enter never
        reached the map): the hex under the map's cursor, as m on the map."""
        await self.action_move_here()

    async def action_panel_key(self, key: str) -> None:
        """One of the orders panel's keys where the panel has not the keys: the panel is
        shown, takes the keys and gets ``key`` again. Nothing when the panel had the keys
        and let the key pass (it then said why, or the step has no use for it)."""
        panel = await self.orders.build()
        if panel.has_focus_within:
            return
        if not panel.display:
            await self.action_orders()
        else:
            panel.focus()
        self.app.simulate_key(key)

    async def action_log(self) -> None:
        await self.panels.toggle_log()


def form_fields(ruleset: str) -> Callable[[str, Mapping[str, str]], Sequence[str] | None]:
    """The ruleset client's `form_fields`, looked up when a form first asks: the clients'
    entry points are not read before the game's first paint (issue 16)."""

    def fields(order: str, values: Mapping[str, str]) -> Sequence[str] | None:
        from tui.rulesets import client_for

        return client_for(ruleset).form_fields(order, values)

    return fields


def _after_step(status: list[str]) -> int:
    """Where the "drafting for" line goes in ``status``: after the game's step and whose move
    it is (the lines `status_lines` begins with), before what needs the player."""
    your = next((i for i, line in enumerate(status) if line.startswith("YOUR MOVE")), None)
    return len(status) if your is None else your + 1
