"""A combat policy's ``direct`` "never", from F&E 5.7 (`engine.fe.steps.combat_directed`).

Seen in the game by mail: in a three-round battle between two big fleets, the Lyrans were
asked at 5-5C and the Kzinti at 5-5B every round whether to spend their damage on a directed
attack (302.5), and answered ``done`` each time: two hand-offs by email a round that no
signed policy could spare, whatever else it answered. From 5.7 a policy may say it never
directs damage; its side's directed step then passes with the reason, like a capture
"never" at 5-6X1 (5.5). A game before 5.7 refuses the field by name and still asks.

The board is `tests.engine.fe.steps.test_combat_directed`'s: the Klingon Strike Force
against the Kzinti Border Guard in 1105 (the Klingons score 17 points, the Kzinti 11: both
sides can buy a directed attack).
"""

from __future__ import annotations

import msgspec

from engine.core.ruleset import Event
from engine.fe import FE
from engine.fe.battle_model import CombatPolicy
from engine.fe.face import FACE
from engine.fe.model import FeState
from engine.fe.orders import PolicyOrder
from engine.fe.policy_cover import COMBAT_POLICY_STEPS, policy_cover
from engine.fe.steps import combat_policy
from tests.engine.fe.helpers import owed
from tests.engine.fe.steps.test_combat_directed import GUARD, STRIKE
from tests.engine.fe.steps.test_combat_round import reveal
from tests.engine.fe.steps.tutorial_states import after_setup, placed, refusals, run_to, texts

NEVER = CombatPolicy(direct="never")


def at_directed_damage(
    version: str, events: list[Event] | None = None, **policies: CombatPolicy
) -> FeState:
    """The battle in 1105 run to 5-5B or past it, at ``version`` with ``policies``."""
    state = FE.at_version(placed(after_setup(), dict.fromkeys(STRIKE, 1105)), version)
    state = msgspec.structs.replace(state, policies=tuple(sorted(policies.items())))
    state = reveal(run_to(state, "5-3D"), {"coalition": STRIKE[0], "alliance": "KZI-0001"})
    state = reveal(run_to(state, "5-3E"), {"coalition": STRIKE, "alliance": GUARD})
    state = reveal(run_to(state, "5-3X2"), {"coalition": 4, "alliance": 4}, dice=(6,))
    state = reveal(
        run_to(state, "5-4A2"), {"coalition": "default", "alliance": "default"}, dice=(6, 1)
    )
    return run_to(state, "5-6A", events) if policies else run_to(state, "5-5B", events)


def test_without_the_field_both_sides_are_asked() -> None:
    state = at_directed_damage("5.7")
    assert owed(state).step == "5-5B" and owed(state).seats == ("coalition",)


def test_a_side_that_never_directs_is_not_asked() -> None:
    events: list[Event] = []
    at_directed_damage("5.7", events, coalition=NEVER, alliance=NEVER)
    passed = texts(events, "step-passed")
    assert (
        "5-5B Attacker's directed damage on one enemy unit: coalition never directs damage, "
        "as signed in the combat policy (302.5)" in passed
    ), passed
    assert any(t.startswith("5-5C ") and "alliance never directs damage" in t for t in passed)
    assert not any(e.step in ("5-5B", "5-5C") and e.kind == "step-done" for e in events)


def test_one_side_s_never_leaves_the_other_asked() -> None:
    """Signed at 5-5B itself: the step passes at once, and the Kzinti are asked at 5-5C."""
    state = at_directed_damage("5.7")
    state = FE.apply(state, "coalition", PolicyOrder(direct="never")).state
    assert owed(state).step == "5-5C" and owed(state).seats == ("alliance",)


def test_a_5_6_game_refuses_the_field_and_asks() -> None:
    state = at_directed_damage("5.6")
    assert refusals(state, "coalition", {"type": "policy", "direct": "never"}) == [
        "a policy's direct answer takes F&E 5.7; this game plays 5.6 (302.5)"
    ]
    assert owed(state).seats == ("coalition",)


def test_the_field_is_described_counted_in_the_cover_and_offered_from_5_7() -> None:
    assert combat_policy.describe(NEVER) == "never direct damage"
    assert {"5-5B", "5-5C"} <= set(COMBAT_POLICY_STEPS)
    for version, offered in (("5.6", False), ("5.7", True)):
        state = at_directed_damage(version)
        signed = msgspec.structs.replace(state, policies=(("coalition", NEVER),))
        assert ("5-5B" in policy_cover(signed)) is offered
        (policy,) = [c for c in FACE.choices(state, "coalition") if c.order == "policy"]
        assert ("direct" in [p.name for p in policy.params]) is offered
