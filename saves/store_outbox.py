"""The store's tables of what goes out: the ``outbox`` queue, the Message-IDs of a game's
emails (``mail_ids``), the transports' cursors, and the reminders already sent.

Every SQL statement about sending lives here; `saves.outbox` and `saves.reminders` decide
when and what.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from saves.store import Row, Store

OUTBOX_COLUMNS = (
    "id, game_id, seq, packet_id, data, recipients, subject, automatic, attempts, "
    "last_error, sent_at, summary, next_attempt, created_at, last_attempt, resends"
)
"""The columns `unsent` returns, in the order of `saves.outbox.OutboxEntry`'s fields."""


def queue(
    store: Store,
    game_id: bytes,
    seq: int,
    packet_id: bytes,
    data: bytes,
    *,
    recipients: str,
    subject: str,
    automatic: bool,
    now: str,
    summary: str,
) -> None:
    """Queue signed bytes once (a second queueing of the same id is ignored)."""
    store.db.execute(
        "INSERT OR IGNORE INTO outbox (game_id, seq, packet_id, data, recipients, subject, "
        "automatic, created_at, summary) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (game_id, seq, packet_id, data, recipients, subject, int(automatic), now, summary),
    )


def unsent(store: Store, game_id: bytes | None = None) -> list[Row]:
    """Rows (`OUTBOX_COLUMNS`) not taken by a transport yet, oldest first."""
    if game_id is None:
        return store.all(f"SELECT {OUTBOX_COLUMNS} FROM outbox WHERE sent_at IS NULL ORDER BY id")
    return store.all(
        f"SELECT {OUTBOX_COLUMNS} FROM outbox WHERE sent_at IS NULL AND game_id = ? ORDER BY id",
        (game_id,),
    )


_UNBOUNDED = 2**62
"""The last position of a range with no end (SQLite's integers are 64-bit)."""


Pick = Callable[[int, Sequence[bytes]], bytes | None]
"""Which of a packet's stored copies (its queued bytes, then the chain's) goes out again:
`saves.sound_copies.picker`; None sends none of them."""


def requeue_from(
    store: Store, game_id: bytes, first: int, seat: str, last: int | None, pick: Pick
) -> list[int]:
    """Mark ``seat``'s queued packets of a game from position ``first`` on (to ``last``, when
    given) as unsent again, with a fresh count of attempts, each with the bytes ``pick``
    takes of its queued copy and the chain's (none where it takes none); returns their
    positions."""
    rows = store.all(
        "SELECT o.id, o.seq, o.data, p.data FROM outbox o JOIN packets p "
        "ON p.game_id = o.game_id AND p.seq = o.seq AND p.packet_id = o.packet_id "
        "WHERE o.game_id = ? AND o.seq BETWEEN ? AND ? AND p.seat = ? ORDER BY o.seq",
        (game_id, first, _UNBOUNDED if last is None else last, seat),
    )
    queued = []
    for entry_id, seq, data, stored in rows:
        chosen = pick(int(seq), (bytes(data), bytes(stored)))
        if chosen is None:
            continue
        store.db.execute(
            "UPDATE outbox SET data = ?, sent_at = NULL, attempts = 0, last_error = NULL, "
            "next_attempt = NULL, resends = resends + 1 WHERE id = ?",
            (chosen, entry_id),
        )
        queued.append(int(seq))
    return queued


def queue_relays(
    store: Store,
    game_id: bytes,
    first: int,
    seat: str,
    recipients: str,
    name: str,
    now: str,
    last: int | None,
    pick: Pick,
) -> list[int]:
    """Queue the other seats' stored packets of a game from position ``first`` on (to
    ``last``, when given), to send to ``recipients`` (a home that lacks them: `saves.behind`,
    `saves.holes`), or mark those queued before as unsent again, each with the bytes
    ``pick`` takes of its copy queued before and the chain's; returns their positions.
    Each keeps its author's signature: the receiver checks it as it checks any packet, so who
    forwards it does not matter."""
    rows = store.all(
        "SELECT p.seq, p.packet_id, p.data, p.seat, o.data FROM packets p "
        "LEFT JOIN outbox o ON o.packet_id = p.packet_id "
        "WHERE p.game_id = ? AND p.seq BETWEEN ? AND ? AND p.seat != ? ORDER BY p.seq",
        (game_id, first, _UNBOUNDED if last is None else last, seat),
    )
    queued = []
    for seq, packet_id, stored, author, data in rows:
        copies = (bytes(stored),) if data is None else (bytes(data), bytes(stored))
        chosen = pick(int(seq), copies)
        if chosen is None:
            continue
        subject = f"[hexpost] {name}: {author}'s packet {seq}, sent again"
        queue(
            store,
            game_id,
            seq,
            bytes(packet_id),
            chosen,
            recipients=recipients,
            subject=subject,
            automatic=False,
            now=now,
            summary="",
        )
        store.db.execute(
            "UPDATE outbox SET data = ?, sent_at = NULL, attempts = 0, last_error = NULL, "
            "next_attempt = NULL, resends = resends + 1 WHERE packet_id = ?",
            (chosen, bytes(packet_id)),
        )
        queued.append(int(seq))
    return queued


def mark_sent(store: Store, entry_id: int, now: str) -> tuple[bytes, int] | None:
    """Record a send; returns the entry's ``(game, seq)`` (None when no such entry)."""
    store.db.execute(
        "UPDATE outbox SET sent_at = ?, attempts = attempts + 1, last_attempt = ?, "
        "last_error = NULL, next_attempt = NULL WHERE id = ?",
        (now, now, entry_id),
    )
    row = store.one("SELECT game_id, seq FROM outbox WHERE id = ?", (entry_id,))
    return None if row is None else (bytes(row[0]), int(row[1]))


def attempts(store: Store, entry_id: int) -> int:
    row = store.one("SELECT attempts FROM outbox WHERE id = ?", (entry_id,))
    return int(row[0]) if row is not None else 0


def mark_failed(
    store: Store, entry_id: int, attempts: int, now: str, error: str, next_attempt: str | None
) -> None:
    store.db.execute(
        "UPDATE outbox SET attempts = ?, last_attempt = ?, last_error = ?, next_attempt = ? "
        "WHERE id = ?",
        (attempts, now, error, next_attempt, entry_id),
    )


# --- Message-IDs and cursors ---------------------------------------------------------------


def record_mail_id(store: Store, game_id: bytes, seq: int | None, message_id: str) -> None:
    store.db.execute(
        "INSERT OR IGNORE INTO mail_ids (game_id, seq, message_id) VALUES (?, ?, ?)",
        (game_id, seq, message_id),
    )


def record_mail_ids(store: Store, rows: Sequence[tuple[bytes, int | None, str]]) -> None:
    """`record_mail_id` for each ``(game, seq, Message-ID)``, by one statement run for all."""
    store.db.executemany(
        "INSERT OR IGNORE INTO mail_ids (game_id, seq, message_id) VALUES (?, ?, ?)", rows
    )


def mail_ids(store: Store, game_id: bytes) -> list[str]:
    """A game's Message-IDs by packet (those of no packet last), then as recorded."""
    rows = store.all(
        "SELECT message_id FROM mail_ids WHERE game_id = ? ORDER BY seq IS NULL, seq, rowid",
        (game_id,),
    )
    return [str(mid) for (mid,) in rows]


def cursor(store: Store, transport: str) -> str:
    row = store.one("SELECT cursor FROM cursors WHERE transport = ?", (transport,))
    return "" if row is None else str(row[0])


def save_cursor(store: Store, transport: str, value: str) -> None:
    store.db.execute(
        "INSERT INTO cursors (transport, cursor) VALUES (?, ?) "
        "ON CONFLICT (transport) DO UPDATE SET cursor = excluded.cursor",
        (transport, value),
    )


# --- reminders -----------------------------------------------------------------------------


def reminded(store: Store, game_id: bytes, head_seq: int, window: int) -> bool:
    """Whether a reminder for this window (or a later one) at this head went out."""
    row = store.one(
        "SELECT 1 FROM reminders WHERE game_id = ? AND head_seq = ? AND window >= ?",
        (game_id, head_seq, window),
    )
    return row is not None


def record_reminder(store: Store, game_id: bytes, head_seq: int, window: int, now: str) -> None:
    store.db.execute(
        "INSERT OR IGNORE INTO reminders (game_id, head_seq, window, sent_at) VALUES (?, ?, ?, ?)",
        (game_id, head_seq, window, now),
    )
