"""Sync: pull what arrived, apply it, remind late players, then push the outbox.

Pulling comes first so automatic replies (entropy for a roll, a reveal) that the received
packets call for are already in the outbox when it is pushed. Received packets are taken in
by batches, each one store transaction that also marks its transport refs as read, so a crash
at any point loses nothing and applies nothing twice; a crash after a send but before it is marked
only means the same bytes go out again, which every receiver ignores as a duplicate.
"""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Callable, Container, Iterator, Sequence
from contextlib import contextmanager

import msgspec

from engine.core.errors import HexpostError
from engine.core.state import SeatState
from mail.reminding import send_checks, send_reminders
from mail.transport import IncomingPacket, OutgoingPacket, Transport, TransportError
from saves import behind, outbox, quarantine, resend_asks, resigning, scrub
from saves.inbox import Received
from saves.outcome import Outcome
from saves.replica import GameRow, Replica

_log = logging.getLogger(__name__)


class SendFailure(msgspec.Struct, frozen=True):
    seq: int
    error: str
    game_id: bytes = b""
    """The game of the packet that could not be sent."""


class SyncReport(msgspec.Struct, frozen=True):
    """What one sync did."""

    received: list[Outcome]
    sent: list[int]
    failed: list[SendFailure]
    problems: list[str] = []
    """Automatic replies that could not be written, one line per game."""
    requests: list[str] = []
    """Requests sent to the other player for a packet whose copy came damaged (mail only)."""
    resigned: list[str] = []
    """The games this sync resigned, as their player asked earlier (`saves.resigning`)."""
    reminders: list[str] = []
    """Reminders emailed to late players (or not, with the reason): `mail.reminding`."""
    pushed: list[bytes] = []
    """The games whose outbox this sync changed (a packet sent, or a failed attempt noted):
    what they show of it (``1 to send``) changed too, though no packet arrived."""
    written: list[tuple[bytes, int]] = []
    """The automatic replies this sync wrote (game, sequence number): what they did (the
    dice of a battle round and the round they fought) is news to their own player too."""
    checks: list[str] = []
    """Silent checks sent for a move that may have been lost in the mail (`mail.reminding`)."""


TAKE_BATCH = 100
"""Fetched items taken in per store transaction (one commit and one head snapshot per game
for the lot, instead of one per packet). A transport that streams its batches
(``fetch_stream``, the mail transport's `mail.imap.FETCH_BATCH`) sets its own."""


HANDOFF_SECONDS = 0.0005
"""The interpreter's thread switch interval while batches stream in (`_quick_handoffs`)."""
_handoffs = threading.Lock()
_streaming = [0, 0.0]
"""Pulls streaming now, and the switch interval to restore when the last one ends."""


@contextmanager
def _quick_handoffs() -> Iterator[None]:
    """Shorten the interpreter's thread switch interval while batches stream in.

    The transport's worker thread downloads and reads the next batch while this one is taken
    in, and every SQLite statement here lets go of the interpreter lock: with the default
    interval (5 ms) each statement may then wait that long for the worker to give the lock
    back, so a batch took two to three times its CPU time. Concurrent pulls share one saved
    interval, restored when the last of them ends."""
    with _handoffs:
        if _streaming[0] == 0:
            _streaming[1] = sys.getswitchinterval()
            sys.setswitchinterval(min(_streaming[1], HANDOFF_SECONDS))
        _streaming[0] += 1
    try:
        yield
    finally:
        with _handoffs:
            _streaming[0] -= 1
            if _streaming[0] == 0:
                sys.setswitchinterval(_streaming[1])


async def pull(
    replica: Replica,
    transport: Transport,
    now: Callable[[], str],
    taken: list[str] | None = None,
) -> list[Outcome]:
    """Fetch what the transport has that this home has not read, and take each packet in.

    Of an item with several decoded copies (an email's attachment and armoured text) the first
    that verifies is taken in (`saves.inbox.pick_copy`, inside the replica, so the check that
    picks a copy is the only check of its signature). The items go in by batches of
    `TAKE_BATCH`, each batch one transaction that also marks its refs read and keeps their
    Message-IDs for threading (`Replica.receive_many`); the cursor is saved last, so a crash
    re-fetches at worst what was already taken in (and ignored as read), and a crash inside a
    batch stores none of it and marks none of it read. The batches' commits do not wait for
    the disk one by one: they are flushed together (`Store.unflushed`, `Store.flush`) before
    any mail is moved away or the cursor saved, so a power cut before that flush only leaves
    those items unread on the server, to be taken in again.

    ``taken``, when given, receives the transport's ref of each item, in the order of the
    outcomes (one outcome per item).
    """
    store = replica.store
    cursor = outbox.cursor(store, transport.name)
    seen: Container[str]
    if getattr(transport, "looks_up_seen", False):
        seen = outbox.SeenRefs(store, transport.name)
    else:
        seen = outbox.seen_refs(store, transport.name)
    outcomes: list[Outcome] = []
    refs: list[str] = []
    stream = getattr(transport, "fetch_stream", None)
    if stream is not None:  # batches that arrive while the one before is taken in
        new_cursor, batches = await stream(cursor, seen)
        try:
            with _quick_handoffs():
                async for batch in batches:
                    outcomes.extend(_take_batch(replica, transport.name, batch, now()))
                    refs.extend(item.ref for item in batch)
        except Exception:
            # The connection failed after some batches were stored: those are read, so file
            # them away now (the next fetch skips them); the cursor stays for the rest.
            store.flush()
            await _file_away(transport, refs)
            raise
    else:
        result = await transport.fetch(cursor, seen)
        new_cursor, packets = result.cursor, result.packets
        refs = [item.ref for item in packets]
        for start in range(0, len(packets), TAKE_BATCH):
            batch = packets[start : start + TAKE_BATCH]
            outcomes.extend(_take_batch(replica, transport.name, batch, now()))
    store.flush()  # the batches are on disk before anything outside the store relies on them
    if taken is not None:
        taken.extend(refs)
    await _file_away(transport, refs)
    if new_cursor != cursor:
        outbox.save_cursor(store, transport.name, new_cursor)
    return outcomes


def _received(transport: str, item: IncomingPacket) -> Received:
    return Received(
        data=item.data,
        source=f"{transport} {item.ref}",
        ref=(transport, item.ref),
        message_id=item.message_id,
        hint=(item.game_hint or None, item.seq_hint if item.seq_hint >= 0 else None),
        alternatives=item.alternatives,
    )


def _take_batch(
    replica: Replica, transport: str, items: Sequence[IncomingPacket], now: str
) -> list[Outcome]:
    """Take a batch in by one transaction; should that fail as a whole (even recording an
    item's failure failed: a full disk?), each item by its own, so one never stops the rest.
    Its commit leaves the flush to the disk to the pull's end (`Store.unflushed`)."""
    with replica.store.unflushed():
        try:
            return replica.receive_many([_received(transport, item) for item in items], now=now)
        except Exception:
            _log.exception("could not take in a batch of %d items: one at a time", len(items))
            return [_take(replica, transport, item, now) for item in items]


def _take(replica: Replica, transport: str, item: IncomingPacket, now: str) -> Outcome:
    """Take one fetched item in; whatever it raises is its own outcome, never the sync's."""
    received = _received(transport, item)
    try:
        return replica.receive(
            received.data,
            source=received.source,
            now=now,
            ref=received.ref,
            message_id=received.message_id,
            hint=received.hint,
            alternatives=received.alternatives,
        )
    except Exception as exc:  # even recording it failed (a full disk?): report, go on
        _log.exception("could not take in %s", received.source)
        detail = f"could not be taken in: {type(exc).__name__}: {exc}"
        return Outcome("rejected", detail, source=received.source, attention=True)


async def _file_away(transport: Transport, refs: list[str]) -> None:
    """Let a transport that can (mail with ``processed_folder`` set) move what was taken in.

    Only after each item is stored: a crash before the move leaves the email where it was, and
    the next fetch skips it as read. A failed move loses nothing either, so it is only logged."""
    processed = getattr(transport, "processed", None)
    if processed is None or not refs:
        return
    try:
        await processed(refs)
    except TransportError as exc:
        _log.warning("packet mail not moved to the processed folder: %s", exc)


def outgoing(replica: Replica, entry: outbox.OutboxEntry) -> OutgoingPacket:
    """The packet as a transport takes it: the stored bytes unchanged, the subject and summary
    written when it was queued, the game's Message-IDs to thread by, and our address."""
    return OutgoingPacket(
        game_id=entry.game_id,
        seq=entry.seq,
        packet_id=entry.packet_id,
        data=entry.data,
        to=entry.recipients,
        subject=entry.subject,
        summary=entry.summary,
        references=outbox.references(replica.store, entry.game_id),
        automatic=entry.automatic,
        sender=_sender(replica, entry.game_id),
        resend=entry.resends,
    )


def _sender(replica: Replica, game_id: bytes) -> str:
    """Our address as the game binds our seat ("" if the game or seat cannot be read)."""
    try:
        row = replica.game(game_id)
        return replica.state(game_id).core.seat_state(row.my_seat).address
    except (HexpostError, KeyError):
        return ""


async def push(
    replica: Replica,
    transport: Transport,
    now: Callable[[], str],
    game_id: bytes | None = None,
    *,
    force: bool = True,
) -> tuple[list[int], list[SendFailure], list[bytes]]:
    """Offer the unsent packets to the transport, oldest first; record each attempt. Gives
    the packets sent, those that failed, and the games of either (`SyncReport.pushed`).

    ``force`` (a sync the user asked for) tries every unsent packet; without it (the watch
    loop) a packet still waiting out its backoff after a failure is skipped. A failure records
    the error and the next attempt's time (`saves.outbox.mark_failed`: 1, 2, 4... minutes, at
    most an hour; an hour at once when the error says a retry cannot help, ``retryable`` False).
    A success records the Message-ID the transport returns, for threading, and marks read
    the item the send wrote where the transport names one (`mail.folder.FolderTransport.
    written_ref`: a folder this home reads too), so the next fetch does not bring it back.
    """
    sent: list[int] = []
    failed: list[SendFailure] = []
    pushed: list[bytes] = []
    for entry in outbox.unsent(replica.store, game_id):
        if not force and not outbox.due(entry, now()):
            continue
        packet = outgoing(replica, entry)
        try:
            reference = await transport.send(packet)
        except TransportError as exc:
            retryable = bool(getattr(exc, "retryable", True))
            outbox.mark_failed(replica.store, entry.id, str(exc), now(), retryable=retryable)
            failed.append(SendFailure(entry.seq, str(exc), entry.game_id))
            continue
        written = getattr(transport, "written_ref", None)  # (a folder both homes read)
        own = written(packet) if written is not None else None
        seen = (transport.name, own) if own else None
        outbox.mark_sent(replica.store, entry.id, now(), reference or "", seen=seen)
        sent.append(entry.seq)
        pushed.append(entry.game_id)
    return sent, failed, list(dict.fromkeys([*pushed, *(f.game_id for f in failed)]))


async def sync(
    replica: Replica,
    transport: Transport,
    now: Callable[[], str],
    *,
    force: bool = True,
    auto_replies: bool = True,
) -> SyncReport:
    """Pull, apply, remind late players (`mail.reminding`) and push once (``force``: see
    `push`; a mail transport then looks in the spam folder too, `mail.imapjunk`).
    ``auto_replies`` False leaves the rolls and reveals this home owes for the player to
    answer (``--no-auto-replies``)."""
    caught_up = replica.catch_up(now=now())
    wanted = getattr(transport, "look_in_junk_next", None)  # (mail: the spam folder too)
    if force and wanted is not None:
        wanted()
    taken: list[str] = []
    pulled = await pull(replica, transport, now, taken)
    received = caught_up + pulled
    written, problems = replica.auto_replies(now()) if auto_replies else ([], [])
    # (one outcome per item taken, in order; should that ever not hold, nothing is said)
    pairs = list(zip(taken, pulled, strict=True)) if len(taken) == len(pulled) else []
    problems = [*junk_lines(transport, pairs), *problems]
    try:  # (damage nothing reads yet, looked for in a quiet sync: asked for next)
        if not received:
            scrub.look(replica, now())
    except Exception as exc:  # (never seen) the sync goes on, and says so
        problems = [*problems, f"the look over the stored packets failed: {exc}"]
    requests = await ask_for_damaged(replica, transport, now)  # (its signed asks: pushed next)
    reminded = await send_reminders(replica, transport, now)  # (theirs too)
    checked = await send_checks(replica, transport, now)  # (their asks too)
    sent, failed, pushed = await push(replica, transport, now, force=force)
    resigned = resigning.resigned_in(replica, written)
    return SyncReport(
        received, sent, failed, problems, requests, resigned, reminded, pushed, written, checked
    )


_TAKEN = frozenset({"applied", "buffered", "duplicate", "invitation", "chat", "claim"})
"""The outcomes of an item that was ours to take in (a stranger's forgery is none of these)."""


def junk_lines(transport: Transport, received: Sequence[tuple[str, Outcome]]) -> list[str]:
    """What the last fetch's look in the spam folder calls for (`mail.imapjunk`): a line when
    mail of this home's games was there, and one when the look failed. ``received`` pairs
    each item the fetch brought with what taking it in did."""
    lines: list[str] = []
    problem = getattr(transport, "junk_problem", "")
    if problem:
        lines.append(problem)
    refs = set(getattr(transport, "from_junk", ()))
    if not refs:
        return lines
    taken = [o for ref, o in received if o.status in _TAKEN and ref in refs]
    if taken:
        folder = getattr(transport, "junk_folder", None) or "spam"
        one = len(taken) == 1
        lines.append(
            f"{len(taken)} hexpost email{'' if one else 's'} {'was' if one else 'were'} in your "
            f"spam folder {folder!r} and read there. Mark such mail as not spam (or add the "
            "sender to your contacts) so that it reaches your inbox: a watching hexpost looks "
            "in the spam folder only every 15 minutes"
        )
    return lines


def _seats(replica: Replica, row: GameRow) -> Sequence[SeatState]:
    """The game's seats as its state has them; none where the state cannot be read."""
    try:
        return replica.state(row.game_id).core.seats
    except HexpostError:
        return ()


async def ask_for_damaged(
    replica: Replica, transport: Transport, now: Callable[[], str]
) -> list[str]:
    """Email the author of each packet whose only copy came damaged, once per position, so
    that neither player waits silently (`saves.quarantine.resend_requests`): the author's
    `hexpost resend` sends it again. Likewise, for a game this home is behind on its own
    move (`saves.behind`), or that lost a packet from its store (`saves.holes`; a frozen
    game too, whose evidence carries its chain), or whose
    wait for the other seat's move sits behind a gap that has lasted an hour
    (`saves.behind.gap_request`), ask the other player to send the chain again from the
    gap. Beside
    each note a signed ask goes in the outbox (`saves.resend_asks`), which the other home
    answers by itself. A transport that sends no plain notes (a shared folder, which its
    author reads too, so sees the damage itself, and the packets a home lacks) asks nothing."""
    send_text = getattr(transport, "send_text", None)
    if send_text is None:
        return []
    games = []
    requests: list[quarantine.ResendRequest] = []
    gaps: list[quarantine.ResendRequest] = []
    # A packet lost or damaged in this home's store, even where that stops all reading, and in
    # a frozen game too (its evidence carries the chain).
    for row in replica.playable_games():
        if row.status == "active":
            lost = replica.lost_range(row.game_id)
            request = None if lost is None else behind.lost_request(
                replica.store, row.game_id, row.name, lost[0], row.my_seat,
                _seats(replica, row), upto=lost[1],
            )  # fmt: skip
            requests += [] if request is None else [request]
    for row in replica.active_games():
        owed = replica.pending(row.game_id)
        if not owed:
            continue
        state = replica.state(row.game_id)
        if owed[0].seats[0] == row.my_seat:  # our move, unless this home is behind the game
            request = behind.resend_request(
                replica.store, row.game_id, row.name, row.head_seq, row.my_seat, state.core.seats
            )
            requests += [] if request is None else [request]
            continue
        address = state.core.seat_state(owed[0].seats[0]).address
        games.append((row.game_id, row.name, row.head_seq, owed[0].seats[0], address))
        gap = behind.gap_request(
            replica.store, row.game_id, row.name, row.head_seq, state.core.seats, now()
        )
        gaps += [] if gap is None else [gap]
    requests += quarantine.resend_requests(replica.store, games)
    asked = {(request.game_id, request.seq) for request in requests}
    requests += [gap for gap in gaps if (gap.game_id, gap.seq) not in asked]
    lines: list[str] = []
    for request in requests:
        subject, body = quarantine.request_text(request)
        try:
            await send_text(
                [request.address], subject, body, outbox.references(replica.store, request.game_id)
            )
        except TransportError as exc:
            lines.append(f"could not ask {request.address} to resend packet {request.seq}: {exc}")
            continue
        quarantine.record_request(replica.store, request, now())
        resend_asks.queue_ask(replica, request, now())
        lines.append(quarantine.request_line(request))
    return lines
