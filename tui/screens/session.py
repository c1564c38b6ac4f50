"""The screens' one door to the home: every store read and every sync runs on one thread.

Why one thread: a `Store` is one sqlite3 connection, which Python lets only the thread that
opened it use (and the store is meant to be used by one thread at a time). Textual's thread
workers each run in some pool thread, so the screens run *async* workers that await this
session instead, and the session hands every call to its own single-thread executor: the
connection is opened there on first use and stays there. The event loop never waits on
SQLite, the engine or the transport, and two calls never interleave (a sync and a reload
queue up rather than race).

The session is the app's face over `tui.services`, as `tui.commands` is the command line's:
each operation calls the service the command line calls (a game's record is
`tui.services.show.show`, a sync `tui.services.sync.sync_once`, orders are checked by
`tui.services.orders`), so the two cannot drift apart; the session only keeps the replicas
and the passphrase between calls and words the results for the status line. The screens read
the same typed records the command line prints as JSON (`GameSummary`, `ShowRecord`), never
their JSON by key. Known failures (no identity, no transport, a bad
passphrase, a transport error) come back as text for the status line; anything else is a bug
and is allowed to surface.
"""

from __future__ import annotations

import asyncio
from contextlib import suppress
from typing import TYPE_CHECKING, Any, cast

import msgspec

from engine.core.errors import HexpostError
from saves import drafts
from tui.safe_text import safe_text
from tui.screens.session_signing import (
    NO_IDENTITY,
    NO_PASSPHRASE,
    Checked,
    SigningSession,
    home_transport,
)
from tui.services.home import KeyState, Settings
from tui.services.sync import SyncOutcome

if TYPE_CHECKING:
    # The rest is imported where it is used, which is on the store thread: the engine, the
    # store, the transports and the services that use them are a good part of the app's
    # start-up time, and the first paint needs none of them.
    from collections.abc import Mapping

    from engine.core.face import Board, Reach, StepMenu
    from engine.core.state import AnyState
    from mail.sync import SyncReport
    from tui.services.games import GameSummary
    from tui.services.show import ShowRecord
    from tui.services.start import Invitation, ScenarioChoice

__all__ = [
    "NO_IDENTITY",
    "NO_PASSPHRASE",
    "WRONG_PASSPHRASE",
    "Checked",
    "EventRow",
    "GameData",
    "Overview",
    "Session",
    "Settings",
    "SyncResult",
    "describe",
]

EventRow = tuple[int, str, str, str]
"""One line of a game's log as `EventLog` shows it: (packet seq, seat, kind, text)
(`tui.services.log.EventRow`)."""

SyncResult = SyncOutcome
"""What one sync did, already worded for the status line (`tui.services.sync.SyncOutcome`)."""

WRONG_PASSPHRASE = "wrong passphrase: nothing was signed"


class Overview(msgspec.Struct, frozen=True):
    """What the games list shows: who this home is, how it sends, and every game's summary
    (the records ``hexpost games --json`` prints)."""

    identity: str | None
    transport: str | None
    games: tuple[GameSummary, ...] = ()
    notes: tuple[str, ...] = ()
    """What the whole home needs from its player (`tui.services.games.home_notes`)."""


class GameData(msgspec.Struct, frozen=True):
    """One game as the game screen shows it: the record ``hexpost show`` prints, the log,
    and the order types of the pending step that are its own. The checklist's lines carry
    their phases' titles.

    A frozen `msgspec.Struct` (`msgspec.structs.replace` swaps its board in), as the
    session's other records: it is defined without the methods a dataclass compiles at
    import (about 3.5 million instructions each, before the game's first paint; issue 16).
    """

    show: ShowRecord
    events: list[EventRow]
    step_orders: tuple[str, ...] = ()
    """The order types the pending step takes besides the ones every step takes (``done``,
    ``note``, ``adjust``...): the orders panel's ``b`` and ``k``; empty when nothing is
    pending."""
    news: tuple[str, ...] = ()
    """What arrived since the player last looked, in words (`tui.services.show.GameView`)."""
    news_line: str = ""
    """The same in one line, for a status line."""
    board_later: bool = False
    """``show.board`` is the face's quick board (a first paint): the screen reads the whole
    board next (`Session.board`) and shows it in its place."""
    drafts: list[dict[str, Any]] = []
    """The draft orders kept from the player's last visit (`saves.drafts`), read for a first
    paint only: once open, the screen's orders panel holds them."""


class Session(SigningSession):
    """A home, opened on a private thread, with the few operations the screens need: those
    that read games, sync and change the settings here, those that sign in
    `SigningSession`, the thread and the replicas in `SessionBase`."""

    # --- the operations (each `async`, each one hop to the store thread) --------------------

    async def overview(self) -> Overview:
        return await self.call(self._overview)

    async def find(self, name: str) -> str:
        """The hex id of the game ``name`` names (as the command line's GAME argument)."""
        return await self.call(self._find, name)

    async def game(self, game_id: str, *, mark_read: bool = True, quick: bool = False) -> GameData:
        """The game as its screen shows it; ``quick``: with the ruleset face's quick board
        (`GameData.board_later`), for a first paint."""
        return await self.call(self._game, game_id, mark_read, quick)

    async def board(self, game_id: str) -> tuple[int, Board | None]:
        """The game's whole board now and the packet it is the board after
        (`tui.services.board.current_board`)."""
        return await self.call(self._board, game_id)

    async def sync(self) -> SyncResult:
        return await self.call(self._sync)

    async def wait_for_mail(self, timeout: float) -> bool | None:
        """Wait until the mail server announces new mail, or the shared folder changes (True),
        or ``timeout`` passes (False).

        None when the home's transport cannot announce anything (no transport yet): then the
        app has nothing to watch. The wait holds its own connection on its own thread (a
        folder: a ``stat`` now and then), so syncs and reads on the store thread go on
        meanwhile.
        """
        if self._waiter is None:
            self._waiter = await self.call(self._mail_waiter)
            if self._waiter is None:
                return None
        return bool(await self._waiter.wait(timeout))

    def transport_changed(self) -> None:
        """The home's transport was changed (the settings): the transport waited on for the
        old one is forgotten, so that the next `wait_for_mail` builds one for the new (or
        finds there is none), and closed meanwhile. Not waited for: a mail transport's close
        is queued on its own thread, behind an IDLE that may still run for minutes (the
        watch that waited in it was cancelled, and has let that thread go:
        `mail.mailtransport.MailTransport._wait`)."""
        old, self._waiter = self._waiter, None
        if old is not None:
            closing = asyncio.ensure_future(_close_quietly(old))
            self._closing.add(closing)  # (held until done: a task only weakly referenced
            closing.add_done_callback(self._closing.discard)  # may be collected unfinished)

    async def home_changes(self) -> frozenset[str] | None:
        """The games another process changed in this home since the last call (hex ids; empty:
        something else changed), or None when nothing did (`tui.services.home_watch`)."""
        return await self.call(self._home_changes)

    def _home_changes(self) -> frozenset[str] | None:
        if self._home_watch is None:
            from tui.services.home_watch import HomeWatch

            self._home_watch = HomeWatch()
        return self._home_watch.changes(self.home.store())

    def _mail_waiter(self) -> Any:
        from tui.services.transport import configured_kind

        configured = self._transport is home_transport
        try:
            if configured and configured_kind(self.home) is None:
                return None  # no transport yet: nothing to build (start-up)
            transport = self._transport(self.home)
        except HexpostError:  # (a sync says why: config.toml broken, the account unset...)
            return None
        return transport if hasattr(transport, "wait") else None

    async def check_orders(self, game_id: str, items: list[dict[str, Any]]) -> Checked:
        """Check draft orders against the engine without signing (a dry run)."""
        return await self.call(self._orders, game_id, items, True)

    async def submit_orders(self, game_id: str, items: list[dict[str, Any]]) -> Checked:
        """Sign the orders and queue them for the next sync (checked again first)."""
        return await self.call(self._orders, game_id, items, False)

    async def step_menu(
        self,
        game_id: str,
        order: str,
        chosen: tuple[str, ...],
        drafts: list[dict[str, Any]] | None = None,
    ) -> StepMenu | None:
        """The ruleset's stepwise menu for ``order`` after the picks ``chosen``, for this
        home's seat as the game stands, or after ``drafts`` that run into the step the menu
        is for (`tui.screens.order_data.step_menu`)."""
        from tui.screens.order_data import step_menu

        def read() -> StepMenu | None:
            after = self.after_drafts(game_id, drafts)
            return step_menu(self.reader(), game_id, order, chosen, after)

        return await self.call(read)

    async def destinations(
        self,
        game_id: str,
        order: str,
        pieces: tuple[str, ...],
        path: tuple[str, ...] = (),
        drafts: list[dict[str, Any]] | None = None,
    ) -> Reach | None:
        """Where ``order`` may move ``pieces`` now (along ``path`` so far), for this home's
        seat, or None when the ruleset lists no such hexes
        (`tui.screens.order_data.destinations`); after ``drafts``, as `step_menu`."""
        from tui.screens.order_data import destinations

        def read() -> Reach | None:
            after = self.after_drafts(game_id, drafts)
            return destinations(self.reader(), game_id, order, pieces, path, after)

        return await self.call(read)

    async def own_stops(
        self, game_id: str, drafts: list[dict[str, Any]] | None = None
    ) -> tuple[str, ...] | None:
        """The steps this home's seat may play on to now, or after ``drafts`` that run into
        its next step (`tui.screens.order_data.own_stops`)."""
        from tui.screens.order_data import own_stops

        def read() -> tuple[str, ...] | None:
            return own_stops(self.reader(), game_id, self.after_drafts(game_id, drafts))

        return await self.call(read)

    async def has_identity(self) -> bool:
        """Whether the home has an identity yet: a new game is signed with its key."""
        return await self.call(lambda: self.home.identity_info() is not None)

    async def scenario_choices(self) -> list[ScenarioChoice]:
        """The scenarios a new game can start from, their optional rules explained."""
        from tui.services.start import scenario_choices

        return await self.call(scenario_choices)

    async def invitation(self, game_id: str) -> Invitation:
        """What an invitation offers, for the player to read before joining."""
        from tui.services.start import invitation

        return await self.call(lambda: invitation(self.reader(), bytes.fromhex(game_id)))

    async def unlock(self, passphrase: str) -> str | None:
        """Open the signing key with ``passphrase``: None when it opened (later signing needs
        no more asking), else what went wrong, for the dialog to show."""
        return await self.call(self._unlock, passphrase)

    @property
    def locked(self) -> bool:
        """Whether signing would need a passphrase the session does not hold. Reads only the
        key file's public header; safe on the event loop."""
        return self._key_state() is KeyState.LOCKED

    async def settings(self) -> Settings:
        return await self.call(self._settings)

    async def create_identity(self, name: str, address: str, passphrase: str | None) -> str | None:
        """Make the home's identity as ``hexpost identity create`` does; None when made, else
        why not. With a passphrase the new key stays unlocked for this session."""
        return await self.call(self._create_identity, name, address, passphrase)

    async def use_folder(self, path: str) -> tuple[bool, str]:
        """Set the shared-folder transport as ``hexpost transport folder PATH`` does."""
        return await self.call(self._use_folder, path)

    async def back_up(
        self, path: str, *, replace: bool = False, keep: bool = False
    ) -> tuple[bool, str]:
        """Copy the home into the folder ``path`` as ``hexpost backup [--replace]
        [--after-each-sync]`` does (``keep``: again after each sync; not ``keep``: no more);
        whether it was made, and what it holds or why not."""
        return await self.call(self._back_up, path, replace, keep)

    async def confirm_restored(self) -> str:
        """Confirm this home, a backup copy, as the one played from (``hexpost restored``)."""
        return await self.call(self._confirm_restored)

    # --- on the store thread ------------------------------------------------------------------

    def _overview(self) -> Overview:
        from tui.services import games, rulesets
        from tui.services.transport import transport_words

        info = self.home.identity_info()
        replica = self.reader()
        rulesets.preload_maps(replica.playable_games())
        summaries = tuple(games.summaries(replica))
        try:
            transport = transport_words(self.home)
        except HexpostError as exc:  # (config.toml broken by hand: the games still list)
            transport = str(exc)
        return Overview(
            identity=f"{info.name} <{info.address}>" if info else None,
            transport=transport,
            games=summaries,
            notes=games.home_notes(replica),
        )

    def _find(self, name: str) -> str:
        return self.reader().find(name).game_id.hex()

    def _board(self, game_id: str) -> tuple[int, Board | None]:
        from tui.services.board import current_board

        return current_board(self.reader(), bytes.fromhex(game_id))

    def _game(self, game_id: str, mark_read: bool, quick: bool) -> GameData:
        from tui.services.show import game_view

        gid = bytes.fromhex(game_id)
        replica = self.reader()
        view = game_view(replica, gid, mark_read=mark_read, quick=quick)
        return GameData(
            view.show,
            list(view.events),
            step_orders=view.step_orders,
            news=view.news,
            news_line=view.news_line,
            board_later=view.board_later,
            drafts=drafts.kept(replica.store, gid) if quick else [],
        )

    async def keep_drafts(self, game_id: str, items: list[dict[str, Any]]) -> bool:
        """Keep the game's draft orders for the next visit (`saves.drafts.keep`: False when
        they are too large to keep)."""
        gid = bytes.fromhex(game_id)
        return await self.call(lambda: drafts.keep(self.reader().store, gid, items))

    def _orders(self, game_id: str, items: list[dict[str, Any]], dry_run: bool) -> Checked:
        """A dry run on the reading replica (it holds the public key, all a draft needs), or
        a real submit on the signing one. An encrypted key without the passphrase cannot
        sign: that is said rather than asked here, since the store thread has no terminal."""
        from tui.services import orders

        gid = bytes.fromhex(game_id)
        if dry_run:
            replica = self.reader()
            verdict = orders.check(replica, gid, items, self._clock)
        else:
            signer = self._signing_or_why()
            if isinstance(signer, Checked):
                return signer
            verdict = orders.sign(signer, gid, items, self._clock)
        if not verdict.legal:
            return Checked(False, verdict.refusal, verdict=verdict)
        step = verdict.left_open.partition(" ")[0]  # (its title is in the side panel)
        # d: the panel's while drafting, and the map hands it to the panel once they are
        # signed (`tui.screens.game.PANEL_KEYS`).
        stays = f"\n{step} stays your move: d ends it" if step else ""
        if verdict.then:  # the player goes on there (its title: the side panel, once signed)
            stays = f"\nthen {verdict.then} is yours too"
        elif verdict.hands_to:  # the hand-off the packet makes
            stays = f"\nthen the game {verdict.hands_to}"
        if verdict.signed:
            drafts.forget(self.reader().store, gid)  # signed: nothing left to come back
            words, sending = self._send_words("sending it", "s sends it")
            text = f"packet {verdict.seq} signed and queued: {words}{stays}"
            return Checked(True, text, sent=True, verdict=verdict, sending=sending)
        from tui.screens.order_data import next_step, planned_board

        self._drafted = (game_id, msgspec.json.encode(items), verdict.after)
        plan = planned_board(replica, game_id, items, verdict.after)
        then = next_step(replica, game_id, verdict.then, verdict.after)
        lines = [f"legal: would be packet {verdict.seq}{stays}", *(e.text for e in verdict.events)]
        text = "\n".join(lines)
        return Checked(True, text, plan=plan, verdict=verdict, next=then)

    def after_drafts(self, game_id: str, drafts: list[dict[str, Any]] | None) -> AnyState | None:
        """The state after ``drafts`` (legal ones: a dry run's), on the store thread; None
        for none. The last dry run's state when it was of the same drafts, else a new one."""
        if not drafts:
            return None
        key = msgspec.json.encode(drafts)
        if self._drafted is not None and self._drafted[:2] == (game_id, key):
            return cast("AnyState | None", self._drafted[2])
        from tui.services import orders

        verdict = orders.check(self.reader(), bytes.fromhex(game_id), drafts, self._clock)
        return cast("AnyState | None", verdict.after) if verdict.legal else None

    def _unlock(self, passphrase: str) -> str | None:
        from tui.services.home import WrongPassphrase, unlock

        try:
            secret, signer = unlock(self.home, passphrase)
        except WrongPassphrase:
            return WRONG_PASSPHRASE
        except HexpostError as exc:
            return str(exc)
        self._passphrase, self._signer = secret, signer
        return None

    def _settings(self) -> Settings:
        from tui.services.home import settings

        return settings(self.home, unlocked=self._passphrase is not None)

    def _create_identity(self, name: str, address: str, passphrase: str | None) -> str | None:
        from tui.services.home import create_identity, passphrase_bytes

        try:
            secret = None if passphrase is None else passphrase_bytes(passphrase)
            create_identity(self.home, name, address, secret)
        except HexpostError as exc:
            return str(exc)
        # The replicas were opened without an identity: the next call opens them anew.
        self._reader = self._signer = None
        self._passphrase = secret
        return None

    def _use_folder(self, path: str) -> tuple[bool, str]:
        from tui.services.transport import use_folder

        try:
            folder = use_folder(self.home, path)
        except HexpostError as exc:
            return False, str(exc)
        return True, f"packets will travel through the folder {folder}"

    def _back_up(self, path: str, replace: bool, keep: bool) -> tuple[bool, str]:
        from tui.services.backups import back_up

        return back_up(self.home, path, replace=replace, keep=keep, clock=self._clock)

    def _confirm_restored(self) -> str:
        from tui.services.backups import confirm_restored

        return confirm_restored(self.home)

    def _sync(self) -> SyncResult:
        from tui.services import sync

        try:
            state = self._key_state()
            if state is KeyState.NONE:
                return SyncResult(NO_IDENTITY, ok=False)
            transport = self._transport(self.home)
            if state is KeyState.LOCKED:
                replica, signing = self.reader(), False
            else:
                replica, signing = self._signing_replica(), True
            replies = sync.auto_replies(self.home)
            report = asyncio.run(sync.sync_once(replica, transport, self._clock, replies))
        except HexpostError as exc:  # TransportError is one too
            return SyncResult(f"sync failed: {exc}", ok=False)
        except OSError as exc:
            return SyncResult(f"sync failed: {exc.strerror or exc}", ok=False)
        result = describe(report, signing, sync.game_names(replica))
        for line in sync.backup_after(self.home, report, self._clock):
            said = "backed up" if line.kind == "note" else safe_text(line.text)
            result = msgspec.structs.replace(
                result,
                summary=f"{result.summary}; {said}",
                details=(*result.details, safe_text(line.text)),
            )
        if not signing and sync.owes_automatic_reply(replica):
            return msgspec.structs.replace(result, replies_owed=True)
        return result


def describe(
    report: SyncReport, signing: bool, names: Mapping[bytes, str] | None = None
) -> SyncResult:
    """A sync report as one status line plus the details behind it
    (`tui.services.sync.describe`), the details made safe to show."""
    from tui.services import sync

    result = sync.describe(report, signing, names)
    return msgspec.structs.replace(result, details=tuple(safe_text(d) for d in result.details))


async def _close_quietly(transport: Any) -> None:
    """Close a transport no longer used; whatever it raises (its connection gone already) is
    of no interest to anyone now."""
    with suppress(Exception):
        await transport.close()
