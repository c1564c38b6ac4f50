"""A gap the other seat's move waits behind is asked for once it has lasted an hour.

A home that holds a later packet of the other seat's but not the one before it waits: mail
arrives out of order by minutes (a greylisting server holds a message for up to half an hour).
Before, it waited for good when that packet was lost in the mail, or lost from this home's
store as the last row of its chain, while the other side waited for this home's move: both
stalled, and the reminders told the other player it was their move. Now a sync asks the other
player's hexpost for the chain from the gap (a note and a signed ask, once for that position)
when the held packet has waited `behind.GAP_PATIENCE` seconds, and the answer fills it.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from mail.loopback import LoopbackNetwork
from mail.sync import sync
from saves import behind
from tests.saves.conftest import NotesTransport, Player, now, owner, play_notes


def _at(hour: int) -> str:
    return f"2031-01-01T{hour:02d}:00:00Z"


def _two_notes_one_lost(players: dict[str, Player], game: bytes) -> tuple[Player, Player, int]:
    """The seat that owes the move writes two packets; the other home gets only the second
    (handed over at 00:00). Returns the author, the other home, and the lost position."""
    author, other = owner(players, game)
    first = author.replica.submit(game, [{"type": "note", "text": "one"}], now=now())
    second = author.replica.submit(game, [{"type": "note", "text": "two"}], now=now())
    held = other.replica.receive(author.packet(game, second.seq), source="mail", now=_at(0))
    assert held.status == "buffered"
    author.handed_over(game)  # (the mail that was lost)
    return author, other, first.seq


def test_a_gap_is_asked_for_after_an_hour_and_filled(
    players: dict[str, Player], game: bytes, network: LoopbackNetwork
) -> None:
    play_notes(players, game, 3)
    author, other, seq = _two_notes_one_lost(players, game)
    notes = NotesTransport(network, other.transport.name)
    early = asyncio.run(sync(other.replica, notes, lambda: _at(0)))
    assert early.requests == [] and notes.notes == []  # (it may still come)

    late = asyncio.run(sync(other.replica, notes, lambda: _at(behind.GAP_PATIENCE // 3600 + 1)))
    name = other.row(game).name
    assert late.requests == [
        f"asked {author.address} to send packet {seq} of {name} again "
        "(it has not come, though later ones have)"
    ]
    ((to, subject, lines),) = notes.notes
    assert to == [author.address]
    assert subject == f"[hexpost] {name}: please send packet {seq} again"
    assert f"`hexpost resend {name} --from {seq} --to {seq} --every-seat`" in " ".join(lines)
    assert asyncio.run(sync(other.replica, notes, lambda: _at(5))).requests == []  # once

    answered = author.sync()  # answers the ask by itself, with that packet only
    assert [o.status for o in answered.received] == ["resend"]
    assert answered.sent == [seq]
    report = other.sync()
    assert seq in {applied for o in report.received for applied in o.applied}
    assert other.row(game).state_hash == author.row(game).state_hash


def test_a_lost_last_row_behind_held_packets_is_asked_for(
    players: dict[str, Player], game: bytes, network: LoopbackNetwork
) -> None:
    """The other home's last stored packet lost (its head moves back) while later packets of
    the other seat's are held: the same ask mends it."""
    play_notes(players, game, 3)
    author, other = owner(players, game)
    first = author.replica.submit(game, [{"type": "note", "text": "one"}], now=now())
    other.replica.receive(author.packet(game, first.seq), source="mail", now=_at(0))
    second = author.replica.submit(game, [{"type": "note", "text": "two"}], now=now())
    with other.replica.store.transaction() as db:
        db.execute("DELETE FROM packets WHERE game_id = ? AND seq = ?", (game, first.seq))
    other.reopen()
    held = other.replica.receive(author.packet(game, second.seq), source="mail", now=_at(0))
    assert held.status == "buffered"
    author.handed_over(game)
    notes = NotesTransport(network, other.transport.name)
    late = asyncio.run(sync(other.replica, notes, lambda: _at(2)))
    assert late.requests == [
        f"asked {author.address} to send packet {first.seq} of {other.row(game).name} again "
        "(it has not come, though later ones have)"
    ]
    author.sync()
    other.sync()
    assert other.row(game).state_hash == author.row(game).state_hash
    assert other.replica.verify(game) == author.row(game).state_hash


def test_a_gap_that_stays_open_is_asked_for_again_less_and_less_often(
    players: dict[str, Player], game: bytes, network: LoopbackNetwork
) -> None:
    """The ask for the gap, or the answer to it, was lost in the mail too. Before, the gap
    was asked for once, and then only a reminder's ask a reply window (72 hours) on could
    bring the packet. Now it is asked for again 12 hours after, then each time after as long
    as the gap had lasted when last asked: a player away for two weeks gets six asks."""
    play_notes(players, game, 3)
    author, other, seq = _two_notes_one_lost(players, game)
    notes = NotesTransport(network, other.transport.name)

    def asked_at(hours: int) -> list[str]:
        when = (datetime(2031, 1, 1, tzinfo=UTC) + timedelta(hours=hours)).strftime(
            "%Y-%m-%dT%H:%M:%SZ"
        )
        return asyncio.run(sync(other.replica, notes, lambda: when)).requests

    asks = {hours: asked for hours in range(0, 14 * 24) if (asked := asked_at(hours))}
    assert list(asks) == [1, 13, 26, 52, 104, 208]
    assert all(f"to send packet {seq} of" in line for (line,) in asks.values())
    assert len(notes.notes) == 6  # (a note beside each ask)
    answered = author.sync()  # six asks at once, as a player back from two weeks away reads
    assert answered.sent == [seq], "answered once: the others are copies within the hour"
    other.sync()
    assert other.row(game).state_hash == author.row(game).state_hash
