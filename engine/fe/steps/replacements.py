"""Step 2B4: replacing fighters and PFs on the units that carry them, one order at a time.

The pure production check (`engine.fe.production`) judges the order itself: the unit is in
supply and carries at least that many fighters (501.5) or PFs (502.43); money is checked
against the real treasury by `engine.fe.steps.yard`. A unit takes no more
replacements in a turn than it carries, counted over the whole turn in the phase's tally
(inferred: the board does not record lost fighters, so this is the most the engine can check).

The step passes by itself (`replaceable`) when no unit of the phasing side carries fighters
or PFs, or the treasury is empty. Since lost fighters are not recorded, any carrier on the
map might want some, and the step then waits for the player.
"""

from __future__ import annotations

from engine.core.ruleset import Event, Seat, Violation
from engine.fe import model, production
from engine.fe.economics import fmt_ep, replacement_cost2
from engine.fe.forces import OFF_MAP, Unit
from engine.fe.model import FeState, ReplaceOrder
from engine.fe.sequence import Step
from engine.fe.steps import base, yard


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
    unit = yard.own_unit(state, seat, order.unit, production.FIGHTER_RULE)
    if isinstance(unit, list):
        return unit
    fighters2, empire = model.ep2(order.fighters), unit.empire
    orders = _replacement_order(unit, fighters2, order.pfs)
    problems = yard.check(state, empire, orders, yard.cut_off(state, unit))
    if problems:
        return problems
    carried2, carried_pfs = _carries(unit)
    done2 = yard.used(state, empire, f"fighters {unit.id}")
    done_pfs = yard.used(state, empire, f"pfs {unit.id}")
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
    return problems + yard.money(what, cost2, empire, state.ep2(empire), production.FIGHTER_RULE)


def apply_replace(
    state: FeState, seat: Seat, step: Step, order: ReplaceOrder, events: list[Event]
) -> FeState:
    """Pay for the replacements and count them against what the unit carries."""
    unit = state.board.unit(order.unit)
    empire, before = unit.empire, state.ep2(unit.empire)
    fighters2 = model.ep2(order.fighters)
    orders = _replacement_order(unit, fighters2, order.pfs)
    made = yard.produce(state, empire, orders, yard.cut_off(state, unit))
    state = state.with_ep2(empire, made.treasury2)
    state = yard.use(
        state, empire, (f"fighters {unit.id}", fighters2), (f"pfs {unit.id}", order.pfs)
    )
    events.append(
        Event(
            "replace",
            f"{empire} replaces {_replaced(fighters2, order.pfs)} on {unit.cls} {unit.id} "
            f"for {fmt_ep(made.cost2)} EP ({yard.treasury_text(before, made.treasury2)})",
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


def replaceable(state: FeState) -> str:
    """Why nothing of the phasing side can take replacements ("" when something might).

    The board does not record lost fighters, so any carrier on the map might lack some.
    """
    empires = base.phasing_empires(state)
    paying = {e for e in empires if state.ep2(e) > 0}
    for unit in state.board.units:
        if unit.empire in paying and unit.hex != OFF_MAP and any(_carries(unit)):
            return ""
    return f"{', '.join(empires)}: no unit carrying fighters or PFs, or no EP to pay"
