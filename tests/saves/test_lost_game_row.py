"""A game whose row in the home's games table was lost is found again from its packets.

The games table says, per game, its name, ruleset, seat, status and where its chain ends;
everything but this home's own filing (archived, unread) follows from the game's packets:
its genesis names the game, its ruleset and scenario and the seats, and the chain says
whether this home's seat joined. Should the row be lost (deleted, or its id damaged on
disk), the game vanished from the list and every packet of it was parked as a stranger's,
while its packets were all still there. The home now finds such a game when it lists its
games, when it looks one up, and when a packet of it arrives; it rebuilds the row and says so.
"""

from __future__ import annotations

import asyncio

import pytest

from mail.loopback import LoopbackNetwork
from mail.sync import sync
from saves import ledger
from tests.saves.conftest import NotesTransport, Player, create_game, now, play_notes
from tui.services import games as listing


def _lose(player: Player, game: bytes, how: str) -> None:
    with player.replica.store.transaction() as db:
        if how == "deleted":
            db.execute("DELETE FROM games WHERE game_id = ?", (game,))
        else:  # "id damaged"
            damaged = bytes([game[0] ^ 0x01]) + game[1:]
            db.execute("UPDATE games SET game_id = ? WHERE game_id = ?", (damaged, game))
    player.reopen()


def _said(player: Player, name: str) -> list[str]:
    return [line for line in player.replica.store.repairs if line.startswith(f"game {name}:")]


@pytest.mark.parametrize("how", ["deleted", "id damaged"])
def test_a_lost_row_is_rebuilt_when_the_games_are_listed(
    players: dict[str, Player], alice: Player, bob: Player, game: bytes, how: str
) -> None:
    play_notes(players, game, 3)
    good = bob.row(game)
    _lose(bob, game, how)

    rows = {row.game_id: row for row in bob.replica.games()}
    assert set(rows) == {game}  # and a row left with no packets is gone
    row = rows[game]
    assert (row.name, row.ruleset, row.scenario, row.my_seat, row.status, row.frozen) == (
        good.name,
        good.ruleset,
        good.scenario,
        good.my_seat,
        good.status,
        good.frozen,
    )
    assert (row.head_seq, row.state_hash) == (good.head_seq, good.state_hash)
    assert _said(bob, good.name) == [
        f"game {good.name}: its row in the games table was lost; rebuilt it from the packets "
        "(nothing was lost)"
    ]
    listed = {summary.game: summary for summary in listing.summaries(bob.replica)}
    assert listed[game.hex()].seq == good.head_seq

    play_notes(players, game, 3)
    assert bob.row(game).state_hash == alice.row(game).state_hash
    assert bob.count("parked") == 0 and bob.count("rejected") == 0
    assert bob.replica.verify(game) == alice.row(game).state_hash


def test_a_packet_of_a_lost_game_finds_its_row_again(
    players: dict[str, Player], alice: Player, bob: Player, game: bytes
) -> None:
    """No listing first: the other side's next packet is placed in the game, not parked."""
    play_notes(players, game, 2)
    _lose(bob, game, "deleted")
    play_notes(players, game, 2)
    assert bob.row(game).state_hash == alice.row(game).state_hash
    assert bob.count("parked") == 0


def test_looking_a_lost_game_up_by_id_finds_it(
    players: dict[str, Player], bob: Player, game: bytes
) -> None:
    play_notes(players, game, 1)
    name = bob.row(game).name
    _lose(bob, game, "deleted")
    assert bob.replica.game(game).name == name
    assert len(_said(bob, name)) == 1


def test_the_creator_s_lost_row_names_its_own_seat(
    players: dict[str, Player], alice: Player, game: bytes
) -> None:
    good = alice.row(game)
    _lose(alice, game, "deleted")
    row = alice.replica.game(game)
    assert (row.my_seat, row.status) == (good.my_seat, "active")


def test_a_lost_invitation_comes_back_as_an_invitation(alice: Player, bob: Player) -> None:
    """Bob has not answered it: his seat has not joined, so the game is still invited."""
    game = create_game(alice)
    alice.sync()
    bob.sync()
    good = bob.row(game)
    assert good.status == "invited"
    _lose(bob, game, "deleted")
    row = bob.replica.game(game)
    assert (row.name, row.my_seat, row.status) == (good.name, good.my_seat, "invited")


def test_a_lost_frozen_game_comes_back_frozen(
    players: dict[str, Player], bob: Player, game: bytes
) -> None:
    """The evidence that stopped it is kept apart: the rebuilt row is stopped again."""
    play_notes(players, game, 1)
    with bob.replica.store.transaction():
        ledger.freeze(bob.replica.store, game, 3, "desync", "test evidence", b"a", b"b", now())
    frozen = bob.row(game).frozen
    assert frozen
    _lose(bob, game, "deleted")
    assert bob.replica.game(game).frozen == frozen


def test_nothing_is_looked_for_in_a_home_without_damage(
    players: dict[str, Player], bob: Player, game: bytes
) -> None:
    play_notes(players, game, 1)
    bob.reopen()
    bob.replica.games()
    assert bob.replica.store.repairs == []


def test_a_damaged_ruleset_name_is_read_again_from_the_genesis(
    players: dict[str, Player], alice: Player, bob: Player, game: bytes
) -> None:
    """A row naming a ruleset this hexpost lacks, where the genesis names one it has: the
    row was damaged (a plug-in uninstalled leaves the genesis naming it too), and the game
    would otherwise wait for a plug-in that does not exist."""
    play_notes(players, game, 2)
    good = bob.row(game)
    with bob.replica.store.transaction() as db:
        db.execute("UPDATE games SET ruleset = 'fd' WHERE game_id = ?", (game,))
    bob.reopen()
    assert [row.ruleset for row in bob.replica.games()] == [good.ruleset]
    assert _said(bob, good.name) == [
        f"game {good.name}: the name of its ruleset in the games table was damaged; "
        "rebuilt it from the packets (nothing was lost)"
    ]
    play_notes(players, game, 2)
    assert bob.row(game).state_hash == alice.row(game).state_hash


def test_a_damaged_ruleset_name_found_when_the_game_is_read(
    players: dict[str, Player], bob: Player, game: bytes
) -> None:
    play_notes(players, game, 2)
    good = bob.row(game)
    with bob.replica.store.transaction() as db:
        db.execute("UPDATE games SET ruleset = 'fd' WHERE game_id = ?", (game,))
    bob.reopen()
    assert bob.replica.state(game).core.seq == good.head_seq
    assert bob.row(game).ruleset == good.ruleset


def test_a_packet_arriving_first_finds_the_ruleset_name_put_right(
    players: dict[str, Player], alice: Player, bob: Player, game: bytes
) -> None:
    """Not held for a plug-in: placed in its game."""
    play_notes(players, game, 2)
    with bob.replica.store.transaction() as db:
        db.execute("UPDATE games SET ruleset = 'fd' WHERE game_id = ?", (game,))
    bob.reopen()
    play_notes(players, game, 2)
    assert bob.row(game).state_hash == alice.row(game).state_hash
    assert bob.count("buffered") == 0


@pytest.mark.parametrize("which", ["genesis", "last"])
def test_a_lost_row_is_rebuilt_when_a_packet_of_it_was_misfiled_too(
    players: dict[str, Player], alice: Player, bob: Player, game: bytes, which: str
) -> None:
    """Two damages at once: the game's row lost and one of its packets filed under another
    game id. The packet goes back first, so the row is rebuilt from the genesis (before, it
    could not be: the game was gone) and ends at the real last packet (before, one short,
    and the copy sent again was refused as a duplicate id)."""
    play_notes(players, game, 4)
    good = bob.row(game)
    seq = 0 if which == "genesis" else good.head_seq
    elsewhere = bytes([game[0] ^ 0x02]) + game[1:]
    with bob.replica.store.transaction() as db:
        db.execute(
            "UPDATE packets SET game_id = ? WHERE game_id = ? AND seq = ?", (elsewhere, game, seq)
        )
    _lose(bob, game, "id damaged")

    row = bob.row(game)
    assert (row.head_seq, row.state_hash, row.name) == (good.head_seq, good.state_hash, good.name)
    play_notes(players, game, 2)
    assert bob.row(game).state_hash == alice.row(game).state_hash
    assert bob.count("parked") == 0 and bob.count("rejected") == 0
    assert bob.replica.verify(game) == alice.row(game).state_hash


def test_a_lost_row_of_a_game_that_cannot_be_read_comes_back_active_and_asks_for_its_packet(
    players: dict[str, Player], alice: Player, bob: Player, game: bytes, network: LoopbackNetwork
) -> None:
    """The game's row lost, and a packet in the middle of its chain with every kept state
    after it: the state cannot be read to see that Bob's seat joined, so the row came back
    as an invitation, and nothing asked for the packet. That the game binds a key to his
    seat says he joined: the row comes back active, and his sync asks for the packet."""
    play_notes(players, game, 6)
    alice.handed_over(game)
    good = bob.row(game)
    seq = good.head_seq - 3
    with bob.replica.store.transaction() as db:
        db.execute("DELETE FROM packets WHERE game_id = ? AND seq = ?", (game, seq))
        db.execute("DELETE FROM snapshots WHERE game_id = ? AND seq > 0", (game,))
        db.execute("DELETE FROM games WHERE game_id = ?", (game,))
    bob.reopen()
    (row,) = bob.replica.games()
    assert (row.status, row.head_seq) == ("active", good.head_seq)
    notes = NotesTransport(network, bob.transport.name)
    report = asyncio.run(sync(bob.replica, notes, now))
    assert [line.split(" (")[0] for line in report.requests] == [
        f"asked {alice.address} to send packet {seq} of {good.name} again"
    ]
    alice.sync()
    bob.sync()
    assert bob.replica.verify(game) == alice.row(game).state_hash
