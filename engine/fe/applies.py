"""When a step of the F&E sequence of play applies at all (its ``applies`` conditions, 105.0).

Rule 105 lists every step any game might need: Tholian pinwheels, tug missions, the Klingon
swarm. In a game without Tholians or without tugs those steps cannot happen, and asking a
player to confirm each costs an email round trip. So a step in ``sequence.json`` may carry
conditions, and the driver (`engine.core.turns`) passes a step whose conditions fail with one
"step-passed" event, whatever its kind, asking nobody. The conditions are deliberately few and
conservative: only what the board and the options show for certain; a step that might apply
for a reason the engine does not track (a deployment begun, a colony founded, a raid pool)
carries none and is asked as before.

The vocabulary (every condition in a step's list must hold):

* ``empire:CODE``: the empire is in the game (a seat plays it, or it has units on the board);
* ``plays:CODE``: a seat acting in the step plays the empire (the phasing seat for the phasing
  player's steps, the other seat for the non-phasing player's, any seat otherwise);
* ``unit:KIND``: an empire of a seat acting in the step (any empire for steps of both players
  or of nobody) has a unit of ``KIND`` (`UNIT_KINDS`) anywhere, on or off the map;
* ``option:NAME``: the game option is on;
* ``A|B``: either condition holds.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.core import caches
from engine.core.errors import NotPending
from engine.core.ruleset import Actor, Seat
from engine.fe import board_views
from engine.fe.forces import Unit
from engine.fe.model import FeState
from engine.fe.scenario import find_scenario
from engine.fe.sequence import Step
from engine.fe.steps import base
from engine.fe.units import load_units

RULE = "105.0"
_PHASING, _NON_PHASING = Actor.PHASING, Actor.NON_PHASING
_OWN = (_PHASING, _NON_PHASING)
"""Read off the enum once (a member read off its class goes through the enum's metaclass)."""


def _tug(unit: Unit) -> bool:
    """Tugs (509.0): a class with tug missions in the tables, or a tug by its designation (the
    tables list no missions for some, such as the Lyran TGC)."""
    info = unit.info()
    return bool(info.full.tug_missions) or info.id.startswith("TG")


UNIT_KINDS: dict[str, Callable[[Unit], bool]] = {
    "tug": _tug,
    "repair-ship": lambda unit: unit.info().id == "REPR",
    "frd": lambda unit: unit.info().id == "FRD",
    "x-ship": lambda unit: unit.info().id.endswith("X"),
}
"""The kinds of unit a condition may name, each recognised from its class."""

WORDS = ("empire", "plays", "unit", "option")


def problem(condition: str) -> str:
    """Why ``condition`` is not in the vocabulary ("" when it is): a packaging check."""
    for part in condition.split("|"):
        word, sep, value = part.partition(":")
        if not sep or word not in WORDS or not value:
            return f"{part!r} is not a condition ({', '.join(WORDS)}: followed by a name)"
        if word == "unit" and value not in UNIT_KINDS:
            return f"{part!r}: no unit kind {value!r} (known: {', '.join(UNIT_KINDS)})"
    return ""


def unmet(state: FeState, step: Step, condition: str) -> str:
    """Why ``condition`` fails now, in words ("" when it holds, or any alternative does)."""
    reasons = []
    for part in condition.split("|"):
        reason = _unmet_one(state, step, part)
        if not reason:
            return ""
        reasons.append(reason)
    return "; ".join(reasons)


def _unmet_one(state: FeState, step: Step, condition: str) -> str:
    word, _, value = condition.partition(":")
    if word == "empire":
        if value in _played(state) or any(f.empire == value and f.units for f in state.forces):
            return ""
        return f"no {value} in the game"
    if word == "plays":
        if value in _acting_empires(state, step):
            return ""
        return f"{' and '.join(_acting_seats(state, step))} {_verb(state, step)} {value}"
    if word == "unit":
        empires = _acting_empires(state, step) if _own(step) else None
        if value not in UNIT_KINDS:
            raise KeyError(value)
        mine = [f for f in state.forces if empires is None or f.empire in empires]
        if any(has_kind(forces.units, value) for forces in mine):
            return ""
        if empires is None:
            return f"no {value} in the game"
        return f"no {value} among the units of {', '.join(sorted(empires)) or 'nobody'}"
    if word == "option":
        return "" if state.option(value) else f"option {value} is off"
    raise ValueError(f"unknown condition {condition!r} in the sequence table")


@caches.by_identity(maxsize=48, identity=1)
def has_kind(units: tuple[Unit, ...], kind: str) -> bool:
    """Whether one of these units (an empire's, `engine.fe.forces.Forces.units`) is of
    ``kind``: kept per units tuple, as the steps of a player turn ask the same empires the
    same questions while their units stay the same tuple (a move makes a new one)."""
    if kind not in UNIT_KINDS:
        raise KeyError(kind)
    # A kind is told from the class (`Unit.info` reads the empire and the class only), so
    # the answer is read from the classes the units show (`board_views.unit_classes`, kept
    # per units tuple and carried over moves as the very same set).
    return _classes_have(board_views.unit_classes(units), kind)


@caches.by_identity(maxsize=48, identity=1)
def _classes_have(classes: frozenset[tuple[str, str, bool]], kind: str) -> bool:
    """Whether one of these (empire, class, crippled) readings is of ``kind``: kept per set,
    which a move carries over unchanged, so a step's condition read after units moved costs
    a look-up rather than a pass over the classes.

    The classes of the tables are sorted out by set operations in C against the table
    classes of ``kind`` (`_table_sides`); only a reading the tables do not list as such (a
    captured ship's ``"KZI:CL"``) is tested one by one. The answer is an ``any`` of pure
    tests, the same whatever order the set yields its members in."""
    listed, of_kind = _table_sides(kind)
    if not classes.isdisjoint(of_kind):
        return True
    return any(_class_is(empire, cls, kind) for empire, cls, _ in classes - listed)


@caches.derived(maxsize=8, shipped=True)
def _table_sides(
    kind: str,
) -> tuple[frozenset[tuple[str, str, bool]], frozenset[tuple[str, str, bool]]]:
    """Every (empire, class, crippled) reading of the unit tables, and those of ``kind``
    (`_class_is` of each class of the tables, both sides: a kind goes by the class alone)."""
    if kind not in UNIT_KINDS:
        raise KeyError(kind)
    listed = frozenset(
        (c.empire, c.id, crippled) for c in load_units().classes for crippled in (False, True)
    )
    return listed, frozenset(side for side in listed if _class_is(side[0], side[1], kind))


@caches.derived(maxsize=4096, shipped=True)
def _class_is(empire: str, cls: str, kind: str) -> bool:
    """Whether a unit of this empire and class is of ``kind`` (a test of the class alone)."""
    return UNIT_KINDS[kind](Unit("", empire, cls))


def _own(step: Step) -> bool:
    return step.actor in _OWN


def _acting_seats(state: FeState, step: Step) -> tuple[Seat, ...]:
    phasing = base.phasing(state)
    if step.actor == _PHASING:
        return (phasing,)
    if step.actor == _NON_PHASING:
        return tuple(seat for seat in state.seats if seat != phasing)
    return state.seats


def _acting_empires(state: FeState, step: Step) -> frozenset[str]:
    return _empires_of_seats(state.scenario, _acting_seats(state, step))


def _played(state: FeState) -> frozenset[str]:
    return _empires_of_seats(state.scenario, state.seats)


@caches.derived(maxsize=32)
def _empires_of_seats(scenario_id: str, seats: tuple[Seat, ...]) -> frozenset[str]:
    """The empires these seats play in the scenario (a pure reading of the shipped data):
    the driver asks at every step with conditions, for the same few seat lists."""
    scenario = find_scenario(scenario_id)
    if scenario is None:  # as `base.scenario`: a state cannot name an unknown scenario
        raise NotPending(f"unknown scenario {scenario_id!r}")
    return frozenset(e for entry in scenario.seats if entry.seat in seats for e in entry.empires)


def _verb(state: FeState, step: Step) -> str:
    return "do not play" if len(_acting_seats(state, step)) > 1 else "does not play"
