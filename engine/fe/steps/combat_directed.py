"""Directed damage played on the board: the ``direct`` order of 5-5B and 5-5C (302.5).

Once a round's damage is rolled (`engine.fe.steps.combat_round`), each side may spend part of
the points it scored on one enemy unit it picks, the attacker first (5-5B), then the defender
(5-5C). The price is the pure rules' (`engine.fe.combat.directed`): twice the defence to
cripple, twice the crippled defence to destroy a cripple, three times against the support
echelon (302.563), one SIDS step of 18 points against a base (308.811). The engine checks the
order against the enemy's battle force of this round (`SideRound.force`) and its support
echelon (`SideRound.forward`), refuses a second directed attack in the round and an order the
points do not cover (naming the price), and otherwise changes the board at once. The points
spent are kept on the directing side's round (``directed2``); the enemy resolves only the
rest in general allocation at 5-6 (`engine.fe.steps.combat_damage.owed2`).

Readings (S sourced, I inferred):

- S (the seed's sequence of play): minus points are applied at 5-4E, before directed damage,
  and plus points at 5-5D, after it. So the points a side may direct are its damage this
  round less the minus points carried against the enemy; plus points carried against the
  enemy go to general allocation only.
- I: with nothing to direct (no damage points, no enemy unit left in the force or the
  support echelon, or too few points for the cheapest directed order) the step passes by
  itself, costing no hand-off; otherwise ``done`` alone directs nothing, and from 5.5 the
  packet that directs ends the side's step (`ENDS_WITH_ORDER_FROM`).
- I: a SIDS step directed at a base is counted against the steps of this round only: the
  board keeps no count of SIDS steps between rounds yet (general allocation does the same),
  so a base is crippled by SIDS only when one round's steps fill its track.
- Not modelled: maulers (9-point SIDS steps), pursuit battles' limits (307.4), stasis fields
  (312.212), ground combat ships (521.373), cloaked decoys, directed damage at fighters.
"""

from __future__ import annotations

from typing import Any

import msgspec

from engine.core.ruleset import Event, Seat, Violation
from engine.fe.battle_model import BattleRecord, RoundLog, SideRound
from engine.fe.combat import directed, forces
from engine.fe.combat.targets import Target, points_text
from engine.fe.model import FeState
from engine.fe.option_specs import POLICY_DIRECT_FROM
from engine.fe.orders import DirectOrder
from engine.fe.sequence import Step
from engine.fe.steps import base, combat, combat_round, sids
from engine.fe.steps.adjust import cripple_units, destroy_units
from engine.fe.steps.base import Area

DIRECTED_STEPS = ("5-5B", "5-5C")
"""The attacker's step, then the defender's (302.5)."""

ENDS_WITH_ORDER_FROM = base.ORDER_ENDS_STEP_FROM
"""From F&E 5.5 a side's directed attack ends its step with the packet that makes it: a side
makes one a round (302.5), so it has nothing left to direct, and a ``done`` only cost one
packet more (and a stalled step when the player did not know to send it). Before, the step
waited for that ``done``."""


class _Round(msgspec.Struct, frozen=True):
    """A side's view of the round being fought, while it may direct damage."""

    record: BattleRecord
    log: RoundLog
    own: SideRound
    enemy: SideRound


def _round(state: FeState, seat: Seat) -> _Round | None:
    """The round in which ``seat`` may direct damage now: its damage is rolled and the enemy
    has not yet allocated this round's damage; None otherwise."""
    record = combat.current(state)
    if record is None or not record.log:
        return None
    log = record.log[-1]
    if log.round != record.rounds + 1 or seat not in (log.attacker.seat, log.defender.seat):
        return None
    own, enemy = log.attacker, log.defender
    if own.seat != seat:
        own, enemy = enemy, own
    if own.damage < 0 or enemy.resolved2 >= 0:
        return None
    return _Round(record, log, own, enemy)


def points2(found: _Round) -> int:
    """Doubled points the side may direct: its damage this round less the minus points
    carried against the enemy (5-4E); plus points wait for 5-5D (see the module notes)."""
    carried = next((p for who, p in found.record.carry if who == found.enemy.seat), 0)
    return max(0, 2 * found.own.damage + min(carried, 0))


def enemy_targets(state: FeState, found: _Round) -> list[Target]:
    """The enemy's units in the hex as directed damage sees them: the battle force, the
    support echelon (302.563), then the reserve (so an order at it is refused by name)."""
    theirs = set(base.empires_of(state, found.enemy.seat))
    available = [u for u in state.board.at(found.record.hex) if u.empire in theirs]
    here = {u.id for u in available}
    force = forces.BattleForce(
        found.enemy.flagship,
        tuple(u for u in found.enemy.force if u in here),
        tuple(forces.Forward(u, f) for u, f in found.enemy.forward if u in here),
    )
    return sids.with_scored(state, forces.force_targets(force, available, with_reserve=True))


def _reachable(targets: list[Target]) -> list[Target]:
    return [t for t in targets if t.echelon != "reserve" and not t.destroyed]


def target_ids(state: FeState, seat: Seat) -> tuple[str, ...]:
    """The enemy units ``seat`` may direct damage at now (for menus)."""
    found = _round(state, seat)
    if found is None:
        return ()
    return tuple(t.id for t in _reachable(enemy_targets(state, found)))


def _earlier(own: SideRound) -> tuple[directed.Directed, ...]:
    """The side's directed attack already made this round (its words start with the unit)."""
    return (directed.Directed(own.directed.split()[0]),) if own.directed else ()


def check(state: FeState, seat: Seat, order: DirectOrder) -> list[Violation]:
    found = _round(state, seat)
    if found is None:
        text = "there is no damage of yours to direct now"
        return [Violation(text, directed.DIRECTED_RULE)]
    wanted = directed.Directed(order.unit, order.destroy)
    targets = enemy_targets(state, found)
    problems = directed.directed_problems([wanted], targets, earlier=_earlier(found.own))
    if problems:
        return problems
    result = directed.direct(points2(found), wanted, targets)
    if not result.accepted:
        message, _, rule = result.refusal.rpartition(" (")
        return [Violation(message, rule.rstrip(")"))]
    return []


def quote(state: FeState, seat: Seat, order: DirectOrder) -> tuple[int, int, str] | None:
    """What a legal ``order`` costs and the points the side has to direct (both doubled),
    and what it does (``crippled``, ``destroyed``, ``sids``); None when it is not legal now
    (the face's ready lines, `engine.fe.menus.direct_presets`)."""
    if check(state, seat, order):
        return None
    found = _round(state, seat)
    assert found is not None
    have2 = points2(found)
    wanted = directed.Directed(order.unit, order.destroy)
    result = directed.direct(have2, wanted, enemy_targets(state, found))
    return result.cost2, have2, result.outcome


def _outcome_text(result: directed.DirectedResult) -> str:
    after = result.target
    assert after is not None
    if result.outcome != "sids":
        return f"{after.id} {result.outcome}"
    if after.destroyed:
        return f"{after.id} destroyed by a SIDS step"
    if after.crippled:
        return f"{after.id} crippled by a SIDS step"
    return f"{after.id} took a SIDS step"


def apply(
    state: FeState, seat: Seat, step: Step, order: DirectOrder, events: list[Event]
) -> FeState:
    found = _round(state, seat)
    assert found is not None
    have2 = points2(found)
    result = directed.direct(
        have2, directed.Directed(order.unit, order.destroy), enemy_targets(state, found)
    )
    after = result.target
    assert result.accepted and after is not None
    state = sids.record(state, [after])
    if after.destroyed:
        state = destroy_units(state, [after.id])
    elif after.crippled and not state.board.unit(after.id).crippled:
        state = cripple_units(state, [after.id])
    said = _outcome_text(result)
    record = combat.current(state) or found.record
    own = msgspec.structs.replace(found.own, directed=said, directed2=result.cost2)
    log = found.log
    log = (
        msgspec.structs.replace(log, attacker=own)
        if log.attacker.seat == seat
        else msgspec.structs.replace(log, defender=own)
    )
    state = combat.replace_current(
        state, msgspec.structs.replace(record, log=(*record.log[:-1], log))
    )
    where = base.hex_text(record.hex)
    rule = directed.DIRECTED_RULE
    if result.outcome == "sids":
        rule = directed.SIDS_DIRECTED_RULE
    elif after.echelon == "support":
        rule = directed.SUPPORT_RULE
    text = (
        f"{seat} directs damage in {where} round {log.round}: {said} for "
        f"{points_text(result.cost2)} of its {points_text(have2)} points; "
        f"{points_text(result.remaining2)} go to general allocation ({rule})"
    )
    data = {
        "hex": where,
        "round": log.round,
        "seat": seat,
        "unit": after.id,
        "directed": said,
        "cost2": result.cost2,
    }
    events.append(Event("directed", text, seat, step.id, data))
    return state


def declines(state: FeState, seat: Seat) -> bool:
    """Whether ``seat``'s combat policy says it never makes a directed attack (from
    `POLICY_DIRECT_FROM`; a game before it keeps asking)."""
    return combat.declines(state, seat, "direct", POLICY_DIRECT_FROM)


def _seat(state: FeState, step: Step) -> Seat:
    phasing = base.phasing(state)
    if step.id == DIRECTED_STEPS[0]:
        return phasing
    return next(s for s in state.seats if s != phasing)


class _Directed(Area):
    """Steps 5-5B and 5-5C: the ``direct`` order; ``done`` alone directs nothing."""

    name = "directed"
    orders = ("direct",)

    def check(self, state: FeState, seat: Seat, step: Step, order: Any) -> list[Violation]:
        if isinstance(order, DirectOrder):
            return check(state, seat, order)
        return super().check(state, seat, step, order)

    def apply(
        self, state: FeState, seat: Seat, step: Step, order: Any, events: list[Event]
    ) -> FeState:
        if isinstance(order, DirectOrder):
            return apply(state, seat, step, order, events)
        return super().apply(state, seat, step, order, events)

    def settled(self, state: FeState, seat: Seat, step: Step) -> str:
        """From `ENDS_WITH_ORDER_FROM`, once the side made its one directed attack."""
        if not state.plays_at_least(ENDS_WITH_ORDER_FROM):
            return ""
        found = _round(state, seat)
        if found is None or not found.own.directed:
            return ""
        return f"its one directed attack of the round is made ({directed.DIRECTED_RULE})"

    def finish(self, state: FeState, seat: Seat, step: Step) -> list[Violation]:
        """A standing order's ``done`` waits for dice the round still waits for."""
        if combat_round.waiting_for_dice(state):
            return [Violation(combat_round.dice_wait_text(state), directed.DIRECTED_RULE)]
        return []

    def skip(self, state: FeState, step: Step) -> str:
        if combat_round.waiting_for_dice(state):
            return ""  # the damage is not rolled yet (dice armed for the next packet)
        seat = _seat(state, step)
        if declines(state, seat):
            text = f"{seat} never directs damage, as signed in the combat policy"
            return f"{text} ({directed.DIRECTED_RULE})"
        found = _round(state, seat)
        if found is None:
            return "no damage scored by the engine to direct"
        if points2(found) == 0:
            return "no damage points to direct this round"
        cheapest = min(_prices(_reachable(enemy_targets(state, found))), default=None)
        if cheapest is None:
            return "no enemy unit in the battle force or support echelon to direct damage at"
        if cheapest > points2(found):
            return (
                f"{points_text(points2(found))} damage points buy no directed damage: the "
                f"cheapest costs {points_text(cheapest)}"
            )
        return ""


def _prices(targets: list[Target]) -> list[int]:
    """What each possible directed order at ``targets`` costs (doubled)."""
    found = [directed.cost2(directed.Directed(t.id, d), t) for t in targets for d in (False, True)]
    return [p for p in found if p is not None]


AREA = _Directed()
