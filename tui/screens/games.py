"""The games list: every game of the home, what it waits for, and a way in.

The rows are `tui.services.games.GameSummary` records (``hexpost games --json``), read by a worker
through the session and handed to the table in a `GamesScreen.Loaded` message. The list is
read again whenever the screen comes back to the top (a game just looked at has no unread
packets any more) and after a sync that changed something.

A game named on the command line (``hexpost play GAME``) opens first: the screen stays empty
(no table, no header: neither is composed nor imported) while the game is found and read,
and the list is built when the player comes back to it, or when the name matched no game
(issue 16).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Static

from engine.core.errors import HexpostError
from engine.core.text import counted
from tui.safe_text import plain, safe_text
from tui.screens.base import HexpostScreen, StatusLine
from tui.screens.session import GameData, Overview, Session, SyncResult
from tui.startup import release_collector
from tui.when import age, turn_text

if TYPE_CHECKING:
    from textual.widgets import DataTable

    from tui.services.games import GameSummary
    from tui.services.start import Invitation

COLUMNS = ("GAME", "TURN", "STEP", "WAITING FOR", "NEW", "NOTE", "SCENARIO")
"""Most telling first: in 80 columns the scenario is the column that scrolls off."""


class GamesScreen(HexpostScreen):
    """The first screen: a `DataTable` of games; Enter opens one, ``s`` syncs."""

    BINDINGS: ClassVar[list[BindingType]] = [
        # Enter ("Open") is the table's (`tui.widgets.games_table`): read in the order typed.
        Binding("v", "review", "Review", tooltip="Step through the game's packets"),
        Binding("w", "pace", "Pace", show=False, tooltip="Where the game's time went: hand-offs"),
        Binding("n", "new_game", "New game", tooltip="Create a game and invite an opponent"),
        # Active on an invitation's row only; out of the footer, which it would push past 80
        # columns there (the join dialog and the help name it).
        Binding(
            "d", "decline", "Decline", show=False, tooltip="Refuse the invitation: the game ends"
        ),
        # Filing, out of the footer (? and the palette name them).
        Binding("a", "archive", "Archive", show=False, tooltip="Archive the game, or unarchive"),
        Binding("A", "every", "All games", show=False, tooltip="List the archived games too"),
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
        self._overview_deferred = False
        """The list was left unread to open the named game first: read it on coming back."""
        self._bare = open_game is not None
        """No widgets yet: a named game opens first, and the list is composed when it is
        first shown (on coming back, or when the name matched no game)."""
        self.every = False
        """List the archived games that need nothing from the player too (``A``)."""

    def compose(self) -> ComposeResult:
        if self._bare:
            return  # a named game opens first: the list is built when it is shown (`_build`)
        # Not imported while a named game opens.
        from textual.widgets import Header

        from tui.widgets.footer import KeysFooter
        from tui.widgets.games_table import GamesTable

        yield Header(icon="#")
        yield Static("", id="home-note", markup=False)
        yield GamesTable(id="games", cursor_type="row", zebra_stripes=True)
        yield Static("", id="empty", markup=False)
        yield StatusLine()
        yield KeysFooter()

    def on_mount(self) -> None:
        if self._bare:
            self.load()  # finds the named game and opens it over this still empty screen
            return
        self._prepare()
        self.reload()

    def _prepare(self) -> None:
        """Title, columns and the busy status line of a list not read yet."""
        self.title = "hexpost"
        self.sub_title = "games"
        self._table().add_columns(*COLUMNS)
        self.query_one("#empty").display = False
        self.query_one("#home-note").display = False
        self.status.busy("reading the games...")

    async def _build(self) -> None:
        """Compose and prepare the list's widgets, left out while a game named on the command
        line opened (its first paint waited for neither the table nor its imports; issue 16)."""
        self._bare = False
        await self.recompose()
        self._prepare()

    async def on_screen_resume(self) -> None:
        if self._bare and self._overview_deferred:
            await self._build()
        if self.overview is not None or self._overview_deferred:
            self._overview_deferred = False
            self.reload()

    @on(HexpostScreen.Failed)
    async def build_for_failure(self) -> None:
        """The named game was not found: the list is built first, so that the base class's
        handler (run after this one) says why on its status line; the worker goes on reading
        the list."""
        if self._bare:
            await self._build()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self._bare and action in ("sync", "reload", "new_game"):
            return False  # nothing to show their outcome on before the list is built
        if action in ("open", "review", "archive"):
            return not self._bare and self._cursor_key() is not None
        if action == "decline":
            key = None if self._bare else self._cursor_key()
            return key is not None and self._is_invitation(key)
        return super().check_action(action, parameters)

    # --- loading -----------------------------------------------------------------------------

    def reload(self) -> None:
        self.load()

    @work(exclusive=True, group="load")
    async def load(self) -> None:
        if self._open_game is not None:
            # The game named on the command line first: the list (every game's state) is
            # read when the player comes back to it, not before the game's first paint (the
            # store thread would read it first; issue 16).
            # The game is read before its screen is pushed, so that screen's first paint is
            # the game (not an empty map that is drawn again once the game is read).
            name, self._open_game = self._open_game, None
            try:
                game_id = await self.session.find(name)
                # The quick board: the game screen reads the whole one after its first paint.
                data = None if self._review else await self.session.game(game_id, quick=True)
            except HexpostError as exc:
                self._failed_to_load(exc)
            else:
                self._overview_deferred = True
                if self._review:
                    self.review(game_id)
                else:
                    self.open(game_id, data)
                return
        try:
            overview = await self.session.overview()
        except HexpostError as exc:
            self._failed_to_load(exc)
            return
        self.post_message(self.Loaded(overview))

    def _failed_to_load(self, exc: HexpostError) -> None:
        """Say why the home could not be read: in the status line, or, when its database
        itself cannot be used, by ending the app with the reason (`HexpostApp.stop`)."""
        from saves.store import StoreError  # (loaded already: the session opened it)

        stop = getattr(self.app, "stop", None)
        if isinstance(exc, StoreError) and stop is not None:
            stop(str(exc))
        else:
            self.post_message(self.Failed(str(exc)))

    @on(Loaded)
    def show(self, message: Loaded) -> None:
        overview = self.overview = message.overview
        who = overview.identity or "no identity"
        self.sub_title = f"{who} · {overview.transport or 'no transport'}"
        table = self._table()
        empty = self.query_one("#empty", Static)
        keep = self._cursor_key()
        now = self._clock() if self._clock is not None else None
        # As `Text`, not strings: a cell string is Rich markup, and a game's name is the
        # inviter's to choose ("[link=...]", or "[/b]", which would not even render).
        from tui.services.games import hidden_line, shown

        listed, hidden = shown(list(overview.games), every=self.every)
        rows = [[plain(cell) for cell in game_cells(game, now)] for game in listed]
        # Each column as wide as its widest cell, set here rather than measured by the table
        # when it is next idle: a frame drawn before that measurement stayed in the table's
        # line cache, cells cut to their headers' width (seen after Escape at 120x40).
        table.clear(columns=True)
        for i, label in enumerate(COLUMNS):
            table.add_column(label, width=max([len(label)] + [row[i].cell_len for row in rows]))
        for game, row in zip(listed, rows, strict=True):
            table.add_row(*row, key=game.game)
        table.display = bool(listed)
        empty.display = not listed
        notes = [*overview.notes, *([hidden_line(hidden, "A")] if hidden else [])]
        home_note = self.query_one("#home-note", Static)
        home_note.update(safe_text("\n".join(notes), multiline=True))
        home_note.display = bool(notes)
        if not overview.games:
            empty.update(empty_help(overview))
        elif not listed:
            empty.update("every game is archived and needs nothing from you")
        elif keep is not None and keep in {game.game for game in listed}:
            table.move_cursor(row=table.get_row_index(keep))
        if self.status.text.startswith("reading"):
            self.status.say(counted(len(listed), "game"))
        self.refresh_bindings()
        self.call_after_refresh(release_collector)  # the list is on the screen

    def after_sync(self, result: SyncResult) -> None:
        self.reload()  # an invitation adds a row even when no known game changed
        if result.replies_owed and self.session.locked:
            # A roll or a reveal waits for our key: with the passphrase, sync once more.
            from tui.screens.identity import ask_passphrase

            ask_passphrase(self, "sign the automatic replies", self.action_sync)

    def home_changed(self, games: frozenset[str]) -> None:
        if games and not self._bare:  # (a bare list is read when the player comes back)
            self.reload()

    def action_settings(self) -> None:
        from tui.screens.settings import SettingsScreen

        self.app.push_screen(SettingsScreen())

    # --- actions -------------------------------------------------------------------------------

    def action_open(self) -> None:
        key = self._cursor_key()
        if key is not None:
            self.open(key)

    def on_data_table_row_selected(self, message: DataTable.RowSelected) -> None:
        """Enter or a click on a row opens its game (by the handler's name, not ``@on``: the
        table's module is imported with the table)."""
        if message.row_key.value is not None:
            self.open(message.row_key.value)

    def _table(self) -> DataTable[Any]:
        from textual.widgets import DataTable

        return self.query_one(DataTable)

    def open(self, game_id: str, data: GameData | None = None) -> None:
        """Push the game's screen with ``data`` (already read), or read the game first (its
        quick board, as `load` reads a game named on the command line) and push it then: its
        first paint is the game, not an empty map drawn again a read later."""
        from tui.screens.game import GameScreen

        if self._is_invitation(game_id):
            self.ask_join(game_id)
            return
        if data is not None:
            self.app.push_screen(GameScreen(game_id, data))
            return

        async def read() -> GameScreen:
            return GameScreen(game_id, await self.session.game(game_id, quick=True))

        self.push_read(read, "opening the game")

    def action_review(self) -> None:
        key = self._cursor_key()
        if key is not None:
            self.review(key)

    def review(self, game_id: str) -> None:
        from tui.screens.review import open_review

        self.push_read(lambda: open_review(self.session, game_id), "opening the review")

    def action_pace(self) -> None:
        """The highlighted game's hand-offs, as ``w`` on its screen shows them."""
        from tui.screens.pace import open_pace

        key = self._cursor_key()
        if key is not None:
            self.push_read(lambda: open_pace(self.session, key), "counting the hand-offs")

    # --- starting and joining games --------------------------------------------------------

    def action_new_game(self) -> None:
        """The new-game form (`tui.screens.new_game`); back here, the list shows the game."""
        from tui.screens.new_game import open_new_game

        self.push_read(lambda: open_new_game(self.session), "reading the scenarios")

    def _is_invitation(self, game_id: str) -> bool:
        games = self.overview.games if self.overview is not None else ()
        return any(game.game == game_id and game.status == "invited" for game in games)

    def ask_join(self, game_id: str) -> None:
        """Show what the invitation offers and who sent it, then join if the player says
        yes: anyone who read the invitation could answer it, and the inviter compares this
        home's fingerprint before accepting."""
        self.ask_answer(game_id, declines=False)

    def on_data_table_row_highlighted(self) -> None:
        self.refresh_bindings()  # ``d`` is active on an invitation's row only

    def action_decline(self) -> None:
        """Show the invitation, then refuse it if the player says yes: a join that declines,
        so the creator hears no with the next sync instead of waiting for ever."""
        key = self._cursor_key()
        if key is not None and self._is_invitation(key):
            self.ask_answer(key, declines=True)

    @work(exclusive=True, group="join")
    async def ask_answer(self, game_id: str, *, declines: bool) -> None:
        """The invitation's dialog, to join it or (``declines``) to decline it."""
        try:
            offer = await self.session.invitation(game_id)
        except HexpostError as exc:
            self.post_message(self.Failed(str(exc)))
            return
        from tui.widgets.confirm import ConfirmDialog

        words = DECLINE_WORDS if declines else JOIN_WORDS
        question = "Decline this invitation?" if declines else "Join this game?"

        def answered(yes: bool | None) -> None:
            if yes:
                self.status.busy("declining..." if declines else "joining...")
                self.join(game_id, declines=declines)

        dialog = ConfirmDialog(question, [*invitation_lines(offer), *words])
        self.app.push_screen(dialog, answered)

    @work(exclusive=True, group="join")
    async def join(self, game_id: str, *, declines: bool = False) -> None:
        result = await self.session.join(game_id, declines=declines)
        verb = "declined" if declines else "joined"
        if self.asked_passphrase(
            result,
            "sign the join packet",
            lambda: self.join(game_id, declines=declines),
            f"not {verb}: no passphrase given",
        ):
            return
        self.status.say(result.text)
        self.reload()
        if result.sending:
            self.send_signed()

    def action_every(self) -> None:
        """List the archived games too, or leave out again those that need nothing."""
        self.every = not self.every
        if self.overview is not None:
            self.post_message(self.Loaded(self.overview))
        self.status.say("every game listed" if self.every else "archived games left out")

    def action_archive(self) -> None:
        """Archive the highlighted game, or bring an archived one back (`games.archive`)."""
        key = self._cursor_key()
        games = self.overview.games if self.overview is not None else ()
        game = next((game for game in games if game.game == key), None)
        if game is not None:
            self.file_game(game.game, undo=bool(game.archived))

    @work(exclusive=True, group="archive")
    async def file_game(self, game_id: str, *, undo: bool) -> None:
        text = await self.session.call(_file_game, self.session, game_id, undo)
        self.status.say(safe_text(text))
        self.reload()

    def _cursor_key(self) -> str | None:
        table = self._table()
        if table.row_count == 0:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return key


# --- what the cells say --------------------------------------------------------------------------


def game_cells(game: GameSummary, now: datetime | None = None) -> tuple[str, ...]:
    """One game's summary as the table's cells, in `COLUMNS` order, each one line of plain
    text (the name, the scenario and a frozen game's reason come from the other player or
    the mail: their control characters are shown escaped)."""
    waiting = ",".join(game.waiting_for) or "-"
    mine = game.waits is not None and game.waits.mine  # (`saves.seat_key`: a copy may not play)
    if game.waiting_for == (game.my_seat,) and mine:
        waiting = "YOU"
    elif game.waits is not None:  # the player's name, as the game binds it
        waiting = safe_text(game.waits.who, limit=12)
    if game.waiting_for:
        waiting = f"{waiting} {age(game.since, now)}".rstrip()
    if game.frozen:
        note = f"FROZEN: {safe_text(game.frozen)}"
    elif game.status == "invited":
        note = "invitation"
    elif game.notes:  # a damaged packet to ask for, a joined key to accept
        note = safe_text(game.notes[0])
    elif game.claim:  # a late claim still open (`saves.claims`): who owes what since when
        note = safe_text(game.claim)
    elif game.unsent:
        note = f"{game.unsent} to send"
    elif game.drafts:  # written in the app, not signed (`saves.drafts`)
        note = f"{counted(game.drafts, 'draft order')} not signed"
    elif game.ended:  # who declined or resigned (their name: escaped)
        note = safe_text(game.ended)
    elif game.waits is not None:  # what it waits for, in the step's words
        note = safe_text(game.waits.what)
    else:
        note = ""
    if game.archived and not note.startswith("FROZEN"):
        note = f"archived: {note}" if note else "archived"
    return (
        safe_text(game.name, limit=16),
        turn_text(game.turn),
        safe_text(game.step or "-"),
        waiting,
        str(game.unread) if game.unread else "",
        note,
        safe_text(game.scenario),
    )


def _file_game(session: Session, game_id: str, undo: bool) -> str:
    """On the store thread: archive the game or bring it back; what was done."""
    from tui.services.games import archive
    from tui.when import now

    replica = session.reader()
    return archive(replica, replica.game(bytes.fromhex(game_id)), now(), undo=undo)


def invitation_lines(offer: Invitation) -> list[str]:
    """What the invitation offers, in the join and decline dialogs' words (the inviter's texts
    are theirs to choose: shown escaped)."""
    lines = [
        f"{safe_text(offer.name, limit=40)} ({safe_text(offer.scenario)}), "
        f"you play {safe_text(offer.my_seat)}",
        f"invited by {safe_text(offer.inviter, limit=60)}",
        f"reply window: {offer.reply_window_hours} hours",
    ]
    if offer.changed:
        changed = ", ".join(f"{safe_text(k)}={safe_text(str(v))}" for k, v in offer.changed)
        lines.append(f"rules changed from the defaults: {changed}")
    else:
        lines.append("every optional rule at its default")
    return lines


JOIN_WORDS = (
    "",
    "Joining binds your key to the seat; the inviter",
    "compares its fingerprint with you by another channel",
    "before the game starts. s sends the join packet.",
    "(No leaves the invitation as it is; d on its row",
    "declines it.)",
)
"""What joining does, in lines that fit the dialog's 56 columns."""
DECLINE_WORDS = (
    "",
    "Declining ends the game before it began: the inviter",
    "hears no with your next sync (s) instead of waiting",
    "for a join. It cannot be taken back.",
)
"""What declining does, in lines that fit the dialog's 56 columns."""


def empty_help(overview: Overview) -> str:
    """What to do in a home with no game yet, skipping the steps already done."""
    lines = ["No games in this home yet.", ""]
    if overview.identity is None:
        lines.append("Make your identity: press , (settings), or run")
        lines.append("  hexpost identity create --name NAME --address YOU@EXAMPLE.ORG")
    if overview.transport is None:
        lines.append("Choose how packets travel (, again), e.g. a shared folder:")
        lines.append("  hexpost transport folder PATH")
    lines.append("Start a game and invite an opponent: press n, or run")
    lines.append("  hexpost new --scenario tutorial --seat coalition --opponent ADDRESS")
    lines.append("or press s to sync and pick up an invitation (Enter joins it).")
    lines.append("")
    lines.append("To watch two local players set up and play, with no account:")
    lines.append("  hexpost demo")
    return "\n".join(lines)
