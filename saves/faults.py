"""How far a game's stored chain is damaged past its first fault: what one resend must cover.

A replay (``hexpost verify``, a review, an export) stops at the first stored packet that is
lost or no longer opens, and says what mends it: the other player's ``hexpost resend GAME
--from N --to M --every-seat``. A disk that lost or damaged one row may have done the same to
others further on, and each piece of advice followed costs an email round trip. So the advice
reaches from the first fault to the last one a quick look finds (`last_fault`): every stored
packet of the game is opened (its signature checked under the keys the game binds, its
position and its link to the packet before it; about 91 us a packet), nothing is replayed,
and the faults after the first are counted. The look may find more than is wrong (a packet
signed under a kept key that was damaged since), which costs only packets sent again; what
it misses, the next replay names. A packet whose predecessor is lost or does not open is not
held to its link.
"""

from __future__ import annotations

from engine.core.errors import HexpostError
from engine.core.packets import open_packet
from saves import store_games, store_keys
from saves.store import Store


def last_fault(store: Store, game_id: bytes, first: int) -> int:
    """The last position of the game's chain, from ``first`` on, whose stored packet is lost,
    does not open, is filed at another position, or does not follow the stored packet before
    it; ``first`` where there is none after it."""
    keys = bound_keys(store, game_id)
    last = first
    expected = -1
    before: bytes | None = None
    for page in store_games.packet_pages(store, game_id):
        for seq, data, _ in page:
            follows = seq == expected + 1
            if not follows:  # rows lost before this one (its link cannot be checked)
                before = None
                last = max(last, seq - 1)
            expected = seq
            try:
                packet = open_packet(data, lambda kid: keys.get(kid, []))
            except HexpostError:
                packet = None
            if packet is not None and packet.envelope.public_key:
                keys.setdefault(packet.envelope.key_id, []).append(packet.envelope.public_key)
            fits = (
                packet is not None
                and packet.body.seq == seq
                and (before is None or packet.body.prev == before)
            )
            if not fits and seq > last:
                last = seq
            before = None if packet is None else packet.packet_id
    return last


def bound_keys(store: Store, game_id: bytes) -> dict[bytes, list[bytes]]:
    """The public keys the game binds, as kept, by key id: what a stored packet's signature
    is checked under outside a replay (which binds them from the chain as it goes)."""
    keys: dict[bytes, list[bytes]] = {}
    for kid, public in store_keys.seat_keys(store, game_id).values():
        keys.setdefault(kid, []).append(public)
    return keys
