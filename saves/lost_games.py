"""What a game's lost row held, read again from the game's genesis packet.

A game's row in the games table (`saves.store_games`) is written with its genesis and kept
beside its packets; should it be lost, everything it says about the game but this home's own
filing can be told again from the packets: the genesis names the game, its ruleset, its
scenario and its seats, and this home's seat is the one it created (the genesis is signed by
this home's key) or the one addressed to it. `saves.reading.Reader.mend_lost_games` writes
the row and works out the rest (where the chain ends, whether this seat joined) from the
chain as it reads any game.
"""

from __future__ import annotations

from typing import NamedTuple

from engine.core.errors import PacketError
from engine.core.packets import Genesis, open_packet
from saves import store_games
from saves.keys import Identity
from saves.store import Store


class LostRow(NamedTuple):
    """A lost row's fields as the genesis tells them, and when the genesis was stored."""

    name: str
    ruleset: str
    scenario: str
    my_seat: str
    created_at: str


def genesis_of(store: Store, game_id: bytes) -> tuple[Genesis, bytes] | None:
    """The game's stored genesis and the key that signed it, if it opens (under the key it
    carries) and is the genesis of ``game_id``."""
    data = store_games.packet_data(store, game_id, 0)
    if data is None:
        return None
    try:
        packet = open_packet(data, lambda _: [])  # a genesis carries its key
    except PacketError:
        return None
    genesis = packet.body.kind
    if not isinstance(genesis, Genesis) or packet.body.game_id != game_id:
        return None
    return genesis, packet.public_key


def from_genesis(store: Store, game_id: bytes, identity: Identity | None) -> LostRow | None:
    """The row of ``game_id`` as its stored genesis tells it; None when there is no genesis
    that opens or no seat of it is this home's."""
    opened = genesis_of(store, game_id)
    stored_at = store_games.packet_stored_at(store, game_id, 0)
    if opened is None or stored_at is None or identity is None:
        return None
    genesis, creator_key = opened
    if creator_key == identity.public_key:
        seat = genesis.creator
    else:
        addressed = [
            binding.seat
            for binding in genesis.seats
            if binding.seat != genesis.creator and binding.address == identity.address
        ]
        if not addressed:
            return None
        seat = addressed[0]
    return LostRow(
        name=genesis.name,
        ruleset=genesis.ruleset_id,
        scenario=genesis.scenario_id,
        my_seat=seat,
        created_at=stored_at,
    )
