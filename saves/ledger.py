"""Writing a game's log to the store: applied packets, events, snapshots, outbox, evidence.

These functions run inside a transaction opened by their caller, so everything one packet
changes (its row, its events, the new snapshot, the game's head, the outbox entry) commits
together. Nothing here decides anything: the engine already did.
"""

from __future__ import annotations

import hashlib
from typing import Any

import msgspec

from engine.core.game import AnyRuleset, AnyState, Result, pending
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
from engine.core.ruleset import DecisionKind, Event
from engine.core.state import encode_state
from saves import quarantine
from saves.store import Store
from saves.subject import Subject, format_subject

EMPTY_ORDERS = b"\x90"
"""The msgpack of an empty order list: a `Turn` that carries only reveals or commitments."""

SNAPSHOT_EVERY = 64
"""Keep a snapshot every this many packets (and always the head) for fast `--at` views."""

EVENT_ENCODER = msgspec.msgpack.Encoder()
EVENT_DECODER = msgspec.msgpack.Decoder(Event)


def insert_game(
    store: Store,
    game_id: bytes,
    *,
    name: str,
    ruleset: str,
    scenario: str,
    my_seat: str,
    status: str,
    now: str,
) -> None:
    """A new game row whose chain is still empty (its genesis is stored next).

    ``unread`` starts at 0: `store_applied` counts every packet from another seat, the
    invitation's genesis included, so an invitation shows one new packet, not two.
    """
    store.db.execute(
        "INSERT INTO games (game_id, name, ruleset, scenario, my_seat, status, head_seq, "
        "head_id, state_hash, created_at, updated_at, waiting_since, unread) "
        "VALUES (?, ?, ?, ?, ?, ?, -1, ?, ?, ?, ?, ?, 0)",
        (
            game_id,
            name,
            ruleset,
            scenario,
            my_seat,
            status,
            bytes(32),
            b"",
            now,
            now,
            now,
        ),
    )


def store_applied(
    store: Store, packet: VerifiedPacket, result: Result, now: str, *, mine: bool
) -> None:
    """Record a packet the engine applied, with the state and events it produced."""
    db = store.db
    body = packet.body
    game_id = body.game_id
    db.execute(
        "INSERT INTO packets (game_id, seq, packet_id, seat, kind, data, state_hash, stored_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            game_id,
            body.seq,
            packet.packet_id,
            body.seat,
            kind_name(body.kind),
            packet.data,
            result.state_hash,
            now,
        ),
    )
    for index, event in enumerate(result.events):
        db.execute(
            "INSERT INTO events (game_id, seq, idx, event) VALUES (?, ?, ?, ?)",
            (game_id, body.seq, index, EVENT_ENCODER.encode(event)),
        )
    row = store.one("SELECT head_seq FROM games WHERE game_id = ?", (game_id,))
    assert row is not None, "store_applied needs the game row first"
    old_head = int(row[0])
    if old_head >= 0 and old_head % SNAPSHOT_EVERY:
        db.execute("DELETE FROM snapshots WHERE game_id = ? AND seq = ?", (game_id, old_head))
    db.execute(
        "INSERT INTO snapshots (game_id, seq, state, state_hash) VALUES (?, ?, ?, ?)",
        (game_id, body.seq, encode_state(result.state), result.state_hash),
    )
    if isinstance(body.kind, Genesis | Join):
        for seat in result.state.core.seats:
            if seat.joined:
                db.execute(
                    "INSERT OR IGNORE INTO game_keys (game_id, seat, key_id, public_key) "
                    "VALUES (?, ?, ?, ?)",
                    (game_id, seat.seat, key_id(seat.public_key), seat.public_key),
                )
                db.execute(
                    "INSERT OR IGNORE INTO known_keys (public_key, fingerprint, name, address, "
                    "first_seen) VALUES (?, ?, ?, ?, ?)",
                    (seat.public_key, fingerprint(seat.public_key), seat.name, seat.address, now),
                )
    db.execute(
        "UPDATE games SET head_seq = ?, head_id = ?, state_hash = ?, updated_at = ?, "
        "waiting_since = ?, unread = unread + ? WHERE game_id = ?",
        (body.seq, packet.packet_id, result.state_hash, now, now, 0 if mine else 1, game_id),
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
    store.db.execute(
        "INSERT OR IGNORE INTO outbox (game_id, seq, packet_id, data, recipients, subject, "
        "automatic, created_at, summary) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            body.game_id,
            body.seq,
            packet.packet_id,
            packet.data,
            "\n".join(recipients),
            subject,
            int(automatic),
            now,
            "\n".join(summary),
        ),
    )


MAX_SUMMARY_LINES = 40
"""Summary lines kept for an email's body; the rest become one ``... N more`` line."""


def packet_subject(
    ruleset: AnyRuleset, before: AnyState | None, packet: VerifiedPacket, result: Result
) -> Subject:
    """The subject of a packet's email: game, turn, seat and what the packet does.

    The turn is the one the packet was written in (before it applied: orders that end a turn
    belong to that turn); a ruleset whose summary has no F&E-style ``turn`` leaves it out.
    """
    body = packet.body
    game = result.state.core.name
    facts = _summary_of(ruleset, before) or _summary_of(ruleset, result.state)
    turn = facts.get("turn")
    number = season = year = None
    if isinstance(turn, dict):
        number, season, year = turn.get("number"), turn.get("season"), turn.get("year")
    return Subject(
        game=game,
        seat=body.seat,
        action=packet_action(ruleset, before, packet),
        seq=body.seq,
        turn=number if isinstance(number, int) else None,
        season=str(season).capitalize() if season else "",
        year=year if isinstance(year, int) else None,
    )


def packet_action(ruleset: AnyRuleset, before: AnyState | None, packet: VerifiedPacket) -> str:
    """What a packet does, in a few words: ``invitation``, ``join``, ``orders 3B2``,
    ``secret choice 5-3C``, ``die roll``, ``reveal``, ``chat``, ``resign``."""
    body = packet.body
    kind = body.kind
    if isinstance(kind, Genesis):
        return "invitation"
    if isinstance(kind, Join):
        return "join"
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
    whom to what, the key's fingerprint to compare, and the commands that answer."""
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


def _summary_of(ruleset: AnyRuleset, state: AnyState | None) -> dict[str, Any]:
    if state is None or state.rules is None:
        return {}
    facts = ruleset.summary(state.rules)
    return facts if isinstance(facts, dict) else {}


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
    known = store.one(
        "SELECT 1 FROM evidence WHERE game_id = ? AND seq = ? AND kind = ? AND "
        "((packet_a = ? AND packet_b IS ?) OR (packet_a = ? AND packet_b = ?))",
        (game_id, seq, kind, first, second, second, first),
    )
    if known is None:
        store.db.execute(
            "INSERT INTO evidence (game_id, seq, kind, detail, packet_a, packet_b, found_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (game_id, seq, kind, detail, first, second, now),
        )
    store.db.execute(
        "UPDATE games SET frozen = COALESCE(frozen, ?), updated_at = ? WHERE game_id = ?",
        (f"{kind}: {detail}", now, game_id),
    )


def record_rejected(
    store: Store, game_id: bytes | None, source: str, reason: str, data: bytes, now: str
) -> None:
    """Keep a refused item (within the store's byte quota, `saves.quarantine`)."""
    quarantine.reject(store, game_id, source, reason, data, now)


def stored_at(store: Store, game_id: bytes, seq: int) -> tuple[bytes, str] | None:
    """The id and seat of the packet at a chain position, if any."""
    row = store.one(
        "SELECT packet_id, seat FROM packets WHERE game_id = ? AND seq = ?", (game_id, seq)
    )
    return None if row is None else (bytes(row[0]), str(row[1]))


def keys_with_id(store: Store, kid: bytes) -> list[bytes]:
    """Public keys bound to a seat of any game in this home under a key id."""
    rows = store.all("SELECT DISTINCT public_key FROM game_keys WHERE key_id = ?", (kid,))
    return [bytes(pk) for (pk,) in rows]


def digest(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def other_keys_of(store: Store, address: str, public_key: bytes) -> list[str]:
    """Fingerprints of keys this home saw before for ``address`` other than ``public_key``.

    Trust on first use, as SSH does: a known address that arrives with a new key is worth a
    warning, since it is either a new machine of the same player or someone else.
    """
    rows = store.all(
        "SELECT fingerprint FROM known_keys WHERE address = ? AND public_key != ? "
        "ORDER BY first_seen",
        (address, public_key),
    )
    return [str(fp) for (fp,) in rows]
