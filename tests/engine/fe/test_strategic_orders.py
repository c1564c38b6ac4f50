"""A strategic order's check (204.0, 600.0, 509.1-C) judges the units of one order that are
alike but for their ids once (`engine.fe.steps.strategic`): here random orders of The Wind's
turn 2 (the Far Stars Fleet and the Baron's Fleet off the map, their tug and mobile base, the
armies on the map, units that moved strategically already) are checked both ways, and the
refusals must be the same, in the same order, word for word.
"""

from __future__ import annotations

import random
from functools import cache

import msgspec
import pytest

from engine.fe import RULESET, strategic
from engine.fe.forces import OFF_MAP, Unit
from engine.fe.model import FeState
from engine.fe.orders import StrategicOrder
from engine.fe.steps import base
from engine.fe.steps import strategic as strategic_step
from engine.fe.steps.supply import grid_of
from engine.fe.unit_kinds import movement_points
from tests.engine.fe.helpers import run_until, start
from tests.engine.fe.test_reinforcements import at

ORDERS = 40


@cache
def _at_8a(player_turn: int) -> FeState:
    """Strategic movement in turn 2; in the alliance's, the Baron's Fleet has a second mobile
    base, which its one tug cannot carry too."""
    state = run_until(start(), at(2, player_turn, "8A"))
    (mb,) = [u for u in state.board.units if u.fleet == "Baron's Fleet" and u.cls == "MB"]
    return state.with_units([msgspec.structs.replace(mb, id="KZI-9999")])


def _order(state: FeState, seat: str, rng: random.Random) -> tuple[FeState, StrategicOrder]:
    """A random strategic order of one of ``seat``'s empires: an off-map fleet arriving (all
    of it or some, its tug and mobile base among them) or the units of one of its nodes, to
    one of its nodes or its fleet's hexes (or a hex next to one), now and then with another
    of its units thrown in, or units like some of the order's but for their hex or fleet,
    from a state in which one of them moved strategically already."""
    board = state.board
    empires = base.empires_of(state, seat)
    free = [e for e in empires if any(owner == e for owner, _ in state.released)]
    empire = rng.choice(free if free and rng.random() < 0.8 else empires)
    mine = [u for u in board.units if u.empire == empire]
    links = strategic.nodes(grid_of(state, empire))
    setup = base.empire_setup(state, empire)
    fleets = {f.name: f.hexes for f in setup.fleets} if setup is not None else {}
    arriving = sorted({u.fleet for u in mine if u.hex == OFF_MAP and u.fleet})
    if arriving and rng.random() < 0.5:
        fleet = rng.choice(arriving)
        group = [u for u in mine if u.hex == OFF_MAP and u.fleet == fleet]
        targets = list(fleets.get(fleet, ())) or list(links)
    else:
        at_nodes = [u for u in mine if u.hex in links]
        movable = [u for u in at_nodes if board.is_released(u) and movement_points(u) > 0]
        pool = movable if movable and rng.random() < 0.8 else at_nodes
        h = rng.choice(pool).hex
        group = [u for u in pool if u.hex == h]
        targets = list(links)
    units = rng.sample(group, rng.randint(1, len(group))) if rng.random() < 0.3 else group
    if rng.random() < 0.25:
        units = [*units, rng.choice(mine)]
    # Units of a class of the order's, of the same fleet in another hex or of another fleet
    # in the same hex: alike but for one thing the checks read.
    near = {(u.cls, u.fleet) for u in units} | {(u.cls, u.hex) for u in units}
    others = [u for u in mine if u not in units and near & {(u.cls, u.fleet), (u.cls, u.hex)}]
    if others and rng.random() < 0.4:
        units = [*units, *rng.sample(others, min(len(others), rng.randint(1, 4)))]
    units = list(dict.fromkeys(units))
    moved = [rng.choice(units).id] if rng.random() < 0.15 else []
    state = msgspec.structs.replace(state, moved_once=tuple(sorted(moved)))
    to = rng.choice(targets)
    to = to + 1 if rng.random() < 0.15 else to
    return state, StrategicOrder([u.id for u in units], f"{to:04d}")


def _each_alone(unit: Unit, towed: bool) -> object:
    return unit.id  # no two units alike: every unit judged on its own


@pytest.mark.parametrize(("player_turn", "seat"), [(0, "coalition"), (1, "alliance")])
def test_like_units_judged_once_are_refused_as_each_judged_alone(
    player_turn: int, seat: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(player_turn)
    judged: list[str] = []
    check = strategic.check_strategic

    def counted(*args: object, **kwargs: object) -> object:
        judged.append("unit")
        return check(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(strategic, "check_strategic", counted)
    refused = alike = saved = 0
    for _ in range(ORDERS):
        state, order = _order(_at_8a(player_turn), seat, rng)
        judged.clear()
        grouped = RULESET.validate(state, seat, order)
        once = len(judged)
        with monkeypatch.context() as alone:
            alone.setattr(strategic_step, "_like", _each_alone)
            judged.clear()
            each = RULESET.validate(state, seat, order)
        assert grouped == each, order
        refused += bool(each)
        alike += once < len(judged)
        saved += len(judged) - once
    assert refused and refused < ORDERS, "the orders were all refused or all legal: a weak test"
    assert alike > ORDERS // 4 and saved > ORDERS, "like units were hardly ever judged once"


def test_units_alike_but_for_their_hex_or_fleet_are_judged_each(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A released ship at a node moves; its twin in a hex that is no node, and its twin in
    the same hex but of a fleet still held, are refused, each for its own reason."""
    state = _at_8a(0)
    board = state.board
    links = strategic.nodes(grid_of(state, "KLI"))
    unit = next(
        u
        for u in board.units
        if u.empire == "KLI" and u.hex in links and u.fleet and board.is_released(u)
        if movement_points(u) > 0
    )
    setup = base.empire_setup(state, "KLI")
    assert setup is not None
    held = next(f.name for f in setup.fleets if ("KLI", f.name) not in state.released)
    away = next(h for h in sorted(links) if h + 1 not in links) + 1
    twins = [
        msgspec.structs.replace(unit, id="KLI-9001", hex=away),
        msgspec.structs.replace(unit, id="KLI-9002", fleet=held),
    ]
    state = state.with_units(twins)
    to = next(h for h in sorted(links) if h != unit.hex)
    order = StrategicOrder([unit.id, "KLI-9001", "KLI-9002"], f"{to:04d}")
    grouped = RULESET.validate(state, "coalition", order)
    monkeypatch.setattr(strategic_step, "_like", _each_alone)
    assert grouped == RULESET.validate(state, "coalition", order)
    refused = " ".join(v.message for v in grouped)
    assert f"KLI-9001 is in {away:04d}, which is no KLI" in refused
    assert f"KLI-9002 ({unit.cls}) belongs to {held}, which is not released" in refused
    assert unit.id not in refused
