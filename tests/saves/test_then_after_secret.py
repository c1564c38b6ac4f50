"""A packet that carries a secret choice ends with it (nothing may follow a secret), so it
runs into no step of the player's to add orders for, even when the next decision is theirs
again. Found in a game from the command line: the Kzinti's carrier groups at 5-3C, with the
Lyran policy choosing the Lyrans' at once, led to the Kzinti's flagship at 5-3D, and
`hexpost orders` said the next step's orders could go in the same packet (and the app's
panel would have offered them): a second secret in one packet is refused. (From fe 5.10
the same holds of the Kzinti's battle force at 5-3E, then their BIR at 5-3X2.)"""

from __future__ import annotations

from engine.core.owed import pending
from engine.fe import RULESET
from tests.saves.conftest import (
    ATTACK,
    FORCE,
    Player,
    advance,
    exchange,
    now,
)

POLICY = {
    "type": "policy",
    "flagship": "auto",
    "force": "auto",
    "ew": "default",
    "allocate": "suggested",
}
"""The coalition's combat policy: the engine's picks (the app's recommended one)."""


def test_a_secret_choice_runs_into_no_step_in_its_packet(
    game: bytes, players: dict[str, Player]
) -> None:
    coalition, alliance = players["coalition"], players["alliance"]
    advance(players, game, "3B2")
    coalition.replica.submit(game, [POLICY, {"type": "done"}], now=now())
    exchange(coalition, alliance)
    advance(players, game, "3B2")
    alliance.replica.submit(game, [ATTACK, {"type": "done"}], now=now())
    exchange(alliance, coalition)
    advance(players, game, "5-3E")
    secret = [{"type": "secret", "choice": FORCE}]
    dry = alliance.replica.submit(game, secret, now=now(), dry_run=True)
    assert dry.state is not None
    (owed, *_) = pending(RULESET, dry.state)
    assert owed.seats == ("alliance",) and owed.step != "5-3E", owed  # the premise
    assert dry.then_owed is None
