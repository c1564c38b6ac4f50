"""The face's menus offer exactly the orders the engine accepts now (`engine.fe.menus`).

A menu that offers a line the engine refuses sends the player round a refusal; one that
leaves out a line the engine would take hides a move. At every state of two wandering
random campaigns (`tests.engine.fe_random_campaign`) where a seat owes a step that takes
captures, declarations of war, retreats, repairs or supply missions, each menu is compared
with every candidate the engine validates: all pairs of units in the battle hex for a
capture, every empire for a declaration, every hex within two of the battle for a retreat,
every unit of the seat for a repair or a mission.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from engine.core import hexgrid
from engine.core.face import Choice
from engine.core.owed import pending
from engine.core.ruleset import DecisionKind
from engine.fe import FACE, RULESET
from engine.fe.galaxy import load_galaxy
from engine.fe.model import FeState
from engine.fe.orders import CaptureOrder, DeclareWar, MissionOrder, RepairOrder, RetreatOrder
from engine.fe.steps import base, combat
from tests.engine.fe_random_campaign import play_random_campaign

GAMES = ((9, 3), (17, 3))
"""The wandering games (seed, turns) whose states are read."""


def _legal(state: FeState, seat: str, order: Any) -> bool:
    return not RULESET.validate(state, seat, order)


def _choice(state: FeState, seat: str, order: str) -> Choice:
    (choice,) = [c for c in FACE.choices(state, seat) if c.order == order]
    return choice


def _options(choice: Choice, param: str) -> tuple[str, ...]:
    (found,) = [p for p in choice.params if p.name == param]
    return found.options


def _capture(state: FeState, seat: str) -> tuple[list[Any], list[Any]]:
    record = combat.current(state)
    assert record is not None
    here = [u.id for u in state.board.at(record.hex)]
    legal = [(a, b) for a in here for b in here if _legal(state, seat, CaptureOrder(a, b))]
    offered = [tuple(dict(p.values)[k] for k in ("unit", "by")) for p in _presets(state, seat)]
    return offered, legal


def _presets(state: FeState, seat: str) -> tuple[Any, ...]:
    return _choice(state, seat, "capture").presets


def _declare(state: FeState, seat: str) -> tuple[list[Any], list[Any]]:
    empires = base.all_empires(state)
    legal = [
        (enemy, empire)
        for empire in base.empires_of(state, seat)
        for enemy in empires
        if _legal(state, seat, DeclareWar(enemy, empire))
    ]
    presets = _choice(state, seat, "declare").presets
    offered = [(dict(p.values)["enemy"], dict(p.values)["empire"]) for p in presets]
    return offered, legal


def _retreat(state: FeState, seat: str) -> tuple[list[Any], list[Any]]:
    record = combat.current(state)
    assert record is not None
    galaxy = load_galaxy()
    near = hexgrid.within(record.hex, 2, galaxy.width, galaxy.height)
    legal = [base.hex_text(h) for h in near if _legal(state, seat, RetreatOrder(base.hex_text(h)))]
    offered = list(_options(_choice(state, seat, "retreat"), "to"))
    return offered, legal


def _repair(state: FeState, seat: str) -> tuple[list[Any], list[Any]]:
    mine = base.empires_of(state, seat)
    units = [u.id for u in state.board.units if u.empire in mine]
    legal = [uid for uid in units if _legal(state, seat, RepairOrder(uid))]
    return list(_options(_choice(state, seat, "repair"), "unit")), legal


def _mission(state: FeState, seat: str) -> tuple[list[Any], list[Any]]:
    mine = base.empires_of(state, seat)
    units = [u.id for u in state.board.units if u.empire in mine]
    legal = [
        uid
        for uid in units
        if any(_legal(state, seat, MissionOrder(uid, m)) for m in ("supply", "none"))
    ]
    choice = _choice(state, seat, "mission")
    assert _options(choice, "mission") == ("supply", "none")
    return list(_options(choice, "unit")), legal


MENUS: dict[str, Callable[[FeState, str], tuple[list[Any], list[Any]]]] = {
    "capture": _capture,
    "declare": _declare,
    "retreat": _retreat,
    "repair": _repair,
    "mission": _mission,
}


def menu_states() -> Iterator[tuple[FeState, str, str]]:
    """Each state of the games where a seat owes a step taking one of `MENUS`' orders, once
    per step, turn and seat (the state it first waited there)."""
    seen: set[tuple[int, str, str, int]] = set()
    for seed, turns in GAMES:
        for result in play_random_campaign(seed, turns, wander=True).results:
            state = result.state
            if state.rules is None or state.rules.setup:
                continue
            decision = pending(RULESET, state)[0]
            key = (seed, decision.seats[0], decision.step, state.rules.turn)
            if decision.kind != DecisionKind.ORDERS or key in seen:
                continue
            seen.add(key)
            for choice in FACE.choices(state.rules, decision.seats[0]):
                if choice.order in MENUS:
                    yield state.rules, decision.seats[0], choice.order


@pytest.fixture(scope="module")
def compared() -> dict[str, list[tuple[list[Any], list[Any]]]]:
    out: dict[str, list[tuple[list[Any], list[Any]]]] = {order: [] for order in MENUS}
    for state, seat, order in menu_states():
        out[order].append(MENUS[order](state, seat))
    return out


@pytest.mark.parametrize("order", list(MENUS))
def test_a_menu_offers_what_the_engine_takes_and_nothing_else(
    compared: dict[str, list[tuple[list[Any], list[Any]]]], order: str
) -> None:
    pairs = compared[order]
    assert pairs, f"the games never waited at a step taking {order}"
    assert any(legal for _, legal in pairs), f"no {order} was ever legal: nothing compared"
    for offered, legal in pairs:
        assert sorted(offered) == sorted(legal)
        assert len(set(offered)) == len(offered)
