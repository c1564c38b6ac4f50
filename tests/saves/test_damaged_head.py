"""Where a game's chain ends, as the home's games table says, is a cache of its packets.

A home keeps, in each game's row, the position, id and state hash of its last packet, so that
listing the games and placing a received packet need not look at the packets. Should that row
be damaged on disk, the game stalled for good: a head one behind its packets served an older
state, and every packet from the other side was refused as not fitting the chain (or as a
position already taken), while `hexpost verify` either failed with no advice or found nothing
wrong. The row is now checked against the last stored packet when the game is first read (once
per game and process while it is good, and for every game when they are listed), put right
from it, and the home says so.
"""

from __future__ import annotations

import pytest

from saves import store_repairs
from tests.saves.conftest import Player, play_notes
from tui.services import games as listing


def _damage(player: Player, game: bytes, how: str) -> None:
    """Damage the game's row behind the home's back."""
    with player.replica.store.transaction() as db:
        if how == "seq behind":
            db.execute("UPDATE games SET head_seq = head_seq - 1 WHERE game_id = ?", (game,))
        elif how == "seq ahead":
            db.execute("UPDATE games SET head_seq = head_seq + 2 WHERE game_id = ?", (game,))
        else:
            column = {"id flipped": "head_id", "hash flipped": "state_hash"}[how]
            row = db.execute(f"SELECT {column} FROM games WHERE game_id = ?", (game,)).fetchone()
            value = bytearray(row[0])
            value[0] ^= 0x01
            db.execute(f"UPDATE games SET {column} = ? WHERE game_id = ?", (bytes(value), game))
    player.reopen()


HOW = ["seq behind", "seq ahead", "id flipped", "hash flipped"]

NOTE = "the kept position of its last packet was damaged; rebuilt it"


@pytest.mark.parametrize("how", HOW)
def test_a_damaged_head_row_is_put_right_and_the_game_goes_on(
    players: dict[str, Player], alice: Player, bob: Player, game: bytes, how: str
) -> None:
    play_notes(players, game, 4)
    good = bob.row(game)
    _damage(bob, game, how)

    state = bob.replica.state(game)
    assert state.core.seq == good.head_seq
    assert bob.row(game).head_seq == good.head_seq
    assert bob.row(game).state_hash == good.state_hash
    assert bob.replica.store.repairs == [
        f"game {good.name}: {NOTE} from the packets (nothing was lost)"
    ]

    play_notes(players, game, 3)
    assert bob.row(game).head_seq == alice.row(game).head_seq == good.head_seq + 3
    assert bob.row(game).state_hash == alice.row(game).state_hash
    assert bob.count("rejected") == 0
    assert bob.replica.verify(game) == bob.row(game).state_hash


@pytest.mark.parametrize("how", HOW)
def test_a_packet_received_first_finds_the_head_put_right(
    players: dict[str, Player], alice: Player, bob: Player, game: bytes, how: str
) -> None:
    """No read of the game before the other side's packet arrives: placing it checks too."""
    play_notes(players, game, 4)
    _damage(bob, game, how)
    play_notes(players, game, 2)
    assert bob.row(game).head_seq == alice.row(game).head_seq
    assert bob.row(game).state_hash == alice.row(game).state_hash
    assert bob.count("rejected") == 0
    assert len(bob.replica.store.repairs) == 1


@pytest.mark.parametrize("how", HOW)
def test_the_games_list_shows_the_head_put_right(
    players: dict[str, Player], bob: Player, game: bytes, how: str
) -> None:
    play_notes(players, game, 4)
    good = bob.row(game)
    _damage(bob, game, how)
    listed = {summary.game: summary for summary in listing.summaries(bob.replica)}
    assert listed[game.hex()].seq == good.head_seq
    assert listed[game.hex()].notes == ()
    assert len(bob.replica.store.repairs) == 1


def test_a_good_head_is_looked_at_once(
    players: dict[str, Player], bob: Player, game: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    play_notes(players, game, 2)
    bob.reopen()
    looked: list[bytes] = []
    kept = store_repairs.damaged_heads

    def counted(store: object, game_id: bytes) -> list[store_repairs.HeadFix]:
        looked.append(game_id)
        return kept(bob.replica.store, game_id)

    monkeypatch.setattr(store_repairs, "damaged_heads", counted)
    for _ in range(3):
        bob.replica.state(game)
        bob.replica.game(game)
    assert looked == [game]
    assert bob.replica.store.repairs == []


@pytest.mark.parametrize("where", ["last", "middle"])
def test_a_damaged_kept_state_hash_of_a_packet_is_no_desync(
    players: dict[str, Player], alice: Player, bob: Player, game: bytes, where: str
) -> None:
    """The state hash kept beside a stored packet (its body carries its own, which applying
    it checks): damaged, it neither moves the head nor makes `verify` call it a desync of the
    other side's; verify puts it right and says so (the last packet's, reading the game's
    row does: it no longer agrees with the row)."""
    play_notes(players, game, 4)
    good = bob.row(game)
    seq = good.head_seq if where == "last" else good.head_seq - 2
    with bob.replica.store.transaction() as db:
        db.execute(
            "UPDATE packets SET state_hash = ? WHERE game_id = ? AND seq = ?",
            (bytes(32), game, seq),
        )
    bob.reopen()
    note = (
        f"game {good.name}: the state hash kept with packet {seq} was damaged; rebuilt it "
        "from the packets (nothing was lost)"
    )
    assert bob.row(game).state_hash == good.state_hash
    assert bob.replica.store.repairs == ([note] if where == "last" else [])
    assert bob.replica.verify(game) == good.state_hash
    assert bob.replica.store.repairs == [note]
    row = bob.replica.store.one(
        "SELECT state_hash FROM packets WHERE game_id = ? AND seq = ?", (game, seq)
    )
    assert row is not None and bytes(row[0]) != bytes(32)
    play_notes(players, game, 2)
    assert bob.row(game).state_hash == alice.row(game).state_hash
    bob.reopen()
    bob.replica.verify(game)
    assert bob.replica.store.repairs == []


def test_a_head_position_damaged_past_a_last_packet_whose_bytes_were_damaged_too(
    players: dict[str, Player], alice: Player, bob: Player, game: bytes
) -> None:
    """The row's position says one more than the packets, and the last packet no longer
    reads, so its bytes cannot vouch for it; the row's own id and hash still agree with that
    packet's columns, which is enough to move the head back (before, the row kept naming a
    packet that does not exist, and the game stopped)."""
    play_notes(players, game, 4)
    good = bob.row(game)
    with bob.replica.store.transaction() as db:
        db.execute("UPDATE games SET head_seq = head_seq + 1 WHERE game_id = ?", (game,))
        db.execute(
            "UPDATE packets SET data = x'c1' WHERE game_id = ? AND seq = ?", (game, good.head_seq)
        )
    bob.reopen()
    assert bob.row(game).head_seq == good.head_seq
    play_notes(players, game, 2)
    assert bob.row(game).state_hash == alice.row(game).state_hash


@pytest.mark.parametrize("seat", ["coalition", "alliance"])
@pytest.mark.parametrize("key", ["kept", "damaged too"])
def test_a_damaged_seat_of_this_home_is_put_right_from_the_genesis(
    players: dict[str, Player], game: bytes, seat: str, key: str
) -> None:
    """The row's name of this home's seat damaged (one bit): every look at the game's next
    move, an automatic reply's first, raised a KeyError. It is put right from the genesis
    (the seat whose key is this home's, or, with that key's stored copy damaged too, the one
    invited at this home's address), and the game goes on."""
    player = players[seat]
    assert player.row(game).my_seat == seat
    play_notes(players, game, 2)
    with player.replica.store.transaction() as db:
        db.execute(
            "UPDATE games SET my_seat = '`' || substr(my_seat, 2) WHERE game_id = ?", (game,)
        )
        if key == "damaged too":
            db.execute("UPDATE identities SET public_key = zeroblob(32)")
    player.reopen()
    assert player.row(game).my_seat == seat
    assert player.replica.auto_replies("2099-01-01T00:00:00Z") is not None
    assert [line.split(": ", 1)[1] for line in player.replica.store.repairs] == [
        "this home's seat in the games table was damaged; rebuilt it from the packets "
        "(nothing was lost)"
    ]
    play_notes(players, game, 2)
    assert player.count("rejected") == 0


@pytest.mark.parametrize("column", ["state_hash", "packet_id"])
@pytest.mark.parametrize("row", ["seq behind", "lost"])
def test_a_damaged_head_whose_last_packet_s_kept_columns_were_damaged_too_is_put_right(
    players: dict[str, Player], alice: Player, bob: Player, game: bytes, row: str, column: str
) -> None:
    """The game's row damaged (or lost), and the state hash or id kept beside its last packet
    too: the packet's own bytes carry the right ones (intact: their id is the kept one, or
    their signature is good). Before, the head was left where it was (a lost row came back at
    no packet at all) and the game stopped."""
    play_notes(players, game, 4)
    good = bob.row(game)
    with bob.replica.store.transaction() as db:
        db.execute(
            f"UPDATE packets SET {column} = zeroblob(32) WHERE game_id = ? AND seq = ?",
            (game, good.head_seq),
        )
        if row == "lost":
            db.execute("DELETE FROM games WHERE game_id = ?", (game,))
        else:
            db.execute("UPDATE games SET head_seq = head_seq - 1 WHERE game_id = ?", (game,))
    bob.reopen()
    listing.summaries(bob.replica)
    assert bob.row(game).head_seq == good.head_seq
    assert bob.row(game).state_hash == good.state_hash
    play_notes(players, game, 2)
    assert bob.row(game).state_hash == alice.row(game).state_hash
    assert bob.count("rejected") == 0
    assert bob.replica.verify(game) == alice.row(game).state_hash
