"""The SQLite store: every game's packet log, snapshots, outbox, keys and transport cursors.

One file per home, opened in WAL mode with ``synchronous=FULL`` so a committed transaction
survives a power cut (a sync's batches are flushed together, once: `Store.unflushed`). The
log is the truth: a game is its genesis plus its packets, and snapshots are caches that a
replay must reproduce exactly. Everything that changes together changes in one transaction
(`Store.transaction`): a received packet, the state it produced, its events, the transport
reference that delivered it and any automatic reply are committed together or not at all, so
a crash at any moment leaves either the old game or the new one.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from engine.core.errors import HexpostError

Row = tuple[Any, ...]
"""A result row: SQLite's values (int, str, bytes, None) in column order."""

SCHEMA_VERSION = 6

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    game_id BLOB PRIMARY KEY,
    name TEXT NOT NULL,
    ruleset TEXT NOT NULL,
    scenario TEXT NOT NULL,
    my_seat TEXT NOT NULL,
    status TEXT NOT NULL,              -- invited | active
    frozen TEXT,                       -- NULL or the reason the game is stopped
    head_seq INTEGER NOT NULL,
    head_id BLOB NOT NULL,
    state_hash BLOB NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    waiting_since TEXT NOT NULL,
    unread INTEGER NOT NULL DEFAULT 0,
    archived TEXT NOT NULL DEFAULT '',  -- when its player put it away ('' when not)
    resign_at TEXT NOT NULL DEFAULT '',  -- when its player asked to resign on their next move
    resign_reason TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS packets (
    game_id BLOB NOT NULL,
    seq INTEGER NOT NULL,
    packet_id BLOB NOT NULL,
    seat TEXT NOT NULL,
    kind TEXT NOT NULL,
    data BLOB NOT NULL,
    state_hash BLOB NOT NULL,
    stored_at TEXT NOT NULL,
    events_digest BLOB,                -- of the events kept for it (saves.ledger.events_digest);
                                       -- NULL: kept by a hexpost before schema 6, unchecked;
                                       -- empty: a filled copy's, made again when first read
    PRIMARY KEY (game_id, seq)
);
CREATE UNIQUE INDEX IF NOT EXISTS packets_by_id ON packets (packet_id);
CREATE TABLE IF NOT EXISTS events (
    game_id BLOB NOT NULL,
    seq INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    event BLOB NOT NULL,               -- msgpack of engine.core.ruleset.Event
    PRIMARY KEY (game_id, seq, idx)
);
CREATE TABLE IF NOT EXISTS snapshots (
    game_id BLOB NOT NULL,
    seq INTEGER NOT NULL,
    state BLOB NOT NULL,
    state_hash BLOB NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS game_keys (
    game_id BLOB NOT NULL,
    seat TEXT NOT NULL,
    key_id BLOB NOT NULL,
    public_key BLOB NOT NULL,
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX IF NOT EXISTS game_keys_by_id ON game_keys (key_id);
CREATE TABLE IF NOT EXISTS known_keys (
    public_key BLOB PRIMARY KEY,
    fingerprint TEXT NOT NULL,
    name TEXT NOT NULL,
    address TEXT NOT NULL,
    first_seen TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS identities (
    public_key BLOB PRIMARY KEY,
    fingerprint TEXT NOT NULL,
    name TEXT NOT NULL,
    address TEXT NOT NULL,
    key_file TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS entropy_seeds (
    game_id BLOB NOT NULL,
    seat TEXT NOT NULL,
    seed BLOB NOT NULL,
    length INTEGER NOT NULL,
    checkpoints BLOB NOT NULL DEFAULT x'',  -- engine.core.entropy checkpoints (a cache)
    PRIMARY KEY (game_id, seat)
);
CREATE TABLE IF NOT EXISTS secrets (
    game_id BLOB NOT NULL,
    key TEXT NOT NULL,
    seat TEXT NOT NULL,
    salt BLOB NOT NULL,
    choice BLOB NOT NULL,
    PRIMARY KEY (game_id, key, seat)
);
CREATE TABLE IF NOT EXISTS outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id BLOB NOT NULL,
    seq INTEGER NOT NULL,
    packet_id BLOB NOT NULL UNIQUE,
    data BLOB NOT NULL,
    recipients TEXT NOT NULL,
    subject TEXT NOT NULL,
    automatic INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    last_attempt TEXT,
    last_error TEXT,
    sent_at TEXT,
    next_attempt TEXT,                 -- NULL: now; else no automatic retry before this time
    summary TEXT NOT NULL DEFAULT ''   -- what the packet does, one line each (mail body)
);
CREATE TABLE IF NOT EXISTS mail_ids (  -- Message-IDs of a game's packet emails, for threading
    game_id BLOB NOT NULL,
    seq INTEGER,
    message_id TEXT NOT NULL,
    PRIMARY KEY (game_id, message_id)
);
CREATE TABLE IF NOT EXISTS cursors (transport TEXT PRIMARY KEY, cursor TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS drafts (   -- the app's unsigned draft orders per game (saves.drafts)
    game_id BLOB PRIMARY KEY,
    items BLOB NOT NULL                -- a JSON list of orders, as the orders panel holds it
);
CREATE TABLE IF NOT EXISTS transport_seen (
    transport TEXT NOT NULL,
    ref TEXT NOT NULL,
    PRIMARY KEY (transport, ref)
);
CREATE TABLE IF NOT EXISTS buffered (
    game_id BLOB NOT NULL,
    seq INTEGER NOT NULL,
    packet_id BLOB NOT NULL,
    seat TEXT NOT NULL,
    data BLOB NOT NULL,
    received_at TEXT NOT NULL,
    public_key BLOB,                   -- the key it verified under (NULL: held by an older version)
    PRIMARY KEY (game_id, packet_id)
);
CREATE INDEX IF NOT EXISTS buffered_by_id ON buffered (packet_id);
CREATE TABLE IF NOT EXISTS parked (
    key_id BLOB NOT NULL,
    packet_hash BLOB NOT NULL PRIMARY KEY,
    data BLOB NOT NULL,
    received_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS evidence (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id BLOB NOT NULL,
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,                -- equivocation | desync
    detail TEXT NOT NULL,
    packet_a BLOB NOT NULL,
    packet_b BLOB,
    found_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS reminders (
    game_id BLOB NOT NULL,
    head_seq INTEGER NOT NULL,
    window INTEGER NOT NULL,           -- reply windows passed since the head packet
    sent_at TEXT NOT NULL,
    PRIMARY KEY (game_id, head_seq, window)
);
CREATE TABLE IF NOT EXISTS accepted_joins (  -- keys this home's player accepted (saves.joins)
    game_id BLOB NOT NULL,
    seat TEXT NOT NULL,
    public_key BLOB NOT NULL,
    accepted_at TEXT NOT NULL,
    PRIMARY KEY (game_id, seat)
);
CREATE TABLE IF NOT EXISTS resend_requests (  -- "your packet N came damaged", asked once each
    game_id BLOB NOT NULL,
    seq INTEGER NOT NULL,
    sent_at TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS resend_answers (  -- signed resend asks answered by themselves: the
    game_id BLOB NOT NULL,                      -- last time each position was
    seq INTEGER NOT NULL,
    every_seat INTEGER NOT NULL,
    answered_at TEXT NOT NULL,
    PRIMARY KEY (game_id, seq, every_seat)
);
CREATE TABLE IF NOT EXISTS resend_log (  -- each answer of the last day: what bounds a day's
    game_id BLOB NOT NULL,                -- answers (saves.resend_asks)
    answered_at TEXT NOT NULL,
    sent INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS resend_log_by_game ON resend_log (game_id, answered_at);
CREATE TABLE IF NOT EXISTS rejected (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id BLOB,
    source TEXT NOT NULL,
    reason TEXT NOT NULL,
    data BLOB NOT NULL,
    rejected_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS claims (   -- signed late claims (engine.core.claims), kept apart
    game_id BLOB NOT NULL,             -- from the chain: they change no game state
    claim_id BLOB NOT NULL,
    seat TEXT NOT NULL,                -- the seat that signed the claim
    late TEXT NOT NULL,                -- the seat it says let the reply window pass
    head_seq INTEGER NOT NULL,         -- the chain position the claimant waited at
    data BLOB NOT NULL,
    received_at TEXT NOT NULL,
    mine INTEGER NOT NULL DEFAULT 0,   -- 1: signed by this home
    PRIMARY KEY (game_id, claim_id)
);
CREATE TABLE IF NOT EXISTS chats (    -- signed chat messages (engine.core.chats): beside the
    game_id BLOB NOT NULL,             -- chain, never in it; schema 4
    seat TEXT NOT NULL,                -- the seat that signed the message
    seq INTEGER NOT NULL,              -- that seat's count of its messages in the game
    chat_id BLOB NOT NULL,
    head_seq INTEGER NOT NULL,         -- the last packet the writer had
    written_at TEXT NOT NULL,          -- the writer's clock (shown, never trusted)
    data BLOB NOT NULL,
    received_at TEXT NOT NULL,
    mine INTEGER NOT NULL DEFAULT 0,   -- 1: signed by this home
    PRIMARY KEY (game_id, seat, seq)
);
"""


_ADDED_COLUMNS = {
    "outbox": (
        ("next_attempt", "TEXT"),
        ("summary", "TEXT NOT NULL DEFAULT ''"),
        ("resends", "INTEGER NOT NULL DEFAULT 0"),
    ),
    "packets": (("events_digest", "BLOB"),),
    "parked": (("size", "INTEGER"),),
    "buffered": (("public_key", "BLOB"),),
    "rejected": (("seq", "INTEGER"), ("seat", "TEXT NOT NULL DEFAULT ''")),
    "games": (
        ("archived", "TEXT NOT NULL DEFAULT ''"),
        ("resign_at", "TEXT NOT NULL DEFAULT ''"),
        ("resign_reason", "TEXT NOT NULL DEFAULT ''"),
    ),
}
"""Columns later versions added to tables an older home already has (schema 1 to 6, and the
key a buffered packet verified under, which an older version leaves NULL and never reads)."""


def _upgrade(db: sqlite3.Connection) -> None:
    """Add the columns a home made by an older version lacks (inside the caller's transaction).

    ``CREATE TABLE IF NOT EXISTS`` leaves an existing table as it was, so each added column is
    checked with ``PRAGMA table_info`` and added with ``ALTER TABLE``; rows keep their values
    and get the column's default.
    """
    for table, columns in _ADDED_COLUMNS.items():
        have = {str(row[1]) for row in db.execute(f"PRAGMA table_info({table})")}
        for name, decl in columns:
            if name not in have:
                db.execute(f"ALTER TABLE {table} ADD COLUMN {name} {decl}")
    _count_quota(db)


_QUOTA_TABLES = {
    "parked": "COALESCE({row}.size, length({row}.data))",
    "rejected": "length({row}.data)",
}
"""Tables of hostile input whose rows and bytes `saves.quarantine` bounds, and each row's size."""


def _count_quota(db: sqlite3.Connection) -> None:
    """Keep a running count of the rows and bytes of the quota tables (table ``quota``).

    Triggers update it on every insert and delete, so checking a quota costs one row read
    however many items wait; a home made before the triggers is counted once, here.
    """
    db.execute(
        "CREATE TABLE IF NOT EXISTS quota "
        "(name TEXT PRIMARY KEY, rows INTEGER NOT NULL, bytes INTEGER NOT NULL)"
    )
    for table, size in _QUOTA_TABLES.items():
        new, old = size.format(row="NEW"), size.format(row="OLD")
        db.execute(
            f"CREATE TRIGGER IF NOT EXISTS {table}_quota_in AFTER INSERT ON {table} BEGIN "
            f"UPDATE quota SET rows = rows + 1, bytes = bytes + {new} WHERE name = '{table}'; END"
        )
        db.execute(
            f"CREATE TRIGGER IF NOT EXISTS {table}_quota_out AFTER DELETE ON {table} BEGIN "
            f"UPDATE quota SET rows = rows - 1, bytes = bytes - {old} WHERE name = '{table}'; END"
        )
        db.execute(
            f"INSERT OR IGNORE INTO quota (name, rows, bytes) SELECT '{table}', COUNT(*), "
            f"COALESCE(SUM({size.format(row=table)}), 0) FROM {table}"
        )


class Memo:
    """Rows a batch of received packets reads again and again, read once per batch.

    Only a batch (`saves.ledger.batch`) sets one, and only while it holds the write lock
    (``BEGIN IMMEDIATE``), so no other connection can change what is kept here; the store's
    own modules keep it true as they write (each writer updates or drops what it changes).
    `Store.savepoint` drops ``heads``, ``games`` and ``keys`` when it rolls an item back,
    since the rows they copied may be undone with it. ``held`` only ever errs on the side of
    a query: a rolled-back write leaves it saying "look" where a look finds nothing, never
    the other way round.
    """

    def __init__(self) -> None:
        self.heads: dict[bytes, Any] = {}
        """game id -> `saves.store_games.Head` (or None: no such game)."""
        self.games: dict[bytes, Any] = {}
        """game id -> `saves.store_games.GameRow` (or None)."""
        self.keys: dict[tuple[object, ...], Any] = {}
        """Look-ups of the ``game_keys`` table, by query and parameters; emptied by a bind."""
        self.held: set[bytes] | None = None
        """Games that may have buffered packets (None: not read yet in this batch)."""

    def rolled_back(self) -> None:
        self.heads.clear()
        self.games.clear()
        self.keys.clear()


class StoreError(HexpostError):
    """The home's database could not be opened or written (`database_trouble` says why)."""


class TransactionLost(StoreError):
    """SQLite ended the transaction a savepoint was part of (a full disk, an I/O error): the
    whole change is undone, so what called for the savepoint (one item of a batch) must not
    carry on in the batch as if only its own part were; the places that take items in one by
    one let it through (`saves.inbox`)."""


def database_trouble(path: Path, exc: sqlite3.Error) -> str:
    """One line for the player whose home's database at ``path`` failed with ``exc``: SQLite's
    words, and what to do about them."""
    text = str(exc)
    if "malformed" in text or "not a database" in text:
        advice = (
            "it is damaged: put back the folder of a backup of this home (`hexpost backup` "
            "makes one), and keep the damaged file aside until the games go on"
        )
    elif "full" in text:
        advice = "free some space and run it again (the change under way was undone whole)"
    elif "locked" in text or "busy" in text:
        advice = "another program holds it: run it again when that is done"
    elif "unable to open" in text:
        advice = "see that it is a file this user may read and write"
    else:
        advice = "the change under way was undone whole"
    return f"the home's database {path}: {text}; {advice}"


class Store:
    """A connection to one home's database.

    All writes go through `transaction`; reads may happen anywhere. The connection is used
    by one thread at a time (the command line, or one Textual worker).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists():
            fd = os.open(path, os.O_CREAT | os.O_WRONLY, 0o600)
            os.close(fd)
        self.deferred: dict[bytes, Any] | None = None
        """While a batch runs (`saves.ledger.batch`): each game's head state whose snapshot is
        written once, when the batch commits (game id -> `saves.ledger.DeferredHead`)."""
        self.memo: Memo | None = None
        """While a batch runs: the rows it reads for every packet, read once (`Memo`)."""
        self.moves: dict[bytes, Any] | None = None
        """While a batch runs: each game's head move (game id -> `saves.store_games.HeadMove`),
        written to the ``games`` row once, before anything reads or changes that row by SQL,
        and at the batch's end, instead of once per packet."""
        self.repairs: list[str] = []
        """What reading found damaged in this store and rebuilt since it was opened, one line
        each (`saves.reading`: a kept state rebuilt from the packets), for the command line
        and the app to tell the player."""
        try:
            self._open(path)
        except sqlite3.Error as exc:
            raise StoreError(database_trouble(path, exc)) from None

    def _open(self, path: Path) -> None:
        """Connect, and make the schema this version reads (SQLite's errors pass through)."""
        self.db = sqlite3.connect(path, isolation_level=None, timeout=30.0)
        mode = self.db.execute("PRAGMA journal_mode=WAL").fetchone()
        self.wal = mode is not None and str(mode[0]).lower() == "wal"
        """Whether the write-ahead log is in use (a file system without shared memory may
        refuse it): only then may commits leave their flush to `flush` (`unflushed`)."""
        self.owed = False
        """Commits made by `unflushed` that `flush` has not made durable yet."""
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.execute("PRAGMA foreign_keys=ON")
        self.db.executescript(_SCHEMA)  # idempotent; executescript manages its own commit
        with self.transaction():
            _upgrade(self.db)
            self.set_meta("schema", str(SCHEMA_VERSION))

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """Run a block as one immediate transaction; roll back on any exception."""
        if self.db.in_transaction:
            yield self.db
            return
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
            self.db.execute("COMMIT")
        except BaseException:
            # SQLite may have ended the transaction itself (a full disk, an I/O error): a
            # ROLLBACK then would fail in its turn and hide why.
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            raise

    @contextmanager
    def savepoint(self, name: str = "item") -> Iterator[None]:
        """Run a block under a savepoint of the open transaction: an exception undoes only the
        block's changes (and goes on), so one bad item leaves the others of a batch alone.
        ``name`` (an SQL name, never input) tells nested savepoints apart."""
        self.db.execute(f"SAVEPOINT {name}")
        deferred = None if self.deferred is None else dict(self.deferred)
        moves = None if self.moves is None else dict(self.moves)
        try:
            yield
        except BaseException as exc:
            if not self.db.in_transaction:  # SQLite ended the whole transaction (a full disk)
                raise self._lost(exc) from exc
            self.db.execute(f"ROLLBACK TO {name}")
            self.db.execute(f"RELEASE {name}")
            if self.memo is not None:
                self.memo.rolled_back()
            if deferred is not None and self.deferred is not None:
                # The heads the block moved are rolled back: so are their deferred snapshots.
                self.deferred.clear()
                self.deferred.update(deferred)
            if moves is not None and self.moves is not None:  # and their held-back moves
                self.moves.clear()
                self.moves.update(moves)
            raise
        self.db.execute(f"RELEASE {name}")

    def _lost(self, exc: BaseException) -> TransactionLost:
        """The error that says the transaction around a savepoint is gone, and why."""
        cause = exc if isinstance(exc, sqlite3.Error) else exc.__cause__
        if isinstance(cause, sqlite3.Error):
            return TransactionLost(database_trouble(self.path, cause))
        return TransactionLost(f"the home's database {self.path}: the change was undone: {exc}")

    @contextmanager
    def unflushed(self) -> Iterator[None]:
        """Run a block whose commits do not wait for the disk, leaving that to one `flush`.

        For a sync's batches: each commits atomically as ever (SQLite's write-ahead log with
        ``synchronous=NORMAL``: a crash or kill keeps the store whole, and what reached the OS
        stays), but only a `flush` makes them survive a power cut, so one flush per sync
        replaces one per batch. The caller flushes before anything outside the store relies
        on them (mail moved away, a cursor saved, a report shown); until then a power cut
        only forgets those batches, whose items the transport still offers as unread. Without
        the write-ahead log the block's commits stay fully synced."""
        if not self.wal or self.db.in_transaction:
            yield
            return
        self.db.execute("PRAGMA synchronous=NORMAL")
        try:
            yield
        finally:
            self.owed = True
            self.db.execute("PRAGMA synchronous=FULL")

    def flush(self) -> None:
        """Make what `unflushed` committed durable: one flush of the write-ahead log, which
        holds every commit since the last one synced (no-op when nothing is owed)."""
        if not self.owed:
            return
        try:
            fd = os.open(self.path.with_name(self.path.name + "-wal"), os.O_RDWR)
        except FileNotFoundError:  # no log file: SQLite synced and removed it on its own
            self.owed = False
            return
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        self.owed = False

    def close(self) -> None:
        self.flush()
        self.db.close()

    def data_version(self) -> int:
        """SQLite's count of commits that *other* connections made to this database, as this
        connection sees it (``PRAGMA data_version``): it moves when another process (``sync
        --watch``, a command in a shell, a second app) changed the home, never for this
        connection's own commits. Read from the write-ahead log's index, without touching the
        tables: cheap enough to ask every second or two."""
        row = self.db.execute("PRAGMA data_version").fetchone()
        return int(row[0])

    def own_changes(self) -> int:
        """Rows this connection has inserted, changed or deleted since it opened (SQLite's
        ``total_changes``): what `data_version` leaves out."""
        return self.db.total_changes

    # --- small helpers used by several modules ----------------------------------------------

    def one(self, sql: str, params: tuple[object, ...] = ()) -> Row | None:
        row: Row | None = self.db.execute(sql, params).fetchone()
        return row

    def all(self, sql: str, params: tuple[object, ...] = ()) -> list[Row]:
        rows: list[Row] = self.db.execute(sql, params).fetchall()
        return rows

    def meta(self, key: str) -> str | None:
        """The value of one ``meta`` row: the store's own small facts (its schema, a backup
        copy's mark, where the look over its packets stopped)."""
        row = self.one("SELECT value FROM meta WHERE key = ?", (key,))
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        self.db.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def drop_meta(self, key: str) -> None:
        self.db.execute("DELETE FROM meta WHERE key = ?", (key,))
