"""The keys a home keeps for each game's seats are a cache of what the chain binds.

A home looks up the key of each packet it receives in its table of the keys its games bind
(`saves.store_keys`): the genesis and join packets bind them, and the game's state holds them
too. Should a row of that table be damaged on disk (a bit flipped, a row lost), every packet
of that seat would be refused as badly signed, or parked as signed by an unknown key, and the
game would stop for good while `hexpost verify`, which replays with the chain's own keys,
found nothing wrong. The first packet that fails so for a game this home holds now has the
game's keys checked against its state (once per game and process, so forged packets cost at
most one check) and rebuilt from it when they differ; the packet is then checked again.
`hexpost verify` checks them too, and either says what it rebuilt.
"""

from __future__ import annotations

import pytest

from engine.core.packets import key_id
from saves import store_keys
from saves.store import Store
from tests.saves.conftest import Player, now, owner, play_notes

KEYS = "SELECT seat, key_id, public_key FROM game_keys WHERE game_id = ? ORDER BY seat"


def _keys(player: Player, game: bytes) -> list[tuple[str, bytes, bytes]]:
    return [
        (str(seat), bytes(kid), bytes(pk))
        for seat, kid, pk in player.replica.store.all(KEYS, (game,))
    ]


def _damage(player: Player, game: bytes, seat: str, how: str) -> None:
    """Damage the row binding ``seat``'s key behind the home's back."""
    with player.replica.store.transaction() as db:
        if how == "lost":
            db.execute("DELETE FROM game_keys WHERE game_id = ? AND seat = ?", (game, seat))
            return
        row = db.execute(
            "SELECT key_id, public_key FROM game_keys WHERE game_id = ? AND seat = ?",
            (game, seat),
        ).fetchone()
        kid, public = bytearray(row[0]), bytearray(row[1])
        if how == "key flipped":
            public[3] ^= 0x01
        else:  # "id flipped"
            kid[0] ^= 0x80
        db.execute(
            "UPDATE game_keys SET key_id = ?, public_key = ? WHERE game_id = ? AND seat = ?",
            (bytes(kid), bytes(public), game, seat),
        )
    player.reopen()


def _seat_of(players: dict[str, Player], player: Player) -> str:
    return next(seat for seat, p in players.items() if p is player)


@pytest.mark.parametrize("how", ["key flipped", "id flipped", "lost"])
def test_a_damaged_key_row_is_rebuilt_and_the_game_goes_on(
    players: dict[str, Player], alice: Player, bob: Player, game: bytes, how: str
) -> None:
    play_notes(players, game, 2)
    good = _keys(bob, game)
    assert len(good) == 2
    _damage(bob, game, _seat_of(players, alice), how)
    assert _keys(bob, game) != good

    play_notes(players, game, 3)  # the other side's packets reach the damaged home

    assert bob.row(game).head_seq == alice.row(game).head_seq
    assert bob.row(game).state_hash == alice.row(game).state_hash
    assert bob.count("rejected") == 0 and bob.count("parked") == 0
    assert _keys(bob, game) == good
    assert bob.replica.store.repairs == [
        f"game {bob.row(game).name}: the kept keys of its seats were damaged; "
        "rebuilt them from the packets (nothing was lost)"
    ]


def test_the_home_s_own_seat_s_key_is_rebuilt_too(
    players: dict[str, Player], alice: Player, bob: Player, game: bytes
) -> None:
    """Its own packets coming back (a sync reads them again) are then duplicates, as ever."""
    play_notes(players, game, 2)
    good = _keys(bob, game)
    _damage(bob, game, _seat_of(players, bob), "key flipped")
    bob.replica.verify(game)
    assert _keys(bob, game) == good
    assert len(bob.replica.store.repairs) == 1
    play_notes(players, game, 2)
    assert bob.row(game).state_hash == alice.row(game).state_hash


def test_verify_rebuilds_damaged_keys_and_says_so(
    players: dict[str, Player], alice: Player, bob: Player, game: bytes
) -> None:
    play_notes(players, game, 2)
    good = _keys(bob, game)
    _damage(bob, game, _seat_of(players, alice), "lost")
    assert bob.replica.verify(game) == bob.row(game).state_hash
    assert _keys(bob, game) == good
    assert len(bob.replica.store.repairs) == 1
    bob.reopen()
    bob.replica.verify(game)
    assert bob.replica.store.repairs == []  # nothing left to rebuild


def test_a_forged_packet_costs_one_check_and_changes_nothing(
    players: dict[str, Player],
    alice: Player,
    bob: Player,
    game: bytes,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A packet signed by a stranger's key for a game the home holds: refused or parked as
    before, the keys (intact) are left alone, and its repeats are not checked again."""
    play_notes(players, game, 2)
    good = _keys(bob, game)
    author, _ = owner(players, game)
    sub = author.replica.submit(game, [{"type": "note", "text": "real"}], now=now())
    real = author.packet(game, sub.seq)
    forged = bytearray(real)
    forged[-3] ^= 0x01  # the signature no longer holds
    checks: list[bytes] = []
    kept = store_keys.seat_keys

    def counted(store: Store, game_id: bytes) -> dict[str, tuple[bytes, bytes]]:
        checks.append(game_id)
        return kept(store, game_id)

    monkeypatch.setattr(store_keys, "seat_keys", counted)
    for _ in range(3):
        outcome = bob.replica.receive(bytes(forged), source="test", now=now())
        assert outcome.status == "rejected"
    assert _keys(bob, game) == good
    assert bob.replica.store.repairs == []
    assert checks == [game]  # once for the game, not once for each forged copy
    assert bob.replica.receive(real, source="test", now=now()).status in ("applied", "duplicate")


def test_rows_match_the_state_s_seats(bob: Player, alice: Player, game: bytes) -> None:
    """What the rebuild writes is what the genesis and joins bound: each seat's key and id."""
    state = bob.replica.state(game)
    expected = sorted(
        (seat.seat, key_id(seat.public_key), seat.public_key)
        for seat in state.core.seats
        if seat.joined
    )
    assert _keys(bob, game) == expected
