"""What an F&E seat may do at the step it owes, as lists a client shows before any order.

`engine.fe.face.FeFace.lists` answers `engine.core.choices.Lists` from here, so ``hexpost
choices`` and the app's forms show what would pass instead of learning it from refusals:

- set-up (600.0): each fleet of the empire placing now that still waits, with its set-up
  hexes and its hex limits (`engine.fe.setup`);
- production (2B3, 431.0, 450.4): each class that fills an open slot of the schedule, itself
  or as a substitute, with its price and the hexes new units may appear in. Each line is an
  order the build check itself accepts now (`engine.fe.steps.shipyard.build_problems` at the
  first site), so the list cannot offer what the engine would refuse;
- movement (3B2, 4B: 203.1, 203.7): each unit that may still move, with its movement points
  left (halved out of supply, 410.31); the units held back by an unreleased fleet (600.3)
  are counted in a note;
- reaction (3B3, 205.0): the units that may react to the batch.

Pure: reads the state, changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from engine.core.choices import Option, OptionList
from engine.core.face import Fact
from engine.core.ruleset import Seat
from engine.core.text import counted
from engine.fe import flow, production
from engine.fe import setup as placing
from engine.fe.economics import fmt_ep
from engine.fe.forces import OFF_MAP, Unit, allowance
from engine.fe.galaxy import HexId
from engine.fe.model import FeState
from engine.fe.movement import remaining
from engine.fe.oob import Fleet
from engine.fe.orders import BuildOrder
from engine.fe.sequence import Step
from engine.fe.steps import base, movement, reactors, shipyard, yard
from engine.fe.units import load_units

MOVE_STEPS = (movement.OPERATIONAL_STEP, movement.RESERVE_STEP)


def lists(state: FeState, seat: Seat) -> tuple[OptionList, ...]:
    """The lists for the step ``seat`` owes now (none when it owes nothing)."""
    step = flow.current(state)
    if step is None or seat not in flow.owing(state, step):
        return ()
    out: list[OptionList] = []
    if state.setup and "place" in step.orders:
        out.append(setup_list(state))
    if "build" in step.orders and not state.setup:
        out.append(production_list(state, seat))
    if "move" in step.orders and step.id in MOVE_STEPS:
        out.append(movement_list(state, seat, step))
    if "react" in step.orders and step.id == movement.REACTION_STEP:
        out.append(reaction_list(state))
    return tuple(out)


def _hexes(hexes: tuple[int, ...]) -> str:
    return " ".join(base.hex_text(h) for h in hexes)


def _waiting(state: FeState) -> tuple[str, list[tuple[Fleet, list[Unit]]]]:
    """The empire setting up now, and each of its fleets that still waits to set up, with
    its waiting units (600.0)."""
    empire = base.setup_empire(state)
    setup = base.empire_setup(state, empire)
    if setup is None:
        return empire, []
    left = placing.to_place(state.board, setup)
    fleets = [(fleet, [u for u in left if u.fleet == fleet.name]) for fleet in setup.fleets]
    return empire, [(fleet, units) for fleet, units in fleets if units]


def place_options(state: FeState) -> dict[str, tuple[str, ...]]:
    """What a set-up ``place`` may name now, field by field: the fleets (``fleet``) and the
    units (``unit``) still waiting of the empire setting up. A seat plays several empires,
    whose fleet names repeat (Home Fleet), so the seat's pieces off the board say less."""
    _, waiting = _waiting(state)
    return {
        "fleet": tuple(fleet.name for fleet, _ in waiting),
        "unit": tuple(u.id for _, units in waiting for u in units),
    }


def setup_list(state: FeState) -> OptionList:
    """Each fleet still waiting to set up, with where it may go (600.0)."""
    empire, waiting = _waiting(state)
    items: list[Option] = []
    for fleet, units in waiting:
        facts = [
            Fact("set-up hexes", _hexes(fleet.hexes)),
            Fact("units", " ".join(f"{u.id} {u.cls}" for u in units)),
        ]
        if fleet.hex_limits:
            limits = ", ".join(f"{x.max_units} in {x.hex:04d}" for x in fleet.hex_limits)
            facts.append(Fact("at most", limits))
        label = f"{empire} {fleet.name} ({counted(len(units), 'unit')})"
        items.append(Option(label, (("fleet", fleet.name),), tuple(facts)))
    notes = (f"{empire} places its fleets; write a hex from the fleet's set-up hexes",)
    rule = placing.SETUP_RULE
    return OptionList("setup", "Fleets waiting to set up", "place", rule, tuple(items), notes)


class Buildable(NamedTuple):
    """A class an empire may build now in an open slot of its schedule, itself or instead of
    the slot's class: the build check accepts it at the empire's first site."""

    empire: str
    cls: str
    instead: str
    """The slot's class when ``cls`` substitutes for it, else ""."""
    slot: str
    left: int
    """Builds the slot has left this turn."""
    given: int
    """Builds the schedule gives the slot this turn."""
    sites: tuple[HexId, ...]


def buildable(state: FeState, seat: Seat) -> Iterator[Buildable]:
    """Each class ``seat``'s empires may build now, slot by slot (the slot's class, then its
    substitutes), that `engine.fe.steps.shipyard.build_problems` accepts at the first site:
    price, service date, slot, substitution limit and treasury (431.0, 450.4)."""
    tables = load_units()
    galaxy = base.galaxy()
    several = len(base.empires_of(state, seat)) > 1
    for empire in base.empires_of(state, seat):
        sites = production.build_sites(galaxy, state.board, empire)
        if not sites:
            continue
        slots = production.scheduled(yard.schedule(state, empire), state.turn)
        for slot, count in slots.items():
            left = count - yard.used(state, empire, f"slot {slot}")
            if left <= 0:
                continue
            candidates = [(slot, "")] if tables.find(empire, slot) is not None else []
            for unit in tables.empire_classes(empire):
                if unit.id != slot and any(slot in s.instead_of for s in unit.substitutions):
                    candidates.append((unit.id, slot))
            for cls, instead in candidates:
                order = BuildOrder(cls, base.hex_text(sites[0]), instead, empire if several else "")
                if not shipyard.build_problems(state, seat, order):
                    yield Buildable(empire, cls, instead, slot, left, count, sites)


def build_values(b: Buildable) -> tuple[tuple[str, str], ...]:
    """A build's fields as a menu fills them: the empire and class, the slot's class it
    stands in for, and the hex when the empire has one site only (The Wind's turn 1: every
    empire builds at its capital), so that the form is complete as picked."""
    values = [("empire", b.empire), ("cls", b.cls)]
    if b.instead:
        values.append(("instead_of", b.instead))
    if len(b.sites) == 1:
        values.append(("hex", base.hex_text(b.sites[0])))
    return tuple(values)


def build_price(state: FeState, b: Buildable) -> str:
    """What building ``b`` at its first site costs this turn, as "8 EP" ("? EP" where the
    tables give no price)."""
    build = production.Build(b.cls, b.sites[0], b.instead)
    cost2 = production.build_cost2(b.empire, build, state.turn)
    return f"{fmt_ep(cost2) if isinstance(cost2, int) else '?'} EP"


def production_notes(state: FeState, seat: Seat) -> tuple[str, ...]:
    """A line for each of ``seat``'s empires: its treasury, the schedule it builds from
    this turn, the substitutions it has made and its build sites (431.0, 450.4)."""
    galaxy = base.galaxy()
    notes: list[str] = []
    limit = yard.production_options(state).substitution_limit
    for empire in base.empires_of(state, seat):
        schedule = yard.schedule(state, empire)
        sites = production.build_sites(galaxy, state.board, empire)
        made = yard.used(state, empire, "substitutions")
        subs = f"{made} of {limit} substitutions used" if limit else "substitutions unlimited"
        notes.append(
            f"{empire}: treasury {fmt_ep(state.ep2(empire))} EP, "
            f"{production.schedule_label(schedule, state.turn)}, {subs}, "
            f"sites {_hexes(sites) or 'none held'}"
        )
    return tuple(notes)


def production_list(state: FeState, seat: Seat) -> OptionList:
    """Each class ``seat``'s empires may build now, in a slot or instead of one (431.0,
    450.4), with price and sites (`buildable`); the notes give each empire's treasury,
    schedule and substitutions left."""
    notes = production_notes(state, seat)
    items: list[Option] = []
    for b in buildable(state, seat):
        build = production.Build(b.cls, b.sites[0], b.instead)
        label = f"{b.empire} {b.cls}" + (f" instead of {b.instead}" if b.instead else "")
        values = build_values(b)
        facts = [
            Fact("cost", build_price(state, b)),
            Fact("slot", f"{b.slot} ({b.left} of {b.given} left)"),
            Fact("sites", _hexes(b.sites)),
        ]
        if b.instead:
            limited = production.counts_as_substitution(b.empire, build, state.turn)
            facts.append(Fact("substitution", "limited" if limited else "not counted"))
        items.append(Option(label, values, tuple(facts)))
    rule = production.BUILD_RULE
    return OptionList("production", "Classes to build", "build", rule, tuple(items), notes)


def _movers(state: FeState, seat: Seat, step: Step) -> tuple[list[Unit], list[Unit]]:
    """``seat``'s units on the map that move by themselves, split into those that may move
    now and those held by an unreleased fleet (600.3)."""
    mine = base.empires_of(state, seat)
    reserve = step.id == movement.RESERVE_STEP
    free: list[Unit] = []
    held: list[Unit] = []
    for unit in state.board.units:
        if unit.empire not in mine or unit.hex == OFF_MAP or allowance(unit) == 0:
            continue
        if reserve and (unit.id not in state.reserves or state.moved_by(unit.id)):
            continue
        (free if state.board.is_released(unit) else held).append(unit)
    return free, held


def movement_list(state: FeState, seat: Seat, step: Step) -> OptionList:
    """Each unit that may still move this phase with its movement points left (203.1,
    410.31; in 4B only reserve units that have not moved, 203.7)."""
    reserve = step.id == movement.RESERVE_STEP
    free, held = _movers(state, seat, step)
    slow = movement.halved(state, free, reserve)
    moved = dict(state.moved)
    items: list[Option] = []
    for unit in free:
        left = remaining(unit, moved, slow)
        if left <= 0:
            continue
        facts = [
            Fact("hex", base.hex_text(unit.hex)),
            Fact("class", unit.cls),
            Fact("movement left", str(left)),
            Fact("allowance", str(allowance(unit)) + (" halved" if unit.id in slow else "")),
        ]
        if unit.fleet:
            facts.append(Fact("fleet", unit.fleet))
        label = f"{unit.id} {unit.cls} in {base.hex_text(unit.hex)}: {left} left"
        items.append(Option(label, (("units", unit.id),), tuple(facts)))
    notes: list[str] = []
    fleets: dict[str, int] = {}
    for unit in held:
        key = f"{unit.empire} {unit.fleet}"
        fleets[key] = fleets.get(key, 0) + 1
    if fleets:
        shown = ", ".join(f"{name} ({count})" for name, count in fleets.items())
        notes.append(f"not released, may not move (600.3): {shown}")
    notes.append('a whole stack moves with "stack": HEX, a fleet with "fleet": NAME')
    rule = movement.RESERVE_RULE if reserve else movement.MOVE_RULE
    return OptionList("movement", "Units that may move", "move", rule, tuple(items), tuple(notes))


def reaction_list(state: FeState) -> OptionList:
    """The units that may react to what moved in the batch (205.0)."""
    board = state.board
    items = []
    for unit_id in reactors.reactors(state):
        unit = board.unit(unit_id)
        facts = (Fact("hex", base.hex_text(unit.hex)), Fact("class", unit.cls))
        label = f"{unit.id} {unit.cls} in {base.hex_text(unit.hex)}"
        items.append(Option(label, (("units", unit.id),), facts))
    rule = movement.REACTION_RULE
    return OptionList("reaction", "Units that may react", "react", rule, tuple(items))
