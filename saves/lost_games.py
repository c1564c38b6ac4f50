"""What a game's lost row held, read again from the game's genesis packet, or from its
kept state.

A game's row in the games table (`saves.store_games`) is written with its genesis and kept
beside its packets; should it be lost, everything it says about the game but this home's own
filing can be told again from the packets: the genesis names the game, its ruleset, its
scenario and its seats, and this home's seat is the one it created (the genesis is signed by
this home's key) or the one addressed to it. `saves.reading.Reader.mend_lost_games` writes
the row and works out the rest (where the chain ends, whether this seat joined) from the
chain as it reads any game.

Where the genesis was lost with the row, the newest state kept beside the packets that checks
(`saves.kept_states`) names the same: the game, its ruleset, its scenario, its seats with
their keys and addresses (`from_kept_state`). The game then plays on from that state, and the
next sync asks the other player for the genesis (`saves.holes`), which fills its place.
"""

from __future__ import annotations

from typing import NamedTuple

from engine.core.errors import PacketError
from engine.core.packets import Genesis, open_packet
from engine.core.state import SeatState
from saves import kept_states, store_games
from saves.addresses import same_address
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
            if binding.seat != genesis.creator and same_address(binding.address, identity.address)
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


def from_kept_state(
    store: Store, game_id: bytes, identity: Identity | None
) -> tuple[LostRow, int] | None:
    """The row of ``game_id`` as its newest kept state that checks tells it, and that
    state's position; None when no kept state checks or no seat of it is this home's (the
    seat bound to this home's key, or one not yet joined that is addressed to it)."""
    state = kept_states.newest_checked(store, game_id)
    created_at = store_games.first_stored_at(store, game_id)
    if state is None or created_at is None or identity is None:
        return None
    core = state.core
    seat = _seat_of(core.seats, core.creator, identity)
    if seat is None:
        return None
    row = LostRow(
        name=core.name,
        ruleset=core.ruleset_id,
        scenario=core.scenario_id,
        my_seat=seat,
        created_at=created_at,
    )
    return row, core.seq


def _seat_of(seats: tuple[SeatState, ...], creator: str, identity: Identity) -> str | None:
    """This home's seat among ``seats``, as `from_genesis` tells it from a genesis."""
    for s in seats:
        if s.public_key and s.public_key == identity.public_key:
            return s.seat
    for s in seats:
        if not s.joined and s.seat != creator and same_address(s.address, identity.address):
            return s.seat
    return None
