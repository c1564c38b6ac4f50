"""What `saves.replies` writes by itself is what `engine.core.pace.automatic` counts as a
machine hand-off, and what a player submits is not: the pace benches count the hand-offs the
app really makes."""

from __future__ import annotations

import msgspec

from engine.core import pace
from engine.core.packets import Body, EntropyOnly, Envelope
from tests.saves.conftest import (
    COALITION_FORCE,
    FORCE,
    Player,
    exchange,
    now,
    owner,
    to_battle,
)


def _written(player: Player, game_id: bytes) -> list[tuple[Body, bool]]:
    """Every packet ``player``'s home queued in the game, with whether it wrote it by itself."""
    rows = player.replica.store.all(
        "SELECT data, automatic FROM outbox WHERE game_id = ? ORDER BY seq", (game_id,)
    )
    written = []
    for data, automatic in rows:
        envelope = msgspec.msgpack.decode(bytes(data), type=Envelope)
        written.append((msgspec.msgpack.decode(envelope.body, type=Body), bool(automatic)))
    return written


def test_automatic_replies_and_only_they_count_as_machine_packets(
    game: bytes, players: dict[str, Player]
) -> None:
    alice, bob = players["coalition"], players["alliance"]
    roll = [{"type": "done"}, {"type": "roll", "dice": "2d6", "purpose": "survey 505.21"}]
    author, other = owner(players, game)
    author.replica.submit(game, roll, now=now())
    exchange(author, other)  # the other home answers the roll by itself: entropy
    to_battle(players, game)
    first, second = owner(players, game)
    first.replica.submit(game, [{"type": "secret", "choice": FORCE}], now=now())
    exchange(first, second)
    second.replica.submit(game, [{"type": "secret", "choice": COALITION_FORCE}], now=now())
    exchange(second, first)  # the first home reveals its bound choice by itself

    written = _written(alice, game) + _written(bob, game)
    automatic = [written_body for written_body, by_itself in written if by_itself]
    assert any(isinstance(b.kind, EntropyOnly) for b in automatic), "no entropy reply"
    assert any(b.reveals and not b.commits for b in automatic), "no reveal reply"
    assert len(written) > len(automatic) + 10
    for written_body, by_itself in written:
        assert pace.automatic(written_body) is by_itself, (written_body.seq, written_body.kind)
