"""A game's log read from what the store kept, without checking every signature again.

`tui.services.log.log_heads` is the log's records in short: the review indexes a game's chain
with it when it opens. The packets' seats and kinds come from the columns stored with each
packet when it was verified, the late claims' and chat messages' from their kept bodies.
`log_records` (what ``hexpost log`` prints) decodes the kept packets (`kept_body`) without
verifying their signatures again. These tests hold the heads to the records, and the records
to what opening every packet (`open_packet`, signatures checked) gives, on a game with
packets, a late claim and chat messages.
"""

from __future__ import annotations

import pytest

from engine.core import packets
from engine.core.errors import PacketError
from engine.core.owed import pending
from engine.core.packets import kept_body, open_packet
from engine.fe import RULESET
from saves import chat_messages, claims
from tests.saves.conftest import Player, start_game
from tui.services import review
from tui.services.log import log_heads, log_records

LATE = "2030-01-05T00:00:00Z"
"""After the claim's reply window (72 hours from the test clock's packets of 2030-01-01)."""


@pytest.fixture
def alice(two_homes: tuple[Player, Player]) -> Player:
    return two_homes[0]


@pytest.fixture
def bob(two_homes: tuple[Player, Player]) -> Player:
    return two_homes[1]


@pytest.fixture
def game(alice: Player, bob: Player) -> bytes:
    """An accepted game of The Wind: Alice (coalition) created it, Bob (alliance) joined."""
    return start_game(alice, bob)


def test_the_heads_are_the_records_in_short_with_claims_and_chat(
    alice: Player, bob: Player, game: bytes
) -> None:
    players = {"coalition": alice, "alliance": bob}
    late = pending(RULESET, alice.replica.state(game))[0].seats[0]
    claimant = next(p for seat, p in players.items() if seat != late)
    chat_messages.write(alice.replica, game, "Your move, take your time.", LATE)
    claims.make_claim(claimant.replica, game, LATE, note="still there?")
    chat_messages.write(claimant.replica, game, "Any news?", LATE)
    replica = claimant.replica
    row = replica.game(game)
    records = log_records(replica, row)
    kinds = {record.kind for record in records}
    assert {"genesis", "claim", "chat-message"} <= kinds
    assert log_heads(replica, row) == [(r.seq, r.seat, r.kind) for r in records]


def test_the_review_index_opens_no_packet(
    alice: Player, game: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    chat_messages.write(alice.replica, game, "Hello.", LATE)
    row = alice.replica.game(game)
    wanted = [(r.seq, r.seat, r.kind) for r in log_records(alice.replica, row)]

    def refused(*args: object, **kwargs: object) -> None:
        raise AssertionError("the review's index opened a packet")

    monkeypatch.setattr("tui.services.log.kept_body", refused)
    index = review.index(alice.replica, game, mark_read=False)
    assert [(m.seq, m.seat, m.kind) for m in index.packets] == wanted


def test_the_records_are_what_opening_every_packet_gives_without_a_second_check(
    alice: Player, bob: Player, game: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    chat_messages.write(alice.replica, game, "Hello.", LATE)
    replica = bob.replica
    row = replica.game(game)
    keys: dict[bytes, list[bytes]] = {}
    opened = []
    for seq, data in replica.packets(game):
        packet = open_packet(data, lambda kid: keys.get(kid, []))
        if packet.envelope.public_key:
            keys[packet.envelope.key_id] = [packet.envelope.public_key]
        opened.append((seq, packet.body.seat, packet.packet_id.hex(), packet.body.written_at))

    def refused(*args: object) -> bool:
        raise AssertionError("a kept packet's signature was checked again")

    monkeypatch.setattr(packets, "signed_by", refused)
    records = [r for r in log_records(replica, row) if r.kind != "chat-message"]
    assert [(r.seq, r.seat, r.packet, r.written_at) for r in records] == opened
    assert all(r.bytes > 0 for r in records)


def test_a_kept_packet_that_no_longer_decodes_is_refused_by_name() -> None:
    with pytest.raises(PacketError, match="not a hexpost packet"):
        kept_body(b"\x93garbage")
