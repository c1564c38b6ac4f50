"""A chat line: signed into the game's chain like orders, sent by the next sync.

It can be written only on this seat's move and never while a roll waits for this home's
entropy (`saves.chat` says why); nothing is stored when it is refused.
"""

from __future__ import annotations

from saves.replica import Replica
from tui.services.ports import Clock


def send_chat(signer: Replica, game_id: bytes, text: str, clock: Clock) -> int:
    """Sign and queue ``text`` for the other players; the packet's seq."""
    return signer.chat(game_id, text, now=clock()).seq
