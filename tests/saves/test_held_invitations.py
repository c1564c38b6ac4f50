"""Invitations to a game of a ruleset this hexpost lacks are held (`saves.invitations`), as a
modified client or a stranger would attack that: a flood of them, the same one twice, one
addressed to someone else, and the retries of packets parked for an unknown key. The one
that comes back once its ruleset is installed is in `tests/tui/test_missing_ruleset.py`."""

from __future__ import annotations

import hashlib

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from engine.core.errors import HexpostError
from engine.core.packets import (
    PROTOCOL_VERSION,
    Body,
    Genesis,
    SeatBinding,
    raw_public_key,
    sign_body,
)
from saves import invitations, store_inbox
from saves.inbox import retry_parked
from tests.saves.conftest import Player, now
from tui.services import games

MISSING = "ruleset 'nosuch' is not part of this hexpost"


def invitation(n: int, to: str = "alice@example.org") -> bytes:
    """A genesis of a game of ruleset ``nosuch`` by stranger ``n``, inviting ``to``."""
    seed = hashlib.sha256(f"stranger {n}".encode()).digest()
    key = Ed25519PrivateKey.from_private_bytes(seed)
    genesis = Genesis(
        protocol=PROTOCOL_VERSION,
        ruleset_id="nosuch",
        ruleset_version="1.0",
        scenario_id="skirmish",
        scenario_hash=bytes(32),
        options=[],
        seats=[
            SeatBinding("red", f"Stranger {n}", f"s{n}@example.org", raw_public_key(key)),
            SeatBinding("blue", "", to),
        ],
        creator="red",
        anchor=hashlib.sha256(seed).digest(),
        name=f"game{n}",
    )
    body = Body(
        game_id=hashlib.sha256(b"game" + seed).digest()[:16],
        seq=0,
        prev=bytes(32),
        seat="red",
        ruleset="nosuch/1.0",
        kind=genesis,
        entropy=hashlib.sha256(b"entropy" + seed).digest(),
    )
    return sign_body(body, key, include_key=True)


def held_count(player: Player) -> int:
    return len(store_inbox.parked_under(player.replica.store, invitations.WAITING_FOR_RULESET))


def test_a_flood_of_invitations_holds_a_bounded_number_and_refuses_the_rest(
    alice: Player,
) -> None:
    limit = invitations.MAX_WAITING
    for n in range(limit):
        outcome = alice.replica.receive(invitation(n), source=f"mail {n}", now=now())
        assert outcome.status == "parked" and outcome.attention, outcome
        assert outcome.detail.startswith(f"invitation from Stranger {n} <s{n}@example.org> ")
        assert MISSING in outcome.detail
    refused = alice.replica.receive(invitation(limit), source="mail x", now=now())
    assert refused.status == "rejected" and refused.attention
    assert f"{limit} invitations wait for this hexpost already" in refused.detail
    assert f"ask Stranger {limit} to run `hexpost resend game{limit}`" in refused.detail
    assert held_count(alice) == limit
    notes = games.home_notes(alice.replica)
    assert len(notes) == invitations.NOTES_SHOWN + 1
    assert notes[0].startswith("invitation from Stranger 0 <s0@example.org> to play skirmish waits")
    assert notes[-1] == f"and {limit - invitations.NOTES_SHOWN} more invitations wait the same way"
    assert alice.replica.catch_up(now=now()) == []  # nothing can be played yet: no work


def test_the_same_invitation_twice_is_held_once(alice: Player) -> None:
    for source in ("mail 1", "mail 2"):
        assert alice.replica.receive(invitation(7), source=source, now=now()).status == "parked"
    assert held_count(alice) == 1
    assert len(games.home_notes(alice.replica)) == 1


def test_an_invitation_for_someone_else_is_not_held(alice: Player) -> None:
    outcome = alice.replica.receive(invitation(3, to="carol@example.org"), source="m", now=now())
    assert outcome.status == "ignored"
    assert held_count(alice) == 0 and games.home_notes(alice.replica) == ()


def test_retrying_the_packets_parked_for_a_key_passes_held_invitations_by(
    alice: Player,
) -> None:
    alice.replica.receive(invitation(1), source="mail", now=now())
    with alice.replica.store.transaction():
        assert retry_parked(alice.replica, now()) == []  # not offered again, nor said again
    assert held_count(alice) == 1


def test_an_invitation_held_thirty_days_is_dropped_and_said_so(alice: Player) -> None:
    """A player who never installs the ruleset is not shown the note for ever: after
    `HELD_DAYS` days the invitation goes, kept among the refused items with the reason."""
    alice.replica.receive(invitation(5), source="mail", now="2030-01-01T10:00:00Z")
    assert alice.replica.catch_up(now="2030-01-31T09:59:59Z") == []  # not yet 30 days
    assert held_count(alice) == 1
    (dropped,) = alice.replica.catch_up(now="2030-01-31T10:00:00Z")
    assert dropped.status == "rejected" and not dropped.attention
    assert dropped.detail == (
        "invitation from Stranger 5 <s5@example.org> to play skirmish dropped: held 30 days, "
        f"and this hexpost still cannot play it: {MISSING} (it has fe): once it can, ask "
        "Stranger 5 to run `hexpost resend game5`"
    )
    assert held_count(alice) == 0 and games.home_notes(alice.replica) == ()
    assert alice.replica.catch_up(now="2030-03-01T00:00:00Z") == []


def test_a_held_invitation_can_be_dropped_by_hand(alice: Player) -> None:
    """A player who will not install the ruleset need not wait 30 days for the note to go:
    `hexpost decline NAME` drops the held invitation (the creator cannot be told: a decline
    is signed over the game's state, which needs the ruleset), kept among the refused items."""
    alice.replica.receive(invitation(4), source="mail", now=now())
    alice.replica.receive(invitation(6), source="mail", now=now())
    notes = games.home_notes(alice.replica)
    assert notes[0].endswith("`hexpost decline game4` drops it")
    text = alice.replica.drop_held_invitation("game4", now=now())
    assert text == (
        "invitation from Stranger 4 <s4@example.org> to play skirmish dropped by hand; "
        "Stranger 4 is not told (declining needs the game's ruleset)"
    )
    assert held_count(alice) == 1
    (left,) = games.home_notes(alice.replica)
    assert left.startswith("invitation from Stranger 6 ")
    reasons = [row[0] for row in alice.replica.store.all("SELECT reason FROM rejected")]
    assert text in reasons
    with pytest.raises(HexpostError, match="no held invitation matches 'game4'"):
        alice.replica.drop_held_invitation("game4", now=now())
    assert held_count(alice) == 1
