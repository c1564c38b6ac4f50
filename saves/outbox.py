"""Transport bookkeeping in the store: the outbox queue, cursors, refs already read, Message-IDs.

The outbox is the queue: a packet enters it in the same transaction that stores it, and
leaves only when a transport has taken it. Every attempt and its error are recorded, and a
retry sends the very same bytes (protocol property P9). A failed attempt sets the entry's
``next_attempt`` by exponential backoff (`backoff_minutes`): the watch loop skips an entry
until then (`due`), while a sync the user asked for tries everything at once.

``mail_ids`` keeps the Message-IDs of each game's packet emails, sent and received, so the
next email of the game can name them (`references`) and mail clients thread the game.

Times are the ISO 8601 stamps the callers pass in (``2030-01-01T00:01:02Z``, fractions
allowed); nothing here reads a clock.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import msgspec

from saves import sound_copies, store_games, store_inbox, store_outbox
from saves.store import Row, Store

BACKOFF_CAP_MINUTES = 60
"""The longest wait between two automatic attempts, and the wait after a permanent error."""

MAX_REFERENCES = 10
"""Message-IDs an email names at most: the game's first one and the latest nine."""


class OutboxEntry(msgspec.Struct, frozen=True):
    """A signed packet waiting to be sent (or already sent, for listings)."""

    id: int
    game_id: bytes
    seq: int
    packet_id: bytes
    data: bytes
    recipients: tuple[str, ...]
    subject: str
    automatic: bool
    attempts: int
    last_error: str | None
    sent_at: str | None
    summary: tuple[str, ...] = ()
    """What the packet does, one plain-language line each (the body of its email)."""
    next_attempt: str | None = None
    """No automatic attempt before this time (None: now); a manual sync ignores it."""
    created_at: str = ""
    last_attempt: str | None = None
    resends: int = 0
    """How many times the player asked to send it again (`requeue`)."""


def _entry(row: Row) -> OutboxEntry:
    values = list(row)
    values[5] = tuple(str(values[5]).split("\n")) if values[5] else ()
    values[7] = bool(values[7])
    values[11] = tuple(str(values[11]).split("\n")) if values[11] else ()
    return OutboxEntry(*values)


def unsent(store: Store, game_id: bytes | None = None) -> list[OutboxEntry]:
    """Packets not yet taken by a transport, oldest first."""
    return [_entry(row) for row in store_outbox.unsent(store, game_id)]


def waiting(store: Store, game_id: bytes | None = None) -> list[OutboxEntry]:
    """What the UI shows as "not sent yet": every unsent packet, oldest first, with its
    attempts, last error and next automatic attempt (see `waiting_text`)."""
    return unsent(store, game_id)


def waiting_text(entry: OutboxEntry) -> str:
    """One line for the UI, e.g. ``packet 12 not sent yet: 3 attempts, last error: connection
    refused; next try 01:42`` (the time in UTC, as stored)."""
    if entry.sent_at is not None:
        return f"packet {entry.seq} sent {entry.sent_at}"
    if entry.attempts == 0:
        return f"packet {entry.seq} not sent yet: not tried yet"
    tries = "1 attempt" if entry.attempts == 1 else f"{entry.attempts} attempts"
    text = f"packet {entry.seq} not sent yet: {tries}"
    if entry.last_error:
        text += f", last error: {entry.last_error}"
    if entry.next_attempt:
        when = parse_time(entry.next_attempt)
        text += f"; next try {when.strftime('%H:%M') if when else entry.next_attempt}"
    return text


def backoff_minutes(attempts: int, *, retryable: bool = True) -> int:
    """The wait after the ``attempts``-th failed attempt: 1, 2, 4, ... minutes, at most
    `BACKOFF_CAP_MINUTES`; a permanent error (the user must act first) waits the cap."""
    if not retryable:
        return BACKOFF_CAP_MINUTES
    exponent = max(0, attempts - 1)
    if exponent >= 6:
        return BACKOFF_CAP_MINUTES
    return min(1 << exponent, BACKOFF_CAP_MINUTES)


def parse_time(stamp: str) -> datetime | None:
    """A stored ISO 8601 stamp as an aware UTC datetime (naive ones are UTC); None if unreadable."""
    try:
        when = datetime.fromisoformat(stamp)
    except ValueError:
        try:
            when = datetime.strptime(stamp[:19], "%Y-%m-%dT%H:%M:%S")
        except ValueError:
            return None
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)


def format_time(when: datetime) -> str:
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def due(entry: OutboxEntry, now: str) -> bool:
    """Whether the watch loop may try ``entry`` at ``now`` (its backoff is over).

    A stamp that cannot be read counts as due, so a damaged value never blocks a packet.
    """
    if entry.sent_at is not None:
        return False
    if entry.next_attempt is None:
        return True
    wait_until, at = parse_time(entry.next_attempt), parse_time(now)
    return wait_until is None or at is None or at >= wait_until


def requeue(
    store: Store, game_id: bytes, seat: str, first: int | None, last: int | None = None
) -> list[int]:
    """Queue this home's packets of a game again, from position ``first`` on, to ``last`` when
    given (`hexpost resend`).

    Without ``first``: every packet of ours after the other seats' latest packet in the
    chain, since whoever wrote that packet held all of ours before it. Each goes out as a new
    email, or a new file in a shared folder. Returns the positions queued.
    """
    if first is None:
        theirs = store_games.last_seq_not_by(store, game_id, seat)
        first = 0 if theirs is None else theirs + 1
    with store.transaction():
        return store_outbox.requeue_from(
            store, game_id, first, seat, last, sound_copies.picker(store, game_id)
        )


def relay(
    store: Store,
    game_id: bytes,
    seat: str,
    first: int,
    *,
    recipients: Sequence[str],
    name: str,
    now: str,
    last: int | None = None,
) -> list[int]:
    """Queue every packet of a game from position ``first`` on again (to ``last`` when
    given), the other seats' too (`hexpost resend --every-seat`): for a player whose home
    lacks part of the chain, its own packets among them, because it was restored from an
    older copy (`saves.behind`) or lost them from its store (`saves.holes`). Returns the
    positions queued."""
    pick = sound_copies.picker(store, game_id)
    with store.transaction():
        mine = store_outbox.requeue_from(store, game_id, first, seat, last, pick)
        theirs = store_outbox.queue_relays(
            store, game_id, first, seat, "\n".join(recipients), name, now, last, pick
        )
    return sorted(mine + theirs)


def mark_sent(
    store: Store,
    entry_id: int,
    now: str,
    message_id: str = "",
    *,
    seen: tuple[str, str] | None = None,
) -> None:
    """Record a successful send; ``message_id`` (when not empty) is kept for threading, and
    ``seen`` (a transport and the ref of what the send wrote where this home reads too) is
    marked read, in the same transaction."""
    with store.transaction():
        sent = store_outbox.mark_sent(store, entry_id, now)
        if message_id and sent is not None:
            record_mail_id(store, *sent, message_id)
        if seen is not None:
            store_inbox.mark_seen(store, *seen)


def mark_failed(
    store: Store, entry_id: int, error: str, now: str, *, retryable: bool = True
) -> str | None:
    """Record a failed attempt and when the next automatic one may happen (returned)."""
    with store.transaction():
        attempts = store_outbox.attempts(store, entry_id) + 1
        at = parse_time(now)
        next_attempt = (
            None
            if at is None
            else format_time(at + timedelta(minutes=backoff_minutes(attempts, retryable=retryable)))
        )
        store_outbox.mark_failed(store, entry_id, attempts, now, error, next_attempt)
        return next_attempt


def record_mail_id(store: Store, game_id: bytes, seq: int | None, message_id: str) -> None:
    """Keep a Message-ID of one of the game's packet emails (once; the caller may hold the
    transaction)."""
    if not message_id:
        return
    with store.transaction():
        store_outbox.record_mail_id(store, game_id, seq, message_id)


def record_mail_ids(store: Store, rows: Sequence[tuple[bytes, int | None, str]]) -> None:
    """`record_mail_id` of several emails' ``(game, seq, Message-ID)`` (``""`` ids skipped),
    in the caller's transaction."""
    with store.transaction():
        store_outbox.record_mail_ids(store, [row for row in rows if row[2]])


def references(store: Store, game_id: bytes) -> tuple[str, ...]:
    """The Message-IDs a new email of the game names, oldest first: the game's first and its
    latest ones, `MAX_REFERENCES` in all (ordered by packet, then as they were recorded)."""
    ids = store_outbox.mail_ids(store, game_id)
    if len(ids) > MAX_REFERENCES:
        ids = [ids[0], *ids[-(MAX_REFERENCES - 1) :]]
    return tuple(ids)


def cursor(store: Store, transport: str) -> str:
    """Where the transport's next fetch starts ("" before the first)."""
    return store_outbox.cursor(store, transport)


def save_cursor(store: Store, transport: str, value: str) -> None:
    with store.transaction():
        store_outbox.save_cursor(store, transport, value)


def seen_refs(store: Store, transport: str) -> set[str]:
    """Every ref this transport delivered that was already taken in."""
    return store_inbox.seen_refs(store, transport)


class SeenRefs:
    """The refs this transport delivered that were taken in, looked up as they are asked for
    (`among`, or ``in``) instead of read whole: a transport that knows which refs are new (an
    IMAP folder: the UIDs past its cursor) asks about those alone, where the whole set grows
    with every mail ever read. Use it on the thread that owns the store, like the store."""

    def __init__(self, store: Store, transport: str) -> None:
        self._store = store
        self._transport = transport

    def __contains__(self, ref: object) -> bool:
        return isinstance(ref, str) and bool(self.among([ref]))

    def among(self, refs: Sequence[str]) -> set[str]:
        """Those of ``refs`` already taken in."""
        return store_inbox.seen_among(self._store, self._transport, refs)
