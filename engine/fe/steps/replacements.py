"""Fighters and PFs lost in combat: free fighters at 6E (and 2B4), bought PFs and F-111s at 2B4.

Fighters are paid for once, as a "lifetime annuity" when their carrier is built (527.13):
lost fighter factors come back automatically and free of charge at the end of each combat
phase (530.12 says so of heavy fighters "just as with any other fighters"), which the
sequence of play places at 6E for every unit in supply (501.5). Only what the fixed-cost
table prices is bought: replacement PFs at 0.5 EP each (502.43) and F-111 factors at 0.25 EP
each (527.13, fixed costs). So:

- 6E is an automatic step of this area (both sides): it says, per empire, which units with
  fighters are in supply and get their losses back free, and which are out of supply and keep
  them. The board does not record lost fighter factors yet (combat is played by hand), so
  nothing on the board changes; the step records what the rules did.
- 2B4 stays a decision step of the shipyard area, where ``replace`` orders buy PFs (and
  F-111 factors, on a unit of `F111_CLASSES`) for a unit in supply. A ``replace`` order for
  ordinary fighter factors is refused: they are never bought (530.12). 2B4 passes by itself
  unless a phasing unit in supply carries PFs or F-111s and its empire has EP.

The pure production check (`engine.fe.production`) judges each order's unit, supply (501.5)
and what it carries; the price is this module's (`replacement_price2`), not the 752.0
construction price. A unit takes no more replacements in a turn than it carries, counted
over the phase in the shipyard tally (inferred: the board does not record losses, so this is
the most the engine can check).

Readings, marked as in ``fe-rules-notes.md``:

- S (530.12, 527.13, fixed costs): fighters free; PFs 0.5 EP; F-111 factors 0.25 EP. I: a
  total ending in a quarter EP rounds up to the next half EP, as the PDU fighters' price
  does in `engine.fe.economics`.
- I: the F-111 carriers are the classes 527.2 names (the NVH); the unit tables here list no
  F-111 unit yet (they start in Y177), so the price is ready for when they are added.
- I: PFs are bought in 2B4 only: the summary also lets 6E replace PFs, but an automatic
  step takes no purchase, and no PF exists before Y179 in the scenarios shipped.
- I: a unit in a partial grid is in supply for replacements; 413.41's per-grid allowance of
  free fighters is not counted (losses are not recorded).
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import itemgetter

from engine.core import caches
from engine.core.ruleset import Event, Seat, Violation
from engine.fe import board_views, production
from engine.fe.economics import fmt_ep
from engine.fe.forces import OFF_MAP, Unit
from engine.fe.model import FeState
from engine.fe.orders import ReplaceOrder, ep2
from engine.fe.provinces import main_hexes
from engine.fe.sequence import Step
from engine.fe.steps import base, yard
from engine.fe.steps.base import Area
from engine.fe.steps.supply import grid_of
from engine.fe.supply import SupplyGrid
from engine.fe.units import load_units

FREE_RULE = "530.12"
F111_RULE = "527.13"
PF_PRICE2 = 1
"""A replacement PF costs 0.5 EP (fixed costs, 502.43): one half."""
F111_PRICE4 = 1
"""A replacement F-111 factor costs 0.25 EP (fixed costs, 527.13): one quarter."""
F111_CLASSES: tuple[str, ...] = ("NVH",)
"""Classes whose fighter factors are F-111s (527.21); none is in the unit tables yet."""
NAMED = 8
"""At most this many units are named in a 6E line (all are in its data)."""


def f111_carrier(unit: Unit) -> bool:
    """Whether the unit's fighter factors are F-111s (bought, 527.13), not free fighters."""
    return unit.cls in F111_CLASSES


def replacement_price2(unit: Unit, fighters2: int, pfs: int) -> int:
    """EP in halves to replace ``fighters2`` (doubled) fighter factors and ``pfs`` PFs.

    Ordinary fighters cost nothing (530.12); F-111 factors 0.25 EP each, the total rounded
    up to a half EP; PFs 0.5 EP each.
    """
    f111_2 = fighters2 if f111_carrier(unit) else 0
    return pfs * PF_PRICE2 + (f111_2 * F111_PRICE4 + 3) // 4


def _carries(unit: Unit) -> tuple[int, int]:
    """(fighter factors doubled, PFs) the unit carries on the side it shows."""
    return _carried(unit.empire, unit.cls, unit.crippled)


@caches.derived(maxsize=4096, shipped=True)
def _carried(empire: str, cls: str, crippled: bool) -> tuple[int, int]:
    """`_carries` of a unit of this side, class and state, read from the tables once: the
    6E and 2B4 readings try each class of each empire, every player turn."""
    side = Unit("", empire, cls, crippled=crippled).info().shown(crippled)
    return side.fighters2, side.pfs


def _replacement_order(unit: Unit, fighters2: int, pfs: int) -> production.ProductionOrders:
    return production.ProductionOrders(replacements=(production.Replace(unit.id, fighters2, pfs),))


def _replaced(unit: Unit, count2: int, pfs: int) -> str:
    kind = "F-111 factors" if f111_carrier(unit) else "fighter factors"
    parts = [f"{fmt_ep(count2)} {kind}"] if count2 else []
    parts += [f"{pfs} PFs"] if pfs else []
    return " and ".join(parts) or "nothing"


def replace_problems(state: FeState, seat: Seat, order: ReplaceOrder) -> list[Violation]:
    """Why ``seat`` may not buy these PFs or F-111 factors now (501.5, 502.43, 527.13)."""
    unit = yard.own_unit(state, seat, order.unit, production.FIGHTER_RULE)
    if isinstance(unit, list):
        return unit
    fighters2, empire = ep2(order.fighters), unit.empire
    if fighters2 > 0 and not f111_carrier(unit):
        text = (
            f"{unit.id} ({unit.cls}): fighter factors lost in combat come back free at the end "
            f"of the combat phase (6E) if the unit is in supply; they are not bought "
            f"({fmt_ep(fighters2)} ordered). A replace order buys PFs and F-111 factors"
        )
        return [Violation(text, FREE_RULE)]
    orders = _replacement_order(unit, fighters2, order.pfs)
    problems = yard.check(state, empire, orders, yard.cut_off(state, unit))
    if problems:
        return problems
    carried2, carried_pfs = _carries(unit)
    done2 = yard.used(state, empire, f"fighters {unit.id}")
    done_pfs = yard.used(state, empire, f"pfs {unit.id}")
    if done2 + fighters2 > carried2:
        text = (
            f"{unit.id} ({unit.cls}) carries at most {fmt_ep(carried2)} F-111 factors: "
            f"{fmt_ep(done2)} replaced this turn, {fmt_ep(fighters2)} more ordered"
        )
        problems.append(Violation(text, F111_RULE))
    if done_pfs + order.pfs > carried_pfs:
        text = (
            f"{unit.id} ({unit.cls}) carries at most {carried_pfs} PFs: "
            f"{done_pfs} replaced this turn, {order.pfs} more ordered"
        )
        problems.append(Violation(text, production.PF_RULE))
    cost2 = replacement_price2(unit, fighters2, order.pfs)
    what = f"replacing {_replaced(unit, fighters2, order.pfs)} on {unit.cls} {unit.id}"
    rule = production.PF_RULE if order.pfs else F111_RULE
    return problems + yard.money(what, cost2, empire, state.ep2(empire), rule)


def apply_replace(
    state: FeState, seat: Seat, step: Step, order: ReplaceOrder, events: list[Event]
) -> FeState:
    """Pay for the PFs or F-111 factors and count them against what the unit carries."""
    unit = state.board.unit(order.unit)
    empire, before = unit.empire, state.ep2(unit.empire)
    fighters2 = ep2(order.fighters)
    cost2 = replacement_price2(unit, fighters2, order.pfs)
    after = before - cost2
    state = state.with_ep2(empire, after)
    state = yard.use(
        state, empire, (f"fighters {unit.id}", fighters2), (f"pfs {unit.id}", order.pfs)
    )
    rule = production.PF_RULE if order.pfs else F111_RULE
    events.append(
        Event(
            "replace",
            f"{empire} replaces {_replaced(unit, fighters2, order.pfs)} on {unit.cls} {unit.id} "
            f"for {fmt_ep(cost2)} EP ({yard.treasury_text(before, after)})",
            seat,
            step.id,
            {
                "empire": empire,
                "unit": unit.id,
                "fighters2": fighters2,
                "pfs": order.pfs,
                "cost2": cost2,
                "treasury2": after,
                "rule": rule,
            },
        )
    )
    return state


def _buyable(unit: Unit) -> bool:
    """Whether the unit carries something replacements are bought for (PFs, F-111s)."""
    fighters2, pfs = _carries(unit)
    return pfs > 0 or (fighters2 > 0 and f111_carrier(unit))


def replaceable(state: FeState) -> str:
    """Why nothing of the phasing side can buy replacements ("" when something might).

    Fighters are never bought (they come back free at 6E), so the step waits only for a
    unit in supply carrying PFs or F-111s of an empire with EP to pay.
    """
    empires = base.phasing_empires(state)
    paying = {e for e in empires if state.ep2(e) > 0}
    for forces in state.forces:  # the paying empires' units only (any one will do)
        if forces.empire not in paying:
            continue
        for unit in _buyers(forces.units):
            if unit.empire in paying and not yard.cut_off(state, unit):
                return ""
    return (
        f"fighters come back free at the end of the combat phase ({FREE_RULE}); "
        f"{', '.join(empires)}: no unit in supply carrying PFs or F-111s, or no EP to pay"
    )


def _units_text(units: Sequence[Unit]) -> str:
    shown = ", ".join(f"{u.cls} {u.id} in {base.hex_text(u.hex)}" for u in units[:NAMED])
    more = f" and {len(units) - NAMED} more" if len(units) > NAMED else ""
    return shown + more


def free_fighters(state: FeState, step: Step, events: list[Event]) -> None:
    """6E: every empire's units with fighters get their combat losses back free if in supply
    (530.12, 501.5); one event per empire that has such units on the map."""
    by_empire = {forces.empire: forces.units for forces in state.forces}
    for empire in base.all_empires(state):
        units = by_empire.get(empire, ())
        carriers = _fighter_carriers(units)
        if not carriers:
            continue
        # The carriers' sides are among the classes `_fighter_carriers` read (if held).
        classes = caches.peek(board_views.unit_classes, units)
        one_empire = classes is not None and all(e == empire for e, _, _ in classes)
        supplied, unsupplied = _by_supply(carriers, grid_of(state, empire), empire, one_empire)
        if not supplied and not unsupplied:
            continue
        count = len(supplied)
        text = (
            f"{empire}: fighter factors lost in combat come back free on its {count} "
            f"unit{'s' if count != 1 else ''} with fighters in supply ({FREE_RULE}, "
            f"{production.FIGHTER_RULE})"
        )
        if unsupplied:
            text += f"; out of supply, keeping their losses: {_units_text(unsupplied)}"
        events.append(
            Event(
                "fighters",
                text,
                base.seat_of(state, empire),
                step.id,
                {
                    "empire": empire,
                    "replaced": [u.id for u in supplied],
                    "unsupplied": [u.id for u in unsupplied],
                    "cost2": 0,
                    "rule": FREE_RULE,
                },
            )
        )


def _by_supply(
    carriers: tuple[Unit, ...], grid: SupplyGrid, empire: str, one_empire: bool = False
) -> tuple[tuple[Unit, ...], tuple[Unit, ...]]:
    """``empire``'s ``carriers`` (all on the map) in supply in ``grid`` and out of it, each in
    their order; another empire's units are in neither (as `status_of` reads them), and
    none is looked for when ``one_empire`` says the carriers are all ``empire``'s.

    The carriers' hexes not in the grid (main or partial) are found in C, not hex by hex
    (`SupplyGrid.status`), the hexes read by a comprehension (cheaper per unit than
    `attrgetter` in C on these structs): with none out of supply (the usual case) the
    carriers are the answer as they stand."""
    if not one_empire and not {u.empire for u in carriers} <= {empire}:
        carriers = tuple(u for u in carriers if u.empire == empire)
    # The hexes out of supply (`SupplyGrid.status` "none": in neither grid), told in C:
    # against the main grid's set when a supply check made it (`provinces.main_hexes`, kept
    # per grid), then the few left against the partial grids' hexes; else against both.
    hexes = {u.hex for u in carriers}
    main = caches.peek(main_hexes, grid)
    if main is None:
        out = hexes.difference(grid.main, grid.partial)
    else:
        out = hexes - main
        if out:
            out.difference_update(grid.partial)
    if not out:
        return carriers, ()
    return (
        tuple([u for u in carriers if u.hex not in out]),
        tuple([u for u in carriers if u.hex in out]),
    )


@caches.by_identity(maxsize=16)
def _fighter_carriers(units: tuple[Unit, ...]) -> tuple[Unit, ...]:
    """The units on the map that carry fighters, in their order, of one empire's units (by
    identity of its `FeState.forces` tuple, the same object while none of them changes):
    the check at 6E then reads the carriers only, not every unit of every empire."""
    # `_carries` reads the empire, class and side only: each distinct one is tried once
    # (`board_views.unit_classes`, carried over moves: an empire has a few dozen, however
    # many units), and the units of those that carry are picked out in one pass (`_picked`),
    # in their order; those off the map are left out.
    classes = board_views.unit_classes(units)
    # The classes of the tables are sorted out in C against the table's carriers
    # (`_table_carriers`); a reading the tables do not list (a captured ship's "KZI:CL") is
    # read one by one.
    listed, carriers = _table_carriers()
    carrying = set(classes & carriers)
    carrying.update(
        (empire, cls, crippled)
        for empire, cls, crippled in classes - listed
        if _carried(empire, cls, crippled)[0] != 0
    )
    return _picked(units, classes, carrying)


@caches.static
def _table_carriers() -> tuple[frozenset[tuple[str, str, bool]], frozenset[tuple[str, str, bool]]]:
    """Every (empire, class, crippled) reading of the unit tables, and those whose side
    shown carries fighters (`_carried`'s reading of each)."""
    listed = frozenset(
        (c.empire, c.id, crippled) for c in load_units().classes for crippled in (False, True)
    )
    return listed, frozenset(side for side in listed if _carried(*side)[0] != 0)


def _picked(
    units: tuple[Unit, ...],
    classes: frozenset[tuple[str, str, bool]],
    wanted: set[tuple[str, str, bool]],
) -> tuple[Unit, ...]:
    """The units on the map whose (empire, class, crippled) is ``wanted``, in their order;
    ``classes`` are all those found among ``units``. Picked out by a comprehension (cheaper
    per unit than `attrgetter` and `compress` in C on these structs), by the class name
    alone when no unwanted side shares a wanted name (as a rule), else by the whole key."""
    if not wanted:
        return ()
    names = set(map(_NAME, wanted))
    if names.isdisjoint(map(_NAME, classes - wanted)):  # no unwanted side of a wanted name
        return tuple([u for u in units if u.cls in names and u.hex != OFF_MAP])
    return tuple([u for u in units if (u.empire, u.cls, u.crippled) in wanted and u.hex != OFF_MAP])


@caches.by_identity(maxsize=16)
def _buyers(units: tuple[Unit, ...]) -> tuple[Unit, ...]:
    """The units on the map that carry something bought at 2B4 (`_buyable`), in their order,
    of one empire's units (by identity of its `FeState.forces` tuple, as
    `_fighter_carriers`): the step's skip test then reads only these, not the whole empire,
    each time a Shipyard phase reaches 2B4."""
    # Each class and side tried once, the units of those that buy picked out in one pass.
    # The classes come from the kinds of a freshly read board when held (a few hundred kinds,
    # however many units); else those of one empire's units are its class names on either
    # side (two passes over plain strings): `board_views.unit_classes` made from the units
    # would be a costlier pass.
    classes = None
    if caches.peek(board_views.kinds_of, units) is None:
        empires = {u.empire for u in units}
        if len(empires) == 1:
            (only,) = empires
            names = {u.cls for u in units}
            classes = frozenset((only, cls, side) for cls in names for side in (False, True))
    if classes is None:
        classes = board_views.unit_classes(units)
    # As `_fighter_carriers`: the table's buyers sorted out in C (`_table_buyers`), a reading
    # the tables do not list (a captured ship's) tried one by one.
    listed, buyers = _table_buyers(F111_CLASSES)
    buying = set(classes & buyers)
    buying.update(
        (empire, cls, crippled)
        for empire, cls, crippled in classes - listed
        if _buyable(Unit("", empire, cls, crippled=crippled))
    )
    return _picked(units, classes, buying)


@caches.derived(maxsize=2, shipped=True)
def _table_buyers(
    f111_classes: tuple[str, ...],
) -> tuple[frozenset[tuple[str, str, bool]], frozenset[tuple[str, str, bool]]]:
    """Every (empire, class, crippled) reading of the unit tables, and those of a unit that
    carries something bought at 2B4 (`_buyable` of each), while ``f111_classes`` (the
    caller's `F111_CLASSES`, which `_buyable` reads) are the F-111 carriers."""
    listed = _table_carriers()[0]
    return listed, frozenset(
        side for side in listed if _buyable(Unit("", side[0], side[1], crippled=side[2]))
    )


_NAME = itemgetter(1)
"""The class of an (empire, class, crippled) reading."""


class _Replacements(Area):
    """Step 6E: the free fighter replacement at the end of the combat phase."""

    name = "replacements"

    def automatic(self, state: FeState, step: Step, events: list[Event]) -> FeState:
        free_fighters(state, step, events)
        return state


AREA = _Replacements()
