"""The review: step through a game's packets and see the board as it was after each one.

A play-by-email player comes back to a game after a day and wants to know what happened
since: this screen starts at the first packet they have not read (`first_unread`) and
steps forward and back, showing the map and the checklist as they were after that packet,
the packet's events in plain language (the log widget, with its bookkeeping filter) and a
diff of the ruleset face's board against the packet before (`tui.screens.changes`): pieces
moved, placed, crippled, destroyed, built, hexes captured, a side's figures changed.

Layout for 80x24, as the game screen's (the same widget ids, so the same styles)::

    +--------------------------------------+--------------------------+
    | HexMap (at that packet)              | #25/25 coalition turn    |
    |                                      | T1 Fall Y168, step...    |
    |                                      | changes: moved, ...      |
    +--------------------------------------+--------------------------+
    | EventLog: this packet's events (e), or the ChecklistTree (c)    |
    | status line / footer                                            |

Keys: ``right``/``n`` next packet, ``left``/``p`` previous, ``]``/``[`` next/previous player
turn, ``}``/``{`` next/previous phase, ``home``/``end`` first/last, ``g`` a packet by
number, ``escape`` back. The packet keys take priority over the map's (which keeps ``h``
``j`` ``k`` ``l`` and up/down for its cursor); ``g`` here asks for a packet, not a hex.

Data: `ReviewReader` (`tui.screens.review_data`) reads on the session's store thread; the
screen's workers await it and post `ReviewScreen.Opened`, `ReviewScreen.Indexed` and
`ReviewScreen.Shown`. A screen that opens the review reads its `Opening` first (`open_review`)
and pushes the screen with it, so the review's first paint shows the packet.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Input, Label, Static

from engine.core.text import counted
from tui.screens.base import HexpostScreen, StatusLine
from tui.screens.changes import Change, diff
from tui.screens.hexinfo import SCROLL_WIDTH, clip, status_lines
from tui.screens.review_data import Opening, ReviewIndex, ReviewReader, next_mark, seqs_for
from tui.screens.session import Session, SyncResult
from tui.services.board import sheet_for
from tui.widgets.checklist import ChecklistTree
from tui.widgets.dialog import Dialog
from tui.widgets.eventlog import EventLog
from tui.widgets.footer import KeysFooter
from tui.widgets.hexmap import HexMap
from tui.widgets.textlines import TextLines

if TYPE_CHECKING:
    from collections.abc import Sequence

    from tui.services.show import ChecklistLine, ShowRecord


class ReviewScreen(HexpostScreen):
    """Review game ``game_id`` (hex id) from packet ``start_seq`` (default: first unread)."""

    STYLED_ONCE = True

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back"),
        Binding("right,n", "step(1)", "Next", priority=True, key_display="→/n"),
        Binding("left,p", "step(-1)", "Prev", priority=True, key_display="←/p"),
        Binding("right_square_bracket", "turn(1)", "Turn", key_display="]"),
        Binding("left_square_bracket", "turn(-1)", "Turn back", show=False),
        Binding("right_curly_bracket", "phase(1)", "Phase", show=False),
        Binding("left_curly_bracket", "phase(-1)", "Phase back", show=False),
        Binding("home", "first", "First", priority=True, show=False),
        Binding("end", "last", "Last", priority=True, show=False),
        Binding("g", "goto", "Packet #", priority=True),
        Binding("c", "checklist", "Checklist", priority=True),
        Binding("e", "log", "Events", show=False),
    ]

    class Opened(Message):
        def __init__(self, opening: Opening) -> None:
            super().__init__()
            self.opening = opening

    class Indexed(Message):
        def __init__(self, index: ReviewIndex) -> None:
            super().__init__()
            self.index = index

    class Shown(Message):
        """The records after packet ``seq`` (and after the one before, for the diff)."""

        def __init__(self, seq: int, record: ShowRecord, before: ShowRecord | None):
            super().__init__()
            self.seq, self.record, self.before = seq, record, before

    def __init__(
        self,
        game_id: str,
        start_seq: int | None = None,
        *,
        reader: ReviewReader | None = None,
        opening: Opening | None = None,
    ) -> None:
        """``opening``, read by ``reader`` (`open_review`), is shown before the first paint;
        without it the screen reads its own after that paint."""
        super().__init__()
        self.game_id = game_id
        self.start_seq = start_seq
        self._reader = reader
        self._opening = opening
        self.index: ReviewIndex | None = None
        self.seq: int | None = None
        """The packet shown now (None until the first record arrived)."""
        self.wanted: int | None = None
        """The packet last asked for: shown now, or being read. Steps count from it, so that
        ``n n n`` typed faster than packets are read moves three packets, and a record read
        for a packet asked for before it is not shown."""
        self.changes: list[Change] = []
        self._ahead = 1
        """Which way the player is stepping (+1 forward, -1 back): the record that way is
        read while they look at this one (`ReviewReader.prefetch`)."""
        self._checklist_due: Sequence[ChecklistLine] | None = None
        """The checklist after the packet shown, while the checklist is hidden: it is built
        when shown (a tree of every step, rebuilt at each step, was a third of a step's
        work)."""

    def compose(self) -> ComposeResult:
        with Horizontal(id="game-body"):
            yield HexMap(id="map")
            with Vertical(id="side"):
                yield Static("reading the game...", id="game-status", markup=False)
                yield TextLines(id="changes")
        yield ChecklistTree(id="checklist")
        yield EventLog(id="log")
        yield StatusLine()
        yield KeysFooter(show_command_palette=False)

    def on_mount(self) -> None:
        self.query_one(ChecklistTree).display = False
        self.query_one(HexMap).focus()
        if self._opening is not None:
            # Shown before the first layout, so the first paint is the packet: the map
            # centres its cursor when it gets its size (`HexMap`).
            opening, self._opening = self._opening, None
            self.opened(self.Opened(opening))
        else:
            self.status.busy("reading the packets...")
            self.load_opening()

    @property
    def reader(self) -> ReviewReader:
        if self._reader is None:
            self._reader = ReviewReader(self.session)
        return self._reader

    # --- loading -----------------------------------------------------------------------------

    def reload(self) -> None:
        if self.seq is None:
            self.load_opening()  # (not shown yet: read it all again)
        else:
            self.load_index()

    @work(exclusive=True, group="index")
    async def load_opening(self) -> None:
        await self.fetch(self.reader.opening(self.game_id, self.start_seq), self.Opened)

    @work(exclusive=True, group="index")
    async def load_index(self) -> None:
        await self.fetch(self.reader.index(self.game_id), self.Indexed)

    @on(Opened)
    def opened(self, message: Opened) -> None:
        """The first packet and its records, read with the index."""
        opening = message.opening
        self.index = opening.index
        self.wanted = opening.seq
        self._show(opening.seq, opening.records[opening.seq], opening.records.get(opening.seq - 1))

    @on(Indexed)
    def indexed(self, message: Indexed) -> None:
        """The chain read again (after a sync): the keys reach its new packets."""
        self.index = message.index
        self.refresh_bindings()

    def show_packet(self, seq: int) -> None:
        """Go to packet ``seq`` (clamped to the chain): shown at once if its records are
        kept (the key's own frame shows it), else read in a worker, then shown."""
        if self.index is None:
            return
        seq = max(0, min(seq, self.index.last))
        self.wanted = seq
        kept = self.reader.cached(self.game_id, seqs_for(seq))
        if kept is not None:
            self.workers.cancel_group(self, "packet")  # (a slower read must not land later)
            self._show(seq, kept[seq], kept.get(seq - 1))
            return
        self.status.busy(f"reading packet {seq}...")
        self.load_packet(seq)

    @work(exclusive=True, group="packet")
    async def load_packet(self, seq: int) -> None:
        await self.fetch(
            self.reader.records(self.game_id, seqs_for(seq)),
            lambda records: self.Shown(seq, records[seq], records.get(seq - 1)),
        )

    @on(Shown)
    def shown(self, message: Shown) -> None:
        if message.seq != self.wanted:
            return  # read for a packet asked for before the one wanted now
        self._show(message.seq, message.record, message.before)

    def _show(self, seq: int, record: ShowRecord, before_record: ShowRecord | None) -> None:
        """Show the game after packet ``seq`` and what changed since the one before; then
        read the next record the player is stepping towards."""
        assert self.index is not None
        first = self.seq is None
        self.seq = seq
        hexmap = self.query_one(HexMap)
        board = record.board
        hexmap.show_board(board, sheet_for(record.ruleset, record.scenario))
        before = before_record.board if before_record is not None else None
        self.changes = diff(before, board) if seq > 0 else []
        self.query_one("#game-status", Static).update("\n".join(self.head_lines(record)))
        self.query_one("#changes", TextLines).show(change_lines(self.changes))
        log = self.query_one(EventLog)
        log.show_events(self.index.events_of(seq), from_top=True)
        tree = self.query_one(ChecklistTree)
        if tree.display:
            tree.show_items(record.checklist or ())
        else:
            self._checklist_due = record.checklist or ()
        target = next((h for c in self.changes for h in c.hexes if hexmap.on_map(h)), None)
        if target is not None:
            hexmap.goto(target)
        elif first and hexmap.on_map(hexmap.cursor):  # a game without a map has no cursor
            hexmap.goto(hexmap.cursor)
        changes = counted(len(self.changes), "change") if self.changes else "no changes"
        self.status.say(f"packet {seq} of {self.index.last}: {changes}")
        self.refresh_bindings()
        # Read ahead once this is painted: a build on the store thread shares the
        # interpreter with the paint, and slowed the review's first one to twice its time.
        self.call_after_refresh(self._read_ahead, seq)

    def _read_ahead(self, seq: int) -> None:
        """Start reading the records of the packet after ``seq`` the way the player steps
        (back from the last one), unless they stepped on meanwhile."""
        if self.index is None or seq != self.seq:
            return
        ahead = seq + self._ahead
        if not 0 <= ahead <= self.index.last:  # at an end: the only way is back
            ahead = seq - self._ahead
        if 0 <= ahead <= self.index.last:
            for wanted in seqs_for(ahead):
                self.reader.prefetch(self.game_id, wanted)

    def head_lines(self, record: ShowRecord) -> list[str]:
        """Which packet this is (number, author, kind), then the game's status after it."""
        assert self.index is not None and self.seq is not None
        mark = next((m for m in self.index.packets if m.seq == self.seq), None)
        who = f" {mark.seat} {mark.kind}" if mark else ""
        # The status as the game screen words and wraps it (the step's title on a second
        # line if need be: it is what the player acts on); only the packet line is clipped.
        return [clip(f"#{self.seq}/{self.index.last}{who}"), *status_lines(record)[1:]]

    def after_sync(self, result: SyncResult) -> None:
        if self.game_id in result.changed:
            self.reload()  # longer chain: the keys reach the new packets, the view stays put

    def home_changed(self, games: frozenset[str]) -> None:
        if self.game_id in games:  # (as after a sync of its own)
            self.reload()

    # --- actions -------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("step", "turn", "phase", "first", "last", "goto"):
            return self.index is not None and self.seq is not None
        return super().check_action(action, parameters)

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_step(self, delta: int) -> None:
        if self.wanted is not None:
            self._ahead = 1 if delta > 0 else -1
            self._go(self.wanted + delta)

    def action_turn(self, direction: int) -> None:
        self._jump(phase=False, forward=direction > 0)

    def action_phase(self, direction: int) -> None:
        self._jump(phase=True, forward=direction > 0)

    def _jump(self, *, phase: bool, forward: bool) -> None:
        if self.index is not None and self.wanted is not None:
            self._ahead = 1 if forward else -1
            self._go(next_mark(self.index.packets, self.wanted, phase=phase, forward=forward))

    def action_first(self) -> None:
        self._ahead = 1
        self._go(0)

    def action_last(self) -> None:
        if self.index is not None:
            self._ahead = -1
            self._go(self.index.last)

    def _go(self, seq: int) -> None:
        if self.index is None or self.wanted is None:
            return
        seq = max(0, min(seq, self.index.last))
        if seq == self.wanted:
            self.status.say(f"packet {seq} of {self.index.last}: no further that way")
            return
        self.show_packet(seq)

    def action_goto(self) -> None:
        if self.index is None:
            return

        def chosen(seq: int | None) -> None:
            if seq is not None:
                self._go(seq)

        self.app.push_screen(PacketDialog(self.index.last, self.wanted), chosen)

    def action_checklist(self) -> None:
        """One panel under the map at a time (24 lines leave no room for two)."""
        tree, log = self.query_one(ChecklistTree), self.query_one(EventLog)
        tree.display = not tree.display
        log.display = not tree.display
        if tree.display:
            if self._checklist_due is not None:
                tree.show_items(self._checklist_due)
                self._checklist_due = None
            tree.focus()
            tree.action_reveal_current()
        else:
            self.query_one(HexMap).focus()

    def action_log(self) -> None:
        tree, log = self.query_one(ChecklistTree), self.query_one(EventLog)
        log.display = not log.display
        if log.display and tree.display:
            tree.display = False
        self.query_one(HexMap).focus()


async def open_review(session: Session, game_id: str, start_seq: int | None = None) -> ReviewScreen:
    """A review of ``game_id`` with what it shows first already read (`ReviewReader.opening`):
    the caller pushes it from a worker, and its first paint is the packet, not an empty map
    drawn again a read later. Raises `HexpostError` as the read does (a game gone)."""
    reader = ReviewReader(session)
    opening = await reader.opening(game_id, start_seq)
    return ReviewScreen(game_id, start_seq, reader=reader, opening=opening)


def change_lines(changes: list[Change]) -> list[str]:
    """The diff as the side panel shows it: a heading, then each change, wrapped under itself
    so where one ends and the next begins stays plain in a narrow panel."""
    if not changes:
        return ["no change on the board"]
    lines = [f"changes ({len(changes)}):"]
    for change in changes:
        lines.extend(textwrap.wrap(change.text, SCROLL_WIDTH, subsequent_indent="   "))
    return lines


class PacketDialog(Dialog[int | None]):
    """Ask for a packet number from 0 to ``last``; dismisses with it, or None (Escape)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    DEFAULT_CSS = """
    PacketDialog {
        & > Vertical { width: 40; }
        & #packet-error { color: $text-error; height: auto; }
    }
    """

    def __init__(self, last: int, current: int | None) -> None:
        super().__init__()
        self.last, self.current = last, current

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(f"Go to packet: 0 to {self.last}")
            placeholder = str(self.current) if self.current is not None else "0"
            yield Input(placeholder=placeholder, restrict=r"\d*", id="packet-seq")
            yield Static("", id="packet-error", markup=False)

    @on(Input.Submitted)
    def submitted(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        if not text.isdigit() or int(text) > self.last:
            self.query_one("#packet-error", Static).update(f"give a number from 0 to {self.last}")
            event.input.select_all()  # (what comes next replaces it)
            return
        self.dismiss(int(text))

    def action_cancel(self) -> None:
        self.dismiss(None)
