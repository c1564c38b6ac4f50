"""The store's tables of disputes: the ``evidence`` that froze a game, and the late ``claims``.

Every SQL statement about them lives here; `saves.ledger`, `saves.evidence` and
`saves.claims` decide what is kept and check what it proves.
"""

from __future__ import annotations

from saves.store import Row, Store

# --- evidence ----------------------------------------------------------------------------------


def add_evidence(
    store: Store,
    game_id: bytes,
    seq: int,
    kind: str,
    detail: str,
    first: bytes,
    second: bytes | None,
    now: str,
) -> None:
    """Keep a proof once: the same pair of packets (in either order) delivered again is not
    stored twice."""
    known = store.one(
        "SELECT 1 FROM evidence WHERE game_id = ? AND seq = ? AND kind = ? AND "
        "((packet_a = ? AND packet_b IS ?) OR (packet_a = ? AND packet_b = ?))",
        (game_id, seq, kind, first, second, second, first),
    )
    if known is None:
        store.db.execute(
            "INSERT INTO evidence (game_id, seq, kind, detail, packet_a, packet_b, found_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (game_id, seq, kind, detail, first, second, now),
        )


def evidence_rows(store: Store, game_id: bytes) -> list[Row]:
    """``(id, kind, seq, detail, found_at, packet_a, packet_b)`` of a game's proofs, oldest
    first."""
    return store.all(
        "SELECT id, kind, seq, detail, found_at, packet_a, packet_b FROM evidence "
        "WHERE game_id = ? ORDER BY id",
        (game_id,),
    )


def desync_packets(store: Store, game_id: bytes, seq: int) -> list[bytes]:
    """The disputed packets of every desync found at position ``seq``."""
    rows = store.all(
        "SELECT packet_a FROM evidence WHERE game_id = ? AND seq = ? AND kind = 'desync'",
        (game_id, seq),
    )
    return [bytes(data) for (data,) in rows]


# --- late claims -------------------------------------------------------------------------------


def keep_claim(
    store: Store,
    game_id: bytes,
    claim_id: bytes,
    seat: str,
    late: str,
    head_seq: int,
    data: bytes,
    now: str,
    *,
    mine: bool,
    keep: int,
) -> bool:
    """Store a claim once (False: it was kept already), then only the newest ``keep`` of the
    game's claims."""
    done = store.db.execute(
        "INSERT OR IGNORE INTO claims (game_id, claim_id, seat, late, head_seq, data, "
        "received_at, mine) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (game_id, claim_id, seat, late, head_seq, data, now, int(mine)),
    )
    store.db.execute(
        "DELETE FROM claims WHERE game_id = ? AND rowid IN (SELECT rowid FROM claims "
        "WHERE game_id = ? ORDER BY received_at DESC, rowid DESC LIMIT -1 OFFSET ?)",
        (game_id, game_id, keep),
    )
    return done.rowcount > 0


def claim_rows(store: Store, game_id: bytes, head_seq: int | None = None) -> list[Row]:
    """``(claim_id, data, received_at, mine)`` of a game's claims by position, then as they
    came (only those at ``head_seq``, when given)."""
    if head_seq is None:
        return store.all(
            "SELECT claim_id, data, received_at, mine FROM claims WHERE game_id = ? "
            "ORDER BY head_seq, received_at, rowid",
            (game_id,),
        )
    return store.all(
        "SELECT claim_id, data, received_at, mine FROM claims WHERE game_id = ? "
        "AND head_seq = ? ORDER BY head_seq, received_at, rowid",
        (game_id, head_seq),
    )
