"""General damage allocation (302.6): each side resolves the enemy's damage on its own units.

Step 5-6: what is left of the damage after directed damage (`engine.fe.combat.directed`) is
resolved by the owner, the non-phasing player first (5-6A, 5-6B), as a list of `Choice`
items applied in order. `allocation_problems` says why a list is not legal, `resolve` applies
a legal one and returns an `Allocation` (crippled, destroyed, fighters lost, SIDS scored,
plus and minus points), and `next_choices` gives the legal next choices and what remains, for
an editor that only lets a player build a legal allocation. Points are doubled, as in
`engine.fe.combat.targets`.

Readings, marked as in ``fe-rules-notes.md`` (S sourced, I inferred, C a choice):

- S (302.6): crippling a unit resolves its defence factor, destroying a cripple its crippled
  defence, destroying an uncrippled unit outright both; each fighter factor resolves one
  point. S (308.112, play aid): the owner may give voluntary SIDS steps on his bases, each
  resolving the points of its base type (4.5 on a starbase).
- I: general damage falls on the battle force: units of the support echelon take none of it
  except on the fighters they sent forward (their hulls are reached only by directed damage,
  302.563); units in reserve take none.
- S (302.61, notes): the forced-resolution rule: while the points left are at least half of
  the cheapest thing that could still be resolved, the owner must resolve another. So an
  allocation may not stop with points left that could resolve something whole ("resolves too
  little", 302.6) or that reach half of something (302.61).
- I: for the same reason a choice may cost more than the points left only when those points
  are at least half its price: over-resolution is what the forced rule makes, not a free
  way to bank minus points; and nothing is resolved once the points are spent.
- S (308.2, notes): points left unresolved become plus points (added to the enemy's damage
  next round); over-resolution becomes minus points (taken off the enemy's damage next
  round). Carrying them is the caller's.
- Not modelled: escorts protecting their carrier (308.1 GEDS), flagship protection, PFs as
  damage absorbers, fighters lost with a crippled carrier's smaller hangar.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from engine.core.ruleset import Violation
from engine.fe.combat.targets import SIDS_RULE, Target, points_text

ALLOCATION_RULE = "302.6"
FORCED_RULE = "302.61"
PLUS_MINUS_RULE = "308.2"
FIGHTER2 = 2
"""One fighter factor, doubled: the smallest fighter loss offered."""


class Cripple(msgspec.Struct, frozen=True, tag="cripple"):
    """Cripple an uncrippled unit: resolves its defence."""

    unit: str


class Destroy(msgspec.Struct, frozen=True, tag="destroy"):
    """Destroy a unit: a cripple for its crippled defence, an uncrippled unit for both."""

    unit: str


class LoseFighters(msgspec.Struct, frozen=True, tag="fighters"):
    """Lose fighter factors (doubled) of a unit: each factor resolves one point."""

    unit: str
    factors2: int


class VoluntarySids(msgspec.Struct, frozen=True, tag="sids"):
    """Give one SIDS step on one's own base: resolves its base type's points (308.8)."""

    unit: str


Choice = Cripple | Destroy | LoseFighters | VoluntarySids


class Priced(msgspec.Struct, frozen=True):
    """A legal next choice and the points (doubled) it resolves."""

    choice: Choice
    cost2: int


class Menu(msgspec.Struct, frozen=True):
    """What an allocation editor shows: the points left (negative: over-resolved), the legal
    next choices, and whether the allocation may stop here."""

    remaining2: int
    choices: tuple[Priced, ...]
    may_stop: bool
    must: str = ""
    """Why it may not stop yet, with the rule number ("" when it may)."""


class Allocation(msgspec.Struct, frozen=True):
    """The outcome of a legal allocation."""

    crippled: tuple[str, ...]
    destroyed: tuple[str, ...]
    fighters_lost: tuple[tuple[str, int], ...]
    """Per unit, fighter factors lost (doubled)."""
    sids: tuple[tuple[str, int], ...]
    """Per base, SIDS steps given."""
    plus2: int
    """Points left unresolved: plus points for the enemy next round (308.2)."""
    minus2: int
    """Points over-resolved: minus points against the enemy next round (308.2)."""
    targets: tuple[Target, ...]
    """The units after the damage, in the order given."""


def price2(choice: Choice, target: Target) -> int | None:
    """Points (doubled) ``choice`` resolves on ``target``; None when it is not possible."""
    if target.destroyed:
        return None
    if isinstance(choice, LoseFighters):
        ok = 0 < choice.factors2 <= target.fighters2
        return choice.factors2 if ok else None
    if target.echelon != "force":
        return None
    if isinstance(choice, Cripple):
        return target.cripple_cost2()
    if isinstance(choice, Destroy):
        return target.destroy_cost2()
    track = target.track
    return track.voluntary2 if track is not None and target.sids_open() else None


def _applied(choice: Choice, target: Target) -> Target:
    if isinstance(choice, LoseFighters):
        return msgspec.structs.replace(target, fighters2=target.fighters2 - choice.factors2)
    if isinstance(choice, Cripple):
        return target.after_cripple()
    if isinstance(choice, Destroy):
        return target.after_destroy()
    return target.after_step()


def _why_not(choice: Choice, target: Target) -> Violation:
    name = target.id
    if target.destroyed:
        return Violation(f"{name} is already destroyed", ALLOCATION_RULE)
    if isinstance(choice, LoseFighters):
        text = (
            f"{name} has {points_text(target.fighters2)} fighter factors here; "
            f"{points_text(choice.factors2)} cannot be lost"
        )
        return Violation(text, ALLOCATION_RULE)
    if target.echelon != "force":
        where = "in the support echelon" if target.echelon == "support" else "in reserve"
        text = f"{name} is {where}: general damage falls on the battle force"
        return Violation(text, ALLOCATION_RULE)
    if isinstance(choice, Cripple):
        why = "already crippled" if target.crippled else "without a crippled side: destroy it"
        return Violation(f"{name} cannot be crippled: it is {why}", ALLOCATION_RULE)
    if target.track is None:
        return Violation(f"{name} is not a base: it takes no SIDS steps", SIDS_RULE)
    text = f"{name} is crippled and takes no more SIDS steps"
    return Violation(text, target.track.rule)


def options(targets: Sequence[Target]) -> list[Priced]:
    """Every choice possible on ``targets`` now, whatever the points: one fighter factor and
    all of a unit's fighters, crippling, destroying, one voluntary SIDS step."""
    out: list[Priced] = []
    for target in targets:
        candidates: list[Choice] = [Cripple(target.id), Destroy(target.id)]
        if target.fighters2:
            candidates.append(LoseFighters(target.id, min(FIGHTER2, target.fighters2)))
            if target.fighters2 > FIGHTER2:
                candidates.append(LoseFighters(target.id, target.fighters2))
        candidates.append(VoluntarySids(target.id))
        for choice in candidates:
            cost = price2(choice, target)
            if cost is not None:
                out.append(Priced(choice, cost))
    return out


def _stop_problem(left2: int, targets: Sequence[Target]) -> Violation | None:
    """Why an allocation may not stop with ``left2`` points unresolved (302.6, 302.61)."""
    if left2 <= 0:
        return None
    available = options(targets)
    if not available:
        return None
    cheapest = min(available, key=lambda p: p.cost2)
    label = describe(cheapest.choice)
    left, cost = points_text(left2), points_text(cheapest.cost2)
    if cheapest.cost2 <= left2:
        text = (
            f"the allocation resolves too little: {left} points remain and {label} resolves {cost}"
        )
        return Violation(text, ALLOCATION_RULE)
    if 2 * left2 >= cheapest.cost2:
        text = (
            f"{left} points remain, at least half of the {cost} that {label} resolves: "
            f"another unit must be resolved (forced resolution)"
        )
        return Violation(text, FORCED_RULE)
    return None


def describe(choice: Choice) -> str:
    """A choice in words, for messages and the editor."""
    if isinstance(choice, Cripple):
        return f"crippling {choice.unit}"
    if isinstance(choice, Destroy):
        return f"destroying {choice.unit}"
    if isinstance(choice, LoseFighters):
        word = "factor" if choice.factors2 == FIGHTER2 else "factors"
        return f"losing {points_text(choice.factors2)} fighter {word} of {choice.unit}"
    return f"a voluntary SIDS step on {choice.unit}"


def _walk(
    points2: int, targets: Sequence[Target], choices: Sequence[Choice]
) -> tuple[list[Violation], int, list[Target]]:
    """Apply ``choices`` in order: the problems met, the points left, the units after."""
    current = list(targets)
    index = {t.id: i for i, t in enumerate(current)}
    left2 = points2
    out: list[Violation] = []
    for choice in choices:
        where = index.get(choice.unit)
        if where is None:
            text = f"{choice.unit} is not one of this side's units in the battle"
            out.append(Violation(text, ALLOCATION_RULE))
            continue
        target = current[where]
        cost = price2(choice, target)
        if cost is None:
            out.append(_why_not(choice, target))
            continue
        if left2 <= 0:
            text = (
                f"{describe(choice)} comes after the {points_text(points2)} points are "
                f"resolved: nothing remains to resolve"
            )
            out.append(Violation(text, ALLOCATION_RULE))
            continue
        if cost > 2 * left2:
            text = (
                f"{describe(choice)} resolves {points_text(cost)} with only "
                f"{points_text(left2)} points left: a choice may exceed the points left "
                f"only when they are at least half its cost"
            )
            out.append(Violation(text, FORCED_RULE))
            continue
        left2 -= cost
        current[where] = _applied(choice, target)
    return out, left2, current


def allocation_problems(
    points2: int, targets: Sequence[Target], choices: Sequence[Choice]
) -> list[Violation]:
    """Why ``choices`` do not legally resolve ``points2`` (doubled) on the side's own units
    ``targets`` (its battle force and support echelon); empty when they do."""
    problems, left2, after = _walk(points2, targets, choices)
    stop = _stop_problem(left2, after)
    return problems + ([stop] if stop is not None else [])


def resolve(points2: int, targets: Sequence[Target], choices: Sequence[Choice]) -> Allocation:
    """Apply a legal allocation (ValueError naming the problems otherwise)."""
    problems = allocation_problems(points2, targets, choices)
    if problems:
        raise ValueError("; ".join(f"{p.message} ({p.rule})" for p in problems))
    _, left2, after = _walk(points2, targets, choices)
    before = {t.id: t for t in targets}
    lost: dict[str, int] = {}
    steps: dict[str, int] = {}
    for choice in choices:
        if isinstance(choice, LoseFighters):
            lost[choice.unit] = lost.get(choice.unit, 0) + choice.factors2
        elif isinstance(choice, VoluntarySids):
            steps[choice.unit] = steps.get(choice.unit, 0) + 1
    return Allocation(
        crippled=tuple(
            t.id for t in after if t.crippled and not t.destroyed and not before[t.id].crippled
        ),
        destroyed=tuple(t.id for t in after if t.destroyed and not before[t.id].destroyed),
        fighters_lost=tuple(sorted(lost.items())),
        sids=tuple(sorted(steps.items())),
        plus2=max(left2, 0),
        minus2=max(-left2, 0),
        targets=tuple(after),
    )


def next_choices(points2: int, targets: Sequence[Target], done: Sequence[Choice] = ()) -> Menu:
    """The legal next choices after ``done`` (itself legal so far), and what remains: the
    allocation editor offers only these and stops only when ``may_stop``."""
    problems, left2, after = _walk(points2, targets, done)
    if problems:
        raise ValueError("; ".join(f"{p.message} ({p.rule})" for p in problems))
    legal = tuple(p for p in options(after) if p.cost2 <= 2 * left2) if left2 > 0 else ()
    stop = _stop_problem(left2, after)
    must = f"{stop.message} ({stop.rule})" if stop is not None else ""
    return Menu(remaining2=left2, choices=legal, may_stop=stop is None, must=must)
