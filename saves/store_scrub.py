"""The rows the look over a home's stored packets reads and writes (`saves.scrub`)."""

from __future__ import annotations

from saves.store import Store


def packets_after(
    store: Store, game_id: bytes, seq: int, limit: int
) -> list[tuple[bytes, int, bytes, bytes]]:
    """``(game, position, packet id, bytes)`` of up to ``limit`` stored packets that come
    after ``(game_id, seq)`` in the order of games by id, then of positions (the packets'
    primary key: no row is sorted)."""
    rows = store.all(
        "SELECT game_id, seq, packet_id, data FROM packets WHERE (game_id, seq) > (?, ?) "
        "ORDER BY game_id, seq LIMIT ?",
        (game_id, seq, limit),
    )
    return [(bytes(g), int(s), bytes(pid), bytes(data)) for g, s, pid, data in rows]


def set_packet_id(store: Store, game_id: bytes, seq: int, packet_id: bytes) -> None:
    """Keep ``packet_id`` as the id of the stored packet at a position (the id its bytes give,
    where the kept one was damaged)."""
    store.db.execute(
        "UPDATE packets SET packet_id = ? WHERE game_id = ? AND seq = ?", (packet_id, game_id, seq)
    )
