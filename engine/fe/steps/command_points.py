"""Extra command points (308.9): bought with EP at 2B3, spent at 5-3D of a battle's round 1.

The sequence of play lets a side "use Command Points (first round only) to increase command
limits" when it picks its flagship (5-3D), and the fixed-cost table prices an "Extra Command
Point" at 5 EP. So:

- at 2B3 a ``command-points`` order (`engine.fe.orders.CommandPointsOrder`) buys some for one
  of the seat's empires, 5 EP each, refused whole when the treasury cannot pay; the empire
  holds them in ``FeState.command_points``;
- at 5-3D of a battle's first round a side may spend some as part of its secret flagship
  choice, ``{"flagship": "KLI-0001", "command_points": 1}`` (a bare unit id spends none,
  `parse_flagship`); they come out of the holdings of the flagship's empire when the choice
  is revealed, and the force chosen at 5-3E may hold that many more units (302.33,
  `engine.fe.combat.forces.count_force`);
- a standing combat policy never spends them (its ``"auto"`` flagship is a bare id).

Readings, marked as in ``fe-rules-notes.md`` (S sourced, I inferred, C a choice):

- S (the seed's 5-3D and fixed-cost table): first round only; 5 EP a point.
- I: they are bought with the other purchases of the production step (2B3); the step still
  passes by itself when no build or conversion is possible there (a turn without any
  schedule slot offers no purchase), so that a turn costs no extra hand-off for them.
- I: each point raises the command limit by one (as the admiral's bonus does, 302.33); the
  points spent are those of the flagship's empire (a seat playing several empires spends
  the flagship's own), and only a side with a flagship spends any.
- C (the summary does not say whether unspent points last): option ``command-points-kept``,
  default no: unspent points lapse as their empire's next Phase 2 begins, so points bought
  serve the empire's own combat phase and the enemy's that follows it, the span a purchase
  made for "the turn" covers; yes keeps them until spent.
"""

from __future__ import annotations

import msgspec

from engine.core.ruleset import Event, OptionSpec, Seat, Violation
from engine.fe.economics import fmt_ep
from engine.fe.model import FeState
from engine.fe.orders import CommandPointsOrder
from engine.fe.sequence import Step
from engine.fe.steps import base  # not yard: it reads the rule options, which read OPTIONS

RULE = "308.9"
PRICE2 = 10
"""An extra command point costs 5 EP (fixed costs): ten halves."""
KEPT = "command-points-kept"
OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        KEPT,
        False,
        "Unspent command points are kept from turn to turn (otherwise they lapse as their "
        "empire's next production phase begins)",
        RULE,
    ),
)
"""C in the module notes: whether command points outlast the turn they were bought for."""
PRODUCTION_PHASE = "2"
MOST = 20
"""At most this many points are spent on one flagship (the order's own cap)."""


def held(state: FeState, empire: str) -> int:
    """The command points ``empire`` holds now."""
    return dict(state.command_points).get(empire, 0)


def with_held(state: FeState, empire: str, count: int) -> FeState:
    """``state`` with ``empire`` holding ``count`` points (an empire at 0 is left out)."""
    entries = dict(state.command_points)
    entries[empire] = count
    kept = tuple(sorted((e, n) for e, n in entries.items() if n > 0))
    return msgspec.structs.replace(state, command_points=kept)


def kept(state: FeState) -> bool:
    """The ``command-points-kept`` option's value in this game."""
    return state.option(KEPT) is True


# --- buying, 2B3 -----------------------------------------------------------------------------


def _empire(state: FeState, seat: Seat, order: CommandPointsOrder) -> str | Violation:
    mine = base.empires_of(state, seat)
    if order.empire:
        if order.empire not in mine:
            text = f"{order.empire} is not an empire of {seat} ({', '.join(mine)})"
            return Violation(text, RULE)
        return order.empire
    if len(mine) != 1:
        text = f"{seat} plays {', '.join(mine)}: the command-points order must name its empire"
        return Violation(text, RULE)
    return mine[0]


def _points(count: int) -> str:
    return f"{count} command point{'' if count == 1 else 's'}"


def buy_problems(state: FeState, seat: Seat, order: CommandPointsOrder) -> list[Violation]:
    """Why ``seat`` may not buy these points now: its empire, and the price (5 EP each)."""
    empire = _empire(state, seat, order)
    if isinstance(empire, Violation):
        return [empire]
    cost2, having2 = order.count * PRICE2, state.ep2(empire)
    if cost2 <= having2:
        return []
    text = (
        f"{_points(order.count)} at {fmt_ep(PRICE2)} EP each cost {fmt_ep(cost2)} EP, "
        f"{empire} has {fmt_ep(having2)}"
    )
    return [Violation(text, RULE)]


def apply_buy(
    state: FeState, seat: Seat, step: Step, order: CommandPointsOrder, events: list[Event]
) -> FeState:
    """Pay for the points and add them to the empire's holdings."""
    empire = _empire(state, seat, order)
    if isinstance(empire, Violation):
        raise ValueError(empire.message)  # buy_problems refused it already
    before, cost2 = state.ep2(empire), order.count * PRICE2
    after, now = before - cost2, held(state, empire) + order.count
    state = with_held(state.with_ep2(empire, after), empire, now)
    text = (
        f"{empire} buys {_points(order.count)} for {fmt_ep(cost2)} EP "
        f"(treasury {fmt_ep(before)} -> {fmt_ep(after)}); it holds {now} ({RULE})"
    )
    data = {
        "empire": empire,
        "count": order.count,
        "held": now,
        "cost2": cost2,
        "treasury2": after,
        "rule": RULE,
    }
    events.append(Event("command-points", text, seat, step.id, data))
    return state


def lapse(state: FeState, phase: str, events: list[Event]) -> FeState:
    """As Phase 2 begins, the phasing empires' unspent points lapse (unless the
    ``command-points-kept`` option keeps them)."""
    if phase != PRODUCTION_PHASE or not state.command_points or kept(state):
        return state
    for empire in base.phasing_empires(state):
        count = held(state, empire)
        if count:
            state = with_held(state, empire, 0)
            text = f"{empire}'s {_points(count)} not spent since bought lapse ({RULE})"
            data = {"empire": empire, "count": count, "rule": RULE}
            events.append(Event("command-points", text, "", "", data))
    return state


# --- spending, 5-3D ----------------------------------------------------------------------------


class FlagshipChoice(msgspec.Struct, frozen=True):
    """A 5-3D choice: the flagship's id ("" for none) and the command points spent."""

    flagship: str
    points: int = 0


def parse_flagship(choice: object) -> FlagshipChoice | None:
    """A bare unit id, or ``{"flagship": ID, "command_points": N}``; None for another shape."""
    if isinstance(choice, str):
        return FlagshipChoice(choice)
    if not isinstance(choice, dict) or set(choice) - {"flagship", "command_points"}:
        return None
    flagship, points = choice.get("flagship"), choice.get("command_points", 0)
    if not isinstance(flagship, str) or len(flagship) > 40:
        return None
    if not isinstance(points, int) or isinstance(points, bool) or not 0 <= points <= MOST:
        return None
    return FlagshipChoice(flagship, points)


def spend_problems(
    state: FeState, chosen: FlagshipChoice, round_number: int, empire: str
) -> list[Violation]:
    """Why the side may not spend ``chosen.points`` in round ``round_number`` with a
    flagship of ``empire`` ("" when it names none)."""
    if not chosen.points:
        return []
    if round_number != 1:
        text = (
            f"command points are spent in a battle's first round only; this is round "
            f"{round_number} ({_points(chosen.points)} named)"
        )
        return [Violation(text, RULE)]
    if not empire:
        text = f"no flagship is named: no command point can be spent ({chosen.points} named)"
        return [Violation(text, RULE)]
    having = held(state, empire)
    if chosen.points > having:
        text = f"{empire} holds {_points(having)}; {chosen.points} may not be spent"
        return [Violation(text, RULE)]
    return []


def spend(
    state: FeState,
    empire: str,
    points: int,
    where: str,
    seat: Seat,
    step: str,
    events: list[Event],
) -> FeState:
    """Take ``points`` out of ``empire``'s holdings as the choice is revealed."""
    if not points:
        return state
    before = held(state, empire)
    state = with_held(state, empire, before - points)
    text = (
        f"{where}: {seat} spends {_points(points)} of {empire} on its flagship "
        f"({before} -> {before - points}) ({RULE})"
    )
    data = {"hex": where, "empire": empire, "count": points, "held": before - points, "rule": RULE}
    events.append(Event("command-points", text, seat, step, data))
    return state


def holdings(state: FeState) -> dict[str, int]:
    """Every empire's command points (for views)."""
    return dict(state.command_points)
