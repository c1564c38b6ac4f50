"""The packets a home holds for a game, waiting for the ones before them, are bounded.

A packet for a position past the next is held until the gap fills (`saves.held`): mail comes
out of order. Before, nothing bounded how many: a seat's modified client could sign a packet
for every position up to 2^31 (one per position, as two would be evidence against it), each
up to a megabyte, and the other home kept them all. Now a game holds at most
`held.HELD_PER_GAME` packets and `held.HELD_BYTES_PER_GAME` bytes; past that a packet is
refused, saying why, and the game goes on.
"""

from __future__ import annotations

import msgspec
import pytest

from engine.core.packets import Turn, peek_body, sign_body
from saves import held, store_inbox
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
    monkeypatch.setattr(held, "HELD_PER_GAME", 5)
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
    monkeypatch.setattr(held, "HELD_BYTES_PER_GAME", 20_000)
    outcomes, _ = _flood(players, game, 6, pad=6_000)
    assert [o.status for o in outcomes] == ["buffered"] * 3 + ["rejected"] * 3


def test_a_packet_too_far_ahead_is_not_held(
    players: dict[str, Player], game: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only the `HELD_AHEAD` positions past the head are held: a flood cannot pick
    positions the chain will never reach."""
    monkeypatch.setattr(held, "HELD_AHEAD", 12)
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


def test_a_held_packet_for_a_position_the_chain_fills_is_let_go(
    players: dict[str, Player], game: bytes
) -> None:
    """A packet held for a position that the chain then fills with another seat's packet can
    never be applied, so it is let go (before, it stayed held for good, filling the bound).
    Here: a packet of the seat not on the move, signed by its key for a position ahead, in
    its own home (a modified client's copy, say), then the other seat's moves by mail."""
    play_notes(players, game, 2)
    author, other = owner(players, game)
    (early,) = _far_ahead(other, game, 1)  # for position head + 10
    now = "2030-01-02T00:00:00Z"
    assert other.replica.receive(early, source="early", now=now).status == "buffered"
    for n in range(10):
        author.replica.submit(game, [{"type": "note", "text": f"n{n}"}], now=now)
    author.sync()
    other.sync()
    assert other.row(game).head_seq == peek_body(early).seq  # type: ignore[union-attr]
    assert store_inbox.held_count(other.replica.store, game) == 0
    assert author.row(game).state_hash == other.row(game).state_hash


def test_packets_held_for_filled_positions_make_room_when_the_bound_is_reached(
    players: dict[str, Player], game: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Packets an older version left held for positions the chain has filled since are let go
    when the game's bound is reached, before anything new is refused."""
    monkeypatch.setattr(held, "HELD_PER_GAME", 3)
    play_notes(players, game, 2)
    author, other = owner(players, game)
    store = other.replica.store
    for seq in (1, 2, 3):  # (as an older version left them: positions stored since)
        data = author.packet(game, seq)
        store_inbox.buffer(store, game, seq, bytes([seq]) * 32, "x", data, "2030", b"")
    assert store_inbox.held_count(store, game) == 3
    flood = _far_ahead(author, game, 4)
    now = "2030-01-02T00:00:00Z"
    outcomes = [other.replica.receive(data, source="flood", now=now) for data in flood]
    assert [o.status for o in outcomes] == ["buffered"] * 3 + ["rejected"]
    assert store_inbox.held_count(store, game) == 3
