"""The Wind played as a campaign, set-up to the end of turn 6, through the real protocol core.

Golden game `tests/golden/fe_campaign.msgpack` and its ledger (`tests.golden.ledger`) are
built from it; `tests/engine/fe/test_campaign.py` checks the ledger's figures against numbers
worked out by hand. Every order is one a player could send and the script asserts the engine
accepts it (`first_legal`), so a rules change that makes one illegal fails here loudly.

Each player turn, for every empire of the phasing seat:

- 2B3: it builds from the schedule in force (431.0): the slots in the schedule's own order,
  each as often as the schedule allows and the treasury pays, keeping back 1 EP for each
  off-map unit of a fleet due to arrive that its free strategic moves do not cover (204.0).
  Every empire with a schedule builds at least one unit (the script fails otherwise).
- Phase 3: on turn 1 the coalition repeats The Wind's opening (`tests.engine.fe_wind`: the
  Lyran Red Claw Fleet moves on the Kzinti Count's Fleet, which puts a Lyran unit in Kzinti
  space and so fires the Federation's limited-war entry, 601.0); on every player turn up to
  four units at each empire's capital that belong to no fleet (what it has built) march toward
  an enemy capital (`FRONT`), as far as the engine lets them.
- 8A: an off-map fleet due by now (the Lyran Far Stars Fleet, the Kzinti Baron's Fleet, both
  Spring Y169) comes onto the map by strategic movement: the whole fleet in one order if the
  engine accepts it (the Baron's tug carrying its mobile base, 509.1-C), else as many of the
  units that move by themselves as it accepts (the rest come in later turns).
- Everything else is walked with ``done`` and secret choices, as in `tests.engine.fe_wind`.
"""

from __future__ import annotations

from typing import Any

from engine.core.ruleset import DecisionKind
from engine.core.turn_orders import Done
from engine.fe import RULESET
from engine.fe.forces import OFF_MAP, Unit
from engine.fe.galaxy import load_galaxy
from engine.fe.model import FeState
from engine.fe.oob import date_turn
from engine.fe.orders import Batch, BuildOrder, StrategicOrder
from engine.fe.production import scheduled
from engine.fe.steps import base
from engine.fe.strategic import free_moves
from engine.fe.units import load_units
from tests.engine.fe_play import battle_step, plain_run, secret_choice, set_up
from tests.engine.fe_wind import (
    SEATS,
    _capital,
    first_legal,
    march,
    owed_step,
    rules,
    units_at,
    walk_to,
)
from tests.engine.table import Table

LAST_TURN = 6
FRONT = {"LYR": "KZI", "KLI": "KZI", "KZI": "LYR", "HYD": "LYR", "FED": "KLI"}
"""Toward whose capital each empire's new units march (a fixed choice of the script)."""


def _apply(state: FeState, seat: str, order: Any) -> FeState | None:
    """``state`` after ``order`` if the engine accepts it, else None."""
    if RULESET.validate(state, seat, order):
        return None
    applied = RULESET.apply(state, seat, order)
    result: FeState = applied.state
    return result


def arrivals_waiting(state: FeState, empire: str) -> list[Unit]:
    """Off-map units of ``empire`` whose fleet arrives by strategic movement by this turn."""
    setup = base.empire_setup(state, empire)
    if setup is None:
        return []
    due = {
        f.name for f in setup.fleets if f.arrives is not None and date_turn(f.arrives) <= state.turn
    }
    return [
        u for u in state.board.units if u.empire == empire and u.hex == OFF_MAP and u.fleet in due
    ]


def builds(table: Table, seat: str) -> list[BuildOrder]:
    """The seat's build orders this turn (see the module notes), checked one after another."""
    state = rules(table)
    orders: list[BuildOrder] = []
    for empire in base.empires_of(state, seat):
        setup = base.empire_setup(state, empire)
        slots = scheduled(setup.production, state.turn) if setup is not None else {}
        if not slots:
            continue
        waiting = len(arrivals_waiting(state, empire))
        keep2 = 2 * max(0, waiting - free_moves(load_galaxy(), empire))
        capital = f"{_capital(empire):04d}"
        made = 0
        for slot, count in slots.items():
            for _ in range(count):
                for order in _slot_orders(empire, slot, capital):
                    after = _apply(state, seat, order)
                    if after is not None and after.ep2(empire) >= keep2:
                        state = after
                        orders.append(order)
                        made += 1
                        break
        assert made, f"{empire} builds nothing on turn {state.turn} from {slots}"
    return orders


def _slot_orders(empire: str, slot: str, capital: str) -> list[BuildOrder]:
    """Ways to fill one schedule slot: the class itself, or for a slot that names a hull
    (the Hydran CC), each class the unit tables let fill it, in table order (450.4)."""
    if load_units().find(empire, slot) is not None:
        return [BuildOrder(cls=slot, hex=capital, empire=empire)]
    return [
        BuildOrder(cls=c.id, hex=capital, instead_of=slot, empire=empire)
        for c in load_units().empire_classes(empire)
        if any(slot in sub.instead_of for sub in c.substitutions)
    ]


def advance(table: Table, seat: str) -> list[Any]:
    """Up to four unfleeted units (new builds) at each capital of ``seat``'s empires march
    toward an enemy capital."""
    state = rules(table)
    orders: list[Any] = []
    for empire in base.empires_of(state, seat):
        capital = _capital(empire)
        fresh = [
            u
            for u in state.board.at(capital)
            if u.empire == empire and not u.fleet and u.info().move > 0
        ]
        if not fresh:
            continue
        order = march(table, seat, fresh[:4], _capital(FRONT[empire]))
        orders.append(order)
        after = _apply(state, seat, order)
        assert after is not None
        state = after
    return orders


def arrive(table: Table, seat: str) -> list[StrategicOrder]:
    """Off-map fleets due by now move onto the map: as many units as one order may take."""
    state = rules(table)
    orders: list[StrategicOrder] = []
    for empire in base.empires_of(state, seat):
        waiting = arrivals_waiting(state, empire)
        if not waiting:
            continue
        setup = base.empire_setup(state, empire)
        assert setup is not None
        fleet = setup.fleet(waiting[0].fleet)
        assert fleet is not None
        targets = list(fleet.hexes) or [_capital(empire)]
        whole = [u.id for u in waiting if u.fleet == fleet.name]
        alone = [
            i
            for i in whole
            if any(_apply(state, seat, StrategicOrder([i], f"{to:04d}")) for to in targets)
        ]
        # the whole fleet first (a tug carries a mobile base only in the same order,
        # 509.1-C), then fewer of the units that may move by themselves
        sizes = [whole] + [alone[:size] for size in range(len(alone), 0, -1)]
        candidates = [StrategicOrder(ids, f"{to:04d}") for ids in sizes if ids for to in targets]
        if not candidates:
            continue
        order: StrategicOrder = first_legal(table, seat, candidates)
        after = _apply(state, seat, order)
        assert after is not None
        state = after
        orders.append(order)
    return orders


def opening(table: Table) -> None:
    """Turn 1, coalition: the Red Claw Fleet moves on the Kzinti Count's Fleet (as in
    `tests.engine.fe_wind`), the Kzinti may react, and the new units march."""
    red_claw = units_at(table, "LYR", "Red Claw Fleet")[:6]
    count_fleet = units_at(table, "KZI", "Count's Fleet")
    table.orders("coalition", march(table, "coalition", red_claw, count_fleet[0].hex), Batch())
    seat, step, _ = owed_step(table)
    if (seat, step) == ("alliance", "3B3"):
        table.orders("alliance", Done())


def player_turn(table: Table, seat: str) -> None:
    """One player turn of ``seat``: builds, movement, arrivals; the rest walked."""
    walk_to(table, "2B3")
    table.orders(seat, *builds(table, seat), Done())
    walk_to(table, "3B2")
    if rules(table).turn == 1 and seat == "coalition":
        opening(table)
    table.orders(seat, *advance(table, seat), Done())
    walk_to(table, "8A")
    table.orders(seat, *arrive(table, seat), Done())


def play_campaign() -> Table:
    """The whole campaign: set-up, turns 1 to 6 (both player turns each), the scenario's end."""
    table = Table(RULESET, "the-wind", SEATS, label="fe-campaign")
    set_up(table)
    for turn in range(1, LAST_TURN + 1):
        for seat in SEATS:
            player_turn(table, seat)
            assert rules(table).turn == turn
    finish(table)
    return table


def finish(table: Table) -> None:
    """Walk the rest of turn 6, as `walk_to` walks, until the scenario is over."""
    for _ in range(10_000):
        if rules(table).over:
            return
        seat, step, kind = owed_step(table)
        if kind == DecisionKind.SECRET:
            table.commit(seat, secret_choice(table, seat, step, f"{seat}: battle plan for {step}"))
        elif kind == DecisionKind.REVEAL:
            table.reveal(seat)
        elif kind == DecisionKind.ENTROPY:
            table.entropy_only(seat)
        elif not battle_step(table, seat, step):
            count = plain_run(rules(table), seat)
            assert count, f"{seat} is stuck at {step}"
            table.orders(seat, *[Done() for _ in range(count)])
    raise AssertionError("the scenario never ended")
