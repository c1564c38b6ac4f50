"""Signed records that travel beside the chain: how they are signed, read and verified.

Chat messages (`engine.core.chats`) and late claims (`engine.core.claims`) are both one seat's
signed statement about a game that is not a link of its chain. They differ in what they say,
but not in how they are carried: a five-element msgpack array tagged with the record's kind
(tag, version, key id, signature, body), a signature over a domain of the kind's own (so a
packet's signature never verifies as a chat message's, nor a chat's as a claim's), a bound on
the bytes read before anything is decoded, and a body that must decode canonically and name
a game and a chain head. `SideRecordKind` holds that shared part once; each kind's module
keeps its own wire types, its own checks of what the body says, and its public functions.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

import msgspec

from engine.core.errors import PacketError, VersionError, newer_version
from engine.core.packets import GAME_ID_SIZE, key_id, raw_public_key

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey


class SideEnvelope(Protocol):
    """The fields every side record's envelope has (each kind's own tagged struct)."""

    @property
    def version(self) -> int: ...
    @property
    def key_id(self) -> bytes: ...
    @property
    def signature(self) -> bytes: ...
    @property
    def body(self) -> bytes: ...


class SideBody(Protocol):
    """The fields every side record's body has: the game it is about and the chain head the
    writer had when it signed."""

    @property
    def game_id(self) -> bytes: ...
    @property
    def head_id(self) -> bytes: ...


E = TypeVar("E", bound=SideEnvelope)
B = TypeVar("B", bound=SideBody)

_ENCODER = msgspec.msgpack.Encoder()


class SideRecordKind(Generic[E, B]):
    """One kind of side record: its name in messages, signature domain, version, size bound
    and wire types, and the check of what its body says (``check_body`` raises `PacketError`
    for a body that decodes but says something impossible).

    A plain class set once per kind at import, not a dataclass: a frozen dataclass compiles
    its generated methods when its module is imported, about 3 million instructions before
    the game screen's first paint, for two module constants nothing compares (issue 16)."""

    __slots__ = (
        "_bodies",
        "_envelopes",
        "body_type",
        "check_body",
        "domain",
        "envelope_type",
        "max_size",
        "noun",
        "short",
        "tag",
        "version",
    )

    def __init__(
        self,
        *,
        noun: str,
        short: str,
        domain: bytes,
        version: int,
        max_size: int,
        tag: bytes,
        envelope_type: Callable[..., E],
        body_type: type[B],
        check_body: Callable[[B], None],
    ) -> None:
        self.noun = noun
        """How refusals name a record of this kind ("chat message", "claim")."""
        self.short = short
        """How refusals name its signature and body ("chat": "bad chat signature")."""
        self.domain = domain
        self.version = version
        self.max_size = max_size
        self.tag = tag
        """msgpack of the kind's tag string: the array's first element."""
        self.envelope_type = envelope_type
        self.body_type = body_type
        self.check_body = check_body
        self._envelopes: msgspec.msgpack.Decoder[E] = msgspec.msgpack.Decoder(envelope_type)
        self._bodies: msgspec.msgpack.Decoder[B] = msgspec.msgpack.Decoder(body_type)

    def looks_like(self, data: bytes) -> bool:
        """Whether bytes are (or pretend to be) this kind's envelope: a look at the first
        bytes (a five-element array whose first element is the tag), nothing decoded."""
        tag = self.tag
        return len(data) > len(tag) and data[0] == 0x95 and data[1 : 1 + len(tag)] == tag

    @staticmethod
    def record_id(body_bytes: bytes) -> bytes:
        """A record's id: SHA-256 of its body bytes (as a packet's id is of its body)."""
        return hashlib.sha256(body_bytes).digest()

    @staticmethod
    def encode_body(body: B) -> bytes:
        """The canonical bytes of a body (what is signed and hashed)."""
        return _ENCODER.encode(body)

    def sign(self, body: B, private_key: Ed25519PrivateKey) -> bytes:
        """The bytes of a signed record."""
        body_bytes = self.encode_body(body)
        envelope = self.envelope_type(
            version=self.version,
            key_id=key_id(raw_public_key(private_key)),
            signature=private_key.sign(self.domain + body_bytes),
            body=body_bytes,
        )
        return _ENCODER.encode(envelope)

    def read(self, data: bytes) -> E:
        """Decode the envelope only (no signature check), within the size bound; raises
        `PacketError` (or `VersionError` for a version this hexpost does not read)."""
        noun = self.noun
        if len(data) > self.max_size:
            raise PacketError(f"{noun} of {len(data)} bytes is larger than {self.max_size}")
        if not self.looks_like(data):
            raise PacketError(f"not a hexpost {noun}")
        try:
            envelope = self._envelopes.decode(data)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise PacketError(f"malformed {noun}: {exc}") from None
        if envelope.version != self.version:
            raise VersionError(
                f"{noun} uses version {envelope.version}; this hexpost reads version "
                f"{self.version}{newer_version(envelope.version, self.version)}"
            )
        if len(envelope.key_id) != 8 or len(envelope.signature) != 64:
            raise PacketError(f"malformed {noun}: key id or signature has the wrong length")
        return envelope

    def verify(self, data: bytes, public_key: bytes) -> tuple[B, bytes]:
        """The body and id of a record whose signature verifies against ``public_key``.

        ``public_key`` is the writer seat's key as the game's chain binds it; callers look it
        up from the seat the (unverified) body names and never take a key from the record.
        """
        # Imported here: reading a game verifies no record (the app's first paint, issue 16).
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

        envelope = self.read(data)
        if key_id(public_key) != envelope.key_id:
            raise PacketError(f"the {self.noun} is not signed by the key bound to its seat")
        try:
            Ed25519PublicKey.from_public_bytes(public_key).verify(
                envelope.signature, self.domain + envelope.body
            )
        except (InvalidSignature, ValueError):
            raise PacketError(
                f"bad {self.short} signature: altered, or not signed by its seat"
            ) from None
        return self.decode_body(envelope.body), self.record_id(envelope.body)

    def peek(self, data: bytes) -> B:
        """The body *unverified*, to find its game and seat (and so the key to verify by)."""
        return self.decode_body(self.read(data).body)

    def decode_body(self, body_bytes: bytes) -> B:
        """A body from its bytes: it must decode, be canonically encoded, name a game and a
        chain head of the right sizes, and pass the kind's own check."""
        noun = self.short
        try:
            body = self._bodies.decode(body_bytes)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise PacketError(f"malformed {noun} body: {exc}") from None
        if self.encode_body(body) != body_bytes:
            raise PacketError(f"{noun} body is not canonically encoded")
        if len(body.game_id) != GAME_ID_SIZE or len(body.head_id) != 32:
            raise PacketError(f"malformed {noun} body: bad game id or head id")
        self.check_body(body)
        return body
