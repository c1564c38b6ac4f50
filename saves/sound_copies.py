"""Which stored copy of a packet goes out when it is sent again: one that opens.

A home keeps two copies of each packet it sends: the chain's (``packets``) and the queued
one (``outbox``), which an answer to a resend ask or ``hexpost resend`` sends again. A disk
that damaged the queued copy would have every answer send the same damaged bytes, which
the other home refuses, asks for again a reply window later, and is sent again: the game
waited for good. So a copy that differs from the other is opened (its signature under the
keys the game binds, and its position) and the first that opens goes, and becomes the
queued copy; where both copies agree, as on a sound disk, nothing is opened. Where none
opens, nothing goes: this home's own fault look (`saves.faults`) finds its damaged chain and
asks the other player for it.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.core.errors import HexpostError
from engine.core.packets import open_packet
from saves import faults
from saves.store import Store
from saves.store_outbox import Pick


def picker(store: Store, game_id: bytes) -> Pick:
    """The choice `saves.store_outbox.requeue_from` and ``queue_relays`` make for the game:
    the copies given, if they agree; else the first that opens as the packet at its
    position; else none. The game's keys are read once, at the first disagreement."""
    keys: dict[bytes, list[bytes]] | None = None

    def pick(seq: int, copies: Sequence[bytes]) -> bytes | None:
        nonlocal keys
        if all(copy == copies[0] for copy in copies[1:]):
            return copies[0]
        if keys is None:
            keys = faults.bound_keys(store, game_id)
        bound = keys
        for copy in copies:
            try:
                packet = open_packet(copy, lambda kid: bound.get(kid, []))
            except HexpostError:
                continue
            if packet.body.seq == seq:
                return copy
        return None

    return pick
