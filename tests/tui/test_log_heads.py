"""`tui.services.log.log_heads`: the log's records in short, read without opening a packet.

The review indexes a game's chain with it when it opens: the packets' seats and kinds come
from the columns stored with each packet when it was verified, the late claims' and chat
messages' from their kept bodies, so opening the review of a long campaign no longer checks
every packet's signature again. These tests hold it to `log_records` (what ``hexpost log``
prints, which opens every packet) on a game with packets, a late claim and chat messages.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.core.owed import pending
from engine.fe import RULESET
from mail.loopback import LoopbackNetwork
from saves import chat_messages, claims
from tests.saves.conftest import Player, start_game
from tui.services import review
from tui.services.log import log_heads, log_records

LATE = "2030-01-05T00:00:00Z"
"""After the claim's reply window (72 hours from the test clock's packets of 2030-01-01)."""


@pytest.fixture
def players(tmp_path: Path) -> Iterator[tuple[Player, Player]]:
    """Alice and Bob, as `tests.saves.conftest` makes them."""
    network = LoopbackNetwork()
    alice = Player(tmp_path / "alice", "Alice", "alice@example.org", network)
    bob = Player(tmp_path / "bob", "Bob", "bob@example.org", network)
    yield alice, bob
    alice.close()
    bob.close()


@pytest.fixture
def alice(players: tuple[Player, Player]) -> Player:
    return players[0]


@pytest.fixture
def bob(players: tuple[Player, Player]) -> Player:
    return players[1]


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

    monkeypatch.setattr("tui.services.log.open_packet", refused)
    index = review.index(alice.replica, game, mark_read=False)
    assert [(m.seq, m.seat, m.kind) for m in index.packets] == wanted
