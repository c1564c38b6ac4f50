"""A home stops writing automatic replies once a game has run `saves.replies.MAX_AUTOMATIC_RUN`
of them in a row with nobody deciding anything: rules caught in a loop that never asks a
player (F&E before 5.6 had one, `tests/engine/fe/steps/test_stalled_battle.py`) must not have
two homes mail each other until a seat's entropy chain runs out. Any ruleset may have such a
loop; this bound is the protocol's, whatever the rules.
"""

from __future__ import annotations

import pytest

from engine.core.packets import EntropyOnly, kept_body
from saves import replies, store_games
from tests.saves.conftest import Player, exchange, now, owner

ROLL = [{"type": "done"}, {"type": "roll", "dice": "2d6", "purpose": "survey 505.21"}]


def _head_kind(player: Player, game: bytes) -> type:
    row = next(r for r in player.replica.games() if r.game_id == game)
    data = store_games.packet_data(player.replica.store, game, row.head_seq)
    assert data is not None
    return type(kept_body(data)[1].kind)


def test_a_run_of_automatic_packets_is_counted_back_from_the_head(
    game: bytes, players: dict[str, Player], monkeypatch: pytest.MonkeyPatch
) -> None:
    author, other = owner(players, game)
    author.replica.submit(game, ROLL, now=now())
    exchange(author, other)  # the other home answers the roll by itself: an entropy value
    assert _head_kind(other, game) is EntropyOnly
    row = next(r for r in other.replica.games() if r.game_id == game)
    assert other.replica.state(game).core.seq == row.head_seq  # what the replies count from
    monkeypatch.setattr(replies, "MAX_AUTOMATIC_RUN", 1)
    assert replies._runaway(other.replica, game, row.head_seq)  # the head is automatic
    monkeypatch.setattr(replies, "MAX_AUTOMATIC_RUN", 2)
    assert not replies._runaway(
        other.replica, game, row.head_seq
    )  # the roll before it was a player's


def test_past_the_bound_the_home_writes_no_reply_and_says_why(
    game: bytes, players: dict[str, Player], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a bound of nothing at all, the reply a roll asks for is not written: the home
    says why, the game waits, and nothing else of the sync is lost."""
    monkeypatch.setattr(replies, "MAX_AUTOMATIC_RUN", 0)
    author, other = owner(players, game)
    author.replica.submit(game, ROLL, now=now())
    author.sync()
    before = next(r for r in other.replica.games() if r.game_id == game)
    report = other.sync()
    after = next(r for r in other.replica.games() if r.game_id == game)
    assert after.head_seq == before.head_seq + 1  # the roll arrived, no reply followed it
    assert any(
        "no automatic reply written: the game's last 0 packets were all automatic" in p
        for p in report.problems
    ), report.problems
