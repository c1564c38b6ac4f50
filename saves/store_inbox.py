"""The store's tables of what arrived: packets held for the ones before them (``buffered``),
packets kept aside for a key not known yet (``parked``), refused items (``rejected``, with the
running ``quota`` count of both bounded tables), the transport refs already read, and the
requests to resend a damaged packet.

Every SQL statement about received items lives here; `saves.inbox` and `saves.quarantine`
decide what to do with them.
"""

from __future__ import annotations

from collections.abc import Sequence

from saves.store import Row, Store

# --- buffered: early packets -------------------------------------------------------------------


def buffer(
    store: Store,
    game_id: bytes,
    seq: int,
    packet_id: bytes,
    seat: str,
    data: bytes,
    now: str,
    public_key: bytes,
) -> None:
    """Hold a verified packet, with the key it verified under (so it is not checked again)."""
    store.db.execute(
        "INSERT OR IGNORE INTO buffered (game_id, seq, packet_id, seat, data, received_at, "
        "public_key) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (game_id, seq, packet_id, seat, data, now, public_key),
    )
    if store.memo is not None and store.memo.held is not None:
        store.memo.held.add(game_id)


def _none_held(store: Store, game_id: bytes | None) -> bool:
    """Whether a batch knows that nothing is buffered (for the game, or at all when None), so
    the look-up can be skipped: the games with buffered packets are read once per batch."""
    memo = store.memo
    if memo is None:
        return False
    if memo.held is None:
        memo.held = {bytes(gid) for (gid,) in store.all("SELECT DISTINCT game_id FROM buffered")}
    return not memo.held if game_id is None else game_id not in memo.held


def unbuffer(store: Store, game_id: bytes, packet_id: bytes) -> None:
    if _none_held(store, game_id):
        return
    store.db.execute(
        "DELETE FROM buffered WHERE game_id = ? AND packet_id = ?", (game_id, packet_id)
    )


def held_next(store: Store) -> list[bytes]:
    """The games not frozen that hold a packet for the position after their head: none in
    play, where such a packet is applied when it comes; one that came while the game's
    ruleset was not installed (`saves.inbox.catch_up`)."""
    if _none_held(store, None):
        return []
    rows = store.all(
        "SELECT DISTINCT g.game_id FROM games g JOIN buffered b ON b.game_id = g.game_id "
        "AND b.seq = g.head_seq + 1 WHERE g.frozen IS NULL ORDER BY g.game_id"
    )
    return [bytes(game_id) for (game_id,) in rows]


def buffered_at(store: Store, game_id: bytes, seq: int) -> list[tuple[bytes, bytes, bytes | None]]:
    """``(packet id, bytes, key)`` of the held packets for one position, in a fixed order;
    the key they verified under is None for a packet an older version held."""
    if _none_held(store, game_id):
        return []
    rows = store.all(
        "SELECT packet_id, data, public_key FROM buffered WHERE game_id = ? AND seq = ? "
        "ORDER BY packet_id",
        (game_id, seq),
    )
    return [
        (bytes(packet_id), bytes(data), None if key is None else bytes(key))
        for packet_id, data, key in rows
    ]


def buffered_rival(
    store: Store, game_id: bytes, seq: int, seat: str, packet_id: bytes
) -> bytes | None:
    """Another held packet from the same seat for the same position, if any."""
    if _none_held(store, game_id):
        return None
    row = store.one(
        "SELECT data FROM buffered WHERE game_id = ? AND seq = ? AND seat = ? AND packet_id != ?",
        (game_id, seq, seat, packet_id),
    )
    return None if row is None else bytes(row[0])


def buffered_copy(store: Store, packet_id: bytes) -> tuple[bytes, bytes | None] | None:
    """``(bytes, key it verified under)`` of a held packet by its id (key None: held by an
    older version, which did not keep it)."""
    if _none_held(store, None):
        return None
    row = store.one(
        "SELECT data, public_key FROM buffered WHERE packet_id = ? LIMIT 1", (packet_id,)
    )
    if row is None:
        return None
    return bytes(row[0]), None if row[1] is None else bytes(row[1])


def first_buffered_after(store: Store, game_id: bytes, seq: int) -> tuple[int, str, str] | None:
    """``(position, seat, when it came)`` of the game's held packet with the lowest position
    after ``seq``."""
    row = store.one(
        "SELECT seq, seat, received_at FROM buffered WHERE game_id = ? AND seq > ? "
        "ORDER BY seq, received_at LIMIT 1",
        (game_id, seq),
    )
    return None if row is None else (int(row[0]), str(row[1]), str(row[2]))


def drop_held_of_stored(store: Store, game_id: bytes) -> None:
    """Let go of the game's held packets for positions whose packet is stored now (other
    copies that came for them, which the chain did not name)."""
    store.db.execute(
        "DELETE FROM buffered WHERE game_id = ? AND seq IN "
        "(SELECT seq FROM packets WHERE game_id = ?)",
        (game_id, game_id),
    )


def drop_held_at(store: Store, game_id: bytes, seq: int) -> None:
    """Let go of the game's held packets for ``seq``, a position the chain has just filled:
    none of them can be applied now (one from the same seat's key was judged first)."""
    if _none_held(store, game_id):
        return
    store.db.execute("DELETE FROM buffered WHERE game_id = ? AND seq = ?", (game_id, seq))


def held_count(store: Store, game_id: bytes) -> int:
    """How many packets are held for the game."""
    return held_size(store, game_id)[0]


def held_size(store: Store, game_id: bytes) -> tuple[int, int]:
    """``(packets, bytes)`` held for the game (one pass over its held rows' headers)."""
    if _none_held(store, game_id):
        return 0, 0
    row = store.one(
        "SELECT COUNT(*), COALESCE(SUM(length(data)), 0) FROM buffered WHERE game_id = ?",
        (game_id,),
    )
    return (0, 0) if row is None else (int(row[0]), int(row[1]))


def has_buffered(store: Store, game_id: bytes, seat: str) -> bool:
    """Whether a packet from ``seat`` is held for the game."""
    row = store.one(
        "SELECT 1 FROM buffered WHERE game_id = ? AND seat = ? LIMIT 1", (game_id, seat)
    )
    return row is not None


# --- parked and rejected, within their quotas --------------------------------------------------


def park(store: Store, kid: bytes, digest: bytes, data: bytes, now: str) -> None:
    store.db.execute(
        "INSERT OR IGNORE INTO parked (key_id, packet_hash, data, received_at, size) "
        "VALUES (?, ?, ?, ?, ?)",
        (kid, digest, data, now, len(data)),
    )


def parked(store: Store, *, but: bytes) -> list[tuple[bytes, bytes]]:
    """``(hash, bytes)`` of the parked packets not kept under the key id ``but``, oldest
    first."""
    rows = store.all(
        "SELECT packet_hash, data FROM parked WHERE key_id != ? ORDER BY received_at, rowid",
        (but,),
    )
    return [(bytes(digest), bytes(data)) for digest, data in rows]


def parked_under(store: Store, kid: bytes) -> list[tuple[bytes, bytes, str]]:
    """``(hash, bytes, received at)`` of the packets parked under the key id ``kid``, oldest
    first."""
    rows = store.all(
        "SELECT packet_hash, data, received_at FROM parked WHERE key_id = ? "
        "ORDER BY received_at, rowid",
        (kid,),
    )
    return [(bytes(digest), bytes(data), str(at)) for digest, data, at in rows]


def unpark(store: Store, digest: bytes) -> None:
    store.db.execute("DELETE FROM parked WHERE packet_hash = ?", (digest,))


def reject(
    store: Store,
    game_id: bytes | None,
    source: str,
    reason: str,
    data: bytes,
    now: str,
    seq: int | None,
    seat: str,
) -> None:
    store.db.execute(
        "INSERT INTO rejected (game_id, source, reason, data, rejected_at, seq, seat) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        (game_id, source, reason, data, now, seq, seat),
    )


_QUOTA_ORDER = {"parked": "received_at DESC, rowid DESC", "rejected": "id DESC"}
"""Newest first, per bounded table: the order in which rows are kept when one is pruned."""
_QUOTA_SIZE = {"parked": "COALESCE(size, length(data))", "rejected": "length(data)"}
"""What one row costs of its table's byte quota."""


def quota(store: Store, table: str) -> tuple[int, int]:
    """``(rows, bytes)`` a bounded table holds, from the running count (one row read)."""
    row = store.one("SELECT rows, bytes FROM quota WHERE name = ?", (table,))
    assert row is not None, "the store keeps a quota row for every bounded table"
    return int(row[0]), int(row[1])


def prune(store: Store, table: str, keep_rows: int, keep_bytes: int) -> int:
    """Drop the oldest rows of a bounded table (``parked`` or ``rejected``) beyond the newest
    ``keep_rows`` rows and ``keep_bytes`` bytes; returns how many were dropped."""
    order, size = _QUOTA_ORDER[table], _QUOTA_SIZE[table]
    cursor = store.db.execute(
        f"DELETE FROM {table} WHERE rowid IN (SELECT rowid FROM (SELECT rowid, "
        f"SUM({size}) OVER (ORDER BY {order} ROWS UNBOUNDED PRECEDING) AS kept, "
        f"ROW_NUMBER() OVER (ORDER BY {order}) AS n FROM {table}) WHERE kept > ? OR n > ?)",
        (keep_bytes, keep_rows),
    )
    return max(cursor.rowcount, 0)


def first_damaged_after(store: Store, game_id: bytes, head_seq: int) -> Row | None:
    """``(seq, seat, source, reason, rejected_at)`` of the refused copy of the first position
    after ``head_seq`` that has one (the latest refused copy of it)."""
    return store.one(
        "SELECT seq, seat, source, reason, rejected_at FROM rejected "
        "WHERE game_id = ? AND seq > ? ORDER BY seq, id DESC LIMIT 1",
        (game_id, head_seq),
    )


# --- resend requests -----------------------------------------------------------------------


def resend_asked(store: Store, game_id: bytes, seq: int) -> bool:
    """Whether this home asked the other player to send packets ``seq`` on again."""
    return resend_asked_at(store, game_id, seq) is not None


def resend_asked_at(store: Store, game_id: bytes, seq: int) -> str | None:
    """When this home last asked the other player to send packets ``seq`` on again, or None."""
    row = store.one(
        "SELECT sent_at FROM resend_requests WHERE game_id = ? AND seq = ?", (game_id, seq)
    )
    return None if row is None else str(row[0])


def record_resend_request(store: Store, game_id: bytes, seq: int, now: str) -> None:
    """Remember that this home asked for packets ``seq`` on again, and when (last)."""
    store.db.execute(
        "INSERT INTO resend_requests (game_id, seq, sent_at) VALUES (?, ?, ?) "
        "ON CONFLICT (game_id, seq) DO UPDATE SET sent_at = excluded.sent_at",
        (game_id, seq, now),
    )


def ask_answered_at(store: Store, game_id: bytes, seq: int, every_seat: bool) -> str | None:
    """When a signed resend ask for packets ``seq`` on was last answered (`saves.resend_asks`),
    or None."""
    row = store.one(
        "SELECT answered_at FROM resend_answers WHERE game_id = ? AND seq = ? AND every_seat = ?",
        (game_id, seq, int(every_seat)),
    )
    return None if row is None else str(row[0])


def answered_since(
    store: Store, game_id: bytes, since: str | None, now: str, most: int
) -> tuple[int, int]:
    """The signed resend asks of a game this home answered by itself after ``since`` (ever,
    when None) and by ``now``, and the packets those answers sent, each counted as at most
    ``most`` (a damaged count is not believed past what one answer may send)."""
    where, args = ("", (game_id, now)) if since is None else (
        " AND answered_at > ?", (game_id, now, since)
    )  # fmt: skip
    row = store.one(
        "SELECT COUNT(*), COALESCE(SUM(MIN(MAX(sent, 0), ?)), 0) FROM resend_log "
        f"WHERE game_id = ? AND answered_at <= ?{where}",
        (most, *args),
    )
    return (0, 0) if row is None else (int(row[0]), int(row[1]))


def record_ask_answered(
    store: Store,
    game_id: bytes,
    seq: int,
    every_seat: bool,
    now: str,
    sent: int,
    forget_before: str | None,
) -> None:
    """Remember an answer: when its position was answered, and in the log of the last day's
    answers, whose rows from before ``forget_before`` or after ``now`` (a clock set back, a
    damaged row) go."""
    store.db.execute(
        "INSERT INTO resend_answers (game_id, seq, every_seat, answered_at) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (game_id, seq, every_seat) DO UPDATE SET answered_at = excluded.answered_at",
        (game_id, seq, int(every_seat), now),
    )
    if forget_before is not None:
        store.db.execute(
            "DELETE FROM resend_log WHERE game_id = ? AND (answered_at < ? OR answered_at > ?)",
            (game_id, forget_before, now),
        )
    store.db.execute(
        "INSERT INTO resend_log (game_id, answered_at, sent) VALUES (?, ?, ?)",
        (game_id, now, sent),
    )


# --- transport refs already read -----------------------------------------------------------


def mark_seen(store: Store, transport: str, ref: str) -> None:
    store.db.execute(
        "INSERT OR IGNORE INTO transport_seen (transport, ref) VALUES (?, ?)", (transport, ref)
    )


def mark_seen_many(store: Store, refs: Sequence[tuple[str, str]]) -> None:
    """`mark_seen` for each ``(transport, ref)``, by one statement run for all (a batch's)."""
    store.db.executemany(
        "INSERT OR IGNORE INTO transport_seen (transport, ref) VALUES (?, ?)", refs
    )


def seen_refs(store: Store, transport: str) -> set[str]:
    rows = store.all("SELECT ref FROM transport_seen WHERE transport = ?", (transport,))
    return {str(ref) for (ref,) in rows}


SEEN_CHUNK = 500
"""Refs per look-up query (SQLite allows 999 parameters in older builds)."""


def seen_among(store: Store, transport: str, refs: Sequence[str]) -> set[str]:
    """Those of ``refs`` marked seen for ``transport`` (one indexed query per `SEEN_CHUNK`)."""
    found: set[str] = set()
    for start in range(0, len(refs), SEEN_CHUNK):
        chunk = list(refs[start : start + SEEN_CHUNK])
        marks = ",".join("?" * len(chunk))
        rows = store.all(
            f"SELECT ref FROM transport_seen WHERE transport = ? AND ref IN ({marks})",
            (transport, *chunk),
        )
        found.update(str(ref) for (ref,) in rows)
    return found
