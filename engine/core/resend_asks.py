"""Resend asks: a seat's signed request that the other home send packets of the game again.

A home asks when the only copy of the packet it needs next came damaged (the packet's
author sends that packet again), or when it holds a packet beyond a gap in its chain, as a
home restored from an older backup does (the other home sends every packet from the gap on,
its own and the asker's: each is checked by its author's signature on receipt, so who
forwards it does not matter). A plain note asks the other player to run ``hexpost resend``;
a signed ask beside it lets the other home answer by itself, in bounds (`saves.resend_asks`).

An ask is not a packet: it changes no game state and no state hash, and the engine never
reads it. On the wire it is a side record (`engine.core.side_records`), a msgpack array
tagged ``"resend"``::

    ["resend", version, key_id, signature, body]

where ``body`` is the canonical msgpack of `AskBody` and the signature covers
``ASK_DOMAIN + body``, a domain neither packets, chats nor claims use. ``head_seq`` and
``head_id`` name the last packet of the chain the asker holds, ``seq`` the first packet it
asks for (its head + 1 for a damaged copy; for a home behind, the first of the gap), and
``every_seat`` whether it asks for every seat's packets from there (behind) or for the other
seat's own (damaged). ``upto``, when set, is the last packet it asks for: a home that lost
packets 12 to 14 of a chain of 900 asks for those three, not for 889 it holds. An ask without
one (every ask before it existed) asks for everything from ``seq`` on; the field is left out of
such an ask's bytes, so they are what they were. ``written_at`` is the asker's clock: shown,
never trusted.
"""

from typing import TYPE_CHECKING, Annotated

import msgspec

from engine.core.errors import PacketError
from engine.core.packets import Blob32, SeatName, SeqNumber, SmallInt
from engine.core.side_records import SideRecordKind
from engine.core.text import SAFE_PATTERN

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

ASK_VERSION = 1
ASK_DOMAIN = b"hexpost/resend/1\x00"
MAX_ASK_SIZE = 1024
"""An ask's fields come to about 250 bytes; anything bigger is refused before decoding."""
_TAG = b"\xa6resend"
"""msgpack of the string ``"resend"``: the first element of every ask's envelope."""

Stamp = Annotated[str, msgspec.Meta(max_length=64, pattern=SAFE_PATTERN)]


class AskBody(msgspec.Struct, frozen=True, omit_defaults=True):
    """What the asking seat signs (see the module's notes for each field's meaning)."""

    game_id: Blob32
    seat: SeatName
    head_seq: SeqNumber
    head_id: Blob32
    seq: SeqNumber
    every_seat: bool
    written_at: Stamp
    upto: SeqNumber | None = None


class AskEnvelope(msgspec.Struct, frozen=True, array_like=True, tag="resend"):
    """The signed wrapper of an ask (see the module's notes for its wire form)."""

    version: SmallInt
    key_id: Annotated[bytes, msgspec.Meta(max_length=8)]
    signature: Annotated[bytes, msgspec.Meta(max_length=64)]
    body: Annotated[bytes, msgspec.Meta(max_length=MAX_ASK_SIZE)]


class VerifiedAsk(msgspec.Struct, frozen=True):
    """An ask whose signature verified and whose body decoded canonically."""

    data: bytes
    body: AskBody
    ask_id: bytes


def _check_positions(body: AskBody) -> None:
    # (From 0, every seat's: the whole chain, for a home that lost its stored genesis.)
    if not body.every_seat and body.seq != body.head_seq + 1:
        raise PacketError(
            f"a resend ask for a damaged copy asks for the packet after its head "
            f"({body.head_seq + 1}), not {body.seq}"
        )
    if body.every_seat and body.seq > body.head_seq + 1:
        raise PacketError(
            f"a resend ask from a home behind asks from its gap, at most packet "
            f"{body.head_seq + 1}, not {body.seq}"
        )
    if body.upto is not None and body.upto < body.seq:
        raise PacketError(
            f"a resend ask up to packet {body.upto} ends before it begins (packet {body.seq})"
        )


KIND = SideRecordKind(
    noun="resend ask",
    short="resend ask",
    domain=ASK_DOMAIN,
    version=ASK_VERSION,
    max_size=MAX_ASK_SIZE,
    tag=_TAG,
    envelope_type=AskEnvelope,
    body_type=AskBody,
    check_body=_check_positions,
)
"""How resend asks are signed, read and verified (`side_records`)."""


def is_ask(data: bytes) -> bool:
    """Whether bytes are (or pretend to be) an ask's envelope: a cheap look at the first bytes."""
    return KIND.looks_like(data)


def ask_id(body_bytes: bytes) -> bytes:
    """An ask's id: SHA-256 of its body bytes."""
    return KIND.record_id(body_bytes)


def sign_ask(body: AskBody, private_key: "Ed25519PrivateKey") -> bytes:
    """The bytes of a signed ask."""
    return KIND.sign(body, private_key)


def read_ask(data: bytes) -> AskEnvelope:
    """Decode an ask's envelope only (no signature check); raises `PacketError`."""
    return KIND.read(data)


def open_ask(data: bytes, public_key: bytes) -> VerifiedAsk:
    """Verify an ask against the key the game binds to the seat it names (the caller looks
    it up from `peek`; never from the ask itself), then decode it."""
    body, record_id = KIND.verify(data, public_key)
    return VerifiedAsk(data=data, body=body, ask_id=record_id)


def peek(data: bytes) -> AskBody:
    """The ask's body *unverified*, to find its game and seat (and so the key to verify by)."""
    return KIND.peek(data)
