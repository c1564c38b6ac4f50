"""Where a verified packet belongs in a game's hash chain (protocol properties P2 and P3).

Exactly one packet may sit at each position. A packet for the next position that names the
current head is applied; one further ahead waits in a buffer until the gap is filled; one for
a position already taken is a harmless duplicate when its bytes are the same packet, and
*equivocation* when it is a different packet signed by the same seat: proof that the seat
tried to show the players two different games. The store keeps such proof and freezes the
game. A different seat's packet for a taken position is refused: honest clients never write
one, because only one seat may act at a time. A position below the head with nothing stored is
a packet the store lost since it kept it: only the chain can say whether a copy is that packet
(the packet after it names its id), which the caller, holding the store, checks.
"""

from __future__ import annotations

import enum
from collections.abc import Callable

from engine.core.packets import VerifiedPacket
from engine.core.ruleset import Seat


class Placement(enum.StrEnum):
    """What to do with a verified packet."""

    NEXT = "next"
    """Apply it now."""
    FUTURE = "future"
    """Buffer it until the packets before it arrive."""
    DUPLICATE = "duplicate"
    """Ignore it: this packet is already in the chain."""
    EQUIVOCATION = "equivocation"
    """Keep both packets as evidence and freeze the game."""
    CONFLICT = "conflict"
    """Refuse it: another seat's packet holds this position, or it names the wrong parent."""
    LOST = "lost"
    """Nothing is stored at this position below the head: fill it if the chain names this
    packet there, else refuse it."""


StoredAt = Callable[[int], tuple[bytes, Seat] | None]
"""Looks up the id and seat of the packet stored at a position of the chain."""


def place(head_seq: int, head_id: bytes, packet: VerifiedPacket, stored_at: StoredAt) -> Placement:
    """Classify ``packet`` against a chain whose last applied packet is ``head_seq``."""
    body = packet.body
    if body.seq == head_seq + 1:
        return Placement.NEXT if body.prev == head_id else Placement.CONFLICT
    if body.seq > head_seq + 1:
        return Placement.FUTURE
    stored = stored_at(body.seq)
    if stored is None:
        return Placement.LOST
    stored_id, stored_seat = stored
    if stored_id == packet.packet_id:
        return Placement.DUPLICATE
    if stored_seat == body.seat:
        return Placement.EQUIVOCATION
    return Placement.CONFLICT
