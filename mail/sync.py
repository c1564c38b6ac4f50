"""Sync: pull what arrived, apply it, then push the outbox.

Pulling comes first so automatic replies (entropy for a roll, a reveal) that the received
packets call for are already in the outbox when it is pushed. Each received packet is taken
in by its own store transaction that also marks its transport ref as read, so a crash at any
point loses nothing and applies nothing twice; a crash after a send but before it is marked
only means the same bytes go out again, which every receiver ignores as a duplicate.
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from mail.transport import OutgoingPacket, Transport, TransportError
from saves import outbox
from saves.inbox import Outcome
from saves.replica import Replica


class SendFailure(msgspec.Struct, frozen=True):
    seq: int
    error: str


class SyncReport(msgspec.Struct, frozen=True):
    """What one sync did."""

    received: list[Outcome]
    sent: list[int]
    failed: list[SendFailure]
    problems: list[str] = []
    """Automatic replies that could not be written, one line per game."""


async def pull(replica: Replica, transport: Transport, now: Callable[[], str]) -> list[Outcome]:
    """Fetch what the transport has that this home has not read, and take each packet in."""
    store = replica.store
    result = await transport.fetch(
        outbox.cursor(store, transport.name), outbox.seen_refs(store, transport.name)
    )
    outcomes = [
        replica.receive(
            item.data,
            source=f"{transport.name} {item.ref}",
            now=now(),
            ref=(transport.name, item.ref),
        )
        for item in result.packets
    ]
    outbox.save_cursor(store, transport.name, result.cursor)
    return outcomes


async def push(
    replica: Replica, transport: Transport, now: Callable[[], str], game_id: bytes | None = None
) -> tuple[list[int], list[SendFailure]]:
    """Offer every unsent packet to the transport, oldest first; record each attempt."""
    sent: list[int] = []
    failed: list[SendFailure] = []
    for entry in outbox.unsent(replica.store, game_id):
        packet = OutgoingPacket(
            game_id=entry.game_id,
            seq=entry.seq,
            packet_id=entry.packet_id,
            data=entry.data,
            to=entry.recipients,
            subject=entry.subject,
        )
        try:
            await transport.send(packet)
        except TransportError as exc:
            outbox.mark_failed(replica.store, entry.id, str(exc), now())
            failed.append(SendFailure(entry.seq, str(exc)))
            continue
        outbox.mark_sent(replica.store, entry.id, now())
        sent.append(entry.seq)
    return sent, failed


async def sync(replica: Replica, transport: Transport, now: Callable[[], str]) -> SyncReport:
    """Pull, apply and push once."""
    received = await pull(replica, transport, now)
    _, problems = replica.auto_replies(now())
    sent, failed = await push(replica, transport, now)
    return SyncReport(received, sent, failed, problems)
