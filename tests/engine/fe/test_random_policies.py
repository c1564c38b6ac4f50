"""Random campaigns of The Wind in which the seats sign random combat policies now and then.

Players mix what they sign: one leaves its BIR to itself and the other's policy picks it,
one never retreats, a standing order for the combat phase beside a policy or not. The
scripted games each sign one pair of policies; these games (`tests.engine.fe_random_campaign`
with ``policies``) sign dozens, with standing orders for phase 5 half the time, and must
play three turns without a seat stuck, replaying cold to the same hashes.

Seed 6's game was the first to find a fault: it stopped at 5-5B with its round's combat dice
rolled before the BIR die (F&E 5.6's dice order, `tests/engine/fe/steps/test_policy_bir_dice.py`).
Seed 11's fought a battle that could not end by policies and standing orders alone until a
seat's entropy chain ran out (the stalled battle of 5.6,
`tests/engine/fe/steps/test_stalled_battle.py`); its battle station, left alone, had accepted
an approach battle every round and so fought without itself (from 5.7 it fights: an approach
battle needs ships, `tests/engine/fe/steps/test_approach_needs_ships.py`). Seed 12's game was
the first at 5.7 that left a stalled battle to a seat: ships at a planet with nothing else
left. From 5.8 the engine makes the carrier groups a board forces (`engine.fe.steps.
forced_choices`), which changes the course of every random game: seed 12's no longer has a
BIR a policy chose for one side only, and seed 13's plays both that and a stalled battle.
"""

from __future__ import annotations

import pytest

from engine.fe.steps import combat_round
from tests.engine.fe.test_random_campaign import _cold_replay_hashes
from tests.engine.fe_random_campaign import play_random_campaign
from tests.engine.table import Table

SEEDS = (6, 13)
BY_POLICY = "chosen by the signed policies: "
TURNS = 3


@pytest.fixture(scope="module", params=SEEDS, ids=lambda seed: f"seed{seed}")
def played(request: pytest.FixtureRequest) -> tuple[int, Table]:
    return request.param, play_random_campaign(request.param, TURNS, policies=True)


@pytest.fixture(scope="module")
def game(played: tuple[int, Table]) -> Table:
    return played[1]


def test_a_campaign_of_random_policies_plays_its_turns(played: tuple[int, Table]) -> None:
    seed, game = played
    texts = [e.text for e in game.events]
    assert sum("signs its combat policy" in text for text in texts) >= 15
    chosen = [
        e.text.split(BY_POLICY)[1]
        for e in game.events
        if e.kind == "secret" and e.step == combat_round.BIR_STEP and BY_POLICY in e.text
    ]  # "coalition: 2; alliance: 3", or one side's alone
    assert any(";" not in seats for seats in chosen), "no BIR a policy chose for one side only"
    rounds = [e for e in game.events if e.kind == "damage"]
    assert len(rounds) >= 10
    if seed == 11:  # its battle that could not end is left to a seat (F&E 5.6)
        stalled = [e.text for e in game.events if e.data.get("stalled")]
        assert stalled and " is left to " in stalled[0], stalled


def test_a_campaign_of_random_policies_replays_cold_to_the_same_hashes(game: Table) -> None:
    assert _cold_replay_hashes(game) == [result.state_hash for result in game.results]
