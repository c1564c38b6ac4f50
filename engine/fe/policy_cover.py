"""Which steps the seats' signed policies answer, for the checklist.

A standing order names steps; a policy names choices (a flagship, an intensity, whether to
retreat), and each rules area that reads one knows the steps its fields answer. This module
asks them (`engine.fe.steps.combat_policy`, `engine.fe.steps.combat_pursuit`,
`engine.fe.steps.reaction_policy`) and gathers the answer by step, so the checklist can mark
the steps no email of that seat's will be waited for, as it marks its standing order's.
"""

from __future__ import annotations

from engine.core.ruleset import Seat
from engine.fe.model import FeState
from engine.fe.steps import combat_policy, combat_pursuit, reaction_policy


def policy_cover(state: FeState) -> dict[str, tuple[Seat, ...]]:
    """Step id -> the seats whose signed policy answers their part of it, in seat order."""
    covering: dict[str, set[Seat]] = {}
    for seat, policy in state.policies:
        steps = (*combat_policy.answered_steps(policy), *combat_pursuit.answered_steps(policy))
        for step in steps:
            covering.setdefault(step, set()).add(seat)
    for seat, reaction in state.reaction_policies:
        if reaction_policy.answers(reaction):
            covering.setdefault(reaction_policy.REACTION_STEP, set()).add(seat)
    return {
        step: tuple(seat for seat in state.seats if seat in seats)
        for step, seats in covering.items()
    }
