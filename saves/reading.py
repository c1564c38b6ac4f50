"""Reading this home's games: the list, one game's row, its state at any packet, its log.

`Reader` is the bottom of the replica: everything that takes packets in (`saves.inbox`),
checks them (`saves.replay`) or writes them (`saves.signing` and above) reads games through
it, and it knows nothing of them. It keeps the head state of each game it has read in memory,
keyed by the head packet's id, so a state is decoded once per packet however often it is
asked for, and a head another process moved on is never served stale.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import msgspec

from engine.core.errors import ChainError, HexpostError, PacketError
from engine.core.game import apply_packet
from engine.core.owed import pending
from engine.core.packets import (
    Envelope,
    VerifiedPacket,
    key_id,
    open_packet,
    packet_id,
    peek_body,
    read_envelope,
)
from engine.core.ruleset import AnyRuleset, Decision, Event
from engine.core.state import AnyState, encode_state
from saves import faults, holes, ledger, seat_key, store_games
from saves.kept_states import checked_state
from saves.keys import Identity
from saves.registry import has_ruleset, ruleset_for
from saves.row_repairs import RowRepairs
from saves.store import Store
from saves.store_games import GameRow

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

__all__ = ["GameRow", "Identity", "Reader", "kept_packet", "lookup_in", "rebuild"]


def lookup_in(state: AnyState | None) -> Any:
    """A key lookup for `open_packet` that knows the keys bound in ``state``."""
    keys = (
        {}
        if state is None
        else {key_id(s.public_key): s.public_key for s in state.core.seats if s.joined}
    )
    return lambda kid: [keys[kid]] if kid in keys else []


def rebuild(data: bytes, envelope: Envelope, public: bytes) -> VerifiedPacket | None:
    """A packet whose bytes were verified under ``public`` before, decoded again (None if they
    no longer decode, which only a damaged store could cause: then it is checked as new)."""
    body = peek_body(data)
    if body is None:
        return None
    return VerifiedPacket(
        data=data,
        envelope=envelope,
        body=body,
        packet_id=packet_id(envelope.body),
        public_key=public,
    )


def kept_packet(data: bytes, state: AnyState | None) -> VerifiedPacket:
    """A packet of a chain this store keeps, to be applied to ``state`` (the state before it)
    when a state is replayed from a kept snapshot: a view of the game (a review, ``show
    --at``), not a check of it.

    Its signature was checked when it was kept, so it is not checked again: the replay
    already starts from a snapshot the store kept unchecked, and ``hexpost verify``
    (`saves.replay`), the check of a store, opens every packet anew. The key is the one its
    envelope carries (a Genesis or a Join) or the one ``state`` binds to its key id (none:
    opened as new, which names the unknown key); bytes that no longer decode (a store
    damaged since) are opened as new too."""
    envelope = read_envelope(data)
    lookup = lookup_in(state)
    keys = [envelope.public_key] if envelope.public_key else lookup(envelope.key_id)
    packet = rebuild(data, envelope, keys[0]) if len(keys) == 1 else None
    return packet if packet is not None else open_packet(data, lookup)


_NOTHING: Mapping[int, str] = MappingProxyType({})

PAST_HEADS = 3
"""Head states a `Reader` keeps per game after newer heads replaced them (`remember_head`)."""


class Reader(RowRepairs):
    """Every game of one home, read from its `Store`; ``identity`` is who this home plays as."""

    def __init__(self, store: Store, identity: Identity | None = None) -> None:
        self.store = store
        self.identity = identity
        self._heads: dict[bytes, tuple[bytes, AnyState]] = {}
        self._past: dict[bytes, list[AnyState]] = {}
        """Per game, the last `PAST_HEADS` head states a newer head replaced, oldest first."""
        self._keys_good: set[bytes] = set()
        """Games whose kept keys `check_keys` found as their state binds them."""
        self._heads_good: set[bytes] = set()
        """Games whose row `check_head` found ending where their stored packets do."""
        self._chains_whole: set[bytes] = set()
        self._unreplayable: dict[bytes, int] = {}
        """Per game, the first stored packet a replay found lost or no longer opening: what a
        sync asks the other side for (`first_lost`)."""
        self._fault_ends: dict[tuple[bytes, int], int] = {}
        """Per game and lost position, the last fault after it (`_lost`): worked out once a
        process (a fill that mends part of the range leaves it wider than needed, which costs
        only packets sent again)."""
        self._mending = False
        """Set while `mend_lost_games` rebuilds rows (their reading checks again)."""
        self._lost_looked = False
        """Whether `check_head` looked for lost rows yet (once a process; a look-up by id
        that finds no row, and a packet of a game not held, look each time)."""

    # --- games ---------------------------------------------------------------------------------

    def games(self) -> list[GameRow]:
        self.mend_lost_games()
        for row in store_games.games(self.store):
            self.check_head(row.game_id)
        rows = store_games.games(self.store)
        if any(self.mend_ruleset(row) for row in rows if not has_ruleset(row.ruleset)):
            rows = store_games.games(self.store)
        return rows

    def playable_games(self) -> list[GameRow]:
        """The games whose ruleset this hexpost has: what a look at every game's state reads
        (a game of a plug-in uninstalled is listed, `games`, but never read)."""
        return [row for row in self.games() if has_ruleset(row.ruleset)]

    def active_games(self) -> list[GameRow]:
        """The playable games going on (active, not frozen) whose state can be read: what
        the passes over every game's next move read (the reminders, the asks for damaged
        packets, whether an automatic reply is owed), so that a game whose stored packets no
        longer replay stops none of the others (the games list says why it cannot be read).
        Not an imported copy of a seat this home does not play (`saves.seat_key`): nothing
        there is its to sign or to ask."""
        rows: list[GameRow] = []
        for row in self.playable_games():
            if row.status != "active" or row.frozen:
                continue
            try:
                state = self.state(row.game_id)
            except HexpostError:
                continue
            if seat_key.foreign_seat(self.identity, row, state) is not None:
                continue  # (an imported copy: this home plays no seat in it)
            rows.append(row)
        return rows

    def game(self, game_id: bytes) -> GameRow:
        self.check_head(game_id)
        row = store_games.game(self.store, game_id)
        if row is None and self.mend_lost_games():
            row = store_games.game(self.store, game_id)
        if row is None:
            raise HexpostError(f"no game {game_id.hex()} in this home")
        return row

    def find(self, name: str) -> GameRow:
        """A game by its exact name, its id, or any unique prefix of its id; failing those,
        by its name in other capitals. A name's beginning is never taken for the game (a
        command that signs would sign into a game the player did not name): the refusal
        lists the games whose names begin so."""
        wanted = name.lower()
        rows = self.games()
        exact = [row for row in rows if name in (row.name, row.game_id.hex())]
        matches = exact or [row for row in rows if row.game_id.hex().startswith(wanted)]
        typed = name.strip().casefold()
        matches = matches or [row for row in rows if row.name.casefold() == typed]
        if len(matches) > 1:
            ids = ", ".join(row.game_id.hex()[:8] for row in matches)
            raise HexpostError(f"{name!r} matches several games ({ids}): give more of the id")
        if matches:
            return matches[0]
        begun = [row for row in rows if typed and row.name.casefold().startswith(typed)]
        said = f"no game matches {name!r} (see `hexpost games`)"
        if begun:
            shown = ", ".join(f"{row.name} ({row.game_id.hex()[:8]})" for row in begun[:6])
            shown += f" and {len(begun) - 6} more" if len(begun) > 6 else ""
            said += f"; names that begin so: {shown}"
        raise HexpostError(said)

    def ruleset(self, game_id: bytes) -> AnyRuleset:
        return ruleset_for(self.game(game_id).ruleset)

    def mark_read(self, game_id: bytes) -> None:
        with self.store.transaction():
            store_games.mark_read(self.store, game_id)

    def set_archived(self, game_id: bytes, when: str) -> None:
        """Archive the game at ``when`` or (``""``) bring it back (`store_games.set_archived`):
        filing of this home's list only, so a reader may do it; nothing is signed."""
        with self.store.transaction():
            store_games.set_archived(self.store, game_id, when)

    # --- states --------------------------------------------------------------------------------

    def state(self, game_id: bytes, at: int | None = None) -> AnyState:
        """The game's state after packet ``at`` (default: the head)."""
        if at is not None:
            return self.states(game_id, [at])[at]
        head, ruleset = self._head_row(game_id)
        return self._head(game_id, head, ruleset)

    def states(self, game_id: bytes, seqs: Sequence[int]) -> dict[int, AnyState]:
        """The game's states after each packet of ``seqs`` (the head's for one at or past
        it), in order, from one replay: the packets up to the last one asked are applied
        once from the snapshot at or before the first (a packet and the one before it, the
        review's pair, cost one replay and one packet, not two)."""
        head, ruleset = self._head_row(game_id)
        wanted = sorted(set(seqs))
        if wanted and wanted[0] < 0:
            raise HexpostError("--at needs a packet number of 0 or more")
        found: dict[int, AnyState] = {}
        if wanted and wanted[-1] >= head.seq:
            at_head = self._head(game_id, head, ruleset)
            found.update((seq, at_head) for seq in wanted if seq >= head.seq)
        below = [seq for seq in wanted if seq < head.seq]
        if below:
            found.update(self._replayed(game_id, ruleset, below))
        return {seq: found[seq] for seq in wanted}

    def head(self, game_id: bytes) -> store_games.Head:
        """Where the game's chain ends (its row checked against its packets: `check_head`)."""
        self.check_head(game_id)
        head = store_games.head(self.store, game_id)
        if head is None:
            raise HexpostError(f"no game {game_id.hex()} in this home")
        return head

    def _head_row(self, game_id: bytes) -> tuple[store_games.Head, AnyRuleset]:
        head = self.head(game_id)
        if not has_ruleset(head.ruleset) and self.mend_ruleset(self.game(game_id)):
            head = self.head(game_id)
        return head, ruleset_for(head.ruleset)

    def _replayed(
        self,
        game_id: bytes,
        ruleset: AnyRuleset,
        seqs: list[int],
        rewrite: Mapping[int, str] = _NOTHING,
    ) -> dict[int, AnyState]:
        """The states after the packets ``seqs`` (ascending), replayed once from the latest
        past head (`remember_head`) or kept snapshot that checks (`_kept_before`) at or before
        the first. The kept snapshots found damaged on the way, and those ``rewrite`` names
        (position -> what was wrong), are written again from the replay (`_write_back`)."""
        asked = set(seqs)
        found: dict[int, AnyState] = {}
        past = self._past_before(game_id, seqs[0])
        after = -1 if past is None else past.core.seq
        kept, damaged = self._kept_before(game_id, ruleset, seqs[0], after)
        damaged.update(rewrite)
        state: AnyState | None = kept if kept is not None else past
        start = 0 if state is None else state.core.seq + 1
        if state is not None and state.core.seq in asked:
            found[state.core.seq] = state
        expected = start
        last = store_games.packet_at(self.store, game_id, seqs[-1])
        try:
            for seq, data in store_games.packets_between(self.store, game_id, start, seqs[-1]):
                if seq != expected:  # a row lost from the middle of the chain
                    self._cannot_replay(game_id, expected)
                    raise self._lost(game_id, expected, seq - 1)
                expected += 1
                try:  # (it opened and applied when it was stored: failing now, it was damaged)
                    packet = self._kept(seq, data, state)
                    if seq == seqs[-1] and last is not None and packet.packet_id != last[0]:
                        self._check_last(game_id, seq, data)
                    result = apply_packet(ruleset, state, packet)
                except HexpostError as exc:  # (not following: the one before it was altered)
                    self._cannot_replay(game_id, seq - isinstance(exc, ChainError))
                    raise
                state = result.state
                if seq in damaged:
                    self._write_back(game_id, seq, result.state, result.state_hash, damaged[seq])
                if seq in asked:
                    found[seq] = state
        except HexpostError as exc:
            if not damaged:
                raise
            first = min(damaged)
            raise HexpostError(
                f"the kept state at packet {first} was {damaged[first]}, and the stored "
                f"packets do not rebuild it: {exc}"
            ) from None
        missing = asked - found.keys()
        head = store_games.head(self.store, game_id)
        if missing and head is not None and expected <= head.seq:  # lost at the end asked
            self._cannot_replay(game_id, expected)
            raise self._lost(game_id, expected, None)
        if missing:
            raise HexpostError(f"packet {min(missing)} of game {game_id.hex()} is not stored")
        return found

    def _check_last(self, game_id: bytes, seq: int, data: bytes) -> None:
        """Raise `PacketError` if the stored bytes of the last packet a replay reaches, whose
        id is not the one kept beside them, no longer open under the keys the game binds:
        damaged since, they would rebuild a state whose head no packet follows (nothing after
        it checks its id, as each next packet checks the one before). Bytes that open are
        right, and the kept id is what was damaged (`check_head` mends the head's)."""
        keys = faults.bound_keys(self.store, game_id)
        try:
            open_packet(data, lambda kid: keys.get(kid, []))
        except PacketError as exc:
            raise PacketError(
                f"stored packet {seq}: {exc.message} (its bytes are not those kept)", rule=exc.rule
            ) from None

    def _lost(self, game_id: bytes, first: int, last: int | None) -> holes.LostPacket:
        """The error for packets ``first`` to ``last`` lost from the store, with the resend
        that mends them and any fault after them (`saves.faults`)."""
        upto = self._fault_ends.get((game_id, first))
        if upto is None:
            upto = self._fault_ends[game_id, first] = faults.last_fault(self.store, game_id, first)
        return holes.lost_with_advice(self.game(game_id).name, first, last, upto)

    def _cannot_replay(self, game_id: bytes, seq: int) -> None:
        known = self._unreplayable.get(game_id)
        self._unreplayable[game_id] = seq if known is None else min(known, seq)

    def _kept_before(
        self, game_id: bytes, ruleset: AnyRuleset, at: int, after: int
    ) -> tuple[AnyState | None, dict[int, str]]:
        """The state of the latest kept snapshot at or before packet ``at`` and after packet
        ``after`` (a past head the replay may start from instead) that checks
        (`checked_state`), if any, and the later ones passed over as damaged."""
        damaged: dict[int, str] = {}
        while at > after:
            kept = store_games.snapshot_before(self.store, game_id, at)
            if kept is None or kept.seq <= after:
                break
            state = checked_state(kept, ruleset.state_type)
            if state is not None:
                return state, damaged
            damaged[kept.seq] = "damaged"
            at = kept.seq - 1
        return None, damaged

    def _write_back(
        self, game_id: bytes, seq: int, state: AnyState, digest: bytes, what: str
    ) -> None:
        """Keep ``state`` (rebuilt from the packets) as the snapshot at ``seq``, in place of
        one found ``what`` (damaged, missing), and say so once in `Store.repairs`."""
        with self.store.transaction():
            store_games.insert_snapshot(self.store, game_id, seq, encode_state(state), digest)
        self.note_repair(game_id, f"the kept state at packet {seq} was {what}; rebuilt it")

    @staticmethod
    def _kept(seq: int, data: bytes, state: AnyState | None) -> VerifiedPacket:
        """`kept_packet`, with the position of a stored packet that no longer opens named."""
        try:
            return kept_packet(data, state)
        except PacketError as exc:
            raise PacketError(f"stored packet {seq}: {exc.message}", rule=exc.rule) from None

    def _past_before(self, game_id: bytes, at: int) -> AnyState | None:
        """The latest past head state at or before packet ``at`` (`PAST_HEADS`), if its
        packet is still the chain's at that position (a chain only grows, but a store can
        be replaced under a running app)."""
        kept = [state for state in self._past.get(game_id, ()) if state.core.seq <= at]
        if not kept:
            return None
        state = max(kept, key=lambda past: past.core.seq)
        stored = store_games.packet_at(self.store, game_id, state.core.seq)
        return state if stored is not None and stored[0] == state.head else None

    def _head(self, game_id: bytes, head: store_games.Head, ruleset: AnyRuleset) -> AnyState:
        cached = self._heads.get(game_id)
        if cached is not None and cached[0] == head.packet_id:
            return cached[1]
        deferred = None if self.store.deferred is None else self.store.deferred.get(game_id)
        if deferred is not None and deferred.packet_id == head.packet_id:  # a batch writes it
            state: AnyState = deferred.state
            self.remember_head(game_id, head.packet_id, state)
            return state
        kept = store_games.head_snapshot(self.store, game_id)
        found = None if kept is None else checked_state(kept, ruleset.state_type)
        if found is None:  # rebuilt from the packets, and kept again
            what = "missing" if kept is None else "damaged"
            found = self._replayed(game_id, ruleset, [head.seq], {head.seq: what})[head.seq]
        self.remember_head(game_id, head.packet_id, found)
        return found

    def remember_head(self, game_id: bytes, head_id: bytes, state: AnyState) -> None:
        """Cache a head state just stored or read (keyed by its packet id, so never stale).

        The head it replaces is kept as a past head (`PAST_HEADS` per game): the packets
        that arrived since are what a player reviews next, and the state before the first
        of them is that past head, so their records replay from it, not from a snapshot up
        to `saves.ledger.SNAPSHOT_EVERY` packets back."""
        cached = self._heads.get(game_id)
        if cached is not None and cached[0] != head_id:
            past = self._past.setdefault(game_id, [])
            past.append(cached[1])
            del past[:-PAST_HEADS]
        self._heads[game_id] = (head_id, state)

    def pending(self, game_id: bytes) -> list[Decision]:
        return pending(self.ruleset(game_id), self.state(game_id))

    # --- the log -------------------------------------------------------------------------------

    def packets(self, game_id: bytes) -> list[tuple[int, bytes]]:
        """Every stored packet of a game in chain order, as ``(seq, bytes)``."""
        return store_games.packets_between(self.store, game_id)

    def packet_heads(self, game_id: bytes) -> list[tuple[int, str, str]]:
        """Who wrote each stored packet and its kind, as ``(seq, seat, kind)`` in chain
        order, from what was kept when it was verified (no signature is checked again)."""
        return store_games.packet_heads(self.store, game_id)

    def events(self, game_id: bytes, upto: int | None = None) -> list[tuple[int, Event]]:
        """The kept events of the game's packets up to ``upto`` (all when None), in order. A
        packet's events that no longer decode, or are not those the digest kept with the
        packet names (changed or lost on disk, `ledger.events_digest`), are made again from
        the packets (`_events_rebuilt`): they are only what the engine said when it applied
        them."""
        rows = store_games.events_upto(self.store, game_id, upto)
        digests = store_games.events_digests(self.store, game_id, upto)
        unlike = ledger.unlike_their_digests(rows, digests)
        if not unlike:
            try:
                return [(seq, ledger.EVENT_DECODER.decode(data)) for seq, data in rows]
            except msgspec.DecodeError:
                pass
        by_packet: dict[int, list[Event]] = {seq: [] for seq in unlike}
        damaged = set(unlike)
        for seq, data in rows:
            if seq in damaged:
                continue
            try:
                by_packet.setdefault(seq, []).append(ledger.EVENT_DECODER.decode(data))
            except msgspec.DecodeError:
                damaged.add(seq)
        for seq in sorted(damaged):
            # (a filled packet's are made for the first time: its loss was reported then)
            damage = digests.get(seq) != ledger.EVENTS_TO_MAKE
            by_packet[seq] = self._events_rebuilt(game_id, seq, damage)
        return [(seq, event) for seq in sorted(by_packet) for event in by_packet[seq]]

    def _events_rebuilt(self, game_id: bytes, seq: int, damage: bool = True) -> list[Event]:
        """The events of packet ``seq``, made again by applying it to the state before it
        (which checks its state hash), and kept again in place of those kept (``damage``:
        and the player told they were damaged)."""
        ruleset = self.ruleset(game_id)
        before = None if seq == 0 else self.states(game_id, [seq - 1])[seq - 1]
        rows = store_games.packets_between(self.store, game_id, seq, seq)
        if not rows:
            raise HexpostError(f"packet {seq} of game {game_id.hex()} is not stored")
        result = apply_packet(ruleset, before, self._kept(seq, rows[0][1], before))
        encoded = [ledger.EVENT_ENCODER.encode(event) for event in result.events]
        with self.store.transaction():
            store_games.replace_events(
                self.store, game_id, seq, encoded, ledger.events_digest(encoded)
            )
        if damage:
            self.note_repair(game_id, f"the kept events of packet {seq} were damaged; rebuilt them")
        return [ledger.EVENT_DECODER.decode(data) for data in encoded]

    # --- who this home is ----------------------------------------------------------------------

    def me(self) -> Identity:
        """This home's identity, or why there is none."""
        if self.identity is None:
            raise HexpostError("this home has no identity yet: run `hexpost identity create`")
        return self.identity

    def signing_key(self) -> Ed25519PrivateKey:
        """The unlocked identity key, or why it is not at hand."""
        key = self.me().key
        if key is None:
            raise HexpostError("signing needs the identity key (its passphrase was not given)")
        return key
