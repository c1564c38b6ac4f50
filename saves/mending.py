"""Received copies that put right what a damaged home lost.

A home keeps derived copies of what its chains hold (`saves.reading` rebuilds kept states and
events from the packets). Two things it keeps are checked only when a packet comes in: the
stored bytes of each packet, and the keys each game binds to its seats. When either was
damaged on disk, a received copy is what finds it out, and what puts it right.

A stored packet can also be lost outright, its row gone from the middle of a chain (`saves.
holes`). A copy for that position is kept only when the chain itself names it: the packet
stored after it carries its id as ``prev``, and that packet was verified when it was kept, so
no other packet can take the place (a different one signed by the same seat is refused as not
fitting the chain, `saves.inbox`). Where the packet after it is lost too, the copy waits among
the held packets until that one is filled; they fill from the top down (`fill`).
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from engine.core.errors import PacketError
from engine.core.packets import VerifiedPacket, kind_name, open_packet, peek_body
from engine.core.text import numbered
from saves import copies, ledger, store_games, store_inbox, store_repairs
from saves.outcome import Outcome
from saves.reading import Reader
from saves.store import Store


def mended(store: Store, packet: VerifiedPacket) -> bool:
    """Keep ``packet`` (verified) in place of the stored copy of the same packet if that copy
    no longer opens under the same key, named by the same key id (a store damaged since: the
    other side's `hexpost resend` is how a player puts it right; the key id is outside what
    is signed, so a damaged one still verifies under the key, but a replay finds no key by
    it). Only bytes that differ are checked, so a copy read back as it was costs one row
    read."""
    body = packet.body
    stored = store_games.packet_data(store, body.game_id, body.seq)
    if stored is None or stored == packet.data:
        return False
    key_id = packet.envelope.key_id
    try:
        kept = open_packet(stored, lambda kid: [packet.public_key] if kid == key_id else [])
        if kept.packet_id == packet.packet_id:
            return False  # (another good copy: nothing to mend)
    except PacketError:
        pass
    store_repairs.replace_packet_data(store, body.game_id, body.seq, packet.packet_id, packet.data)
    return True


def keys_mended(replica: Reader, checked: copies.Checked) -> bool:
    """Whether a copy that failed its check names a game of this home whose kept keys were
    damaged, and are now rebuilt (`Reader.check_keys`): then it is checked again."""
    if checked.newer or checked.claim is not None or checked.chat is not None:
        return False
    game_id = copies.named_game(replica.store, checked.data)
    return game_id is not None and replica.check_keys(game_id)


def place_lost(
    replica: Reader,
    packet: VerifiedPacket,
    source: str,
    now: str,
    hold: Callable[[], Outcome],
) -> Outcome | None:
    """Fill a lost position with ``packet`` if the chain names it there (`fill`), or ``hold``
    it while the packet after it is lost too; None: it does not fit the chain. Only a packet
    signed by its seat's key counts, the kept keys rebuilt first if they were damaged."""
    body = packet.body
    store = replica.store
    if not ledger.signed_by_seat(store, packet) and not (
        replica.check_keys(body.game_id) and ledger.signed_by_seat(store, packet)
    ):
        return None
    filled = fill(replica, packet, source, now)
    if filled is not None or not next_lost(replica.store, body.game_id, body.seq):
        return filled
    held = hold()
    if held.status != "buffered":
        return held
    detail = f"packet {body.seq} held: the packet after it was lost here too"
    return msgspec.structs.replace(held, detail=detail)


def next_lost(store: Store, game_id: bytes, seq: int) -> bool:
    """Whether the packet after ``seq`` is lost too (so a copy for ``seq`` cannot be checked
    yet, and waits for it)."""
    head = store_games.head(store, game_id)
    return (
        head is not None
        and seq + 1 <= head.seq
        and store_games.packet_at(store, game_id, seq + 1) is None
    )


def fill(replica: Reader, packet: VerifiedPacket, source: str, now: str) -> Outcome | None:
    """Keep ``packet`` (verified, for a lost position of its game) if the packet stored after
    it names it, then every held copy for the positions below that the one just kept names in
    turn; what that did, or None when the chain does not name it (inside the caller's
    transaction)."""
    store = replica.store
    body = packet.body
    if _named_by_next(store, body.game_id, body.seq) != packet.packet_id:
        return None
    filled = [body.seq]
    _keep(store, packet, now)
    below: VerifiedPacket | None = packet
    while below is not None:
        below = _held_below(replica, below)
        if below is not None:
            _keep(store, below, now)
            store_inbox.unbuffer(store, body.game_id, below.packet_id)
            filled.insert(0, below.body.seq)
    lost = f"{numbered('packet', filled)} {'was' if len(filled) == 1 else 'were'} lost"
    replica.note_repair(
        body.game_id,
        f"{lost} from this home's store; the other side's copies fill their place",
        from_packets=False,
    )
    detail = f"{lost} from this home's store, and the chain names these copies there: kept again"
    return Outcome("duplicate", detail, body.game_id, body.seq, seat=body.seat, source=source)


def _named_by_next(store: Store, game_id: bytes, seq: int) -> bytes | None:
    """The id the packet stored after ``seq`` names as the one before it, if it is stored
    and reads (it was verified when it was kept)."""
    data = store_games.packet_data(store, game_id, seq + 1)
    body = None if data is None else peek_body(data)
    if body is None or body.game_id != game_id or body.seq != seq + 1:
        return None
    return body.prev


def _held_below(replica: Reader, packet: VerifiedPacket) -> VerifiedPacket | None:
    """The held copy of the packet ``packet`` names as the one before it, if that position
    is lost and the copy still opens under the key it was verified with."""
    store = replica.store
    body = packet.body
    seq = body.seq - 1
    if seq < 0 or store_games.packet_at(store, body.game_id, seq) is not None:
        return None
    for held_id, data, public in store_inbox.buffered_at(store, body.game_id, seq):
        if held_id != body.prev:
            continue
        try:  # (checked again, as it is rare)
            found = open_packet(data, _lookup(store, public))
        except PacketError:
            continue
        if found.packet_id == body.prev and found.body.seq == seq:
            return found
    return None


def _lookup(store: Store, public: bytes | None) -> Callable[[bytes], list[bytes]]:
    """The keys to open a held copy with: the one it verified under when it was held, or
    (held by an older version, which did not keep it) any this home binds to its key id."""
    if public is not None:
        return lambda _: [public]
    return lambda kid: ledger.keys_with_id(store, kid)


def _keep(store: Store, packet: VerifiedPacket, now: str) -> None:
    """Store ``packet`` at its lost position, with the state hash its body carries (the one
    its replay gives: `hexpost verify` checks it again). Whatever the disk left of its events
    is not trusted: they are made again from it when first read (`ledger.EVENTS_TO_MAKE`)."""
    body = packet.body
    store_repairs.drop_misfiled(store, packet.packet_id, body.game_id, body.seq)
    store_games.insert_packet(
        store,
        body.game_id,
        body.seq,
        packet.packet_id,
        body.seat,
        kind_name(body.kind),
        packet.data,
        body.state_hash,
        now,
        events_digest=ledger.EVENTS_TO_MAKE,
    )
