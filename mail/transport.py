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
    summary: tuple[str, ...] = ()
    """Plain-language lines saying what the packet does (orders, rolls with their purpose,
    results), for the body of a mail; ignored by the folder transport."""
    references: tuple[str, ...] = ()
    """Message-IDs of this game's earlier packet emails, oldest first: at most 10
    (`saves.outbox.MAX_REFERENCES`), the first and the latest, so mail clients thread the game."""
    automatic: bool = False
    """True for packets no person wrote (an entropy answer, a reveal): a mail transport marks
    them ``Auto-Submitted`` so no vacation responder answers them."""
    sender: str = ""
    """Our address, as the game's seat binding names it (the mail's From)."""
    resend: int = 0
    """How many times the player asked to send this packet again (`hexpost resend`): a folder
    transport then writes it under a new file name even where an identical file exists, so
    that the other side reads it afresh."""


class IncomingPacket(msgspec.Struct, frozen=True):
    """Bytes a transport found, not yet checked by anybody."""

    ref: str
    """A transport-specific stable reference (file name, IMAP UID...), remembered once read."""
    data: bytes
    message_id: str = ""
    """The email's Message-ID, for threading the game's later emails ("" for other transports)."""
    alternatives: tuple[bytes, ...] = ()
    """Other decoded copies of the same item (say the armoured text when ``data`` came from the
    attachment), tried in order when ``data`` does not verify."""
    game_hint: bytes = b""
    """The game the transport's routing says the item is for (a file name, an ``X-Hexpost``
    header), or empty. Never trusted: it only names what a damaged item was meant to be."""
    seq_hint: int = -1
    """The chain position the routing names (-1: none); as untrusted as ``game_hint``."""


class FetchResult(msgspec.Struct, frozen=True):
    """What one fetch found, and the transport state to hand to the next fetch."""

    packets: list[IncomingPacket]
    cursor: str
    """Opaque transport state to pass to the next fetch."""


class Transport(Protocol):
    """Moves signed packet bytes between players; it never interprets them."""

    name: str
    """A stable id, used as the namespace of this transport's cursor and refs in the store."""

    async def send(self, packet: OutgoingPacket) -> str:
        """Deliver one packet, or raise `TransportError` (the caller keeps it in its outbox).

        Returns the reference the delivery used, for threading: a mail transport returns the
        Message-ID of the email it sent, the others "". An error may carry ``retryable``
        (False: the user must change something before a retry); without it, it counts as
        retryable.
        """
        ...

    async def fetch(self, cursor: str, seen: Container[str]) -> FetchResult:
        """Return what arrived since `cursor`, never reading an item whose ref is in `seen`."""
        ...

    async def close(self) -> None:
        """Release connections; the transport is not used afterwards."""
        ...
