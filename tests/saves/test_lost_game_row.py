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

import msgspec
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from engine.core.packets import Genesis, peek_body, raw_public_key, sign_body
from mail.loopback import LoopbackNetwork
from saves import held, ledger, store_inbox
from tests.saves.conftest import Player, asks_and_is_sent, create_game, now, play_notes
from tui.services import games as listing
from tui.services import trust


def _lose(player: Player, game: bytes, how: str, *, genesis: bool = False) -> None:
    with player.replica.store.transaction() as db:
        if genesis:  # (its packet row too)
            db.execute("DELETE FROM packets WHERE game_id = ? AND seq = 0", (game,))
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
    asks_and_is_sent(bob, alice, network, game, seq)


@pytest.mark.parametrize("who", ["creator", "joiner"])
def test_a_lost_row_whose_genesis_is_lost_too_comes_back_from_the_kept_state(
    players: dict[str, Player], game: bytes, network: LoopbackNetwork, who: str
) -> None:
    """Row and genesis lost together (a damaged disk): nothing in the packets after the
    genesis names the game, so before, the game vanished from the list, and every packet of
    it was parked as a stranger's. The state kept at its head names it all (its name, ruleset,
    scenario and seats, each seat's key): the row is rebuilt from it, and the next sync asks
    the other player for the genesis, whose copy fills its place."""
    play_notes(players, game, 4)
    home, other = (players["coalition"], players["alliance"])[:: 1 if who == "creator" else -1]
    other.handed_over(game)
    good = home.row(game)
    _lose(home, game, "deleted", genesis=True)

    rows = {row.game_id: row for row in home.replica.games()}
    assert set(rows) == {game}
    row = rows[game]
    assert (row.name, row.ruleset, row.scenario, row.my_seat, row.status) == (
        good.name, good.ruleset, good.scenario, good.my_seat, good.status
    )  # fmt: skip
    assert (row.head_seq, row.state_hash) == (good.head_seq, good.state_hash)
    assert _said(home, good.name) == [
        f"game {good.name}: its row in the games table was lost, and its genesis too; rebuilt "
        f"it from the state kept at packet {good.head_seq} (the next sync asks the other "
        "player for the genesis)"
    ]

    asks_and_is_sent(home, other, network, game, 0)
    play_notes(players, game, 2)
    assert home.row(game).state_hash == other.row(game).state_hash
    assert home.count("parked") == 0 and home.count("rejected") == 0


@pytest.mark.parametrize("states", ["deleted", "damaged"])
def test_a_lost_row_with_its_genesis_and_every_kept_state_comes_back_with_the_genesis(
    players: dict[str, Player], alice: Player, bob: Player, game: bytes, states: str
) -> None:
    """Nothing left that names the game: no row can be rebuilt, but the home says what it
    holds and what brings it back, rather than dropping it from sight in silence. The
    genesis that the other player's ``hexpost resend`` sends is kept where the chain names it,
    and the row is rebuilt from it (before, it was taken as a new invitation at packet 0,
    and the next copy failed on the packets already stored). Attack: a genesis under the
    game's id that the chain does not name, signed by a stranger, starts no game there."""
    play_notes(players, game, 2)
    with bob.replica.store.transaction() as db:
        if states == "deleted":
            db.execute("DELETE FROM snapshots WHERE game_id = ?", (game,))
        else:  # a byte of each changed: none checks against its hash
            kept = db.execute("SELECT seq, state FROM snapshots WHERE game_id = ?", (game,))
            for seq, state in kept.fetchall():
                bent = state[:40] + bytes([state[40] ^ 0x01]) + state[41:]
                db.execute(
                    "UPDATE snapshots SET state = ? WHERE game_id = ? AND seq = ?",
                    (bent, game, seq),
                )
    _lose(bob, game, "deleted", genesis=True)
    assert bob.replica.games() == []
    assert bob.replica.store.repairs == [
        f"game {game.hex()}: its row in the games table was lost, and its genesis and every "
        "state kept of it too, so the game cannot be rebuilt from the packets this home still "
        f"holds; ask the other player to run `hexpost resend {game.hex()} --from 0 "
        "--every-seat`, then sync"
    ]

    real = alice.packet(game, 0)
    body = peek_body(real)
    assert body is not None and isinstance(body.kind, Genesis)
    stranger = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
    first, *others = body.kind.seats
    seats = [msgspec.structs.replace(first, public_key=raw_public_key(stranger)), *others]
    kind = msgspec.structs.replace(body.kind, seats=seats, name="mine now")
    forged = sign_body(msgspec.structs.replace(body, kind=kind), stranger, include_key=True)
    refused = bob.replica.receive(forged, source="forged", now=now())
    assert refused.status == "rejected", refused
    assert "a genesis for a game whose later packets this home holds" in refused.detail
    assert bob.replica.games() == []

    assert trust.resend(alice.replica, alice.row(game), 0, now, every_seat=True)
    alice.sync()
    report = bob.sync()
    assert report.received[0].detail == (
        "packet 0 was lost from this home's store, and the chain names these copies "
        "there: kept again"
    )
    assert {o.status for o in report.received[1:]} == {"duplicate"}
    assert bob.row(game).name == "wind" and bob.row(game).status == "active"
    assert bob.replica.verify(game) == alice.row(game).state_hash
    play_notes(players, game, 2)
    assert bob.row(game).state_hash == alice.row(game).state_hash
    assert bob.count("parked") == 0


def _forged_packet_1(alice: Player, game: bytes) -> bytes:
    """Packet 1 with another body, signed by a stranger who puts their key in it."""
    body = peek_body(alice.packet(game, 1))
    assert body is not None
    stranger = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
    other = msgspec.structs.replace(body, written_at="forged")
    return sign_body(other, stranger, include_key=True)


@pytest.mark.parametrize("order", ["genesis first", "packet 1 first"])
def test_a_lost_game_whose_packet_1_is_lost_too_comes_back_with_both(
    players: dict[str, Player], alice: Player, bob: Player, game: bytes, order: str
) -> None:
    """Row, genesis, packet 1 and every kept state lost: the genesis cannot be checked until
    packet 1, which names it, is back, and packet 1 only against packet 2. Before, the
    genesis was refused as one the chain does not name, and packet 1 was kept aside as a
    stranger's game. Now whichever comes first waits for or fills the other, and the row is
    rebuilt once the genesis is in place. Attack: a packet 1 the chain does not name is
    refused."""
    play_notes(players, game, 2)
    with bob.replica.store.transaction() as db:
        db.execute("DELETE FROM snapshots WHERE game_id = ?", (game,))
        db.execute("DELETE FROM packets WHERE game_id = ? AND seq = 1", (game,))
    _lose(bob, game, "deleted", genesis=True)
    assert bob.replica.games() == []

    forged = bob.replica.receive(_forged_packet_1(alice, game), source="forged", now=now())
    assert (forged.status, forged.detail) == (
        "rejected",
        "packet 1 for a game whose later packets this home holds, which they do not name",
    )
    assert bob.replica.games() == []

    genesis, first = alice.packet(game, 0), alice.packet(game, 1)
    sent = [genesis, first] if order == "genesis first" else [first, genesis]
    outcomes = [bob.replica.receive(data, source="resend", now=now()) for data in sent]
    if order == "genesis first":
        assert outcomes[0].status == "buffered", outcomes[0]
        assert "the packet after it was lost here too" in outcomes[0].detail
        assert outcomes[1].detail == (
            "packets 0, 1 were lost from this home's store, and the chain names these "
            "copies there: kept again"
        )
    else:
        assert [o.status for o in outcomes] == ["duplicate", "duplicate"], outcomes
    assert bob.row(game).name == "wind" and bob.row(game).status == "active"
    assert bob.replica.verify(game) == alice.row(game).state_hash
    play_notes(players, game, 2)
    assert bob.row(game).state_hash == alice.row(game).state_hash
    assert bob.count("parked") == 0


def test_copies_held_for_a_lost_game_are_bounded_and_let_go_once_it_is_back(
    players: dict[str, Player], alice: Player, bob: Player, game: bytes
) -> None:
    """Attack: genesis copies under a lost game's id, each signed by a stranger, while its
    packet 1 is lost too, so none can be checked yet. At most `HELD_FOR_A_LOST_GAME` are held
    and the rest refused, the real one with them once the bound is reached; packet 1 still
    fills its place, the next resend's genesis fills its own, and the strangers' copies held
    for it are let go."""
    play_notes(players, game, 2)
    with bob.replica.store.transaction() as db:
        db.execute("DELETE FROM snapshots WHERE game_id = ?", (game,))
        db.execute("DELETE FROM packets WHERE game_id = ? AND seq = 1", (game,))
    _lose(bob, game, "deleted", genesis=True)
    real = alice.packet(game, 0)
    body = peek_body(real)
    assert body is not None and isinstance(body.kind, Genesis)
    statuses = []
    for n in range(held.HELD_FOR_A_LOST_GAME + 3):
        stranger = Ed25519PrivateKey.from_private_bytes(bytes([n + 1]) * 32)
        first, *others = body.kind.seats
        seats = [msgspec.structs.replace(first, public_key=raw_public_key(stranger)), *others]
        kind = msgspec.structs.replace(body.kind, seats=seats, name=f"mine {n}")
        forged = sign_body(msgspec.structs.replace(body, kind=kind), stranger, include_key=True)
        statuses.append(bob.replica.receive(forged, source="forged", now=now()).status)
    assert statuses == ["buffered"] * held.HELD_FOR_A_LOST_GAME + ["rejected"] * 3
    assert bob.replica.receive(real, source="resend", now=now()).status == "rejected"

    first_copy = bob.replica.receive(alice.packet(game, 1), source="resend", now=now())
    assert first_copy.status == "duplicate", first_copy
    assert bob.replica.games() == []  # (its genesis is still to come)
    assert bob.replica.receive(real, source="resend", now=now()).status == "duplicate"
    assert store_inbox.held_count(bob.replica.store, game) == 0
    assert bob.replica.verify(game) == alice.row(game).state_hash


def test_a_lost_invitation_typed_in_other_capitals_comes_back(alice: Player, bob: Player) -> None:
    game = create_game(alice, opponent="BOB@example.org")
    alice.sync()
    bob.sync()
    _lose(bob, game, "deleted")
    assert bob.replica.game(game).status == "invited"
