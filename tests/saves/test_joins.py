"""The creator's acceptance of a joined key, in a home (`saves.joins`, rule P10)."""

from __future__ import annotations

import pytest

from engine.core import author
from engine.core.entropy import EntropyChain
from engine.core.errors import HexpostError
from engine.core.packets import Join, fingerprint
from engine.core.ruleset import DecisionKind
from engine.fe import RULESET
from saves import joins
from tests.saves.conftest import CHAIN_LENGTH, Player, create_game, exchange, now


def _joined(alice: Player, bob: Player) -> bytes:
    game = create_game(alice)
    alice.sync()
    bob.sync()
    bob.replica.accept(game, now=now(), chain_length=CHAIN_LENGTH)
    exchange(bob, alice)
    return game


def test_nothing_is_signed_before_the_creator_accepts(alice: Player, bob: Player) -> None:
    game = _joined(alice, bob)
    assert alice.replica.pending(game)[0].kind == DecisionKind.ACCEPT
    with pytest.raises(HexpostError, match="Compare that fingerprint"):
        alice.replica.submit(game, [{"type": "note", "text": "x"}], now=now())
    with pytest.raises(HexpostError, match="hexpost accept wind"):
        alice.replica.chat(game, "hello", now=now())
    assert alice.replica.auto_replies(now()) == ([], [])
    # A dry run (the app checking drafts as they are typed) still works.
    alice.replica.submit(game, [{"type": "note", "text": "x"}], now=now(), dry_run=True)
    assert alice.row(game).head_seq == 1


def test_a_wrong_fingerprint_is_refused_and_the_right_one_accepted(
    alice: Player, bob: Player
) -> None:
    game = _joined(alice, bob)
    with pytest.raises(HexpostError, match="does not match the key that joined"):
        joins.accept(alice.replica, game, now=now(), expected="0000 1111 2222 3333")
    done = joins.accept(alice.replica, game, now=now(), expected=fingerprint(bob.public_key))
    assert done.seats == ["alliance"]
    with pytest.raises(HexpostError, match="no joined key waits"):
        joins.accept(bob.replica, game, now=now())
    # In The Wind the coalition sets up first: its orders carry the acceptance, no packet now.
    assert done.packet_seq is None
    before = alice.row(game).head_seq
    sub = alice.replica.submit(game, [{"type": "note", "text": "hello"}], now=now())
    assert sub.seq == before + 1
    assert sub.events[0].kind == "key-accepted"
    # Accepted in a packet, there is nothing left to decline: the refusal names what ends
    # the game instead.
    with pytest.raises(HexpostError) as late:
        joins.decline(alice.replica, game, now=now())
    assert str(late.value) == (
        "game wind: nothing to decline, no invitation or joined key waits for your answer: "
        "`hexpost resign wind` concedes a game under way"
    )


def test_a_join_from_another_address_than_invited_is_flagged(alice: Player, bob: Player) -> None:
    """A modified client joins Bob's seat from another address: Alice's sync says so loudly."""
    game = create_game(alice)
    alice.sync()
    bob.sync()
    state = bob.replica.state(game)
    fresh = EntropyChain(b"\x05" * 32, 512)  # its own anchor: Bob's home is not involved
    body = author.new_body(
        RULESET,
        state,
        game_id=game,
        seat="alliance",
        kind=Join(state.genesis_id, "Bob", "bob@evil.example", bob.public_key, fresh.anchor),
        entropy_value=fresh.value(1),
    )
    packet, _ = author.write(RULESET, state, body, bob.key)
    outcome = alice.replica.receive(packet.data, source="t", now=now())
    assert outcome.status == "applied"
    assert "WARNING: the invitation went to bob@example.org" in outcome.detail
    assert "bob@evil.example" in outcome.detail
    assert "hexpost accept wind" in outcome.detail


def test_decline_ends_the_game_before_it_began(alice: Player, bob: Player) -> None:
    game = _joined(alice, bob)
    sub = joins.decline(alice.replica, game, now=now(), reason="not Bob's key")
    assert sub.events[0].kind == "key-declined"
    assert alice.replica.pending(game) == []
    exchange(alice, bob)
    assert bob.replica.state(game).core.resigned == "coalition"


def test_a_decline_from_another_address_than_invited_is_flagged(alice: Player, bob: Player) -> None:
    """Anyone who read the invitation can answer it, with no as well as yes: the creator's
    sync says the game is over, and loudly that the answer did not come from the invitee."""
    game = create_game(alice)
    alice.sync()
    bob.sync()
    state = bob.replica.state(game)
    fresh = EntropyChain(b"\x06" * 32, 512)
    join = Join(
        state.genesis_id, "Bob", "bob@evil.example", bob.public_key, fresh.anchor,
        declines=True, reason="busy",
    )  # fmt: skip
    body = author.new_body(
        RULESET, state, game_id=game, seat="alliance", kind=join, entropy_value=fresh.value(1)
    )
    packet, _ = author.write(RULESET, state, body, bob.key)
    outcome = alice.replica.receive(packet.data, source="t", now=now())
    assert outcome.status == "applied"
    assert "Bob <bob@evil.example> declined the invitation to wind (busy)" in outcome.detail
    assert "the game is over" in outcome.detail
    assert "WARNING: the invitation went to bob@example.org" in outcome.detail
    assert "hexpost accept" not in outcome.detail  # nothing to accept
    assert alice.replica.pending(game) == []


def test_a_declined_invitation_is_the_same_over_game_on_both_sides(
    alice: Player, bob: Player
) -> None:
    """The decline is part of the chain: an answer is final, and both homes hold the same
    over game, which the creator's `verify` replays from its genesis."""
    game = create_game(alice)
    alice.sync()
    bob.sync()
    bob.replica.decline_invitation(game, now=now(), reason="another time")
    with pytest.raises(HexpostError, match="not an open invitation"):
        bob.replica.accept(game, now=now(), chain_length=CHAIN_LENGTH)
    exchange(bob, alice)
    alice.replica.verify(game)
    assert alice.replica.state(game).core.resigned == "alliance"
    assert alice.snapshot(game) == bob.snapshot(game)


@pytest.mark.parametrize("invited", ["Bob@Example.ORG", "bob+hexpost@example.org"])
def test_an_invitation_to_an_address_of_bob_s_mailbox_reaches_him(
    alice: Player, bob: Player, invited: str
) -> None:
    """Mail systems deliver ``Bob@Example.ORG`` and ``bob+hexpost@example.org`` to
    bob@example.org, so the invitation is his: before, his home set it aside as addressed to
    someone else and he never saw it. His join, from his own address, draws no warning of
    another address either."""
    game = create_game(alice, opponent=invited)
    alice.sync()
    bob.sync()
    assert bob.row(game).status == "invited"
    bob.replica.accept(game, now=now(), chain_length=CHAIN_LENGTH)
    bob.sync()
    (joined,) = [o for o in alice.sync().received if o.status == "applied"]
    assert "WARNING" not in joined.detail and "Bob" in joined.detail, joined.detail
