"""This home's replica of every game: read states, write our own packets, take in others'.

`Replica` is where the pure engine meets the disk. A packet we write is stored, with the
state it produces and its outbox entry, in one transaction before any transport sees it, so
after a crash the same bytes are sent again and a signed packet is never made twice (P9).
Received packets go through `saves.inbox` in one transaction each.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import msgspec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from engine.core import author, entropy
from engine.core.errors import GameFrozen, HexpostError
from engine.core.game import AnyRuleset, AnyState, Result, apply_packet, pending
from engine.core.packets import (
    PROTOCOL_VERSION,
    Body,
    Chat,
    EntropyOnly,
    Genesis,
    Join,
    Kind,
    Resign,
    SeatBinding,
    Turn,
    VerifiedPacket,
    key_id,
    open_packet,
)
from engine.core.ruleset import Decision, DecisionKind, Event, OptionValue, Seat
from engine.core.state import decode_state
from engine.rulesets import ruleset_for
from saves import inbox, joins, ledger, vault
from saves.chat import chat_line, check_chat_turn
from saves.outcome import Hint, Outcome
from saves.secrets import add_commit, owed_reveals
from saves.store import Store


class Identity(msgspec.Struct, frozen=True):
    """Who this home plays as. ``key`` is None when only the public part is loaded."""

    name: str
    address: str
    public_key: bytes
    key: Ed25519PrivateKey | None = None


class GameRow(msgspec.Struct, frozen=True):
    """One game as listed by `Replica.games`."""

    game_id: bytes
    name: str
    ruleset: str
    scenario: str
    my_seat: str
    status: str
    frozen: str | None
    head_seq: int
    state_hash: bytes
    created_at: str
    updated_at: str
    waiting_since: str
    unread: int


class Submitted(msgspec.Struct, frozen=True):
    """The outcome of writing orders: the packet id (None for a dry run) and its events."""

    seq: int
    state_hash: bytes
    events: list[Event]
    packet_id: bytes | None = None
    state: AnyState | None = None
    """For a dry run, the state the packet would produce (what a what-if view draws)."""


_GAME_COLUMNS = (
    "game_id, name, ruleset, scenario, my_seat, status, frozen, head_seq, state_hash, "
    "created_at, updated_at, waiting_since, unread"
)


def lookup_in(state: AnyState | None) -> Any:
    """A key lookup for `open_packet` that knows the keys bound in ``state``."""
    keys = (
        {}
        if state is None
        else {key_id(s.public_key): s.public_key for s in state.core.seats if s.joined}
    )
    return lambda kid: [keys[kid]] if kid in keys else []


class Replica:
    """Every game of one home, backed by its `Store`."""

    def __init__(self, store: Store, identity: Identity | None = None) -> None:
        self.store = store
        self.identity = identity
        self._chains: dict[tuple[bytes, str], entropy.EntropyChain] = {}
        self._heads: dict[bytes, tuple[bytes, AnyState]] = {}

    # --- reading -------------------------------------------------------------------------

    def games(self) -> list[GameRow]:
        rows = self.store.all(f"SELECT {_GAME_COLUMNS} FROM games ORDER BY created_at, game_id")
        return [GameRow(*row) for row in rows]

    def game(self, game_id: bytes) -> GameRow:
        row = self.store.one(f"SELECT {_GAME_COLUMNS} FROM games WHERE game_id = ?", (game_id,))
        if row is None:
            raise HexpostError(f"no game {game_id.hex()} in this home")
        return GameRow(*row)

    def find(self, name: str) -> GameRow:
        """A game by its exact name, its id, or any unique prefix of its id."""
        wanted = name.lower()
        rows = self.games()
        exact = [row for row in rows if name in (row.name, row.game_id.hex())]
        matches = exact or [row for row in rows if row.game_id.hex().startswith(wanted)]
        if not matches:
            raise HexpostError(f"no game matches {name!r} (see `hexpost games`)")
        if len(matches) > 1:
            ids = ", ".join(row.game_id.hex()[:8] for row in matches)
            raise HexpostError(f"{name!r} matches several games ({ids}): give more of the id")
        return matches[0]

    def ruleset(self, game_id: bytes) -> AnyRuleset:
        return ruleset_for(self.game(game_id).ruleset)

    def state(self, game_id: bytes, at: int | None = None) -> AnyState:
        """The game's state after packet ``at`` (default: the head)."""
        row = self.store.one(
            "SELECT head_seq, head_id, ruleset FROM games WHERE game_id = ?", (game_id,)
        )
        if row is None:
            raise HexpostError(f"no game {game_id.hex()} in this home")
        head_seq, head_id = int(row[0]), bytes(row[1])
        ruleset = ruleset_for(str(row[2]))
        if at is None or at >= head_seq:
            return self._head(game_id, head_id, ruleset)
        if at < 0:
            raise HexpostError("--at needs a packet number of 0 or more")
        snap = self.store.one(
            "SELECT seq, state FROM snapshots WHERE game_id = ? AND seq <= ? "
            "ORDER BY seq DESC LIMIT 1",
            (game_id, at),
        )
        state: AnyState | None = None
        start = 0
        if snap is not None:
            state = decode_state(bytes(snap[1]), ruleset.state_type)
            start = int(snap[0]) + 1
        for _, data in self._packet_rows(game_id, start, at):
            state = apply_packet(ruleset, state, open_packet(data, lookup_in(state))).state
        assert state is not None
        return state

    def _head(self, game_id: bytes, head_id: bytes, ruleset: AnyRuleset) -> AnyState:
        cached = self._heads.get(game_id)
        if cached is not None and cached[0] == head_id:
            return cached[1]
        snap = self.store.one(
            "SELECT s.state FROM snapshots s JOIN games g ON g.game_id = s.game_id "
            "AND g.head_seq = s.seq WHERE s.game_id = ?",
            (game_id,),
        )
        if snap is None:
            raise HexpostError(f"game {game_id.hex()} has no snapshot at its head")
        state = decode_state(bytes(snap[0]), ruleset.state_type)
        self._heads[game_id] = (head_id, state)
        return state

    def remember_head(self, game_id: bytes, head_id: bytes, state: AnyState) -> None:
        """Cache a head state just stored (keyed by its packet id, so never stale)."""
        self._heads[game_id] = (head_id, state)

    def _packet_rows(self, game_id: bytes, start: int, end: int | None) -> list[tuple[int, bytes]]:
        last = end if end is not None else 1 << 62
        rows = self.store.all(
            "SELECT seq, data FROM packets WHERE game_id = ? AND seq BETWEEN ? AND ? ORDER BY seq",
            (game_id, start, last),
        )
        return [(int(seq), bytes(data)) for seq, data in rows]

    def packets(self, game_id: bytes) -> list[tuple[int, bytes]]:
        """Every stored packet of a game in chain order, as ``(seq, bytes)``."""
        return self._packet_rows(game_id, 0, None)

    def events(self, game_id: bytes, upto: int | None = None) -> list[tuple[int, Event]]:
        last = upto if upto is not None else 1 << 62
        rows = self.store.all(
            "SELECT seq, event FROM events WHERE game_id = ? AND seq <= ? ORDER BY seq, idx",
            (game_id, last),
        )
        return [(int(seq), ledger.EVENT_DECODER.decode(data)) for seq, data in rows]

    def pending(self, game_id: bytes) -> list[Decision]:
        return pending(self.ruleset(game_id), self.state(game_id))

    def verify(self, game_id: bytes) -> bytes:
        """Replay the whole chain from genesis (`saves.replay.verify`); the final state hash."""
        from saves import replay

        return replay.verify(self, game_id)

    # --- receiving -----------------------------------------------------------------------

    def receive(
        self,
        data: bytes,
        *,
        source: str,
        now: str,
        ref: tuple[str, str] | None = None,
        message_id: str = "",
        hint: Hint = (None, None),
    ) -> Outcome:
        """Take in one item in one transaction; ``ref`` (transport, ref) is marked read with it.

        Every item is marked read, whatever became of it: a transport offers an item again
        only when its ref changes (a folder file's size or time), so a stranger's garbage is
        looked at once. Whatever taking an item in raises is recorded against that item (in a
        transaction of its own, after the first rolled back), so one item never stops the
        items after it. The email's ``message_id``, when given, is kept with the packet's game
        (for threading the game's next emails) unless the item was refused or is not ours.
        ``hint`` is the transport's unverified idea of the item's game and position.
        """
        return inbox.take(self, data, source, now, ref, message_id, hint)

    # --- writing our own packets ---------------------------------------------------------

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

    def _chain(self, game_id: bytes, seat: Seat) -> entropy.EntropyChain:
        cached = self._chains.get((game_id, seat))
        if cached is None:
            key = self.me().key
            if key is not None:
                vault.seal_plain_rows(self.store, key)  # rows an older version kept plain
            kept = vault.read_seed(self.store, key, game_id, seat)
            if kept is None:
                raise HexpostError(f"this home holds no entropy seed for seat {seat}")
            cached = entropy.EntropyChain.restore(*kept)
            self._chains[(game_id, seat)] = cached
        return cached

    def _keep_seed(
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

    def sign_and_store(
        self,
        ruleset: AnyRuleset,
        state: AnyState | None,
        body: Body,
        *,
        automatic: bool,
        now: str,
        extra: Callable[[], None] | None = None,
    ) -> tuple[VerifiedPacket, Result]:
        """Sign ``body`` and store it with its state and outbox entry, in one transaction.

        If another process moved the game on meanwhile (a sync in another window), the new
        packet is dropped unsent: it was never stored, so it can never contradict the chain.
        """
        packet, result = author.write(ruleset, state, body, self.signing_key())
        with self.store.transaction():
            head = self.store.one("SELECT head_id FROM games WHERE game_id = ?", (body.game_id,))
            expected = bytes(32) if state is None else state.head
            if head is not None and bytes(head[0]) != expected:
                raise HexpostError("the game moved on while this packet was written: try again")
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

    def create(
        self,
        ruleset: AnyRuleset,
        scenario_id: str,
        my_seat: Seat,
        opponent_address: str,
        *,
        opponent_seat: Seat | None = None,
        name: str = "",
        options: Mapping[str, OptionValue] | None = None,
        reply_window_hours: int = 72,
        now: str,
        chain_length: int = entropy.DEFAULT_CHAIN_LENGTH,
    ) -> bytes:
        """Start a game as its creator; returns the new game id."""
        me = self.me()
        scenario = next((s for s in ruleset.scenarios() if s.id == scenario_id), None)
        if scenario is None:
            known = ", ".join(s.id for s in ruleset.scenarios())
            raise HexpostError(f"no scenario {scenario_id!r} (known: {known})")
        seats = [spec.seat for spec in scenario.seats]
        if my_seat not in seats:
            raise HexpostError(
                f"scenario {scenario_id} has no seat {my_seat!r} (seats: {', '.join(seats)})"
            )
        others = [seat for seat in seats if seat != my_seat]
        opponent_seat = opponent_seat or others[0]
        if opponent_seat not in others or len(others) != 1:
            raise HexpostError(f"the opponent's seat must be one of: {', '.join(others)}")
        if "@" not in opponent_address:
            raise HexpostError(f"--opponent {opponent_address!r} is not an email address")
        chosen = _options(scenario_id, {o.id: o.default for o in scenario.options}, options or {})
        game_id, seed = os.urandom(16), os.urandom(32)
        chain = entropy.EntropyChain(seed, chain_length)
        self._chains[(game_id, my_seat)] = chain
        genesis = Genesis(
            protocol=PROTOCOL_VERSION,
            ruleset_id=ruleset.id,
            ruleset_version=ruleset.version,
            scenario_id=scenario_id,
            scenario_hash=scenario.data_hash,
            options=sorted(chosen.items()),
            seats=[
                SeatBinding(my_seat, me.name, me.address, me.public_key)
                if seat == my_seat
                else SeatBinding(seat, "", opponent_address)
                for seat in seats
            ],
            creator=my_seat,
            anchor=chain.anchor,
            reply_window_hours=reply_window_hours,
            name=name or f"{scenario_id}-{game_id.hex()[:6]}",
        )
        body = author.new_body(
            ruleset,
            None,
            game_id=game_id,
            seat=my_seat,
            kind=genesis,
            entropy_value=chain.value(1),
            written_at=now,
        )

        def setup() -> None:
            ledger.insert_game(
                self.store,
                game_id,
                name=genesis.name,
                ruleset=ruleset.id,
                scenario=scenario_id,
                my_seat=my_seat,
                status="active",
                now=now,
            )
            self._keep_seed(game_id, my_seat, seed, chain)

        self.sign_and_store(ruleset, None, body, automatic=False, now=now, extra=setup)
        return game_id

    def accept(
        self, game_id: bytes, *, now: str, chain_length: int = entropy.DEFAULT_CHAIN_LENGTH
    ) -> None:
        """Join a game we were invited to: binds our key and entropy anchor (P10, P6)."""
        me = self.me()
        row = self.game(game_id)
        if row.status != "invited":
            raise HexpostError(f"game {row.name} is not an open invitation (it is {row.status})")
        ruleset = ruleset_for(row.ruleset)
        state = self.state(game_id)
        seed = os.urandom(32)
        chain = entropy.EntropyChain(seed, chain_length)
        self._chains[(game_id, row.my_seat)] = chain
        kind = Join(state.genesis_id, me.name, me.address, me.public_key, chain.anchor)
        body = author.new_body(
            ruleset,
            state,
            game_id=game_id,
            seat=row.my_seat,
            kind=kind,
            entropy_value=chain.value(1),
            written_at=now,
        )

        def setup() -> None:
            self._keep_seed(game_id, row.my_seat, seed, chain)
            self.store.db.execute(
                "UPDATE games SET status = 'active' WHERE game_id = ?", (game_id,)
            )

        self.sign_and_store(ruleset, state, body, automatic=False, now=now, extra=setup)

    def submit(
        self, game_id: bytes, items: Sequence[Mapping[str, Any]], *, now: str, dry_run: bool = False
    ) -> Submitted:
        """Check a player's orders against the engine and, unless ``dry_run``, sign and queue them.

        ``items`` are orders as read from JSON/TOML. ``{"type": "secret", "choice": ...}``
        becomes a commitment (the choice stays in this home until it is revealed); a reveal
        this seat owes is added automatically.
        """
        row = self.game(game_id)
        if row.frozen:
            raise GameFrozen(f"game {row.name} is frozen: {row.frozen}")
        if row.status != "active":
            raise HexpostError(f"game {row.name} is an invitation: `hexpost accept` it first")
        ruleset = ruleset_for(row.ruleset)
        state = self.state(game_id)
        seat = row.my_seat
        if not dry_run:
            joins.check(self, row, ruleset, state)
        secret_at = [i for i, item in enumerate(items) if item.get("type") == "secret"]
        if len(secret_at) > 1:
            raise HexpostError(f"order {secret_at[1] + 1}: a packet may carry one secret choice")
        if secret_at and secret_at[0] != len(items) - 1:
            raise HexpostError(f"order {secret_at[0] + 1}: a secret choice must be the last order")
        orders = ruleset.parse_orders([item for item in items if item.get("type") != "secret"])
        reveals = owed_reveals(self.store, game_id, ruleset, state, seat, self.me().key)
        if not items:
            owed = pending(ruleset, state)
            if (
                not owed
                or owed[0].seats[0] != seat
                or owed[0].kind
                in (
                    DecisionKind.ORDERS,
                    DecisionKind.SECRET,
                )
            ):
                raise HexpostError("no orders given: the orders list is empty")
        kind: Kind = (
            Turn(ruleset.encode_orders(orders))
            if (orders or reveals or secret_at)
            else EntropyOnly()
        )
        try:
            value = self.next_value(game_id, state, seat)
        except vault.VaultLocked:
            if not dry_run:
                raise
            state, value = vault.draft_stand_in(state, seat)  # a dry run without the key
        body = author.new_body(
            ruleset,
            state,
            game_id=game_id,
            seat=seat,
            kind=kind,
            entropy_value=value,
            reveals=reveals,
            written_at=now,
        )
        public = self.me().public_key
        result = author.draft(ruleset, state, body, public)
        held = None
        if secret_at:
            body, held = add_commit(ruleset, result.state, seat, items[-1], body, len(items))
            result = author.draft(ruleset, state, body, public)
        if dry_run:
            return Submitted(body.seq, result.state_hash, result.events, state=result.state)

        def keep_secret() -> None:
            if held is not None:
                vault.write_secret(
                    self.store, self.signing_key(), game_id, held.key, seat, held.salt, held.choice
                )

        packet, result = self.sign_and_store(
            ruleset, state, body, automatic=False, now=now, extra=keep_secret
        )
        return Submitted(body.seq, result.state_hash, result.events, packet.packet_id)

    def chat(self, game_id: bytes, text: str, *, now: str) -> Submitted:
        """Sign and queue a `Chat` packet: a line to the other players, kept in the log.

        Only on this seat's move and never while a roll waits for our entropy (`saves.chat`
        says why); the same decision is owed after it. Nothing is stored when refused.
        """
        return self.sign_kind(game_id, Chat(chat_line(text)), now=now)

    def sign_kind(self, game_id: bytes, kind: Chat | Resign, *, now: str) -> Submitted:
        """Sign and queue a packet without orders (a chat line, a resignation) on our move.

        A resignation may answer a join that waits for acceptance (it declines it, see
        `saves.joins`); anything else first needs the player's acceptance of the joined key.
        """
        row = self.game(game_id)
        ruleset = ruleset_for(row.ruleset)
        state = self.state(game_id)
        owed = pending(ruleset, state)
        check_chat_turn(row.name, row.my_seat, status=row.status, frozen=row.frozen, owed=owed)
        if not isinstance(kind, Resign):
            joins.check(self, row, ruleset, state)
        if self.has_buffered_own(row):
            raise HexpostError(f"game {row.name}: a packet of ours waits to be applied: sync first")
        body = author.new_body(
            ruleset,
            state,
            game_id=game_id,
            seat=row.my_seat,
            kind=kind,
            entropy_value=self.next_value(game_id, state, row.my_seat),
            written_at=now,
        )
        packet, result = self.sign_and_store(ruleset, state, body, automatic=False, now=now)
        return Submitted(body.seq, result.state_hash, result.events, packet.packet_id)

    def auto_replies(self, now: str) -> tuple[list[tuple[bytes, int]], list[str]]:
        """Answer at once what needs no decision (`saves.replies.auto_replies`)."""
        from saves import replies

        return replies.auto_replies(self, now)

    def has_buffered_own(self, row: GameRow) -> bool:
        """Whether a packet we signed earlier waits in the buffer (then we must not sign anew)."""
        found = self.store.one(
            "SELECT 1 FROM buffered WHERE game_id = ? AND seat = ? LIMIT 1",
            (row.game_id, row.my_seat),
        )
        return found is not None

    def mark_read(self, game_id: bytes) -> None:
        with self.store.transaction() as db:
            db.execute("UPDATE games SET unread = 0 WHERE game_id = ?", (game_id,))


def _options(
    scenario_id: str, chosen: dict[str, OptionValue], wanted: Mapping[str, OptionValue]
) -> dict[str, OptionValue]:
    for option, value in wanted.items():
        if option not in chosen:
            raise HexpostError(f"scenario {scenario_id} has no optional rule {option!r}")
        if type(value) is not type(chosen[option]):
            expected = type(chosen[option]).__name__
            raise HexpostError(f"optional rule {option!r} takes a {expected}, not {value!r}")
        chosen[option] = value
    return chosen
