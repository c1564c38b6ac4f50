"""Packets held until the ones before them come, within bounds a flood cannot pass.

Mail overtakes mail, so a packet for a position past a game's head is kept (``buffered`` in
the store) and applied when the gap fills (`saves.inbox` asks `next_held` after each packet
it applies). What a modified client can sign is bounded here: how many packets and bytes one
game holds, how far past the head they may be, and how many a game this home lost may hold.
A held packet that rivals another of the same seat's key for one position is evidence of
equivocation, judged here as it is when a packet is applied.
"""

from __future__ import annotations

import msgspec

from engine.core.errors import PacketError
from engine.core.packets import VerifiedPacket, open_packet, read_envelope
from engine.core.state import AnyState
from saves import ledger, mending, refusals, store_games, store_inbox
from saves.outcome import Outcome
from saves.reading import Reader, rebuild

HELD_PER_GAME = 4096
"""At most this many packets are held for one game, waiting for the ones before them: more
than a game's mail brings out of order, so what comes past it is a modified client's flood
(every position up to 2^31 can be signed once), refused rather than stored."""
HELD_AHEAD = 4096
"""Only packets at most this many positions past a game's head are held: a flood cannot take
positions the chain will never reach (a home further behind gets the rest by a later resend)."""
HELD_BYTES_PER_GAME = 32 << 20
"""At most this many bytes of packets held for one game (a packet may be up to 1 MiB)."""

HELD_FOR_A_LOST_GAME = 32
"""At most this many packets are held for lost positions of a game that nothing here names
(`of_lost_game`): the copies a resend brings for the lost positions at the chain's start,
and no more, whoever sends them."""


def of_lost_game(replica: Reader, packet: VerifiedPacket, source: str, now: str) -> Outcome | None:
    """A packet for a lost position of a game whose later packets this home holds, but
    neither its row nor its genesis nor a kept state to rebuild the row from
    (`Reader.mend_lost_games` said so): kept where the packet stored after it names it
    (`mending.fill`, with the held copies below that it names in turn), and the row rebuilt
    once the genesis is back; held while the packet after it is lost too (a genesis waits
    for packet 1, which alone can name it). A packet the chain does not name is not this
    game's, whoever signed it, and must not start another game under its id: refused, as
    is one past `HELD_FOR_A_LOST_GAME` (no seat's key can be read to judge who sent what).
    None: its position is stored (the caller goes on as before)."""
    body = packet.body
    store = replica.store
    if store_games.packet_at(store, body.game_id, body.seq) is not None:
        return None
    filled = mending.fill(replica, packet, source, now)
    if filled is not None:
        store_inbox.drop_held_of_stored(store, body.game_id)
        replica.mend_lost_games()
        return filled
    if store_games.packet_at(store, body.game_id, body.seq + 1) is None and (
        store_inbox.held_count(store, body.game_id) < HELD_FOR_A_LOST_GAME
    ):
        held = hold(replica, packet, source, now, held=False, judge=False)
        if held.status != "buffered":
            return held
        detail = f"packet {body.seq} held: the packet after it was lost here too"
        return msgspec.structs.replace(held, detail=detail)
    what = "a genesis" if body.seq == 0 else f"packet {body.seq}"
    reason = f"{what} for a game whose later packets this home holds, which they do not name"
    return refusals.refused(replica, packet, source, now, reason)


def next_held(
    replica: Reader, game_id: bytes, state: AnyState, dropped: list[str]
) -> VerifiedPacket | None:
    """The held packet that follows ``state``, if any. It was verified when it was held, under
    the key kept with it, so it is not checked again (one an older version held is). A held
    copy whose kept bytes no longer open (a store damaged since) is dropped, and said in
    ``dropped``: it must not undo the packet before it, and the packet can come again."""
    store = replica.store
    seq = state.core.seq + 1
    for held_id, data, public in store_inbox.buffered_at(store, game_id, seq):
        try:
            envelope = read_envelope(data)
            packet = None if public is None else rebuild(data, envelope, public)
            if packet is None:
                packet = open_packet(data, lambda kid: ledger.keys_with_id(store, kid))
        except PacketError as exc:
            store_inbox.unbuffer(store, game_id, held_id)
            dropped.append(f"the held packet {seq} was damaged in this home ({exc}): dropped")
            continue
        if packet.body.prev == state.head:
            return packet
    return None


def hold(
    replica: Reader, packet: VerifiedPacket, source: str, now: str, *, held: bool, judge: bool
) -> Outcome:
    """Hold an early packet; a rival from the same seat's key for its position is evidence.
    Past `HELD_PER_GAME` packets or `HELD_BYTES_PER_GAME` bytes held for the game, refused."""
    body = packet.body
    store = replica.store
    rival = store_inbox.buffered_rival(store, body.game_id, body.seq, body.seat, packet.packet_id)
    if rival is not None and judge and same_signer(rival, packet):
        return equivocation(replica, packet, rival, now)
    count, size = store_inbox.held_size(store, body.game_id)
    full = count >= HELD_PER_GAME or size + len(packet.data) > HELD_BYTES_PER_GAME
    if full:  # (an older version let held packets of filled positions stay: room first)
        store_inbox.drop_held_of_stored(store, body.game_id)
        count, size = store_inbox.held_size(store, body.game_id)
        full = count >= HELD_PER_GAME or size + len(packet.data) > HELD_BYTES_PER_GAME
    if full and store_inbox.buffered_copy(store, packet.packet_id) is None:
        reason = (
            f"packet {body.seq} not held: this game holds {count} packets waiting for the ones "
            f"before them already ({size // 1024} KiB), as many as it keeps; a resend brings it "
            "again once those are in"
        )
        return refusals.refused(replica, packet, source, now, reason)
    store_inbox.buffer(
        store,
        body.game_id,
        body.seq,
        packet.packet_id,
        body.seat,
        packet.data,
        now,
        packet.public_key,
    )
    why = "the game is frozen" if held else "waiting for the packets before it"
    return Outcome("buffered", f"packet {body.seq} held: {why}", body.game_id, body.seq)


def same_signer(data: bytes, packet: VerifiedPacket) -> bool:
    return read_envelope(data).key_id == packet.envelope.key_id


def equivocation(replica: Reader, packet: VerifiedPacket, other: bytes, now: str) -> Outcome:
    body = packet.body
    detail = f"{body.seat} signed two different packets for position {body.seq}"
    ledger.freeze(
        replica.store, body.game_id, body.seq, "equivocation", detail, other, packet.data, now
    )
    return Outcome("equivocation", detail, body.game_id, body.seq, attention=True)
