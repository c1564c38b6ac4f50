"""Which steps the seats' signed policies answer, and which order signs a policy that could,
for the checklist.

A standing order names steps; a policy names choices (a flagship, an intensity, whether to
retreat), and each rules area that reads one knows the steps its fields answer. `policy_cover`
asks them (`engine.fe.steps.combat_policy`, `engine.fe.steps.combat_pursuit`,
`engine.fe.steps.reaction_policy`) and gathers the answer by step, so the checklist can mark
the steps no email of that seat's will be waited for, as it marks its standing order's.
`POLICY_ORDERS` says, for every step some policy could answer, which order signs it: what a
player waited for there would sign (its test checks it against those areas). It is data, so
the checklist reads it without importing the rules areas.
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.core.ruleset import Seat
from engine.fe.model import FeState

COMBAT_POLICY_STEPS = (
    "5-2A2", "5-2A3", "5-2B1", "5-3C", "5-3D", "5-3E", "5-3X2", "5-4A2", "5-5B", "5-5C",
    "5-6A", "5-6B", "5-6X1", "5-7A1", "5-7A2", "5-7A3", "5-8A", "5-8D", "5-8F",
)  # fmt: skip
"""The steps a combat policy (``policy``) with every field set answers."""
REACTION_POLICY_STEPS = ("3B3",)
"""The steps a reaction policy (``reaction``) answers."""
POLICY_ORDERS: Mapping[str, str] = {
    **dict.fromkeys(COMBAT_POLICY_STEPS, "policy"),
    **dict.fromkeys(REACTION_POLICY_STEPS, "reaction"),
}
"""Step id -> the order that signs a policy able to answer it."""


def policy_cover(state: FeState) -> dict[str, tuple[Seat, ...]]:
    """Step id -> the seats whose signed policy answers their part of it, in seat order."""
    from engine.fe.steps import combat_policy, combat_pursuit, planet_policy, reaction_policy

    covering: dict[str, set[Seat]] = {}
    opening = state.plays_at_least(combat_policy.OPENING_FROM)
    capture = state.plays_at_least(combat_policy.CAPTURE_FROM)
    direct = state.plays_at_least(combat_policy.DIRECT_FROM)
    joined = state.plays_at_least(combat_policy.JOINED_FROM)
    for seat, policy in state.policies:
        steps = (
            *combat_policy.answered_steps(
                policy, opening=opening, capture=capture, direct=direct, joined=joined
            ),
            *combat_pursuit.answered_steps(policy),
        )
        for step in steps:
            covering.setdefault(step, set()).add(seat)
    if combat_policy.stalled(state):  # the retreat options are left to the seats (5.6)
        for step in combat_policy.RETREAT_STEPS:
            covering.pop(step, None)
        for seat, step in planet_policy.cover(state):  # unless taken (5.11)
            covering.setdefault(step, set()).add(seat)
    for seat, reaction in state.reaction_policies:
        if reaction_policy.answers(reaction):
            covering.setdefault(reaction_policy.REACTION_STEP, set()).add(seat)
    return {
        step: tuple(seat for seat in state.seats if seat in seats)
        for step, seats in covering.items()
    }
