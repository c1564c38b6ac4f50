"""Chat messages: signed lines between the players that travel beside the chain, not in it.

The chain takes one seat's packet at a time, so a chat written as a packet (`packets.Chat`)
needs the move. A chat message is not a packet: either seat may sign one at any moment, it
changes no game state and no state hash, and the engine never reads it. Both homes keep and
show it (the log, ``hexpost chat GAME``, the app) as words beside the game, not part of it.

On the wire a chat message is its own envelope, a msgpack array tagged ``"chat"``::

    ["chat", version, key_id, signature, body]

where ``body`` is the canonical msgpack of `ChatBody` and the signature covers
``CHAT_DOMAIN + body``, a domain neither packets nor late claims use: a packet's signature
never verifies as a chat message's, nor the reverse. Transports carry the bytes like a
packet's; `is_chat` tells them apart before any decoding.

``seq`` counts one seat's chat messages in one game (1, 2, ...): a receiver keeps one message
per (game, seat, seq), so a copy that comes twice is kept once. ``head_seq``/``head_id`` name
the last packet of the chain the writer had (so a reader sees what the line answers), and
``written_at`` is the writer's clock: shown, never trusted, never used to decide anything.
"""

from typing import TYPE_CHECKING, Annotated

import msgspec

from engine.core.errors import PacketError
from engine.core.packets import (
    MAX_CHAT,
    Blob32,
    SeatName,
    SeqNumber,
    SmallInt,
)
from engine.core.side_records import SideRecordKind
from engine.core.text import SAFE_PATTERN

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

CHAT_VERSION = 1
CHAT_DOMAIN = b"hexpost/chat/1\x00"
MAX_CHAT_SIZE = 8192
"""A message of `MAX_CHAT` characters is at most about 4 KB of UTF-8 with its fields; anything
bigger is refused before it is decoded."""
_TAG = b"\xa4chat"
"""msgpack of the string ``"chat"``: the first element of every chat envelope."""

Stamp = Annotated[str, msgspec.Meta(max_length=64, pattern=SAFE_PATTERN)]
ChatLine = Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_CHAT, pattern=SAFE_PATTERN)]


class ChatBody(msgspec.Struct, frozen=True):
    """What the writing seat signs (see the module's notes for each field's meaning)."""

    game_id: Blob32
    seat: SeatName
    seq: Annotated[int, msgspec.Meta(ge=1, le=(1 << 31) - 1)]
    head_seq: SeqNumber
    head_id: Blob32
    written_at: Stamp
    text: ChatLine


class ChatEnvelope(msgspec.Struct, frozen=True, array_like=True, tag="chat"):
    """The signed wrapper of a chat message (see the module's notes for its wire form)."""

    version: SmallInt
    key_id: Annotated[bytes, msgspec.Meta(max_length=8)]
    signature: Annotated[bytes, msgspec.Meta(max_length=64)]
    body: Annotated[bytes, msgspec.Meta(max_length=MAX_CHAT_SIZE)]


class VerifiedChat(msgspec.Struct, frozen=True):
    """A chat message whose signature verified and whose body decoded canonically."""

    data: bytes
    body: ChatBody
    chat_id: bytes
    public_key: bytes


def _check_text(body: ChatBody) -> None:
    if not body.text.isprintable() or body.text != body.text.strip():
        raise PacketError("a chat message is one trimmed line of printable text")


KIND = SideRecordKind(
    noun="chat message",
    short="chat",
    domain=CHAT_DOMAIN,
    version=CHAT_VERSION,
    max_size=MAX_CHAT_SIZE,
    tag=_TAG,
    envelope_type=ChatEnvelope,
    body_type=ChatBody,
    check_body=_check_text,
)
"""How chat messages are signed, read and verified (`side_records`)."""


def is_chat(data: bytes) -> bool:
    """Whether bytes are (or pretend to be) a chat envelope: a cheap look at the first bytes."""
    return KIND.looks_like(data)


def chat_id(body_bytes: bytes) -> bytes:
    """A chat message's id: SHA-256 of its body bytes (as a packet's id is of its body)."""
    return KIND.record_id(body_bytes)


def encode_chat_body(body: ChatBody) -> bytes:
    """The canonical bytes of a chat body (what is signed and hashed)."""
    return KIND.encode_body(body)


def sign_chat(body: ChatBody, private_key: "Ed25519PrivateKey") -> bytes:
    """The bytes of a signed chat message."""
    return KIND.sign(body, private_key)


def read_chat(data: bytes) -> ChatEnvelope:
    """Decode a chat message's envelope only (no signature check); raises `PacketError`."""
    return KIND.read(data)


def open_chat(data: bytes, public_key: bytes) -> VerifiedChat:
    """Verify a chat message against the key bound to the seat it names, then decode it.

    ``public_key`` is the writer seat's key as the game's chain binds it (its genesis or
    join); the caller looks it up from the seat the message names (`peek`) and never takes a
    key from the message itself.
    """
    body, record_id = KIND.verify(data, public_key)
    return VerifiedChat(data=data, body=body, chat_id=record_id, public_key=public_key)


def peek(data: bytes) -> ChatBody:
    """The message's body *unverified*, to find its game and seat (and so the key to verify by)."""
    return KIND.peek(data)
