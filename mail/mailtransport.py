"""The mail transport: packets go out as emails over SMTP and come in from an IMAP folder.

It joins the three pure or single-purpose mail modules behind the `Transport` interface that
`mail.sync` drives: `mail.mime` makes and reads the emails, `mail.smtp` sends them and
`mail.imap` finds them. Nothing here decides whether a packet is good: every copy an email
holds is handed up, and the replica verifies and applies (or rejects and logs) it.

The IMAP connection is blocking (imapclient), so every use of it runs in a worker thread (one
thread, kept from call to call), one call at a time: a sync or the watch loop never runs two
IMAP commands at once, and the terminal's event loop keeps drawing while a server is slow.
The connection is kept between calls (the watch loop idles on it) and opened again after any
failure. The thread is a daemon of its own, not the event loop's pool: a call cancelled while
it waits in IDLE (Ctrl-C, the app quitting) leaves the thread to end by itself and abandons its
connection (the next call starts a new thread and a new connection), instead of making the
program wait up to half an hour at exit for the IDLE to time out.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import queue
import threading
import weakref
from collections.abc import AsyncIterator, Callable, Container, Sequence
from datetime import UTC, datetime
from typing import Any, TypeVar

import msgspec

from mail import imap, imapjunk, mime, smtp
from mail.accounts import AccountError, MailConfig, ServerConfig
from mail.credentials import resolve_secret
from mail.transport import FetchResult, IncomingPacket, OutgoingPacket, TransportError

_log = logging.getLogger(__name__)
Clock = Callable[[], datetime]
T = TypeVar("T")

POLL_SECONDS = 120.0
"""How often a server without IDLE is asked for new mail while watching."""
FIRST_BATCH = 20
"""UIDs of a fetch's first batch: fewer than the others (`mail.imap.FETCH_BATCH`), so that
taking packets in starts as soon as a few are read, the rest downloading meanwhile."""


FIRST_SCAN_JUDGED = 1000
"""At a folder's first scan (a new account, or a folder whose UIDVALIDITY changed) the mail
the server's header search does not name is judged by its structure only among the newest
this many: an inbox of years of mail would otherwise cost a structure fetch per message (and
a search of every body for the armour line) before the first sync could end. Older packet
mail is still found by its header."""


def _utc_now() -> datetime:
    return datetime.now(UTC)


UNREADABLE_BYTES = 64 * 1024
"""Of an email marked as packet mail in which no copy reads, this much is handed up: the
replica records it as rejected (and the ref as read) without storing a stranger's 4 MB."""


def _incoming(item: imap.FoundMail) -> IncomingPacket | None:
    """What one packet email hands up: its first readable copy, the others as alternatives.

    An email marked as ours in which no copy reads (truncated, mangled, hostile) is handed up
    all the same, as its first bytes, so that the replica records the rejection and the ref is
    never read again; the ``X-Hexpost`` header, when there is one, names the game and position
    it was meant to be (untrusted hints). `mime.read_message` never raises; should it ever,
    that email alone counts as unreadable and the other emails of the fetch go up as usual.

    An email with no mark of ours at all (`mime.is_hexpost`) hands up nothing: a server whose
    search for the header named it anyway (some answer an empty header search with every
    message) must not make the player's other mail land in the store as refused packets."""
    try:
        read = mime.read_message(item.raw)
    except Exception:
        read = None
    if read is None and not _marked(item.raw):
        _log.warning("message %s is no packet mail, though the server's search named it", item.ref)
        return None
    hints: dict[str, Any] = {}
    if read is not None and read.game_id is not None:
        hints["game_hint"] = read.game_id
        hints["seq_hint"] = -1 if read.seq is None else read.seq
    if read is None or not read.candidates:
        return IncomingPacket(ref=item.ref, data=item.raw[:UNREADABLE_BYTES], **hints)
    return IncomingPacket(
        ref=item.ref,
        data=read.candidates[0],
        message_id=read.message_id,
        alternatives=read.candidates[1:],
        **hints,
    )


def _marked(raw: bytes) -> bool:
    """Whether an email bears a mark of ours: `mime.is_hexpost`, or an ``X-Hexpost`` field in
    a header block too big for that cheap filter to parse (as a server's header search finds
    it)."""
    if mime.is_hexpost(raw):
        return True
    end = raw.find(b"\r\n\r\n")
    head = (raw if end < 0 else raw[:end]).lower()
    return b"\n" + mime.HEADER.lower().encode() + b":" in b"\n" + head


class MailTransport:
    """Send by SMTP, receive from one IMAP folder, as the account in ``config`` says."""

    def __init__(
        self,
        config: MailConfig,
        *,
        clock: Clock = _utc_now,
        token: Callable[[int], bytes] = os.urandom,
    ) -> None:
        self.config = config
        imap_config = config.imap
        self.name = f"imap:{imap_config.username}@{imap_config.host}/{imap_config.folder}"
        """The store keeps cursor and read refs under this name: another account or folder
        starts its own scan, and a changed port or password does not."""
        self._clock = clock
        self._token = token
        self._folder: imap.ImapFolder | None = None
        self._secrets: dict[str, str] = {}
        self._fetched: dict[str, int] = {}
        self._worker: _Worker | None = None
        """ref -> UID of the packet mail the last fetch returned, for `processed`."""
        self.from_junk: tuple[str, ...] = ()
        """The refs of the packet mail the last fetch found in the spam folder."""
        self.junk_folder: str | None = None
        """The spam folder the last look in it read (None: none was looked in)."""
        self.junk_problem = ""
        """Why the last look in the spam folder failed ("" when it did not)."""
        self._junk_wanted = False
        self._junk_state: JunkState | None = None
        """The spam folder's state as the last fetch left it (for `junk_look_in`)."""

    # --- secrets ------------------------------------------------------------------------------

    def _secret(self, server: ServerConfig) -> str:
        """The server's password, asked for once per transport; an OAuth2 token is fetched
        afresh each time (tokens expire within the hour, and a watch runs for days)."""
        if server.uses_oauth2:
            return resolve_secret(server)
        known = self._secrets.get(server.section)
        if known is None:
            known = self._secrets[server.section] = resolve_secret(server)
        return known

    # --- sending ------------------------------------------------------------------------------

    def build(self, packet: OutgoingPacket) -> tuple[str, bytes]:
        """A fresh Message-ID and the email that carries ``packet`` (new for every attempt: the
        packet's identity is inside its signed bytes, and Gmail drops a reused Message-ID)."""
        domain = self.config.address.rpartition("@")[2]
        message_id = mime.make_message_id(self._token(16), domain)
        raw = mime.build_message(
            packet,
            sender=self.config.address,
            subject=packet.subject or f"[hexpost] packet {packet.seq}",
            message_id=message_id,
            date=self._clock(),
            summary=packet.summary,
            references=packet.references,
            automatic=packet.automatic,
        )
        return message_id, raw

    async def send(self, packet: OutgoingPacket) -> str:
        """Email ``packet`` to its recipients; returns the Message-ID used, or raises
        `mail.smtp.SendError` (a `TransportError`), and then the outbox keeps it."""
        if not packet.to:
            raise TransportError(f"packet {packet.seq} has no recipient address to mail it to")
        message_id, raw = self.build(packet)
        try:
            secret = await asyncio.to_thread(self._secret, self.config.smtp)
        except AccountError as exc:
            raise smtp.SendError(f"cannot send: {exc}", retryable=False) from exc
        await smtp.send_message(
            self.config.smtp, self.config.address, packet.to, raw, secret=secret
        )
        return message_id

    async def send_text(
        self, to: Sequence[str], subject: str, lines: Sequence[str], references: Sequence[str]
    ) -> str:
        """Send a plain reminder email (no packet); returns its Message-ID."""
        domain = self.config.address.rpartition("@")[2]
        message_id = mime.make_message_id(self._token(16), domain)
        raw = mime.build_note(
            sender=self.config.address,
            to=to,
            subject=subject,
            message_id=message_id,
            date=self._clock(),
            lines=lines,
            references=references,
        )
        try:
            secret = await asyncio.to_thread(self._secret, self.config.smtp)
        except AccountError as exc:
            raise smtp.SendError(f"cannot send: {exc}", retryable=False) from exc
        await smtp.send_message(self.config.smtp, self.config.address, to, raw, secret=secret)
        return message_id

    # --- receiving ----------------------------------------------------------------------------

    def _open(self) -> imap.ImapFolder:
        if self._folder is None:
            try:
                secret = self._secret(self.config.imap)
            except AccountError as exc:
                raise imap.FetchError(f"cannot read mail: {exc}", retryable=False) from exc
            self._folder = imap.ImapFolder.open(self.config.imap, secret)
        return self._folder

    def _drop(self) -> None:
        """Forget a connection that failed; the next call opens a new one."""
        folder, self._folder = self._folder, None
        if folder is not None:
            folder.close()

    looks_up_seen = True
    """`fetch` asks ``seen`` about the new refs alone, on the caller's thread: `mail.sync`
    passes a `saves.outbox.SeenRefs` that looks them up in the store."""

    def _new_blocking(self, cursor: str) -> tuple[int, list[int], str]:
        try:
            opened = self._folder is None
            folder = self._open()
            uids, new_cursor = folder.new_uids(cursor, just_opened=opened)
        except BaseException:
            self._drop()
            raise
        return folder.uidvalidity, uids, new_cursor

    def _choose_blocking(
        self, uidvalidity: int, uids: list[int], judged: int | None = None
    ) -> list[int]:
        try:
            return self._folder_of(uidvalidity).packet_uids(uids, judged=judged)
        except BaseException:
            self._drop()
            raise

    def _download_blocking(self, uidvalidity: int, uids: list[int]) -> list[IncomingPacket]:
        try:
            found = self._folder_of(uidvalidity).bodies(uids)
        except BaseException:
            self._drop()
            raise
        self._fetched.update((item.ref, item.uid) for item in found)
        return [packet for packet in map(_incoming, found) if packet is not None]

    def _folder_of(self, uidvalidity: int) -> imap.ImapFolder:
        """The open folder, if its UIDs still mean what they meant when they were found."""
        folder = self._open()
        if folder.uidvalidity != uidvalidity:
            raise imap.FetchError(
                f"the folder {self.config.imap.folder!r} changed its UIDVALIDITY while it was "
                "read; will retry",
                retryable=True,
            )
        return folder

    async def fetch(self, cursor: str, seen: Container[str]) -> FetchResult:
        """The packet emails that arrived since ``cursor`` (see `mail.imap.ImapFolder`): all
        the batches of `fetch_stream` at once."""
        new_cursor, batches = await self.fetch_stream(cursor, seen)
        packets = [item async for batch in batches for item in batch]
        return FetchResult(packets=packets, cursor=new_cursor)

    async def fetch_stream(
        self, cursor: str, seen: Container[str]
    ) -> tuple[str, AsyncIterator[list[IncomingPacket]]]:
        """The next cursor, and the packet emails since ``cursor`` by batches of at most
        `mail.imap.FETCH_BATCH`, oldest first: while the caller takes one batch in, the worker
        thread already downloads and reads the next (`mail.sync.pull`).

        First, on the worker thread, the new UIDs (nothing more when there are none: the usual
        case, one NOOP on a kept connection, no command at all on a new one); then ``seen`` is
        asked about their refs here, on the caller's thread (by its `among` when it has one,
        one query for the lot); then the server names which of the others are packet mail.
        When a look in the spam folder is due (`mail.imapjunk`), what it finds comes last.

        The cursor is the configured folder's (``<uidvalidity>:<uid>``), then, on a second
        line, the spam folder's state (`JunkState`); a cursor of one line (written before
        there were looks in the spam folder) reads as no look yet."""
        main, junk = _split_cursor(cursor)
        uidvalidity, uids, new_main = await self._in_thread(self._new_blocking, main)
        self._fetched = {}
        self.from_junk, self.junk_folder, self.junk_problem = (), None, ""
        chosen: list[int] = []
        if uids:
            refs = [f"{uidvalidity}:{uid}" for uid in uids]
            known = _known(seen, refs)
            wanted = [uid for uid, ref in zip(uids, refs, strict=True) if ref not in known]
            first = main.partition(":")[0] != str(uidvalidity)  # (never read, or rebuilt)
            judged = FIRST_SCAN_JUDGED if first else None
            if wanted:
                chosen = await self._in_thread(self._choose_blocking, uidvalidity, wanted, judged)
        junk_mail: list[IncomingPacket] = []
        if self._junk_due(junk):
            junk, junk_mail = await self._look_in_junk(junk, seen)
        self._junk_state = junk
        return _join_cursor(new_main, junk), _batches(self, uidvalidity, chosen, junk_mail)

    def look_in_junk_next(self) -> None:
        """Make the next fetch look in the spam folder, however recent the last look: a sync
        the player asked for (`mail.sync.sync` with ``force``) does, since a player told of
        an invitation syncs at once and must not wait out `mail.imapjunk.JUNK_EVERY`. (Not
        when the last look found the account has no spam folder: finding one lists every
        folder, which is asked again only after `mail.imapjunk.JUNK_EVERY`.)"""
        self._junk_wanted = True

    def junk_look_in(self) -> float | None:
        """Seconds until a fetch is due to look in the spam folder (0: the next one will),
        or None when it never will (``ignore_junk``); the watch ends its wait for it."""
        if self.config.imap.ignore_junk:
            return None
        junk = self._junk_state
        if junk is None:
            return 0.0
        since = self._now() - junk.looked
        return float(max(0, imapjunk.JUNK_EVERY - since)) if since >= 0 else 0.0

    def _junk_due(self, junk: JunkState | None) -> bool:
        """Whether this fetch looks in the spam folder (`mail.imapjunk.JUNK_EVERY`)."""
        wanted, self._junk_wanted = self._junk_wanted, False
        if self.config.imap.ignore_junk:
            return False
        if junk is None or (wanted and junk.folder is not None):
            return True  # (an account found to have no spam folder is asked again in time)
        return not 0 <= self._now() - junk.looked < imapjunk.JUNK_EVERY

    def _now(self) -> int:
        return int(self._clock().timestamp())

    async def _look_in_junk(
        self, junk: JunkState | None, seen: Container[str]
    ) -> tuple[JunkState, list[IncomingPacket]]:
        """Look in the spam folder; its mail not already read, taken in as any other."""
        imap_config = self.config.imap
        name = imap_config.junk_folder or (junk.folder if junk else None)
        look = await self._in_thread(
            self._junk_blocking,
            name,
            junk.cursor if junk else "",
            imap_config.junk_folder is not None,
        )
        if look.folder in (imap_config.folder, imap_config.processed_folder):
            look = imapjunk.JunkLook(None, "")  # (a server that flags its inbox as spam)
        self.junk_folder, self.junk_problem = look.folder, look.problem
        refs = [item.ref for item in look.found]
        known = _known(seen, refs) if refs else ()
        found = [item for item in look.found if item.ref not in known]
        self.from_junk = tuple(item.ref for item in found)
        state = JunkState(looked=self._now(), cursor=look.cursor, folder=look.folder)
        return state, [packet for packet in map(_incoming, found) if packet is not None]

    def _junk_blocking(self, name: str | None, cursor: str, configured: bool) -> imapjunk.JunkLook:
        try:
            return imapjunk.look_in_junk(self._open(), name, cursor, configured=configured)
        except BaseException:
            self._drop()
            raise

    def _move_blocking(self, refs: Sequence[str]) -> None:
        target = self.config.imap.processed_folder
        uids = [self._fetched[ref] for ref in refs if ref in self._fetched]
        if target is None or not uids:
            return
        try:
            self._open().move(uids, target)
        except BaseException:
            self._drop()
            raise

    async def processed(self, refs: Sequence[str]) -> None:
        """Move the packet emails that were taken in to ``processed_folder``, if one is set.

        Called after the replica has stored them, so a crash before the move only leaves
        them in the inbox, where the next scan skips them as already read."""
        await self._in_thread(self._move_blocking, refs)

    def _idle_blocking(self, timeout: float) -> bool | None:
        try:
            folder = self._open()
            return folder.idle(timeout) if folder.has_idle() else None
        except BaseException:
            self._drop()
            raise

    async def wait(self, timeout: float, poll: float = POLL_SECONDS) -> bool:
        """Wait until new mail may be there or ``timeout`` seconds pass.

        With IMAP IDLE the server says when mail arrives (True), else False on timeout.
        Without it this polls: it sleeps ``poll`` seconds (at most ``timeout``) and returns
        True, so the caller fetches again."""
        announced = await self._in_thread(self._idle_blocking, timeout)
        if announced is None:
            await asyncio.sleep(min(timeout, poll))
            return True
        return announced

    async def close(self) -> None:
        await self._in_thread(self._drop)
        worker, self._worker = self._worker, None
        if worker is not None:
            worker.stop()

    async def _in_thread(self, fn: Callable[..., T], *args: object) -> T:
        """Run ``fn(*args)`` on the worker thread and await its result (see the module's notes)."""
        return await self._wait(self._submit(fn, *args))

    async def _wait(self, future: asyncio.Future[T]) -> T:
        """Await a call `_submit` handed to the worker; cancelled, abandon worker and folder."""
        worker = self._worker
        try:
            return await future
        except asyncio.CancelledError:
            self._folder = None  # still in use by that thread: never touch it again
            if worker is not None and self._worker is worker:
                self._worker = None  # nor the thread: it ends once that call returns
                worker.stop()
            raise

    def _submit(self, fn: Callable[..., T], *args: object) -> asyncio.Future[T]:
        """Hand ``fn(*args)`` to the worker thread now (it starts while the caller goes on);
        the future settles on this event loop."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()

        def settle(value: T | None, error: BaseException | None) -> None:
            if future.done():
                return
            if error is not None:
                future.set_exception(error)
            else:
                future.set_result(value)  # type: ignore[arg-type]

        def run() -> None:
            value: T | None = None
            error: BaseException | None = None
            try:
                value = fn(*args)
            except BaseException as exc:  # handed to the awaiting task, never lost
                error = exc
            # RuntimeError: the event loop is gone, so nobody waits for this any more.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(settle, value, error)

        worker = self._worker
        if worker is None:
            worker = self._worker = _Worker()
            weakref.finalize(self, worker.stop)
        worker.submit(run)
        return future


async def _batches(
    transport: MailTransport,
    uidvalidity: int,
    uids: list[int],
    junk: list[IncomingPacket] | None = None,
) -> AsyncIterator[list[IncomingPacket]]:
    """``uids`` downloaded and read by `imap.FETCH_BATCH` (the first batch `FIRST_BATCH`),
    each batch asked of the worker before the one before it is handed to the caller, so that
    the two overlap; then ``junk``, read from the spam folder already, as one batch."""
    first, size = min(FIRST_BATCH, imap.FETCH_BATCH), imap.FETCH_BATCH
    chunks = [uids[:first]] if uids else []
    chunks.extend(uids[start : start + size] for start in range(first, len(uids), size))
    pending = (
        transport._submit(transport._download_blocking, uidvalidity, chunks[0]) if chunks else None
    )
    index = 0
    try:
        while pending is not None:
            batch = await transport._wait(pending)
            index += 1
            pending = None
            if index < len(chunks):
                pending = transport._submit(
                    transport._download_blocking, uidvalidity, chunks[index]
                )
            yield batch
    finally:
        if pending is not None:  # the caller stopped early: let the call end, unheard
            pending.add_done_callback(_quiet)
    if junk:
        yield junk


def _known(seen: Container[str], refs: list[str]) -> Container[str]:
    """Which of ``refs`` were read: by ``seen``'s `among` when it has one (one query)."""
    among = getattr(seen, "among", None)
    return among(refs) if callable(among) else seen


class JunkState(msgspec.Struct, frozen=True, array_like=True):
    """Where the looks in the spam folder stand, kept in the transport's cursor."""

    looked: int
    """When the last look was, in seconds since the epoch (the transport's clock)."""
    cursor: str
    """The spam folder's ``<uidvalidity>:<uid>`` read through ("" at first)."""
    folder: str | None
    """The spam folder found (None: none; it is looked for again at the next look)."""


def _split_cursor(cursor: str) -> tuple[str, JunkState | None]:
    """The configured folder's cursor and the spam folder's state (None: no look yet, or a
    second line that does not read, which only makes the next fetch look again)."""
    main, _, rest = cursor.partition("\n")
    if not rest:
        return main, None
    try:
        return main, msgspec.json.decode(rest, type=JunkState)
    except msgspec.DecodeError:  # (and a ValidationError, a kind of it)
        return main, None


def _join_cursor(main: str, junk: JunkState | None) -> str:
    if junk is None:
        return main
    return f"{main}\n{msgspec.json.encode(junk).decode()}"


def _quiet(future: asyncio.Future[Any]) -> None:
    """Retrieve a result nobody waits for any more (so asyncio does not report it)."""
    if not future.cancelled():
        future.exception()


class _Worker:
    """One daemon thread that runs the transport's blocking calls in turn, reused from call
    to call (a thread started per call costs more than a NOOP on a kept connection). It holds
    no reference to the transport, so a transport dropped without `close` stops it too."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
        threading.Thread(
            target=self._run, args=(self._jobs,), name="hexpost-imap", daemon=True
        ).start()

    @staticmethod
    def _run(jobs: queue.SimpleQueue[Callable[[], None] | None]) -> None:
        while (job := jobs.get()) is not None:
            job()

    def submit(self, job: Callable[[], None]) -> None:
        self._jobs.put(job)

    def stop(self) -> None:
        """End the thread after the calls already submitted (at once when it is idle)."""
        self._jobs.put(None)
