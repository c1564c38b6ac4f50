"""The interface every transport implements, so the rest of hexpost never cares how bytes move.

It is async because the real mail transports (SMTP, IMAP) wait on the network; the folder and
loopback transports implement the same shape so the caller's loop is written once.
"""

from __future__ import annotations

from collections.abc import Container
from typing import Protocol

import msgspec

from engine.core.errors import HexpostError


class TransportError(HexpostError):
    """A transport could not send or fetch (folder missing, server down...); retry later."""


class OutgoingPacket(msgspec.Struct, frozen=True):
    """One signed packet to deliver, with the routing facts a transport may need."""

    game_id: bytes
    """The game's 16-byte id."""
    seq: int
    """The packet's position in the game's chain (0 or more)."""
    packet_id: bytes
    """The 32-byte SHA-256 of the packet body, as the engine computed it."""
    data: bytes
    """The exact signed packet bytes; transports deliver them unchanged."""
    to: tuple[str, ...] = ()
    """Recipient addresses (ignored by the folder transport)."""
    subject: str = ""
    """A human summary for a mail subject line (ignored by the folder transport)."""


class IncomingPacket(msgspec.Struct, frozen=True):
    """Bytes a transport found, not yet checked by anybody."""

    ref: str
    """A transport-specific stable reference (file name, IMAP UID...), remembered once read."""
    data: bytes


class FetchResult(msgspec.Struct, frozen=True):
    """What one fetch found, and the transport state to hand to the next fetch."""

    packets: list[IncomingPacket]
    cursor: str
    """Opaque transport state to pass to the next fetch."""


class Transport(Protocol):
    """Moves signed packet bytes between players; it never interprets them."""

    name: str
    """A stable id, used as the namespace of this transport's cursor and refs in the store."""

    async def send(self, packet: OutgoingPacket) -> None:
        """Deliver one packet, or raise `TransportError` (the caller keeps it in its outbox)."""
        ...

    async def fetch(self, cursor: str, seen: Container[str]) -> FetchResult:
        """Return what arrived since `cursor`, never reading an item whose ref is in `seen`."""
        ...

    async def close(self) -> None:
        """Release connections; the transport is not used afterwards."""
        ...
