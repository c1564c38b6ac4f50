"""The packets a home holds for a game, waiting for the ones before them, are bounded.

A packet for a position past the next is held until the gap fills (`saves.inbox`): mail comes
out of order. Before, nothing bounded how many: a seat's modified client could sign a packet
for every position up to 2^31 (one per position, as two would be evidence against it), each
up to a megabyte, and the other home kept them all. Now a game holds at most
`inbox.HELD_PER_GAME` packets and `inbox.HELD_BYTES_PER_GAME` bytes; past that a packet is
refused, saying why, and the game goes on.
"""

from __future__ import annotations

import msgspec
import pytest

from engine.core.packets import Turn, peek_body, sign_body
from saves import inbox, store_inbox
from saves.outcome import Outcome
from tests.saves.conftest import Player, owner, play_notes


def _far_ahead(author: Player, game: bytes, count: int, pad: int = 0) -> list[bytes]:
    """``count`` packets signed by ``author``'s key for its own seat, for positions ten and
    more past the head (their links made up: none can ever be applied)."""
    head = author.row(game).head_seq
    own = next(
        body
        for seq in range(head, -1, -1)
        if (body := peek_body(author.packet(game, seq))) is not None
        and body.seat == author.row(game).my_seat
    )
    key = author.replica.signing_key()
    return [
        sign_body(
            msgspec.structs.replace(
                own,
                seq=head + 10 + n,
                prev=bytes([n % 256]) * 32,
                kind=Turn(orders=bytes(pad)) if pad else own.kind,
            ),
            key,
        )
        for n in range(count)
    ]


def _flood(
    players: dict[str, Player], game: bytes, count: int, pad: int = 0
) -> tuple[list[Outcome], int]:
    """Two moves played, then ``count`` packets far ahead (`_far_ahead`) from the seat that
    owes the move to the other home: what that home made of each, and its head before."""
    play_notes(players, game, 2)
    author, other = owner(players, game)
    head = other.row(game).head_seq
    flood = _far_ahead(author, game, count, pad)
    assert all(len(data) > pad for data in flood)
    now = "2030-01-02T00:00:00Z"
    return [other.replica.receive(data, source="flood", now=now) for data in flood], head


def test_a_flood_of_packets_far_ahead_is_held_up_to_the_bound(
    players: dict[str, Player], game: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(inbox, "HELD_PER_GAME", 5)
    outcomes, _ = _flood(players, game, 8)
    assert [o.status for o in outcomes] == ["buffered"] * 5 + ["rejected"] * 3
    assert outcomes[-1].detail.startswith(
        f"packet {outcomes[-1].seq} not held: this game holds 5 packets waiting for the ones "
        "before them already"
    )
    author, other = owner(players, game)
    assert store_inbox.held_count(other.replica.store, game) == 5
    play_notes(players, game, 2)  # the game goes on
    assert author.row(game).state_hash == other.row(game).state_hash


def test_held_packets_are_bounded_in_bytes_too(
    players: dict[str, Player], game: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(inbox, "HELD_BYTES_PER_GAME", 20_000)
    outcomes, _ = _flood(players, game, 6, pad=6_000)
    assert [o.status for o in outcomes] == ["buffered"] * 3 + ["rejected"] * 3


def test_a_packet_too_far_ahead_is_not_held(
    players: dict[str, Player], game: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only the `HELD_AHEAD` positions past the head are held: a flood cannot pick
    positions the chain will never reach."""
    monkeypatch.setattr(inbox, "HELD_AHEAD", 12)
    outcomes, head = _flood(players, game, 5)
    assert [o.seq for o in outcomes] == [head + n for n in (10, 11, 12, 13, 14)]
    assert [o.status for o in outcomes] == ["buffered"] * 3 + ["rejected"] * 2
    assert outcomes[-1].detail == (
        f"packet {head + 14} not held: it is more than 12 positions past this game's head "
        f"({head}); a resend brings it again once the chain is nearer"
    )


def test_a_held_packet_then_another_for_its_position_in_order_is_equivocation(
    players: dict[str, Player], game: bytes
) -> None:
    """Attack: a seat's modified client sends a packet for a position ahead (held), then a
    different one for the same position, which arrives when the chain reaches it. Both are
    signed by the seat's key for one position: evidence, and the game is frozen (before, the
    second was applied, and the first lay held with nothing said)."""
    play_notes(players, game, 2)
    author, other = owner(players, game)
    head = other.row(game).head_seq
    (early,) = _far_ahead(author, game, 1)  # for position head + 10
    assert other.replica.receive(early, source="early", now="2030-01-02T00:00:00Z").status == (
        "buffered"
    )
    for n in range(10):
        assert owner(players, game)[0] is author  # (notes leave the move with the same seat)
        author.replica.submit(game, [{"type": "note", "text": f"n{n}"}], now="2030-01-02T01:00:00Z")
    report = author.sync() and other.sync()
    statuses = [o.status for o in report.received]
    assert statuses[-1] == "equivocation", report.received
    assert other.row(game).head_seq == head + 9
    assert other.row(game).frozen
