"""Checking a received copy once: its verdict, and the verified packet or claim it yields.

An email may hold several copies of one packet (an attachment and an armoured block; one of
them damaged in transit), and the same packet may arrive again (a resend, a second email, a
folder read twice). An Ed25519 check is the expensive part of taking a packet in, so each copy
is checked at most once, and the verified result travels on with it (`Checked`) instead of
being thrown away and checked again by whoever takes it in.

A copy whose exact bytes this home verified before is not checked again at all: a packet of
the chain (its key is the one the chain binds to its seat, or the one it carries itself) or
one held in the buffer (stored with the key it verified under). Byte-for-byte equality is what
makes that safe: different bytes, even with the same body, are checked like any other copy.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from engine.core.chats import VerifiedChat
from engine.core.claims import VerifiedClaim
from engine.core.errors import PacketError, VersionError
from engine.core.packets import (
    Envelope,
    VerifiedPacket,
    open_packet,
    packet_id,
    read_envelope,
)
from engine.core.resend_asks import VerifiedAsk
from saves import (
    chat_messages,
    claims,
    ledger,
    resend_asks,
    store_games,
    store_inbox,
    store_keys,
)
from saves.reading import rebuild
from saves.store import Store

VERIFIED = "verified"
UNKNOWN_KEY = "unknown key"
BAD = "bad"


class Checked(msgspec.Struct, frozen=True):
    """One copy after its check: ``verdict`` is `VERIFIED` (then ``packet`` or ``claim`` is
    set), `UNKNOWN_KEY` (signed by a key this home does not know yet: ``key_id`` names it) or
    `BAD` (unreadable, or the signature fails: ``problem`` says how)."""

    data: bytes
    verdict: str
    packet: VerifiedPacket | None = None
    claim: VerifiedClaim | None = None
    key_id: bytes = b""
    problem: str = ""
    chat: VerifiedChat | None = None
    """Set for a verified chat message (`saves.chat_messages`)."""
    ask: VerifiedAsk | None = None
    """Set for a verified resend ask (`saves.resend_asks`)."""
    newer: bool = False
    """`BAD` only because a newer hexpost wrote it (`VersionError`): not damage, and no
    resend brings other bytes."""


def check(store: Store, data: bytes) -> Checked:
    """Check one copy (a packet or a late claim), once."""
    if claims.is_claim(data):
        found, claim = claims.opened(store, data)
        return Checked(data, found, claim=claim)
    if chat_messages.is_chat(data):
        found, chat = chat_messages.opened(store, data)
        return Checked(data, found, chat=chat)
    if resend_asks.is_ask(data):
        found, ask = resend_asks.opened(store, data)
        return Checked(data, found, ask=ask)
    return check_packet(store, data)


def check_packet(store: Store, data: bytes) -> Checked:
    """`check` of a copy already known to be no claim, chat message or resend ask."""
    try:
        envelope = read_envelope(data)
    except PacketError as exc:
        return Checked(data, BAD, problem=str(exc), newer=isinstance(exc, VersionError))
    packet = verified_before(store, data, envelope)
    if packet is not None:
        return Checked(data, VERIFIED, packet)
    known = [] if envelope.public_key else ledger.keys_with_id(store, envelope.key_id)
    if not envelope.public_key and not known:
        return Checked(data, UNKNOWN_KEY, key_id=envelope.key_id)
    try:
        packet = open_packet(
            data, lambda kid: known if kid == envelope.key_id else ledger.keys_with_id(store, kid)
        )
    except PacketError as exc:
        return Checked(data, BAD, problem=str(exc), newer=isinstance(exc, VersionError))
    return Checked(data, VERIFIED, packet)


def pick(store: Store, data: bytes, alternatives: Sequence[bytes]) -> Checked:
    """The copy of one received item to take in: the first (``data``, then each of
    ``alternatives``) that verifies; else the first signed by a key not known yet (it is parked
    until that key arrives); else ``data`` (refused and logged as usual). Equal copies are
    checked once, and none after the first that verifies."""
    first: Checked | None = None
    unknown: Checked | None = None
    looked: set[bytes] = set()
    for copy in (data, *alternatives):
        if copy in looked:
            continue
        looked.add(copy)
        checked = check(store, copy)
        if checked.verdict == VERIFIED:
            return checked
        first = first or checked
        if checked.verdict == UNKNOWN_KEY and unknown is None:
            unknown = checked
    assert first is not None
    return unknown or first


def verified_before(store: Store, data: bytes, envelope: Envelope) -> VerifiedPacket | None:
    """``data`` as a verified packet, without a signature check, when these exact bytes are a
    packet of a chain or of the buffer here (both were verified when they came in).

    The chain is searched only for a body placed at or before its game's head: a packet's id
    is the hash of its body, which names its game and position, and a chain holds packets up
    to its head only; so the usual new packet, past the head, costs no look-up."""
    pid = packet_id(envelope.body)
    public: bytes | None = None
    stored = None if _past_head(store, envelope.body) else store_games.packet_by_id(store, pid)
    if stored is not None and stored[3] == data:
        game_id, _, seat, _ = stored
        public = envelope.public_key or store_keys.seat_key(store, game_id, seat)
    else:
        held = store_inbox.buffered_copy(store, pid)
        if held is not None and held[0] == data:
            public = held[1]
    return None if public is None else rebuild(data, envelope, public)


def named_game(store: Store, data: bytes) -> bytes | None:
    """The game a packet (unverified) names, if this home holds it; None for bytes that are
    no packet envelope or name another game."""
    try:
        where = _POSITION.decode(read_envelope(data).body)
    except (PacketError, msgspec.DecodeError, msgspec.ValidationError):
        return None
    return where.game_id if store_games.head(store, where.game_id) is not None else None


class _Position(msgspec.Struct):
    """The game and position a packet body names (its other fields skipped unread)."""

    game_id: bytes
    seq: int


_POSITION = msgspec.msgpack.Decoder(_Position)


def _past_head(store: Store, body: bytes) -> bool:
    """Whether a body (unverified) names a position past its game's head, or a game this home
    does not hold: then no stored packet has this body (the only writer of packets,
    `saves.ledger.store_applied`, moves the head to each one it stores). False when the body
    does not even decode: the caller then looks, as for any other."""
    try:
        where = _POSITION.decode(body)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return False
    head = store_games.head(store, where.game_id)
    return head is None or where.seq > head.seq
