"""Draft orders kept between visits: what the player wrote in the app and has not signed.

A turn is written over minutes, often over SSH: leaving the game screen, a dropped
connection or a closed terminal must not throw the orders away. The app keeps the drafts of
a game here whenever they change, reads them back when the game is opened again (its check
then says whether they still hold, since the game may have moved on) and forgets them once
they are signed.

Hidden choices are never kept: a secret step's choice stays sealed under the identity key
until its reveal (`saves.secrets`), and a draft of it in clear on disk would undo that. The
drafts are this home's own writing, but the table is read back as any file is: an entry
that is not a list of orders, or larger than `MAX_BYTES`, reads as no drafts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from engine.core.ruleset import DecisionKind
from saves import store_drafts
from saves.store import Store

MAX_BYTES = 256 * 1024
"""The most a game's drafts may take (some thousands of orders: far more than a turn)."""

SECRET_TYPE = DecisionKind.SECRET.value
"""The order type of a hidden choice: never kept."""


def keep(store: Store, game_id: bytes, items: Sequence[dict[str, Any]]) -> bool:
    """Keep ``items`` as the game's drafts (none: forget them); False when they are too large
    to keep (the ones kept before are forgotten, so an old list never comes back)."""
    shown = [item for item in items if item.get("type") != SECRET_TYPE]
    if not shown:
        store_drafts.forget(store, game_id)
        return True
    data = msgspec.json.encode(shown)
    if len(data) > MAX_BYTES:
        store_drafts.forget(store, game_id)
        return False
    store_drafts.write(store, game_id, data)
    return True


def kept(store: Store, game_id: bytes) -> list[dict[str, Any]]:
    """The game's kept drafts, in the order written (none when nothing sound is kept)."""
    data = store_drafts.read(store, game_id)
    if data is None or len(data) > MAX_BYTES:
        return []
    try:
        items = msgspec.json.decode(data)
    except (msgspec.DecodeError, RecursionError):  # (damaged: nested past the stack)
        return []
    if not isinstance(items, list):
        return []
    return [item for item in items if isinstance(item, dict) and isinstance(item.get("type"), str)]


def forget(store: Store, game_id: bytes) -> None:
    """Keep no drafts for the game (its orders were signed)."""
    store_drafts.forget(store, game_id)
