"""Resigning a game (`saves.submitting.resign`): on one's own move, final, the same over game
on both sides; refused with the reason, storing nothing, everywhere else."""

from __future__ import annotations

import pytest

from engine.core.errors import GameFrozen, HexpostError
from engine.core.ruleset import DecisionKind
from saves import submitting
from tests.saves.conftest import CHAIN_LENGTH, Player, create_game, exchange, now, owner


def test_resigning_on_ones_move_ends_the_game_the_same_on_both_sides(
    players: dict[str, Player], game: bytes
) -> None:
    mover, waiting = owner(players, game)
    seat = mover.row(game).my_seat
    sub = submitting.resign(mover.replica, game, now=now(), reason="  outgunned at the capital ")
    assert [e.kind for e in sub.events] == ["resign"]
    assert sub.events[0].text == f"{seat} resigned: outgunned at the capital"
    assert mover.replica.pending(game) == []
    assert mover.count("outbox", game) >= 1
    exchange(mover, waiting)
    assert waiting.replica.state(game).core.resigned == seat
    assert waiting.replica.pending(game) == []
    assert waiting.row(game).state_hash == mover.row(game).state_hash
    waiting.replica.verify(game)
    # Final: neither side can sign anything in the game after it.
    for player in (mover, waiting):
        with pytest.raises(HexpostError, match="is over"):
            submitting.resign(player.replica, game, now=now())
        with pytest.raises(HexpostError, match="over"):
            player.replica.submit(game, [{"type": "note", "text": "x"}], now=now())


def test_resigning_out_of_turn_is_refused_naming_whose_move_it_is(
    players: dict[str, Player], game: bytes
) -> None:
    mover, waiting = owner(players, game)
    before = waiting.snapshot(game)
    with pytest.raises(HexpostError) as refused:
        submitting.resign(waiting.replica, game, now=now())
    text = str(refused.value)
    assert f"the chain takes the next packet from {mover.row(game).my_seat}" in text
    assert "resign when the move is yours" in text
    assert "hexpost chat" in text
    assert waiting.snapshot(game) == before


@pytest.mark.parametrize(
    ("reason", "wrong"),
    [
        ("one\nline", "one line of printable text"),
        ("x" * 1001, "at most 1000 characters, not 1001"),
        ("bell\x07", "one line of printable text"),
    ],
)
def test_a_resignation_reason_is_one_short_line(
    players: dict[str, Player], game: bytes, reason: str, wrong: str
) -> None:
    mover, _ = owner(players, game)
    before = mover.snapshot(game)
    with pytest.raises(HexpostError, match=f"the reason for resigning is {wrong}"):
        submitting.resign(mover.replica, game, now=now(), reason=reason)
    assert mover.snapshot(game) == before


def test_an_invitation_is_declined_not_resigned(alice: Player, bob: Player) -> None:
    game = create_game(alice)
    alice.sync()
    bob.sync()
    with pytest.raises(HexpostError, match="an invitation: `hexpost decline wind` refuses it"):
        submitting.resign(bob.replica, game, now=now())
    assert bob.row(game).status == "invited"


def test_resigning_while_the_joined_key_waits_declines_it(alice: Player, bob: Player) -> None:
    """Before the creator accepted the key that joined, its resignation declines that key
    (as `hexpost decline` does): the game ends before it began."""
    game = create_game(alice)
    alice.sync()
    bob.sync()
    bob.replica.accept(game, now=now(), chain_length=CHAIN_LENGTH)
    exchange(bob, alice)
    assert alice.replica.pending(game)[0].kind == DecisionKind.ACCEPT
    sub = submitting.resign(alice.replica, game, now=now())
    assert [e.kind for e in sub.events] == ["key-declined", "resign"]
    exchange(alice, bob)
    assert bob.replica.state(game).core.resigned == "coalition"


def test_a_frozen_game_cannot_be_resigned(players: dict[str, Player], game: bytes) -> None:
    mover, _ = owner(players, game)
    mover.replica.store.db.execute(
        "UPDATE games SET frozen = 'a test freeze' WHERE game_id = ?", (game,)
    )
    with pytest.raises(GameFrozen, match="a test freeze"):
        submitting.resign(mover.replica, game, now=now())
