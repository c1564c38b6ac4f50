"""What a rules area offers the flow, and the lookups every area needs.

An area is an object with a ``name`` (what ``sequence.json`` calls it), the order types it
checks (``orders``), and hooks the flow calls: ``check``/``apply`` for its orders (legality
apart from application: ``apply`` only ever sees an order that checked clean), ``automatic``
for an automatic step, ``finish`` for the reasons a seat may not yet end a decision step with
``done``, ``on_done`` for what ending it does, and ``on_phase``/``on_turn`` for what happens
as a phase or a game turn begins. The defaults do nothing, so an area overrides only what it
plays.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from engine.core import hexgrid
from engine.core.errors import NotPending
from engine.core.ruleset import Event, RollRequest, Seat, Violation
from engine.fe.forces import Unit
from engine.fe.galaxy import Galaxy, HexId, load_galaxy
from engine.fe.model import FeState
from engine.fe.oob import EmpireSetup, ScenarioSetup
from engine.fe.scenario import Scenario, find_scenario
from engine.fe.sequence import Step

SEQUENCE_RULE = "105.0"


class OrderRun(NamedTuple):
    """A packet's orders handed to a rules area that applies a run of them at once
    (`engine.fe.checklist.FeRuleset.apply_run`): the seat sending them, the current step,
    the packet's orders (not copied) with where the run starts, and the ruleset's check of
    one order against a state."""

    seat: Seat
    step: Step
    orders: Sequence[Any]
    start: int
    validate: Callable[[FeState, Seat, Any], list[Violation]]


ORDER_ENDS_STEP_FROM = "5.5"
"""From F&E 5.5 a decision step that takes one answer of its seat (a directed attack, a
retreat announced, an approach battle offered or answered, a withdrawal opposed) ends with
the packet that gives it (`Area.settled`); before, the step waited for a ``done``."""


class Area:
    """A rules area: by default it takes no orders and does nothing."""

    name = ""
    orders: tuple[str, ...] = ()

    def check(self, state: FeState, seat: Seat, step: Step, order: Any) -> list[Violation]:
        return [Violation(f"step {step.id} does not take {type(order).__name__} orders")]

    def apply(
        self, state: FeState, seat: Seat, step: Step, order: Any, events: list[Event]
    ) -> FeState:
        raise NotPending(f"step {step.id} does not take {type(order).__name__} orders")

    def automatic(self, state: FeState, step: Step, events: list[Event]) -> FeState:
        return state

    def finish(self, state: FeState, seat: Seat, step: Step) -> list[Violation]:
        return []

    def on_done(self, state: FeState, seat: Seat, step: Step, events: list[Event]) -> FeState:
        """Called when ``seat`` ends a decision step with ``done``, before the flow moves on.

        It may move ``state.step`` itself (a movement batch goes back to 3B2); the flow then
        settles on that step instead of the next.
        """
        return state

    def skip(self, state: FeState, step: Step) -> str:
        """Why the flow may pass this decision step without its seat ("" to stop there)."""
        return ""

    def settled(self, state: FeState, seat: Seat, step: Step) -> str:
        """Why ``seat``'s orders left it nothing to decide at this decision step, so that
        its part ends with its packet (`engine.fe.checklist.FeRuleset.after_orders`); ""
        while it may still decide something there."""
        return ""

    def answering(self, state: FeState, step: Step, seats: tuple[Seat, ...]) -> tuple[Seat, ...]:
        """The seats that answer a "both" step (``seats``, in answer order) when the rules
        give only some of them a part in it (the pursuer at 5-8A)."""
        return seats

    def rolls(self, state: FeState, seat: Seat, step: Step, order: Any) -> list[RollRequest]:
        """The dice an order of this area asks for, read once it was applied to ``state``
        (the pursuit die, 307.0); the core rolls them fairly."""
        return []

    def on_phase(self, state: FeState, phase: str, events: list[Event]) -> FeState:
        """As ``phase`` begins; it may move ``state.step`` (a phase with nothing to do)."""
        return state

    def on_phase_end(self, state: FeState, phase: str, events: list[Event]) -> FeState:
        """As ``phase`` has been played through; it may move ``state.step`` back into it (and
        must then count the pass in ``state.backs``) to play it again."""
        return state

    def on_turn(self, state: FeState, events: list[Event]) -> FeState:
        return state


# --- lookups ------------------------------------------------------------------------------


def galaxy() -> Galaxy:
    return load_galaxy()


def scenario(state: FeState) -> Scenario:
    found = find_scenario(state.scenario)
    if found is None:  # initial_state refused it: a state cannot name an unknown scenario
        raise NotPending(f"unknown scenario {state.scenario!r}")
    return found


def scenario_setup(state: FeState) -> ScenarioSetup:
    setup = scenario(state).setup
    if setup is None:
        return ScenarioSetup(setup_order=(), empires=())
    return setup


def empire_setup(state: FeState, empire: str) -> EmpireSetup | None:
    return scenario_setup(state).empire(empire)


def empires_of(state: FeState, seat: Seat) -> tuple[str, ...]:
    """The empires ``seat`` plays, in the scenario's order."""
    for entry in scenario(state).seats:
        if entry.seat == seat:
            return entry.empires
    return ()


def seat_of(state: FeState, empire: str) -> Seat:
    for entry in scenario(state).seats:
        if empire in entry.empires:
            return entry.seat
    return ""


def all_empires(state: FeState) -> tuple[str, ...]:
    """Every empire of the scenario, in seat order then each seat's order."""
    return tuple(e for entry in scenario(state).seats for e in entry.empires)


def setup_empire(state: FeState) -> str:
    """The empire whose set-up step is current (only while ``state.setup``)."""
    return scenario_setup(state).setup_order[state.step]


def phasing(state: FeState) -> Seat:
    """The phasing seat: the one setting up, the one whose player turn it is, or in the
    Orion phase the first seat of the turn order standing in."""
    if state.setup:
        return seat_of(state, setup_empire(state))
    return state.seats[0] if state.orion else state.seats[state.player_turn]


def phasing_empires(state: FeState) -> tuple[str, ...]:
    return empires_of(state, phasing(state))


def hex_text(h: HexId) -> str:
    return f"{h:04d}"


def own_units(
    state: FeState, seat: Seat, unit_ids: list[str] | tuple[str, ...], rule: str = SEQUENCE_RULE
) -> tuple[list[Unit], list[Violation]]:
    """The units named, if each exists, is named once and belongs to one of ``seat``'s
    empires; otherwise the reasons, one per bad id."""
    mine = empires_of(state, seat)
    board = state.board
    units: list[Unit] = []
    problems: list[Violation] = []
    seen: set[str] = set()
    for unit_id in unit_ids:
        if unit_id in seen:
            problems.append(Violation(f"{unit_id} is named twice", rule))
            continue
        seen.add(unit_id)
        try:
            unit = board.unit(unit_id)
        except KeyError:
            problems.append(Violation(board.no_unit(unit_id), rule))
            continue
        if unit.empire not in mine:
            problems.append(Violation(f"{unit_id} is a unit of {unit.empire}, not of {seat}", rule))
            continue
        units.append(unit)
    return units, problems


def units_by_id(state: FeState, unit_ids: tuple[str, ...] | list[str]) -> dict[str, Unit]:
    """The named units still on the board, wherever they stand (gone ones left out)."""
    board = state.board
    found: dict[str, Unit] = {}
    for unit_id in unit_ids:
        try:
            found[unit_id] = board.unit(unit_id)
        except KeyError:
            continue
    return found


def on_map(h: HexId) -> bool:
    g = galaxy()
    return hexgrid.valid(h, g.width, g.height)
