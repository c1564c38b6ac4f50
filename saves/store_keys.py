"""The store's key tables: keys games bind, keys seen per address, this home's identities, the
joined keys its player accepted, and the (sealed) entropy seeds and secret choices.

Every SQL statement about keys and kept secrets lives here. Sealing and opening are
`saves.vault`'s business: these functions move the stored bytes as they are.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from saves.store import Row, Store

# --- keys games bind, and keys seen ------------------------------------------------------------


def bind_key(store: Store, game_id: bytes, seat: str, kid: bytes, public_key: bytes) -> None:
    """Record the key a game binds to a seat (once: a seat's key never changes)."""
    store.db.execute(
        "INSERT OR IGNORE INTO game_keys (game_id, seat, key_id, public_key) VALUES (?, ?, ?, ?)",
        (game_id, seat, kid, public_key),
    )
    if store.memo is not None:
        store.memo.keys.clear()


def seat_keys(store: Store, game_id: bytes) -> dict[str, tuple[bytes, bytes]]:
    """Every key a game binds, as stored: ``{seat: (key id, public key)}``."""
    rows = store.all("SELECT seat, key_id, public_key FROM game_keys WHERE game_id = ?", (game_id,))
    return {str(seat): (bytes(kid), bytes(public)) for seat, kid, public in rows}


def rebind_keys(store: Store, game_id: bytes, keys: dict[str, tuple[bytes, bytes]]) -> None:
    """Keep ``keys`` (``{seat: (key id, public key)}``) as the keys a game binds, in place of
    those stored (found damaged: `saves.reading.Reader.check_keys`)."""
    store.db.execute("DELETE FROM game_keys WHERE game_id = ?", (game_id,))
    store.db.executemany(
        "INSERT INTO game_keys (game_id, seat, key_id, public_key) VALUES (?, ?, ?, ?)",
        [(game_id, seat, kid, public) for seat, (kid, public) in sorted(keys.items())],
    )
    if store.memo is not None:
        store.memo.keys.clear()


def seen_key(
    store: Store, public_key: bytes, fingerprint: str, name: str, address: str, now: str
) -> None:
    """Remember a key and who it came as, the first time it is seen (trust on first use)."""
    store.db.execute(
        "INSERT OR IGNORE INTO known_keys (public_key, fingerprint, name, address, first_seen) "
        "VALUES (?, ?, ?, ?, ?)",
        (public_key, fingerprint, name, address, now),
    )


def keys_with_id(store: Store, kid: bytes) -> list[bytes]:
    """Public keys bound to a seat of any game in this home under a key id."""
    memo = None if store.memo is None else store.memo.keys
    if memo is not None and ("id", kid) in memo:
        return list(memo["id", kid])
    rows = store.all("SELECT DISTINCT public_key FROM game_keys WHERE key_id = ?", (kid,))
    found = [bytes(pk) for (pk,) in rows]
    if memo is not None:  # kept until a key is bound (`bind_key`) or an item rolled back
        memo["id", kid] = tuple(found)
    return found


def seat_key(store: Store, game_id: bytes, seat: str) -> bytes | None:
    """The key a game binds to a seat, if that seat has joined."""
    memo = None if store.memo is None else store.memo.keys
    if memo is not None and ("seat", game_id, seat) in memo:
        kept: bytes | None = memo["seat", game_id, seat]
        return kept
    row = store.one(
        "SELECT public_key FROM game_keys WHERE game_id = ? AND seat = ?", (game_id, seat)
    )
    found = None if row is None else bytes(row[0])
    if memo is not None:
        memo["seat", game_id, seat] = found
    return found


def bound_count(store: Store) -> int:
    """How many (game, seat) keys this home binds: grows exactly when a new key is bound."""
    memo = None if store.memo is None else store.memo.keys
    if memo is not None and ("count",) in memo:
        kept: int = memo["count",]
        return kept
    row = store.one("SELECT COUNT(*) FROM game_keys")
    found = int(row[0]) if row else 0
    if memo is not None:
        memo["count",] = found
    return found


def other_fingerprints(store: Store, address: str, public_key: bytes) -> list[str]:
    """Fingerprints of keys seen before for ``address`` other than ``public_key``, oldest first."""
    rows = store.all(
        "SELECT fingerprint FROM known_keys WHERE address = ? AND public_key != ? "
        "ORDER BY first_seen",
        (address, public_key),
    )
    return [str(fp) for (fp,) in rows]


def record_identity(
    store: Store, public_key: bytes, fingerprint: str, name: str, address: str, key_file: str
) -> None:
    store.db.execute(
        "INSERT OR REPLACE INTO identities (public_key, fingerprint, name, address, "
        "key_file, created_at) VALUES (?, ?, ?, ?, ?, datetime('now'))",
        (public_key, fingerprint, name, address, key_file),
    )


# --- joined keys the player accepted ----------------------------------------------------------


def accepted_key(store: Store, game_id: bytes, seat: str) -> bytes | None:
    row = store.one(
        "SELECT public_key FROM accepted_joins WHERE game_id = ? AND seat = ?", (game_id, seat)
    )
    return None if row is None else bytes(row[0])


def accept_key(store: Store, game_id: bytes, seat: str, public_key: bytes, now: str) -> None:
    store.db.execute(
        "INSERT INTO accepted_joins (game_id, seat, public_key, accepted_at) "
        "VALUES (?, ?, ?, ?) ON CONFLICT (game_id, seat) DO UPDATE SET "
        "public_key = excluded.public_key, accepted_at = excluded.accepted_at",
        (game_id, seat, public_key, now),
    )


# --- entropy seeds and secret choices (as stored: sealed, or plain from an older version) -----


def seed_row(store: Store, game_id: bytes, seat: str) -> tuple[bytes, int, bytes] | None:
    """``(seed, chain length, checkpoints)`` as stored for a seat."""
    row = store.one(
        "SELECT seed, length, checkpoints FROM entropy_seeds WHERE game_id = ? AND seat = ?",
        (game_id, seat),
    )
    return None if row is None else (bytes(row[0]), int(row[1]), bytes(row[2]))


def has_seed(store: Store, game_id: bytes, seat: str) -> bool:
    row = store.one("SELECT 1 FROM entropy_seeds WHERE game_id = ? AND seat = ?", (game_id, seat))
    return row is not None


def insert_seed(
    store: Store, game_id: bytes, seat: str, seed: bytes, length: int, checkpoints: bytes = b""
) -> None:
    store.db.execute(
        "INSERT INTO entropy_seeds (game_id, seat, seed, length, checkpoints) "
        "VALUES (?, ?, ?, ?, ?)",
        (game_id, seat, seed, length, checkpoints),
    )


def secret_row(store: Store, game_id: bytes, name: str, seat: str) -> tuple[bytes, bytes] | None:
    """``(salt, choice)`` as stored for a secret decision."""
    row = store.one(
        "SELECT salt, choice FROM secrets WHERE game_id = ? AND key = ? AND seat = ?",
        (game_id, name, seat),
    )
    return None if row is None else (bytes(row[0]), bytes(row[1]))


def secrets_of(store: Store, game_id: bytes) -> list[tuple[str, str, bytes, bytes]]:
    """``(key, seat, salt, choice)`` of every secret choice kept for a game, as stored."""
    rows = store.all("SELECT key, seat, salt, choice FROM secrets WHERE game_id = ?", (game_id,))
    return [(str(k), str(s), bytes(a), bytes(c)) for k, s, a, c in rows]


def insert_secret(
    store: Store, game_id: bytes, name: str, seat: str, salt: bytes, choice: bytes
) -> None:
    store.db.execute(
        "INSERT INTO secrets (game_id, key, seat, salt, choice) VALUES (?, ?, ?, ?, ?)",
        (game_id, name, seat, salt, choice),
    )


def seeds_not_starting_with(store: Store, prefix: bytes) -> list[Row]:
    """``(game, seat, seed, checkpoints)`` of every seed whose stored bytes lack ``prefix``."""
    return store.all(
        "SELECT game_id, seat, seed, checkpoints FROM entropy_seeds WHERE substr(seed, 1, ?) != ?",
        (len(prefix), prefix),
    )


def secrets_not_starting_with(store: Store, prefix: bytes) -> list[Row]:
    """``(game, key, seat, salt, choice)`` of every secret whose salt lacks ``prefix``."""
    return store.all(
        "SELECT game_id, key, seat, salt, choice FROM secrets WHERE substr(salt, 1, ?) != ?",
        (len(prefix), prefix),
    )


def replace_seed(store: Store, game_id: bytes, seat: str, old_seed: bytes, blob: bytes) -> None:
    """Put ``blob`` in place of a seed row still holding ``old_seed`` (else leave it)."""
    store.db.execute(
        "UPDATE entropy_seeds SET seed = ?, checkpoints = x'' "
        "WHERE game_id = ? AND seat = ? AND seed = ?",
        (blob, game_id, seat, old_seed),
    )


def replace_secret(
    store: Store, game_id: bytes, name: str, seat: str, old_salt: bytes, blob: bytes
) -> None:
    """Put ``blob`` in place of a secret row still holding ``old_salt`` (else leave it)."""
    store.db.execute(
        "UPDATE secrets SET salt = ?, choice = x'' WHERE game_id = ? AND key = ? "
        "AND seat = ? AND salt = ?",
        (blob, game_id, name, seat, old_salt),
    )


@contextmanager
def secure_delete(store: Store) -> Iterator[None]:
    """SQLite's ``secure_delete`` on for the block (then as it was): the space overwritten or
    deleted bytes held is zeroed rather than left in a free part of a page."""
    before = store.one("PRAGMA secure_delete")
    store.db.execute("PRAGMA secure_delete = ON")
    try:
        yield
    finally:
        store.db.execute(f"PRAGMA secure_delete = {int(before[0]) if before else 0}")
