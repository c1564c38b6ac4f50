"""The face's menus offer exactly the orders the engine accepts now (`engine.fe.menus`).

A menu that offers a line the engine refuses sends the player round a refusal; one that
leaves out a line the engine would take hides a move. At every state of two wandering
random campaigns (`tests.engine.fe_random_campaign`) where a seat owes a step that takes
captures, declarations of war, retreats, repairs or supply missions, each menu is compared
with every candidate the engine validates: all pairs of units in the battle hex for a
capture, every empire for a declaration, every hex within two of the battle for a retreat,
every unit of the seat for a repair or a mission.

Where a seat owes a strategic move, a retrograde or a withdrawal, the destinations the face
lists for some of its stacks (`engine.fe.menus.destinations`) are compared with every hex of
the map the engine accepts for that stack.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from engine.core import hexgrid
from engine.core.face import Choice, Reach
from engine.core.owed import pending
from engine.core.ruleset import DecisionKind
from engine.fe import FACE, RULESET
from engine.fe.combat import forces
from engine.fe.destinations import DESTINATION_ORDERS, destinations
from engine.fe.forces import OFF_MAP
from engine.fe.galaxy import load_galaxy
from engine.fe.model import FeState
from engine.fe.opening import WithdrawOrder
from engine.fe.orders import (
    CaptureOrder,
    DeclareWar,
    MissionOrder,
    MoveOrder,
    Place,
    React,
    RepairOrder,
    RetreatOrder,
    RetrogradeOrder,
    StrategicOrder,
)
from engine.fe.steps import base, combat, combat_approach
from engine.fe.steps import strategic as strategic_step
from engine.fe.steps.retrograde import could_retrograde
from engine.fe.unit_kinds import movement_points
from tests.engine.fe.helpers import at_step, run_until, start
from tests.engine.fe_random_campaign import play_random_campaign

MOVES = tuple(o for o in DESTINATION_ORDERS if o not in ("place", "move", "react"))
"""The orders whose destinations follow their units; a set-up placement's are compared in
`test_a_fleet_s_set_up_hexes_are_those_the_engine_takes`."""

GAMES = ((9, 3), (24, 3))
"""The wandering games (seed, turns) whose states are read: between them every order is legal
somewhere (a rules change that makes a choice the engine's changes the course of every random
game: from fe 5.10, whose joined battle-force choice changed the packets, seed 24's gives
``react`` and ``repair``, which seed 26's gave in 5.9)."""


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
                if choice.order in MENUS or choice.order in (*MOVES, "move", "react"):
                    yield state.rules, decision.seats[0], choice.order


def _stacks(state: FeState, seat: str, order: str) -> list[tuple[str, ...]]:
    """Up to four of ``seat``'s stacks (its units that may move, by empire and hex) that
    ``order`` could move: spread over the board, not only its first corner."""
    record = combat.current(state)
    mine = base.empires_of(state, seat)
    stacks: dict[tuple[str, int], list[str]] = {}
    for unit in state.board.units:
        if unit.empire not in mine or movement_points(unit) <= 0:
            continue
        if order == "withdraw" and (record is None or unit.hex != record.hex):
            continue
        if order != "strategic" and unit.hex == OFF_MAP:  # (only 8A brings them on)
            continue
        if order == "retrograde" and not could_retrograde(state, unit):
            continue
        stacks.setdefault((unit.empire, unit.hex), []).append(unit.id)
    found = [tuple(ids) for _, ids in sorted(stacks.items())]
    return found[:: max(1, len(found) // 4)][:4]


def _destinations(state: FeState, seat: str, order: str) -> list[tuple[list[Any], list[Any]]]:
    galaxy = load_galaxy()
    every = [
        base.hex_text(col * 100 + row)
        for col in range(1, galaxy.width + 1)
        for row in range(1, galaxy.height + 1)
    ]
    out: list[tuple[list[Any], list[Any]]] = []
    for units in _stacks(state, seat, order):
        ids = list(units)
        if order == "withdraw":
            record = combat.current(state)
            assert record is not None
            staying = combat_approach.units_of(state, seat, record.hex)
            named = [u for u in staying if u.id not in units]
            flagship = next(iter(forces.eligible_flagships(named)), "")
            tries: list[Any] = [WithdrawOrder(ids, to, flagship) for to in every]
        elif order == "strategic":
            tries = [StrategicOrder(ids, to) for to in every]
        else:
            tries = [RetrogradeOrder(ids, to) for to in every]
        legal, reasons = _judged(state, seat, tries, lambda o: o.to)
        reach = destinations(state, seat, order, units)
        assert FACE.destinations(state, seat, order, units) == reach
        assert reach is not None
        if order == "withdraw":  # the flagship the hexes assume is handed back to fill
            assert reach.fills == ((("flagship", flagship),) if flagship else ())
        else:
            assert reach.fills == ()
        if order == "strategic":  # the moves left free and the price of the next (204.0)
            empire = state.board.unit(units[0]).empire
            free = strategic_step.free_left(state, empire)
            assert reach.note.startswith(f"{empire}: {free} free strategic move")
        else:
            assert reach.note == ""
        out.append((_hexes(reach, reasons), legal))
    return out


def _judged(
    state: FeState, seat: str, tries: list[Any], hex_of: Callable[[Any], str]
) -> tuple[list[str], set[str]]:
    """The hexes of ``tries`` the engine accepts, and the first reason it gives for each
    one it refuses (as `Reach.why` words it)."""
    legal: list[str] = []
    reasons: set[str] = set()
    for order in tries:
        problems = RULESET.validate(state, seat, order)
        if not problems:
            legal.append(hex_of(order))
        else:
            said = problems[0]
            reasons.add(f"{said.message} ({said.rule})" if said.rule else said.message)
    return legal, reasons


def _hexes(reach: Reach | None, reasons: set[str]) -> list[str]:
    """The hexes of ``reach``, checking that it says why exactly when there are none: one
    of the engine's own reasons for a hex it refused."""
    assert reach is not None
    if reach.hexes:
        assert reach.why == ""
    else:
        assert reach.why in reasons, (reach.why, sorted(reasons)[:5])
    return list(reach.hexes)


def _movement_left_agrees(reach: Reach, path: tuple[str, ...]) -> None:
    """The note's hexes of movement left agree with the marks: none left, no mark; a mark,
    some left; an allowance refusal, none left."""
    count, _, rest = reach.note.partition(" ")
    left = int(count)
    hexes = "hex" if left == 1 else "hexes"
    said = f"{hexes} of movement left past {path[-1]}"
    assert rest == said or (rest.startswith(f"{said} (") and rest.endswith(" is the slowest)"))
    assert left > 0 or not reach.hexes, (reach, path)
    assert "allowance" not in reach.why or left == 0, (reach, path)


def _paths(state: FeState, seat: str) -> list[tuple[list[Any], list[Any]]]:
    """For two of the seat's stacks that may move, a path drawn hex by hex (each time to the
    first hex offered, up to eight): at each length the hexes offered to end it one further,
    against every hex within two of its end that the engine accepts there."""
    galaxy = load_galaxy()
    out: list[tuple[list[Any], list[Any]]] = []
    for units in _stacks(state, seat, "move")[:2]:
        path: tuple[str, ...] = (base.hex_text(state.board.unit(units[0]).hex),)
        for _ in range(8):
            near = hexgrid.within(int(path[-1]), 2, galaxy.width, galaxy.height)
            tries = [MoveOrder(list(units), [*path, base.hex_text(h)]) for h in near]
            legal, reasons = _judged(state, seat, tries, lambda o: o.path[-1])
            reach = destinations(state, seat, "move", units, path)
            offered = _hexes(reach, reasons)
            out.append((offered, sorted(legal)))
            assert reach is not None
            _movement_left_agrees(reach, path)
            if not offered:
                break
            path = (*path, offered[0])
    return out


def _reactions(state: FeState, seat: str) -> list[tuple[list[Any], list[Any]]]:
    """For each stack of the seat's units (up to four), a reaction path drawn hex by hex
    (to the first hex offered, up to three): the hexes offered one further, against every
    hex within two of its end that the engine accepts with any trigger within three hexes of
    the stack or entered in the batch; and the trigger handed back for the path as drawn makes
    a legal reaction."""
    galaxy = load_galaxy()
    out: list[tuple[list[Any], list[Any]]] = []
    for units in _stacks(state, seat, "react"):
        start = state.board.unit(units[0]).hex
        near_start = hexgrid.within(start, 3, galaxy.width, galaxy.height)
        entered = {to for _, to in state.batch}  # (any other hex is refused as a trigger)
        triggers = [base.hex_text(h) for h in sorted({*near_start, *entered})]
        path: tuple[str, ...] = (base.hex_text(start),)
        for _ in range(3):
            near = hexgrid.within(int(path[-1]), 2, galaxy.width, galaxy.height)
            tries = [
                React(list(units), [*path, base.hex_text(h)], t) for h in near for t in triggers
            ]
            legal, reasons = _judged(state, seat, tries, lambda o: o.path[-1])
            reach = destinations(state, seat, "react", units, path)
            offered = _hexes(reach, reasons)
            out.append((offered, sorted(set(legal))))
            assert reach is not None
            if len(path) > 1 and reach.fills:
                ((name, trigger),) = reach.fills
                assert name == "trigger"
                assert _legal(state, seat, React(list(units), list(path), trigger))
            if not offered:
                break
            path = (*path, offered[0])
    return out


@pytest.fixture(scope="module")
def compared() -> dict[str, list[tuple[list[Any], list[Any]]]]:
    out: dict[str, list[tuple[list[Any], list[Any]]]] = {
        order: [] for order in (*MENUS, *MOVES, "move", "react")
    }
    for state, seat, order in menu_states():
        if order in MENUS:
            out[order].append(MENUS[order](state, seat))
        elif order == "move":
            out[order] += _paths(state, seat)
        elif order == "react":
            out[order] += _reactions(state, seat)
        else:
            out[order] += _destinations(state, seat, order)
    return out


@pytest.mark.parametrize("order", [*MENUS, *MOVES, "move", "react"])
def test_a_menu_offers_what_the_engine_takes_and_nothing_else(
    compared: dict[str, list[tuple[list[Any], list[Any]]]], order: str
) -> None:
    pairs = compared[order]
    assert pairs, f"the games never waited at a step taking {order}"
    assert any(legal for _, legal in pairs), f"no {order} was ever legal: nothing compared"
    for offered, legal in pairs:
        assert sorted(offered) == sorted(legal)
        assert len(set(offered)) == len(offered)


def test_a_fleet_s_set_up_hexes_are_those_the_engine_takes() -> None:
    """At each empire's set-up step of a wandering game, the hexes listed for each fleet
    still waiting (and for one of its units, placed alone) are every hex of the map where
    the placement is legal, and none other."""
    galaxy = load_galaxy()
    every = [
        base.hex_text(col * 100 + row)
        for col in range(1, galaxy.width + 1)
        for row in range(1, galaxy.height + 1)
    ]
    seen: set[str] = set()
    compared = 0
    for result in play_random_campaign(GAMES[0][0], 1, wander=True).results:
        rules = result.state.rules
        if rules is None or not rules.setup:
            continue
        empire = base.setup_empire(rules)
        if empire in seen:
            continue
        seen.add(empire)
        seat = base.seat_of(rules, empire)
        setup = base.empire_setup(rules, empire)
        assert setup is not None
        waiting = [u for u in rules.board.units if u.empire == empire and u.hex == OFF_MAP]
        unknown = destinations(rules, seat, "place", ("no such fleet",))
        assert unknown == Reach(why="no fleet or unit no such fleet waits to set up")
        for fleet in setup.fleets[:3]:
            members = [u.id for u in waiting if u.fleet == fleet.name]
            for placed, field in [(fleet.name, "fleet"), *[(uid, "unit") for uid in members[:1]]]:
                tries = [Place(to, **{field: placed}) for to in every]
                legal, reasons = _judged(rules, seat, tries, lambda o: o.hex)
                offered = _hexes(destinations(rules, seat, "place", (placed,)), reasons)
                assert offered == legal, (empire, placed)
                compared += bool(legal)
    assert len(seen) > 3 and compared > 10


def test_a_stack_s_movement_note_names_its_slowest_unit() -> None:
    """The Lyran Home Fleet's FRD moves one hex (203.1): drawn with the DN, the note says
    which unit holds the stack to one hex, so the player knows whom to leave behind."""
    state = run_until(start(), at_step("3B2"))
    found = destinations(state, "coalition", "move", ("LYR-0043", "LYR-0074"), ("0408",))
    assert found is not None
    assert found.note == "1 hex of movement left past 0408 (LYR-0074 FRD is the slowest)"
    alone = destinations(state, "coalition", "move", ("LYR-0043",), ("0408",))
    assert alone is not None and alone.note == "6 hexes of movement left past 0408"
