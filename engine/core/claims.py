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

from typing import TYPE_CHECKING, Annotated

import msgspec

from engine.core.errors import PacketError
from engine.core.packets import (
    MAX_REPLY_WINDOW_HOURS,
    Blob32,
    DecisionKey,
    SeatName,
    SeqNumber,
    SmallInt,
)
from engine.core.side_records import SideRecordKind
from engine.core.text import SAFE_PATTERN

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

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


def _check_seats(body: ClaimBody) -> None:
    if body.seat == body.late:
        raise PacketError("a seat cannot claim that it is late itself")


KIND = SideRecordKind(
    noun="claim",
    short="claim",
    domain=CLAIM_DOMAIN,
    version=CLAIM_VERSION,
    max_size=MAX_CLAIM_SIZE,
    tag=_TAG,
    envelope_type=ClaimEnvelope,
    body_type=ClaimBody,
    check_body=_check_seats,
)
"""How claims are signed, read and verified (`side_records`)."""


def is_claim(data: bytes) -> bool:
    """Whether bytes are (or pretend to be) a claim envelope: a cheap look at the first bytes."""
    return KIND.looks_like(data)


def claim_id(body_bytes: bytes) -> bytes:
    """A claim's id: SHA-256 of its body bytes (as a packet's id is of its body)."""
    return KIND.record_id(body_bytes)


def sign_claim(body: ClaimBody, private_key: "Ed25519PrivateKey") -> bytes:
    """The bytes of a signed claim."""
    return KIND.sign(body, private_key)


def read_claim(data: bytes) -> ClaimEnvelope:
    """Decode a claim's envelope only (no signature check); raises `PacketError`."""
    return KIND.read(data)


def open_claim(data: bytes, public_key: bytes) -> VerifiedClaim:
    """Verify a claim against the key bound to the seat it names, then decode it.

    ``public_key`` is the claimant seat's key as the game binds it; the caller looks it up
    from the seat the claim names (`peek_seat`) and must not take a key from the claim.
    """
    body, record_id = KIND.verify(data, public_key)
    return VerifiedClaim(data=data, body=body, claim_id=record_id, public_key=public_key)


def peek(data: bytes) -> ClaimBody:
    """The claim's body *unverified*, to find its game and seat (and so the key to verify by)."""
    return KIND.peek(data)
