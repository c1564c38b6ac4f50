"""Signing this home's own packets: entropy from the seat's chain, then sign, store and queue.

`Signer` adds to `saves.reading.Reader` what every packet this home writes needs, whatever the
job that writes it (`saves.creating`, `saves.submitting`, `saves.replies`): the seat's entropy
chain (its seed kept sealed, `saves.vault`) and `Signer.sign_and_store`, which stores a signed
packet with its state and outbox entry in one transaction before any transport sees it, so
after a crash the same bytes are sent again and a signed packet is never made twice (P9).

The engine applies a packet once per signing: the check that computes the state hash to sign
is the result that is stored (`finish`), not a second application of the same packet.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import msgspec

from engine.core import author, entropy
from engine.core.errors import HexpostError
from engine.core.game import Result
from engine.core.packets import (
    Body,
    Genesis,
    Join,
    VerifiedPacket,
    open_packet,
    raw_public_key,
    sign_body,
)
from engine.core.ruleset import AnyRuleset, Seat
from engine.core.state import AnyState
from saves import behind, ledger, store_games, store_inbox, vault
from saves.keys import Identity
from saves.reading import Reader
from saves.seat_key import foreign_seat
from saves.store import Store
from saves.store_games import GameRow

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey


def finish(drafted: Result, body: Body, key: Ed25519PrivateKey) -> tuple[VerifiedPacket, Result]:
    """Sign ``body`` with the state hash of ``drafted`` (what `engine.core.author.draft` gave
    for it) and return the packet with the result applying it gives, without applying again.

    A draft and a real application differ only in the chain ids the engine sets last (the new
    head is the packet's id; a genesis is its own game's genesis), which the state hash leaves
    out; so the draft's state, with those ids set, is the state the packet produces. The
    signed bytes are read back as a receiver reads them, so nothing unreadable is ever stored.
    """
    public = raw_public_key(key)
    body = msgspec.structs.replace(body, state_hash=drafted.state_hash)
    data = sign_body(body, key, include_key=isinstance(body.kind, Genesis | Join))
    packet = open_packet(data, lambda _kid: [public])
    genesis_id = packet.packet_id if isinstance(body.kind, Genesis) else drafted.state.genesis_id
    state = msgspec.structs.replace(drafted.state, head=packet.packet_id, genesis_id=genesis_id)
    return packet, Result(state, drafted.state_hash, drafted.events)


class Signer(Reader):
    """A `Reader` that also signs: the games of a home whose identity key may be unlocked."""

    def __init__(self, store: Store, identity: Identity | None = None) -> None:
        super().__init__(store, identity)
        self._chains: dict[tuple[bytes, str], entropy.EntropyChain] = {}

    # --- entropy -------------------------------------------------------------------------------

    def _chain(self, game_id: bytes, seat: Seat) -> entropy.EntropyChain:
        cached = self._chains.get((game_id, seat))
        if cached is None:
            # An imported copy of a seat another key plays (`saves.seat_key`) is said as such
            # first: its seed, if the archive carried one, is sealed under that other key.
            foreign = foreign_seat(self.identity, self.game(game_id), self.state(game_id))
            if foreign is not None:
                raise HexpostError(foreign)
            key = self.me().key
            if key is not None:
                vault.seal_plain_rows(self.store, key)  # rows an older version kept plain
            kept = vault.read_seed(self.store, key, game_id, seat)
            if kept is None:
                raise HexpostError(f"this home holds no entropy seed for seat {seat}")
            cached = entropy.EntropyChain.restore(*kept)
            self._chains[(game_id, seat)] = cached
        return cached

    def new_chain(
        self, game_id: bytes, seat: Seat, seed: bytes, length: int
    ) -> entropy.EntropyChain:
        """A fresh entropy chain for a seat this home takes (creating or joining a game)."""
        chain = entropy.EntropyChain(seed, length)
        self._chains[(game_id, seat)] = chain
        return chain

    def keep_seed(
        self, game_id: bytes, seat: Seat, seed: bytes, chain: entropy.EntropyChain
    ) -> None:
        """Store our entropy seed with its checkpoints, sealed (`saves.vault`), so no later
        run rebuilds the chain and no reader of the store learns it."""
        key = self.signing_key()
        vault.seal_plain_rows(self.store, key)
        vault.write_seed(self.store, key, game_id, seat, seed, chain.length, chain.checkpoints())

    def next_value(self, game_id: bytes, state: AnyState | None, seat: Seat) -> bytes:
        """The entropy value ``seat``'s next packet after ``state`` reveals (our own seat)."""
        index = (
            1
            if state is None or not state.core.seat_state(seat).joined
            else (state.core.seat_state(seat).entropy_index + 1)
        )
        return self._chain(game_id, seat).value(index)

    # --- signing -------------------------------------------------------------------------------

    def sign_and_store(
        self,
        ruleset: AnyRuleset,
        state: AnyState | None,
        body: Body,
        *,
        automatic: bool,
        now: str,
        extra: Callable[[], None] | None = None,
        drafted: Result | None = None,
    ) -> tuple[VerifiedPacket, Result]:
        """Sign ``body`` and store it with its state and outbox entry, in one transaction.

        ``drafted`` is the caller's check of ``body`` (`engine.core.author.draft` with this
        home's public key): given, it is what gets signed and stored; else the body is drafted
        here. ``extra`` runs inside the transaction (a new game's row, a kept secret).

        If another process moved the game on meanwhile (a sync in another window), the new
        packet is dropped unsent: it was never stored, so it can never contradict the chain.
        Nor is one signed while the game holds a packet beyond a gap, or in a backup copy not
        yet confirmed as restored (`saves.behind`): this home may have signed that position
        already, before it was restored from a copy.
        """
        key = self.signing_key()
        public = raw_public_key(key)
        if drafted is None or public != self.me().public_key:
            drafted = author.draft(ruleset, state, body, public)
        packet, result = finish(drafted, body, key)
        with self.store.transaction():
            head = store_games.head(self.store, body.game_id)
            expected = bytes(32) if state is None else state.head
            if head is not None and head.packet_id != expected:
                raise HexpostError("the game moved on while this packet was written: try again")
            if state is not None:
                behind.refuse_if_unconfirmed_copy(self.store)
                row = self.game(body.game_id)
                behind.refuse_if_behind(
                    self.store, row.name, body.game_id, state.core.seq, body.seat
                )
            if extra is not None:
                extra()
            ledger.store_applied(self.store, packet, result, now, mine=True)
            ledger.queue(
                self.store,
                packet,
                result,
                before=state,
                ruleset=ruleset,
                automatic=automatic,
                now=now,
            )
        self.remember_head(body.game_id, packet.packet_id, result.state)
        return packet, result

    def has_buffered_own(self, row: GameRow) -> bool:
        """Whether a packet we signed earlier waits in the buffer (then we must not sign anew)."""
        return store_inbox.has_buffered(self.store, row.game_id, row.my_seat)
