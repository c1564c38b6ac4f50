"""Replaying a stored game from its genesis: what `hexpost verify` checks.

Every stored packet is verified again with only the keys the chain itself binds (its genesis
and joins), linked, applied by the engine, and its state hash compared with the stored one;
last, the replayed state must equal the snapshot the home keeps. The log is the truth, and
this is how a player checks that the home's caches still agree with it.
"""

from __future__ import annotations

from engine.core.errors import ChainError, DesyncError, HexpostError
from engine.core.game import AnyState, apply_packet
from engine.core.packets import open_packet
from engine.core.state import encode_state
from saves import store_games
from saves.reading import Reader
from saves.registry import ruleset_for


def verify(replica: Reader, game_id: bytes) -> bytes:
    """Replay the whole chain from genesis: every signature, link and state hash.

    Returns the final state hash; raises the first error found, naming its packet. The
    packets are read a page at a time, so memory does not grow with the game's length.
    """
    row = replica.game(game_id)
    ruleset = ruleset_for(row.ruleset)
    state: AnyState | None = None
    digest = b""
    keys: dict[bytes, list[bytes]] = {}  # bound by Genesis and Join packets as they come
    for seq, data, stored in store_games.stream_packets(replica.store, game_id):
        try:
            packet = open_packet(data, lambda kid: keys.get(kid, []))
            if packet.body.seq != seq:
                raise ChainError(f"stored at {seq} but says it is packet {packet.body.seq}")
            result = apply_packet(ruleset, state, packet)
        except DesyncError:
            raise
        except HexpostError as exc:
            raise type(exc)(f"packet {seq}: {exc.message}", rule=exc.rule) from None
        if packet.envelope.public_key:
            keys[packet.envelope.key_id] = [packet.envelope.public_key]
        if stored != result.state_hash:
            raise DesyncError(seq, stored, result.state_hash)
        state, digest = result.state, result.state_hash
    if state is None:
        raise HexpostError("the game has no packets")
    if encode_state(state) != encode_state(replica.state(game_id)):
        raise HexpostError("the stored snapshot differs from the replayed state")
    return digest
