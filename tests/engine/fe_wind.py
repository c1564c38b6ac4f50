"""The Wind, set up and played for two full player turns through the real protocol core.

Golden game `tests/golden/fe_wind.msgpack` (`tests.golden.regen`) and `bench/turn.py` are
built from it. Every order is one a player could send: the script picks each from the board
(which fleets stand where after the default set-up) and asserts the engine accepts it, so a
rules change that makes one of them illegal fails loudly here instead of silently changing
the golden chain.

Turn 1, coalition: income, a Lyran and a Klingon build, the Lyran Red Claw Fleet moves on the
Kzinti Count's Fleet in one batch (the Kzinti get a reaction window), the Lyran Home Fleet
moves in a second, the battle's secret steps are committed and revealed, each side records a
loss with a typed adjustment, a Klingon strategic move, and a Lyran reserve fleet.
Turn 1, alliance: income, a Kzinti build, the Duke's Fleet moves toward the Lyrans, and the
rest of the turn is walked with plain ``done`` and secret choices.
"""

from __future__ import annotations

from typing import Any

from engine.core import hexgrid
from engine.core.owed import pending
from engine.core.ruleset import DecisionKind
from engine.core.turn_orders import Done
from engine.fe import RULESET
from engine.fe.forces import Unit
from engine.fe.galaxy import HexId, load_galaxy
from engine.fe.model import FeState
from engine.fe.orders import Adjust, Batch, BuildOrder, MoveOrder, ReserveOrder, StrategicOrder
from engine.fe.steps import base
from engine.fe.steps.supply import grid_of
from engine.fe.strategic import nodes
from tests.engine.fe_play import battle_step, plain_run, secret_choice, set_up
from tests.engine.table import Table

SEATS = ["coalition", "alliance"]


def rules(table: Table) -> FeState:
    assert table.state is not None and table.state.rules is not None
    state: FeState = table.state.rules
    return state


def owed_step(table: Table) -> tuple[str, str, DecisionKind]:
    assert table.state is not None
    decision = pending(RULESET, table.state)[0]
    return decision.seats[0], decision.step, decision.kind


def walk_to(table: Table, target: str) -> None:
    """Every seat completes its steps (``done``, secret choices, entropy) until ``target``."""
    for _ in range(10_000):
        seat, step, kind = owed_step(table)
        if step == target and kind in (DecisionKind.ORDERS, DecisionKind.SECRET):
            return
        if kind == DecisionKind.SECRET:
            table.commit(seat, secret_choice(table, seat, step, f"{seat}: battle plan for {step}"))
        elif kind == DecisionKind.REVEAL:
            table.reveal(seat)
        elif kind == DecisionKind.ENTROPY:
            table.entropy_only(seat)
        elif not battle_step(table, seat, step):
            count = plain_run(rules(table), seat, target)
            assert count, f"{seat} is stuck at {step} on the way to {target}"
            table.orders(seat, *[Done() for _ in range(count)])
    raise AssertionError(f"never reached {target}")


def legal(table: Table, seat: str, order: Any) -> bool:
    return not RULESET.validate(rules(table), seat, order)


def first_legal(table: Table, seat: str, candidates: list[Any]) -> Any:
    for order in candidates:
        if legal(table, seat, order):
            return order
    reasons = [RULESET.validate(rules(table), seat, c) for c in candidates[:3]]
    raise AssertionError(f"no legal order among {len(candidates)}: {reasons}")


def units_at(table: Table, empire: str, fleet: str) -> list[Unit]:
    return [u for u in rules(table).board.units if u.empire == empire and u.fleet == fleet]


def hexes(path: tuple[HexId, ...]) -> list[str]:
    return [f"{h:04d}" for h in path]


def march(table: Table, seat: str, units: list[Unit], target: HexId) -> MoveOrder:
    """A legal move of ``units`` toward ``target``: the shortest path, cut back until the
    engine accepts it (allowance, pinning, closed space)."""
    galaxy = load_galaxy()
    start = units[0].hex
    route = hexgrid.path(start, target, galaxy.width, galaxy.height)
    assert route is not None
    ids = [u.id for u in units]
    candidates = [MoveOrder(ids, hexes(route[:end])) for end in range(len(route), 1, -1)]
    order: MoveOrder = first_legal(table, seat, candidates)
    return order


def build(table: Table, empire: str) -> BuildOrder:
    """The cheapest-looking scheduled build at the empire's capital the engine accepts."""
    capital = f"{_capital(empire):04d}"
    for cls in ("FF", "F5", "DD", "CL", "E4", "D5", "CW", "DW"):
        order = BuildOrder(cls=cls, hex=capital, empire=empire)
        if legal(table, base.seat_of(rules(table), empire), order):
            return order
    raise AssertionError(f"{empire} can build nothing at {capital}")


def _capital(empire: str) -> HexId:
    from engine.fe.conversions import primary_capital

    capital = primary_capital(load_galaxy(), empire)
    assert capital is not None
    return capital


def strategic(table: Table, empire: str) -> StrategicOrder:
    """One unit of ``empire`` moved to the first strategic node the engine accepts."""
    state = rules(table)
    grid = grid_of(state, empire)
    unit = next(
        u for u in state.board.units if u.empire == empire and not u.fleet and u.info().move > 0
    )
    candidates = [
        StrategicOrder([unit.id], f"{h:04d}") for h in sorted(nodes(grid)) if h != unit.hex
    ]
    order: StrategicOrder = first_legal(table, "coalition", candidates)
    return order


def play_wind_turns() -> Table:
    table = Table(RULESET, "the-wind", SEATS, label="fe-wind")
    set_up(table)

    # --- turn 1, coalition player turn -------------------------------------------------------
    walk_to(table, "2B3")
    table.orders("coalition", build(table, "LYR"), build(table, "KLI"), Done())
    walk_to(table, "3B2")
    red_claw = units_at(table, "LYR", "Red Claw Fleet")[:6]
    count_fleet = units_at(table, "KZI", "Count's Fleet")
    first = march(table, "coalition", red_claw, count_fleet[0].hex)
    table.orders("coalition", first, Batch())
    seat, step, _ = owed_step(table)
    if (seat, step) == ("alliance", "3B3"):
        table.orders("alliance", Done())
    home = units_at(table, "LYR", "Home Fleet")[:4]
    second = march(table, "coalition", home, count_fleet[0].hex)
    table.orders("coalition", second, Done())
    # The round's losses typed by hand at 5-5A, which both sides answer (the defender first):
    # the directed damage steps after it pass when the round's points buy nothing (302.5).
    walk_to(table, "5-5A")
    battle = next(h for h in (first.path[-1], second.path[-1]))
    kzinti = next(u for u in rules(table).board.at(int(battle)) if u.empire == "KZI")
    table.orders(
        "alliance",
        Adjust(change="destroy", unit=kzinti.id, reason=f"combat at {battle}: round 1"),
        Done(),
    )
    loser = next(u for u in rules(table).board.at(int(battle)) if u.empire == "LYR")
    table.orders(
        "coalition",
        Adjust(change="cripple", unit=loser.id, reason=f"combat at {battle}: round 1"),
        Done(),
    )
    walk_to(table, "8A")
    table.orders("coalition", strategic(table, "KLI"), Done())
    walk_to(table, "9A")
    reserve = units_at(table, "LYR", "Home Fleet")[4:]
    candidates = [ReserveOrder([u.id for u in reserve[:size]]) for size in range(6, 0, -1)]
    table.orders("coalition", first_legal(table, "coalition", candidates), Done())

    # --- turn 1, alliance player turn -------------------------------------------------------
    walk_to(table, "2B3")
    table.orders("alliance", build(table, "KZI"), Done())
    walk_to(table, "3B2")
    duke = units_at(table, "KZI", "Duke's Fleet")[:5]
    table.orders("alliance", march(table, "alliance", duke, red_claw[0].hex), Done())
    walk_to(table, "1A1")  # turn 2, coalition: both player turns of turn 1 are over
    return table
