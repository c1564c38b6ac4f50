"""The queries of the ``drafts`` table: a game's unsigned draft orders, as the app left them
(`saves.drafts` says what is kept and why)."""

from __future__ import annotations

from saves.store import Store


def read(store: Store, game_id: bytes) -> bytes | None:
    """The game's kept drafts (JSON), or None when none are kept."""
    row = store.one("SELECT items FROM drafts WHERE game_id = ?", (game_id,))
    return None if row is None else bytes(row[0])


def write(store: Store, game_id: bytes, items: bytes) -> None:
    """Keep ``items`` (JSON) as the game's drafts, in place of any kept before."""
    with store.transaction() as db:
        db.execute(
            "INSERT INTO drafts (game_id, items) VALUES (?, ?) "
            "ON CONFLICT (game_id) DO UPDATE SET items = excluded.items",
            (game_id, items),
        )


def forget(store: Store, game_id: bytes) -> None:
    """Keep no drafts for the game."""
    with store.transaction() as db:
        db.execute("DELETE FROM drafts WHERE game_id = ?", (game_id,))
