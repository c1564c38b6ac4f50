"""Phase 2 (Shipyard): repairs at bases (2A2), builds and conversions (2B3), replacements (2B4).

The rules are the pure modules' (`engine.fe.repair`, `engine.fe.production`,
`engine.fe.economics`); this area feeds them one order at a time, as packets bring them.
Their limits are per turn, not per order, so what the earlier orders of the phase used is
kept in ``FeState.shipyard_used`` and each new order must fit in what is left:

- a facility hex's repair points (420.42): the pure check sees the one repair; the points
  already used this turn are added here;
- schedule slots (431.0), substitutions (450.4, option ``substitutions-per-turn``) and
  conversions per hex (433.1), counted the same way;
- money is simpler: every order pays as it is applied, so the treasury an order is checked
  against is already what the earlier ones left. The pure production check is handed an
  unlimited purse and money is checked here instead, so the refusal can name the order's own
  price ("D7 costs 8 EP, KLI has 5.5").

Which empire acts: the unit's, for repairs, conversions and replacements; for a build, the
seat's only empire or the one the order names. Readings marked I (inferred):

- supply (410.23, 501.5): a hex is cut off when the empire's grid reaches it neither as main
  nor as partial supply; supply tugs are not tracked yet, so a unit that only a tug supplies
  counts as cut off (I);
- a unit built or converted this turn is not converted again the same turn (I: the pure
  module, which sees a whole turn's orders at once, does not know the new units yet);
- replacements are limited by what the unit carries, counted over the whole turn (I: the
  board does not record lost fighters, so this is the best the engine can check).

A decision step passes by itself when no order could be accepted there: 2A2 when nothing of
the phasing side can be repaired (no crippled ship at a facility with room, or no money), 2B3
when no schedule slot is open and no conversion is affordable, 2B4 when no unit carries
fighters or PFs or the treasury is empty. When in doubt it stops: a player's ``done`` is
cheap, a skipped legal order is not.
"""

from __future__ import annotations

from typing import Any

import msgspec

from engine.core import caches
from engine.core.ruleset import Event, Seat, Violation
from engine.fe import model, production, repair, rule_options
from engine.fe.economics import fmt_ep, replacement_cost2
from engine.fe.forces import OFF_MAP, Unit
from engine.fe.galaxy import HexId
from engine.fe.model import BuildOrder, ConvertOrder, FeState, RepairOrder, ReplaceOrder
from engine.fe.oob import Batch
from engine.fe.scenario import turn_label
from engine.fe.sequence import Step
from engine.fe.steps import base
from engine.fe.steps.base import Area
from engine.fe.supply import supply_grid
from engine.fe.units import load_units

UNLIMITED2 = 10**12
"""The purse handed to the pure production check: money is checked here, order by order."""


# --- what this phase used -----------------------------------------------------------------


def used(state: FeState, empire: str, what: str) -> int:
    """How much of ``what`` (``"slot D7"``, ``"repair 1307"``...) ``empire`` used this phase."""
    for name, key, count in state.shipyard_used:
        if name == empire and key == what:
            return count
    return 0


def _use(state: FeState, empire: str, *uses: tuple[str, int]) -> FeState:
    entries = {(name, key): count for name, key, count in state.shipyard_used}
    for what, count in uses:
        entries[(empire, what)] = entries.get((empire, what), 0) + count
    ordered = tuple(sorted((name, key, count) for (name, key), count in entries.items()))
    return msgspec.structs.replace(state, shipyard_used=ordered)


def _at(h: HexId) -> str:
    return base.hex_text(h)


# --- shared lookups -----------------------------------------------------------------------


def _repair_options(state: FeState) -> repair.RepairOptions:
    return repair.repair_options(rule_options.values(state))


def _production_options(state: FeState) -> production.ProductionOptions:
    return production.production_options(rule_options.values(state))


def _schedule(state: FeState, empire: str) -> tuple[Batch, ...]:
    setup = base.empire_setup(state, empire)
    return setup.production if setup is not None else ()


def _cut_off(state: FeState, unit: Unit) -> tuple[HexId, ...]:
    """``(unit.hex,)`` when the unit's empire cannot trace supply there, else ``()``."""
    if unit.hex == OFF_MAP:
        return ()
    grid = supply_grid(base.galaxy(), state.board, unit.empire)
    return (unit.hex,) if grid.status(unit.hex) == "none" else ()


def _own_unit(state: FeState, seat: Seat, unit_id: str, rule: str) -> Unit | list[Violation]:
    units, problems = base.own_units(state, seat, [unit_id], rule)
    return problems if problems else units[0]


def _check(
    state: FeState,
    empire: str,
    orders: production.ProductionOrders,
    unsupplied: tuple[HexId, ...] = (),
) -> list[Violation]:
    """The pure production check of one order, with money left to the caller."""
    return production.check_builds(
        base.galaxy(),
        state.board,
        empire,
        state.turn,
        UNLIMITED2,
        _schedule(state, empire),
        orders,
        unsupplied=unsupplied,
        options=_production_options(state),
    )


def _produce(
    state: FeState,
    empire: str,
    orders: production.ProductionOrders,
    unsupplied: tuple[HexId, ...] = (),
) -> production.Produced:
    """The pure module carries out one checked order, paid from the real treasury."""
    return production.apply_builds(
        base.galaxy(),
        state.board,
        empire,
        state.turn,
        state.ep2(empire),
        _schedule(state, empire),
        orders,
        unsupplied=unsupplied,
        options=_production_options(state),
    )


def _treasury_text(before2: int, after2: int) -> str:
    return f"treasury {fmt_ep(before2)} -> {fmt_ep(after2)}"


def _money(what: str, cost2: int, empire: str, treasury2: int, rule: str) -> list[Violation]:
    if cost2 <= treasury2:
        return []
    return [Violation(f"{what} costs {fmt_ep(cost2)} EP, {empire} has {fmt_ep(treasury2)}", rule)]


# --- 2A2 repairs --------------------------------------------------------------------------


def repair_problems(state: FeState, seat: Seat, order: RepairOrder) -> list[Violation]:
    """Why ``seat`` may not repair ``order.unit`` now (420.2, 420.42, 410.23)."""
    unit = _own_unit(state, seat, order.unit, repair.BASE_RULE)
    if isinstance(unit, list):
        return unit
    return _repair_unit_problems(state, unit, _cut_off(state, unit))


def _repair_unit_problems(
    state: FeState, unit: Unit, unsupplied: tuple[HexId, ...]
) -> list[Violation]:
    galaxy, board, options = base.galaxy(), state.board, _repair_options(state)
    problems = repair.check_repairs(
        galaxy,
        board,
        unit.empire,
        state.ep2(unit.empire),
        [repair.Repair(unit.id)],
        unsupplied=unsupplied,
        options=options,
    )
    if problems:
        return problems
    need = repair.repair_points(unit, options)
    capacity = repair.repair_capacity(galaxy, board, unit.empire, unit.hex, options=options)
    spent = used(state, unit.empire, f"repair {_at(unit.hex)}")
    if spent + need > capacity:
        text = (
            f"repairing {unit.cls} {unit.id} needs {need} points at {_at(unit.hex)}: "
            f"capacity {capacity} a turn, {spent} already used this turn"
        )
        return [Violation(text, repair.BASE_RULE)]
    return []


def _facilities(state: FeState, unit: Unit) -> str:
    """The empire's repair facilities in the unit's hex, e.g. ``"SB"`` or ``"3 SB, FRD"``."""
    options = _repair_options(state)
    counts: dict[str, int] = {}
    for other in state.board.at(unit.hex):
        if other.empire != unit.empire or not repair.facility_points(other):
            continue
        if other.crippled and not options.crippled_facilities:
            continue
        counts[other.cls] = counts.get(other.cls, 0) + 1
    return ", ".join(cls if n == 1 else f"{n} {cls}" for cls, n in counts.items())


def apply_repair(
    state: FeState, seat: Seat, step: Step, order: RepairOrder, events: list[Event]
) -> FeState:
    unit = state.board.unit(order.unit)
    empire, before = unit.empire, state.ep2(unit.empire)
    options = _repair_options(state)
    done = repair.apply_repairs(
        base.galaxy(), state.board, empire, before, [repair.Repair(unit.id)], options=options
    )
    state = state.with_board(done.board).with_ep2(empire, done.treasury2)
    state = _use(state, empire, (f"repair {_at(unit.hex)}", repair.repair_points(unit, options)))
    events.append(
        Event(
            "repair",
            f"{empire} repairs {unit.cls} {unit.id} at {_at(unit.hex)} {_facilities(state, unit)} "
            f"for {fmt_ep(done.cost2)} EP ({_treasury_text(before, done.treasury2)})",
            seat,
            step.id,
            {
                "empire": empire,
                "unit": unit.id,
                "hex": _at(unit.hex),
                "cost2": done.cost2,
                "treasury2": done.treasury2,
                "rule": repair.BASE_COST_RULE,
            },
        )
    )
    return state


def _repairable(state: FeState) -> str:
    """Why nothing of the phasing side can be repaired now ("" when something can)."""
    empires = base.phasing_empires(state)
    for unit in state.board.units:
        crippled = unit.empire in empires and unit.crippled and unit.hex != OFF_MAP
        if crippled and not _repair_unit_problems(state, unit, ()):
            return ""
    return f"{', '.join(empires)}: no crippled ship that a base or FRD can repair now"


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


def _substitutes(empire: str, build: production.Build) -> bool:
    """A build counts against the substitution limit unless it fills its own or a hull slot."""
    if not build.instead_of or build.instead_of == build.cls:
        return False
    other = load_units().other(empire, build.instead_of)
    return other is None or other.kind != "hull"


def _as_build(order: BuildOrder) -> production.Build:
    return production.Build(order.cls, model.hex_id(order.hex), order.instead_of)


def build_problems(state: FeState, seat: Seat, order: BuildOrder) -> list[Violation]:
    """Why ``seat`` may not build this now: schedule, site, limits left this turn, money."""
    empire = _build_empire(state, seat, order)
    if isinstance(empire, Violation):
        return [empire]
    build = _as_build(order)
    schedule = _schedule(state, empire)
    options = _production_options(state)
    problems = _check(state, empire, production.ProductionOrders(builds=(build,)))
    slot = order.instead_of or order.cls
    slots = production.scheduled(schedule, state.turn)
    filled = used(state, empire, f"slot {slot}")
    if slot in slots and filled + 1 > slots[slot]:
        text = (
            f"{empire}'s schedule for {turn_label(state.turn)} has {slots[slot]} {slot} "
            f"slot{'' if slots[slot] == 1 else 's'}, {filled} already filled this turn"
        )
        problems.append(Violation(text, production.BUILD_RULE))
    limit = options.substitution_limit
    made = used(state, empire, "substitutions")
    if _substitutes(empire, build) and 0 < limit <= made:
        text = f"{empire} already made {made} substitutions this turn, at most {limit}"
        problems.append(Violation(text, production.SUBSTITUTION_RULE))
    cost2 = production.build_cost2(empire, build, state.turn)
    if isinstance(cost2, int):
        problems += _money(order.cls, cost2, empire, state.ep2(empire), production.BUILD_RULE)
    return problems


def apply_build(
    state: FeState, seat: Seat, step: Step, order: BuildOrder, events: list[Event]
) -> FeState:
    empire = _build_empire(state, seat, order)
    if isinstance(empire, Violation):
        raise ValueError(empire.message)  # build_problems refused it already
    build = _as_build(order)
    before = state.ep2(empire)
    made = _produce(state, empire, production.ProductionOrders(builds=(build,)))
    (new_id,) = made.new_units
    state = state.with_board(made.board).with_ep2(empire, made.treasury2)
    uses = [(f"slot {order.instead_of or order.cls}", 1), (f"built {new_id}", 1)]
    if _substitutes(empire, build):
        uses.append(("substitutions", 1))
    state = _use(state, empire, *uses)
    instead = f" instead of {order.instead_of}" if order.instead_of else ""
    events.append(
        Event(
            "build",
            f"{empire} builds {order.cls} {new_id} at {order.hex}{instead} for "
            f"{fmt_ep(made.cost2)} EP ({_treasury_text(before, made.treasury2)})",
            seat,
            step.id,
            {
                "empire": empire,
                "unit": new_id,
                "cls": order.cls,
                "hex": order.hex,
                "instead_of": order.instead_of,
                "cost2": made.cost2,
                "treasury2": made.treasury2,
                "rule": production.BUILD_RULE,
            },
        )
    )
    return state


def _conversion_order(unit: Unit, to: str) -> production.ProductionOrders:
    return production.ProductionOrders(conversions=(production.Convert(unit.id, to),))


def _conversion(unit: Unit, to: str) -> tuple[int, bool]:
    """(cost in halves, major?) of a conversion the pure check accepted (433.1)."""
    conv = production.conversion_for(unit.empire, unit, to)
    if isinstance(conv, str) or conv.cost2 is None:
        raise ValueError(f"{unit.cls} into {to}: {conv}")
    return conv.cost2 + conv.fighter_cost2, conv.cost2 > production.MINOR_CONVERSION2


def convert_problems(state: FeState, seat: Seat, order: ConvertOrder) -> list[Violation]:
    """Why ``seat`` may not convert this unit now: the tables, the hex's capacity, money."""
    rule = production.CONVERSION_RULE
    unit = _own_unit(state, seat, order.unit, rule)
    if isinstance(unit, list):
        return unit
    return _convert_unit_problems(state, unit, order.to)


def _convert_unit_problems(state: FeState, unit: Unit, to: str) -> list[Violation]:
    rule, empire = production.CONVERSION_RULE, unit.empire
    for done in ("built", "converted"):
        if used(state, empire, f"{done} {unit.id}"):
            return [Violation(f"{unit.id} was {done} this turn: it converts next turn", rule)]
    problems = _check(state, empire, _conversion_order(unit, to))
    if problems:
        return problems
    cost2, major = _conversion(unit, to)
    h = _at(unit.hex)
    majors = used(state, empire, f"major {h}") + (1 if major else 0)
    minors = used(state, empire, f"minor {h}") + (0 if major else 1)
    cap_major, cap_minor = production.conversion_capacity(
        base.galaxy(), state.board, empire, unit.hex
    )
    if majors > cap_major or minors > cap_minor + (cap_major - majors):
        text = (
            f"conversions at {h} this turn would be {majors} major and {minors} minor, "
            f"capacity {cap_major} major and {cap_minor} minor"
        )
        problems.append(Violation(text, rule))
    what = f"converting {unit.cls} {unit.id} into {to}"
    return problems + _money(what, cost2, empire, state.ep2(empire), rule)


def apply_convert(
    state: FeState, seat: Seat, step: Step, order: ConvertOrder, events: list[Event]
) -> FeState:
    unit = state.board.unit(order.unit)
    empire, before = unit.empire, state.ep2(unit.empire)
    _, major = _conversion(unit, order.to)
    made = _produce(state, empire, _conversion_order(unit, order.to))
    state = state.with_board(made.board).with_ep2(empire, made.treasury2)
    size = "major" if major else "minor"
    state = _use(state, empire, (f"{size} {_at(unit.hex)}", 1), (f"converted {unit.id}", 1))
    events.append(
        Event(
            "convert",
            f"{empire} converts {unit.cls} {unit.id} into {order.to} at {_at(unit.hex)} "
            f"({size} conversion) for {fmt_ep(made.cost2)} EP "
            f"({_treasury_text(before, made.treasury2)})",
            seat,
            step.id,
            {
                "empire": empire,
                "unit": unit.id,
                "from": unit.cls,
                "to": order.to,
                "major": major,
                "cost2": made.cost2,
                "treasury2": made.treasury2,
                "rule": production.CONVERSION_RULE,
            },
        )
    )
    return state


@caches.derived(maxsize=32)
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
        if production.scheduled(_schedule(state, empire), state.turn):
            return ""
    for unit in board.units:
        if unit.empire not in empires or unit.hex == OFF_MAP or unit.crippled:
            continue
        targets = _conversion_targets(unit.empire).get(unit.cls, ())
        if not targets or not any(
            production.conversion_capacity(galaxy, board, unit.empire, unit.hex)
        ):
            continue
        if any(not _convert_unit_problems(state, unit, to) for to in targets):
            return ""
    return f"{', '.join(empires)}: no production slot this turn and no affordable conversion"


# --- 2B4 replacements ---------------------------------------------------------------------


def _carries(unit: Unit) -> tuple[int, int]:
    """(fighter factors doubled, PFs) the unit carries on the side it shows."""
    info = unit.info()
    side = info.crippled if unit.crippled and info.crippled is not None else info.full
    return side.fighters2, side.pfs


def _replacement_order(unit: Unit, fighters2: int, pfs: int) -> production.ProductionOrders:
    return production.ProductionOrders(replacements=(production.Replace(unit.id, fighters2, pfs),))


def _replaced(count2: int, pfs: int) -> str:
    parts = [f"{fmt_ep(count2)} fighter factors"] if count2 else []
    parts += [f"{pfs} PFs"] if pfs else []
    return " and ".join(parts) or "nothing"


def replace_problems(state: FeState, seat: Seat, order: ReplaceOrder) -> list[Violation]:
    """Why ``seat`` may not replace these fighters or PFs now (501.5, 502.43, 752.0)."""
    unit = _own_unit(state, seat, order.unit, production.FIGHTER_RULE)
    if isinstance(unit, list):
        return unit
    fighters2, empire = model.ep2(order.fighters), unit.empire
    orders = _replacement_order(unit, fighters2, order.pfs)
    problems = _check(state, empire, orders, _cut_off(state, unit))
    if problems:
        return problems
    carried2, carried_pfs = _carries(unit)
    done2 = used(state, empire, f"fighters {unit.id}")
    done_pfs = used(state, empire, f"pfs {unit.id}")
    if done2 + fighters2 > carried2:
        text = (
            f"{unit.id} ({unit.cls}) carries at most {fmt_ep(carried2)} fighter factors: "
            f"{fmt_ep(done2)} replaced this turn, {fmt_ep(fighters2)} more ordered"
        )
        problems.append(Violation(text, production.FIGHTER_RULE))
    if done_pfs + order.pfs > carried_pfs:
        text = (
            f"{unit.id} ({unit.cls}) carries at most {carried_pfs} PFs: "
            f"{done_pfs} replaced this turn, {order.pfs} more ordered"
        )
        problems.append(Violation(text, production.PF_RULE))
    cost2 = replacement_cost2(unit, fighters2, order.pfs)
    what = f"replacing {_replaced(fighters2, order.pfs)} on {unit.cls} {unit.id}"
    return problems + _money(what, cost2, empire, state.ep2(empire), production.FIGHTER_RULE)


def apply_replace(
    state: FeState, seat: Seat, step: Step, order: ReplaceOrder, events: list[Event]
) -> FeState:
    unit = state.board.unit(order.unit)
    empire, before = unit.empire, state.ep2(unit.empire)
    fighters2 = model.ep2(order.fighters)
    orders = _replacement_order(unit, fighters2, order.pfs)
    made = _produce(state, empire, orders, _cut_off(state, unit))
    state = state.with_ep2(empire, made.treasury2)
    state = _use(state, empire, (f"fighters {unit.id}", fighters2), (f"pfs {unit.id}", order.pfs))
    events.append(
        Event(
            "replace",
            f"{empire} replaces {_replaced(fighters2, order.pfs)} on {unit.cls} {unit.id} "
            f"for {fmt_ep(made.cost2)} EP ({_treasury_text(before, made.treasury2)})",
            seat,
            step.id,
            {
                "empire": empire,
                "unit": unit.id,
                "fighters2": fighters2,
                "pfs": order.pfs,
                "cost2": made.cost2,
                "treasury2": made.treasury2,
                "rule": production.FIGHTER_RULE,
            },
        )
    )
    return state


def _replaceable(state: FeState) -> str:
    """Why nothing of the phasing side can take replacements ("" when something might).

    The board does not record lost fighters, so any carrier on the map might lack some.
    """
    empires = base.phasing_empires(state)
    paying = {e for e in empires if state.ep2(e) > 0}
    for unit in state.board.units:
        if unit.empire in paying and unit.hex != OFF_MAP and any(_carries(unit)):
            return ""
    return f"{', '.join(empires)}: no unit carrying fighters or PFs, or no EP to pay"


# --- the area -----------------------------------------------------------------------------


class _Shipyard(Area):
    name = "shipyard"
    orders = ("repair", "build", "convert", "replace")

    def check(self, state: FeState, seat: Seat, step: Step, order: Any) -> list[Violation]:
        if isinstance(order, RepairOrder):
            return repair_problems(state, seat, order)
        if isinstance(order, BuildOrder):
            return build_problems(state, seat, order)
        if isinstance(order, ConvertOrder):
            return convert_problems(state, seat, order)
        if isinstance(order, ReplaceOrder):
            return replace_problems(state, seat, order)
        return super().check(state, seat, step, order)

    def apply(
        self, state: FeState, seat: Seat, step: Step, order: Any, events: list[Event]
    ) -> FeState:
        if isinstance(order, RepairOrder):
            return apply_repair(state, seat, step, order, events)
        if isinstance(order, BuildOrder):
            return apply_build(state, seat, step, order, events)
        if isinstance(order, ConvertOrder):
            return apply_convert(state, seat, step, order, events)
        if isinstance(order, ReplaceOrder):
            return apply_replace(state, seat, step, order, events)
        return super().apply(state, seat, step, order, events)

    def skip(self, state: FeState, step: Step) -> str:
        if "repair" in step.orders:
            return _repairable(state)
        if "build" in step.orders or "convert" in step.orders:
            return _producible(state)
        if "replace" in step.orders:
            return _replaceable(state)
        return ""

    def on_phase(self, state: FeState, phase: str, events: list[Event]) -> FeState:
        """Every limit counted here is per turn of Phase 2: nothing carries over a phase."""
        if state.shipyard_used:
            return msgspec.structs.replace(state, shipyard_used=())
        return state


AREA = _Shipyard()
