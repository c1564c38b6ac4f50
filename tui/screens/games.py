"""The games list: every game of the home, what it waits for, and a way in.

The rows are `render.game_summary` records (``hexpost games --json``), read by a worker
through the session and handed to the table in a `GamesScreen.Loaded` message. The list is
read again whenever the screen comes back to the top (a game just looked at has no unread
packets any more) and after a sync that changed something.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import DataTable, Footer, Header, Static

from engine.core.errors import HexpostError
from tui.safe_text import plain, safe_text
from tui.screens.base import HexpostScreen, StatusLine
from tui.screens.session import Overview, SyncResult
from tui.when import age, turn_text

COLUMNS = ("GAME", "TURN", "STEP", "WAITING FOR", "NEW", "NOTE", "SCENARIO")
"""Most telling first: in 80 columns the scenario is the column that scrolls off."""


class GamesScreen(HexpostScreen):
    """The first screen: a `DataTable` of games; Enter opens one, ``s`` syncs."""

    BINDINGS: ClassVar[list[BindingType]] = [
        # Priority, so the footer shows it over the table's own (hidden) enter binding.
        Binding("enter", "open", "Open", priority=True),
        Binding("v", "review", "Review", tooltip="Step through the game's packets"),
        Binding("r", "reload", "Refresh"),
        Binding("comma", "settings", "Settings", key_display=",", tooltip="Identity and transport"),
        Binding("q", "app.quit", "Quit"),
    ]

    class Loaded(Message):
        """The worker read the home; ``overview`` is what the screen shows."""

        def __init__(self, overview: Overview) -> None:
            super().__init__()
            self.overview = overview

    def __init__(
        self,
        open_game: str | None = None,
        *,
        review: bool = False,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        super().__init__(id="games-screen")
        self._clock = clock
        """What time it is when a row says how long its game has waited (None: the wall clock)."""
        self._open_game = open_game
        """A game named on the command line (``hexpost play GAME``): opened once it is found."""
        self._review = review
        """Open that game's review instead (``hexpost review GAME``)."""
        self.overview: Overview | None = None

    def compose(self) -> ComposeResult:
        yield Header(icon="#")
        yield DataTable(id="games", cursor_type="row", zebra_stripes=True)
        yield Static("", id="empty", markup=False)
        yield StatusLine()
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.title = "hexpost"
        self.sub_title = "games"
        self.query_one(DataTable).add_columns(*COLUMNS)
        self.query_one("#empty").display = False
        self.status.busy("reading the games...")
        self.reload()

    def on_screen_resume(self) -> None:
        if self.overview is not None:
            self.reload()

    # --- loading -----------------------------------------------------------------------------

    def reload(self) -> None:
        self.load()

    @work(exclusive=True, group="load")
    async def load(self) -> None:
        overview = await self.session.overview()
        self.post_message(self.Loaded(overview))
        if self._open_game is not None:
            name, self._open_game = self._open_game, None
            try:
                game_id = await self.session.find(name)
            except HexpostError as exc:
                self.post_message(self.Failed(str(exc)))
            else:
                (self.review if self._review else self.open)(game_id)

    @on(Loaded)
    def show(self, message: Loaded) -> None:
        overview = self.overview = message.overview
        who = overview.identity or "no identity"
        self.sub_title = f"{who} · {overview.transport or 'no transport'}"
        table = self.query_one(DataTable)
        empty = self.query_one("#empty", Static)
        keep = self._cursor_key()
        table.clear()
        now = self._clock() if self._clock is not None else None
        for row in overview.rows:
            # As `Text`, not strings: a cell string is Rich markup, and a game's name is the
            # inviter's to choose ("[link=...]", or "[/b]", which would not even render).
            table.add_row(*map(plain, game_cells(row, now)), key=row["game"])
        table.display = bool(overview.rows)
        empty.display = not overview.rows
        if not overview.rows:
            empty.update(empty_help(overview))
        elif keep is not None and keep in {row["game"] for row in overview.rows}:
            table.move_cursor(row=table.get_row_index(keep))
        if self.status.text.startswith("reading"):
            count = len(overview.rows)
            self.status.say(f"{count} game{'s' if count != 1 else ''}")
        self.refresh_bindings()

    def after_sync(self, result: SyncResult) -> None:
        self.reload()  # an invitation adds a row even when no known game changed
        if result.replies_owed and self.session.locked:
            # A roll or a reveal waits for our key: with the passphrase, sync once more.
            from tui.screens.identity import ask_passphrase

            ask_passphrase(self, "sign the automatic replies", self.action_sync)

    def action_settings(self) -> None:
        from tui.screens.settings import SettingsScreen

        self.app.push_screen(SettingsScreen())

    # --- actions -------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("open", "review"):
            return self.overview is not None and bool(self.overview.rows)
        return super().check_action(action, parameters)

    def action_open(self) -> None:
        key = self._cursor_key()
        if key is not None:
            self.open(key)

    @on(DataTable.RowSelected)
    def row_chosen(self, message: DataTable.RowSelected) -> None:
        if message.row_key.value is not None:
            self.open(message.row_key.value)

    def open(self, game_id: str) -> None:
        from tui.screens.game import GameScreen

        self.app.push_screen(GameScreen(game_id))

    def action_review(self) -> None:
        key = self._cursor_key()
        if key is not None:
            self.review(key)

    def review(self, game_id: str) -> None:
        from tui.screens.review import ReviewScreen

        self.app.push_screen(ReviewScreen(game_id))

    def _cursor_key(self) -> str | None:
        table = self.query_one(DataTable)
        if table.row_count == 0:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return key


# --- what the cells say --------------------------------------------------------------------------


def game_cells(row: dict[str, Any], now: datetime | None = None) -> tuple[str, ...]:
    """One `game_summary` record as the table's cells, in `COLUMNS` order, each one line
    of plain text (the name, the scenario and a frozen game's reason come from the other
    player or the mail: their control characters are shown escaped)."""
    waiting = ",".join(row["waiting_for"]) or "-"
    if row["waiting_for"] == [row["my_seat"]]:
        waiting = "YOU"
    if row["waiting_for"]:
        waiting = f"{waiting} {age(row['since'], now)}".rstrip()
    if row["frozen"]:
        note = f"FROZEN: {safe_text(row['frozen'])}"
    elif row["status"] == "invited":
        note = "invitation"
    elif row.get("notes"):  # a damaged packet to ask for, a joined key to accept
        note = safe_text(row["notes"][0])
    elif row.get("claim"):  # a late claim still open (`saves.claims`): who owes what since when
        note = safe_text(row["claim"])
    elif row.get("unsent"):
        note = f"{row['unsent']} to send"
    else:
        note = ""
    return (
        safe_text(row["name"], limit=16),
        turn_text(row["turn"]),
        row["step"] or "-",
        waiting,
        str(row["unread"]) if row["unread"] else "",
        note,
        safe_text(row["scenario"]),
    )


def empty_help(overview: Overview) -> str:
    """What to do in a home with no game yet, skipping the steps already done."""
    lines = ["No games in this home yet.", ""]
    if overview.identity is None:
        lines.append("Make your identity: press , (settings), or run")
        lines.append("  hexpost identity create --name NAME --address YOU@EXAMPLE.ORG")
    if overview.transport is None:
        lines.append("Choose how packets travel (, again), e.g. a shared folder:")
        lines.append("  hexpost transport folder PATH")
    lines.append("Start a game and invite an opponent:")
    lines.append("  hexpost new --scenario tutorial --seat coalition --opponent ADDRESS")
    lines.append("or press s to sync and pick up an invitation.")
    lines.append("")
    lines.append("To watch two local players set up and play, with no account:")
    lines.append("  hexpost demo")
    return "\n".join(lines)
