"""Packets lost from the middle of a game's chain, and what mends them.

A home keeps every packet of its games and the state at the head beside them, so play goes on
when a stored row in the middle of a chain is lost (a damaged disk, a row deleted by hand).
What replays through that position stops: ``hexpost verify``, a review of that turn, an
archive. They name the gap and what mends it (`LostPacket`, `advice`): the other player's
``hexpost resend GAME --from N --every-seat``, whose copies come as any packet does.

A copy that comes for a lost position fills it if the chain names it there
(`saves.mending.fill`).
"""

from __future__ import annotations

from engine.core.errors import ChainError


class LostPacket(ChainError):
    """A position of a game's chain below its head with no packet stored."""


def lost(seq: int) -> LostPacket:
    """The error a replay raises where it finds packet ``seq`` missing."""
    return LostPacket(
        f"packet {seq}: not in this home's store, though the packets after it are "
        "(lost here since it was kept)"
    )


def advice(name: str, seq: int) -> str:
    """What mends a lost packet ``seq`` of the game ``name``."""
    return (
        f"ask the other player to run `hexpost resend {name} --from {seq} --every-seat`: "
        "their copy fills the gap"
    )


def lost_with_advice(name: str, seq: int) -> LostPacket:
    """`lost`, saying what mends it."""
    return LostPacket(f"{lost(seq).message}; {advice(name, seq)}")
