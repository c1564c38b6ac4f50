"""Phase 2B (production, 431.0; conversions, 433.0; replacements, 501.5) as pure functions.

What an empire may build each turn is its scenario's production schedule (`engine.fe.oob`):
the batch in force lists the slots (`schedule_batch`: the source lists schedule *changes*,
so a turn uses the latest batch of its own season dated at or before it, I). An order fills
a slot with the class it names, or with a class that may substitute for it (the class's
``substitutions``: ``instead_of``, cost, ``from_year``); a schedule that names a variant
with no scratch cost (the Kzinti CV, the Klingon D7C) prices it at its substitution cost
(I). New units appear at the capital, or at a shipyard the caller names (431.0), with the
next free ids of their empire (``KLI-0123``), so both players' engines give them the same
names.

Limits, each refused with its numbers and rule:

- substitutions: at most ``substitutions-per-turn`` a turn (default 2, 450.4; 0: no limit;
  C). Those the 450.4 list marks with a dagger (``Substitution.unlimited``: FED "DD for any
  DN or CC", KLI "D6 for C8 or D7") are not counted. A class's own-row variant filling a
  hull slot (the Hydran ``CC``) is not a substitution; other own-row variants count (C, an
  earlier reading kept: the sources do not say whether 450.4's limit covers them);
- conversions (433.1, I): a conversion of at most 3 EP (cost before fighters) is *minor*; each
  starbase converts one minor per turn in its hex. *Major* ones happen at the capital: one
  per turn, two for the Federation and the Klingons (433.15; the Romulans' second is at
  Remus, 4514); an extra major costs 5 EP (433.16, fixed costs; not for the Romulans).
  A spare major slot may take a minor. Crippled units are not converted (433.44); conversions
  of several units, of other empires' hulls and base upgrades (433.41) stay manual;
- replacements (501.5): never more than the unit carries, and not in a hex cut off from
  supply; what they cost is `engine.fe.steps.replacements`' (fighters lost in combat come
  back free at 6E, 530.12; PFs and F-111 factors are bought in 2B4);
- money: everything together must not cost more than the treasury (431.0).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import msgspec

from engine.core import caches
from engine.core.ruleset import OptionSpec, OptionValue, Violation
from engine.fe import board_views
from engine.fe.conversions import (
    EXTRA_MAJOR2,
    SECOND_MAJOR_HEX,
    class_named,
    conversion_capacity,
    conversion_problem,
)
from engine.fe.economics import fmt_ep, replacement_cost2
from engine.fe.forces import OFF_MAP, Board, Unit
from engine.fe.galaxy import Galaxy, HexId
from engine.fe.oob import Batch, date_turn
from engine.fe.scenario import turn_label
from engine.fe.units import Date, Substitution, load_units

BUILD_RULE = "431.0"
SUBSTITUTION_RULE = "450.4"
CONVERSION_RULE = "433.1"
FIGHTER_RULE = "501.5"
PF_RULE = "502.43"

SUBSTITUTIONS_PER_TURN = "substitutions-per-turn"
OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        SUBSTITUTIONS_PER_TURN,
        2,
        "Substitutions allowed per turn and empire (0: no limit)",
        SUBSTITUTION_RULE,
        bounds=(0, 99),
    ),
)
"""The rule options this module reads (house-rule defaults until checked against a rulebook)."""


class ProductionOptions(msgspec.Struct, frozen=True):
    substitution_limit: int = 2


def production_options(values: Mapping[str, OptionValue]) -> ProductionOptions:
    """The options from a game's chosen values (absent ones take their defaults)."""
    limit = values.get(SUBSTITUTIONS_PER_TURN, 2)
    return ProductionOptions(substitution_limit=limit if isinstance(limit, int) else 2)


class Build(msgspec.Struct, frozen=True):
    """Build one ``cls`` in ``hex``, in a slot of the schedule (``instead_of``, or its own)."""

    cls: str
    hex: HexId
    instead_of: str = ""


class Convert(msgspec.Struct, frozen=True):
    """Rebuild the unit ``unit`` into class ``to`` where it stands (433.0)."""

    unit: str
    to: str


class Replace(msgspec.Struct, frozen=True):
    """Replace fighter factors (``fighters2``, doubled) and PFs lost by ``unit`` (501.5)."""

    unit: str
    fighters2: int = 0
    pfs: int = 0


class ProductionOrders(msgspec.Struct, frozen=True):
    """Everything an empire orders in Phase 2B."""

    builds: tuple[Build, ...] = ()
    conversions: tuple[Convert, ...] = ()
    replacements: tuple[Replace, ...] = ()
    extra_major: bool = False


class Produced(msgspec.Struct, frozen=True):
    """The board after production, what it cost, the treasury left, and the new unit ids."""

    board: Board
    cost2: int
    treasury2: int
    new_units: tuple[str, ...]


# Schedules, prices and sites


def schedule_batch(schedule: Sequence[Batch], turn: int) -> Batch | None:
    """The batch in force on ``turn`` (431.0, I): of the batches of the turn's season (a batch
    without a season is the spring schedule), the latest dated at or before the turn.

    The source lists schedule *changes*: a spring schedule repeats every spring until a later
    spring batch replaces it, and likewise for fall. None: no batch of that season yet.
    """
    season = "fall" if turn % 2 else "spring"
    found: Batch | None = None
    latest = 0
    for batch in schedule:
        if batch.season != season or (when := date_turn(batch.date)) > turn:
            continue
        if found is None or when > latest:
            found, latest = batch, when
    return found


def scheduled(schedule: Sequence[Batch], turn: int) -> dict[str, int]:
    """The slots of the schedule in force on ``turn``: class (or hull) name -> count.

    Every batch dated like `schedule_batch`'s counts (a source may split one date in two)."""
    chosen = schedule_batch(schedule, turn)
    slots: dict[str, int] = {}
    if chosen is None:
        return slots
    for batch in schedule:  # the same date: year and season (not a new `Date` each)
        if batch.year == chosen.year and batch.season == chosen.season:
            for item in batch.units:
                slots[item.unit] = slots.get(item.unit, 0) + item.count
    return slots


@caches.by_identity(maxsize=8, identity=1)
def slots_of(schedule: Sequence[Batch], turn: int) -> dict[str, int]:
    """`scheduled`, kept per schedule (by identity: an empire's schedule is the scenario's
    own tuple) and turn, for the checks of a turn's build orders, one order at a time:
    each reads the same slots. Not to be mutated."""
    return scheduled(schedule, turn)


def schedule_label(schedule: Sequence[Batch], turn: int) -> str:
    """Which schedule a turn uses, in words: "the Fall Y168 schedule" or "no schedule yet"."""
    chosen = schedule_batch(schedule, turn)
    if chosen is None:
        season = "fall" if turn % 2 else "spring"
        return f"no {season} schedule yet"
    return f"the {chosen.season.capitalize()} Y{chosen.year} schedule"


def _is_hull(empire: str, name: str) -> bool:
    other = load_units().other(empire, name)
    return other is not None and other.kind == "hull"


def substitution_for(empire: str, order: Build, turn: int) -> Substitution | str:
    """The substitution ``order`` builds under (its class's own row or the 450.4 list), or
    why there is none on ``turn``. When several fit the slot, an unlimited one (a dagger of
    450.4) is preferred, then the class's own row."""
    info = class_named(empire, order.cls)
    if isinstance(info, str):
        return info
    fitting = [s for s in info.substitutions if order.instead_of in s.instead_of]
    if not fitting:
        return f"{order.cls} may not substitute for {order.instead_of}"
    fitting.sort(key=lambda s: (not s.unlimited, s.listed))
    for sub in fitting:
        if date_turn(Date(sub.from_year, sub.from_season)) <= turn or not sub.from_year:
            return sub
    first = fitting[0]
    when = f"{'Fall ' if first.from_season == 'fall' else ''}Y{first.from_year}"
    return f"{order.cls} may substitute for {order.instead_of} only from {when}"


def counts_as_substitution(empire: str, order: Build, turn: int) -> bool:
    """Whether ``order`` counts against the per-turn substitution limit (450.4).

    Not when it builds its own slot, nor under a substitution the list marks with a dagger.
    A 450.4 list substitution counts, even in a hull slot; a variant from its class's own
    table row counts too (C, as before), except when it fills a hull slot (the Hydran CC)."""
    if not order.instead_of or order.instead_of == order.cls:
        return False
    sub = substitution_for(empire, order, turn)
    if isinstance(sub, str) or sub.unlimited:
        return False
    return sub.listed or not _is_hull(empire, order.instead_of)


def build_cost2(empire: str, order: Build, turn: int) -> int | str:
    """EP in halves to build ``order`` on ``turn`` (fighters included), or why it cannot be.

    Scratch builds pay the class's construction cost; a substitution pays its ``For X`` cost
    (a 450.4 list substitution the substitute's own price); a variant the schedule names
    directly but that has no scratch cost pays its cheapest substitution cost (I: the
    schedule stands for that substitution).
    """
    info = class_named(empire, order.cls)
    if isinstance(info, str):
        return info
    if order.instead_of and order.instead_of != order.cls:
        sub = substitution_for(empire, order, turn)
        return sub if isinstance(sub, str) else sub.cost2 + sub.fighter_cost2
    if info.construction is not None:
        return info.construction.cost2 + info.construction.fighter_cost2
    if info.substitutions:
        return min(sub.cost2 + sub.fighter_cost2 for sub in info.substitutions)
    return f"{order.cls} cannot be built from scratch"


class BuildTerms(msgspec.Struct, frozen=True):
    """What the unit tables say of building a class in a slot on a turn (`build_terms`)."""

    cost2: int | str
    """`build_cost2`: the price in halves of an EP, or why the class cannot be built so."""
    counted: bool
    """`counts_as_substitution`: whether the build counts against the substitution limit."""
    available: int
    """The turn the class enters service (0 when the tables have no such class)."""


@caches.derived(maxsize=512)
def build_terms(empire: str, cls: str, instead_of: str, turn: int) -> BuildTerms:
    """`build_cost2`, `counts_as_substitution` and the class's first turn in service, worked
    out once per class, slot and turn: a turn's build orders name a few classes many times,
    and each order is read by its check and again as it is carried out. None of them reads
    the build's hex. A pure function of its arguments and the shipped tables."""
    order = Build(cls, 0, instead_of)
    info = load_units().find(empire, cls)
    return BuildTerms(
        build_cost2(empire, order, turn),
        counts_as_substitution(empire, order, turn),
        date_turn(info.available) if info is not None else 0,
    )


def build_sites(
    galaxy: Galaxy, board: Board, empire: str, shipyards: Sequence[HexId] = ()
) -> tuple[HexId, ...]:
    """Where new units may appear (431.0): capital hexes still held, then ``shipyards``."""
    return tuple(dict.fromkeys([*_held_capitals(galaxy, board.owners, empire), *shipyards]))


@caches.by_identity(maxsize=8, identity=2)
def _held_capitals(
    galaxy: Galaxy, owners: tuple[tuple[HexId, str], ...], empire: str
) -> tuple[HexId, ...]:
    """``empire``'s capital hexes it still holds, read from the board's captures (by
    identity: a board made by a build or a move keeps its ``owners`` tuple), so a turn's
    build orders, each on a new board, ask the map once."""
    captures = Board(owners=owners)  # `Board.owner` reads the captures only
    return tuple(
        c.hex for c in galaxy.capitals_of(empire) if captures.owner(galaxy, c.hex) == empire
    )


def next_ids(board: Board, empire: str, count: int, given: int = 0) -> tuple[str, ...]:
    """``count`` fresh ids after the empire's highest ``EMP-NNNN`` on the board, and after
    the ``given`` ids that follow it, handed out already to units not on the board yet (a
    run of builds placed at once, `engine.fe.steps.shipyard.apply_build_run`)."""
    start = board_views.highest_number(board, f"{empire}-") + given
    return tuple(f"{empire}-{n:04d}" for n in range(start + 1, start + count + 1))


# Replacements


def _replacement_problem(
    empire: str, board: Board, order: Replace, seen: set[str], cut_off: set[HexId]
) -> tuple[str, str] | Unit:
    try:
        unit = board.unit(order.unit)
    except KeyError:
        return f"there is no unit {order.unit}", FIGHTER_RULE
    if unit.empire != empire:
        return f"{unit.id} is not a unit of {empire}", FIGHTER_RULE
    if unit.id in seen:
        return f"{unit.id} has two replacement orders", FIGHTER_RULE
    if unit.hex == OFF_MAP or unit.hex in cut_off:
        return f"{unit.id} ({unit.cls}) is not in supply: no replacements", FIGHTER_RULE
    info = unit.info()
    side = info.shown(unit.crippled)
    if order.fighters2 < 0 or order.pfs < 0 or order.fighters2 + order.pfs == 0:
        return f"{unit.id}: a replacement names a positive number of fighters or PFs", FIGHTER_RULE
    if order.fighters2 > side.fighters2:
        return (
            f"{unit.id} ({unit.cls}) carries at most {fmt_ep(side.fighters2)} fighter factors, "
            f"{fmt_ep(order.fighters2)} ordered",
            FIGHTER_RULE,
        )
    if order.pfs > side.pfs:
        return (
            f"{unit.id} ({unit.cls}) carries at most {side.pfs} PFs, {order.pfs} ordered",
            PF_RULE,
        )
    return unit


# Checking and applying a turn's production


class _Plan(msgspec.Struct):
    problems: list[Violation]
    builds: list[Build]
    converted: list[Unit]
    cost2: int


def _build_problem(
    empire: str,
    turn: int,
    order: Build,
    terms: BuildTerms,
    slots: Mapping[str, int],
    sites: Sequence[HexId],
    schedule: Sequence[Batch],
) -> int | Violation:
    """The cost of one build order, or the first reason it is refused."""
    slot = order.instead_of or order.cls
    cost = terms.cost2
    if isinstance(cost, str):
        return Violation(cost, SUBSTITUTION_RULE if order.instead_of else BUILD_RULE)
    if slot not in slots:
        label, used_schedule = turn_label(turn), schedule_label(schedule, turn)
        text = f"{slot} is not on {empire}'s production schedule for {label} ({used_schedule})"
        return Violation(text, BUILD_RULE)
    if terms.available > turn:
        when = turn_label(terms.available)
        return Violation(f"{order.cls} is not in service before {when}", BUILD_RULE)
    if order.hex not in sites:
        where = ", ".join(f"{h:04d}" for h in sites) or "none held"
        text = f"new {order.cls} may not appear in {order.hex:04d}: the capital or a shipyard"
        return Violation(f"{text} ({where})", BUILD_RULE)
    return cost


def _check_builds(
    galaxy: Galaxy,
    board: Board,
    empire: str,
    turn: int,
    schedule: Sequence[Batch],
    orders: ProductionOrders,
    shipyards: Sequence[HexId],
    options: ProductionOptions,
    plan: _Plan,
) -> None:
    slots = slots_of(schedule, turn)
    sites = build_sites(galaxy, board, empire, shipyards)
    used: dict[str, int] = {}
    limited: list[str] = []
    for order in orders.builds:
        terms = build_terms(empire, order.cls, order.instead_of, turn)
        found = _build_problem(empire, turn, order, terms, slots, sites, schedule)
        if isinstance(found, Violation):
            plan.problems.append(found)
            continue
        slot = order.instead_of or order.cls
        used[slot] = used.get(slot, 0) + 1
        if terms.counted:
            limited.append(f"{order.cls} for {order.instead_of}")
        plan.builds.append(order)
        plan.cost2 += found
    for slot, count in used.items():
        if count > slots[slot]:
            used_schedule = schedule_label(schedule, turn)
            text = f"{used_schedule} for {turn_label(turn)} allows {slots[slot]} {slot}"
            plan.problems.append(Violation(f"{text}, {count} ordered", BUILD_RULE))
    limit = options.substitution_limit
    if limit > 0 and len(limited) > limit:
        text = (
            f"{len(limited)} limited substitutions ordered ({', '.join(limited)}), at most "
            f"{limit} per turn (those marked with a dagger are not counted)"
        )
        plan.problems.append(Violation(text, SUBSTITUTION_RULE))


def _check_conversions(
    galaxy: Galaxy,
    board: Board,
    empire: str,
    turn: int,
    orders: ProductionOrders,
    plan: _Plan,
) -> None:
    if not orders.conversions and not orders.extra_major:
        return
    seen: set[str] = set()
    wanted: dict[HexId, list[int]] = {}  # hex -> [major, minor]
    for order in orders.conversions:
        found = conversion_problem(empire, turn, board, order, seen)
        if isinstance(found, str):
            plan.problems.append(Violation(found, CONVERSION_RULE))
            continue
        unit, cost, major = found
        seen.add(unit.id)
        wanted.setdefault(unit.hex, [0, 0])[0 if major else 1] += 1
        plan.converted.append(msgspec.structs.replace(unit, cls=order.to))
        plan.cost2 += cost
    if orders.extra_major:
        if empire in SECOND_MAJOR_HEX:
            text = f"{empire} may not buy an extra major conversion"
            plan.problems.append(Violation(text, "433.15"))
        plan.cost2 += EXTRA_MAJOR2
    for h in sorted(wanted):
        majors, minors = wanted[h]
        cap_major, cap_minor = conversion_capacity(
            galaxy, board, empire, h, extra_major=orders.extra_major
        )
        if majors > cap_major or minors > cap_minor + (cap_major - majors):
            text = f"conversions at {h:04d}: {majors} major and {minors} minor ordered"
            capacity = f"capacity {cap_major} major and {cap_minor} minor"
            plan.problems.append(Violation(f"{text}, {capacity}", CONVERSION_RULE))


def _check_replacements(
    board: Board, empire: str, orders: ProductionOrders, unsupplied: Sequence[HexId], plan: _Plan
) -> None:
    if not orders.replacements:
        return
    seen: set[str] = set()
    cut_off = set(unsupplied)
    for order in orders.replacements:
        found = _replacement_problem(empire, board, order, seen, cut_off)
        if isinstance(found, tuple):
            plan.problems.append(Violation(*found))
            continue
        seen.add(found.id)
        plan.cost2 += replacement_cost2(found, order.fighters2, order.pfs)


def _plan(
    galaxy: Galaxy,
    board: Board,
    empire: str,
    turn: int,
    treasury2: int,
    schedule: Sequence[Batch],
    orders: ProductionOrders,
    shipyards: Sequence[HexId],
    unsupplied: Sequence[HexId],
    options: ProductionOptions | None,
) -> _Plan:
    found = _planned(
        board,
        galaxy,
        schedule,
        empire,
        turn,
        orders,
        tuple(shipyards),
        tuple(unsupplied),
        options or ProductionOptions(),
    )
    # A copy: the remembered plan is shared, and callers add their own problems to the list.
    plan = _Plan(list(found.problems), list(found.builds), list(found.converted), found.cost2)
    if plan.cost2 > treasury2:
        text = f"builds cost {fmt_ep(plan.cost2)} EP, treasury {fmt_ep(treasury2)} EP"
        plan.problems.append(Violation(text, BUILD_RULE))
    return plan


@caches.by_identity(maxsize=4, identity=3)
def _planned(
    board: Board, galaxy: Galaxy, schedule: Sequence[Batch], empire: str, turn: int,
    orders: ProductionOrders, shipyards: tuple[HexId, ...], unsupplied: tuple[HexId, ...],
    options: ProductionOptions,
) -> _Plan:  # fmt: skip
    """Everything `_plan` finds but whether the treasury pays, which is all that differs
    between a build order's check (`engine.fe.steps.yard.check`, any treasury) and its
    carrying out on the same state (`production_changes`): the second reuses the first's
    work. Keyed by the board, map and schedule objects and the other arguments' values;
    not to be mutated."""
    plan = _Plan([], [], [], 0)
    _check_builds(galaxy, board, empire, turn, schedule, orders, shipyards, options, plan)
    _check_conversions(galaxy, board, empire, turn, orders, plan)
    _check_replacements(board, empire, orders, unsupplied, plan)
    _check_in_service(board, empire, plan)
    return plan


def _check_in_service(board: Board, empire: str, plan: _Plan) -> None:
    gained: dict[str, int] = {}
    for order in plan.builds:
        gained[order.cls] = gained.get(order.cls, 0) + 1
    for unit in plan.converted:
        gained[unit.cls] = gained.get(unit.cls, 0) + 1
    for cls in sorted(gained):
        info = load_units().find(empire, cls)
        if info is None or not info.max_in_service:
            continue
        have = sum(1 for u in board.units if u.empire == empire and u.cls == cls)
        if have + gained[cls] > info.max_in_service:
            text = f"{cls}: {have} in service and {gained[cls]} more ordered"
            plan.problems.append(Violation(f"{text}, at most {info.max_in_service}", BUILD_RULE))


def check_builds(
    galaxy: Galaxy,
    board: Board,
    empire: str,
    turn: int,
    treasury2: int,
    schedule: Sequence[Batch],
    orders: ProductionOrders,
    *,
    shipyards: Sequence[HexId] = (),
    unsupplied: Sequence[HexId] = (),
    options: ProductionOptions | None = None,
) -> list[Violation]:
    """Why this turn's production orders are illegal (empty when they are legal).

    ``schedule`` is the empire's production batches (``EmpireSetup.production``);
    ``treasury2`` its EP in halves after repairs. Hooks: ``shipyards`` (hexes besides the
    capital where units may appear: minor shipyards, 450.1), ``unsupplied`` (hexes cut off
    from supply, where fighters and PFs are not replaced, 501.5).
    """
    return _plan(
        galaxy, board, empire, turn, treasury2, schedule, orders, shipyards, unsupplied, options
    ).problems


def apply_builds(
    galaxy: Galaxy,
    board: Board,
    empire: str,
    turn: int,
    treasury2: int,
    schedule: Sequence[Batch],
    orders: ProductionOrders,
    *,
    shipyards: Sequence[HexId] = (),
    unsupplied: Sequence[HexId] = (),
    options: ProductionOptions | None = None,
) -> Produced:
    """Place the new units, convert, pay (431.0, 433.0, 501.5); ValueError if not legal.

    New units get the next ids of their empire in order of the build orders; replaced
    fighters and PFs change nothing on the board (it does not track losses yet): they cost.
    """
    units, cost2, ids = production_changes(
        galaxy, board, empire, turn, treasury2, schedule, orders, options, shipyards, unsupplied
    )
    return Produced(board.with_units(units), cost2, treasury2 - cost2, ids)


def production_changes(
    galaxy: Galaxy, board: Board, empire: str, turn: int, treasury2: int,
    schedule: Sequence[Batch], orders: ProductionOrders, options: ProductionOptions | None,
    shipyards: Sequence[HexId] = (), unsupplied: Sequence[HexId] = (), *, given: int = 0,
) -> tuple[tuple[Unit, ...], int, tuple[str, ...]]:  # fmt: skip
    """`apply_builds` without making the board: the converted and new units, the cost and
    the new ids, for a caller that changes a state's units itself (`FeState.with_units`);
    ``given``: new ids of the empire handed out since ``board`` (`next_ids`)."""
    plan = _plan(
        galaxy, board, empire, turn, treasury2, schedule, orders, shipyards, unsupplied, options
    )
    if plan.problems:
        raise ValueError("; ".join(v.message for v in plan.problems))
    ids = next_ids(board, empire, len(plan.builds), given)
    new = [Unit(uid, empire, b.cls, b.hex) for uid, b in zip(ids, plan.builds, strict=True)]
    return (*plan.converted, *new), plan.cost2, ids
