"""`saves.behind` attacked: a home that holds a packet beyond a gap signs nothing in that game,
so who can make it hold one decides who can stop it. Only a seat of the game can (a packet
signed by any other key is never held), and that seat could stop the game by not playing; a late
claim it then signs against the home it held back is shown with what held it back."""

from __future__ import annotations

import msgspec
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from engine.core.errors import HexpostError
from engine.core.packets import Body, Turn, sign_body
from saves import claims
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


def test_a_late_claim_from_the_seat_whose_packet_holds_the_home_back_says_so(
    alice: Player, bob: Player, game: bytes
) -> None:
    """Attack: the seat not on the move sends a packet far ahead, so the home on the move
    signs nothing; a reply window on, it claims that home late. The claim is kept (it holds:
    that seat owes the move), and what the home shows with it says what held it back."""
    head = alice.row(game).head_seq
    ahead = sign_body(_far_ahead(alice, game), bob.key)
    assert alice.replica.receive(ahead, source="bob", now=now()).status == "buffered"
    made = claims.make_claim(bob.replica, game, "2030-01-05T00:00:00Z")
    outcome = alice.replica.receive(made.data, source="bob", now=now())
    assert outcome.status == "claim", outcome
    assert outcome.detail.endswith(
        f" (but this home signs nothing in the game while it holds alliance's packet {head + 5}, "
        f"which follows packets {head + 1} to {head + 4} it never received: if alliance's "
        "home has none of them either, its client signed that packet ahead of the game)"
    ), outcome.detail
    assert not outcome.attention  # (nothing was refused or damaged: the app counts those)
