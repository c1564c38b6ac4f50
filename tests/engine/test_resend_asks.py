"""`engine.core.resend_asks`: a resend ask's wire form, its bounds and what it may say."""

from __future__ import annotations

import msgspec
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from engine.core.chats import is_chat
from engine.core.errors import PacketError
from engine.core.packets import raw_public_key
from engine.core.resend_asks import MAX_ASK_SIZE, AskBody, is_ask, open_ask, peek, sign_ask

KEY = Ed25519PrivateKey.from_private_bytes(b"\x05" * 32)
BODY = AskBody(
    game_id=b"\x01" * 16, seat="alliance", head_seq=30, head_id=b"\x02" * 32, seq=31,
    every_seat=False, written_at="2030-01-01T00:00:00Z",
)  # fmt: skip


def test_an_ask_reads_back_under_its_seat_s_key_only() -> None:
    data = sign_ask(BODY, KEY)
    assert is_ask(data) and not is_chat(data) and len(data) < MAX_ASK_SIZE
    assert open_ask(data, raw_public_key(KEY)).body == BODY
    other = Ed25519PrivateKey.from_private_bytes(b"\x06" * 32)
    with pytest.raises(PacketError, match="not signed by the key bound to its seat"):
        open_ask(data, raw_public_key(other))


@pytest.mark.parametrize(
    ("changes", "why"),
    [
        ({"seq": 0}, "asks for the packet after its head"),
        ({"seq": 29}, "asks for the packet after its head"),
        ({"seq": 32}, "asks for the packet after its head"),
        ({"seq": 32, "every_seat": True}, "at most packet 31"),
        ({"seat": "bad\x1bseat"}, "malformed"),
        ({"seq": 20, "every_seat": True, "upto": 19}, "ends before it begins"),
    ],
)
def test_an_ask_that_says_something_impossible_is_refused(
    changes: dict[str, object], why: str
) -> None:
    data = sign_ask(msgspec.structs.replace(BODY, **changes), KEY)
    with pytest.raises(PacketError, match=why):
        peek(data)


def test_an_ask_for_the_whole_chain_from_its_genesis_reads() -> None:
    """What a home that lost its stored genesis asks for (`saves.holes`)."""
    body = msgspec.structs.replace(BODY, seq=0, every_seat=True)
    assert open_ask(sign_ask(body, KEY), raw_public_key(KEY)).body == body


def test_an_ask_bounded_at_both_ends_reads() -> None:
    """What a home that lost packets 12 to 14 of a longer chain asks for: those only."""
    body = msgspec.structs.replace(BODY, seq=12, every_seat=True, upto=14)
    assert open_ask(sign_ask(body, KEY), raw_public_key(KEY)).body == body


class _AskBodyBefore(msgspec.Struct, frozen=True):
    """`AskBody` as hexpost signed it before asks could name their last packet."""

    game_id: bytes
    seat: str
    head_seq: int
    head_id: bytes
    seq: int
    every_seat: bool
    written_at: str


def test_an_unbounded_ask_is_the_bytes_it_was_before_asks_had_an_end() -> None:
    """An ask with no end is encoded without the field, so an ask an older hexpost signed
    still reads, and one without an end reads on an older hexpost."""
    fields = msgspec.structs.asdict(BODY)
    assert fields.pop("upto") is None
    before = _AskBodyBefore(**fields)
    assert msgspec.msgpack.encode(before) == msgspec.msgpack.encode(BODY)
    assert b"upto" in msgspec.msgpack.encode(msgspec.structs.replace(BODY, upto=31))


def test_an_ask_too_big_is_refused_before_it_is_decoded() -> None:
    data = sign_ask(BODY, KEY)
    with pytest.raises(PacketError, match="larger than"):
        peek(data + b"\x00" * MAX_ASK_SIZE)
