"""A stored packet filed under the wrong position or game is put back where its bytes say.

Each stored packet's row repeats, beside its bytes, the game and position its body names. If
one of those two columns is damaged on disk, the packet is not lost: its bytes still say where
it belongs. Before, the chain had a hole there: the game stopped at the packet before it (or
`hexpost verify` named it), and the copy the other side sent again was refused, since the
misfiled row still held its id. A row filed before the first packet or past the game's head,
or under a game this home does not hold, is now read when the game is (once per game and
process) and put back, if its place is free and its bytes are the packet its row names.
"""

from __future__ import annotations

import pytest

from tests.saves.conftest import Player, play_notes


def _move(player: Player, game: bytes, seq: int, column: str, value: object) -> None:
    with player.replica.store.transaction() as db:
        moved = db.execute(
            f"UPDATE packets SET {column} = ? WHERE game_id = ? AND seq = ?", (value, game, seq)
        )
        assert moved.rowcount == 1
    player.reopen()


CASES = [
    ("middle", "seq", "negative"),
    ("middle", "seq", "past the head"),
    ("last", "seq", "negative"),
    ("last", "seq", "past the head"),
    ("middle", "game_id", "another game"),
    ("last", "game_id", "another game"),
]


@pytest.mark.parametrize(("which", "column", "where"), CASES)
def test_a_misfiled_packet_is_put_back_and_the_game_goes_on(
    players: dict[str, Player],
    alice: Player,
    bob: Player,
    game: bytes,
    which: str,
    column: str,
    where: str,
) -> None:
    play_notes(players, game, 4)
    good = bob.row(game)
    seq = good.head_seq if which == "last" else good.head_seq - 2
    value: object = {
        "negative": seq - 100,
        "past the head": good.head_seq + 3,
        "another game": bytes([game[0] ^ 0x01]) + game[1:],
    }[where]
    _move(bob, game, seq, column, value)

    assert bob.replica.state(game).core.seq == good.head_seq
    assert bob.row(game).state_hash == good.state_hash
    assert [line for line in bob.replica.store.repairs if f"packet {seq} " in line] == [
        f"game {good.name}: packet {seq} was kept under another position; "
        "put it back from the packets (nothing was lost)"
    ]
    play_notes(players, game, 3)
    assert bob.row(game).state_hash == alice.row(game).state_hash
    assert bob.count("rejected") == 0
    assert bob.replica.verify(game) == alice.row(game).state_hash


def test_a_misfiled_packet_whose_place_is_taken_is_left_alone(
    players: dict[str, Player], bob: Player, game: bytes
) -> None:
    """A row past the head whose body names a position already filled: not a misfiled copy
    of a missing packet; nothing is moved (verify would name the chain's trouble)."""
    play_notes(players, game, 4)
    head = bob.row(game).head_seq
    with bob.replica.store.transaction() as db:
        row = db.execute(
            "SELECT packet_id, seat, kind, data, state_hash, stored_at FROM packets "
            "WHERE game_id = ? AND seq = ?",
            (game, head - 1),
        ).fetchone()
        db.execute(
            "INSERT INTO packets (game_id, seq, packet_id, seat, kind, data, state_hash, "
            "stored_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (game, head + 5, bytes(32), *row[1:]),
        )
    bob.reopen()
    assert bob.replica.state(game).core.seq == head
    assert not [line for line in bob.replica.store.repairs if "another position" in line]
