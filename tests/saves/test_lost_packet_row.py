"""A stored packet lost from the middle of a chain is named, asked for, and filled again.

A home keeps every packet of a game; the state at its head is kept beside them, so a row lost
from the middle of the chain (deleted on a damaged disk) does not stop play. It stops what
replays through that position: ``hexpost verify``, a review of that turn, an archive. Before,
they said only that the next packet "does not follow" the one before the gap, and the copy the
other side then sent again was refused as not fitting the chain. Now the gap is named with what
to ask for, and a copy the chain itself names (the packet after it carries its id) fills it,
several in a row from the top down.
"""

from __future__ import annotations

import asyncio
import re

import msgspec
import pytest

from engine.core.errors import HexpostError
from engine.core.packets import peek_body, read_envelope, sign_body
from mail.loopback import LoopbackNetwork
from mail.sync import sync
from saves import faults, resend_asks, store_repairs
from saves.archive import export_game
from saves.replica import GameRow
from saves.store import Store
from tests.saves.conftest import NotesTransport, Player, asks_and_is_sent, now, owner, play_notes
from tui.services.log import log_records
from tui.services.trust import resend


def _lose(player: Player, game: bytes, *seqs: int) -> None:
    with player.replica.store.transaction() as db:
        for seq in seqs:
            lost = db.execute("DELETE FROM packets WHERE game_id = ? AND seq = ?", (game, seq))
            assert lost.rowcount == 1
    player.reopen()


def _middle_lost(players: dict[str, Player], bob: Player, game: bytes) -> tuple[GameRow, int]:
    """Six packets played, then Bob's packet three before the head lost: his row (before the
    loss) and that position."""
    play_notes(players, game, 6)
    row = bob.row(game)
    seq = row.head_seq - 3
    _lose(bob, game, seq)
    return row, seq


def _advice(name: str, seq: int, last: int | None = None) -> str:
    upto = seq if last is None else last
    return (
        f"ask the other player to run `hexpost resend {name} --from {seq} --to {upto} --every-seat`"
    )


def test_verify_names_a_lost_packet_and_what_to_ask_for(
    players: dict[str, Player], bob: Player, game: bytes
) -> None:
    row, seq = _middle_lost(players, bob, game)
    assert bob.replica.state(game).core.seq == row.head_seq  # play goes on from the kept head
    wanted = f"^packet {seq}: not in this home's store.*{re.escape(_advice(row.name, seq))}"
    with pytest.raises(HexpostError, match=wanted):
        bob.replica.verify(game)


def test_reading_a_state_past_a_lost_packet_names_it(
    players: dict[str, Player], bob: Player, game: bytes
) -> None:
    row, seq = _middle_lost(players, bob, game)
    with pytest.raises(HexpostError, match=f"^packet {seq}: not in this home's store") as raised:
        bob.replica.state(game, at=seq + 1)
    assert _advice(row.name, seq) in str(raised.value)


def test_an_archive_is_not_written_with_a_gap(
    players: dict[str, Player], bob: Player, game: bytes
) -> None:
    """It would not import (its replay stops at the gap): the export names it instead."""
    row, seq = _middle_lost(players, bob, game)
    with pytest.raises(HexpostError, match=f"^packet {seq}: not in this home's store") as raised:
        export_game(bob.replica, game)
    assert _advice(row.name, seq) in str(raised.value)


def test_the_log_shows_a_lost_packet_in_its_place(
    players: dict[str, Player], bob: Player, game: bytes
) -> None:
    play_notes(players, game, 6)
    row = bob.row(game)
    before = log_records(bob.replica, row)
    seq = row.head_seq - 3
    _lose(bob, game, seq)
    after = log_records(bob.replica, row)
    assert [record.seq for record in after] == [record.seq for record in before]
    lost = [record for record in after if record.seq == seq]
    assert [record.kind for record in lost] == ["lost"]
    assert lost[0].events[0].startswith(f"packet {seq} is not in this home's store")
    assert [r for r in after if r.seq != seq] == [r for r in before if r.seq != seq]


@pytest.mark.parametrize("lost", [(-3,), (-4, -3), (-5, -4, -3), (-1,)], ids=str)
def test_a_resent_copy_fills_a_lost_packet_and_the_game_verifies(
    players: dict[str, Player], alice: Player, bob: Player, game: bytes, lost: tuple[int, ...]
) -> None:
    """Lost rows in the middle (one, or several in a row, filled from the top down as the
    packet after each arrives), or the one before the head: the other side's resend fills
    them and nothing is refused."""
    play_notes(players, game, 6)
    head = bob.row(game).head_seq
    seqs = [head + offset for offset in lost]
    _lose(bob, game, *seqs)
    play_notes(players, game, 2)  # the game goes on meanwhile

    assert resend(alice.replica, alice.row(game), seqs[0], now, every_seat=True)
    alice.sync()
    report = bob.sync()
    filled = [o for o in report.received if o.seq == seqs[-1]]
    assert [o.status for o in filled] == ["duplicate"]
    listed = ", ".join(str(seq) for seq in seqs)
    gone = f"packets {listed} were lost" if len(seqs) > 1 else f"packet {listed} was lost"
    assert f"{gone} from this home's store" in filled[0].detail
    assert not [o for o in report.received if o.status == "rejected"]
    assert bob.count("rejected") == 0
    for seq in seqs:
        assert bob.packet(game, seq) == alice.packet(game, seq)
    assert bob.replica.verify(game) == alice.row(game).state_hash
    assert [line for line in bob.replica.store.repairs if "lost from" in line] == [
        f"game {bob.row(game).name}: {gone} from this home's store; "
        "the other side's copies fill their place"
    ]


def test_a_copy_the_chain_does_not_name_is_refused_and_the_real_one_still_fills(
    players: dict[str, Player], alice: Player, bob: Player, game: bytes
) -> None:
    """A packet signed for a lost position by its seat, but not the one the next packet names
    (a modified client trying to rewrite history through the gap): refused as not fitting."""
    play_notes(players, game, 6)
    head = bob.row(game).head_seq
    seq = head - 3
    real = alice.packet(game, seq)
    body = peek_body(real)
    assert body is not None
    _lose(bob, game, seq)
    author = players[body.seat]
    forged = sign_body(msgspec.structs.replace(body, written_at="forged"), author.key)
    assert read_envelope(forged).body != read_envelope(real).body
    outcome = bob.replica.receive(forged, source="mail", now=now())
    assert outcome.status == "rejected"
    assert f"packet {seq} from {body.seat} does not fit this game's chain" in outcome.detail

    outcome = bob.replica.receive(real, source="mail", now=now())
    assert outcome.status == "duplicate", outcome
    assert bob.replica.verify(game) == alice.row(game).state_hash


def test_two_different_copies_for_lost_positions_in_a_row_are_evidence(
    players: dict[str, Player], alice: Player, bob: Player, game: bytes
) -> None:
    """Where the packet after a lost one is lost too, a copy waits for it; a second, different
    packet from the same seat for that position is two signed packets for one place."""
    play_notes(players, game, 6)
    head = bob.row(game).head_seq
    seq = head - 4
    real = alice.packet(game, seq)
    body = peek_body(real)
    assert body is not None
    _lose(bob, game, seq, seq + 1)
    held = bob.replica.receive(real, source="mail", now=now())
    assert held.status == "buffered", held
    author = players[body.seat]
    forged = sign_body(msgspec.structs.replace(body, written_at="forged"), author.key)
    outcome = bob.replica.receive(forged, source="mail", now=now())
    assert outcome.status == "equivocation", outcome


def test_a_sync_asks_for_a_lost_packet_and_the_other_home_sends_it_by_itself(
    players: dict[str, Player], alice: Player, bob: Player, game: bytes, network: LoopbackNetwork
) -> None:
    """Nobody runs anything: Bob's sync finds the gap, asks once (a note and a signed ask),
    Alice's sync answers the ask, and Bob's next sync fills the gap from her copies."""
    play_notes(players, game, 6)
    alice.handed_over(game)  # (handed over by play_notes)
    row = bob.row(game)
    seq = row.head_seq - 3
    _lose(bob, game, seq)
    notes = NotesTransport(network, bob.transport.name)
    report = asyncio.run(sync(bob.replica, notes, now))
    assert report.requests == [
        f"asked {alice.address} to send packet {seq} of {row.name} again "
        "(it was lost from this home's store, or damaged there)"
    ]
    ((to, subject, lines),) = notes.notes
    assert to == [alice.address]
    assert subject == f"[hexpost] {row.name}: please send packet {seq} again (lost or damaged here)"
    assert f"`hexpost resend {row.name} --from {seq} --to {seq} --every-seat`" in " ".join(lines)
    assert asyncio.run(sync(bob.replica, notes, now)).requests == []  # asked once

    answered = alice.sync()
    assert [o.status for o in answered.received] == ["resend"]
    filled = bob.sync()
    assert [o.detail for o in filled.received if o.seq == seq] == [
        f"packet {seq} was lost from this home's store, and the chain names these copies "
        "there: kept again"
    ]
    assert bob.replica.verify(game) == alice.row(game).state_hash
    bob.reopen()
    assert bob.replica.first_lost(game) is None


def test_verify_names_a_run_of_lost_packets_and_asks_for_those_only(
    players: dict[str, Player], bob: Player, game: bytes
) -> None:
    play_notes(players, game, 6)
    row = bob.row(game)
    seq = row.head_seq - 4
    _lose(bob, game, seq, seq + 1)
    wanted = f"^packets {seq} to {seq + 1}: not in this home's store, though the packets after them"
    with pytest.raises(HexpostError, match=wanted) as raised:
        bob.replica.verify(game)
    assert _advice(row.name, seq, seq + 1) in str(raised.value)
    lost = [record for record in log_records(bob.replica, row) if record.kind == "lost"]
    assert [record.seq for record in lost] == [seq, seq + 1]
    assert all(_advice(row.name, seq, seq + 1) in record.events[0] for record in lost)


@pytest.mark.parametrize("second", ["lost", "damaged"])
def test_faults_apart_are_named_in_one_advice_and_mended_by_one_resend(
    players: dict[str, Player], alice: Player, bob: Player, game: bytes, second: str
) -> None:
    """A lost row, and three packets on another lost or damaged one: `verify` stops at the
    first, but its advice reaches the second (`saves.faults`), so one resend by the other
    player mends both: one email round trip, not two."""
    play_notes(players, game, 8)
    row = bob.row(game)
    seq = row.head_seq - 6
    _lose(bob, game, seq)
    if second == "lost":
        _lose(bob, game, seq + 3)
    else:
        with bob.replica.store.transaction() as db:
            db.execute(
                "UPDATE packets SET data = substr(data, 1, 40) WHERE game_id = ? AND seq = ?",
                (game, seq + 3),
            )
        bob.reopen()
    with pytest.raises(HexpostError, match=f"^packet {seq}: not in this home's store") as raised:
        bob.replica.verify(game)
    assert _advice(row.name, seq, seq + 3) in str(raised.value)
    assert resend(alice.replica, alice.row(game), seq, now, every_seat=True, to_seq=seq + 3)
    alice.sync()
    bob.sync()
    assert bob.replica.verify(game) == alice.row(game).state_hash


def test_lost_packets_far_back_are_asked_for_alone_and_sent_by_themselves(
    players: dict[str, Player],
    alice: Player,
    bob: Player,
    game: bytes,
    network: LoopbackNetwork,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A run of lost rows with more of the chain after it than hexpost sends by itself (here
    made 3): the ask names its end, so Alice's home sends those two and not the rest, by
    itself. (Before, the ask asked for everything from the gap on, and waited for her.)"""
    monkeypatch.setattr(resend_asks, "MAX_AUTO_RESEND", 3)
    play_notes(players, game, 6)
    alice.handed_over(game)
    row = bob.row(game)
    seq = row.head_seq - 5
    _lose(bob, game, seq, seq + 1)
    notes = NotesTransport(network, bob.transport.name)
    report = asyncio.run(sync(bob.replica, notes, now))
    assert report.requests == [
        f"asked {alice.address} to send packets {seq} to {seq + 1} of {row.name} again "
        "(it was lost from this home's store, or damaged there)"
    ]
    ((_, subject, lines),) = notes.notes
    assert subject == (
        f"[hexpost] {row.name}: please send packets {seq} to {seq + 1} again (lost or damaged here)"
    )
    command = f"`hexpost resend {row.name} --from {seq} --to {seq + 1} --every-seat`"
    assert command in " ".join(lines)

    answered = alice.sync()
    assert [o.detail for o in answered.received] == [
        f"{bob.row(game).my_seat} asked for packets {seq} to {seq + 1} of {row.name} again: "
        f"sending 2 packets ({seq}-{seq + 1})"
    ]
    bob.sync()
    assert bob.replica.verify(game) == alice.row(game).state_hash


def test_a_lost_genesis_is_asked_for_from_the_seats_the_state_names(
    players: dict[str, Player], alice: Player, bob: Player, game: bytes, network: LoopbackNetwork
) -> None:
    play_notes(players, game, 4)
    alice.handed_over(game)
    _lose(bob, game, 0)
    asks_and_is_sent(bob, alice, network, game, 0)


def test_a_whole_chain_is_counted_once_a_process(
    players: dict[str, Player], bob: Player, game: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    play_notes(players, game, 4)
    bob.reopen()
    looked: list[bytes] = []
    kept = store_repairs.first_lost

    def counted(store: Store, game_id: bytes, head_seq: int) -> int | None:
        looked.append(game_id)
        return kept(store, game_id, head_seq)

    monkeypatch.setattr(store_repairs, "first_lost", counted)
    for _ in range(3):
        assert bob.replica.first_lost(game) is None
    assert looked == [game]


@pytest.mark.parametrize("lost", [(0,), (1,), (4, 5), (2, 4), (-1,)], ids=str)
def test_the_first_lost_position_is_found(
    players: dict[str, Player], bob: Player, game: bytes, lost: tuple[int, ...]
) -> None:
    play_notes(players, game, 4)
    head = bob.row(game).head_seq
    seqs = [seq if seq >= 0 else head + seq for seq in lost]
    _lose(bob, game, *seqs)
    assert store_repairs.first_lost(bob.replica.store, game, head) == seqs[0]


@pytest.mark.parametrize("whose", ["the other seat's", "its own"])
def test_a_lost_last_packet_applies_again_over_what_was_kept_of_it(
    players: dict[str, Player], game: bytes, whose: str
) -> None:
    """The last stored packet lost (the game's head moves back to the one before it): what
    was kept of it (its events, its state, its outbox entry) must not stop its copy from
    applying again."""
    play_notes(players, game, 4)
    author, other = owner(players, game)
    author.replica.submit(game, [{"type": "note", "text": "last"}], now=now())
    other.replica.receive(author.packet(game, author.row(game).head_seq), source="t", now=now())
    loser, keeper = (other, author) if whose == "the other seat's" else (author, other)
    head = keeper.row(game).head_seq
    _lose(loser, game, head)
    assert loser.replica.state(game).core.seq == head - 1
    outcome = loser.replica.receive(keeper.packet(game, head), source="mail", now=now())
    assert outcome.status == "applied", outcome
    assert loser.row(game).state_hash == keeper.row(game).state_hash
    assert loser.replica.events(game) == keeper.replica.events(game)
    assert loser.replica.verify(game) == keeper.row(game).state_hash


@pytest.mark.parametrize("state", ["readable", "unreadable"])
def test_a_lost_packet_whose_seat_s_kept_key_was_damaged_too_is_filled(
    players: dict[str, Player], alice: Player, bob: Player, game: bytes, state: str
) -> None:
    """The seat's kept key is rebuilt (`Reader.check_keys`) before the copy is judged: a
    damaged key row must not make the real packet "not fit". Where the game's state cannot
    be read either (its kept states after the gap lost too), the keys come from the chain's
    genesis and joins."""
    play_notes(players, game, 6)
    seq = bob.row(game).head_seq - 3
    real = alice.packet(game, seq)
    body = peek_body(real)
    assert body is not None
    _lose(bob, game, seq)
    with bob.replica.store.transaction() as db:
        db.execute(
            "UPDATE game_keys SET seat = 'nobody' WHERE game_id = ? AND seat = ?",
            (game, body.seat),
        )
        if state == "unreadable":
            db.execute("DELETE FROM snapshots WHERE game_id = ? AND seq > 0", (game,))
    bob.reopen()
    if state == "unreadable":
        with pytest.raises(HexpostError, match="not in this home's store"):
            bob.replica.state(game)
    outcome = bob.replica.receive(real, source="mail", now=now())
    assert outcome.status == "duplicate", outcome
    assert bob.replica.verify(game) == alice.row(game).state_hash


def test_events_filed_under_the_next_position_do_not_stop_its_packet(
    players: dict[str, Player], alice: Player, bob: Player, game: bytes
) -> None:
    """An event row whose position was damaged onto the next one: that packet's own events
    take the place when it comes (before, it was refused with an IntegrityError)."""
    play_notes(players, game, 4)
    head = bob.row(game).head_seq
    with bob.replica.store.transaction() as db:
        moved = db.execute(
            "UPDATE events SET seq = ? WHERE game_id = ? AND seq = ? AND idx = 0",
            (head + 1, game, head),
        )
        assert moved.rowcount == 1
    bob.reopen()
    play_notes(players, game, 1)
    assert bob.row(game).state_hash == alice.row(game).state_hash
    assert bob.count("rejected") == 0
    assert [e for s, e in bob.replica.events(game) if s == head + 1] == [
        e for s, e in alice.replica.events(game) if s == head + 1
    ]


@pytest.mark.parametrize("own_key", ["kept", "damaged too"])
def test_a_game_whose_head_no_longer_replays_is_asked_for_by_itself(
    players: dict[str, Player],
    alice: Player,
    bob: Player,
    game: bytes,
    network: LoopbackNetwork,
    own_key: str,
) -> None:
    """Two damages: a stored packet no longer opens and the kept head state is lost, so the
    game cannot be read at all. Bob's sync asks for the chain from that packet (the game's
    seats and head read from the genesis and the stored rows), Alice's answers, and the
    game is readable again, with nobody running anything. A third, the key kept for Bob's
    own seat, must not keep his ask from being signed: the state it would be checked
    against is what cannot be read, and Alice's home checks the ask anyway."""
    play_notes(players, game, 6)
    alice.handed_over(game)
    row = bob.row(game)
    seq = row.head_seq - 3
    with bob.replica.store.transaction() as db:
        db.execute("UPDATE packets SET data = x'c1' WHERE game_id = ? AND seq = ?", (game, seq))
        db.execute("DELETE FROM snapshots WHERE game_id = ? AND seq > 0", (game,))
        if own_key == "damaged too":
            db.execute(
                "UPDATE game_keys SET public_key = zeroblob(32) WHERE game_id = ? AND seat = ?",
                (game, row.my_seat),
            )
    bob.reopen()
    with pytest.raises(HexpostError, match=f"stored packet {seq}: "):
        bob.replica.state(game)
    notes = NotesTransport(network, bob.transport.name)
    report = asyncio.run(sync(bob.replica, notes, now))
    assert report.requests == [  # (no fault after it: that packet alone)
        f"asked {alice.address} to send packet {seq} of {row.name} again "
        "(it was lost from this home's store, or damaged there)"
    ]
    answered = alice.sync()
    assert [o.status for o in answered.received] == ["resend"]
    bob.sync()
    assert bob.replica.state(game).core.seq == row.head_seq
    assert bob.replica.verify(game) == alice.row(game).state_hash


def test_a_packet_that_comes_while_its_game_cannot_be_read_is_held_then_applied(
    players: dict[str, Player], game: bytes
) -> None:
    """Not refused: the game may be mended by the next copies (before, it was refused as
    "could not be taken in", and only a second ask brought it again)."""
    play_notes(players, game, 6)
    author, other = owner(players, game)
    seq = other.row(game).head_seq - 3
    with other.replica.store.transaction() as db:
        db.execute("UPDATE packets SET data = x'c1' WHERE game_id = ? AND seq = ?", (game, seq))
        db.execute("DELETE FROM snapshots WHERE game_id = ? AND seq > 0", (game,))
    other.reopen()
    sub = author.replica.submit(game, [{"type": "note", "text": "later"}], now=now())
    outcome = other.replica.receive(author.packet(game, sub.seq), source="mail", now=now())
    assert outcome.status == "buffered", outcome
    assert "cannot be read here" in outcome.detail and outcome.attention
    author.handed_over(game)
    assert resend(author.replica, author.row(game), seq, now, every_seat=True)
    author.sync()
    other.sync()  # mends the damaged packet
    other.sync()  # applies the held one
    assert other.row(game).state_hash == author.row(game).state_hash
    assert other.count("rejected") == 0


def test_a_packet_misfiled_and_damaged_is_filled_from_the_other_side_s_copy(
    players: dict[str, Player], alice: Player, bob: Player, game: bytes
) -> None:
    """Its row filed under a game id of nothing, its bytes no longer readable: it cannot go
    back by itself, so its place is a gap; the copy sent again takes the place, and the
    useless row holding its id gives way (before, the copy failed on that id)."""
    play_notes(players, game, 6)
    seq = bob.row(game).head_seq - 3
    with bob.replica.store.transaction() as db:
        db.execute(
            "UPDATE packets SET game_id = x'0102', data = x'c1' WHERE game_id = ? AND seq = ?",
            (game, seq),
        )
    bob.reopen()
    outcome = bob.replica.receive(alice.packet(game, seq), source="mail", now=now())
    assert outcome.status == "duplicate", outcome
    assert bob.replica.verify(game) == alice.row(game).state_hash
    assert bob.count("packets", bytes([1, 2])) == 0


def test_a_packet_filed_at_another_s_position_gives_way_to_that_one_s_copy(
    players: dict[str, Player], alice: Player, bob: Player, game: bytes
) -> None:
    """Two rows' positions damaged: packet B's row moved out of the chain (a stray), and
    packet A's row onto B's position. The copy of B that the other side sends then met a
    different packet of its own seat at its place, and was taken for a second packet signed
    for one position: evidence, the game frozen. A stored row whose bytes say another
    position is put back where they say first, and the copy fills B's place."""
    play_notes(players, game, 6)
    head = bob.row(game).head_seq
    first, second = head - 4, head - 2
    with bob.replica.store.transaction() as db:
        db.execute("UPDATE packets SET seq = -92 WHERE game_id = ? AND seq = ?", (game, second))
        db.execute(
            "UPDATE packets SET seq = ? WHERE game_id = ? AND seq = ?", (second, game, first)
        )
    bob.reopen()
    outcome = bob.replica.receive(alice.packet(game, second), source="mail", now=now())
    assert outcome.status in ("duplicate", "applied"), outcome
    assert not bob.row(game).frozen
    assert bob.packet(game, first) == alice.packet(game, first)
    assert bob.packet(game, second) == alice.packet(game, second)
    assert bob.replica.verify(game) == alice.row(game).state_hash


def test_the_look_for_faults_after_a_gap_is_made_once_a_process(
    players: dict[str, Player], bob: Player, game: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each read of a state past a gap names it with the range to ask for, which opens every
    stored packet after it (`saves.faults`): a sync and the app read such a state many times,
    so the range is worked out once a gap and process."""
    play_notes(players, game, 6)
    seq = bob.row(game).head_seq - 3
    _lose(bob, game, seq)
    looked: list[int] = []
    kept = faults.last_fault

    def counted(store: Store, game_id: bytes, first: int) -> int:
        looked.append(first)
        return kept(store, game_id, first)

    monkeypatch.setattr(faults, "last_fault", counted)
    for _ in range(3):
        with pytest.raises(HexpostError, match=f"^packet {seq}: not in this home's store"):
            bob.replica.state(game, at=seq + 1)
    assert looked == [seq]


@pytest.mark.parametrize("damage", ["events lost too", "events changed too"])
def test_a_filled_packet_s_events_are_made_again_from_it(
    players: dict[str, Player], alice: Player, bob: Player, game: bytes, damage: str
) -> None:
    """Whatever the disk left of a lost packet's events is not trusted once the packet is
    filled: they are made again from it when first read, then kept with their digest (before,
    the filled packet had no digest, and its events read as the disk left them)."""
    play_notes(players, game, 6)
    seq = bob.row(game).head_seq - 3
    with bob.replica.store.transaction() as db:
        if damage == "events lost too":
            db.execute("DELETE FROM events WHERE game_id = ? AND seq = ?", (game, seq))
        else:  # another packet's events, which still decode
            db.execute("DELETE FROM events WHERE game_id = ? AND seq = ?", (game, seq))
            db.execute(
                "INSERT INTO events (game_id, seq, idx, event) SELECT game_id, ?, idx, event "
                "FROM events WHERE game_id = ? AND seq = ?",
                (seq, game, seq - 1),
            )
    _lose(bob, game, seq)
    assert resend(alice.replica, alice.row(game), seq, now, every_seat=True)
    alice.sync()
    bob.sync()
    assert bob.packet(game, seq) == alice.packet(game, seq)

    theirs = [e for s, e in alice.replica.events(game) if s == seq]
    assert theirs
    assert [e for s, e in bob.replica.events(game) if s == seq] == theirs
    bob.reopen()  # kept as made again, with a digest a later read checks
    assert [e for s, e in bob.replica.events(game) if s == seq] == theirs
    assert not [line for line in bob.replica.store.repairs if "events" in line]
    digest = bob.replica.store.db.execute(
        "SELECT events_digest FROM packets WHERE game_id = ? AND seq = ?", (game, seq)
    ).fetchone()[0]
    assert digest is not None and len(digest) == 16
