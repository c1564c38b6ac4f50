"""Hypothesis: the packet decoder raises nothing but the project's own packet errors."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core.errors import PacketError
from engine.core.packets import key_id, open_packet
from tests.engine.table import Table
from tests.engine.toy import TOY, Say

TABLE = Table(TOY, "duel", ["north", "south"], label="fuzz")
TABLE.orders("north", Say("something to mutate"))
SAMPLE = TABLE.packets[-1].data
KEYS = {key_id(p.public): p.public for p in TABLE.players.values()}


def lookup(kid: bytes) -> list[bytes]:
    return [KEYS[kid]] if kid in KEYS else []


@settings(max_examples=500, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=2048))
def test_random_bytes_raise_only_packet_errors(data: bytes) -> None:
    try:
        open_packet(data, lookup)
    except PacketError:
        pass


@settings(max_examples=500)
@given(
    st.lists(
        st.tuples(st.integers(0, len(SAMPLE) - 1), st.integers(0, 255)), min_size=1, max_size=8
    )
)
def test_mutated_packets_raise_only_packet_errors(changes: list[tuple[int, int]]) -> None:
    data = bytearray(SAMPLE)
    for index, value in changes:
        data[index] = value
    try:
        open_packet(bytes(data), lookup)
    except PacketError:
        pass


@settings(max_examples=300)
@given(st.binary(max_size=64), st.integers(0, len(SAMPLE)))
def test_truncated_or_extended_packets_raise_only_packet_errors(extra: bytes, cut: int) -> None:
    try:
        open_packet(SAMPLE[:cut] + extra, lookup)
    except PacketError:
        pass


@settings(max_examples=300)
@given(st.binary(max_size=512))
def test_order_decoder_raises_only_packet_errors(data: bytes) -> None:
    try:
        TOY.decode_orders(data)
    except PacketError:
        pass
