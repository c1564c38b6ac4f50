"""The band under the game screen's map: the checklist (``c``) and the event log (``e``).

In a roomy terminal both are shown from the start and are composed with the screen. Below
`ROOMY` (80x24, the SSH case) both start hidden, so the game screen's first paint neither
builds them nor imports their widgets (the log's `RichLog` brings Rich's pretty-printer and
``attrs``): `GamePanels.build` mounts them, hidden, after the first paint with the game loaded,
or at once when the player opens one before that (issue 16). Either way they land in the same
place (above the status line) with the same styles, so what the player sees does not change.

The loaded game is handed over with `GamePanels.load`; the panels are filled when they exist
and are shown, or after the next repaint while they are hidden. The log appends only what is
new when the old events are still a prefix (the usual case after a sync).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widget import Widget

from tui.screens.base import StatusLine
from tui.screens.session import EventRow
from tui.widgets.hexmap import HexMap

if TYPE_CHECKING:
    from tui.services.show import ChecklistLine
    from tui.widgets.checklist import ChecklistTree
    from tui.widgets.eventlog import EventLog

ROOMY = (120, 40)
"""A terminal at least this wide and tall shows the checklist and the log from the start;
below this height only one of them at a time."""


def roomy(size: tuple[int, int]) -> bool:
    """Whether a terminal of ``size`` (width, height) shows both panels from the start."""
    return size[0] >= ROOMY[0] and size[1] >= ROOMY[1]


def _widgets() -> tuple[ChecklistTree, EventLog]:
    """The two panels, new; their modules are imported here, on first use."""
    from tui.widgets.checklist import ChecklistTree
    from tui.widgets.eventlog import EventLog

    return ChecklistTree(id="checklist"), EventLog(id="log")


class GamePanels:
    """The checklist and the log of one game screen, built with it or later (see the module)."""

    def __init__(self, screen: Screen[None]) -> None:
        self._screen = screen
        self._tree: ChecklistTree | None = None
        self._log: EventLog | None = None
        self._items: Sequence[ChecklistLine] = ()
        self._rows: list[EventRow] = []
        self._stale = False
        """Whether the panels still show an older load than the last `load`."""
        self._events: list[EventRow] = []
        """The events the log shows."""
        self._drafting: str | None = None
        """The step the player's unsigned drafts run on to (`mark_drafting`)."""

    def compose(self, size: tuple[int, int]) -> ComposeResult:
        """Both panels, shown, in a roomy terminal; nothing below that (`build` adds them)."""
        if roomy(size):
            self._tree, self._log = _widgets()
            yield self._tree
            yield self._log

    @property
    def shown(self) -> bool:
        """Whether either panel exists and is shown."""
        return any(panel is not None and panel.display for panel in (self._tree, self._log))

    async def build(self) -> tuple[ChecklistTree, EventLog]:
        """The two panels, mounted hidden above the status line if they were not composed."""
        if self._tree is None or self._log is None:
            tree, log = _widgets()
            tree.display = False
            log.display = False
            self._tree, self._log = tree, log
            await self._screen.mount(tree, log, before=self._screen.query_one(StatusLine))
        return self._tree, self._log

    def load(
        self, items: Sequence[ChecklistLine], rows: list[EventRow], *, later: bool = True
    ) -> None:
        """A game was (re)loaded: fill the shown panels now, hidden ones after the repaint
        (built then if need be), or when told (`fill_later`) if not ``later``; a panel
        opened before that is built and filled as it opens."""
        self._items, self._rows, self._stale = items, rows, True
        if self.shown:
            self.fill()
        elif later:
            self.fill_later()

    def mark_drafting(self, step_id: str | None) -> None:
        """The checklist marks ``step_id``, where the orders panel now offers the drafts'
        next step (None: no step); a checklist built later marks it as it is filled."""
        self._drafting = step_id
        if self._tree is not None and not self._stale:
            self._tree.mark_drafting(step_id)

    def fill_later(self) -> None:
        """Build and fill the hidden panels after the next repaint."""
        self._screen.call_after_refresh(self._fill_later)

    async def _fill_later(self) -> None:
        if not self._screen.is_attached:
            return  # the screen was closed (the app quit, escape) before its repaint
        await self.build()
        self.fill()

    def fill(self) -> None:
        """Hand the panels the last load if they lack it."""
        if not self._stale or self._tree is None or self._log is None:
            return
        self._stale = False
        self._tree.mark_drafting(self._drafting)
        self._tree.show_items(self._items)
        rows, log, known = self._rows, self._log, len(self._events)
        if known and rows[:known] == self._events:
            log.add_events(rows[known:])
        else:
            log.show_events(rows)
            log.scroll_end(animate=False)
        self._events = rows

    async def toggle_checklist(self) -> None:
        """Closed: open it at the current step and focus it. Open but not focused: focus it.
        Focused: close it and give the keys back to the map."""
        tree, log = await self.build()
        self.fill()
        if not tree.display:
            self._make_room(log)
            tree.display = True
            tree.focus()
            tree.action_reveal_current()
        elif tree.has_focus:
            self._hide(tree)
        else:
            tree.focus()

    async def toggle_log(self) -> None:
        """Show or hide the log (not focused: the map keeps the keys)."""
        tree, log = await self.build()
        self.fill()
        if log.display:
            self._hide(log)
        else:
            self._make_room(tree)
            log.display = True

    def _make_room(self, other: Widget) -> None:
        """In a short terminal the band under the map holds one panel at a time: with both,
        80x24 would leave the map six lines."""
        if self._screen.size.height < ROOMY[1]:
            self._hide(other)

    def _hide(self, panel: Widget) -> None:
        if panel.has_focus:
            self._screen.query_one(HexMap).focus()
        panel.display = False
