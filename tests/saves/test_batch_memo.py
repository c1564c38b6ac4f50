"""What a batch reads once (`saves.store.Memo`, issue 16): the game's head and row, the keys,
whether anything is buffered. Each packet then costs only its own statements, and every
write that changes a kept row (a key bound, a packet buffered, a head moved, an item rolled
back) keeps the batch's copy true: the batch ends exactly where one item at a time would.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from engine.core.game import apply_packet
from engine.core.packets import kind_name
from mail.loopback import LoopbackNetwork
from saves import ledger, store_games
from saves.inbox import Received
from saves.store import Store
from tests.saves.conftest import Player, first_setup, now

CHATS = 50
TRANSPORT = "test:memo"
_LITERAL = re.compile(r"x'[0-9a-f]*'|'[^']*'|\b\d+\b")


def statements(store: Store) -> Counter[str]:
    """From now on, the statements ``store`` runs, literals replaced by ``?``."""
    seen: Counter[str] = Counter()
    store.db.set_trace_callback(lambda sql: seen.update([_LITERAL.sub("?", sql)]))
    return seen


def test_a_batch_reads_the_game_and_its_keys_once_not_once_per_packet(
    alice: Player, bob: Player, joined: bytes
) -> None:
    head = bob.row(joined).head_seq
    seqs = [alice.replica.chat(joined, f"line {n}", now=now()).seq for n in range(CHATS)]
    batch = [
        Received(alice.packet(joined, seq), f"memo {seq}", (TRANSPORT, f"r{seq}"), f"<{seq}@x>")
        for seq in seqs
    ]
    ran = statements(bob.replica.store)
    outcomes = bob.replica.receive_many(batch, now="t")
    bob.replica.store.db.set_trace_callback(None)
    assert [o.status for o in outcomes] == ["applied"] * CHATS
    assert bob.row(joined).head_seq == head + CHATS
    per_table: Counter[str] = Counter()
    for sql, count in ran.items():
        if sql.startswith("SELECT"):
            table = sql.split(" FROM ")[1].split()[0]
            per_table[table] += count
    # Once for the batch, and once more for the check of the deferred head at its end.
    assert per_table["games"] <= 3, ran
    assert per_table["game_keys"] <= 3, ran
    assert per_table["buffered"] <= 1, ran
    # What is left per packet: its row, its event, its read mark and Message-ID. No savepoint
    # of its own (one for the batch, `saves.inbox.take_many`), and no look-up of its bytes
    # among the stored packets: it is past the head (`saves.copies.verified_before`). The
    # head's row is written once for the batch.
    assert sum(ran.values()) <= 4 * CHATS + 20, ran.most_common(12)
    assert not [sql for sql in ran if "FROM packets" in sql], ran
    assert sum(n for sql, n in ran.items() if sql.startswith("UPDATE games")) == 1, ran
    kept = bob.replica.store.all("SELECT message_id FROM mail_ids WHERE game_id = ?", (joined,))
    assert sorted(mid for (mid,) in kept) >= sorted(f"<{seq}@x>" for seq in seqs)
    seen = bob.replica.store.one(
        "SELECT COUNT(*) FROM transport_seen WHERE transport = ?", (TRANSPORT,)
    )
    assert seen == (CHATS,)
    assert bob.replica.verify(joined) == bob.row(joined).state_hash


@pytest.mark.parametrize(
    "order", [["turn", 0, 1], ["turn", 1, 0], [1, "turn", 0]], ids=lambda o: "-".join(map(str, o))
)
def test_a_key_bound_mid_batch_is_seen_by_the_items_after_it(
    tmp_path: Path,
    network: LoopbackNetwork,
    alice: Player,
    bob: Player,
    joined: bytes,
    order: list[int | str],
) -> None:
    """A second home of Bob's gets the game's first packets out of order in one batch: the
    ones that overtake the genesis are parked (their signer is not known yet) and taken in
    when the genesis binds the keys; a packet that waits for the one before it is buffered
    and applied when that one arrives. The batch's kept look-ups (no key for that id, nothing
    buffered) must not outlive the writes that change them."""
    game = joined
    turn = alice.replica.submit(game, first_setup(alice, game), now=now())
    laptop = Player(tmp_path / "bob-laptop", "BobLaptop", "bob@example.org", network)
    try:
        seqs = [turn.seq if seq == "turn" else int(seq) for seq in order]
        batch = [Received(alice.packet(game, seq), f"p{seq}") for seq in seqs]
        outcomes = laptop.replica.receive_many(batch, now=now())
        assert "invitation" in [o.status for o in outcomes]
        assert laptop.row(game).head_seq == turn.seq, outcomes
        assert laptop.count("parked") == 0
        assert laptop.count("buffered", game) == 0
        assert laptop.replica.verify(game) == alice.replica.verify(game)
    finally:
        laptop.close()


def test_the_head_row_a_batch_holds_back_is_true_for_whoever_reads_or_changes_it(
    alice: Player, bob: Player, joined: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The head's row is written once per batch, yet whatever reads the ``games`` row by SQL
    mid-batch (the games list, a fresh read after an item rolled back) sees the packet just
    stored, and a write to the row mid-batch (marked read) lands between the moves it must:
    the unread count ends as one packet at a time would leave it."""
    head = bob.row(joined).head_seq
    before = bob.row(joined).unread
    seqs = [alice.replica.chat(joined, f"line {n}", now=now()).seq for n in range(CHATS)]
    batch = [Received(alice.packet(joined, seq), f"held {seq}") for seq in seqs]
    store = bob.replica.store
    listed: dict[int, int] = {}
    broken, read_at = seqs[20], seqs[30]
    real = ledger.store_applied
    failing = [broken]

    def watching(store: Store, packet: object, *args: object, **kwargs: object) -> None:
        real(store, packet, *args, **kwargs)  # type: ignore[arg-type]
        seq = packet.body.seq  # type: ignore[attr-defined]
        if seq in failing:
            failing.remove(seq)
            raise OSError("this item fails after its head moved")
        if seq == read_at:
            store_games.mark_read(store, joined)
        listed[seq] = next(r.head_seq for r in store_games.games(store) if r.game_id == joined)

    monkeypatch.setattr(ledger, "store_applied", watching)
    outcomes = bob.replica.receive_many(batch, now="t")
    assert [o.status for o in outcomes[:20]] == ["applied"] * 20
    assert outcomes[20].status == "rejected"
    assert {o.status for o in outcomes[21:]} == {"buffered"}  # they wait for the failed one
    assert all(listed[seq] == seq for seq in seqs[:20]), listed
    assert broken not in listed
    row = bob.row(joined)
    assert row.head_seq == broken - 1 == head + 20
    assert row.unread == before + 20  # the item rolled back took its unread count back
    again = bob.replica.receive_many([Received(alice.packet(joined, broken), "again")], now="t")
    assert again[0].status == "applied" and again[0].applied == seqs[20:]
    assert all(listed[seq] == seq for seq in seqs), listed
    row = bob.row(joined)
    assert row.head_seq == seqs[-1]
    assert row.unread == seqs[-1] - read_at  # marked read at packet read_at, then counted on
    assert store.one("SELECT unread, head_seq FROM games WHERE game_id = ?", (joined,)) == (
        row.unread,
        row.head_seq,
    )
    bob.reopen()
    assert bob.replica.verify(joined) == bob.row(joined).state_hash


def test_a_batch_stores_each_packets_kind_and_events_as_the_engine_gave_them(
    alice: Player, bob: Player, joined: bytes
) -> None:
    """Every packet of a batch is stored with its kind's name and its events, in order, one
    row each (a single event and several alike), exactly as applying it again produces them."""
    head = bob.row(joined).head_seq
    alice.replica.chat(joined, "the first packet after the join", now=now())
    alice.replica.chat(joined, "one event", now=now())
    alice.replica.submit(joined, first_setup(alice, joined), now=now())
    last = alice.row(joined).head_seq
    batch = [
        Received(alice.packet(joined, seq), f"kinds {seq}") for seq in range(head + 1, last + 1)
    ]
    assert {o.status for o in bob.replica.receive_many(batch, now="t")} == {"applied"}
    store = bob.replica.store
    stored: dict[int, str] = dict(
        store.all("SELECT seq, kind FROM packets WHERE game_id = ? AND seq > ?", (joined, head))
    )
    kept = store.all(
        "SELECT seq, idx, event FROM events WHERE game_id = ? AND seq > ? ORDER BY seq, idx",
        (joined, head),
    )
    state = bob.replica.state(joined, head)
    ruleset = bob.replica.ruleset(joined)
    expected = []
    counts = set()
    for seq in range(head + 1, last + 1):
        packet = alice.opened(joined, seq)
        result = apply_packet(ruleset, state, packet)
        state = result.state
        assert stored[seq] == kind_name(packet.body.kind)
        expected += [
            (seq, idx, ledger.EVENT_ENCODER.encode(e)) for idx, e in enumerate(result.events)
        ]
        counts.add(min(len(result.events), 2))
    assert counts == {1, 2}, "a packet with one event and one with several"
    assert [(seq, idx, bytes(event)) for seq, idx, event in kept] == expected
