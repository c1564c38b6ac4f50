"""Transport bookkeeping in the store: the outbox queue, cursors and the refs already read.

The outbox is the queue: a packet enters it in the same transaction that stores it, and
leaves only when a transport has taken it. Every attempt and its error are recorded, and a
retry sends the very same bytes (protocol property P9).
"""

from __future__ import annotations

import msgspec

from saves.store import Row, Store


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


_COLUMNS = (
    "id, game_id, seq, packet_id, data, recipients, subject, automatic, attempts, "
    "last_error, sent_at"
)


def _entry(row: Row) -> OutboxEntry:
    values = list(row)
    values[5] = tuple(str(values[5]).split("\n")) if values[5] else ()
    values[7] = bool(values[7])
    return OutboxEntry(*values)


def unsent(store: Store, game_id: bytes | None = None) -> list[OutboxEntry]:
    """Packets not yet taken by a transport, oldest first."""
    if game_id is None:
        rows = store.all(f"SELECT {_COLUMNS} FROM outbox WHERE sent_at IS NULL ORDER BY id")
    else:
        rows = store.all(
            f"SELECT {_COLUMNS} FROM outbox WHERE sent_at IS NULL AND game_id = ? ORDER BY id",
            (game_id,),
        )
    return [_entry(row) for row in rows]


def mark_sent(store: Store, entry_id: int, now: str) -> None:
    with store.transaction() as db:
        db.execute(
            "UPDATE outbox SET sent_at = ?, attempts = attempts + 1, last_attempt = ?, "
            "last_error = NULL WHERE id = ?",
            (now, now, entry_id),
        )


def mark_failed(store: Store, entry_id: int, error: str, now: str) -> None:
    with store.transaction() as db:
        db.execute(
            "UPDATE outbox SET attempts = attempts + 1, last_attempt = ?, last_error = ? "
            "WHERE id = ?",
            (now, error, entry_id),
        )


def cursor(store: Store, transport: str) -> str:
    row = store.one("SELECT cursor FROM cursors WHERE transport = ?", (transport,))
    return "" if row is None else str(row[0])


def save_cursor(store: Store, transport: str, value: str) -> None:
    with store.transaction() as db:
        db.execute(
            "INSERT INTO cursors (transport, cursor) VALUES (?, ?) "
            "ON CONFLICT (transport) DO UPDATE SET cursor = excluded.cursor",
            (transport, value),
        )


def seen_refs(store: Store, transport: str) -> set[str]:
    """Every ref this transport delivered that was already taken in."""
    rows = store.all("SELECT ref FROM transport_seen WHERE transport = ?", (transport,))
    return {str(ref) for (ref,) in rows}
