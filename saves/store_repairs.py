"""The queries that find the rows a home derives from its packets damaged on disk, and put
them right: a game's row (its head, its ruleset name, the row lost), a packet row filed under
another position or game, a packet's kept bytes or state hash (`saves.row_repairs`,
`saves.mending`, `saves.replay`). Every change goes through `saves.store_games.forget`, so a
batch never serves what it remembered of a row changed here."""

from __future__ import annotations

from typing import NamedTuple

from saves.store import Store
from saves.store_games import forget, settle


class HeadFix(NamedTuple):
    """A game whose row does not end where its stored packets do, and where they end."""

    game_id: bytes
    name: str
    seq: int
    packet_id: bytes
    state_hash: bytes
    row_agrees: bool = False
    """Whether the row's own packet id and state hash are that packet's (its position alone
    was damaged)."""


def damaged_heads(store: Store, game_id: bytes) -> list[HeadFix]:
    """The game's row, with where its stored packets end, if its head (position, packet
    id, state hash) is not its last stored packet's, which every write moves together
    (`advance_head`): only a damaged row differs. Nothing for a game with no packet yet."""
    settle(store, game_id)
    rows = store.all(
        "SELECT g.game_id, g.name, p.seq, p.packet_id, p.state_hash, "
        "g.head_id = p.packet_id AND g.state_hash = p.state_hash FROM games g "
        "JOIN packets p ON p.game_id = g.game_id "
        "AND p.seq = (SELECT MAX(seq) FROM packets WHERE game_id = g.game_id) "
        "WHERE (g.head_seq != p.seq OR g.head_id != p.packet_id OR g.state_hash != p.state_hash)"
        " AND g.game_id = ?",
        (game_id,),
    )
    return [
        HeadFix(bytes(g), str(n), int(q), bytes(i), bytes(h), bool(agree))
        for g, n, q, i, h, agree in rows
    ]


def mend_head(store: Store, fix: HeadFix) -> None:
    """Put a damaged row's head back where its stored packets end (`damaged_heads`)."""
    store.db.execute(
        "UPDATE games SET head_seq = ?, head_id = ?, state_hash = ? WHERE game_id = ?",
        (fix.seq, fix.packet_id, fix.state_hash, fix.game_id),
    )
    forget(store, fix.game_id)


def drop_events_after(store: Store, game_id: bytes, seq: int) -> None:
    """Drop the kept events of positions past ``seq`` (those of a last packet whose row was
    lost, when the game's head moves back to ``seq``: its copy applies again and keeps its
    events anew)."""
    store.db.execute("DELETE FROM events WHERE game_id = ? AND seq > ?", (game_id, seq))


def lost_games(store: Store) -> list[bytes]:
    """The games that have stored packets but no row (a row lost or its id damaged on disk).
    Each game's id is found by one look-up in the packets' index, not by reading every
    packet: a few dozen microseconds however long the games."""
    rows = store.all(
        "WITH RECURSIVE ids(g) AS (SELECT MIN(game_id) FROM packets UNION ALL "
        "SELECT (SELECT MIN(game_id) FROM packets WHERE game_id > ids.g) FROM ids "
        "WHERE ids.g IS NOT NULL) "
        "SELECT g FROM ids WHERE g IS NOT NULL AND g NOT IN (SELECT game_id FROM games)"
    )
    return [bytes(game_id) for (game_id,) in rows]


def rows_without_packets(store: Store) -> list[bytes]:
    """The rows that say their game has packets (a head at 0 or past it) where none is stored
    under their id: only damage leaves one (a row is written with its genesis, in one
    transaction)."""
    rows = store.all(
        "SELECT game_id FROM games g WHERE head_seq >= 0 "
        "AND NOT EXISTS (SELECT 1 FROM packets p WHERE p.game_id = g.game_id)"
    )
    return [bytes(game_id) for (game_id,) in rows]


def delete_game_row(store: Store, game_id: bytes) -> None:
    """Drop a game's row (one with no packets: `rows_without_packets`)."""
    settle(store, game_id)
    store.db.execute("DELETE FROM games WHERE game_id = ?", (game_id,))
    forget(store, game_id)


def set_ruleset(store: Store, game_id: bytes, ruleset: str) -> None:
    """Name the game's ruleset again (as its genesis does: a damaged row, `saves.reading`)."""
    settle(store, game_id)
    store.db.execute("UPDATE games SET ruleset = ? WHERE game_id = ?", (ruleset, game_id))
    forget(store, game_id)


def set_my_seat(store: Store, game_id: bytes, seat: str) -> None:
    """Name this home's seat in the game again (as its genesis does: a damaged row)."""
    settle(store, game_id)
    store.db.execute("UPDATE games SET my_seat = ? WHERE game_id = ?", (seat, game_id))
    forget(store, game_id)


def set_packet_hash(store: Store, game_id: bytes, seq: int, state_hash: bytes) -> None:
    """Keep ``state_hash`` as the state hash of the stored packet at ``seq`` (the one its
    body carries and its replay gives, in place of a kept copy damaged since: `saves.replay`)."""
    store.db.execute(
        "UPDATE packets SET state_hash = ? WHERE game_id = ? AND seq = ?",
        (state_hash, game_id, seq),
    )


def set_packet_columns(
    store: Store, game_id: bytes, seq: int, packet_id: bytes, state_hash: bytes
) -> None:
    """Keep ``packet_id`` and ``state_hash`` as the id and state hash of the stored packet at
    ``seq`` (what its intact bytes give, in place of kept copies damaged since). A row
    elsewhere holding that id (misfiled, its bytes damaged: it could not be put back) gives
    way, as it does to a copy (`drop_misfiled`)."""
    drop_misfiled(store, packet_id, game_id, seq)
    store.db.execute(
        "UPDATE packets SET packet_id = ?, state_hash = ? WHERE game_id = ? AND seq = ?",
        (packet_id, state_hash, game_id, seq),
    )


def strays(store: Store, game_id: bytes, head_seq: int) -> list[tuple[int, bytes, bytes]]:
    """``(seq, packet id, bytes)`` of the rows filed under ``game_id`` before the first
    position or past ``head_seq`` (all of them when it is -1): where a packet whose row's
    position was damaged lands, as the chain's own positions are taken."""
    rows = store.all(
        "SELECT seq, packet_id, data FROM packets WHERE game_id = ? AND (seq < 0 OR seq > ?) "
        "ORDER BY seq",
        (game_id, head_seq),
    )
    return [(int(seq), bytes(pid), bytes(data)) for seq, pid, data in rows]


def row_at(store: Store, game_id: bytes, seq: int) -> tuple[int, bytes, bytes] | None:
    """``(seq, packet id, bytes)`` of the row filed at ``(game_id, seq)``, as `strays` gives
    them, if any."""
    row = store.one(
        "SELECT seq, packet_id, data FROM packets WHERE game_id = ? AND seq = ?", (game_id, seq)
    )
    return None if row is None else (int(row[0]), bytes(row[1]), bytes(row[2]))


def refile_packet(store: Store, game_id: bytes, seq: int, to_game: bytes, to_seq: int) -> None:
    """File the row at ``(game_id, seq)`` at ``(to_game, to_seq)`` (where its bytes say)."""
    store.db.execute(
        "UPDATE packets SET game_id = ?, seq = ? WHERE game_id = ? AND seq = ?",
        (to_game, to_seq, game_id, seq),
    )
    forget(store, to_game)


def replace_packet_data(
    store: Store, game_id: bytes, seq: int, packet_id: bytes, data: bytes
) -> None:
    """Keep ``data`` as the bytes of the stored packet ``packet_id`` at ``seq`` (a verified
    copy in place of one damaged since: `saves.inbox`)."""
    store.db.execute(
        "UPDATE packets SET data = ? WHERE game_id = ? AND seq = ? AND packet_id = ?",
        (data, game_id, seq, packet_id),
    )


def first_lost(store: Store, game_id: bytes, head_seq: int) -> int | None:
    """The first position from 0 to ``head_seq`` with no packet stored (a row lost on disk,
    `saves.holes`), if any. Counting the chain's rows is one pass over the packets' index
    (tens of microseconds for a campaign's few thousand packets); only a chain found short is
    searched for where."""
    found = store.one(
        "SELECT COUNT(*) FROM packets WHERE game_id = ? AND seq BETWEEN 0 AND ?",
        (game_id, head_seq),
    )
    if found is None or int(found[0]) == head_seq + 1:
        return None
    row = store.one(
        "SELECT MIN(s) FROM (SELECT 0 AS s WHERE NOT EXISTS "
        "(SELECT 1 FROM packets WHERE game_id = ?1 AND seq = 0) "
        "UNION ALL SELECT p.seq + 1 FROM packets p WHERE p.game_id = ?1 "
        "AND p.seq BETWEEN 0 AND ?2 - 1 AND NOT EXISTS "
        "(SELECT 1 FROM packets q WHERE q.game_id = ?1 AND q.seq = p.seq + 1))",
        (game_id, head_seq),
    )
    return None if row is None or row[0] is None else int(row[0])


def drop_misfiled(store: Store, packet_id: bytes, game_id: bytes, seq: int) -> None:
    """Drop a row holding ``packet_id`` anywhere but at ``(game_id, seq)``, where a verified
    copy of that packet is about to be kept (`saves.mending.fill`): a row filed elsewhere
    whose bytes were damaged too, so that it could not be put back (packet ids are unique:
    it would stop the copy)."""
    store.db.execute(
        "DELETE FROM packets WHERE packet_id = ? AND NOT (game_id = ? AND seq = ?)",
        (packet_id, game_id, seq),
    )
