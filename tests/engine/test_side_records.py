"""Side records (`engine.core.side_records`): chat messages and late claims share one way of
being signed and read; a modified client must not pass one kind off as the other."""

from __future__ import annotations

import msgspec
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from engine.core import chats, claims
from engine.core.chats import ChatBody, ChatEnvelope, open_chat, sign_chat
from engine.core.claims import ClaimBody, ClaimEnvelope, open_claim, sign_claim
from engine.core.errors import PacketError, VersionError
from engine.core.packets import raw_public_key

GAME = bytes(range(16))  # GAME_ID_SIZE
HEAD = bytes(32)


def _chat(**changes: object) -> ChatBody:
    fields: dict[str, object] = {
        "game_id": GAME,
        "seat": "north",
        "seq": 1,
        "head_seq": 3,
        "head_id": HEAD,
        "written_at": "2026-12-02T05:00:00Z",
        "text": "hello",
    }
    return ChatBody(**{**fields, **changes})  # type: ignore[arg-type]


def _claim() -> ClaimBody:
    return ClaimBody(
        game_id=GAME,
        seat="north",
        late="south",
        head_seq=3,
        head_id=HEAD,
        step="1A",
        key="1A",
        window_hours=48,
        waiting_since="2026-11-30T05:00:00Z",
        claimed_at="2026-12-02T05:00:00Z",
    )


def test_each_kind_opens_what_it_signed() -> None:
    key = Ed25519PrivateKey.generate()
    public = raw_public_key(key)
    chat = open_chat(sign_chat(_chat(), key), public)
    claim = open_claim(sign_claim(_claim(), key), public)
    assert chat.body == _chat() and claim.body == _claim()
    assert chat.chat_id == chats.chat_id(chats.encode_chat_body(_chat()))
    assert chats.is_chat(chat.data) and not claims.is_claim(chat.data)
    assert claims.is_claim(claim.data) and not chats.is_chat(claim.data)


def test_a_chat_signature_is_no_claim_signature_and_the_reverse() -> None:
    """Each kind signs in its own domain: a signature carried into the other kind's envelope
    does not verify, even over the very bytes it signed."""
    key = Ed25519PrivateKey.generate()
    public = raw_public_key(key)
    claim_bytes = claims.KIND.encode_body(_claim())
    chat_signed = key.sign(chats.CHAT_DOMAIN + claim_bytes)
    envelope = claims.read_claim(sign_claim(_claim(), key))
    assert isinstance(envelope, ClaimEnvelope) and envelope.body == claim_bytes
    forged = msgspec.structs.replace(envelope, signature=chat_signed)
    with pytest.raises(PacketError, match="bad claim signature"):
        open_claim(msgspec.msgpack.encode(forged), public)
    chat_envelope = chats.read_chat(sign_chat(_chat(), key))
    claim_signed = key.sign(claims.CLAIM_DOMAIN + chat_envelope.body)
    forged_chat = msgspec.structs.replace(chat_envelope, signature=claim_signed)
    with pytest.raises(PacketError, match="bad chat signature"):
        open_chat(msgspec.msgpack.encode(forged_chat), public)


def test_one_kind_is_not_read_as_the_other() -> None:
    key = Ed25519PrivateKey.generate()
    with pytest.raises(PacketError, match="not a hexpost claim"):
        claims.read_claim(sign_chat(_chat(), key))
    with pytest.raises(PacketError, match="not a hexpost chat message"):
        chats.read_chat(sign_claim(_claim(), key))


def test_bounds_and_checks_come_before_and_after_decoding() -> None:
    key = Ed25519PrivateKey.generate()
    public = raw_public_key(key)
    too_big = b"\x95\xa5claim" + bytes(claims.MAX_CLAIM_SIZE)
    with pytest.raises(PacketError, match=f"larger than {claims.MAX_CLAIM_SIZE}"):
        claims.read_claim(too_big)
    with pytest.raises(PacketError, match="one trimmed line"):
        open_chat(sign_chat(_chat(text=" padded"), key), public)
    late_self = msgspec.structs.replace(_claim(), late="north")
    with pytest.raises(PacketError, match="cannot claim that it is late itself"):
        open_claim(sign_claim(late_self, key), public)
    other = raw_public_key(Ed25519PrivateKey.generate())
    with pytest.raises(PacketError, match="not signed by the key bound to its seat"):
        open_chat(sign_chat(_chat(), key), other)
    envelope = chats.read_chat(sign_chat(_chat(), key))
    assert isinstance(envelope, ChatEnvelope)


def test_a_record_from_a_newer_hexpost_says_to_update() -> None:
    """A later hexpost may sign a kind's record in a new version: the refusal says that an
    update reads it, not that the record is damaged (a resend brings back the same bytes)."""
    key = Ed25519PrivateKey.generate()
    envelope = chats.read_chat(sign_chat(_chat(), key))
    newer = msgspec.msgpack.encode(msgspec.structs.replace(envelope, version=envelope.version + 1))
    with pytest.raises(VersionError, match="a newer hexpost wrote it: update hexpost to read it"):
        chats.read_chat(newer)
    older = msgspec.msgpack.encode(msgspec.structs.replace(envelope, version=envelope.version - 1))
    with pytest.raises(VersionError, match="reads version") as refused:
        chats.read_chat(older)
    assert "update" not in str(refused.value)  # no hexpost wrote an older version
