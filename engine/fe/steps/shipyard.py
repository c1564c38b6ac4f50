"""Phase 2 (Shipyard): builds and conversions (2B3) here, and the area that plays the phase.

The phase has three decision steps, each played by its own module and dispatched to by the
one rules area here (`AREA`, named ``shipyard`` in the sequence data): repairs at bases
(2A2, `engine.fe.steps.repairs`), builds and conversions (2B3, below) and fighter and PF
replacements (2B4, `engine.fe.steps.replacements`); 2B3 also sells extra command points
(308.9, `engine.fe.steps.command_points`). What they share, the tally of what the
turn already used and the lookups around the pure modules, is `engine.fe.steps.yard`; the
area clears that tally as every phase begins, since each limit counts per turn of Phase 2.

Builds and conversions are judged by the pure production check one order at a time; their
limits are per turn, so each new order must also fit in what the earlier ones left: schedule
slots (431.0), substitutions (450.4, option ``substitutions-per-turn``) and conversions per
hex (433.1). A unit built or converted this turn is not converted again the same turn
(inferred: the pure module, which sees a whole turn's orders at once, does not know the new
units yet).

A decision step passes by itself when no order could be accepted there: 2A2 when nothing of
the phasing side can be repaired, 2B3 when no schedule slot is open and no conversion is
affordable, 2B4 when no unit carries fighters or PFs or the treasury is empty. When in doubt
it stops: a player's ``done`` is cheap, a skipped legal order is not.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import msgspec

from engine.core import caches
from engine.core.ruleset import Event, Seat, Violation
from engine.fe import conversions, orders, production
from engine.fe.economics import fmt_ep
from engine.fe.forces import OFF_MAP, Unit
from engine.fe.model import FeState
from engine.fe.orders import BuildOrder, CommandPointsOrder, ConvertOrder, RepairOrder, ReplaceOrder
from engine.fe.scenario import turn_label
from engine.fe.sequence import Step
from engine.fe.steps import base, command_points, repairs, replacements, yard
from engine.fe.steps.base import Area, OrderRun
from engine.fe.units import load_units

# --- 2B3 builds and conversions -----------------------------------------------------------


def _build_empire(state: FeState, seat: Seat, order: BuildOrder) -> str | Violation:
    mine = base.empires_of(state, seat)
    if order.empire:
        if order.empire not in mine:
            text = f"{order.empire} is not an empire of {seat} ({', '.join(mine)})"
            return Violation(text, production.BUILD_RULE)
        return order.empire
    if len(mine) != 1:
        text = f"{seat} plays {', '.join(mine)}: the build order must name its empire"
        return Violation(text, production.BUILD_RULE)
    return mine[0]


def _terms(empire: str, order: BuildOrder, turn: int) -> production.BuildTerms:
    """The order's price and whether it counts against the substitution limit (450.4): see
    `engine.fe.production.build_terms`."""
    return production.build_terms(empire, order.cls, order.instead_of, turn)


def _as_build(order: BuildOrder) -> production.Build:
    return production.Build(order.cls, orders.hex_id(order.hex), order.instead_of)


def build_problems(state: FeState, seat: Seat, order: BuildOrder) -> list[Violation]:
    """Why ``seat`` may not build this now: schedule, site, limits left this turn, money."""
    empire = _build_empire(state, seat, order)
    if isinstance(empire, Violation):
        return [empire]
    return _site_problems(state, empire, order) + _limit_problems(
        state, empire, order, _Spent.empty()
    )


class _Spent(NamedTuple):
    """What a run of build orders used before the order at hand, not yet in the state
    (`apply_build_run` pays and counts at its end): halves of an EP per empire, and the
    phase's tallies per (empire, what) (`yard.use`)."""

    ep2: dict[str, int]
    tally: dict[tuple[str, str], int]

    @staticmethod
    def empty() -> _Spent:
        return _Spent({}, {})

    def treasury2(self, state: FeState, empire: str) -> int:
        return state.ep2(empire) - self.ep2.get(empire, 0)

    def used(self, state: FeState, empire: str, what: str) -> int:
        return yard.used(state, empire, what) + self.tally.get((empire, what), 0)


def _site_problems(state: FeState, empire: str, order: BuildOrder) -> list[Violation]:
    """What the pure production check finds wrong with the build on ``state``'s board, its
    schedule and options (the class, the site, the date), whatever the turn used so far."""
    build = _as_build(order)
    return yard.check(state, empire, production.ProductionOrders(builds=(build,)))


def _limit_problems(
    state: FeState, empire: str, order: BuildOrder, spent: _Spent
) -> list[Violation]:
    """Why the build does not fit in what the turn left, with ``spent`` used already on top
    of ``state``: its schedule slot, the substitution limit, the treasury."""
    problems: list[Violation] = []
    schedule = yard.schedule(state, empire)
    slot = order.instead_of or order.cls
    slots = production.slots_of(schedule, state.turn)
    filled = spent.used(state, empire, f"slot {slot}")
    if slot in slots and filled + 1 > slots[slot]:
        text = (
            f"{empire}'s schedule for {turn_label(state.turn)} "
            f"({production.schedule_label(schedule, state.turn)}) has {slots[slot]} {slot} "
            f"slot{'' if slots[slot] == 1 else 's'}, {filled} already filled this turn"
        )
        problems.append(Violation(text, production.BUILD_RULE))
    limit = yard.production_options(state).substitution_limit
    made = spent.used(state, empire, "substitutions")
    terms = _terms(empire, order, state.turn)
    if terms.counted and 0 < limit <= made:
        text = (
            f"{empire} already made {made} limited substitutions this turn, at most {limit} "
            f"({order.cls} for {order.instead_of} is limited)"
        )
        problems.append(Violation(text, production.SUBSTITUTION_RULE))
    cost2 = terms.cost2
    if isinstance(cost2, int):
        treasury2 = spent.treasury2(state, empire)
        problems += yard.money(order.cls, cost2, empire, treasury2, production.BUILD_RULE)
    return problems


def apply_build(
    state: FeState, seat: Seat, step: Step, order: BuildOrder, events: list[Event]
) -> FeState:
    empire = _build_empire(state, seat, order)
    if isinstance(empire, Violation):
        raise ValueError(empire.message)  # build_problems refused it already
    before = state.ep2(empire)
    unit, cost2 = _built(state, empire, order, before)
    events.append(_build_event(seat, step, empire, order, unit.id, cost2, before))
    state = state.with_units((unit,)).with_ep2(empire, before - cost2)
    return yard.use(state, empire, *_uses(state, empire, order, unit.id))


def _built(
    state: FeState, empire: str, order: BuildOrder, treasury2: int, given: int = 0
) -> tuple[Unit, int]:
    """The unit a checked build order makes on ``state`` and its cost (halves of an EP), by
    the pure module, paid from ``treasury2``; ``given``: ids of ``empire`` handed out since
    ``state``'s board (`apply_build_run`)."""
    units, cost2, _ = production.production_changes(
        base.galaxy(),
        state.board,
        empire,
        state.turn,
        treasury2,
        yard.schedule(state, empire),
        production.ProductionOrders(builds=(_as_build(order),)),
        yard.production_options(state),
        given=given,
    )
    (unit,) = units
    return unit, cost2


def _uses(state: FeState, empire: str, order: BuildOrder, new_id: str) -> list[tuple[str, int]]:
    """What the build of ``new_id`` counts against the turn's limits (`yard.use`)."""
    uses = [(f"slot {order.instead_of or order.cls}", 1), (f"built {new_id}", 1)]
    if _terms(empire, order, state.turn).counted:
        uses.append(("substitutions", 1))
    return uses


def _build_event(
    seat: Seat,
    step: Step,
    empire: str,
    order: BuildOrder,
    new_id: str,
    cost2: int,
    before: int,
) -> Event:
    """The event of the build of ``new_id``, paid ``cost2`` from a treasury of ``before``."""
    after = before - cost2
    instead = f" instead of {order.instead_of}" if order.instead_of else ""
    return Event(
        "build",
        f"{empire} builds {order.cls} {new_id} at {order.hex}{instead} for "
        f"{fmt_ep(cost2)} EP ({yard.treasury_text(before, after)})",
        seat,
        step.id,
        {
            "empire": empire,
            "unit": new_id,
            "cls": order.cls,
            "hex": order.hex,
            "instead_of": order.instead_of,
            "cost2": cost2,
            "treasury2": after,
            "rule": production.BUILD_RULE,
        },
    )


def apply_build_run(state: FeState, run: OrderRun) -> tuple[FeState, list[Event], int]:
    """The build orders of the run's orders from its start on, checked and applied one
    after another as `apply_build` would, but paid, counted and put on the board at once:
    the state, the events and how many orders were taken.

    A turn's builds come in one packet, and each on its own made a board (a copy of every
    unit, its indexes carried) and a state. Here each order is checked against the state
    with what the earlier orders of the run paid and counted on top (`_Spent`), which is
    what it would have read after them one by one: where a unit may appear reads the
    captures, and the schedule, limits and money are the state's. The one thing a build
    reads of the units, the empire's highest id, is counted on (``given``). The first order
    is checked by the run's ``validate`` (its step and seat); the orders after it change
    neither, so the build's own check is theirs. What an order's check and its unit read of
    the state but the turn's tallies and treasury stays as it was through the run, so an
    order the run saw already (the same class at the same site) is judged and made from
    what was found for it then (`_Made`): only its limits are checked again. A class with a
    limit in service (whose check counts the units there) ends the run, as does any order
    that is not a legal build: those are left to the one-by-one path, from the state the
    taken orders made.
    """
    seat, step, orders, start, validate = run
    events: list[Event] = []
    built: list[Unit] = []
    given: dict[str, int] = {}
    spent = _Spent.empty()
    made: dict[BuildOrder, _Made] = {}
    for index in range(start, len(orders)):  # (by index: the packet's list is not copied)
        order = orders[index]
        if not isinstance(order, BuildOrder):
            break
        found = made.get(order)
        if found is None:
            found = made[order] = _Made.of(state, seat, order)
        empire = found.empire
        if empire is None:
            break
        if index == start:
            problems = validate(state, seat, order)
        else:
            problems = found.site or _limit_problems(state, empire, order, spent)
        if problems:
            break
        before = spent.treasury2(state, empire)
        count = given.get(empire, 0)
        if found.unit is None or found.cost2 > before:
            unit, cost2 = _built(state, empire, order, before, count)  # (raises as it did)
            made[order] = found._replace(unit=unit, cost2=cost2)
        else:
            (new_id,) = production.next_ids(state.board, empire, 1, count)
            unit, cost2 = msgspec.structs.replace(found.unit, id=new_id), found.cost2
        given[empire] = count + 1
        spent.ep2[empire] = spent.ep2.get(empire, 0) + cost2
        for what, n in _uses(state, empire, order, unit.id):
            spent.tally[empire, what] = spent.tally.get((empire, what), 0) + n
        events.append(_build_event(seat, step, empire, order, unit.id, cost2, before))
        built.append(unit)
    if not built:
        return state, [], 0
    paid = state
    for empire in sorted(spent.ep2):
        paid = paid.with_ep2(empire, paid.ep2(empire) - spent.ep2[empire])
    for empire in sorted({empire for empire, _ in spent.tally}):
        uses = [(what, n) for (owner, what), n in spent.tally.items() if owner == empire]
        paid = yard.use(paid, empire, *uses)
    return paid.with_units(built), events, len(built)


class _Made(NamedTuple):
    """What a run of builds found for one order value, which stays so through the run: its
    empire (None: not the seat's to build, or of a class with a limit in service, which
    ends the run), the pure check's problems (`_site_problems`), and once made, its unit
    (whose id is the only thing that differs from one build of it to the next) and cost."""

    empire: str | None
    site: list[Violation]
    unit: Unit | None = None
    cost2: int = 0

    @staticmethod
    def of(state: FeState, seat: Seat, order: BuildOrder) -> _Made:
        empire = _build_empire(state, seat, order)
        if isinstance(empire, Violation) or _limited(empire, order):
            return _Made(None, [])
        return _Made(empire, _site_problems(state, empire, order))


def _limited(empire: str, order: BuildOrder) -> bool:
    """Whether the class built has a limit in service (its check counts the board's units)."""
    info = load_units().find(empire, order.cls)
    return info is not None and info.max_in_service > 0


def _conversion_order(unit: Unit, to: str) -> production.ProductionOrders:
    return production.ProductionOrders(conversions=(production.Convert(unit.id, to),))


def _conversion(unit: Unit, to: str) -> tuple[int, bool]:
    """(cost in halves, major?) of a conversion the pure check accepted (433.1)."""
    conv = conversions.conversion_for(unit.empire, unit, to)
    if isinstance(conv, str) or conv.cost2 is None:
        raise ValueError(f"{unit.cls} into {to}: {conv}")
    return conv.cost2 + conv.fighter_cost2, conv.cost2 > conversions.MINOR_CONVERSION2


def convert_problems(state: FeState, seat: Seat, order: ConvertOrder) -> list[Violation]:
    """Why ``seat`` may not convert this unit now: the tables, the hex's capacity, money."""
    rule = production.CONVERSION_RULE
    unit = yard.own_unit(state, seat, order.unit, rule)
    if isinstance(unit, list):
        return unit
    return _convert_unit_problems(state, unit, order.to)


def _convert_unit_problems(state: FeState, unit: Unit, to: str) -> list[Violation]:
    rule, empire = production.CONVERSION_RULE, unit.empire
    for done in ("built", "converted"):
        if yard.used(state, empire, f"{done} {unit.id}"):
            return [Violation(f"{unit.id} was {done} this turn: it converts next turn", rule)]
    problems = yard.check(state, empire, _conversion_order(unit, to))
    if problems:
        return problems
    cost2, major = _conversion(unit, to)
    h = yard.at(unit.hex)
    majors = yard.used(state, empire, f"major {h}") + (1 if major else 0)
    minors = yard.used(state, empire, f"minor {h}") + (0 if major else 1)
    cap_major, cap_minor = conversions.conversion_capacity(
        base.galaxy(), state.board, empire, unit.hex
    )
    if majors > cap_major or minors > cap_minor + (cap_major - majors):
        text = (
            f"conversions at {h} this turn would be {majors} major and {minors} minor, "
            f"capacity {cap_major} major and {cap_minor} minor"
        )
        problems.append(Violation(text, rule))
    what = f"converting {unit.cls} {unit.id} into {to}"
    return problems + yard.money(what, cost2, empire, state.ep2(empire), rule)


def apply_convert(
    state: FeState, seat: Seat, step: Step, order: ConvertOrder, events: list[Event]
) -> FeState:
    unit = state.board.unit(order.unit)
    empire, before = unit.empire, state.ep2(unit.empire)
    _, major = _conversion(unit, order.to)
    state, cost2, _ = yard.produce(state, empire, _conversion_order(unit, order.to))
    after = before - cost2
    size = "major" if major else "minor"
    state = yard.use(state, empire, (f"{size} {yard.at(unit.hex)}", 1), (f"converted {unit.id}", 1))
    events.append(
        Event(
            "convert",
            f"{empire} converts {unit.cls} {unit.id} into {order.to} at {yard.at(unit.hex)} "
            f"({size} conversion) for {fmt_ep(cost2)} EP "
            f"({yard.treasury_text(before, after)})",
            seat,
            step.id,
            {
                "empire": empire,
                "unit": unit.id,
                "from": unit.cls,
                "to": order.to,
                "major": major,
                "cost2": cost2,
                "treasury2": after,
                "rule": production.CONVERSION_RULE,
            },
        )
    )
    return state


@caches.derived(maxsize=32, shipped=True)
def _conversion_targets(empire: str) -> dict[str, tuple[str, ...]]:
    """For each class of ``empire``, the classes it converts into, in table order."""
    targets: dict[str, list[str]] = {}
    for cls in load_units().empire_classes(empire):
        for conv in cls.conversions:
            for source in conv.source:
                listed = targets.setdefault(source, [])
                if cls.id not in listed:
                    listed.append(cls.id)
    return {source: tuple(found) for source, found in targets.items()}


def _producible(state: FeState) -> str:
    """Why the phasing side can neither build nor convert now ("" when it might)."""
    empires = base.phasing_empires(state)
    galaxy, board = base.galaxy(), state.board
    for empire in empires:
        if production.scheduled(yard.schedule(state, empire), state.turn):
            return ""
    for unit in board.units:
        if unit.empire not in empires or unit.hex == OFF_MAP or unit.crippled:
            continue
        targets = _conversion_targets(unit.empire).get(unit.cls, ())
        if not targets or not any(
            conversions.conversion_capacity(galaxy, board, unit.empire, unit.hex)
        ):
            continue
        if any(not _convert_unit_problems(state, unit, to) for to in targets):
            return ""
    return f"{', '.join(empires)}: no production slot this turn and no affordable conversion"


# --- the area -----------------------------------------------------------------------------


class _Shipyard(Area):
    name = "shipyard"
    orders = ("repair", "build", "convert", "replace", "command-points")

    def check(self, state: FeState, seat: Seat, step: Step, order: Any) -> list[Violation]:
        if isinstance(order, RepairOrder):
            return repairs.repair_problems(state, seat, order)
        if isinstance(order, BuildOrder):
            return build_problems(state, seat, order)
        if isinstance(order, ConvertOrder):
            return convert_problems(state, seat, order)
        if isinstance(order, ReplaceOrder):
            return replacements.replace_problems(state, seat, order)
        if isinstance(order, CommandPointsOrder):
            return command_points.buy_problems(state, seat, order)
        return super().check(state, seat, step, order)

    def apply(
        self, state: FeState, seat: Seat, step: Step, order: Any, events: list[Event]
    ) -> FeState:
        if isinstance(order, RepairOrder):
            return repairs.apply_repair(state, seat, step, order, events)
        if isinstance(order, BuildOrder):
            return apply_build(state, seat, step, order, events)
        if isinstance(order, ConvertOrder):
            return apply_convert(state, seat, step, order, events)
        if isinstance(order, ReplaceOrder):
            return replacements.apply_replace(state, seat, step, order, events)
        if isinstance(order, CommandPointsOrder):
            return command_points.apply_buy(state, seat, step, order, events)
        return super().apply(state, seat, step, order, events)

    def skip(self, state: FeState, step: Step) -> str:
        if "repair" in step.orders:
            return repairs.repairable(state)
        if "build" in step.orders or "convert" in step.orders:
            return _producible(state)
        if "replace" in step.orders:
            return replacements.replaceable(state)
        return ""

    def on_phase(self, state: FeState, phase: str, events: list[Event]) -> FeState:
        """Every limit counted here is per turn of Phase 2: nothing carries over a phase.
        Unspent command points lapse as Phase 2 begins (`engine.fe.steps.command_points`)."""
        state = command_points.lapse(state, phase, events)
        if state.shipyard_used:
            return msgspec.structs.replace(state, shipyard_used=())
        return state


AREA = _Shipyard()
