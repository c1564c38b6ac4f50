"""An in-memory mailbox shared by transports in one process, for the demo and the tests.

It behaves like mail rather than like the folder: every send is a new message, even the same
bytes twice, so the layers above must cope with duplicates. `fail_next_sends` makes the
network look down, to test that unsent packets wait in the outbox.
"""

from __future__ import annotations

from collections.abc import Container

import msgspec

from mail.transport import FetchResult, IncomingPacket, OutgoingPacket, TransportError


class LoopbackMessage(msgspec.Struct, frozen=True):
    """One delivered message, kept whole so tests can check its routing fields."""

    ref: str
    sender: str
    """The `name` of the transport that sent it."""
    packet: OutgoingPacket


class LoopbackNetwork:
    """The shared mailbox: a list every attached transport appends to and reads from."""

    def __init__(self) -> None:
        self.messages: list[LoopbackMessage] = []
        self.fail_next_sends = 0
        """While above zero, each send raises `TransportError` and counts it down by one."""


class LoopbackTransport:
    """A transport over a `LoopbackNetwork`; every attached transport sees every message."""

    def __init__(self, network: LoopbackNetwork, name: str = "loopback") -> None:
        self.network = network
        self.name = name

    async def send(self, packet: OutgoingPacket) -> str:
        """Append the packet as a new message, unless the network is set to fail.

        Returns "": loopback messages have no Message-ID (their ref is not one)."""
        if self.network.fail_next_sends > 0:
            self.network.fail_next_sends -= 1
            raise TransportError(f"loopback network is down: packet {packet.seq} not sent")
        ref = f"{len(self.network.messages):08d}"
        self.network.messages.append(LoopbackMessage(ref=ref, sender=self.name, packet=packet))
        return ""

    async def fetch(self, cursor: str, seen: Container[str]) -> FetchResult:
        """Return every message whose ref is not in `seen`, oldest first; the cursor is ""."""
        packets = [
            IncomingPacket(ref=message.ref, data=message.packet.data)
            for message in self.network.messages
            if message.ref not in seen
        ]
        return FetchResult(packets=packets, cursor="")

    async def close(self) -> None:
        """Nothing to release: the network lives on for the other transports."""
