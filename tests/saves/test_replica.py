"""The replica through real homes and loopback mail: invitations, orders, secrets, dice,
out-of-order delivery, the outbox, historical states and the store's durability settings."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import Any

import msgspec
import pytest

from engine.core import packets
from engine.core.entropy import canonical_choice
from engine.core.errors import HexpostError, IllegalOrder, OutOfTurn, PacketError, RulesError
from engine.core.game import apply_packet
from engine.core.owed import pending
from engine.core.packets import EntropyOnly, Turn, open_packet
from engine.core.ruleset import DecisionKind
from engine.core.state import decode_state, encode_state
from engine.core.text import said
from engine.fe import RULESET
from engine.fe.orders import ORDER_TYPES
from mail.loopback import LoopbackNetwork
from saves import kept_states, outbox
from saves.ledger import SNAPSHOT_EVERY
from saves.reading import kept_packet
from saves.replica import Replica, lookup_in
from tests.saves.conftest import (
    CHAIN_LENGTH,
    COALITION_FORCE,
    FORCE,
    FORCE_TEXT,
    SECRET_STEP,
    Player,
    create_game,
    exchange,
    now,
    owner,
    to_battle,
)

# --- 1. invitations ----------------------------------------------------------------------------


def test_invitation_is_accepted_and_both_homes_agree(alice: Player, bob: Player) -> None:
    game_id = create_game(alice)
    assert alice.row(game_id).status == "active"
    alice.sync()
    report = bob.sync()
    invitations = [o for o in report.received if o.status == "invitation"]
    assert len(invitations) == 1
    outcome = invitations[0]
    assert outcome.game_id == game_id
    assert outcome.seq == 0
    assert outcome.applied == [0]
    assert "Alice <alice@example.org> invites you" in outcome.detail
    assert "alliance" in outcome.detail
    row = bob.row(game_id)
    assert (row.status, row.my_seat, row.head_seq, row.unread) == ("invited", "alliance", 0, 1)
    with pytest.raises(HexpostError, match="invitation"):
        bob.replica.submit(game_id, [{"type": "done"}], now=now())

    bob.replica.accept(game_id, now=now(), chain_length=CHAIN_LENGTH)
    assert bob.row(game_id).status == "active"
    with pytest.raises(HexpostError, match="not an open invitation"):
        bob.replica.accept(game_id, now=now(), chain_length=CHAIN_LENGTH)
    exchange(bob, alice)

    for player in (alice, bob):
        row = player.row(game_id)
        assert (row.status, row.head_seq, row.frozen) == ("active", 1, None)
        state = player.replica.state(game_id)
        assert all(seat.joined for seat in state.core.seats)
        assert state.rules is not None
        assert [e.kind for _, e in player.replica.events(game_id)] == ["genesis", "join", "start"]
    assert alice.replica.verify(game_id) == bob.replica.verify(game_id)
    assert alice.row(game_id).state_hash == bob.row(game_id).state_hash


def test_genesis_addressed_to_someone_else_is_ignored(alice: Player, bob: Player) -> None:
    game_id = create_game(alice, opponent="carol@example.org")
    genesis = alice.packet(game_id, 0)
    outcome = bob.replica.receive(genesis, source="test", now=now())
    assert outcome.status == "ignored"
    assert outcome.detail == (
        "an invitation addressed to carol@example.org, not to this home's bob@example.org: "
        "if it is meant for you, ask its sender to invite bob@example.org"
    )
    assert bob.replica.games() == []
    assert bob.count("packets") == 0
    # Through the transport too: nothing reaches Bob's list of games.
    alice.sync()
    assert [o.status for o in bob.sync().received] == ["ignored"]
    assert bob.replica.games() == []


# --- 5. a gap in the chain -----------------------------------------------------------------------


def test_a_gap_is_buffered_then_filled(alice: Player, bob: Player, game: bytes) -> None:
    first = alice.replica.submit(game, [{"type": "note", "text": "one"}], now=now())
    second = alice.replica.submit(game, [{"type": "note", "text": "two"}], now=now())
    n1, n2 = first.seq, second.seq
    assert n2 == n1 + 1
    before = bob.snapshot(game)

    outcome = bob.replica.receive(alice.packet(game, n2), source="test", now=now())
    assert (outcome.status, outcome.seq, outcome.applied) == ("buffered", n2, [])
    assert bob.row(game).head_seq == n1 - 1
    assert bob.count("buffered", game) == 1
    assert bob.snapshot(game)._replace(buffered=0) == before
    # The same early packet again is still just buffered, once.
    assert bob.replica.receive(alice.packet(game, n2), source="test", now=now()).status == (
        "buffered"
    )
    assert bob.count("buffered", game) == 1

    outcome = bob.replica.receive(alice.packet(game, n1), source="test", now=now())
    assert outcome.status == "applied"
    assert outcome.applied == [n1, n2]
    assert bob.row(game).head_seq == n2
    assert bob.count("buffered", game) == 0
    assert bob.row(game).state_hash == alice.row(game).state_hash
    assert bob.replica.verify(game) == alice.replica.verify(game)


# --- 8. orders -----------------------------------------------------------------------------------


def test_refused_orders_store_nothing(
    alice: Player, bob: Player, game: bytes, players: dict[str, Player]
) -> None:
    def stored() -> tuple[object, ...]:
        return (bob.snapshot(game), alice.snapshot(game), alice.count("secrets"))

    before = stored()
    step = pending(RULESET, bob.replica.state(game))[0].step
    with pytest.raises(OutOfTurn, match=f"step {step}") as refused:
        bob.replica.submit(game, [{"type": "done"}], now=now())
    assert "coalition owes the next move" in str(refused.value)
    known = re.escape(", ".join(sorted((*ORDER_TYPES, "secret"))))
    assert "done" in ORDER_TYPES
    with pytest.raises(IllegalOrder, match=f"unknown type 'teleport'; the known types are {known}"):
        alice.replica.submit(game, [{"type": "teleport"}], now=now())
    with pytest.raises(IllegalOrder, match="no type"):
        alice.replica.submit(game, [{"dice": "2d6"}], now=now())
    with pytest.raises(IllegalOrder, match="2d6"):
        alice.replica.submit(game, [{"type": "roll", "dice": "d", "purpose": "x"}], now=now())
    with pytest.raises(RulesError, match="secret"):
        alice.replica.submit(game, [{"type": "secret", "choice": "x"}], now=now())
    assert stored() == before

    dry = alice.replica.submit(
        game, [{"type": "done", "note": "just looking"}], now=now(), dry_run=True
    )
    assert dry.packet_id is None
    assert dry.seq == alice.row(game).head_seq + 1
    assert dry.events
    assert stored() == before
    assert outbox.unsent(alice.replica.store) == []

    # The dry run predicted exactly what signing then produces.
    real = alice.replica.submit(game, [{"type": "done", "note": "just looking"}], now=now())
    assert (real.seq, real.state_hash) == (dry.seq, dry.state_hash)
    assert real.events == dry.events
    exchange(alice, bob)

    to_battle(players, game)
    author, _ = owner(players, game)
    before = (author.snapshot(game), author.count("secrets"))
    with pytest.raises(RulesError, match=SECRET_STEP) as at_secret:
        author.replica.submit(game, [{"type": "done"}], now=now())
    assert "secret" in str(at_secret.value)
    with pytest.raises(IllegalOrder, match="choice"):
        author.replica.submit(game, [{"type": "secret"}], now=now())
    with pytest.raises(HexpostError, match="must be the last order"):
        author.replica.submit(
            game, [{"type": "secret", "choice": "x"}, {"type": "note", "text": "y"}], now=now()
        )
    assert (author.snapshot(game), author.count("secrets")) == before


# --- 9. a secret step ----------------------------------------------------------------------------


def _to_secret_step(players: dict[str, Player], game: bytes) -> tuple[Player, Player]:
    to_battle(players, game)
    first, second = owner(players, game)
    assert pending(RULESET, first.replica.state(game))[0].kind == DecisionKind.SECRET
    return first, second


def test_secret_step_commits_then_reveals_through_the_replica(
    game: bytes, players: dict[str, Player]
) -> None:
    first, second = _to_secret_step(players, game)
    first_choice, second_choice = FORCE, COALITION_FORCE  # the alliance commits first

    one = first.replica.submit(game, [{"type": "secret", "choice": first_choice}], now=now())
    packet = first.opened(game, one.seq)
    assert len(packet.body.commits) == 1
    assert packet.body.reveals == []
    assert canonical_choice(first_choice) not in first.packet(game, one.seq)
    assert first.count("secrets", game) == 1
    exchange(first, second)
    assert FORCE_TEXT not in " ".join(e.text for _, e in second.replica.events(game))

    two = second.replica.submit(game, [{"type": "secret", "choice": second_choice}], now=now())
    packet = second.opened(game, two.seq)
    assert len(packet.body.commits) == 1
    assert len(packet.body.reveals) == 1, "the last committer answers in the clear at once"
    assert packet.body.reveals[0].key == packet.body.commits[0].key

    second.sync()
    report = first.sync()
    assert [o.applied for o in report.received if o.status == "applied"] == [[two.seq]]
    assert report.sent == [two.seq + 1], "the first seat's reveal is written during sync"
    reveal = first.opened(game, two.seq + 1)
    assert isinstance(reveal.body.kind, Turn)
    assert [r.key for r in reveal.body.reveals] == [packet.body.commits[0].key]
    entry = first.replica.store.one(
        "SELECT automatic FROM outbox WHERE game_id = ? AND seq = ?", (game, two.seq + 1)
    )
    assert entry == (1,)
    second.sync()

    for player in (first, second):
        assert player.row(game).head_seq == two.seq + 1
        resolved = [e for _, e in player.replica.events(game) if e.step == SECRET_STEP]
        text = " ".join(e.text for e in resolved)
        assert FORCE_TEXT in text
        assert f"coalition: {said(second_choice)}" in text
        assert pending(RULESET, player.replica.state(game))[0].step != SECRET_STEP
    assert first.replica.verify(game) == second.replica.verify(game)


# --- 10. dice ------------------------------------------------------------------------------------


def test_roll_is_answered_automatically_and_both_see_the_same_dice(
    alice: Player, bob: Player, game: bytes
) -> None:
    sub = alice.replica.submit(
        game,
        [{"type": "done"}, {"type": "roll", "dice": "3d6", "purpose": "survey points 505.21"}],
        now=now(),
    )
    alice.sync()
    report = bob.sync()
    assert [o.status for o in report.received if o.seq == sub.seq] == ["applied"]
    assert report.sent == [sub.seq + 1]
    auto = bob.replica.store.one(
        "SELECT automatic, subject, attempts, sent_at IS NOT NULL FROM outbox "
        "WHERE game_id = ? AND seq = ?",
        (game, sub.seq + 1),
    )
    assert auto is not None
    assert auto[0] == 1
    assert auto[1].endswith(f" alliance: die roll (packet {sub.seq + 1})")
    assert auto[2:] == (1, 1)
    assert isinstance(bob.opened(game, sub.seq + 1).body.kind, EntropyOnly)
    # A second sync has nothing left to answer: exactly one automatic reply.
    assert bob.sync().sent == []
    alice.sync()

    def rolls(player: Player) -> list[tuple[int, list[int]]]:
        return [(seq, e.data["dice"]) for seq, e in player.replica.events(game) if e.kind == "roll"]

    assert len(rolls(alice)) == 1
    assert rolls(alice) == rolls(bob)
    seq, dice = rolls(alice)[0]
    assert seq == sub.seq + 1
    assert len(dice) == 3
    assert all(1 <= d <= 6 for d in dice)
    assert alice.replica.verify(game) == bob.replica.verify(game)


# --- 12. the outbox ------------------------------------------------------------------------------


def test_a_failed_send_waits_in_the_outbox_and_resends_the_same_bytes(
    alice: Player, bob: Player, game: bytes, network: LoopbackNetwork
) -> None:
    sub = alice.replica.submit(game, [{"type": "done", "note": "kept"}], now=now())
    stored = alice.packet(game, sub.seq)
    delivered = len(network.messages)
    network.fail_next_sends = 1

    report = alice.sync()
    assert report.sent == []
    assert [f.seq for f in report.failed] == [sub.seq]
    assert "network is down" in report.failed[0].error
    assert len(network.messages) == delivered
    (entry,) = outbox.unsent(alice.replica.store, game)
    assert (entry.seq, entry.attempts, entry.data) == (sub.seq, 1, stored)
    assert entry.last_error is not None
    assert "network is down" in entry.last_error
    assert entry.sent_at is None
    assert entry.recipients == ("bob@example.org",)

    alice.reopen()  # the queue is on disk, not in memory
    report = alice.sync()
    assert (report.sent, report.failed) == ([sub.seq], [])
    assert len(network.messages) == delivered + 1
    assert network.messages[-1].packet.data == stored
    assert network.messages[-1].packet.packet_id == entry.packet_id
    assert outbox.unsent(alice.replica.store) == []
    row = alice.replica.store.one(
        "SELECT attempts, last_error, sent_at IS NOT NULL FROM outbox WHERE id = ?", (entry.id,)
    )
    assert row == (2, None, 1)
    assert alice.sync().sent == []
    bob.sync()
    assert bob.row(game).head_seq == sub.seq


# --- 13. historical states -----------------------------------------------------------------------


def test_state_at_any_packet_equals_the_replay(
    alice: Player, bob: Player, game: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    players = {"coalition": alice, "alliance": bob}
    index = 0
    while alice.row(game).head_seq < 2 * SNAPSHOT_EVERY + 6:
        author, other = owner(players, game)
        decision = pending(RULESET, author.replica.state(game))[0]
        assert decision.kind == DecisionKind.ORDERS, decision
        index += 1
        items = [{"type": "done"}] if index % 4 == 0 else [{"type": "note", "text": f"n{index}"}]
        sub = author.replica.submit(game, items, now=now())
        outcome = other.replica.receive(author.packet(game, sub.seq), source="test", now=now())
        assert outcome.applied == [sub.seq]
    head = alice.row(game).head_seq
    assert head > 130

    for player in (alice, bob):
        snaps = [
            int(s)
            for (s,) in player.replica.store.all(
                "SELECT seq FROM snapshots WHERE game_id = ? ORDER BY seq", (game,)
            )
        ]
        assert snaps == [0, SNAPSHOT_EVERY, 2 * SNAPSHOT_EVERY, head]

    wanted = {0, 1, 2, 40, 63, 64, 65, 100, 127, 128, 129, head - 1, head}
    replayed: dict[int, bytes] = {}
    state = None
    for seq, data in alice.replica.packets(game):
        state = apply_packet(RULESET, state, open_packet(data, lookup_in(state))).state
        if seq in wanted:
            replayed[seq] = encode_state(state)
    assert set(replayed) == wanted

    def refused(*args: object) -> bool:
        raise AssertionError("a kept packet's signature was checked again")

    # The packets a state is replayed with were checked when kept (`kept_packet`).
    monkeypatch.setattr(packets, "signed_by", refused)
    for player in (alice, bob):
        player.reopen()  # no cached head: every state comes from the store
        for seq in sorted(wanted):
            assert encode_state(player.replica.state(game, at=seq)) == replayed[seq], seq
        assert encode_state(player.replica.state(game)) == replayed[head]
        assert encode_state(player.replica.state(game, at=head + 10)) == replayed[head]
        with pytest.raises(HexpostError, match="0 or more"):
            player.replica.state(game, at=-1)
        # Several at once, from one replay: the same states, whatever the order asked, across
        # the snapshots (63/64/65), at one (128) and at and past the head.
        asked = [head + 10, 129, 63, 65, 64, 128, 1, head, 100, head - 1]
        states = player.replica.states(game, asked)
        assert list(states) == sorted(set(asked))
        for seq, state in states.items():
            assert encode_state(state) == replayed[min(seq, head)], seq
        with pytest.raises(HexpostError, match="0 or more"):
            player.replica.states(game, [3, -1])
    monkeypatch.undo()
    assert alice.replica.verify(game) == bob.replica.verify(game)


def _play(players: dict[str, Player], game: bytes, count: int) -> None:
    """``count`` packets of "done", each written by the seat owed and taken in by the other."""
    for _ in range(count):
        author, other = owner(players, game)
        sub = author.replica.submit(game, [{"type": "done"}], now=now())
        other.replica.receive(author.packet(game, sub.seq), source="test", now=now())


def test_the_packets_since_a_head_read_replay_from_that_head(
    alice: Player, bob: Player, game: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A head the reader held before newer packets came is where their states replay from
    (what a review of what arrived reads), not a snapshot; a past head whose packet is no
    longer the chain's is not used."""
    players = {"coalition": alice, "alliance": bob}
    _play(players, game, 2)
    reader = Replica(alice.replica.store)  # as the app's session: a reader of its own
    read = reader.state(game)  # the head the game screen read
    seen = read.core.seq
    _play(players, game, 4)
    head = reader.state(game)  # read again after the sync: a newer head
    assert head.core.seq == seen + 4
    replayed = {seq: encode_state(alice.replica.state(game, at=seq)) for seq in range(seen + 3)}

    decodes: list[object] = []

    def decoded(*args: Any) -> Any:
        decodes.append(args)
        return decode_state(*args)

    monkeypatch.setattr(kept_states, "decode_state", decoded)
    states = reader.states(game, [seen, seen + 1, seen + 2])
    assert states[seen] is read
    assert {seq: encode_state(state) for seq, state in states.items()} == {
        seq: replayed[seq] for seq in (seen, seen + 1, seen + 2)
    }
    assert decodes == []
    # A past head that is not the chain's packet at its position is left alone.
    reader._past[game] = [msgspec.structs.replace(read, head=bytes(32))]
    assert encode_state(reader.states(game, [seen + 1])[seen + 1]) == replayed[seen + 1]
    assert len(decodes) == 1  # a kept snapshot, the latest before it


def test_a_kept_packet_is_the_packet_opened_and_damaged_bytes_are_refused(
    alice: Player, bob: Player, game: bytes
) -> None:
    _play({"coalition": alice, "alliance": bob}, game, 3)
    state = None
    for _, data in alice.replica.packets(game):  # a genesis, joins, turns
        packet = kept_packet(data, state)
        assert packet == open_packet(data, lookup_in(state))
        state = apply_packet(RULESET, state, packet).state
    with pytest.raises(PacketError, match="unknown key"):
        kept_packet(data, None)  # a turn's key bound by no state: opened as new
    envelope = packets.read_envelope(data)
    damaged = msgspec.msgpack.encode(msgspec.structs.replace(envelope, body=b"\xc1"))
    with pytest.raises(PacketError):
        kept_packet(damaged, state)


# --- 3 (own packets). duplicates through the transport ------------------------------------------


def test_own_packets_coming_back_are_duplicates(alice: Player, bob: Player, game: bytes) -> None:
    alice.replica.submit(game, [{"type": "done"}], now=now())
    alice.sync()
    bob.sync()
    before = (alice.snapshot(game), alice.row(game).unread)
    # Alice's transport now shows her every message, her own included.
    alice.replica.store.db.execute("DELETE FROM transport_seen")
    report = alice.sync()
    assert report.received
    assert {o.status for o in report.received} == {"duplicate"}
    assert (alice.snapshot(game), alice.row(game).unread) == before
    assert report.sent == []


# --- 15. durability basics -----------------------------------------------------------------------


def test_store_is_private_and_durable(alice: Player, joined: bytes) -> None:
    path = alice.home.db_path
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    for suffix in ("-wal", "-shm"):
        side = path.with_name(path.name + suffix)
        if side.exists():
            assert stat.S_IMODE(os.stat(side).st_mode) & 0o077 == 0, suffix
    assert stat.S_IMODE(os.stat(alice.home.path).st_mode) & 0o077 == 0
    game = joined
    db = alice.replica.store.db
    assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    assert db.execute("PRAGMA synchronous").fetchone() == (2,)
    alice.reopen()
    db = alice.replica.store.db
    assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    assert db.execute("PRAGMA synchronous").fetchone() == (2,)
    assert alice.row(game).head_seq == 1


def test_a_submitted_packet_is_stored_with_its_state_before_any_send(
    alice: Player, game: bytes
) -> None:
    sub = alice.replica.submit(game, [{"type": "done"}], now=now())
    alice.reopen()
    row = alice.row(game)
    assert (row.head_seq, row.state_hash) == (sub.seq, sub.state_hash)
    (entry,) = outbox.unsent(alice.replica.store, game)
    assert entry.packet_id == sub.packet_id
    assert entry.data == alice.packet(game, sub.seq)
    assert entry.attempts == 0


def test_an_empty_orders_list_is_refused_when_orders_are_owed(
    alice: Player, bob: Player, game: bytes
) -> None:
    before = alice.row(game).head_seq
    with pytest.raises(HexpostError, match="no orders given"):
        alice.replica.submit(game, [], now=now())
    assert alice.row(game).head_seq == before


def test_a_packet_written_against_a_stale_head_is_dropped_unsent(
    alice: Player, bob: Player, game: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    stale = alice.replica.state(game)
    # A second window on Alice's home moves the game on while the first is writing.
    other = Replica(alice.replica.store, alice.replica.identity)
    other.submit(game, [{"type": "note", "text": "from the other window"}], now=now())
    monkeypatch.setattr(alice.replica, "state", lambda game_id, at=None: stale)
    outbox = alice.count("outbox")
    with pytest.raises(HexpostError, match="moved on"):
        alice.replica.submit(game, [{"type": "done"}], now=now())
    monkeypatch.undo()
    assert alice.count("outbox") == outbox
    assert alice.replica.verify(game)


def test_a_known_address_with_a_new_key_is_flagged(
    tmp_path: Path, network: LoopbackNetwork, alice: Player, bob: Player, game: bytes
) -> None:
    """Trust on first use (P10): keys are remembered per address, a change is a warning."""
    assert bob.count("known_keys") == 2
    impostor = Player(tmp_path / "mallory", "Alice", "alice@example.org", network)
    try:
        other = create_game(impostor, name="second")
        outcome = bob.replica.receive(impostor.packet(other, 0), source="t", now=now())
        assert outcome.status == "invitation"
        assert "WARNING: alice@example.org used another key before" in outcome.detail
        assert bob.count("known_keys") == 3
    finally:
        impostor.close()
