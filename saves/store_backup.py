"""The store's side of `saves.backup`: the database copied through SQLite's online backup."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from engine.core.errors import HexpostError
from saves.store import Store


def copy_database(store: Store, copy: Path, key_file: Path) -> tuple[int, int]:
    """Copy ``store`` into the new, empty file ``copy`` in one read transaction, check the
    copy whole, and point its identity record at ``key_file`` (the copy's own key file once
    it is used as a home); returns the copy's ``(games, packets)``."""
    target = sqlite3.connect(copy, isolation_level=None)
    try:
        store.db.backup(target)
        verdict = target.execute("PRAGMA integrity_check").fetchone()
        if verdict is None or verdict[0] != "ok":
            raise HexpostError(f"the copy of {store.path} did not check out: {verdict}")
        target.execute("UPDATE identities SET key_file = ?", (str(key_file),))
        games = target.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        packets = target.execute("SELECT COUNT(*) FROM packets").fetchone()[0]
    except sqlite3.Error as exc:
        raise HexpostError(f"cannot copy {store.path}: {exc}") from None
    finally:
        target.close()
    return int(games), int(packets)
