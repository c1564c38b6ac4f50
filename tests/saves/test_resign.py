"""Resigning a game (`saves.resigning`): on one's own move, final, the same over game
on both sides; asked for off one's move and signed on the next by itself; refused with the
reason, storing nothing, everywhere else."""

from __future__ import annotations

import asyncio

import pytest

from engine.core.errors import GameFrozen, HexpostError
from engine.core.ruleset import DecisionKind
from mail.sync import sync
from saves import resigning
from tests.saves.conftest import CHAIN_LENGTH, Player, create_game, exchange, now, owner


def test_resigning_on_ones_move_ends_the_game_the_same_on_both_sides(
    players: dict[str, Player], game: bytes
) -> None:
    mover, waiting = owner(players, game)
    seat = mover.row(game).my_seat
    sub = resigning.resign(mover.replica, game, now=now(), reason="  outgunned at the capital ")
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
            resigning.resign(player.replica, game, now=now())
        with pytest.raises(HexpostError, match="over"):
            player.replica.submit(game, [{"type": "note", "text": "x"}], now=now())


def test_resigning_out_of_turn_is_refused_naming_whose_move_it_is(
    players: dict[str, Player], game: bytes
) -> None:
    mover, waiting = owner(players, game)
    before = waiting.snapshot(game)
    with pytest.raises(HexpostError) as refused:
        resigning.resign(waiting.replica, game, now=now())
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
        resigning.resign(mover.replica, game, now=now(), reason=reason)
    assert mover.snapshot(game) == before


def test_an_invitation_is_declined_not_resigned(alice: Player, bob: Player) -> None:
    game = create_game(alice)
    alice.sync()
    bob.sync()
    with pytest.raises(HexpostError, match="an invitation: `hexpost decline wind` refuses it"):
        resigning.resign(bob.replica, game, now=now())
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
    sub = resigning.resign(alice.replica, game, now=now())
    assert [e.kind for e in sub.events] == ["key-declined", "resign"]
    exchange(alice, bob)
    assert bob.replica.state(game).core.resigned == "coalition"


def test_a_frozen_game_cannot_be_resigned(players: dict[str, Player], game: bytes) -> None:
    mover, _ = owner(players, game)
    mover.replica.store.db.execute(
        "UPDATE games SET frozen = 'a test freeze' WHERE game_id = ?", (game,)
    )
    with pytest.raises(GameFrozen, match="a test freeze"):
        resigning.resign(mover.replica, game, now=now())


def test_a_resignation_asked_off_ones_move_is_signed_when_the_move_comes(
    players: dict[str, Player], game: bytes
) -> None:
    """Before, the player had to come back when the move returned; now their next sync that
    brings the move signs it, with no one at the keyboard, and the game is over for both."""
    mover, waiting = owner(players, game)
    seat = waiting.row(game).my_seat
    assert resigning.check(waiting.replica, game).now is False
    before = waiting.snapshot(game)
    resigning.queue(waiting.replica, game, now=now(), reason="called away")
    assert waiting.snapshot(game) == before  # nothing signed, nothing to send yet
    assert waiting.row(game).resign_reason == "called away"
    with pytest.raises(HexpostError, match="resign now instead"):
        resigning.queue(mover.replica, game, now=now())
    # The mover plays on through the end of its turn; the waiting seat's sync resigns.
    mover.replica.submit(game, [{"type": "done", "through": "end"}], now=now())
    mover.sync()
    report = waiting.sync()
    assert waiting.replica.state(game).core.resigned == seat
    assert waiting.row(game).resign_at == ""  # asked no more: taken back with the signing
    assert report.sent  # the resignation went out in the same sync
    assert report.resigned == [waiting.row(game).name]
    mover.sync()
    assert mover.replica.state(game).core.resigned == seat
    assert mover.row(game).state_hash == waiting.row(game).state_hash
    (resign_event,) = [e for _, e in mover.replica.events(game, None) if e.kind == "resign"]
    assert resign_event.text == f"{seat} resigned: called away"


def test_resigning_by_hand_answers_a_wish_kept_for_that_move(
    players: dict[str, Player], game: bytes
) -> None:
    """With automatic replies off, the player resigns by hand when the move comes: that
    packet answers the wish, which is cleared with it."""
    mover, waiting = owner(players, game)
    resigning.queue(waiting.replica, game, now=now())
    mover.replica.submit(game, [{"type": "done", "through": "end"}], now=now())
    mover.sync()
    asyncio.run(sync(waiting.replica, waiting.transport, now, auto_replies=False))
    assert resigning.due(waiting.replica, waiting.row(game))
    resigning.resign(waiting.replica, game, now=now())
    assert waiting.row(game).resign_at == ""


def test_a_resignation_asked_for_can_be_taken_back(players: dict[str, Player], game: bytes) -> None:
    mover, waiting = owner(players, game)
    assert resigning.cancel(waiting.replica, game) is False
    resigning.queue(waiting.replica, game, now=now())
    assert resigning.cancel(waiting.replica, game) is True
    mover.replica.submit(game, [{"type": "done", "through": "end"}], now=now())
    exchange(mover, waiting)
    assert not waiting.replica.state(game).core.resigned
    assert waiting.replica.pending(game)  # the game goes on


def test_a_resignation_asked_for_waits_while_the_key_is_locked(
    players: dict[str, Player], game: bytes
) -> None:
    """No key, no signature: a sync without it receives the move and leaves the wish, due,
    for a sync with the key (the app then asks for the passphrase)."""
    mover, waiting = owner(players, game)
    resigning.queue(waiting.replica, game, now=now())
    mover.replica.submit(game, [{"type": "done", "through": "end"}], now=now())
    mover.sync()
    locked = waiting.home.replica()
    asyncio.run(sync(locked, waiting.transport, now))
    assert locked.auto_replies(now()) == ([], [])
    assert not locked.state(game).core.resigned
    assert resigning.due(locked, locked.game(game))
    waiting.sync()  # with the key
    assert waiting.replica.state(game).core.resigned == waiting.row(game).my_seat


def test_resigning_an_unanswered_invitation_withdraws_it(alice: Player, bob: Player) -> None:
    """The creator of an invitation nobody answered cannot write to the game (the join is
    owed), so the resignation is kept: if the invitee joins after all, the creator's next
    sync declines the joined key at once, and the game ends for both."""
    game = create_game(alice)
    alice.sync()
    assert resigning.check(alice.replica, game).now is False
    resigning.queue(alice.replica, game, now=now(), reason="withdrawn")
    bob.sync()
    bob.replica.accept(game, now=now(), chain_length=CHAIN_LENGTH)
    bob.sync()
    report = alice.sync()
    assert report.resigned == ["wind"]
    kinds = [e.kind for _, e in alice.replica.events(game, None)]
    assert kinds[-2:] == ["key-declined", "resign"]
    bob.sync()
    assert bob.replica.state(game).core.resigned == "coalition"
    assert bob.replica.pending(game) == []
