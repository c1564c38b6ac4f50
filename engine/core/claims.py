"""Late claims: a waiting seat's signed statement that the other seat let its reply window pass.

A claim is not a packet. The chain takes one seat's move at a time, and a claim is written by
the seat that does *not* owe the move, so it can never be a link of the chain; it changes no
game state and no state hash. It is a record both players keep and show (the log, the games
list, the export, the app): "at packet N, owed by SEAT since T, I waited past the reply window".
The engine records; people decide (resign, adjudicate, carry on).

On the wire a claim is its own envelope, a msgpack array tagged ``"claim"``::

    ["claim", version, key_id, signature, body]

where ``body`` is the canonical msgpack of `ClaimBody` and the signature covers
``CLAIM_DOMAIN + body``, a domain no packet signature uses, so a claim can never pass for a
packet or the reverse. Transports carry it like packet bytes; `is_claim` tells them apart
before any decoding. Times in a claim are the claimant's clock, informational like a packet's
``written_at``: the engine never reads a clock.
"""

from __future__ import annotations

import hashlib
from typing import Annotated

import msgspec
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from engine.core.errors import PacketError, VersionError
from engine.core.packets import (
    GAME_ID_SIZE,
    MAX_REPLY_WINDOW_HOURS,
    Blob32,
    DecisionKey,
    SeatName,
    SeqNumber,
    SmallInt,
    key_id,
    raw_public_key,
)
from engine.core.text import SAFE_PATTERN

CLAIM_VERSION = 1
CLAIM_DOMAIN = b"hexpost/claim/1\x00"
MAX_CLAIM_SIZE = 4096
"""A claim is a few hundred bytes; anything bigger is refused before it is decoded."""
_TAG = b"\xa5claim"
"""msgpack of the string ``"claim"``: the first element of every claim envelope."""

Stamp = Annotated[str, msgspec.Meta(max_length=64, pattern=SAFE_PATTERN)]


class ClaimBody(msgspec.Struct, frozen=True):
    """What the waiting seat signs.

    ``head_seq``/``head_id`` name the chain position the claimant waits at (its head), and
    ``late`` the seat that owes the move there; ``step``/``key`` name the owed decision.
    ``waiting_since`` and ``claimed_at`` are the claimant's clock (ISO 8601, UTC).
    """

    game_id: Blob32
    seat: SeatName
    late: SeatName
    head_seq: SeqNumber
    head_id: Blob32
    step: DecisionKey
    key: DecisionKey
    window_hours: Annotated[int, msgspec.Meta(ge=1, le=MAX_REPLY_WINDOW_HOURS)]
    waiting_since: Stamp
    claimed_at: Stamp
    note: Annotated[str, msgspec.Meta(max_length=200, pattern=SAFE_PATTERN)] = ""


class ClaimEnvelope(msgspec.Struct, frozen=True, array_like=True, tag="claim"):
    """The signed wrapper of a claim (see the module's notes for its wire form)."""

    version: SmallInt
    key_id: Annotated[bytes, msgspec.Meta(max_length=8)]
    signature: Annotated[bytes, msgspec.Meta(max_length=64)]
    body: Annotated[bytes, msgspec.Meta(max_length=MAX_CLAIM_SIZE)]


class VerifiedClaim(msgspec.Struct, frozen=True):
    """A claim whose signature verified and whose body decoded canonically."""

    data: bytes
    body: ClaimBody
    claim_id: bytes
    public_key: bytes


_ENCODER = msgspec.msgpack.Encoder()
_ENVELOPE_DECODER = msgspec.msgpack.Decoder(ClaimEnvelope)
_BODY_DECODER = msgspec.msgpack.Decoder(ClaimBody)


def is_claim(data: bytes) -> bool:
    """Whether bytes are (or pretend to be) a claim envelope: a cheap look at the first bytes."""
    return len(data) > len(_TAG) and data[0] == 0x95 and data[1 : 1 + len(_TAG)] == _TAG


def claim_id(body_bytes: bytes) -> bytes:
    """A claim's id: SHA-256 of its body bytes (as a packet's id is of its body)."""
    return hashlib.sha256(body_bytes).digest()


def sign_claim(body: ClaimBody, private_key: Ed25519PrivateKey) -> bytes:
    """The bytes of a signed claim."""
    body_bytes = _ENCODER.encode(body)
    envelope = ClaimEnvelope(
        version=CLAIM_VERSION,
        key_id=key_id(raw_public_key(private_key)),
        signature=private_key.sign(CLAIM_DOMAIN + body_bytes),
        body=body_bytes,
    )
    return _ENCODER.encode(envelope)


def read_claim(data: bytes) -> ClaimEnvelope:
    """Decode a claim's envelope only (no signature check); raises `PacketError`."""
    if len(data) > MAX_CLAIM_SIZE:
        raise PacketError(f"claim of {len(data)} bytes is larger than {MAX_CLAIM_SIZE}")
    if not is_claim(data):
        raise PacketError("not a hexpost claim")
    try:
        envelope = _ENVELOPE_DECODER.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise PacketError(f"malformed claim: {exc}") from None
    if envelope.version != CLAIM_VERSION:
        raise VersionError(
            f"claim uses version {envelope.version}; this hexpost reads version {CLAIM_VERSION}"
        )
    if len(envelope.key_id) != 8 or len(envelope.signature) != 64:
        raise PacketError("malformed claim: key id or signature has the wrong length")
    return envelope


def open_claim(data: bytes, public_key: bytes) -> VerifiedClaim:
    """Verify a claim against the key bound to the seat it names, then decode it.

    ``public_key`` is the claimant seat's key as the game binds it; the caller looks it up
    from the seat the claim names (`peek_seat`) and must not take a key from the claim.
    """
    envelope = read_claim(data)
    if key_id(public_key) != envelope.key_id:
        raise PacketError("the claim is not signed by the key bound to its seat")
    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(
            envelope.signature, CLAIM_DOMAIN + envelope.body
        )
    except (InvalidSignature, ValueError):
        raise PacketError("bad claim signature: altered, or not signed by its seat") from None
    body = _decode_body(envelope.body)
    return VerifiedClaim(
        data=data, body=body, claim_id=claim_id(envelope.body), public_key=public_key
    )


def peek(data: bytes) -> ClaimBody:
    """The claim's body *unverified*, to find its game and seat (and so the key to verify by)."""
    return _decode_body(read_claim(data).body)


def _decode_body(body_bytes: bytes) -> ClaimBody:
    try:
        body = _BODY_DECODER.decode(body_bytes)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise PacketError(f"malformed claim body: {exc}") from None
    if _ENCODER.encode(body) != body_bytes:
        raise PacketError("claim body is not canonically encoded")
    if len(body.game_id) != GAME_ID_SIZE or len(body.head_id) != 32:
        raise PacketError("malformed claim body: bad game id or head id")
    if body.seat == body.late:
        raise PacketError("a seat cannot claim that it is late itself")
    return body
