"""The states a home keeps beside a game's packets (its snapshots), read back only once they
check.

A kept state is a cache of what the packets determine: `saves.reading.Reader` starts from the
latest one that checks and replays the packets after it, and rebuilds any that does not. When
a game's row and its genesis are both lost (`saves.lost_games`), the newest kept state that
checks is also what still names the game, its ruleset and its seats.
"""

from __future__ import annotations

from typing import Any

import msgspec

from engine.core.state import AnyState, CoreState, decode_state, state_hash
from saves import store_games
from saves.registry import has_ruleset, ruleset_for
from saves.store import Store

NEWEST_LOOKS = 64
"""Kept states `newest_checked` reads at most, newest first: besides the head's, a home keeps
one every `saves.ledger.SNAPSHOT_EVERY` (64) packets, so the look reaches about 4,000 packets
back; older ones name the game no better."""


def checked_state(kept: store_games.Kept, state_type: type[Any]) -> AnyState | None:
    """The state a kept snapshot holds, if it decodes, hashes to the hash stored with it and
    is the state after the packet it is kept for, in the chain stored; else None (the
    snapshot is only a cache of what the packets determine: `Reader` then rebuilds it from
    them). Whatever decoding or hashing damaged bytes raises means the same; a whole row
    filed under another position (its own state and hash) is one case, and chain ids damaged
    (the last packet's, the genesis's: kept out of the hash, as a packet's id depends on it)
    another."""
    try:
        state: AnyState = decode_state(kept.state, state_type)
        good = (
            state.core.seq == kept.seq
            and state.head == (kept.packet_id or state.head)  # (a packet row lost: no say)
            and state.genesis_id == (kept.genesis_id or state.genesis_id)
            and state_hash(state) == kept.state_hash
        )
    except Exception:  # any failure: the kept bytes are not a state
        return None
    return state if good else None


def newest_checked(store: Store, game_id: bytes) -> AnyState | None:
    """The newest kept state of ``game_id`` that checks (`checked_state`, its ruleset read
    from its own core and installed here) and is the state after a packet this home still
    stores (so a signed packet vouches for where it stands); None if none of the newest
    `NEWEST_LOOKS` does. Needs no row of the game: its ruleset comes from the state."""
    at = _PAST_ANY
    for _ in range(NEWEST_LOOKS):
        kept = store_games.snapshot_before(store, game_id, at)
        if kept is None:
            return None
        state = _checked_any(kept) if kept.packet_id else None
        if state is not None and state.core.game_id == game_id:
            return state
        at = kept.seq - 1
    return None


class _CoreOnly(msgspec.Struct):
    """A kept `GameState` read for its core alone (the other fields are passed over)."""

    core: CoreState


_PAST_ANY = 2**62
"""A position past any chain's end (SQLite's integers reach 2**63 - 1)."""


def _checked_any(kept: store_games.Kept) -> AnyState | None:
    """`checked_state` with the state type of the ruleset the kept core names."""
    try:
        core = msgspec.msgpack.decode(kept.state, type=_CoreOnly).core
    except (msgspec.DecodeError, ValueError):
        return None
    if not has_ruleset(core.ruleset_id):
        return None
    return checked_state(kept, ruleset_for(core.ruleset_id).state_type)
