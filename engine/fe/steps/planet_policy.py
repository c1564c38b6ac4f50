"""A planet left alone in a battle hex, taken as the attacker's combat policy says (508.2).

A planet fights for its owner and takes no damage (508.0), so a battle in which the defender
has nothing left but its planet cannot end by itself: from F&E 5.6 the attacker's seat is
asked at its retreat option (`engine.fe.steps.combat_policy.stalled`), and the event tells
it to capture or devastate the planet with an adjustment. With policies and a standing
order for phase 5, that was the only hand-off of such a battle, and the answer hardly ever
varies. From F&E 5.11 a policy's ``planet`` "capture" or "devastate" answers it: at the
seat's retreat option the engine makes that adjustment itself, checked by the same rules as
a typed one (`engine.fe.steps.adjust`: the captor's own combat phase, one of its ships in
the hex, nothing of the enemy's left to defend it), and the seat stays; with nothing of the
enemy's left in the hex, the battle then ends (302.9). Where the rules refuse it, the seat
is asked as before.

The same two adjustments are what the app offers ready made to a seat asked there
(`engine.fe.menus.planet_presets`): `planet_adjustment` builds both.
"""

from __future__ import annotations

from engine.core.ruleset import Event, Seat
from engine.fe import planets
from engine.fe.model import FeState
from engine.fe.option_specs import POLICY_PLANET_FROM
from engine.fe.orders import Adjust
from engine.fe.sequence import Step
from engine.fe.steps import adjust, base, combat

PLANET_FROM = POLICY_PLANET_FROM
CHANGES = ("capture", "devastate")
ATTACKER_RETREAT_STEP = "5-7A2"
"""The attacker's (the phasing player's) retreat option (302.71), where a policy's
``planet`` answers."""


def planet_alone(state: FeState) -> bool:
    """Whether the defender of the battle being fought has nothing left in its hex but its
    planet (a battle there goes on only while the attacker stays)."""
    record = combat.current(state)
    if record is None or not record.log:
        return False
    theirs = set(base.empires_of(state, record.log[-1].defender.seat))
    return not any(u.empire in theirs for u in state.board.at(record.hex))


def planet_adjustment(state: FeState, seat: Seat, change: str, reason: str) -> Adjust | None:
    """The adjustment by which ``seat`` captures (``change`` "capture", for the first of its
    empires with a unit in the hex) or devastates the planet left alone in the battle hex;
    None where no planet is left alone. Whether the rules accept it now is the caller's to
    ask (`adjust.AREA.check`)."""
    record = combat.current(state)
    if record is None or not planet_alone(state):
        return None
    where = f"{record.hex:04d}"
    if change == "devastate":
        return Adjust(change="devastate", hex=where, reason=reason)
    mine = set(base.empires_of(state, seat))
    empire = next((u.empire for u in state.board.at(record.hex) if u.empire in mine), "")
    return Adjust(change="capture", hex=where, empire=empire, reason=reason)


def take(state: FeState, step: Step, seat: Seat, events: list[Event]) -> FeState | None:
    """``seat``'s retreat option at ``step`` answered by its policy's ``planet``: the planet
    left alone captured or devastated, and the seat staying; None where the policy says
    nothing of planets, no planet is left alone, the game is older than `PLANET_FROM`, or
    the rules refuse the adjustment now (the seat is asked: `refusal` says why)."""
    order = _planned(state, seat)
    if order is None or adjust.AREA.check(state, seat, step, order):
        return None
    return adjust.AREA.apply(state, seat, step, order, events)


def refusal(state: FeState, step: Step, seat: Seat) -> str:
    """Why the rules refuse the adjustment ``seat``'s policy would make at ``step``, for
    the event that asks the seat instead; "" where the policy makes none or it is legal."""
    order = _planned(state, seat)
    refused = adjust.AREA.check(state, seat, step, order) if order is not None else []
    if order is None or not refused:
        return ""
    return f"{seat}'s combat policy would {order.change} the planet, but: {refused[0].message}"


def _planned(state: FeState, seat: Seat) -> Adjust | None:
    """The adjustment ``seat``'s policy makes where a planet is left alone, from
    `PLANET_FROM`; None where it makes none (the seat is the planet's own side)."""
    if not state.plays_at_least(PLANET_FROM):
        return None
    policy = combat.policy_of(state, seat)
    record = combat.current(state)
    if policy is None or policy.planet not in CHANGES or record is None or not record.log:
        return None
    if record.log[-1].defender.seat == seat:
        return None  # the planet's own side
    reason = f"nothing defends it, {planets.CAPTURE_RULE}; as signed in {seat}'s combat policy"
    return planet_adjustment(state, seat, policy.planet, reason)


def cover(state: FeState) -> list[tuple[Seat, str]]:
    """The attacker's retreat option, for the checklist (`engine.fe.policy_cover`), where a
    planet is left alone and its policy's ``planet`` answers there (the rules may still
    refuse the adjustment: the seat is then asked)."""
    if not state.plays_at_least(PLANET_FROM) or not planet_alone(state):
        return []
    attacker = base.phasing(state)
    policy = combat.policy_of(state, attacker)
    if policy is None or policy.planet not in CHANGES:
        return []
    return [(attacker, ATTACKER_RETREAT_STEP)]
