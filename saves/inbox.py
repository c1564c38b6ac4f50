"""Taking in one received packet: verify, place in the chain, apply, store, in one transaction.

The order of checks follows the protocol: the signature is verified over the exact bytes
before anything is decoded (P1); then the packet is placed in its game's chain (P2): applied
when it is next, buffered when it is early, ignored when it is a duplicate, kept as evidence
that freezes the game when its seat signed a different packet for the same position (P3).
A packet whose author's state hash differs from ours freezes the game as a desync (P5).

A packet signed by a key this home does not know yet (for example a packet that overtook
the genesis that introduces its author) is *parked* and tried again whenever a new key
becomes known, so reordering by a transport never loses a packet.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import msgspec

from engine.core.chain import Placement, place
from engine.core.errors import DesyncError, HexpostError, PacketError
from engine.core.game import AnyRuleset, AnyState, apply_packet
from engine.core.packets import (
    Genesis,
    Join,
    VerifiedPacket,
    fingerprint,
    open_packet,
    read_envelope,
)
from engine.rulesets import ruleset_for
from saves import ledger

if TYPE_CHECKING:
    from saves.replica import Replica
    from saves.store import Store


class Outcome(msgspec.Struct, frozen=True):
    """What receiving one packet did.

    ``status`` is one of: applied, buffered, duplicate, invitation, ignored, parked,
    rejected, equivocation, desync. ``retry`` is true when the bytes may be a file still
    being written (unreadable now), so the transport should offer them again later.
    """

    status: str
    detail: str = ""
    game_id: bytes | None = None
    seq: int | None = None
    applied: list[int] = []
    retry: bool = False


def verdict(store: Store, data: bytes) -> str:
    """Check a packet's signature without applying it: ``"verified"`` (by a key a game of this
    home binds, or by the key an invitation or join carries), ``"unknown key"`` (signed by a
    key this home does not know yet) or ``"bad"`` (unreadable, or the signature fails)."""
    from saves import claims  # a late claim verifies by its seat's key (`claims.verdict`)

    if claims.is_claim(data):
        return claims.verdict(store, data)
    try:
        envelope = read_envelope(data)
    except PacketError:
        return "bad"
    if not envelope.public_key and not ledger.keys_with_id(store, envelope.key_id):
        return "unknown key"
    try:
        open_packet(data, lambda kid: ledger.keys_with_id(store, kid))
    except PacketError:
        return "bad"
    return "verified"


def pick_copy(store: Store, data: bytes, alternatives: Sequence[bytes]) -> bytes:
    """Which copy of one received item to take in (an email holds an attachment and an armoured
    block): the first (``data``, then each of ``alternatives``) whose signature `verdict`
    verifies; else the first signed by a key not known yet (it is parked until that key
    arrives); else ``data`` (refused and logged as usual)."""
    copies = [data, *alternatives]
    verdicts = [verdict(store, copy) for copy in copies]
    for wanted in ("verified", "unknown key"):
        for copy, found in zip(copies, verdicts, strict=True):
            if found == wanted:
                return copy
    return data


def receive(replica: Replica, data: bytes, source: str, now: str) -> Outcome:
    """Take in one packet; the caller holds the store transaction."""
    from saves import claims  # a late claim is no packet: its module takes it in

    if claims.is_claim(data):
        return claims.receive(replica, data, source, now)
    store = replica.store
    try:
        envelope = read_envelope(data)
    except PacketError as exc:
        return Outcome("rejected", str(exc), retry=True)
    if not envelope.public_key and not ledger.keys_with_id(store, envelope.key_id):
        _park(replica, envelope.key_id, data, now)
        return Outcome("parked", f"signed by a key not known yet (id {envelope.key_id.hex()})")
    try:
        packet = open_packet(data, lambda kid: ledger.keys_with_id(store, kid))
    except PacketError as exc:
        ledger.record_rejected(store, None, source, str(exc), data, now)
        return Outcome("rejected", str(exc))
    body = packet.body
    row = store.one(
        "SELECT head_seq, head_id, frozen, ruleset FROM games WHERE game_id = ?", (body.game_id,)
    )
    if row is None:
        return _new_game(replica, packet, source, now)
    head_seq, head_id = int(row[0]), bytes(row[1])
    frozen, ruleset = row[2], ruleset_for(str(row[3]))
    placement = place(
        head_seq, head_id, packet, lambda seq: ledger.stored_at(store, body.game_id, seq)
    )
    if placement == Placement.DUPLICATE:
        return Outcome(
            "duplicate", f"packet {body.seq} is already in the chain", body.game_id, body.seq
        )
    signed_by_seat = _signed_by_seat(replica, packet)
    if placement in (Placement.EQUIVOCATION, Placement.FUTURE) and signed_by_seat is False:
        reason = f"packet {body.seq} claims seat {body.seat} but is not signed by its key"
        ledger.record_rejected(store, body.game_id, source, reason, data, now)
        return Outcome("rejected", reason, body.game_id, body.seq)
    if placement == Placement.EQUIVOCATION:
        stored = store.one(
            "SELECT data FROM packets WHERE game_id = ? AND seq = ?", (body.game_id, body.seq)
        )
        assert stored is not None
        return _equivocation(replica, packet, bytes(stored[0]), now)
    if placement == Placement.CONFLICT:
        reason = f"packet {body.seq} from {body.seat} does not fit this game's chain"
        ledger.record_rejected(store, body.game_id, source, reason, data, now)
        return Outcome("rejected", reason, body.game_id, body.seq)
    if placement == Placement.FUTURE or frozen:
        return _buffer(replica, packet, now, held=bool(frozen), judge=signed_by_seat is True)
    return _apply_chain(replica, ruleset, packet, source, now)


def _apply_chain(
    replica: Replica, ruleset: AnyRuleset, packet: VerifiedPacket, source: str, now: str
) -> Outcome:
    """Apply ``packet``, then every buffered packet that now follows it."""
    store = replica.store
    game_id = packet.body.game_id
    applied: list[int] = []
    warnings: list[str] = []
    mine = replica.game(game_id).my_seat
    current: VerifiedPacket | None = packet
    while current is not None:
        state = replica.state(game_id)
        seq = current.body.seq
        store.db.execute(
            "DELETE FROM buffered WHERE game_id = ? AND packet_id = ?", (game_id, current.packet_id)
        )
        try:
            result = apply_packet(ruleset, state, current)
        except DesyncError as exc:
            ledger.freeze(store, game_id, seq, "desync", str(exc), current.data, None, now)
            return Outcome("desync", str(exc), game_id, seq, applied)
        except HexpostError as exc:
            reason = f"packet {seq}: {exc}"
            ledger.record_rejected(store, game_id, source, reason, current.data, now)
            return Outcome("rejected", reason, game_id, seq, applied)
        join = current.body.kind
        if isinstance(join, Join):
            seen = ledger.other_keys_of(store, join.address, current.public_key)
            if seen:
                warnings.append(
                    f"WARNING: {join.address} joined with a key this home has not seen for them "
                    f"before (it saw {seen[-1]}); compare fingerprints with them"
                )
        ledger.store_applied(store, current, result, now, mine=current.body.seat == mine)
        replica.remember_head(game_id, current.packet_id, result.state)
        applied.append(seq)
        current = _next_buffered(replica, game_id, result.state)
    listed = ", ".join(str(seq) for seq in applied)
    detail = "; ".join([f"applied packet(s) {listed}", *warnings])
    return Outcome("applied", detail, game_id, packet.body.seq, applied)


def _next_buffered(replica: Replica, game_id: bytes, state: AnyState) -> VerifiedPacket | None:
    rows = replica.store.all(
        "SELECT data FROM buffered WHERE game_id = ? AND seq = ? ORDER BY packet_id",
        (game_id, state.core.seq + 1),
    )
    for (data,) in rows:
        packet = open_packet(bytes(data), lambda kid: ledger.keys_with_id(replica.store, kid))
        if packet.body.prev == state.head:
            return packet
    return None


def _signed_by_seat(replica: Replica, packet: VerifiedPacket) -> bool | None:
    """Whether the packet is signed by the key bound to the seat it claims (None: not bound yet).

    Only then can two packets for one position be evidence against that seat; anyone else's
    packet is a forgery, to be refused, not a reason to freeze the game. A seat whose Join has
    not arrived yet cannot be checked here; applying the packet will check it.
    """
    body = packet.body
    row = replica.store.one(
        "SELECT public_key FROM game_keys WHERE game_id = ? AND seat = ?", (body.game_id, body.seat)
    )
    if row is None:
        return None
    return bytes(row[0]) == packet.public_key


def _buffer(
    replica: Replica, packet: VerifiedPacket, now: str, *, held: bool, judge: bool
) -> Outcome:
    """Hold an early packet; a rival from the same seat's key for its position is evidence."""
    body = packet.body
    store = replica.store
    rival = store.one(
        "SELECT data FROM buffered WHERE game_id = ? AND seq = ? AND seat = ? AND packet_id != ?",
        (body.game_id, body.seq, body.seat, packet.packet_id),
    )
    if rival is not None and judge and _same_signer(bytes(rival[0]), packet):
        return _equivocation(replica, packet, bytes(rival[0]), now)
    store.db.execute(
        "INSERT OR IGNORE INTO buffered (game_id, seq, packet_id, seat, data, received_at) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (body.game_id, body.seq, packet.packet_id, body.seat, packet.data, now),
    )
    why = "the game is frozen" if held else "waiting for the packets before it"
    return Outcome("buffered", f"packet {body.seq} held: {why}", body.game_id, body.seq)


def _same_signer(data: bytes, packet: VerifiedPacket) -> bool:
    return read_envelope(data).key_id == packet.envelope.key_id


def _equivocation(replica: Replica, packet: VerifiedPacket, other: bytes, now: str) -> Outcome:
    body = packet.body
    detail = f"{body.seat} signed two different packets for position {body.seq}"
    ledger.freeze(
        replica.store, body.game_id, body.seq, "equivocation", detail, other, packet.data, now
    )
    return Outcome("equivocation", detail, body.game_id, body.seq)


def _new_game(replica: Replica, packet: VerifiedPacket, source: str, now: str) -> Outcome:
    """A packet of a game this home lacks: an invitation to us, or someone else's business."""
    body = packet.body
    genesis = body.kind
    if not isinstance(genesis, Genesis):
        _park(replica, packet.envelope.key_id, packet.data, now)
        detail = (
            f"packet {body.seq} of a game this home does not hold: kept aside in case its "
            "invitation arrives later"
        )
        return Outcome("parked", detail, body.game_id, body.seq)
    me = replica.identity
    seats = [
        binding.seat
        for binding in genesis.seats
        if me is not None and binding.seat != genesis.creator and binding.address == me.address
    ]
    if not seats:
        return Outcome("ignored", "an invitation addressed to someone else", body.game_id)
    try:
        result = apply_packet(ruleset_for(genesis.ruleset_id), None, packet)
    except HexpostError as exc:
        reason = f"invitation refused: {exc}"
        ledger.record_rejected(replica.store, body.game_id, source, reason, packet.data, now)
        return Outcome("rejected", reason, body.game_id)
    ledger.insert_game(
        replica.store,
        body.game_id,
        name=genesis.name,
        ruleset=genesis.ruleset_id,
        scenario=genesis.scenario_id,
        my_seat=seats[0],
        status="invited",
        now=now,
    )
    ledger.store_applied(replica.store, packet, result, now, mine=False)
    replica.remember_head(body.game_id, packet.packet_id, result.state)
    creator = next(b for b in genesis.seats if b.seat == genesis.creator)
    before = ledger.other_keys_of(replica.store, creator.address, packet.public_key)
    detail = (
        f"{creator.name or genesis.creator} <{creator.address}> invites you to play "
        f"{genesis.scenario_id} as {seats[0]} (game {body.game_id.hex()[:8]}); "
        f"their key's fingerprint is {fingerprint(packet.public_key)}: compare it with them"
    )
    if before:
        detail += (
            f". WARNING: {creator.address} used another key before ({before[-1]}): make sure "
            "this invitation really comes from them"
        )
    return Outcome("invitation", detail, body.game_id, 0, [0])


MAX_PARKED = 10_000
"""Packets kept aside at most; the oldest go first (a shared folder may hold other games)."""


def _park(replica: Replica, kid: bytes, data: bytes, now: str) -> None:
    """Keep a packet that cannot be placed yet (unknown signer, or a game not held yet)."""
    db = replica.store.db
    db.execute(
        "INSERT OR IGNORE INTO parked (key_id, packet_hash, data, received_at) VALUES (?, ?, ?, ?)",
        (kid, ledger.digest(data), data, now),
    )
    db.execute(
        "DELETE FROM parked WHERE packet_hash IN (SELECT packet_hash FROM parked "
        "ORDER BY received_at DESC, packet_hash LIMIT -1 OFFSET ?)",
        (MAX_PARKED,),
    )


def retry_parked(replica: Replica, now: str) -> list[Outcome]:
    """Offer every parked packet again (after a new game or a new key became known).

    Those that still cannot be placed are parked again; the others take their usual course.
    """
    outcomes = []
    rows = replica.store.all("SELECT packet_hash, data FROM parked ORDER BY received_at, rowid")
    for packet_hash, data in rows:
        replica.store.db.execute("DELETE FROM parked WHERE packet_hash = ?", (packet_hash,))
        outcomes.append(receive(replica, bytes(data), "parked", now))
    return outcomes
