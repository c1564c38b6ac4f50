"""The store's game tables: ``games``, ``packets``, ``events`` and ``snapshots``, as functions.

Every SQL statement about a game's row, its packet log, its events and its snapshots lives
here, so the modules above speak of games and packets, never of columns. Functions that write
run inside the caller's transaction (`saves.store.Store.transaction`); they decide nothing.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import NamedTuple

import msgspec

from saves.store import Row, Store


class GameRow(msgspec.Struct, frozen=True):
    """One game as this home lists it (``saves.replica.Replica.games``)."""

    game_id: bytes
    name: str
    ruleset: str
    scenario: str
    my_seat: str
    status: str
    frozen: str | None
    head_seq: int
    state_hash: bytes
    created_at: str
    updated_at: str
    waiting_since: str
    unread: int
    archived: str = ""
    """When the player archived the game (`set_archived`), "" when not: the games list leaves
    it out while it needs nothing from them."""
    resign_at: str = ""
    """When the player asked to resign on their next move (`set_resigning`), "" when not:
    the automatic replies sign the resignation once the move is theirs."""
    resign_reason: str = ""
    """The one line that resignation will carry."""


class HeadMove(NamedTuple):
    """A head move a batch holds back (`saves.store.Store.moves`): where the head is now, and
    how many packets from other seats it added to the unread count since the row was written."""

    seq: int
    packet_id: bytes
    state_hash: bytes
    now: str
    unread: int


class Head(msgspec.Struct, frozen=True):
    """Where a game's chain ends: the last packet's position and id, its ruleset, any freeze."""

    seq: int
    packet_id: bytes
    ruleset: str
    frozen: str | None


_GAME_COLUMNS = (
    "game_id, name, ruleset, scenario, my_seat, status, frozen, head_seq, state_hash, "
    "created_at, updated_at, waiting_since, unread, archived, resign_at, resign_reason"
)
_NO_END = 1 << 62


# --- games -------------------------------------------------------------------------------------


def settle(store: Store, game_id: bytes | None = None) -> None:
    """Write the head moves a batch holds back (`advance_head`), of one game or of all, so
    that the ``games`` row is true before anything reads or changes it by SQL."""
    moves = store.moves
    if not moves:
        return
    for gid in list(moves) if game_id is None else [game_id]:
        move: HeadMove | None = moves.pop(gid, None)
        if move is not None:
            _write_head(store, gid, move)


def _write_head(store: Store, game_id: bytes, move: HeadMove) -> None:
    store.db.execute(
        "UPDATE games SET head_seq = ?, head_id = ?, state_hash = ?, updated_at = ?, "
        "waiting_since = ?, unread = unread + ? WHERE game_id = ?",
        (move.seq, move.packet_id, move.state_hash, move.now, move.now, move.unread, game_id),
    )


def games(store: Store) -> list[GameRow]:
    """Every game of the home, oldest first."""
    settle(store)
    rows = store.all(f"SELECT {_GAME_COLUMNS} FROM games ORDER BY created_at, game_id")
    return [GameRow(*row) for row in rows]


def game(store: Store, game_id: bytes) -> GameRow | None:
    """The game's row (in a batch, read once: `saves.store.Memo`)."""
    memo = store.memo
    if memo is not None and game_id in memo.games:
        found: GameRow | None = memo.games[game_id]
        return found
    settle(store, game_id)
    row = store.one(f"SELECT {_GAME_COLUMNS} FROM games WHERE game_id = ?", (game_id,))
    found = None if row is None else GameRow(*row)
    if memo is not None:
        memo.games[game_id] = found
    return found


def head(store: Store, game_id: bytes) -> Head | None:
    """Where the game's chain ends (in a batch, read once and moved by `advance_head`)."""
    memo = store.memo
    if memo is not None and game_id in memo.heads:
        found: Head | None = memo.heads[game_id]
        return found
    settle(store, game_id)
    row = store.one(
        "SELECT head_seq, head_id, ruleset, frozen FROM games WHERE game_id = ?", (game_id,)
    )
    found = (
        None
        if row is None
        else Head(int(row[0]), bytes(row[1]), str(row[2]), None if row[3] is None else str(row[3]))
    )
    if memo is not None:
        memo.heads[game_id] = found
    return found


def forget(store: Store, game_id: bytes) -> None:
    """Drop what a batch kept of a game's row, which the caller changes."""
    memo = store.memo
    if memo is not None:
        memo.heads.pop(game_id, None)
        memo.games.pop(game_id, None)


def insert_game(
    store: Store,
    game_id: bytes,
    *,
    name: str,
    ruleset: str,
    scenario: str,
    my_seat: str,
    status: str,
    now: str,
) -> None:
    """A new game row whose chain is still empty (head -1; its genesis is stored next).

    ``unread`` starts at 0: `saves.ledger.store_applied` counts every packet from another
    seat, the invitation's genesis included, so an invitation shows one new packet, not two.
    """
    store.db.execute(
        "INSERT INTO games (game_id, name, ruleset, scenario, my_seat, status, head_seq, "
        "head_id, state_hash, created_at, updated_at, waiting_since, unread) "
        "VALUES (?, ?, ?, ?, ?, ?, -1, ?, ?, ?, ?, ?, 0)",
        (game_id, name, ruleset, scenario, my_seat, status, bytes(32), b"", now, now, now),
    )
    forget(store, game_id)


def set_status(store: Store, game_id: bytes, status: str) -> None:
    settle(store, game_id)
    store.db.execute("UPDATE games SET status = ? WHERE game_id = ?", (status, game_id))
    forget(store, game_id)


def set_archived(store: Store, game_id: bytes, when: str) -> None:
    """Archive the game (``when``: the time) or bring it back (``""``): this home's own
    filing, which nothing signs and nobody else sees."""
    settle(store, game_id)
    store.db.execute("UPDATE games SET archived = ? WHERE game_id = ?", (when, game_id))
    forget(store, game_id)


def set_resigning(store: Store, game_id: bytes, when: str, reason: str = "") -> None:
    """Queue a resignation for this seat's next move (``when``: the time asked) or take it
    back (``""``): kept in this home until `saves.replies` signs it."""
    settle(store, game_id)
    store.db.execute(
        "UPDATE games SET resign_at = ?, resign_reason = ? WHERE game_id = ?",
        (when, reason if when else "", game_id),
    )
    forget(store, game_id)


def mark_read(store: Store, game_id: bytes) -> None:
    settle(store, game_id)
    store.db.execute("UPDATE games SET unread = 0 WHERE game_id = ?", (game_id,))
    forget(store, game_id)


def advance_head(
    store: Store,
    game_id: bytes,
    seq: int,
    packet_id: bytes,
    state_hash: bytes,
    now: str,
    *,
    unread: int,
) -> None:
    """Move the game's head to a packet just stored; ``unread`` is added to its unread count.

    In a batch the move is held back (`saves.store.Store.moves`) and written once (`settle`):
    the batch's copies of the row (`saves.store.Memo`) move with it, and any read of the row
    by SQL writes it first."""
    moves = store.moves
    if moves is None:
        _write_head(store, game_id, HeadMove(seq, packet_id, state_hash, now, unread))
    else:
        held: HeadMove | None = moves.get(game_id)
        unread_since = unread + (0 if held is None else held.unread)
        moves[game_id] = HeadMove(seq, packet_id, state_hash, now, unread_since)
    memo = store.memo
    if memo is not None:  # the batch's copies move with the row (unknown ones stay unread)
        kept_head, kept_row = memo.heads.get(game_id), memo.games.get(game_id)
        if kept_head is not None:
            memo.heads[game_id] = msgspec.structs.replace(kept_head, seq=seq, packet_id=packet_id)
        if kept_row is not None:
            memo.games[game_id] = msgspec.structs.replace(
                kept_row,
                head_seq=seq,
                state_hash=state_hash,
                updated_at=now,
                waiting_since=now,
                unread=kept_row.unread + unread,
            )


def freeze(store: Store, game_id: bytes, reason: str, now: str) -> None:
    """Stop the game; the first reason given is the one kept."""
    settle(store, game_id)
    store.db.execute(
        "UPDATE games SET frozen = COALESCE(frozen, ?), updated_at = ? WHERE game_id = ?",
        (reason, now, game_id),
    )
    forget(store, game_id)


# --- packets -----------------------------------------------------------------------------------


def insert_packet(
    store: Store,
    game_id: bytes,
    seq: int,
    packet_id: bytes,
    seat: str,
    kind: str,
    data: bytes,
    state_hash: bytes,
    now: str,
    events_digest: bytes | None = None,
) -> None:
    """Store a packet (``events_digest``: of the events kept for it, None where its events
    are not written with it)."""
    store.db.execute(
        "INSERT INTO packets (game_id, seq, packet_id, seat, kind, data, state_hash, stored_at, "
        "events_digest) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (game_id, seq, packet_id, seat, kind, data, state_hash, now, events_digest),
    )


def packets_between(
    store: Store, game_id: bytes, start: int = 0, end: int | None = None
) -> list[tuple[int, bytes]]:
    """``(seq, bytes)`` of the game's packets from ``start`` to ``end`` (inclusive), in order."""
    rows = store.all(
        "SELECT seq, data FROM packets WHERE game_id = ? AND seq BETWEEN ? AND ? ORDER BY seq",
        (game_id, start, _NO_END if end is None else end),
    )
    return [(int(seq), bytes(data)) for seq, data in rows]


PAGE = 256
"""Packets read per query by `stream_packets`: enough to amortize the query, few enough that
a replay's memory does not grow with the game's length."""


def stream_packets(
    store: Store, game_id: bytes, page: int | None = None
) -> Iterator[tuple[int, bytes, bytes]]:
    """``(seq, bytes, stored state hash)`` of every packet of the game, in order, read a page
    at a time (`packet_pages`)."""
    for rows in packet_pages(store, game_id, page):
        yield from rows


def packet_pages(
    store: Store, game_id: bytes, page: int | None = None
) -> Iterator[list[tuple[int, bytes, bytes]]]:
    """Every packet of the game as `stream_packets` gives them, a page (``PAGE`` rows) per
    query, keyed on ``seq``: nothing is held between pages but the last position."""
    size = page or PAGE
    after = -1
    while True:
        rows = store.all(
            "SELECT seq, data, state_hash FROM packets WHERE game_id = ? AND seq > ? "
            "ORDER BY seq LIMIT ?",
            (game_id, after, size),
        )
        if rows:
            yield [(int(seq), bytes(data), bytes(digest)) for seq, data, digest in rows]
        if len(rows) < size:
            return
        after = int(rows[-1][0])


def packet_heads(store: Store, game_id: bytes) -> list[tuple[int, str, str]]:
    """``(seq, seat, kind)`` of every stored packet of a game in chain order: the columns
    written when the packet was verified and stored, so no packet is read or opened."""
    rows = store.all(
        "SELECT seq, seat, kind FROM packets WHERE game_id = ? ORDER BY seq", (game_id,)
    )
    return [(int(seq), str(seat), str(kind)) for seq, seat, kind in rows]


def packet_data(store: Store, game_id: bytes, seq: int) -> bytes | None:
    row = store.one("SELECT data FROM packets WHERE game_id = ? AND seq = ?", (game_id, seq))
    return None if row is None else bytes(row[0])


def packet_stored_at(store: Store, game_id: bytes, seq: int) -> str | None:
    """When the packet at ``seq`` was stored here, if it is."""
    row = store.one("SELECT stored_at FROM packets WHERE game_id = ? AND seq = ?", (game_id, seq))
    return None if row is None else str(row[0])


def first_stored_at(store: Store, game_id: bytes) -> str | None:
    """When the game's first packet still stored here was stored, if any is."""
    row = store.one(
        "SELECT stored_at FROM packets WHERE game_id = ? ORDER BY seq LIMIT 1", (game_id,)
    )
    return None if row is None else str(row[0])


def packet_at(store: Store, game_id: bytes, seq: int) -> tuple[bytes, str] | None:
    """The id and seat of the packet at a chain position, if any."""
    row = store.one(
        "SELECT packet_id, seat FROM packets WHERE game_id = ? AND seq = ?", (game_id, seq)
    )
    return None if row is None else (bytes(row[0]), str(row[1]))


def packet_by_id(store: Store, packet_id: bytes) -> tuple[bytes, int, str, bytes] | None:
    """``(game, seq, seat, bytes)`` of a stored packet by its id (packet ids are unique)."""
    row = store.one(
        "SELECT game_id, seq, seat, data FROM packets WHERE packet_id = ?", (packet_id,)
    )
    return None if row is None else (bytes(row[0]), int(row[1]), str(row[2]), bytes(row[3]))


def last_seq_not_by(store: Store, game_id: bytes, seat: str) -> int | None:
    """The position of the latest packet another seat than ``seat`` wrote, if any."""
    row = store.one("SELECT MAX(seq) FROM packets WHERE game_id = ? AND seat != ?", (game_id, seat))
    return None if row is None or row[0] is None else int(row[0])


# --- events and snapshots ----------------------------------------------------------------------


def insert_events(store: Store, game_id: bytes, seq: int, events: list[bytes]) -> None:
    """The encoded events one packet produced, in order (one statement run for each). Rows
    already at its position can only be damage (an event row whose position was changed on
    disk, or the events of a last packet whose row was lost): they give way, at no cost to
    the usual case."""
    rows = [(game_id, seq, index, event) for index, event in enumerate(events)]
    sql = "INSERT INTO events (game_id, seq, idx, event) VALUES (?, ?, ?, ?)"
    try:
        store.db.executemany(sql, rows)
    except sqlite3.IntegrityError:  # (the failed statement is undone; the transaction goes on)
        store.db.execute("DELETE FROM events WHERE game_id = ? AND seq = ?", (game_id, seq))
        store.db.executemany(sql, rows)


def replace_events(
    store: Store, game_id: bytes, seq: int, events: list[bytes], digest: bytes
) -> None:
    """Keep ``events`` as packet ``seq``'s in place of those kept (found damaged, made again),
    and ``digest`` as theirs."""
    store.db.execute("DELETE FROM events WHERE game_id = ? AND seq = ?", (game_id, seq))
    insert_events(store, game_id, seq, events)
    store.db.execute(
        "UPDATE packets SET events_digest = ? WHERE game_id = ? AND seq = ?",
        (digest, game_id, seq),
    )


def events_digests(store: Store, game_id: bytes, upto: int | None) -> dict[int, bytes]:
    """The digest kept with each stored packet up to ``upto`` (all when None) of its events,
    by position (packets stored before schema 6 have none)."""
    rows = store.all(
        "SELECT seq, events_digest FROM packets WHERE game_id = ? AND seq <= ? "
        "AND events_digest IS NOT NULL",
        (game_id, _NO_END if upto is None else upto),
    )
    return {int(seq): bytes(digest) for seq, digest in rows}


def events_upto(store: Store, game_id: bytes, upto: int | None) -> list[tuple[int, bytes]]:
    """``(seq, encoded event)`` of every event up to packet ``upto`` (all when None), in order."""
    rows = store.all(
        "SELECT seq, event FROM events WHERE game_id = ? AND seq <= ? ORDER BY seq, idx",
        (game_id, _NO_END if upto is None else upto),
    )
    return [(int(seq), bytes(data)) for seq, data in rows]


def packet_seats(store: Store, game_id: bytes, first: int, last: int) -> list[tuple[int, str]]:
    """``(seq, seat)`` of the game's packets from ``first`` to ``last`` (inclusive), in order."""
    rows = store.all(
        "SELECT seq, seat FROM packets WHERE game_id = ? AND seq BETWEEN ? AND ? ORDER BY seq",
        (game_id, first, last),
    )
    return [(int(seq), str(seat)) for seq, seat in rows]


def latest_not_by(store: Store, game_id: bytes, seat: str, limit: int) -> list[tuple[int, str]]:
    """``(seq, seat)`` of the game's last ``limit`` packets written by another seat than
    ``seat``, in chain order (what the games list counts as unread)."""
    rows = store.all(
        "SELECT seq, seat FROM packets WHERE game_id = ? AND seat != ? ORDER BY seq DESC LIMIT ?",
        (game_id, seat, limit),
    )
    return [(int(seq), str(who)) for seq, who in reversed(rows)]


def events_between(store: Store, game_id: bytes, first: int, last: int) -> list[tuple[int, bytes]]:
    """``(seq, encoded event)`` of the events of packets ``first`` to ``last``, in order."""
    rows = store.all(
        "SELECT seq, event FROM events WHERE game_id = ? AND seq BETWEEN ? AND ? ORDER BY seq, idx",
        (game_id, first, last),
    )
    return [(int(seq), bytes(data)) for seq, data in rows]


class Kept(NamedTuple):
    """A kept snapshot as stored: its position, the encoded state and the hash stored with it,
    and the ids of the stored packets at its position and at 0 (what `saves.reading` checks
    the decoded state against: the store is not trusted; empty where none is stored)."""

    seq: int
    state: bytes
    state_hash: bytes
    packet_id: bytes
    genesis_id: bytes


_KEPT = (
    "SELECT s.seq, s.state, s.state_hash, p.packet_id, g0.packet_id FROM snapshots s "
    "LEFT JOIN packets p ON p.game_id = s.game_id AND p.seq = s.seq "
    "LEFT JOIN packets g0 ON g0.game_id = s.game_id AND g0.seq = 0 "
)


def _kept(row: Row | None) -> Kept | None:
    if row is None:
        return None
    seq, state, digest, packet_id, genesis_id = row
    return Kept(int(seq), bytes(state), bytes(digest), bytes(packet_id or b""),
                bytes(genesis_id or b""))  # fmt: skip


def snapshot_before(store: Store, game_id: bytes, at: int) -> Kept | None:
    """The latest snapshot at or before packet ``at``."""
    return _kept(
        store.one(
            _KEPT + "WHERE s.game_id = ? AND s.seq <= ? ORDER BY s.seq DESC LIMIT 1",
            (game_id, at),
        )
    )


def head_snapshot(store: Store, game_id: bytes) -> Kept | None:
    """The snapshot at the game's head, if it is kept (it always should be)."""
    settle(store, game_id)
    return _kept(
        store.one(
            _KEPT + "JOIN games g ON g.game_id = s.game_id AND g.head_seq = s.seq "
            "WHERE s.game_id = ?",
            (game_id,),
        )
    )


def move_head_snapshot(
    store: Store,
    game_id: bytes,
    seq: int,
    state: bytes,
    state_hash: bytes,
    *,
    keep_every: int,
) -> None:
    """Store the snapshot at the new head ``seq``; the old head's goes unless its position is
    a multiple of ``keep_every`` (those stay, for fast views of the past)."""
    drop_head_snapshot(store, game_id, keep_every=keep_every)
    insert_snapshot(store, game_id, seq, state, state_hash)


def drop_head_snapshot(store: Store, game_id: bytes, *, keep_every: int) -> None:
    """Delete the snapshot at the game's current head unless its position is a multiple of
    ``keep_every`` (the head is about to move; a head with no snapshot row is fine)."""
    old = head(store, game_id)
    assert old is not None, "a snapshot needs the game row first"
    old_head = old.seq
    if old_head >= 0 and old_head % keep_every:
        store.db.execute("DELETE FROM snapshots WHERE game_id = ? AND seq = ?", (game_id, old_head))


def insert_snapshot(
    store: Store, game_id: bytes, seq: int, state: bytes, state_hash: bytes
) -> None:
    """Keep the snapshot at ``seq``, in place of any row kept there: the state after a packet
    is one, so a row already there is a stale or damaged copy (a rebuilt state written back by
    `saves.reading`, or a row whose position was damaged into the new head's)."""
    store.db.execute(
        "INSERT OR REPLACE INTO snapshots (game_id, seq, state, state_hash) VALUES (?, ?, ?, ?)",
        (game_id, seq, state, state_hash),
    )
