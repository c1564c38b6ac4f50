"""Mail arrives in any order: a home that fell behind takes the whole chain however it comes.

Mail providers reorder, repeat and damage messages, a shared folder lists files in no order,
and a player who was away reads a week of mail at once. A copy of Bob's home made just after
he joined (so it holds the game at its first packets) is handed every later packet of the
game (both seats', the dice commitments and reveals of a battle's secret steps among them)
shuffled, each repeated, with damaged and cut copies, random bytes, packets it already holds
and another game's packet mixed in, in fetched batches of random sizes (`Replica.receive_many`,
one transaction each) and single items (`Replica.receive`). Whatever the order, it must end
where Bob's own home is: the same head and state hash, not frozen, nothing left buffered, and
every damaged copy refused without stopping the items after it.
"""

from __future__ import annotations

import random
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from mail.loopback import LoopbackNetwork
from saves.inbox import Received
from tests.saves.conftest import (
    Player,
    create_game,
    now,
    play_secrets,
    play_setup,
    start_game,
    to_battle,
)

SEEDS = range(12)
REFUSED = ("rejected", "ignored", "parked")
"""What becomes of a damaged copy: refused, or (its key id changed, so no game of this home
can be told from it) parked as a packet signed by a key not known yet, within the bound
parked items have (`saves.inbox`)."""


class Played:
    """The game played on after the copy point, and the copy that missed it (closed)."""

    def __init__(self, root: Path) -> None:
        network = LoopbackNetwork()
        self.alice = Player(root / "alice", "Alice", "alice@example.org", network)
        self.bob = Player(root / "bob", "Bob", "bob@example.org", network)
        self.game = start_game(self.alice, self.bob, setup=False)
        self.behind = root / "behind"
        self.bob.copy_home(self.behind, "Behind", network).close()
        players = {"coalition": self.alice, "alliance": self.bob}
        play_setup(players, self.game)
        to_battle(players, self.game)
        play_secrets(players, self.game)
        self.other = create_game(self.alice, name="other")

    def close(self) -> None:
        self.alice.close()
        self.bob.close()


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Played]:
    game = Played(tmp_path_factory.mktemp("played"))
    yield game
    game.close()


def _copy_behind(played: Played, where: Path) -> Player:
    shutil.copytree(played.behind, where)
    return Player(where, "Behind", "bob@example.org", LoopbackNetwork())


def _damaged(rng: random.Random, data: bytes) -> bytes:
    changed = bytearray(data)
    changed[rng.randrange(len(changed))] ^= 1 << rng.randrange(8)
    return bytes(changed)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_home_behind_takes_the_chain_in_any_order(
    played: Played, tmp_path: Path, seed: int
) -> None:
    rng = random.Random(seed)
    behind = _copy_behind(played, tmp_path / "behind")
    try:
        game, bob = played.game, played.bob
        gap = behind.row(game).head_seq + 1
        head = bob.row(game).head_seq
        assert head - gap > 40, "the copy must miss most of the game"
        chain = [bob.packet(game, seq) for seq in range(gap, head + 1)]
        items: list[bytes] = []
        damaged: set[bytes] = set()
        for data in chain:
            items += [data] * rng.choice((1, 1, 2, 3))
            if rng.random() < 0.3:
                damaged.add(_damaged(rng, data))
            if rng.random() < 0.1:
                damaged.add(data[: rng.randrange(1, len(data))])
            if rng.random() < 0.1:
                damaged.add(rng.randbytes(rng.randrange(1, 300)))
        items += sorted(damaged)
        items += [bob.packet(game, seq) for seq in range(gap) if rng.random() < 0.5]
        items.append(played.alice.packet(played.other, 0))
        rng.shuffle(items)

        applied: list[int] = []
        at = 0
        while at < len(items):
            batch = items[at : at + rng.randint(1, 8)]
            at += len(batch)
            if len(batch) == 1 and rng.random() < 0.5:
                outcomes = [behind.replica.receive(batch[0], source="shuffled", now=now())]
            else:
                received = [Received(data, "shuffled") for data in batch]
                outcomes = behind.replica.receive_many(received, now=now())
            for data, outcome in zip(batch, outcomes, strict=True):
                if outcome.game_id == game:
                    applied += outcome.applied
                if data in damaged:
                    assert outcome.status in REFUSED, (outcome, seed)
                    assert not outcome.applied

        assert sorted(applied) == list(range(gap, head + 1))  # each packet applied once
        row = behind.row(game)
        assert (row.head_seq, row.state_hash, row.frozen) == (
            head,
            bob.row(game).state_hash,
            None,
        )
        assert behind.snapshot(game).buffered == 0
        assert behind.replica.verify(game) == row.state_hash
    finally:
        behind.close()


def test_the_chain_backwards_one_item_at_a_time_waits_then_applies_at_its_first_packet(
    played: Played, tmp_path: Path
) -> None:
    """The worst order: every packet but the first missing one waits for the one before it;
    that one, last to come, applies the whole chain in one go."""
    behind = _copy_behind(played, tmp_path / "behind")
    try:
        game, bob = played.game, played.bob
        gap = behind.row(game).head_seq + 1
        head = bob.row(game).head_seq
        for seq in range(head, gap, -1):
            outcome = behind.replica.receive(bob.packet(game, seq), source="late", now=now())
            assert (outcome.status, outcome.applied) == ("buffered", []), seq
        assert behind.row(game).head_seq == gap - 1
        last = behind.replica.receive(bob.packet(game, gap), source="late", now=now())
        assert last.applied == list(range(gap, head + 1))
        assert behind.row(game).state_hash == bob.row(game).state_hash
        assert behind.snapshot(game).buffered == 0
    finally:
        behind.close()


def test_a_held_packet_damaged_in_the_store_is_dropped_and_stops_nothing(
    played: Played, tmp_path: Path
) -> None:
    """Packet N+1 came first and is held; its kept bytes are then damaged on disk. Packet N,
    when it comes, is applied, and the damaged copy is dropped and said, not a reason to undo
    N (which was then refused for good: marked read, its resend refused the same way); N+1,
    sent again, is applied in its turn."""
    behind = _copy_behind(played, tmp_path / "behind")
    try:
        game, bob = played.game, played.bob
        gap = behind.row(game).head_seq + 1
        held = behind.replica.receive(bob.packet(game, gap + 1), source="early", now=now())
        assert held.status == "buffered"
        with behind.replica.store.transaction() as db:
            db.execute("UPDATE buffered SET data = x'c1' WHERE game_id = ?", (game,))
        first = behind.replica.receive(bob.packet(game, gap), source="late", now=now())
        assert (first.status, first.applied) == ("applied", [gap])
        assert f"held packet {gap + 1} was damaged" in first.detail
        assert behind.snapshot(game).buffered == 0
        again = behind.replica.receive(bob.packet(game, gap + 1), source="again", now=now())
        assert again.applied == [gap + 1]
    finally:
        behind.close()
