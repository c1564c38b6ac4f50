"""A combat policy's answers to a base battle's opening steps, from F&E 5.4
(`engine.fe.steps.combat_policy`): the attacker's offer of an approach battle from round 2
(5-2A2, ``offer``), the defender's answer (5-2A3, ``approach``) and the attacker's retreat
before the base battle (5-2B1, read from ``retreat``).

Each of those steps asks one seat and is a hand-off by email, every round of every battle at
a base: a policy that already says "never retreat" or "accept every approach battle" answers
them as the player would. The board is the tutorial's, with the Klingon D6 and the Kzinti
Border Guard in 1205, the hex of the Kzinti battle station KZI-B001
(`tests.engine.fe.steps.test_combat_withdrawal`).
"""

from __future__ import annotations

import msgspec
import pytest

from engine.core.errors import IllegalOrder, PacketError
from engine.fe import FE as RULESET
from engine.fe.battle_model import CombatPolicy
from engine.fe.model import FeState
from engine.fe.orders import PolicyOrder
from engine.fe.policy_cover import COMBAT_POLICY_STEPS, policy_cover
from engine.fe.steps import combat, combat_policy
from tests.engine.fe.helpers import owed, run_until
from tests.engine.fe.steps.test_combat_withdrawal import GUARD, battle_in, record
from tests.engine.fe.steps.tutorial_states import orders, placed, refusals, run_to, texts
from tests.engine.fe_battle import PlacedFe
from tests.engine.table import Table

DONE = {"type": "done"}
OPENING_STEPS = ("5-2A2", "5-2A3", "5-2B1")


def signed(state: FeState, **policies: CombatPolicy) -> FeState:
    """``state`` with these seats' policies in force (as a ``policy`` order leaves them)."""
    return msgspec.structs.replace(state, policies=tuple(sorted(policies.items())))


def base_battle(version: str = "5.4", **policies: CombatPolicy) -> FeState:
    """The battle in 1205 at 5-1A of a game played at ``version``, with ``policies``; the
    defender has answered its withdrawal (none): the sequence stands at its next question."""
    state = RULESET.at_version(battle_in(1205), version)
    state, _ = orders(signed(state, **policies), "alliance", DONE)
    return state


def test_the_defender_s_policy_accepts_the_approach_battle_unasked() -> None:
    state = base_battle(alliance=CombatPolicy(approach="accept"))
    assert owed(state).step not in OPENING_STEPS
    assert record(state).opening.kind == "approach" and record(state).opening.accepted == 1


def test_a_refusal_and_a_policy_that_never_retreats_reach_the_round_unasked() -> None:
    """The defender refuses by policy; the attacker's policy never retreats, so it stays for
    the base battle at 5-2B1 without an email."""
    state = base_battle(alliance=CombatPolicy(approach="refuse"), coalition=CombatPolicy(retreat=0))
    assert owed(state).step == "5-3B", owed(state)
    assert record(state).opening.kind == "base" and record(state).opening.declined == 1
    assert record(state).retreats == ()


def test_without_a_retreat_policy_the_attacker_is_still_asked_before_the_base_battle() -> None:
    state = base_battle(alliance=CombatPolicy(approach="refuse"))
    assert owed(state).step == "5-2B1" and owed(state).seats == ("coalition",)


def round_two(state: FeState, asked: list[str]) -> FeState:
    """Play on (`run_until`: done, or the plainest secret choice) until round 2 of the
    battle stands past its opening steps; ``asked`` gets each step a seat was asked at."""

    def past_opening(state: FeState) -> bool:
        found = combat.current(state)
        step = owed(state).step
        if found is not None and found.rounds >= 1 and step.startswith("5-3"):
            return True
        asked.append(step)
        return False

    return run_until(state, past_opening)


def test_a_policy_that_retreats_later_stays_before_the_second_round_s_base_battle() -> None:
    """retreat 2: one round fought, the attacker stays for round 2's base battle unasked."""
    state = base_battle(
        alliance=CombatPolicy(approach="refuse"), coalition=CombatPolicy(retreat=2, offer="never")
    )
    asked: list[str] = []
    state = round_two(state, asked)
    assert record(state).rounds == 1 and "coalition" not in record(state).retreats
    assert not set(OPENING_STEPS) & set(asked), asked


def test_the_attacker_s_offer_from_round_2_follows_its_policy() -> None:
    for offer, offered in (("always", 2), ("never", 0)):
        state = base_battle(
            alliance=CombatPolicy(approach="refuse"),
            coalition=CombatPolicy(retreat=0, offer=offer),  # type: ignore[arg-type]
        )
        asked: list[str] = []
        state = round_two(state, asked)
        assert record(state).rounds == 1
        assert record(state).opening.offered == offered, offer
        # the defender's policy refused round 2's offer too: a base battle again, unasked
        assert record(state).opening.kind == "base"
        assert not set(OPENING_STEPS) & set(asked), asked


def test_a_5_3_game_still_asks_and_refuses_the_new_fields() -> None:
    state = base_battle("5.3", alliance=CombatPolicy(retreat=0), coalition=CombatPolicy(retreat=0))
    assert owed(state).step == "5-2A3" and owed(state).seats == ("alliance",)
    state, _ = orders(state, "alliance", DONE)  # refuses
    assert owed(state).step == "5-2B1" and owed(state).seats == ("coalition",)
    assert refusals(state, "coalition", {"type": "policy", "offer": "always"}) == [
        "a policy's offer and approach answers take F&E 5.4; this game plays 5.3 (302.22)"
    ]
    assert refusals(state, "coalition", {"type": "policy", "retreat": 0}) == []


def test_the_new_fields_are_described_and_counted_in_the_cover() -> None:
    policy = CombatPolicy(offer="always", approach="refuse", retreat=0)
    said = combat_policy.describe(policy)
    assert "offer approach battles always" in said
    assert "refuse approach battles" in said
    steps = combat_policy.answered_steps(policy)
    assert set(OPENING_STEPS) <= set(steps) <= set(COMBAT_POLICY_STEPS)
    state = RULESET.at_version(placed(run_to(battle_in(1104), "5-1A"), {}), "5.4")
    cover = policy_cover(signed(state, coalition=policy))
    assert all(cover[step] == ("coalition",) for step in OPENING_STEPS)


@pytest.mark.parametrize("approach", ["accept", "refuse"])
def test_the_policy_s_answer_is_an_event_of_its_own(approach: str) -> None:
    state = RULESET.at_version(battle_in(1205), "5.4")
    state = signed(state, alliance=CombatPolicy(approach=approach))  # type: ignore[arg-type]
    state, events = orders(state, "alliance", DONE)
    said = texts(events, "approach")
    word = "accepts" if approach == "accept" else "refuses"
    assert said and said[0].startswith(f"alliance {word} the approach battle in 1205, round 1")
    assert GUARD[0] in [u.id for u in state.board.at(1205)]


@pytest.mark.parametrize(
    ("version", "wild"),
    [
        ("5.4", PolicyOrder(approach="maybe")),  # type: ignore[arg-type]
        ("5.4", PolicyOrder(offer="sometimes")),  # type: ignore[arg-type]
        ("5.3", PolicyOrder(offer="always")),
        ("5.3", PolicyOrder(approach="refuse", retreat=0)),
    ],
)
def test_a_wild_opening_policy_is_refused_whole(version: str, wild: PolicyOrder) -> None:
    """Through the protocol core, as another player's client would send it: a value outside
    the fields' words cannot be decoded, and the new fields in a game of 5.3 are refused by
    the rules; either way the packet is refused whole and the game is as it was."""
    table = Table(PlacedFe(version=version), "tutorial", ["coalition", "alliance"], label="wild")
    before = table.state
    with pytest.raises((PacketError, IllegalOrder)):
        table.orders("coalition", wild)
    assert table.state is before
