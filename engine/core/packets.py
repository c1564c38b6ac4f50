"""Packet structs, their canonical encoding, Ed25519 signatures and packet ids.

A packet travels as the msgpack encoding of an `Envelope`: ``[version, key_id, signature,
body, public_key]``. ``body`` is the canonical msgpack encoding of a `Body`; the signature
covers ``SIGNATURE_DOMAIN + body`` so a hexpost signature can never be replayed as some other
protocol's signature. The packet id is SHA-256 of the body bytes.

Authenticity comes first (protocol property P1): `open_packet` checks the signature over the
exact received body bytes *before* the body is decoded, and then insists that re-encoding the
decoded body gives the same bytes, so one packet has one id and one meaning.
"""

import hashlib
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Annotated

import msgspec

from engine.core import caches
from engine.core.errors import PacketError, VersionError
from engine.core.text import SAFE_PATTERN, Name

if TYPE_CHECKING:
    # The key classes are imported where keys are used: loading cryptography's bindings costs
    # about 19M instructions, and reading a game (the app's first paint) signs and verifies
    # nothing (issue 16).
    from cryptography.hazmat.primitives.asymmetric.ed25519 import (
        Ed25519PrivateKey,
        Ed25519PublicKey,
    )

PROTOCOL_VERSION = 2
"""Version 2: a join is taken only while its seat owes it, the creator accepts the joined key
with its next packet, and a roll is bound to its step and purpose (all change the state)."""
SIGNATURE_DOMAIN = b"hexpost/packet/1\x00"
ZERO_ID = bytes(32)
GAME_ID_SIZE = 16
MAX_PACKET_SIZE = 1 << 20
"""Packets larger than this are refused before any work is done (1 MiB)."""
MAX_SEQ = (1 << 31) - 1
"""The largest position a packet may claim. Every integer that a packet carries is bounded
when it is decoded, so nothing hostile reaches storage (SQLite keeps 64-bit integers) or
costs work in proportion to its value; a seat's entropy chain ends long before this."""
MAX_REPLY_WINDOW_HOURS = 24 * 366
MAX_CHAT = 1000
"""Characters in one chat line or resignation reason."""

SeqNumber = Annotated[int, msgspec.Meta(ge=0, le=MAX_SEQ)]
SmallInt = Annotated[int, msgspec.Meta(ge=0, le=0xFFFF)]
ShortId = Annotated[str, msgspec.Meta(max_length=64, pattern=SAFE_PATTERN)]
SeatName = Annotated[str, msgspec.Meta(min_length=1, max_length=32, pattern=SAFE_PATTERN)]
ChatText = Annotated[str, msgspec.Meta(max_length=MAX_CHAT, pattern=SAFE_PATTERN)]
DecisionKey = Annotated[str, msgspec.Meta(max_length=200, pattern=SAFE_PATTERN)]
Blob32 = Annotated[bytes, msgspec.Meta(max_length=32)]
OptionInPacket = (
    bool
    | Annotated[int, msgspec.Meta(ge=-(1 << 31), le=1 << 31)]
    | Annotated[str, msgspec.Meta(max_length=64, pattern=SAFE_PATTERN)]
)
"""An optional rule's value as a genesis carries it (`OptionValue`, bounded)."""


class SeatBinding(msgspec.Struct, frozen=True):
    """A seat as the genesis names it. ``public_key`` is empty until the seat joins."""

    seat: SeatName
    name: Name
    address: Name
    public_key: Blob32 = b""


class Genesis(msgspec.Struct, frozen=True, tag="genesis"):
    """The creator's first packet: everything both clients must agree on before play (P8)."""

    protocol: SmallInt
    ruleset_id: ShortId
    ruleset_version: ShortId
    scenario_id: ShortId
    scenario_hash: Blob32
    options: Annotated[list[tuple[ShortId, OptionInPacket]], msgspec.Meta(max_length=256)]
    seats: Annotated[list[SeatBinding], msgspec.Meta(min_length=1, max_length=16)]
    creator: SeatName
    anchor: Blob32
    reply_window_hours: Annotated[int, msgspec.Meta(ge=1, le=MAX_REPLY_WINDOW_HOURS)] = 72
    name: Name = ""


class Join(msgspec.Struct, frozen=True, tag="join", omit_defaults=True):
    """An invitee answers the invitation: binds its key and its entropy anchor to its seat
    (P10, P6) and takes the seat, or, with ``declines``, refuses it, which ends the game
    before it began (the creator's game would otherwise wait for a join that never comes).

    The last two fields came later; they are left out of the bytes at their defaults, so a
    join signed before them keeps its bytes and its id, and a client that predates them
    refuses a declining join as not canonical rather than take it for a join.
    """

    genesis_id: Blob32
    name: Name
    address: Name
    public_key: Blob32
    anchor: Blob32
    declines: bool = False
    reason: ChatText = ""
    """Why the invitee declines, in one line for the log (only with ``declines``)."""


class Turn(msgspec.Struct, frozen=True, tag="turn"):
    """Orders for the decisions this seat owes, encoded by the game's ruleset."""

    orders: bytes = b"\x90"


class EntropyOnly(msgspec.Struct, frozen=True, tag="entropy"):
    """Nothing but this seat's next entropy value (to resolve a die roll)."""


class Chat(msgspec.Struct, frozen=True, tag="chat"):
    """A signed message between the players, kept in the log."""

    text: ChatText


class Resign(msgspec.Struct, frozen=True, tag="resign"):
    """The seat concedes the game."""

    reason: ChatText = ""


Kind = Genesis | Join | Turn | EntropyOnly | Chat | Resign


def kind_name(kind: Kind) -> str:
    """The kind's tag as it travels: ``"genesis"``, ``"turn"``, ``"entropy"``..."""
    return str(kind.__struct_config__.tag)


def kind_word(kind: Kind) -> str:
    """The kind as a log names it: its tag, but ``"decline"`` for a join that declines."""
    return "decline" if isinstance(kind, Join) and kind.declines else kind_name(kind)


class Commit(msgspec.Struct, frozen=True):
    """A commitment to a secret choice for the decision named ``key``."""

    key: DecisionKey
    digest: Blob32


class Reveal(msgspec.Struct, frozen=True):
    """The opening of a commitment: the salt and the canonical bytes of the choice."""

    key: DecisionKey
    salt: Blob32
    choice: bytes


class Body(msgspec.Struct, frozen=True):
    """What a seat signs. New fields go at the end with defaults (msgspec schema evolution)."""

    game_id: Blob32
    seq: SeqNumber
    prev: Blob32
    seat: SeatName
    ruleset: ShortId
    kind: Kind
    entropy: Blob32
    commits: Annotated[list[Commit], msgspec.Meta(max_length=16)] = []
    reveals: Annotated[list[Reveal], msgspec.Meta(max_length=16)] = []
    state_hash: Blob32 = b""
    written_at: Annotated[str, msgspec.Meta(max_length=64, pattern=SAFE_PATTERN)] = ""
    """Informational only: the author's clock. The engine never reads it."""


class Envelope(msgspec.Struct, frozen=True, array_like=True):
    """The signed wrapper. ``public_key`` is present only in Genesis and Join packets."""

    version: SmallInt
    key_id: Annotated[bytes, msgspec.Meta(max_length=8)]
    signature: Annotated[bytes, msgspec.Meta(max_length=64)]
    body: bytes
    public_key: Blob32 = b""


class VerifiedPacket(msgspec.Struct, frozen=True):
    """A packet whose signature verified and whose body decoded canonically."""

    data: bytes
    envelope: Envelope
    body: Body
    packet_id: bytes
    public_key: bytes


_ENCODER = msgspec.msgpack.Encoder()
_ENVELOPE_DECODER = msgspec.msgpack.Decoder(Envelope)
_BODY_DECODER = msgspec.msgpack.Decoder(Body)


def encode_body(body: Body) -> bytes:
    """The canonical bytes of a body (the bytes that are signed and hashed)."""
    return _ENCODER.encode(body)


def packet_id(body_bytes: bytes) -> bytes:
    """A packet's id: SHA-256 of its body bytes."""
    return hashlib.sha256(body_bytes).digest()


def raw_public_key(key: "Ed25519PrivateKey | Ed25519PublicKey") -> bytes:
    """The 32 raw bytes of an Ed25519 public key."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    public = key.public_key() if isinstance(key, Ed25519PrivateKey) else key
    # Not public_bytes(Encoding.Raw, ...): the serialization package it needs costs every
    # command a tenth of a second to import, and the raw form is all hexpost uses.
    return public.public_bytes_raw()


def key_id(public_key: bytes) -> bytes:
    """The 8-byte key id that names a signer in an envelope."""
    return hashlib.sha256(public_key).digest()[:8]


def fingerprint(public_key: bytes) -> str:
    """A key's fingerprint for comparing out of band, e.g. ``'3f2a 9c01 ... 77de'``."""
    digest = hashlib.sha256(b"hexpost/fingerprint/1\x00" + public_key).hexdigest()[:32]
    return " ".join(digest[i : i + 4] for i in range(0, 32, 4))


def sign_body(body: Body, private_key: "Ed25519PrivateKey", *, include_key: bool = False) -> bytes:
    """Sign a body and return the packet bytes (the encoded envelope)."""
    body_bytes = encode_body(body)
    public = raw_public_key(private_key)
    envelope = Envelope(
        version=PROTOCOL_VERSION,
        key_id=key_id(public),
        signature=private_key.sign(SIGNATURE_DOMAIN + body_bytes),
        body=body_bytes,
        public_key=public if include_key else b"",
    )
    return _ENCODER.encode(envelope)


_KIND_NAME = re.compile(rb"[a-z][a-z0-9-]{0,30}")


def side_record_kind(data: bytes) -> str:
    """The kind's name leading bytes shaped as a side record (`engine.core.side_records`: a
    five-element array whose first element is a short lower-case name, where a packet's
    envelope has its version number), or "" for any other bytes. Only the first bytes are
    looked at: what a kind not known here says is for the hexpost that knows it."""
    if len(data) < 3 or data[0] != 0x95 or not 0xA1 <= data[1] <= 0xBF:
        return ""
    name = data[2 : 2 + (data[1] - 0xA0)]
    if len(name) != data[1] - 0xA0 or not _KIND_NAME.fullmatch(name):
        return ""
    return name.decode()


def read_envelope(data: bytes) -> Envelope:
    """Decode only the outer envelope; refuses other versions before looking further (P8)."""
    if len(data) > MAX_PACKET_SIZE:
        raise PacketError(f"packet of {len(data)} bytes is larger than {MAX_PACKET_SIZE}")
    try:
        envelope = _ENVELOPE_DECODER.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        kind = side_record_kind(data)
        if kind:
            raise VersionError(
                f"a {kind!r} record, a kind this hexpost does not read: a newer hexpost wrote it"
            ) from None
        raise PacketError(f"not a hexpost packet: {exc}") from None
    if envelope.version != PROTOCOL_VERSION:
        raise VersionError(
            f"packet uses protocol version {envelope.version}; "
            f"this hexpost speaks version {PROTOCOL_VERSION}"
        )
    if len(envelope.key_id) != 8 or len(envelope.signature) != 64:
        raise PacketError("malformed envelope: key id or signature has the wrong length")
    if envelope.public_key and len(envelope.public_key) != 32:
        raise PacketError("malformed envelope: public key has the wrong length")
    if envelope.public_key and key_id(envelope.public_key) != envelope.key_id:
        raise PacketError("malformed envelope: key id does not match the enclosed public key")
    return envelope


@caches.derived(maxsize=256)
def _public_key(raw: bytes) -> "Ed25519PublicKey":
    """Parsed public keys are cached: a game has only a few, and parsing costs as much as
    a tenth of a verification."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    return Ed25519PublicKey.from_public_bytes(raw)


KeyLookup = Callable[[bytes], Sequence[bytes]]
"""Maps a key id to the public keys (raw) known under it."""


def open_packet(data: bytes, lookup: KeyLookup) -> VerifiedPacket:
    """Verify a packet's signature over its exact bytes, then decode its body.

    The public key comes from ``lookup`` (keys bound by earlier Genesis and Join packets) or,
    for a Genesis or Join packet, from the envelope itself; the caller checks that binding.
    """
    envelope = read_envelope(data)
    candidates = _candidates(envelope, lookup)
    message = SIGNATURE_DOMAIN + envelope.body
    for public in candidates:
        if signed_by(public, envelope.signature, message):
            return _decode_verified(data, envelope, public)
    raise PacketError(BAD_SIGNATURE)


BAD_SIGNATURE = "bad signature: the packet was altered or not signed by its key"


def open_signed_later(data: bytes, lookup: KeyLookup) -> tuple[VerifiedPacket, bytes] | None:
    """`open_packet` but for the signature, which the caller has checked elsewhere before it
    trusts anything the packet led to (`saves.signature_helper`: a replay's verdict waits for
    it): the packet, and the bytes its signature must cover under ``packet.public_key``.

    Every other check is made, and fails, as `open_packet` makes it. None when more than one
    key is known under the packet's key id: which one signed it decides the packet, so it is
    opened by `open_packet`.
    """
    envelope = read_envelope(data)
    candidates = _candidates(envelope, lookup)
    if len(candidates) != 1:
        return None
    return _decode_verified(data, envelope, candidates[0]), SIGNATURE_DOMAIN + envelope.body


def _candidates(envelope: Envelope, lookup: KeyLookup) -> list[bytes]:
    """The keys that may have signed ``envelope``: its own (a Genesis or Join), or those known
    under its key id; refused when there are none."""
    candidates = [envelope.public_key] if envelope.public_key else list(lookup(envelope.key_id))
    if not candidates:
        raise PacketError(f"packet signed by an unknown key (id {envelope.key_id.hex()})")
    return candidates


def signed_by(public: bytes, signature: bytes, message: bytes) -> bool:
    """Whether ``signature`` over ``message`` verifies against the raw key ``public``."""
    from cryptography.exceptions import InvalidSignature

    try:
        _public_key(public).verify(signature, message)
    except (InvalidSignature, ValueError):
        return False
    return True


def _decode_verified(data: bytes, envelope: Envelope, public: bytes) -> VerifiedPacket:
    try:
        body = _BODY_DECODER.decode(envelope.body)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise PacketError(f"malformed packet body: {exc}") from None
    if encode_body(body) != envelope.body:
        raise PacketError("packet body is not canonically encoded")
    if len(body.game_id) != GAME_ID_SIZE or len(body.prev) != 32 or body.seq < 0:
        raise PacketError("malformed packet body: bad game id, sequence or previous id")
    if isinstance(body.kind, Genesis | Join) != bool(envelope.public_key):
        raise PacketError("only Genesis and Join packets may carry their public key")
    return VerifiedPacket(
        data=data,
        envelope=envelope,
        body=body,
        packet_id=packet_id(envelope.body),
        public_key=public,
    )


def kept_body(data: bytes) -> tuple[bytes, Body]:
    """The id and body of packet bytes a store kept, decoded without checking the signature
    again: it was checked (`open_packet`) before they were kept, so showing them (a game's
    log) needs only the decoding, a tenth of the cost. Nothing read this way may change a
    game; ``hexpost verify`` is the check of a store's packets. `PacketError` for bytes that
    do not decode (a store damaged since)."""
    envelope = read_envelope(data)
    try:
        body = _BODY_DECODER.decode(envelope.body)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise PacketError(f"malformed packet body: {exc}") from None
    return packet_id(envelope.body), body


def peek_body(data: bytes) -> Body | None:
    """The body of packet bytes *without* checking the signature, or None if unreadable.

    Only for hints about a packet that failed verification (which game, position and seat a
    damaged copy was for), so the player can be told what to ask for: nothing read this way
    may change a game.
    """
    try:
        return _BODY_DECODER.decode(read_envelope(data).body)
    except (PacketError, msgspec.DecodeError, msgspec.ValidationError):
        return None
