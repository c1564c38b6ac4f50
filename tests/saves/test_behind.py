"""`saves.behind` attacked: a home that holds a packet beyond a gap signs nothing in that game,
so who can make it hold one decides who can stop it. Only a seat of the game can (a packet
signed by any other key is never held), and that seat could stop the game by not playing."""

from __future__ import annotations

import msgspec
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from engine.core.errors import HexpostError
from engine.core.packets import Body, Turn, sign_body
from tests.saves.conftest import Player, now


def _far_ahead(player: Player, game: bytes) -> Body:
    """A turn body of the alliance (Bob's seat) moved to position head + 5 of ``game``,
    following a packet nobody wrote."""
    head = player.row(game).head_seq
    body = next(
        opened.body
        for seq in range(head, 0, -1)
        if (opened := player.opened(game, seq)).body.seat == "alliance"
        and isinstance(opened.body.kind, Turn)
    )
    return msgspec.structs.replace(body, seq=head + 5, prev=bytes(range(32)), written_at="x")


def test_a_strangers_packet_far_ahead_does_not_hold_a_home_back(
    alice: Player, bob: Player, game: bytes
) -> None:
    forged = sign_body(_far_ahead(alice, game), Ed25519PrivateKey.generate())
    outcome = alice.replica.receive(forged, source="mallory", now=now())
    assert outcome.status != "buffered", outcome
    assert alice.count("buffered") == 0
    done = alice.replica.submit(game, [{"type": "note", "text": "still mine"}], now=now())
    assert done.seq == alice.row(game).head_seq


def test_a_packet_of_the_other_seat_beyond_a_gap_holds_the_home_back(
    alice: Player, bob: Player, game: bytes
) -> None:
    """The other seat signing a position it could only reach past this home's head: this
    home may be behind, so it signs nothing until the chain comes (`test_backup` has it
    come); a cheating opponent gains nothing but a stopped game, which it had anyway."""
    head = alice.row(game).head_seq
    ahead = sign_body(_far_ahead(alice, game), bob.key)
    outcome = alice.replica.receive(ahead, source="bob", now=now())
    assert outcome.status == "buffered", outcome
    before = alice.snapshot(game)
    with pytest.raises(HexpostError) as refused:
        alice.replica.submit(game, [{"type": "note", "text": "mine?"}], now=now())
    refusal = str(refused.value)
    assert f"packet {head + 5} from alliance is here but not packets {head + 1} to" in refusal
    # Neither cause is taken for the only one: the player reads that the other seat's client
    # may have signed a position the game has not reached (and then nothing comes).
    assert (
        "either this home is behind the game (restored from an older copy?) or alliance's "
        f"client signed packet {head + 5} ahead of the game, and then the resend brings "
        "nothing" in refusal
    ), refusal
    assert alice.snapshot(game) == before
