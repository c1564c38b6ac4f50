"""The store's side of `saves.backup`: the database copied through SQLite's online backup, and
the mark a copy carries until its player confirms it as the home played from."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from engine.core.errors import HexpostError
from saves.store import Store

COPY_MARK = "backup_copy_taken_at"
"""The ``meta`` key a copy holds (the time it was taken) until it is confirmed as restored."""


def copy_database(store: Store, copy: Path, key_file: Path, taken_at: str) -> tuple[int, int]:
    """Copy ``store`` into the new, empty file ``copy`` in one read transaction, check the
    copy whole, point its identity record at ``key_file`` (the copy's own key file once it
    is used as a home) and mark it a copy taken at ``taken_at``; returns the copy's
    ``(games, packets)``."""
    target = sqlite3.connect(copy, isolation_level=None)
    try:
        store.db.backup(target)
        verdict = target.execute("PRAGMA integrity_check").fetchone()
        if verdict is None or verdict[0] != "ok":
            raise HexpostError(f"the copy of {store.path} did not check out: {verdict}")
        target.execute("UPDATE identities SET key_file = ?", (str(key_file),))
        target.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (COPY_MARK, taken_at),
        )
        games = target.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        packets = target.execute("SELECT COUNT(*) FROM packets").fetchone()[0]
    except sqlite3.Error as exc:
        raise HexpostError(f"cannot copy {store.path}: {exc}") from None
    finally:
        target.close()
    return int(games), int(packets)


def copy_taken_at(store: Store) -> str | None:
    """When this store was copied, if it is a backup copy not yet confirmed as restored."""
    return store.meta(COPY_MARK)


def forget_copy_mark(store: Store) -> None:
    """The player confirmed this copy as the home played from (`saves.backup.confirm`)."""
    with store.transaction():
        store.drop_meta(COPY_MARK)


def is_marked_copy(path: Path) -> bool:
    """Whether the database file ``path`` is a backup copy never confirmed as a home played
    from (read only; False for a file that is not such a database)."""
    try:
        db = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    except sqlite3.Error:
        return False
    try:
        row = db.execute("SELECT value FROM meta WHERE key = ?", (COPY_MARK,)).fetchone()
    except sqlite3.Error:
        return False
    finally:
        db.close()
    return row is not None
