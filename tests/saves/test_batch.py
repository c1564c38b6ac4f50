"""Taking in a fetched batch by one transaction (`Replica.receive_many`, issue 16).

A batch lands whole or not at all: a crash anywhere inside it (an exception that escapes, or
the process killed outright) leaves the store as it was, with none of its items marked read,
so the next sync fetches and takes in the same items. One bad item is refused alone. The head
snapshot is written once, at the batch's end, and the store holds exactly what taking the
items in one by one would have left.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path

import msgspec
import pytest

from mail.sync import pull
from mail.transport import IncomingPacket, TransportError
from saves import inbox, ledger, outbox
from saves.inbox import Received
from saves.store import Store
from tests.saves.conftest import Player, now

CHATS = 70
"""Enough packets to cross a kept snapshot position (`saves.ledger.SNAPSHOT_EVERY`)."""
TRANSPORT = "test:batch"


def items(sender: Player, game_id: bytes, first: int, last: int) -> list[Received]:
    return [
        Received(sender.packet(game_id, seq), f"batch {seq}", (TRANSPORT, f"ref{seq}"))
        for seq in range(first, last + 1)
    ]


@pytest.fixture
def waiting(alice: Player, bob: Player, joined: bytes) -> tuple[bytes, int, list[Received]]:
    """Alice's chat packets that Bob has not taken in yet: (game, Bob's head, the items)."""
    head = bob.row(joined).head_seq
    seqs = [alice.replica.chat(joined, f"line {n}", now=now()).seq for n in range(CHATS)]
    assert seqs[0] == head + 1
    return joined, head, items(alice, joined, seqs[0], seqs[-1])


def state_of(player: Player, game_id: bytes) -> tuple[object, ...]:
    """The game's log as stored: packets, events, snapshots (position, bytes), read marks."""
    store = player.replica.store
    return (
        player.snapshot(game_id),
        store.all("SELECT seq, data FROM packets WHERE game_id = ? ORDER BY seq", (game_id,)),
        store.all("SELECT seq, state FROM snapshots WHERE game_id = ? ORDER BY seq", (game_id,)),
        store.all("SELECT ref FROM transport_seen WHERE transport = ? ORDER BY ref", (TRANSPORT,)),
    )


def commits(store: Store) -> list[str]:
    """From now on, the COMMIT statements ``store`` runs."""
    seen: list[str] = []
    store.db.set_trace_callback(lambda sql: seen.append(sql) if sql == "COMMIT" else None)
    return seen


def test_a_batch_stores_what_one_by_one_would_with_one_commit(
    alice: Player, bob: Player, waiting: tuple[bytes, int, list[Received]], tmp_path: Path
) -> None:
    game_id, _, batch = waiting
    twin = bob.copy_home(tmp_path / "twin", "Bob", bob.transport.network)
    for item in batch:
        twin.replica.receive(item.data, source=item.source, now="t", ref=item.ref)
    committed = commits(bob.replica.store)
    outcomes = bob.replica.receive_many(batch, now="t")
    assert committed == ["COMMIT"]
    assert [o.status for o in outcomes] == ["applied"] * CHATS
    assert state_of(bob, game_id) == state_of(twin, game_id)
    bob.reopen()  # the head snapshot is on disk, and a replay reaches it
    assert bob.replica.verify(game_id) == bob.row(game_id).state_hash
    twin.close()


def test_an_escaping_crash_mid_batch_stores_nothing_and_marks_nothing_read(
    bob: Player, waiting: tuple[bytes, int, list[Received]], monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id, head, batch = waiting
    before = state_of(bob, game_id)
    real = ledger.store_applied
    calls = 0

    def crash(*args: object, **kwargs: object) -> None:
        nonlocal calls
        calls += 1
        if calls == 40:
            raise KeyboardInterrupt  # nothing catches it: the process would end here
        real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ledger, "store_applied", crash)
    with pytest.raises(KeyboardInterrupt):
        bob.replica.receive_many(batch, now="t")
    assert bob.replica.store.deferred is None
    assert state_of(bob, game_id) == before
    monkeypatch.setattr(ledger, "store_applied", real)
    bob.reopen()
    assert state_of(bob, game_id) == before
    assert bob.replica.verify(game_id) == bob.row(game_id).state_hash
    # The next sync offers the same items again: all of them go in.
    outcomes = bob.replica.receive_many(batch, now="t")
    assert [o.status for o in outcomes] == ["applied"] * CHATS
    assert bob.row(game_id).head_seq == head + CHATS


KILL_AT_STORE = """
import asyncio, os, signal, sys
from pathlib import Path
import msgspec
from mail.sync import pull
from mail.transport import IncomingPacket
from saves import ledger
from saves.home import Home
from saves.inbox import Received

real = ledger.store_applied
calls = 0

def store_applied(*args, **kwargs):
    global calls
    calls += 1
    real(*args, **kwargs)
    if calls == int(sys.argv[3]):
        os.kill(os.getpid(), signal.SIGKILL)

ledger.store_applied = store_applied
saved = msgspec.msgpack.decode(open(sys.argv[2], "rb").read(), type=list[Received])
"""
"""A child's prelude: it stores packets from the batch saved at argv[2] in the home at argv[1]
and is killed with SIGKILL right after the argv[3]-th packet is stored."""

KILLER = (
    KILL_AT_STORE
    + """
Home(Path(sys.argv[1])).replica(unlock=True).receive_many(saved, now="t")
"""
)


def run_killed(script: str, home: Path, batch: list[Received], saved: Path, at: int) -> None:
    """Run ``script`` (`KILL_AT_STORE` and what it does) in a child on ``batch`` and check
    that the kill, not an error, ended it."""
    saved.write_bytes(msgspec.msgpack.encode(batch))
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", script, str(home), str(saved), str(at)],
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == -signal.SIGKILL, done.stderr.decode()


@pytest.mark.parametrize("at", [1, 35, CHATS])
def test_kill_9_between_fetch_and_commit_loses_nothing(
    bob: Player, waiting: tuple[bytes, int, list[Received]], tmp_path: Path, at: int
) -> None:
    """The process killed outright after ``at`` packets of the batch were stored (the last
    one: just before its snapshots and its commit): the home opens as it was before."""
    game_id, head, batch = waiting
    before = state_of(bob, game_id)
    path = Path(bob.home.path)
    bob.close()
    run_killed(KILLER, path, batch, tmp_path / "batch.msgpack", at)
    bob.reopen()
    assert state_of(bob, game_id) == before
    assert bob.replica.verify(game_id) == bob.row(game_id).state_hash
    outcomes = bob.replica.receive_many(batch, now="t")
    assert [o.status for o in outcomes] == ["applied"] * CHATS
    assert bob.row(game_id).head_seq == head + CHATS


def test_one_item_that_fails_mid_batch_is_refused_alone(
    bob: Player, waiting: tuple[bytes, int, list[Received]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The item fails after its packet was stored (its deferred head snapshot too): its
    savepoint takes both back, the batch ends at the packet before it, and the head snapshot
    written at the end is that packet's."""
    game_id, head, batch = waiting
    broken = head + 30
    real = ledger.store_applied

    def failing(store: Store, packet: object, *args: object, **kwargs: object) -> None:
        real(store, packet, *args, **kwargs)  # type: ignore[arg-type]
        if packet.body.seq == broken:  # type: ignore[attr-defined]
            raise OSError("disk trouble, this item only")

    monkeypatch.setattr(ledger, "store_applied", failing)
    outcomes = bob.replica.receive_many(batch, now="t")
    statuses = [o.status for o in outcomes]
    assert statuses[:29] == ["applied"] * 29
    assert statuses[29] == "rejected" and "disk trouble" in outcomes[29].detail
    assert set(statuses[30:]) == {"buffered"}  # they wait for the packet that failed
    monkeypatch.setattr(ledger, "store_applied", real)
    assert bob.row(game_id).head_seq == broken - 1
    seen = bob.replica.store.all("SELECT ref FROM transport_seen WHERE transport = ?", (TRANSPORT,))
    assert len(seen) == CHATS  # every item is read, the failed one too
    bob.reopen()
    assert bob.replica.verify(game_id) == bob.row(game_id).state_hash


@pytest.mark.parametrize("failing", ["first", "last", "all"])
def test_a_batch_runs_without_a_savepoint_per_item_and_twice_at_most_when_one_raises(
    bob: Player,
    waiting: tuple[bytes, int, list[Received]],
    monkeypatch: pytest.MonkeyPatch,
    failing: str,
) -> None:
    """Items go in under one savepoint for the batch; when one raises, that pass is undone
    and the batch taken in item by item, the failed item recorded with its error and not run
    again: every item runs at most twice, even when every one of them raises."""
    game_id, head, batch = waiting
    broken = {"first": {0}, "last": {CHATS - 1}, "all": set(range(CHATS))}[failing]
    real = inbox.receive
    runs: Counter[bytes] = Counter()

    def receive(replica: object, data: bytes, *args: object, **kwargs: object) -> object:
        runs[data] += 1
        if batch.index(next(item for item in batch if item.data == data)) in broken:
            raise OSError("this item cannot be stored")
        return real(replica, data, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(inbox, "receive", receive)
    ran = bob.replica.store
    savepoints: list[str] = []
    ran.db.set_trace_callback(lambda sql: savepoints.append(sql) if "SAVEPOINT" in sql else None)
    outcomes = bob.replica.receive_many(batch, now="t")
    ran.db.set_trace_callback(None)
    assert max(runs.values()) <= 2 and sum(runs.values()) <= 2 * CHATS
    assert all(runs[batch[index].data] == 1 for index in broken)  # never run again
    assert savepoints[0] == "SAVEPOINT batch"
    assert savepoints.count("SAVEPOINT item") == CHATS - 1  # the retry's items, the failed one not
    statuses = [o.status for o in outcomes]
    assert all(statuses[index] == "rejected" for index in broken)
    assert all("OSError: this item cannot be stored" in outcomes[i].detail for i in broken)
    if failing == "last":
        assert statuses[:-1] == ["applied"] * (CHATS - 1)
        assert bob.row(game_id).head_seq == head + CHATS - 1
    elif failing == "first":
        assert set(statuses[1:]) == {"buffered"}  # they wait for the packet that failed
        assert bob.row(game_id).head_seq == head
    assert bob.count("rejected") == len(broken)
    seen = bob.replica.store.one(
        "SELECT COUNT(*) FROM transport_seen WHERE transport = ?", (TRANSPORT,)
    )
    assert seen == (CHATS,)
    bob.reopen()
    assert bob.replica.verify(game_id) == bob.row(game_id).state_hash


def test_a_batch_with_no_failure_takes_no_savepoint_per_item(
    bob: Player, waiting: tuple[bytes, int, list[Received]]
) -> None:
    _, _, batch = waiting
    store = bob.replica.store
    savepoints: list[str] = []
    store.db.set_trace_callback(lambda sql: savepoints.append(sql) if "SAVEPOINT" in sql else None)
    outcomes = bob.replica.receive_many(batch, now="t")
    store.db.set_trace_callback(None)
    assert [o.status for o in outcomes] == ["applied"] * CHATS
    assert savepoints == ["SAVEPOINT batch"]


def test_a_flood_of_garbage_around_the_packets_goes_in_by_one_commit(
    bob: Player, waiting: tuple[bytes, int, list[Received]]
) -> None:
    game_id, head, batch = waiting
    garbage = [
        Received(os.urandom(300 + n), f"junk {n}", (TRANSPORT, f"junk{n}")) for n in range(400)
    ]
    flood = [*garbage[:200], *batch, *garbage[200:]]
    committed = commits(bob.replica.store)
    outcomes = bob.replica.receive_many(flood, now="t")
    assert committed == ["COMMIT"]
    assert [o.status for o in outcomes].count("applied") == CHATS
    assert [o.status for o in outcomes].count("rejected") == 400
    assert bob.row(game_id).head_seq == head + CHATS
    seen = bob.replica.store.one(
        "SELECT COUNT(*) FROM transport_seen WHERE transport = ?", (TRANSPORT,)
    )
    assert seen is not None and seen[0] == 400 + CHATS


class BrokenStream:
    """A transport whose connection fails after its first batch was handed over."""

    name = TRANSPORT

    def __init__(self, first: list[IncomingPacket]) -> None:
        self.first = first
        self.filed: list[str] = []

    async def fetch_stream(
        self, cursor: str, seen: object
    ) -> tuple[str, AsyncIterator[list[IncomingPacket]]]:
        async def batches() -> AsyncIterator[list[IncomingPacket]]:
            yield self.first
            raise TransportError("the connection dropped")

        return "v:999", batches()

    async def processed(self, refs: list[str]) -> None:
        self.filed.extend(refs)


def test_a_connection_lost_after_a_batch_keeps_that_batch_and_files_it_away(
    bob: Player, waiting: tuple[bytes, int, list[Received]]
) -> None:
    game_id, head, batch = waiting
    first = [IncomingPacket(ref=f"ref{n}", data=item.data) for n, item in enumerate(batch[:30])]
    broken = BrokenStream(first)
    with pytest.raises(TransportError):
        asyncio.run(pull(bob.replica, broken, now))  # type: ignore[arg-type]
    assert bob.row(game_id).head_seq == head + 30
    assert broken.filed == [item.ref for item in first]
    assert outbox.cursor(bob.replica.store, TRANSPORT) == ""  # the rest is fetched again
    assert outbox.SeenRefs(bob.replica.store, TRANSPORT).among(["ref0", "ref29", "ref30"]) == {
        "ref0",
        "ref29",
    }


class Streamed:
    """A transport that hands its items over in batches, and records when they are filed
    away and what the store had made durable by then."""

    name = TRANSPORT

    def __init__(self, store: Store, batches: list[list[IncomingPacket]], log: list[str]) -> None:
        self.store, self.batches, self.log = store, batches, log

    async def fetch_stream(
        self, cursor: str, seen: object
    ) -> tuple[str, AsyncIterator[list[IncomingPacket]]]:
        async def batches() -> AsyncIterator[list[IncomingPacket]]:
            for batch in self.batches:
                yield batch

        return "v:999", batches()

    async def processed(self, refs: list[str]) -> None:
        self.log.append(f"filed {len(refs)} owed={self.store.owed}")


def test_a_pulls_batches_commit_without_waiting_for_the_disk_and_are_flushed_once_first(
    bob: Player, waiting: tuple[bytes, int, list[Received]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each batch commits with ``synchronous=NORMAL`` (atomic, not yet durable); one flush of
    the write-ahead log follows the last batch, before the mail is filed away and the cursor
    saved; every other commit stays fully synced."""
    game_id, head, batch = waiting
    store = bob.replica.store
    assert store.wal
    log: list[str] = []
    store.db.set_trace_callback(
        lambda sql: log.append(sql) if sql == "COMMIT" or "synchronous" in sql else None
    )
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        log.append("fsync")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    real_cursor = outbox.save_cursor

    def save_cursor(*args: object) -> None:
        log.append(f"cursor owed={store.owed}")
        real_cursor(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(outbox, "save_cursor", save_cursor)
    incoming = [IncomingPacket(ref=f"ref{n}", data=item.data) for n, item in enumerate(batch)]
    transport = Streamed(store, [incoming[:30], incoming[30:60], incoming[60:]], log)
    outcomes = asyncio.run(pull(bob.replica, transport, now))  # type: ignore[arg-type]
    store.db.set_trace_callback(None)
    assert [o.status for o in outcomes] == ["applied"] * CHATS
    relaxed = ["PRAGMA synchronous=NORMAL", "COMMIT", "PRAGMA synchronous=FULL"]
    assert log == [
        *relaxed * 3,
        "fsync",
        f"filed {CHATS} owed=False",
        "cursor owed=False",
        "COMMIT",
    ]
    assert store.one("PRAGMA synchronous") == (2,)  # FULL again for whatever comes next
    assert bob.row(game_id).head_seq == head + CHATS


PULL_KILLER = (
    KILL_AT_STORE
    + """
class Stream:
    name = "test:batch"
    async def fetch_stream(self, cursor, seen):
        async def batches():
            for start in range(0, len(items), 25):
                yield items[start:start + 25]
        return "v:999", batches()

items = [IncomingPacket(ref=f"ref{n}", data=item.data) for n, item in enumerate(saved)]
asyncio.run(pull(Home(Path(sys.argv[1])).replica(unlock=True), Stream(), lambda: "t"))
"""
)


@pytest.mark.parametrize("at", [26, 60])
def test_kill_9_mid_pull_after_unflushed_batches_keeps_them_and_the_next_pull_ends_it(
    bob: Player, waiting: tuple[bytes, int, list[Received]], tmp_path: Path, at: int
) -> None:
    """Killed inside a later batch of a pull (batches of 25): the batches committed before it
    without waiting for the disk are whole and read (a kill, unlike a power cut, loses nothing
    the OS has); the batch it was in left nothing; the cursor is not saved; the next pull
    takes in exactly the rest, nothing twice."""
    game_id, head, batch = waiting
    path = Path(bob.home.path)
    bob.close()
    run_killed(PULL_KILLER, path, batch, tmp_path / "batch.msgpack", at)
    bob.reopen()
    whole = at // 25 * 25
    assert bob.row(game_id).head_seq == head + whole
    assert bob.replica.verify(game_id) == bob.row(game_id).state_hash
    seen = outbox.SeenRefs(bob.replica.store, TRANSPORT)
    assert seen.among([f"ref{n}" for n in range(CHATS)]) == {f"ref{n}" for n in range(whole)}
    assert outbox.cursor(bob.replica.store, TRANSPORT) == ""
    rest = [IncomingPacket(ref=f"ref{n}", data=item.data) for n, item in enumerate(batch)]
    transport = Streamed(bob.replica.store, [rest[whole:]], [])
    outcomes = asyncio.run(pull(bob.replica, transport, now))  # type: ignore[arg-type]
    assert [o.status for o in outcomes] == ["applied"] * (CHATS - whole)
    assert bob.row(game_id).head_seq == head + CHATS
    assert outbox.cursor(bob.replica.store, TRANSPORT) == "v:999"


class Watched(Streamed):
    """A stream that notes the interpreter's switch interval as each batch is handed over,
    and may fail after its batches."""

    def __init__(self, store: Store, batches: list[list[IncomingPacket]], fail: bool) -> None:
        super().__init__(store, batches, [])
        self.fail, self.intervals = fail, list[float]()

    async def fetch_stream(
        self, cursor: str, seen: object
    ) -> tuple[str, AsyncIterator[list[IncomingPacket]]]:
        async def batches() -> AsyncIterator[list[IncomingPacket]]:
            for batch in self.batches:
                self.intervals.append(sys.getswitchinterval())
                await asyncio.sleep(0)  # let a concurrent pull run meanwhile
                yield batch
            if self.fail:
                raise TransportError("the connection dropped")

        return "v:999", batches()


@pytest.mark.parametrize("fail", [False, True], ids=["ends", "fails"])
def test_batches_stream_in_with_quick_thread_handoffs_and_the_interval_comes_back(
    bob: Player, waiting: tuple[bytes, int, list[Received]], fail: bool
) -> None:
    """While batches stream in (the worker reading the next one), the interpreter switches
    threads within `mail.sync.HANDOFF_SECONDS`; afterwards, whether the pull ended or failed,
    and with two pulls interleaved, the interval is what it was."""
    from mail import sync as mail_sync

    _, head, batch = waiting
    before = sys.getswitchinterval()
    incoming = [IncomingPacket(ref=f"ref{n}", data=item.data) for n, item in enumerate(batch)]
    first = Watched(bob.replica.store, [incoming[:20], incoming[20:40]], fail)
    second = Watched(bob.replica.store, [incoming[40:55], incoming[55:]], False)
    second.name = "test:other"

    async def both() -> list[object]:
        results = await asyncio.gather(
            pull(bob.replica, first, now),  # type: ignore[arg-type]
            pull(bob.replica, second, now),  # type: ignore[arg-type]
            return_exceptions=True,
        )
        return list(results)

    results = asyncio.run(both())
    assert isinstance(results[0], TransportError) == fail
    assert first.intervals and second.intervals
    assert set(first.intervals + second.intervals) == {mail_sync.HANDOFF_SECONDS}
    assert sys.getswitchinterval() == before
    assert bob.row(waiting[0]).head_seq == head + CHATS
