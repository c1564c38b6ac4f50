"""The store's table of chat messages (``chats``): every SQL statement about them lives here.

`saves.chat_messages` decides what is kept; this module only keeps and reads rows. One row per
(game, seat, seq): the table's key is what makes a message that arrives twice kept once.
"""

from __future__ import annotations

from saves.store import Row, Store


def keep(
    store: Store,
    game_id: bytes,
    seat: str,
    seq: int,
    chat_id: bytes,
    head_seq: int,
    written_at: str,
    data: bytes,
    now: str,
    *,
    mine: bool,
) -> bool:
    """Store a message once (False: a message with that game, seat and seq is kept already)."""
    cursor = store.db.execute(
        "INSERT OR IGNORE INTO chats (game_id, seat, seq, chat_id, head_seq, written_at, data, "
        "received_at, mine) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (game_id, seat, seq, chat_id, head_seq, written_at, data, now, int(mine)),
    )
    return cursor.rowcount == 1


def kept_data(store: Store, game_id: bytes, seat: str, seq: int) -> bytes | None:
    """The bytes of the message kept under (game, seat, seq), if any."""
    row = store.one(
        "SELECT data FROM chats WHERE game_id = ? AND seat = ? AND seq = ?", (game_id, seat, seq)
    )
    return None if row is None else bytes(row[0])


def last_seq(store: Store, game_id: bytes, seat: str) -> int:
    """The highest seq kept for a seat's messages in a game (0 when none)."""
    row = store.one("SELECT MAX(seq) FROM chats WHERE game_id = ? AND seat = ?", (game_id, seat))
    return 0 if row is None or row[0] is None else int(row[0])


def rows(store: Store, game_id: bytes) -> list[Row]:
    """``(data, received_at, mine)`` of a game's messages, by the writers' clocks, then by
    seat and seq (so two homes list the same messages in the same order)."""
    return store.all(
        "SELECT data, received_at, mine FROM chats WHERE game_id = ? "
        "ORDER BY written_at, seat, seq",
        (game_id,),
    )


def counts(store: Store) -> dict[bytes, int]:
    """How many messages each game keeps (games without any left out)."""
    return {
        bytes(game_id): int(count)
        for game_id, count in store.all("SELECT game_id, COUNT(*) FROM chats GROUP BY game_id")
    }
