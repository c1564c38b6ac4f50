"""Directed damage (302.5): a side spends part of its damage points on one enemy unit it picks.

Step 5-5: the phasing player directs first (5-5B), then the non-phasing player (5-5C); each
picks at most one unit of the enemy. The price is steep, which is the point of the rule: the
attacker chooses the victim but pays more than the owner would in general allocation
(302.6). What is left of the points goes to the owner's general allocation
(`engine.fe.combat.allocation`), and so do all of them when the order is refused for want of
points. Points are doubled, as in `engine.fe.combat.targets`.

Readings, marked as in ``fe-rules-notes.md`` (S sourced, I inferred, C a choice):

- I (notes, 302.5): crippling a unit costs twice its defence, destroying a cripple twice its
  crippled defence, destroying an uncrippled unit outright twice both; a unit without a
  crippled side is destroyed for twice its defence.
- S (302.563, the seed's "Famous Lost Rules"): units of the support echelon (outside the
  force, their fighters or PFs sent forward) can be directed at, at three times the cost.
  I: units in reserve cannot be.
- S (308.811): a starbase is attacked by directed damage only as one SIDS step of 18 points
  (9 with a mauler), and that step is the round's one directed attack. I: the same holds for
  every base that takes SIDS steps; a crippled battle station or base station, on which
  SIDS cannot be used (308.861, 308.862), is no target for directed damage.
- I: an order the points do not cover is refused, naming the cost, and all the points go to
  general allocation (the issue's example: 28 points at a support-echelon carrier of defence
  10, whose crippling costs 30).
- Not modelled here: pursuit battles' own limits (307.4), stasis fields (312.212), ground
  combat ships (521.373), cloaked decoys, penal ships, directed damage at fighters.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import msgspec

from engine.core.ruleset import Violation
from engine.fe.combat.targets import (
    DIRECTED_SIDS2,
    MAULER_SIDS2,
    Target,
    points_text,
)

DIRECTED_RULE = "302.5"
SUPPORT_RULE = "302.563"
SIDS_DIRECTED_RULE = "308.811"
FORCE_MULTIPLIER = 2
SUPPORT_MULTIPLIER = 3

Outcome = Literal["", "crippled", "destroyed", "sids"]
Sides = Literal["phasing", "non-phasing"]
ORDER: tuple[Sides, Sides] = ("phasing", "non-phasing")
"""Who directs first (5-5B, 5-5C)."""


class Directed(msgspec.Struct, frozen=True):
    """One side's directed damage for a round: the enemy unit, and whether to destroy it
    (a cripple, or an uncrippled unit outright) rather than cripple it. Against a base the
    order is one SIDS step and ``destroy`` stays False."""

    unit: str
    destroy: bool = False


class DirectedResult(msgspec.Struct, frozen=True):
    """What one side's directed damage did: the cost, whether it was carried out, and the
    points left for the owner's general allocation."""

    order: Directed | None
    cost2: int = 0
    accepted: bool = False
    refusal: str = ""
    """Why a legal order was not carried out (not enough points), with the rule number."""
    remaining2: int = 0
    """Points left for general allocation (all of them when refused or when there was no
    order)."""
    outcome: Outcome = ""
    target: Target | None = None
    """The unit after the damage (None when nothing was done)."""


def multiplier(target: Target) -> int:
    """2 against the battle force, 3 against the support echelon (302.5, 302.563)."""
    return SUPPORT_MULTIPLIER if target.echelon == "support" else FORCE_MULTIPLIER


def cost2(order: Directed, target: Target, mauler: bool = False) -> int | None:
    """The price of ``order`` against ``target`` in doubled points; None when it is not
    possible (`directed_problems` says why)."""
    if target.track is not None:
        if order.destroy or not target.sids_open():
            return None
        return MAULER_SIDS2 if mauler else DIRECTED_SIDS2
    base = target.destroy_cost2() if order.destroy else target.cripple_cost2()
    return None if base is None else base * multiplier(target)


def directed_problems(
    orders: Sequence[Directed],
    enemy: Sequence[Target],
    mauler: bool = False,
    earlier: Sequence[Directed] = (),
) -> list[Violation]:
    """Why one side's directed damage orders for a round are not legal against the enemy
    units ``enemy`` (its battle force and support echelon, reserves included or not);
    ``earlier`` holds the side's directed orders already carried out this round."""
    out: list[Violation] = []
    every = (*earlier, *orders)
    if len(every) > 1:
        named = ", ".join(o.unit for o in every)
        text = (
            f"{len(every)} directed attacks in one round ({named}): a side directs damage "
            f"at one unit a round"
        )
        out.append(Violation(text, DIRECTED_RULE))
    by_id = {t.id: t for t in enemy}
    for order in orders:
        target = by_id.get(order.unit)
        if target is None:
            text = f"{order.unit} is not an enemy unit in this battle"
            out.append(Violation(text, DIRECTED_RULE))
            continue
        out.extend(_target_problems(order, target))
    return out


def _target_problems(order: Directed, target: Target) -> list[Violation]:
    name = target.id
    if target.echelon == "reserve":
        text = (
            f"{name} is in reserve, outside the battle force and its support echelon: "
            f"directed damage cannot reach it"
        )
        return [Violation(text, SUPPORT_RULE)]
    if target.destroyed:
        return [Violation(f"{name} is already destroyed", DIRECTED_RULE)]
    track = target.track
    if track is not None:
        if order.destroy:
            text = (
                f"{name} is a base: directed damage scores one SIDS step of "
                f"{points_text(DIRECTED_SIDS2)} points on it, it cannot destroy it outright"
            )
            return [Violation(text, SIDS_DIRECTED_RULE)]
        if not target.sids_open():
            text = (
                f"{name} is crippled and takes no more SIDS steps: directed damage cannot reach it"
            )
            return [Violation(text, track.rule)]
        return []
    if not order.destroy and target.crippled:
        text = f"{name} is already crippled: direct damage to destroy it instead"
        return [Violation(text, DIRECTED_RULE)]
    if not order.destroy and target.crippled_def2 is None:
        text = f"{name} has no crippled side: direct damage to destroy it instead"
        return [Violation(text, DIRECTED_RULE)]
    return []


def direct(
    points2: int, order: Directed | None, enemy: Sequence[Target], mauler: bool = False
) -> DirectedResult:
    """Carry out one side's legal directed order with ``points2`` damage points (doubled).

    Raises ValueError on an illegal order (check `directed_problems` first). An order the
    points do not cover is refused: nothing happens and every point goes to general
    allocation.
    """
    if order is None:
        return DirectedResult(None, remaining2=points2)
    problems = directed_problems([order], enemy, mauler)
    if problems:
        raise ValueError("; ".join(p.message for p in problems))
    target = next(t for t in enemy if t.id == order.unit)
    price = cost2(order, target, mauler)
    assert price is not None
    if price > points2:
        return DirectedResult(
            order,
            cost2=price,
            refusal=_refusal(order, target, price, points2, mauler),
            remaining2=points2,
        )
    after: Target
    outcome: Outcome
    if target.track is not None:
        after, outcome = target.after_step(), "sids"
    elif order.destroy:
        after, outcome = target.after_destroy(), "destroyed"
    else:
        after, outcome = target.after_cripple(), "crippled"
    return DirectedResult(
        order,
        cost2=price,
        accepted=True,
        remaining2=points2 - price,
        outcome=outcome,
        target=after,
    )


def _refusal(order: Directed, target: Target, price: int, points2: int, mauler: bool) -> str:
    have = points_text(points2)
    if target.track is not None:
        what = f"a SIDS step on {target.id} costs {points_text(price)}"
        what += " with a mauler" if mauler else ""
        rule = SIDS_DIRECTED_RULE
    else:
        side = target.crippled_def2 if target.crippled else target.def2
        if order.destroy and not target.crippled and target.crippled_def2 is not None:
            defence = (
                f"its defences {points_text(target.def2)} + {points_text(target.crippled_def2)}"
            )
        else:
            word = "crippled defence" if target.crippled else "defence"
            defence = f"its {word} {points_text(side or 0)}"
        where = " in the support echelon" if target.echelon == "support" else ""
        verb = "to destroy" if order.destroy else "to cripple"
        what = (
            f"{verb} {target.id}{where} costs {multiplier(target)} x {defence} = "
            f"{points_text(price)}"
        )
        rule = SUPPORT_RULE if target.echelon == "support" else DIRECTED_RULE
    return (
        f"directed damage refused: {what}, more than the {have} points scored; "
        f"the {have} go to general allocation ({rule})"
    )


def directed_round(
    phasing: tuple[int, Directed | None, Sequence[Target]],
    non_phasing: tuple[int, Directed | None, Sequence[Target]],
    *,
    phasing_mauler: bool = False,
    non_phasing_mauler: bool = False,
) -> tuple[DirectedResult, DirectedResult]:
    """Both sides' directed damage for a round, the phasing side first (5-5B, 5-5C). Each
    tuple is (the side's points, its order, the enemy units it may aim at)."""
    first = direct(phasing[0], phasing[1], phasing[2], phasing_mauler)
    second = direct(non_phasing[0], non_phasing[1], non_phasing[2], non_phasing_mauler)
    return first, second
