"""The first look at a side record (a late claim, a chat message, a resend ask) that came in.

Each kind verifies against the key the game binds to the seat its body names, never a key
from the record; the verdict (``"verified"``, ``"unknown key"``, ``"bad"``) is what
`saves.copies` and `saves.inbox` act on, and the verified record is handed on so that its
signature is not checked twice.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeVar

from engine.core.errors import PacketError
from saves import store_keys
from saves.store import Store


class _Named(Protocol):
    @property
    def game_id(self) -> bytes: ...
    @property
    def seat(self) -> str: ...


V = TypeVar("V")


def opened(
    store: Store,
    data: bytes,
    peek: Callable[[bytes], _Named],
    open_record: Callable[[bytes, bytes], V],
) -> tuple[str, V | None]:
    """``"verified"`` with the record, by the key its game binds to its seat (``peek`` reads
    the unverified body, ``open_record`` verifies under a key); ``"unknown key"`` when this
    home binds no key to that seat; else ``"bad"``."""
    try:
        body = peek(data)
    except PacketError:
        return "bad", None
    key = store_keys.seat_key(store, body.game_id, body.seat)
    if key is None:
        return "unknown key", None
    try:
        return "verified", open_record(data, key)
    except PacketError:
        return "bad", None
