"""Received copies that put right what a damaged home lost.

A home keeps derived copies of what its chains hold (`saves.reading` rebuilds kept states and
events from the packets). Two things it keeps are checked only when a packet comes in: the
stored bytes of each packet, and the keys each game binds to its seats. When either was
damaged on disk, a received copy is what finds it out, and what puts it right.
"""

from __future__ import annotations

from engine.core.errors import PacketError
from engine.core.packets import VerifiedPacket, open_packet
from saves import copies, store_games
from saves.reading import Reader
from saves.store import Store


def mended(store: Store, packet: VerifiedPacket) -> bool:
    """Keep ``packet`` (verified) in place of the stored copy of the same packet if that copy
    no longer opens under the same key (a store damaged since: the other side's `hexpost
    resend` is how a player puts it right). Only bytes that differ are checked, so a copy
    read back as it was costs one row read."""
    body = packet.body
    stored = store_games.packet_data(store, body.game_id, body.seq)
    if stored is None or stored == packet.data:
        return False
    try:
        kept = open_packet(stored, lambda _: [packet.public_key])
        if kept.packet_id == packet.packet_id:
            return False  # (another good copy: nothing to mend)
    except PacketError:
        pass
    store_games.replace_packet_data(store, body.game_id, body.seq, packet.packet_id, packet.data)
    return True


def keys_mended(replica: Reader, checked: copies.Checked) -> bool:
    """Whether a copy that failed its check names a game of this home whose kept keys were
    damaged, and are now rebuilt (`Reader.check_keys`): then it is checked again."""
    if checked.newer or checked.claim is not None or checked.chat is not None:
        return False
    game_id = copies.named_game(replica.store, checked.data)
    return game_id is not None and replica.check_keys(game_id)
