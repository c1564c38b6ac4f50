"""The in-memory loopback transport and its failure knob."""

from __future__ import annotations

import pytest

from mail.loopback import LoopbackNetwork, LoopbackTransport
from mail.transport import OutgoingPacket, Transport, TransportError


def packet(data: bytes, seq: int = 0) -> OutgoingPacket:
    return OutgoingPacket(
        game_id=bytes(16), seq=seq, packet_id=bytes(32), data=data, to=("b@example.org",)
    )


async def test_round_trip_between_two_players() -> None:
    network = LoopbackNetwork()
    alice: Transport = LoopbackTransport(network, name="loopback:alice")
    bob: Transport = LoopbackTransport(network, name="loopback:bob")
    assert await alice.send(packet(b"one")) == "", "loopback messages have no Message-ID"
    await bob.send(packet(b"two", seq=1))

    result = await bob.fetch("", set())

    assert [(p.ref, p.data) for p in result.packets] == [("00000000", b"one"), ("00000001", b"two")]
    assert [m.sender for m in network.messages] == ["loopback:alice", "loopback:bob"]
    assert network.messages[0].packet.to == ("b@example.org",)
    assert result.packets[0].message_id == ""
    assert result.packets[0].alternatives == ()
    await alice.close()


async def test_fetch_skips_seen_refs() -> None:
    network = LoopbackNetwork()
    transport = LoopbackTransport(network)
    for seq in range(3):
        await transport.send(packet(bytes([seq]), seq=seq))
    result = await transport.fetch("", {"00000000", "00000002"})
    assert [p.ref for p in result.packets] == ["00000001"]


async def test_same_packet_twice_is_two_messages_like_mail() -> None:
    network = LoopbackNetwork()
    transport = LoopbackTransport(network)
    await transport.send(packet(b"again"))
    await transport.send(packet(b"again"))
    assert len((await transport.fetch("", ())).packets) == 2


async def test_fail_next_sends_simulates_a_network_down() -> None:
    network = LoopbackNetwork()
    network.fail_next_sends = 2
    transport = LoopbackTransport(network)
    for _ in range(2):
        with pytest.raises(TransportError, match="down"):
            await transport.send(packet(b"lost"))
    assert network.messages == []
    assert network.fail_next_sends == 0

    await transport.send(packet(b"through"))
    assert [p.data for p in (await transport.fetch("", ())).packets] == [b"through"]
