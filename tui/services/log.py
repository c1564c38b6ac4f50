"""A game's log: one record per packet (and per late claim and chat message), its events as rows.

`log_records` is what ``hexpost log --json`` prints, and `log_heads` the same records in
short, which the review indexes; `event_rows` is the same events as the app's log widget takes
them.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from engine.core.chats import chat_id, read_chat
from engine.core.errors import PacketError
from engine.core.packets import kept_body, kind_word
from engine.core.ruleset import Event
from saves import chat_messages, claims, holes
from saves.replica import GameRow, Replica

EventRow = tuple[int, str, str, str]
"""One line of a game's log as the app shows it: (packet seq, seat, kind, text)."""


class LogRecord(msgspec.Struct, frozen=True):
    """One packet of the chain (or a late claim, kind ``claim``, after the packet it waits
    at): who wrote it, when they say, its size, and the events it caused."""

    seq: int
    seat: str
    kind: str
    packet: str
    written_at: str
    bytes: int
    events: tuple[str, ...]


def _damaged(row: GameRow, seq: int, data: bytes, exc: PacketError) -> LogRecord:
    """The log's record of a stored packet that no longer decodes: its position and size,
    and what is wrong."""
    return LogRecord(
        seq=seq,
        seat="?",
        kind="damaged",
        packet="",
        written_at="",
        bytes=len(data),
        events=(
            f"stored packet {seq} no longer decodes ({exc.message}): "
            f"`hexpost verify {row.name}` checks the whole game",
        ),
    )


def _lost(row: GameRow, seq: int, first: int, last: int) -> LogRecord:
    """The log's record of a position whose stored packet was lost (`saves.holes`), one of
    ``first`` to ``last``, which the advice asks for together."""
    return LogRecord(
        seq=seq,
        seat="?",
        kind="lost",
        packet="",
        written_at="",
        bytes=0,
        events=(
            f"packet {seq} is not in this home's store: {holes.advice(row.name, first, last)}",
        ),
    )


def log_records(replica: Replica, row: GameRow) -> list[LogRecord]:
    """Every packet of the game, then its late claims and chat messages, as records in chain
    order. The packets are read as the store kept them (`kept_body`): each signature was
    checked when its packet was kept, and a second check of every one was nine tenths of the
    time a long campaign's log took; ``hexpost verify`` checks them all again."""
    events: dict[int, list[str]] = {}
    for seq, event in replica.events(row.game_id):
        events.setdefault(seq, []).append(event.text)
    records: list[LogRecord] = []
    expected = 0
    for seq, data in replica.packets(row.game_id):
        records.extend(  # rows lost since
            _lost(row, lost, expected, seq - 1) for lost in range(expected, seq)
        )
        expected = seq + 1
        try:
            packet_id, body = kept_body(data)
        except PacketError as exc:  # a store damaged since: the log goes on past it
            records.append(_damaged(row, seq, data, exc))
            continue
        records.append(
            LogRecord(
                seq=seq,
                seat=body.seat,
                kind=kind_word(body.kind),
                packet=packet_id.hex(),
                written_at=body.written_at,
                bytes=len(data),
                events=tuple(events.get(seq, [])),
            )
        )
    for claim in claims.claims_of(replica.store, row.game_id):  # after the packet it waits at
        records.append(
            LogRecord(
                seq=claim.body.head_seq,
                seat=claim.body.seat,
                kind="claim",
                packet=claim.claim_id.hex(),
                written_at=claim.body.claimed_at,
                bytes=len(claim.data),
                events=(f"late claim: {claims.claim_text(claim.body)}",),
            )
        )
    for message in chat_messages.messages_of(replica.store, row.game_id):  # beside the chain
        records.append(
            LogRecord(
                seq=message.body.head_seq,
                seat=message.body.seat,
                kind=CHAT_KIND,
                packet=chat_id(read_chat(message.data).body).hex(),
                written_at=message.body.written_at,
                bytes=len(message.data),
                events=(chat_messages.message_text(message.body),),
            )
        )
    return sorted(records, key=lambda record: record.seq)


def last_packets(records: list[LogRecord], count: int) -> list[LogRecord]:
    """The records of the last ``count`` packets of ``records`` (`log_records`), with the
    late claims and chat messages written at them: a campaign's whole log is thousands of
    lines to page through over SSH for the last evening's moves."""
    seqs = sorted({r.seq for r in records if r.kind not in ("claim", CHAT_KIND)})
    first = seqs[-count] if len(seqs) >= count else 0
    return [r for r in records if r.seq >= first]


LogHead = tuple[int, str, str]
"""Where a record of `log_records` stands, who wrote it and its kind: (seq, seat, kind)."""


def log_heads(replica: Replica, row: GameRow) -> list[LogHead]:
    """`log_records`' records as (seq, seat, kind) only, in the same order, read from the
    columns kept when each packet was verified and stored: no packet is opened and no
    signature checked again (the review indexes a chain of thousands of packets with it; a
    second check of every signature was most of the time it took to open)."""
    heads = replica.packet_heads(row.game_id)
    heads.extend(
        (claim.body.head_seq, claim.body.seat, "claim")
        for claim in claims.claims_of(replica.store, row.game_id)
    )
    heads.extend(
        (message.body.head_seq, message.body.seat, CHAT_KIND)
        for message in chat_messages.messages_of(replica.store, row.game_id)
    )
    return sorted(heads, key=lambda head: head[0])


CHAT_KIND = "chat-message"
"""The kind of a chat message's log record and event row: words beside the game's chain
(`saves.chat_messages`), not a packet of it, shown after the last packet its writer had."""


def event_rows(
    replica: Replica, game_id: bytes, events: Sequence[tuple[int, Event]] | None = None
) -> list[EventRow]:
    """Every event of the game, in order, as (seq, seat, kind, text), with the game's chat
    messages after the packet each writer had (those by their writers' clocks); ``events``
    are the game's events if the caller has just read them all."""
    read = replica.events(game_id) if events is None else events
    rows = [(seq, e.seat, e.kind, e.text) for seq, e in read]
    messages = chat_messages.messages_of(replica.store, game_id)
    if not messages:
        return rows
    chats = [
        (m.body.head_seq, m.body.seat, CHAT_KIND, chat_messages.message_text(m.body))
        for m in messages
    ]
    return sorted([*rows, *chats], key=lambda row: row[0])  # stable: events keep their order
