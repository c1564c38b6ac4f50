"""A damaged stored packet: named where it is read, and put right by the other side's copy.

The kept states and events (`tests/saves/test_damaged_snapshot.py`) are caches that a home
rebuilds from its packets by itself. The packets are what it cannot rebuild, so their damage
is tested apart: a game whose packets no longer replay is the only one left unreadable (the
games list, the sync and the reminders go on past it); a review and the log name the
packet that no longer decodes; `verify` says what to ask the other player for, and the
copy their `resend` brings takes the damaged one's place. Damage that still decodes and
applies is not replayed into the state either.
"""

from __future__ import annotations

import asyncio
import re

import pytest

from engine.core.errors import HexpostError
from mail.loopback import LoopbackNetwork
from mail.sync import ask_for_damaged
from saves import reminders
from tests.saves.conftest import NotesTransport, Player, create_game, now
from tests.saves.test_damaged_snapshot import _break_packets, _patch, long_game
from tui.services import games as listing
from tui.services.log import log_records
from tui.services.sync import owes_automatic_reply
from tui.services.trust import resend

__all__ = ["long_game"]  # the fixture, used by name


def test_packets_that_no_longer_replay_make_that_game_alone_unreadable(
    alice: Player, bob: Player, long_game: bytes
) -> None:
    """The games list goes on: the damaged game is listed with a note naming the packet."""
    other = create_game(bob, opponent="carol@example.org", name="other")
    game = long_game
    seq = _break_packets(bob, game)

    with pytest.raises(HexpostError, match=f"packet {seq}"):
        bob.replica.state(game)
    listed = {summary.game: summary for summary in listing.summaries(bob.replica)}
    broken = listed[game.hex()]
    assert len(broken.notes) == 1
    assert broken.notes[0].startswith("cannot be read: ")
    assert f"packet {seq}" in broken.notes[0]
    assert "hexpost verify" in broken.notes[0]
    assert listed[other.hex()].notes == ()


def test_a_sync_and_its_reminders_go_on_past_a_game_that_cannot_be_read(
    alice: Player, bob: Player, long_game: bytes
) -> None:
    """The pull, the automatic replies, the asks for damaged packets and the reminders read
    every game: one that cannot be read is passed over, and the others are served. (The sync
    comes last: the copies of the game's packets it reads again may put the game right.)"""
    other = create_game(alice, name="other")
    alice.sync()
    seq = _break_packets(bob, long_game)
    with bob.replica.store.transaction() as db:  # (the tests' clock is not the reminders')
        db.execute(
            "UPDATE games SET waiting_since = '2030-01-01T00:00:00Z' WHERE game_id = ?",
            (long_game,),
        )
    assert reminders.due(bob.replica, "2099-01-01T00:00:00Z") == []
    assert not owes_automatic_reply(bob.replica)
    notes = NotesTransport(LoopbackNetwork(), "loopback:notes")
    asked = asyncio.run(ask_for_damaged(bob.replica, notes, now))
    assert [line.split(" (")[0] for line in asked] == [  # only that game, for its broken packet
        f"asked {alice.address} to send packet {seq} of {bob.row(long_game).name} again"
    ]
    assert [subject for _, subject, _ in notes.notes] == [
        f"[hexpost] {bob.row(long_game).name}: please send packet {seq} again (lost or damaged "
        "here)"
    ]
    report = bob.sync()
    assert not report.failed
    assert other in {outcome.game_id for outcome in report.received}


def test_a_stored_packet_that_no_longer_opens_is_named_in_a_review(
    bob: Player, long_game: bytes
) -> None:
    game = long_game
    seq = bob.row(game).head_seq - 3
    with bob.replica.store.transaction() as db:
        db.execute("UPDATE packets SET data = x'c1' WHERE game_id = ? AND seq = ?", (game, seq))
    bob.reopen()
    with pytest.raises(HexpostError, match=f"^stored packet {seq}: not a hexpost packet"):
        bob.replica.states(game, [seq + 1])


def test_the_log_goes_on_past_a_stored_packet_that_no_longer_decodes(
    bob: Player, long_game: bytes
) -> None:
    game = long_game
    row = bob.row(game)
    before = log_records(bob.replica, row)
    seq = row.head_seq - 3
    with bob.replica.store.transaction() as db:
        db.execute("UPDATE packets SET data = x'c1' WHERE game_id = ? AND seq = ?", (game, seq))
    bob.reopen()
    after = log_records(bob.replica, row)
    assert len(after) == len(before)
    damaged = [record for record in after if record.kind == "damaged"]
    assert [record.seq for record in damaged] == [seq]
    assert damaged[0].events[0].startswith(f"stored packet {seq} no longer decodes (")
    assert [r for r in after if r.seq != seq] == [r for r in before if r.seq != seq]


@pytest.mark.parametrize("damage", ["bytes", "key id"])
def test_a_damaged_stored_packet_is_put_right_by_the_other_side_sending_it_again(
    alice: Player, bob: Player, long_game: bytes, damage: str
) -> None:
    """A stored packet's bytes damaged on disk: `verify` names it and says what to ask for;
    the other player's `resend --every-seat` brings a copy that is no longer ignored as a
    duplicate but takes the damaged one's place; then the game verifies. (A bit of the key
    id its envelope names, outside what is signed, is damage too: its signature still
    verified under the sender's key, so the copy was taken for another good one.)"""
    game = long_game
    seq = bob.row(game).head_seq - 4
    data = bytearray(bob.packet(game, seq))
    assert data[:4] == b"\x95\x02\xc4\x08"  # (a version, then the key id's 8 bytes)
    damaged = b"\xc1" if damage == "bytes" else bytes(data[:7] + bytes([data[7] ^ 0x40]) + data[8:])
    with bob.replica.store.transaction() as db:
        db.execute(
            "UPDATE packets SET data = ? WHERE game_id = ? AND seq = ?", (damaged, game, seq)
        )
    bob.reopen()
    wanted = f"ask the other player to run `hexpost resend {bob.row(game).name} --from {seq}"
    with pytest.raises(HexpostError, match=f"^packet {seq}: .*{re.escape(wanted)}"):
        bob.replica.verify(game)

    assert resend(alice.replica, alice.row(game), seq, now, every_seat=True)
    alice.sync()
    report = bob.sync()
    mended = [o for o in report.received if o.seq == seq]
    assert [o.status for o in mended] == ["duplicate"]
    assert "its kept copy here was damaged" in mended[0].detail
    assert bob.packet(game, seq) == alice.packet(game, seq)
    assert bob.replica.verify(game) == bob.row(game).state_hash


def test_a_last_packet_damaged_where_it_still_applies_is_not_replayed_into_the_state(
    alice: Player, bob: Player, long_game: bytes
) -> None:
    """The bytes of the last stored packet damaged in its writer's time stamp (it still
    decodes and applies) and the kept head state lost: rebuilt from those bytes, the state's
    head was a packet id nobody signed, and every packet after it "did not follow" for good.
    The replay now finds those bytes are not the ones kept, names the packet, and the other
    side's copy puts them right."""
    game = long_game
    head = bob.row(game).head_seq
    data = bob.packet(game, head)
    at = data.index(b"2030-01-01T")
    damaged = data[: at + 3] + bytes([data[at + 3] ^ 0x01]) + data[at + 4 :]
    _patch(bob, game, head, None)
    with bob.replica.store.transaction() as db:
        db.execute(
            "UPDATE packets SET data = ? WHERE game_id = ? AND seq = ?", (damaged, game, head)
        )
    bob.reopen()
    with pytest.raises(HexpostError, match=f"stored packet {head}: "):
        bob.replica.state(game)
    assert resend(alice.replica, alice.row(game), head, now, every_seat=True)
    alice.sync()
    bob.sync()
    assert bob.replica.state(game).head == alice.replica.state(game).head
    assert bob.replica.verify(game) == alice.row(game).state_hash
