"""The outbox as a send queue: backoff, forced and due attempts, Message-IDs for threading,
copies of one email, the schema upgrade of an older home, and readable subjects/summaries."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Container
from pathlib import Path

import msgspec
import pytest

from engine.core.owed import pending
from engine.fe import RULESET
from mail.loopback import LoopbackNetwork, LoopbackTransport
from mail.sync import pull, push
from mail.transport import FetchResult, IncomingPacket, OutgoingPacket, TransportError
from saves import inbox, outbox
from saves.store import SCHEMA_VERSION, Store
from saves.subject import Subject, format_subject
from tests.saves.conftest import Player, create_game, exchange, now, owner, start_game

T0 = "2030-06-01T10:00:00Z"


def at(minutes: float) -> str:
    """A stamp ``minutes`` after `T0`."""
    seconds = round(minutes * 60)
    return f"2030-06-01T{10 + seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}Z"


def clock(stamp: str) -> object:
    return lambda: stamp


class Refused(TransportError):
    def __init__(self, message: str, *, retryable: bool) -> None:
        super().__init__(message)
        self.retryable = retryable


class Recording:
    """A transport that fails ``failures`` times, then delivers; keeps every attempt's packet
    and returns a Message-ID per delivery, like mail."""

    def __init__(self, name: str = "recording", failures: int = 0, retryable: bool = True) -> None:
        self.name = name
        self.failures = failures
        self.retryable = retryable
        self.attempts: list[OutgoingPacket] = []
        self.delivered: list[str] = []

    async def send(self, packet: OutgoingPacket) -> str:
        self.attempts.append(packet)
        if self.failures > 0:
            self.failures -= 1
            raise Refused("connection refused", retryable=self.retryable)
        message_id = f"<sent.{len(self.delivered)}@example.org>"
        self.delivered.append(message_id)
        return message_id

    async def fetch(self, cursor: str, seen: Container[str]) -> FetchResult:
        return FetchResult([], cursor)

    async def close(self) -> None:
        pass


class Mailish:
    """The loopback network with a Message-ID per message, as mail would give."""

    def __init__(self, network: LoopbackNetwork, name: str) -> None:
        self.inner = LoopbackTransport(network, name)
        self.name = name
        self.sent: list[OutgoingPacket] = []

    async def send(self, packet: OutgoingPacket) -> str:
        await self.inner.send(packet)
        self.sent.append(packet)
        return f"<m{self.inner.network.messages[-1].ref}@example.org>"

    async def fetch(self, cursor: str, seen: Container[str]) -> FetchResult:
        found = await self.inner.fetch(cursor, seen)
        packets = [
            msgspec.structs.replace(p, message_id=f"<m{p.ref}@example.org>") for p in found.packets
        ]
        return FetchResult(packets, found.cursor)

    async def close(self) -> None:
        pass


class Copies:
    """A transport that hands out prepared items (several decoded copies of one email)."""

    name = "copies"

    def __init__(self, items: list[IncomingPacket]) -> None:
        self.items = items

    async def send(self, packet: OutgoingPacket) -> str:
        return ""

    async def fetch(self, cursor: str, seen: Container[str]) -> FetchResult:
        return FetchResult([i for i in self.items if i.ref not in seen], "")

    async def close(self) -> None:
        pass


def flipped(data: bytes, index: int = 40) -> bytes:
    """``data`` with one byte changed (by default inside the signature)."""
    changed = bytearray(data)
    changed[index] ^= 0x01
    return bytes(changed)


def push_at(player: Player, transport: object, stamp: str, *, force: bool) -> list[int]:
    sent, _, _ = asyncio.run(push(player.replica, transport, clock(stamp), force=force))  # type: ignore[arg-type]
    return sent


def only_entry(player: Player) -> outbox.OutboxEntry:
    (entry,) = outbox.unsent(player.replica.store)
    return entry


# --- backoff ---------------------------------------------------------------------------------


def test_backoff_doubles_from_one_minute_up_to_an_hour() -> None:
    assert [outbox.backoff_minutes(n) for n in range(1, 10)] == [1, 2, 4, 8, 16, 32, 60, 60, 60]
    assert outbox.backoff_minutes(1, retryable=False) == 60
    assert outbox.backoff_minutes(500) == 60


def test_each_failure_is_recorded_with_its_next_attempt_and_the_same_bytes(alice: Player) -> None:
    create_game(alice)
    transport = Recording(failures=3)
    for minute, wait in ((0, 1), (1, 2), (3, 4)):
        assert push_at(alice, transport, at(minute), force=True) == []
        entry = only_entry(alice)
        assert entry.last_error == "connection refused"
        assert entry.next_attempt == at(minute + wait)
    entry = only_entry(alice)
    assert entry.attempts == 3
    assert entry.last_attempt == at(3)
    line = outbox.waiting_text(entry)
    assert line == (
        "packet 0 not sent yet: 3 attempts, last error: connection refused; next try 10:07"
    )

    assert push_at(alice, transport, at(7), force=True) == [0]
    assert outbox.unsent(alice.replica.store) == []
    assert outbox.waiting(alice.replica.store) == []
    assert len({p.data for p in transport.attempts}) == 1, "every attempt sends the same bytes"
    assert transport.attempts[0].data == entry.data
    row = alice.replica.store.one("SELECT attempts, next_attempt, last_error FROM outbox")
    assert row == (4, None, None)


def test_the_watch_loop_waits_out_the_backoff_but_a_manual_sync_does_not(alice: Player) -> None:
    create_game(alice)
    transport = Recording(failures=5)
    push_at(alice, transport, at(0), force=True)
    assert len(transport.attempts) == 1

    assert push_at(alice, transport, at(0.5), force=False) == []
    assert len(transport.attempts) == 1, "not due yet: skipped without an attempt"
    assert only_entry(alice).attempts == 1

    push_at(alice, transport, at(0.5), force=True)
    assert len(transport.attempts) == 2, "a manual sync tries everything"
    assert only_entry(alice).next_attempt == at(2.5)

    push_at(alice, transport, at(2.5), force=False)
    assert len(transport.attempts) == 3, "due again once the backoff is over"


def test_a_permanent_error_backs_off_an_hour_at_once(alice: Player) -> None:
    create_game(alice)
    transport = Recording(failures=1, retryable=False)
    push_at(alice, transport, at(0), force=True)
    assert only_entry(alice).next_attempt == at(60)
    assert push_at(alice, transport, at(59), force=False) == []
    assert push_at(alice, transport, at(60), force=False) == [0]


def test_an_unreadable_stamp_never_blocks_a_packet(alice: Player) -> None:
    create_game(alice)
    with alice.replica.store.transaction() as db:
        db.execute("UPDATE outbox SET next_attempt = 'soon', attempts = 1")
    assert outbox.due(only_entry(alice), at(0))
    assert "next try soon" in outbox.waiting_text(only_entry(alice))
    assert push_at(alice, Recording(), at(0), force=False) == [0]


# --- what a transport is given -----------------------------------------------------------


def test_outgoing_packets_carry_summary_sender_automatic_and_the_sent_message_id(
    alice: Player,
) -> None:
    game = create_game(alice)
    transport = Recording()
    push_at(alice, transport, at(0), force=True)
    (packet,) = transport.attempts
    assert packet.sender == "alice@example.org"
    assert packet.to == ("bob@example.org",)
    assert packet.automatic is False
    assert packet.references == ()
    assert packet.subject == "[hexpost] wind coalition: invitation (packet 0)"
    assert packet.summary[0] == (
        f"Alice <alice@example.org> invites you to play the-wind (fe {RULESET.version}) as "
        "alliance."
    )
    assert any(line.startswith("Their key's fingerprint: ") for line in packet.summary)
    assert "`hexpost accept wind`" in " ".join(packet.summary)
    assert "spam folder? Mark it as not spam, or add alice@example.org" in " ".join(packet.summary)
    assert packet.summary[-1] == "coalition created the game (the-wind)"
    assert outbox.references(alice.replica.store, game) == ("<sent.0@example.org>",)


def test_message_ids_of_both_directions_thread_the_game_first_and_latest(
    alice: Player, bob: Player, network: LoopbackNetwork
) -> None:
    alice.transport = Mailish(network, "mail:alice")  # type: ignore[assignment]
    bob.transport = Mailish(network, "mail:bob")  # type: ignore[assignment]
    game = start_game(alice, bob)
    players = {"coalition": alice, "alliance": bob}
    for _ in range(5):
        author, other = owner(players, game)
        author.replica.submit(game, [{"type": "done"}], now=now())
        exchange(author, other)
    store = alice.replica.store
    rows = store.all("SELECT seq, message_id FROM mail_ids WHERE game_id = ?", (game,))
    seqs = {seq for seq, _ in rows}
    head = alice.row(game).head_seq
    assert seqs == set(range(head + 1)), "every packet's email, sent or received, is kept"
    bob_seqs = {seq for seq, _ in bob.replica.store.all("SELECT seq, message_id FROM mail_ids")}
    assert bob_seqs == seqs

    ordered = [
        str(mid)
        for (mid,) in store.all(
            "SELECT message_id FROM mail_ids WHERE game_id = ? ORDER BY seq, rowid", (game,)
        )
    ]
    assert len(ordered) > outbox.MAX_REFERENCES
    expected = (ordered[0], *ordered[-9:])
    assert outbox.references(store, game) == expected

    author, _ = owner(players, game)
    author.replica.submit(game, [{"type": "done"}], now=now())
    author.sync()
    last = author.transport.sent[-1]  # type: ignore[attr-defined]
    assert last.references == expected
    assert last.references[0] == ordered[0], "the thread's first email always stays"


def test_a_refused_packet_leaves_no_message_id(alice: Player, bob: Player) -> None:
    game = create_game(alice)
    alice.sync()
    (message,) = alice.transport.network.messages
    bad = IncomingPacket("x1", flipped(message.packet.data), message_id="<bad@example.org>")
    asyncio.run(pull(bob.replica, Copies([bad]), now))
    assert bob.count("mail_ids") == 0
    good = IncomingPacket("x2", message.packet.data, message_id="<good@example.org>")
    asyncio.run(pull(bob.replica, Copies([good]), now))
    assert bob.replica.store.all("SELECT game_id, seq, message_id FROM mail_ids") == [
        (game, 0, "<good@example.org>")
    ]


# --- copies of one email -------------------------------------------------------------------


def test_the_first_copy_that_verifies_is_taken_in(alice: Player, bob: Player) -> None:
    game = create_game(alice)
    alice.sync()
    data = alice.transport.network.messages[0].packet.data
    assert inbox.verdict(bob.replica.store, data) == "verified", "checked by the key it carries"
    assert inbox.verdict(bob.replica.store, flipped(data)) != "verified"
    assert inbox.verdict(bob.replica.store, b"not a packet") != "verified"

    item = IncomingPacket(
        "mail-1",
        flipped(data),
        message_id="<inv@example.org>",
        alternatives=(flipped(data, 41), data, flipped(data, 42)),
    )
    (outcome,) = asyncio.run(pull(bob.replica, Copies([item]), now))
    assert outcome.status == "invitation"
    assert bob.packet(game, 0) == data
    assert bob.count("rejected") == 0


def test_when_no_copy_verifies_the_item_is_refused_as_before(alice: Player, bob: Player) -> None:
    create_game(alice)
    alice.sync()
    data = alice.transport.network.messages[0].packet.data
    item = IncomingPacket("mail-1", flipped(data), alternatives=(b"garbage", flipped(data, 41)))
    (outcome,) = asyncio.run(pull(bob.replica, Copies([item]), now))
    assert outcome.status == "rejected"
    assert bob.replica.store.all("SELECT data FROM rejected") == [(flipped(data),)]
    assert "mail-1" in outbox.seen_refs(bob.replica.store, "copies")


def test_a_copy_from_a_signer_not_known_yet_is_parked_rather_than_a_broken_one(
    alice: Player, bob: Player, game: bytes
) -> None:
    carol = Player(
        alice.home.path.parent / "carol", "Carol", "carol@example.org", LoopbackNetwork()
    )
    try:
        data = alice.packet(game, alice.row(game).head_seq)
        assert inbox.pick_copy(carol.replica.store, b"junk", [flipped(data, 50), data]) == flipped(
            data, 50
        )
        assert inbox.pick_copy(carol.replica.store, b"junk", [data]) == data
        assert inbox.pick_copy(carol.replica.store, b"junk", [b"more junk"]) == b"junk"
        assert inbox.verdict(carol.replica.store, data) != "verified", (
            "carol knows no key of this game"
        )
        assert inbox.verdict(alice.replica.store, data) == "verified"
    finally:
        carol.close()


# --- an older home -------------------------------------------------------------------------

OLD_OUTBOX = """
CREATE TABLE outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id BLOB NOT NULL,
    seq INTEGER NOT NULL,
    packet_id BLOB NOT NULL UNIQUE,
    data BLOB NOT NULL,
    recipients TEXT NOT NULL,
    subject TEXT NOT NULL,
    automatic INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    last_attempt TEXT,
    last_error TEXT,
    sent_at TEXT
);
"""


def _make_old(path: Path) -> None:
    """Turn a home's database back into the schema of the previous version (schema 1)."""
    db = sqlite3.connect(path, isolation_level=None)
    db.executescript(
        "BEGIN;"
        "ALTER TABLE outbox RENAME TO outbox_new;"
        + OLD_OUTBOX
        + "INSERT INTO outbox SELECT id, game_id, seq, packet_id, data, recipients, subject, "
        "automatic, created_at, attempts, last_attempt, last_error, sent_at FROM outbox_new;"
        "DROP TABLE outbox_new; DROP TABLE mail_ids;"
        "UPDATE meta SET value = '1' WHERE key = 'schema';"
        "COMMIT;"
    )
    db.close()


def test_an_older_home_is_upgraded_in_place_and_keeps_its_queue(alice: Player, bob: Player) -> None:
    game = create_game(alice)
    path = alice.replica.store.path
    before = alice.replica.store.all("SELECT id, data, subject FROM outbox")
    alice.close()
    _make_old(path)
    old = sqlite3.connect(path)
    columns = {row[1] for row in old.execute("PRAGMA table_info(outbox)")}
    old.close()
    assert "next_attempt" not in columns and "summary" not in columns

    store = Store(path)
    columns = {row[1] for row in store.all("PRAGMA table_info(outbox)")}
    assert {"next_attempt", "summary"} <= columns
    assert store.one("SELECT value FROM meta WHERE key = 'schema'") == (str(SCHEMA_VERSION),)
    for table, column in (("outbox", "resends"), ("parked", "size"), ("rejected", "seq")):
        assert column in {row[1] for row in store.all(f"PRAGMA table_info({table})")}
    assert store.all("SELECT id, data, subject FROM outbox") == before
    (entry,) = outbox.unsent(store)
    assert entry.summary == () and entry.next_attempt is None
    store.close()
    Store(path).close()  # opening an upgraded home again changes nothing

    alice.reopen()
    transport = Recording(failures=1)
    push_at(alice, transport, at(0), force=True)
    assert only_entry(alice).next_attempt == at(1)
    alice.sync()
    bob.sync()
    assert bob.row(game).status == "invited"
    assert outbox.unsent(alice.replica.store) == []


# --- subjects and summaries --------------------------------------------------------------


def test_subject_format_lives_in_saves() -> None:
    assert format_subject(Subject("border", "coalition", "orders 3B2", 24, "T1 Fall Y168")) == (
        "[hexpost] border T1 Fall Y168 coalition: orders 3B2 (packet 24)"
    )


def _subjects(player: Player, game: bytes) -> dict[int, tuple[str, tuple[str, ...]]]:
    rows = player.replica.store.all(
        "SELECT seq, subject, summary FROM outbox WHERE game_id = ? ORDER BY seq", (game,)
    )
    return {
        int(seq): (str(subject), tuple(str(summary).split("\n"))) for seq, subject, summary in rows
    }


def test_subjects_and_summaries_of_an_fe_game(alice: Player, bob: Player, game: bytes) -> None:
    mine, theirs = _subjects(alice, game), _subjects(bob, game)
    assert mine[0][0] == "[hexpost] wind coalition: invitation (packet 0)"
    assert theirs[1][0] == "[hexpost] wind T1 Fall Y168 alliance: join (packet 1)"
    assert theirs[1][1][0].startswith("Bob <bob@example.org> took the alliance seat")
    assert mine[2][0] == "[hexpost] wind T1 Fall Y168 coalition: orders 0-LYR (packet 2)"
    assert "LYR sets up Red Claw Fleet in 0303 (29 units)" in mine[2][1]

    state = alice.replica.state(game)
    decision = pending(RULESET, state)[0]
    assert decision.seats == ("coalition",)
    sub = alice.replica.submit(
        game,
        [{"type": "done"}, {"type": "roll", "dice": "3d6", "purpose": "survey points 505.21"}],
        now=now(),
    )
    subject, summary = _subjects(alice, game)[sub.seq]
    assert (
        subject
        == f"[hexpost] wind T1 Fall Y168 coalition: orders {decision.step} (packet {sub.seq})"
    )
    assert any("survey points 505.21" in line for line in summary)
    assert summary == tuple(" ".join(e.text.split()) for e in sub.events)[:40]

    alice.sync()
    bob.sync()
    subject, summary = _subjects(bob, game)[sub.seq + 1]
    assert subject == f"[hexpost] wind T1 Fall Y168 alliance: die roll (packet {sub.seq + 1})"
    assert any("survey points 505.21" in line for line in summary), summary
    (entry,) = [
        e
        for e in bob.replica.store.all("SELECT automatic FROM outbox WHERE seq = ?", (sub.seq + 1,))
    ]
    assert entry == (1,)


def test_a_chat_subject_and_its_line(alice: Player, bob: Player, game: bytes) -> None:
    author = (
        alice if pending(RULESET, alice.replica.state(game))[0].seats[0] == "coalition" else bob
    )
    sent = author.replica.chat(game, "Good luck, and may your dice be kind!", now=now())
    subject, summary = _subjects(author, game)[sent.seq]
    seat = author.row(game).my_seat
    assert subject == f"[hexpost] wind T1 Fall Y168 {seat}: chat (packet {sent.seq})"
    assert summary == ("Good luck, and may your dice be kind!",)


def test_a_long_summary_is_cut_at_forty_lines() -> None:
    from engine.core.game import Result
    from engine.core.ruleset import Event
    from saves.ledger import MAX_SUMMARY_LINES, packet_summary

    events = [Event("step-done", f"line {i}") for i in range(100)]
    lines = packet_summary(Result(state=None, state_hash=b"", events=events))  # type: ignore[arg-type]
    assert len(lines) == MAX_SUMMARY_LINES == 40
    assert lines[-1] == "... 61 more"
    assert lines[0] == "line 0"


@pytest.mark.parametrize("stamp", ["2030-01-01T00:00:01.000000001Z", "2030-01-01T00:00:01Z"])
def test_stamps_of_both_clocks_are_read(stamp: str) -> None:
    when = outbox.parse_time(stamp)
    assert when is not None and when.second == 1
