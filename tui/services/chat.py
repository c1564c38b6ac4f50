"""Chat at any time: a signed message beside the game's chain, sent by the next sync.

Either player may write one whether or not it owes the move (`saves.chat_messages`); it
changes nothing in the game. Old games' chat packets (in the chain, written on one's move)
still show in the log as they always did; new lines are always chat messages.
"""

from __future__ import annotations

import msgspec

from saves.chat_messages import ChatRow, messages_of, write
from saves.replica import Replica
from tui.services.ports import Clock


class ChatLine(msgspec.Struct, frozen=True):
    """One chat message as ``hexpost chat GAME --json`` lists it."""

    seat: str
    seq: int
    written_at: str
    """The writer's clock: shown, never trusted."""
    after_packet: int
    """The last packet of the game its writer had."""
    text: str
    mine: bool


def send_chat(signer: Replica, game_id: bytes, text: str, clock: Clock) -> ChatRow:
    """Sign and queue ``text`` for the other players, on our move or not."""
    return write(signer, game_id, text, clock())


def chat_lines(replica: Replica, game_id: bytes) -> list[ChatLine]:
    """A game's chat messages in the order of their writers' clocks."""
    return [
        ChatLine(
            row.body.seat,
            row.body.seq,
            row.body.written_at,
            row.body.head_seq,
            row.body.text,
            row.mine,
        )
        for row in messages_of(replica.store, game_id)
    ]
