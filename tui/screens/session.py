"""The screens' one door to the home: every store read and every sync runs on one thread.

Why one thread: a `Store` is one sqlite3 connection, which Python lets only the thread that
opened it use (and the store is meant to be used by one thread at a time). Textual's thread
workers each run in some pool thread, so the screens run *async* workers that await this
session instead, and the session hands every call to its own single-thread executor: the
connection is opened there on first use and stays there. The event loop never waits on
SQLite, the engine or the transport, and two calls never interleave (a sync and a reload
queue up rather than race).

What the screens get back is plain data: the `tui.render` records the command line prints
(`game_summary`, `show_record`), so the app and ``hexpost show --json`` cannot drift apart.
Known failures (no identity, no transport, a bad passphrase, a transport error) come back
as text for the status line; anything else is a bug and is allowed to surface.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, TypeVar

from engine.core.errors import HexpostError
from tui.safe_text import safe_text

if TYPE_CHECKING:
    # The rest is imported where it is used, which is on the store thread: the engine, the
    # store, the transports and the commands are a good part of the app's start-up time,
    # and the first paint needs none of them.
    from mail.sync import SyncReport
    from mail.transport import Transport
    from saves.home import Home
    from saves.replica import Replica

T = TypeVar("T")

EventRow = tuple[int, str, str, str]
"""One line of a game's log as `EventLog` shows it: (packet seq, seat, kind, text)."""

NO_IDENTITY = "no identity yet: make one in the settings (, on the games list)"
"""Short enough for the status line of an 80-column terminal."""

NO_PASSPHRASE = "not sent: the key needs its passphrase (send again to type it)"
"""What the orders panel says when it cannot sign yet; the game screen asks for it."""

WRONG_PASSPHRASE = "wrong passphrase: nothing was signed"


@dataclass(frozen=True)
class Overview:
    """What the games list shows: who this home is, how it sends, and every game's summary."""

    identity: str | None
    transport: str | None
    rows: list[dict[str, Any]]


@dataclass(frozen=True)
class GameData:
    """One game as the game screen shows it: `render.show_record` (with the checklist and,
    for a ruleset with a board, the views), the log, and the sequence's phase titles."""

    record: dict[str, Any]
    events: list[EventRow]
    phase_titles: dict[str, str]
    phase_rules: dict[str, str]
    step_orders: tuple[str, ...] = ()
    """The order types the pending step takes besides the ones every step takes (``done``,
    ``note``, ``adjust``...), for the orders panel's hint; empty when nothing is pending."""


@dataclass(frozen=True)
class Checked:
    """What the engine said about a list of draft orders, worded for the orders panel.

    ``ok`` with ``sent`` False: a dry run found them legal (``text`` names the packet they
    would make and what it would do). ``ok`` with ``sent``: they were signed and queued.
    Not ``ok``: ``text`` is the refusal as the engine words it (order, step, rule, numbers),
    or why signing could not happen; nothing was stored.
    """

    ok: bool
    text: str
    sent: bool = False
    locked: bool = False
    """Refused only because the key is encrypted and the session has no passphrase yet:
    `Session.unlock` and the same call again may succeed."""
    plan: dict[str, Any] | None = None
    """For a legal dry run that moves something: the ``views`` after it, for the map."""


@dataclass(frozen=True)
class Settings:
    """What the settings screen shows: `commands.identity_record` (None: no identity yet) and
    the transport as ``hexpost transport show`` words it."""

    identity: dict[str, Any] | None
    transport: str
    transport_kind: str | None
    folder: str | None
    unlocked: bool


@dataclass(frozen=True)
class SyncResult:
    """What one sync did, already worded for the status line."""

    summary: str
    changed: frozenset[str] = frozenset()
    """Hex ids of the games a received packet changed (applied, invited, desync...)."""
    details: list[str] = field(default_factory=list)
    ok: bool = True
    replies_owed: bool = False
    """The sync could not sign (no passphrase) and a game waits for an automatic reply from
    this home (a die roll's entropy, a reveal): with the passphrase a second sync writes it."""


class Session:
    """A home, opened on a private thread, with the few operations the screens need.

    ``passphrase`` unlocks an encrypted identity for the automatic replies a sync writes
    (without it a sync still receives and sends, as ``hexpost sync`` does without a
    terminal). ``transport`` builds the transport from the home (default: the configured
    one, as ``hexpost sync`` does); tests pass a loopback one. ``clock`` stamps packets.
    """

    def __init__(
        self,
        home: Home,
        *,
        passphrase: bytes | None = None,
        transport: Callable[[Home], Transport] | None = None,
        clock: Callable[[], str] | None = None,
    ) -> None:
        self.home = home
        self._passphrase = passphrase
        self._transport = transport or _configured_transport
        self._clock = clock or _now
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="hexpost-store")
        self._reader: Replica | None = None
        self._signer: Replica | None = None
        self._waiter: Any = None
        """The transport `wait_for_mail` idles on (kept between waits), or None."""

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(*args)`` on the store thread and wait for it without blocking the loop."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, functools.partial(fn, *args))

    def close(self) -> None:
        """Close the store on its own thread, then stop the thread (waits for running work)."""
        try:
            self._executor.submit(self.home.close).result()
        finally:
            self._executor.shutdown(wait=True)

    # --- the operations (each `async`, each one hop to the store thread) --------------------

    async def overview(self) -> Overview:
        return await self.call(self._overview)

    async def find(self, name: str) -> str:
        """The hex id of the game ``name`` names (as the command line's GAME argument)."""
        return await self.call(self._find, name)

    async def game(self, game_id: str, *, mark_read: bool = True) -> GameData:
        return await self.call(self._game, game_id, mark_read)

    async def sync(self) -> SyncResult:
        return await self.call(self._sync)

    async def wait_for_mail(self, timeout: float) -> bool | None:
        """Wait until the mail server announces new mail (True) or ``timeout`` passes (False).

        None when the home's transport cannot announce anything (a shared folder, or no
        transport yet): then the app has nothing to watch. The wait holds its own connection
        on its own thread, so syncs and reads on the store thread go on meanwhile.
        """
        if self._waiter is None:
            self._waiter = await self.call(self._mail_waiter)
            if self._waiter is None:
                return None
        return bool(await self._waiter.wait(timeout))

    def _mail_waiter(self) -> Any:
        configured = self._transport is _configured_transport
        if configured and (self.home.config().get("transport") or {}).get("kind") != "mail":
            return None  # a shared folder announces nothing: no need to build it (start-up)
        try:
            transport = self._transport(self.home)
        except HexpostError:
            return None
        return transport if hasattr(transport, "wait") else None

    async def check_orders(self, game_id: str, items: list[dict[str, Any]]) -> Checked:
        """Check draft orders against the engine without signing (a dry run)."""
        return await self.call(self._orders, game_id, items, True)

    async def submit_orders(self, game_id: str, items: list[dict[str, Any]]) -> Checked:
        """Sign the orders and queue them for the next sync (checked again first)."""
        return await self.call(self._orders, game_id, items, False)

    async def read(self, fn: Callable[..., T], game_id: str, *args: Any) -> T:
        """``fn(replica, game_id, *args)`` on the store thread with the reading replica: the
        readers of `tui.screens.order_data` (the what-if of the drafts, the build menu)."""
        return await self.call(lambda: fn(self._replica(), game_id, *args))

    async def chat(self, game_id: str, text: str) -> Checked:
        """Sign and queue a chat line for ``game_id`` (`Replica.chat`); ``locked`` when the
        passphrase is needed first."""
        return await self.call(self._chat, game_id, text)

    async def accept_join(self, game_id: str) -> Checked:
        """As the game's creator, accept the key that joined it (`saves.joins.accept`): the
        next packet carries the acceptance; ``locked`` when the passphrase is needed first."""
        return await self.call(self._accept_join, game_id)

    async def unlock(self, passphrase: str) -> str | None:
        """Open the signing key with ``passphrase``: None when it opened (later signing needs
        no more asking), else what went wrong, for the dialog to show."""
        return await self.call(self._unlock, passphrase)

    @property
    def locked(self) -> bool:
        """Whether signing would need a passphrase the session does not hold. Reads only the
        key file's public header; safe on the event loop."""
        info = self.home.identity_info()
        return info is not None and info.encrypted and self._passphrase is None

    async def settings(self) -> Settings:
        return await self.call(self._settings)

    async def create_identity(self, name: str, address: str, passphrase: str | None) -> str | None:
        """Make the home's identity as ``hexpost identity create`` does; None when made, else
        why not. With a passphrase the new key stays unlocked for this session."""
        return await self.call(self._create_identity, name, address, passphrase)

    async def use_folder(self, path: str) -> tuple[bool, str]:
        """Set the shared-folder transport as ``hexpost transport folder PATH`` does."""
        return await self.call(self._use_folder, path)

    # --- on the store thread ------------------------------------------------------------------

    def _replica(self) -> Replica:
        if self._reader is None:
            self._reader = self.home.replica()
        return self._reader

    def _overview(self) -> Overview:
        from tui import render

        info = self.home.identity_info()
        config = self.home.config().get("transport") or {}
        replica = self._replica()
        games = replica.games()
        if any(row.ruleset == "fe" for row in games):
            # The map widget reads the printed map when a game screen is built, on the event
            # loop; a quarter of a second there is a visible hitch, here it is not.
            from engine.fe.galaxy import load_galaxy

            load_galaxy()
        return Overview(
            identity=f"{info.name} <{info.address}>" if info else None,
            transport=_transport_words(config, self.home.config().get("mail")),
            rows=[render.game_summary(replica, row) for row in games],
        )

    def _find(self, name: str) -> str:
        return self._replica().find(name).game_id.hex()

    def _game(self, game_id: str, mark_read: bool) -> GameData:
        from tui import render

        replica = self._replica()
        row = replica.game(bytes.fromhex(game_id))
        record = render.show_record(replica, row, at=None, checklist=True)
        events = [
            (seq, event.seat, event.kind, event.text) for seq, event in replica.events(row.game_id)
        ]
        if mark_read:
            replica.mark_read(row.game_id)
        pending = record.get("pending") or [{}]
        return GameData(
            record,
            events,
            *phase_titles(row.ruleset),
            step_orders=step_orders(row.ruleset, pending[0].get("step")),
        )

    def _orders(self, game_id: str, items: list[dict[str, Any]], dry_run: bool) -> Checked:
        """A dry run on the reading replica (it holds the public key, all a draft needs), or
        a real submit on the signing one. An encrypted key without the passphrase cannot
        sign: that is said rather than asked here, since the store thread has no terminal."""
        try:
            if dry_run:
                replica = self._replica()
            else:
                signer = self._signing_or_why()
                if isinstance(signer, Checked):
                    return signer
                replica = signer
            result = replica.submit(
                bytes.fromhex(game_id), items, now=self._clock(), dry_run=dry_run
            )
        except HexpostError as exc:  # IllegalOrder, OutOfTurn, GameFrozen... all say why
            return Checked(False, str(exc))
        done = [event.text for event in result.events]
        if dry_run:
            from tui.screens.order_data import planned_views

            plan = planned_views(replica, game_id, items, result.state)
            text = "\n".join([f"legal: would be packet {result.seq}", *done])
            return Checked(True, text, plan=plan)
        return Checked(True, f"packet {result.seq} signed and queued: s sends it", sent=True)

    def _signing_or_why(self) -> Replica | Checked:
        """The signing replica, or why there is none yet (no identity; a key whose passphrase
        the session does not hold, which the store thread cannot ask for)."""
        info = self.home.identity_info()
        if info is None:
            return Checked(False, NO_IDENTITY)
        if info.encrypted and self._passphrase is None:
            return Checked(False, NO_PASSPHRASE, locked=True)
        return self._signing_replica()

    def _chat(self, game_id: str, text: str) -> Checked:
        try:
            signer = self._signing_or_why()
            if isinstance(signer, Checked):
                return signer
            result = signer.chat(bytes.fromhex(game_id), text, now=self._clock())
        except HexpostError as exc:
            return Checked(False, f"not sent: {exc}")
        return Checked(
            True, f"chat signed and queued as packet {result.seq}: s sends it", sent=True
        )

    def _accept_join(self, game_id: str) -> Checked:
        from saves import joins

        try:
            signer = self._signing_or_why()
            if isinstance(signer, Checked):
                return signer
            done = joins.accept(signer, bytes.fromhex(game_id), now=self._clock())
        except HexpostError as exc:
            return Checked(False, f"not accepted: {exc}")
        return Checked(True, done.text, sent=done.packet_seq is not None)

    def _unlock(self, passphrase: str) -> str | None:
        from saves.keys import KeyFileError
        from tui import commands

        try:
            secret = commands.passphrase_bytes(passphrase)
            signer = self.home.replica(secret, unlock=True)
        except KeyFileError as exc:
            return WRONG_PASSPHRASE if "wrong passphrase" in str(exc) else str(exc)
        except HexpostError as exc:
            return str(exc)
        self._passphrase, self._signer = secret, signer
        return None

    def _settings(self) -> Settings:
        from tui import commands

        transport = self.home.config().get("transport") or {}
        return Settings(
            identity=commands.identity_record(self.home),
            transport=commands.transport_text(self.home),
            transport_kind=transport.get("kind"),
            folder=transport.get("path"),
            unlocked=self._passphrase is not None,
        )

    def _create_identity(self, name: str, address: str, passphrase: str | None) -> str | None:
        from tui import commands

        try:
            secret = None if passphrase is None else commands.passphrase_bytes(passphrase)
            commands.create_identity(self.home, name, address, secret)
        except HexpostError as exc:
            return str(exc)
        # The replicas were opened without an identity: the next call opens them anew.
        self._reader = self._signer = None
        self._passphrase = secret
        return None

    def _use_folder(self, path: str) -> tuple[bool, str]:
        from tui import commands

        try:
            folder = commands.use_folder(self.home, path)
        except HexpostError as exc:
            return False, str(exc)
        return True, f"packets will travel through the folder {folder}"

    def _sync(self) -> SyncResult:
        try:
            info = self.home.identity_info()
            if info is None:
                return SyncResult(NO_IDENTITY, ok=False)
            transport = self._transport(self.home)
            if info.encrypted and self._passphrase is None:
                replica, signing = self._replica(), False
            else:
                replica, signing = self._signing_replica(), True
            from tui.sync_cmd import auto_replies

            replies = auto_replies(None, self.home)
            report = asyncio.run(_sync_once(replica, transport, self._clock, replies))
        except HexpostError as exc:  # TransportError is one too
            return SyncResult(f"sync failed: {exc}", ok=False)
        except OSError as exc:
            return SyncResult(f"sync failed: {exc.strerror or exc}", ok=False)
        result = describe(report, signing)
        if not signing and self._owes_replies(replica):
            return replace(result, replies_owed=True)
        return result

    def _owes_replies(self, replica: Replica) -> bool:
        """Whether some game waits for an automatic reply that only our key can sign."""
        from engine.core.ruleset import DecisionKind

        for row in replica.games():
            if row.status != "active" or row.frozen:
                continue
            owed = replica.pending(row.game_id)
            automatic = (DecisionKind.ENTROPY, DecisionKind.REVEAL)
            if owed and owed[0].seats[0] == row.my_seat and owed[0].kind in automatic:
                return True
        return False

    def _signing_replica(self) -> Replica:
        if self._signer is None:
            self._signer = self.home.replica(self._passphrase, unlock=True)
        return self._signer


async def _sync_once(
    replica: Replica, transport: Transport, clock: Callable[[], str], replies: bool
) -> SyncReport:
    from mail.sync import sync

    try:
        return await sync(replica, transport, clock, auto_replies=replies)
    finally:
        await transport.close()


def describe(report: SyncReport, signing: bool) -> SyncResult:
    """A sync report as one status line plus the details behind it."""
    details = [f"received: {o.status}: {safe_text(o.detail)}" for o in report.received]
    details += [f"warning: {safe_text(problem)}" for problem in report.problems]
    details += [f"not sent: packet {f.seq}: {safe_text(f.error)}" for f in report.failed]
    details += [safe_text(line) for line in report.requests]
    applied = sum(1 for o in report.received if o.status == "applied")
    parts = [f"received {len(report.received)}", f"applied {applied}", f"sent {len(report.sent)}"]
    attention = sum(1 for o in report.received if o.attention)
    if attention:  # a damaged or refused packet of a game of ours, or a frozen game
        parts.append(f"{attention} REFUSED or damaged")
    if report.failed:
        parts.append(f"{len(report.failed)} NOT SENT")
    if report.problems:
        parts.append(f"{len(report.problems)} warning(s)")
    if not signing:
        parts.append("no automatic replies (passphrase needed)")
    changed = frozenset(o.game_id.hex() for o in report.received if o.game_id is not None)
    ok = not report.failed and not attention
    return SyncResult("synced: " + ", ".join(parts), changed, details, ok=ok)


def step_orders(ruleset_id: str, step_id: str | None) -> tuple[str, ...]:
    """The order types step ``step_id`` takes besides done, note and adjust (F&E's decision steps:
    ``move`` and ``batch`` at 3B2...); none for a manual step or another ruleset."""
    if ruleset_id != "fe" or not step_id:
        return ()
    from engine.fe.sequence import load_sequence

    step = load_sequence().steps.get(step_id)
    return step.orders if step is not None else ()


def phase_titles(ruleset_id: str) -> tuple[dict[str, str], dict[str, str]]:
    """Phase id -> title, and phase id -> rule, for the checklist's phase lines (F&E's
    sequence of play; a ruleset without one gets none and the checklist says "Phase N")."""
    if ruleset_id != "fe":
        return {}, {}
    from engine.fe.sequence import load_sequence

    phases = load_sequence().phases.values()
    return {p.id: p.title for p in phases}, {p.id: p.rule for p in phases}


def _transport_words(transport: dict[str, Any], mail: Any) -> str | None:
    """``folder PATH`` or ``mail ADDRESS`` for the games list's header, None if none is set."""
    kind = transport.get("kind")
    if not kind:
        return None
    if kind == "mail" and isinstance(mail, dict) and mail.get("address"):
        return f"mail {mail['address']}"
    return f"{kind} {transport.get('path', '')}".strip()


def _now() -> str:
    """The time packets are stamped with (`tui.commands.now`, imported on first use)."""
    from tui.commands import now

    return now()


def _configured_transport(home: Home) -> Transport:
    """The home's configured transport, as ``hexpost sync`` builds it."""
    from tui.commands import transport_of

    return transport_of(home)
