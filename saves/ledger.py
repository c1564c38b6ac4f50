"""Writing a game's log to the store: applied packets, events, snapshots, outbox, evidence.

These functions run inside a transaction opened by their caller, so everything one packet
changes (its row, its events, the new snapshot, the game's head, the outbox entry) commits
together. Nothing here decides anything: the engine already did.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import NamedTuple

import msgspec

from engine.core.errors import VersionError
from engine.core.game import Result
from engine.core.owed import pending
from engine.core.packets import (
    Chat,
    EntropyOnly,
    Genesis,
    Join,
    Resign,
    VerifiedPacket,
    fingerprint,
    key_id,
    kind_name,
)
from engine.core.ruleset import AnyRuleset, DecisionKind, Event
from engine.core.state import AnyState, encode_state
from saves import quarantine, store_evidence, store_games, store_inbox, store_keys, store_outbox
from saves.registry import face_for
from saves.store import Memo, Store
from saves.subject import Subject, format_subject

EMPTY_ORDERS = b"\x90"
"""The msgpack of an empty order list: a `Turn` that carries only reveals or commitments."""

SNAPSHOT_EVERY = 64
"""Keep a snapshot every this many packets (and always the head) for fast `--at` views."""

EVENT_ENCODER = msgspec.msgpack.Encoder()
EVENT_DECODER = msgspec.msgpack.Decoder(Event)
_LIST_ENCODER = msgspec.msgpack.Encoder()


def events_digest(events: list[bytes]) -> bytes:
    """What is kept with a packet of the events it produced (encoded, in order), so that a
    read finds events changed or lost on disk even where they still decode: SHA-256 of the
    list as msgpack (each event's length with its bytes), cut to 16 bytes (damage, not an
    attacker, is what it is for)."""
    return hashlib.sha256(_LIST_ENCODER.encode(events)).digest()[:16]


EVENTS_TO_MAKE = b""
"""The digest kept with a packet stored without its events (a copy that filled a lost
position, `saves.mending`): no events list has it, so the first read makes them again from
the packet (`saves.reading.Reader.events`) and keeps their real digest in its place."""


def unlike_their_digests(rows: list[tuple[int, bytes]], digests: Mapping[int, bytes]) -> list[int]:
    """The positions, of those with a kept digest, whose kept events (``rows``: position and
    encoded event, in order) are not the ones it names, in order."""
    kept: dict[int, list[bytes]] = {seq: [] for seq in digests}
    for seq, data in rows:
        found = kept.get(seq)
        if found is not None:
            found.append(data)
    return sorted(seq for seq, digest in digests.items() if events_digest(kept[seq]) != digest)


class DeferredHead(NamedTuple):
    """A head whose snapshot a batch writes at its end (`Store.deferred`)."""

    seq: int
    packet_id: bytes
    state: AnyState
    state_hash: bytes


@contextmanager
def batch(store: Store) -> Iterator[None]:
    """Run a block as one transaction whose packets' head snapshots are written once, at its
    end, instead of once per packet (a 25 KB state encoded and written, then deleted by the
    next packet). The kept snapshots (every `SNAPSHOT_EVERY` packets) are written as usual.

    Inside the block `saves.reading.Reader` serves a game's head state from `Store.deferred`,
    and the store's modules serve the rows every packet reads (the game's head and row, the
    keys, whether anything is buffered) from `Store.memo`, read once per batch; each game's
    head row is written once too (`Store.moves`, `saves.store_games.settle`), not once per
    packet. `Store.savepoint` rolls the deferred heads and moves back with the rows. Everything
    commits together or not at all: a crash mid-batch leaves the store as it was before it."""
    if store.deferred is not None:  # already in a batch: the outer one writes the snapshots
        yield
        return
    with store.transaction():
        store.deferred = {}
        store.memo = Memo()
        store.moves = {}
        try:
            yield
            store_games.settle(store)  # each game's head row, written once
            store.moves = None
            store.memo = None  # the check below reads the rows themselves
            for game_id, head in store.deferred.items():
                row = store_games.head(store, game_id)
                if row is None or row.seq != head.seq or row.packet_id != head.packet_id:
                    raise AssertionError(f"deferred head of {game_id.hex()} is not the head")
                store_games.insert_snapshot(
                    store, game_id, head.seq, encode_state(head.state), head.state_hash
                )
        finally:
            store.deferred = None
            store.memo = None
            store.moves = None


def store_applied(
    store: Store, packet: VerifiedPacket, result: Result, now: str, *, mine: bool
) -> None:
    """Record a packet the engine applied, with the state and events it produced."""
    body = packet.body
    game_id = body.game_id
    events = [EVENT_ENCODER.encode(event) for event in result.events]
    store_games.insert_packet(
        store,
        game_id,
        body.seq,
        packet.packet_id,
        body.seat,
        kind_name(body.kind),
        packet.data,
        result.state_hash,
        now,
        events_digest(events),
    )
    store_games.insert_events(store, game_id, body.seq, events)
    store_inbox.drop_held_at(store, game_id, body.seq)
    deferred = store.deferred
    if deferred is not None and body.seq % SNAPSHOT_EVERY:
        # In a batch the head's snapshot is written once, at its end (`batch`). The head this
        # packet replaces has a snapshot row only if it is not itself a deferred one.
        if game_id not in deferred:
            store_games.drop_head_snapshot(store, game_id, keep_every=SNAPSHOT_EVERY)
        deferred[game_id] = DeferredHead(
            body.seq, packet.packet_id, result.state, result.state_hash
        )
    else:
        if deferred is not None:
            deferred.pop(game_id, None)
        store_games.move_head_snapshot(
            store,
            game_id,
            body.seq,
            encode_state(result.state),
            result.state_hash,
            keep_every=SNAPSHOT_EVERY,
        )
    if isinstance(body.kind, Genesis | Join):
        for seat in result.state.core.seats:
            if seat.joined:
                store_keys.bind_key(
                    store, game_id, seat.seat, key_id(seat.public_key), seat.public_key
                )
                store_keys.seen_key(
                    store,
                    seat.public_key,
                    fingerprint(seat.public_key),
                    seat.name,
                    seat.address,
                    now,
                )
    store_games.advance_head(
        store,
        game_id,
        body.seq,
        packet.packet_id,
        result.state_hash,
        now,
        unread=0 if mine else 1,
    )


def queue(
    store: Store,
    packet: VerifiedPacket,
    result: Result,
    *,
    before: AnyState | None,
    ruleset: AnyRuleset,
    automatic: bool,
    now: str,
) -> None:
    """Put our own signed packet in the outbox, addressed to every other seat.

    ``before`` is the state the packet was written against (None for a genesis) and
    ``result`` what it produced: the subject and the summary lines say what it does.
    """
    body = packet.body
    state = result.state
    recipients = [s.address for s in state.core.seats if s.seat != body.seat and s.address]
    subject = format_subject(packet_subject(ruleset, before, packet, result))
    summary = packet_summary(result)
    if isinstance(body.kind, Genesis):
        summary = [*invitation_lines(body.kind, packet.public_key), *summary]
    store_outbox.queue(
        store,
        body.game_id,
        body.seq,
        packet.packet_id,
        packet.data,
        recipients="\n".join(recipients),
        subject=subject,
        automatic=automatic,
        now=now,
        summary="\n".join(summary),
    )


MAX_SUMMARY_LINES = 40
"""Summary lines kept for an email's body; the rest become one ``... N more`` line."""


def packet_subject(
    ruleset: AnyRuleset, before: AnyState | None, packet: VerifiedPacket, result: Result
) -> Subject:
    """The subject of a packet's email: game, turn, seat and what the packet does.

    The turn is the one the packet was written in (before it applied: orders that end a turn
    belong to that turn), in the ruleset's own short words (`engine.core.face.Summary`).
    """
    body = packet.body
    game = result.state.core.name
    when = turn_tag(ruleset, before) or turn_tag(ruleset, result.state)
    return Subject(
        game=game,
        seat=body.seat,
        action=packet_action(ruleset, before, packet),
        seq=body.seq,
        when=when,
    )


def packet_action(ruleset: AnyRuleset, before: AnyState | None, packet: VerifiedPacket) -> str:
    """What a packet does, in a few words: ``invitation``, ``join``, ``decline``, ``orders 3B2``,
    ``secret choice 5-3C``, ``die roll``, ``reveal``, ``chat``, ``resign``."""
    body = packet.body
    kind = body.kind
    if isinstance(kind, Genesis):
        return "invitation"
    if isinstance(kind, Join):
        return "decline" if kind.declines else "join"
    if isinstance(kind, Chat):
        return "chat"
    if isinstance(kind, Resign):
        return "resign"
    owed = (
        []
        if before is None
        else [
            d
            for d in pending(ruleset, before)
            if body.seat in d.seats and d.kind != DecisionKind.ACCEPT  # it rides along
        ]
    )
    decision = owed[0] if owed else None
    if isinstance(kind, EntropyOnly):
        if decision is not None and decision.kind == DecisionKind.ENTROPY:
            return "die roll"
        return "entropy"
    no_orders = kind.orders in (b"", EMPTY_ORDERS)
    if no_orders and body.reveals and not body.commits:
        return "reveal"
    step = f" {decision.step}" if decision is not None and decision.step else ""
    if body.commits:
        return f"secret choice{step}"
    if no_orders and decision is not None and decision.kind == DecisionKind.ENTROPY:
        return "die roll"
    return f"orders{step}"


def invitation_lines(genesis: Genesis, public_key: bytes) -> list[str]:
    """What an invitation email says to a person who may not have hexpost yet: who invites
    whom to what, the key's fingerprint to compare, the commands that answer, and what to do
    when a spam filter took it (the first email from a new correspondent often is)."""
    creator = next(b for b in genesis.seats if b.seat == genesis.creator)
    others = [b for b in genesis.seats if b.seat != genesis.creator]
    seats = ", ".join(b.seat for b in others)
    return [
        f"{creator.name or creator.address} <{creator.address}> invites you to play "
        f"{genesis.scenario_id} ({genesis.ruleset_id} {genesis.ruleset_version}) as {seats}.",
        f"Game: {genesis.name}. Reply window: {genesis.reply_window_hours} hours.",
        f"Their key's fingerprint: {fingerprint(public_key)}",
        "Compare it with them by another channel before you accept.",
        "",
        "To answer with hexpost: `hexpost account add` (once), then `hexpost sync`",
        f"(it shows this invitation) and `hexpost accept {genesis.name}`, then `hexpost sync`.",
        f"Found this in your spam folder? Mark it as not spam, or add {creator.address} to",
        "your contacts, so that the game's next emails reach your inbox at once.",
    ]


def packet_summary(result: Result) -> list[str]:
    """What the packet did, in plain language: the texts of the events the engine produced
    (orders, rolls with their purpose, results; a chat packet's line), `MAX_SUMMARY_LINES`
    at most."""
    lines = [" ".join(event.text.split()) for event in result.events if event.text.strip()]
    if len(lines) > MAX_SUMMARY_LINES:
        rest = len(lines) - (MAX_SUMMARY_LINES - 1)
        lines = [*lines[: MAX_SUMMARY_LINES - 1], f"... {rest} more"]
    return lines


def turn_tag(ruleset: AnyRuleset, state: AnyState | None) -> str:
    """The game's short name for the turn ``state`` is in ("" before the start, or when the
    ruleset has no face installed)."""
    if state is None or state.rules is None:
        return ""
    try:
        face = face_for(ruleset.id)
    except VersionError:
        return ""
    return face.summary(state.rules).turn_tag


def freeze(
    store: Store,
    game_id: bytes,
    seq: int,
    kind: str,
    detail: str,
    first: bytes,
    second: bytes | None,
    now: str,
) -> None:
    """Keep the evidence and stop the game (equivocation or desync) until people settle it.

    The same proof delivered again (mail re-sends, a folder re-read) is kept once.
    """
    store_evidence.add_evidence(store, game_id, seq, kind, detail, first, second, now)
    store_games.freeze(store, game_id, f"{kind}: {detail}", now)


def record_rejected(
    store: Store, game_id: bytes | None, source: str, reason: str, data: bytes, now: str
) -> None:
    """Keep a refused item (within the store's byte quota, `saves.quarantine`)."""
    quarantine.reject(store, game_id, source, reason, data, now)


def stored_at(store: Store, game_id: bytes, seq: int) -> tuple[bytes, str] | None:
    """The id and seat of the packet at a chain position, if any."""
    return store_games.packet_at(store, game_id, seq)


def keys_with_id(store: Store, kid: bytes) -> list[bytes]:
    """Public keys bound to a seat of any game in this home under a key id."""
    return store_keys.keys_with_id(store, kid)


def digest(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def other_keys_of(store: Store, address: str, public_key: bytes) -> list[str]:
    """Fingerprints of keys this home saw before for ``address`` other than ``public_key``.

    Trust on first use, as SSH does: a known address that arrives with a new key is worth a
    warning, since it is either a new machine of the same player or someone else.
    """
    return store_keys.other_fingerprints(store, address, public_key)


def signed_by_seat(store: Store, packet: VerifiedPacket) -> bool | None:
    """Whether the packet is signed by the key bound to the seat it claims (None: not bound yet).

    Only then can two packets for one position be evidence against that seat; anyone else's
    packet is a forgery, to be refused, not a reason to freeze the game. A seat whose Join has
    not arrived yet cannot be checked here; applying the packet will check it.
    """
    body = packet.body
    key = store_keys.seat_key(store, body.game_id, body.seat)
    return None if key is None else key == packet.public_key
