"""Chat packets between two real homes over the loopback network.

A chat is signed, chained and sent like orders, and both homes' logs then show it as a
``chat`` event of its seat; the decision owed stays the same. A chat off one's move, an
empty one or one of several lines is refused before anything is stored.
"""

from __future__ import annotations

import pytest

from engine.core.errors import GameFrozen, HexpostError
from engine.core.packets import Chat
from engine.core.ruleset import Decision, DecisionKind
from saves.chat import MAX_CHAT, check_chat_turn
from tests.saves.conftest import Player, create_game, exchange, now, owner


def chats(player: Player, game_id: bytes) -> list[tuple[int, str | None, str]]:
    return [
        (seq, event.seat, event.text)
        for seq, event in player.replica.events(game_id)
        if event.kind == "chat"
    ]


def test_a_chat_round_trips_and_leaves_the_move_where_it_was(
    players: dict[str, Player], game: bytes
) -> None:
    author, other = owner(players, game)
    seat = author.row(game).my_seat
    before = author.replica.pending(game)
    head = author.row(game).head_seq

    sent = author.replica.chat(game, "  Good luck, and may your dice be kind!  ", now=now())

    assert sent.seq == head + 1
    assert [e.kind for e in sent.events] == ["chat"]
    assert author.opened(game, sent.seq).body.kind == Chat("Good luck, and may your dice be kind!")
    exchange(author, other)
    for player in (author, other):
        assert player.row(game).head_seq == sent.seq
        assert chats(player, game) == [(sent.seq, seat, "Good luck, and may your dice be kind!")]
        assert player.replica.pending(game) == before  # still the same move, same seat
    assert author.row(game).state_hash == other.row(game).state_hash
    assert other.replica.verify(game) == author.replica.verify(game)

    # The author can go on with its move after the chat.
    reply = author.replica.submit(game, [{"type": "done"}], now=now(), dry_run=True)
    assert reply.seq == sent.seq + 1


def test_a_chat_is_refused_off_ones_move_and_nothing_is_stored(
    players: dict[str, Player], game: bytes
) -> None:
    _author, other = owner(players, game)
    before = other.snapshot(game)
    with pytest.raises(HexpostError, match="not your move"):
        other.replica.chat(game, "hello", now=now())
    assert other.snapshot(game) == before


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("   ", "needs some text"),
        ("two\nlines", "one line"),
        ("x" * (MAX_CHAT + 1), f"at most {MAX_CHAT}"),
    ],
)
def test_bad_chat_text_is_refused(
    players: dict[str, Player], game: bytes, text: str, reason: str
) -> None:
    author, _ = owner(players, game)
    before = author.snapshot(game)
    with pytest.raises(HexpostError, match=reason):
        author.replica.chat(game, text, now=now())
    assert author.snapshot(game) == before


def test_a_chat_waits_for_an_invitation_to_be_accepted(alice: Player, bob: Player) -> None:
    game = create_game(alice)
    alice.sync()
    bob.sync()
    with pytest.raises(HexpostError, match="invitation"):
        bob.replica.chat(game, "hi", now=now())


@pytest.mark.parametrize("kind", [DecisionKind.ENTROPY, DecisionKind.REVEAL])
def test_no_chat_while_an_automatic_reply_is_owed(kind: DecisionKind) -> None:
    """The chat's entropy would settle a waiting roll: the sync's reply comes first."""
    owed = [Decision(("alliance",), "3B2", kind, "T1/3B2/roll")]
    with pytest.raises(HexpostError, match="automatic reply"):
        check_chat_turn("wind", "alliance", status="active", frozen=None, owed=owed)
    with pytest.raises(GameFrozen):
        check_chat_turn("wind", "alliance", status="active", frozen="desync", owed=owed)
    with pytest.raises(HexpostError, match="is over"):
        check_chat_turn("wind", "alliance", status="active", frozen=None, owed=[])
