"""Secret battle choices the rules leave only one way to make: the engine makes them.

A secret step asks each side for a choice nobody else may see before both are bound. When
the board leaves a side a single legal choice, there is nothing to hide and nothing to
decide: asking for it costs a commitment and a reveal, two emails, for a choice both players
could write down for it. From F&E 5.8 (`FORCED_FROM`) the engine makes such a choice itself,
as a signed policy would (`engine.fe.steps.combat_policy.decides`): that side is not asked;
when no side is left to ask, the step passes. The choice is worked out from what both players
see on the board, so making it tells the other side nothing.

A side's choice is forced (I, from the rules each step's checks enforce):

- 5-3C, the carrier groups (515.15): after the first round of a battle, the groups formed in
  it, less the units gone (they stay as formed until pursuit); in the first round, no group
  (``[]``) when no carrier there can take an escort or there is no escort to take;
- 5-3D, the flagship (302.32): the only eligible unit (``""`` with none: nothing there can
  command) when no command points can be spent (308.9: round 1 only, with points held); the
  flagship the defender must name after an opposed withdrawal (302.133), the same;
- 5-3E, the battle force (302.3), from F&E 5.9 (`FORCE_FORCED_FROM`): ``[]`` for a side that
  named no flagship (nothing there can command: a planet or PDUs alone), and the flagship
  alone for a side whose only unit in the hex is its flagship (a lone ship: the force must
  hold the flagship, and nothing is left to send or to send fighters forward).

The BIR (5-3X2) is always a choice. The EW (5-4A2) is still asked
where no unit has a choice: the round's combat dice are read from the packets that reveal it
(`engine.core.rolls`), so a step nobody answered would leave them waiting for packets of
their own, a hand-off more rather than less. Each forced value is checked by the step's own
rules before the engine uses it (`combat_round.secret_problems`): a value they refuse leaves
the side asked, as before.
"""

from __future__ import annotations

from engine.core.ruleset import Seat
from engine.fe.model import FeState
from engine.fe.steps import combat, combat_approach, combat_groups, combat_round, combat_withdrawal

FORCED_FROM = "5.8"
"""The version from which the engine makes a side's forced secret choice (games begun before
ask for it, and replay as they were played)."""
FORCE_FORCED_FROM = "5.9"
"""The version from which a battle force (5-3E) the board forces is the engine's too."""
JOINED_FROM = "5.10"
"""From this version 5-3E takes the groups and the flagship with the force, and
`engine.fe.steps.force_together.forced` makes the joined choice: this module's candidate
for 5-3E, which reads the flagship 5-3D chose, is for 5.9 games only."""
FORCED_STEPS = (combat_round.GROUPS_STEP, combat_round.FLAGSHIP_STEP, combat_round.FORCE_STEP)
"""The secret steps whose choice the board may force."""
FORCED_RULE = "302.3"


def forced(state: FeState, step_id: str, seat: Seat) -> object | None:
    """``seat``'s only legal choice at the secret ``step_id`` of the battle being fought, or
    None when it has a choice to make (or the game plays an earlier version)."""
    if step_id not in FORCED_STEPS or not state.plays_at_least(FORCED_FROM):
        return None
    if step_id == combat_round.FORCE_STEP and (
        not state.plays_at_least(FORCE_FORCED_FROM) or state.plays_at_least(JOINED_FROM)
    ):
        return None
    record = combat.current(state)
    if record is None:
        return None
    value = _candidate(state, step_id, seat)
    if value is None:
        return None
    problems = combat_round.secret_problems(state, step_id, seat, value)
    return value if problems == [] else None


def _candidate(state: FeState, step_id: str, seat: Seat) -> object | None:
    """The choice the board would force at ``step_id`` (not yet checked), or None."""
    record = combat.current(state)
    assert record is not None
    if step_id == combat_round.GROUPS_STEP:
        kept = combat_round.kept_groups(state, seat, record)
        if kept is not None:
            return combat_groups.as_choice(kept)
        available = combat_round.available(state, seat, record)
        carriers = [unit for unit, most in combat_groups.carriers(available) if most]
        return [] if not carriers or not combat_groups.escorts(available) else None
    if step_id == combat_round.FORCE_STEP:
        return _forced_force(state, seat)
    if combat_round.spendable_points(state, seat):  # 5-3D, the flagship
        return None
    fixed = combat_withdrawal.fixed_flagship(record)
    if fixed and seat == combat_approach.defender(state):
        return fixed
    eligible = combat_round.eligible_flagships(state, seat)
    if len(eligible) > 1:
        return None
    return eligible[0] if eligible else ""


def _forced_force(state: FeState, seat: Seat) -> object | None:
    """5-3E: nothing when no flagship was named, the flagship alone when it is the side's
    only unit there; else None (the side chooses)."""
    side = combat_round.side_now(state, seat)
    record = combat.current(state)
    if side is None or record is None:
        return None
    if not side.flagship:
        return []
    here = [unit.id for unit in combat_round.available(state, seat, record)]
    return [side.flagship] if here == [side.flagship] else None
