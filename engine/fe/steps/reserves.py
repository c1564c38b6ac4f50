"""Step 9A: the phasing player designates reserve fleets (507.1, 203.7).

A ``reserve`` order names units standing in one hex; they become (or join) the reserve fleet
of that hex, recorded in ``FeState.reserves``. The fleet may then move in the enemy's
reserve movement phase (4B, 203.7: the movement area plays that). Markers last one round:
the phasing player removes his own as phase 1 of his next player turn begins (1D, 507.1),
and 9A designates afresh (any of his left over are dropped as phase 9 begins).

Limits, marked as in ``fe-rules-notes.md`` (S sourced, I inferred, C a choice):

- S (105.0, 9A): the phasing player designates his own units.
- S (fe-rules-notes, 203.7): a reserve fleet is one battle force: at most as many units as
  its flagship's command rating (C: the flagship counted, the ``flagship-counts`` option),
  plus one free scout. I: the
  flagship is the unit with the highest command rating (302.32 lets the player pick among
  the best three; the highest is the most the fleet can hold); every unit counts one,
  crippled or not; the free scout is a unit whose current side is a scout.
- I: a reserve fleet is a stack: its units stand in one hex, and the reserve units of an
  empire in one hex are one fleet (a second order for the hex adds to it, within the limit).
  One order names one empire's units (allies' battle forces are not mixed here).
- S (600.3): units of a starting fleet that is not released do not move, so they cannot be
  a reserve. I: units that cannot move by themselves (bases, PDUs, FRDs) are not reserves.
- I: units must be in supply (main or partial grid) when designated, and in a hex free of
  enemy units (a unit there is pinned).
- Not modelled (no source at hand): a cap on the number of reserve fleets, the fighter and
  PF share of a battle force, and anything about units that fought or moved this turn.

The step passes by itself when no unit of the phasing side meets the unit limits above.

Where a reserve may go (4B, played by `engine.fe.steps.movement`, checked here by
`target_problems`): a reserve fleet answers the enemy's moves of this player turn; it is not
a free move. The rulebook summary names the step (4B, 203.7) but not its targets; what the
sources here give is:

- S (F&E Q&A April 2011, 203.74): a reserve fleet moves to its target hex by a path that
  avoids enemy-occupied hexes when it can; one of the targets there is a hex where it
  "can open a supply path" to a fleet "out of supply and in combat". S (the rules notes,
  549.22): a moving reserve creates battle hexes (its target, and hexes on the way where
  ships are left behind to resolve pinning).
- I: so a reserve's move ends (a) in a hex holding units of a phasing empire at war with
  the reserve's empire that moved this turn or already stand in a battle hex: a battle of
  this combat phase (302.0) that the reserve joins or makes; or (b) in a hex from which the
  reserve puts back in supply a unit of its own empire that stands with phasing enemies
  and is out of supply now. An enemy that has not moved and fights nobody (a base in its
  own space, a fleet at rest) is no target: the reserve answers this turn's attack. Anything
  else is refused under 203.7, naming the target hexes within the fleet's reach and their
  distances. A fleet left on the way to pin stands with enemies that moved, so it
  qualifies by (a).
"""

from __future__ import annotations

from typing import Any

import msgspec

from engine.core import hexgrid
from engine.core.ruleset import Event, Seat, Violation
from engine.fe import board_views
from engine.fe import option_specs as specs
from engine.fe.combat.forces import command_of, is_scout
from engine.fe.forces import OFF_MAP, Board, Unit
from engine.fe.galaxy import HexId
from engine.fe.model import FeState
from engine.fe.movement import Move, apply_move
from engine.fe.orders import ReserveOrder
from engine.fe.sequence import Step
from engine.fe.steps import base
from engine.fe.steps.base import Area
from engine.fe.steps.supply import grid_on, status_of
from engine.fe.unit_kinds import movement_points

RESERVE_RULE = "203.7"
FLAGSHIP_COUNTS = specs.FLAGSHIP_COUNTS

OPTIONS = specs.RESERVES_OPTIONS
"""C in the rules notes: whether a battle force's flagship is inside its command limit
(declared in `engine.fe.option_specs`)."""
ESTABLISH_RULE = "507.1"
RELEASE_RULE = "600.3"
ECONOMICS_PHASE = "1"
RESERVES_PHASE = "9"


def fleet_size(units: list[Unit], flagship_counts: bool = True) -> tuple[Unit, int, int]:
    """The flagship, the units counted against its command rating, and that rating.

    The flagship is the unit with the highest rating (the lowest id among equals); one scout
    that is not the flagship rides free; the flagship itself counts unless the
    ``flagship-counts`` option says otherwise.
    """
    flagship = min(units, key=lambda u: (-command_of(u), u.id))
    free_scout = any(is_scout(u) and u.id != flagship.id for u in units)
    counted = len(units) - (1 if free_scout else 0) - (0 if flagship_counts else 1)
    return flagship, counted, command_of(flagship)


def flagship_counts(state: FeState) -> bool:
    """The ``flagship-counts`` option (C in the rules notes; default yes)."""
    return state.option(FLAGSHIP_COUNTS) is not False


def _pinned(board: Board, unit: Unit) -> bool:
    empires = board_views.empires_by_hex(board).get(unit.hex, ())
    return any(board.enemies(unit.empire, empire) for empire in empires)


def unit_problems(state: FeState, unit: Unit) -> list[Violation]:
    """Why ``unit`` may not be designated a reserve now (its fleet's size apart)."""
    board = state.board
    if unit.hex == OFF_MAP:
        return [Violation(f"{unit.id} is not on the map", RESERVE_RULE)]
    out: list[Violation] = []
    where = base.hex_text(unit.hex)
    if unit.id in state.reserves:
        text = f"{unit.id} is already in the reserve fleet in {where}"
        out.append(Violation(text, RESERVE_RULE))
    if not board.is_released(unit):
        text = f"{unit.id} ({unit.cls}) belongs to {unit.fleet}, which is not released"
        out.append(Violation(text, RELEASE_RULE))
    if movement_points(unit) == 0:
        text = f"{unit.id} ({unit.cls}) cannot move by itself, so it cannot be a reserve"
        out.append(Violation(text, RESERVE_RULE))
    if status_of(state, unit) == "none":
        text = f"{unit.id} in {where} is out of supply: a reserve must be in supply"
        out.append(Violation(text, RESERVE_RULE))
    if _pinned(board, unit):
        text = f"{where} holds enemy units: {unit.id} is pinned there and cannot be a reserve"
        out.append(Violation(text, RESERVE_RULE))
    return out


def may_be_reserve(state: FeState, unit: Unit) -> bool:
    """Whether `unit_problems` finds nothing, without writing the refusals' texts: the
    question the step's skip asks of a whole army, answered cheapest test first."""
    if unit.hex == OFF_MAP or unit.id in state.reserves:
        return False
    board = state.board
    if not board.is_released(unit) or movement_points(unit) == 0:
        return False
    return status_of(state, unit) != "none" and not _pinned(board, unit)


def fleet_in(state: FeState, empire: str, h: int) -> list[Unit]:
    """The empire's reserve units in hex ``h``: its reserve fleet there (empty if none)."""
    reserve = state.reserves
    return [u for u in state.board.at(h) if u.empire == empire and u.id in reserve]


def _units_text(units: list[Unit]) -> str:
    return ", ".join(f"{u.cls} {u.id}" for u in units)


def _dropped(state: FeState, empires: tuple[str, ...]) -> tuple[str, ...]:
    """``state.reserves`` without the units of ``empires`` (a unit gone from the board since
    is known by its id's empire prefix)."""
    board = state.board
    kept: list[str] = []
    for unit_id in state.reserves:
        try:
            owner = board.unit(unit_id).empire
        except KeyError:
            owner = unit_id.split("-", maxsplit=1)[0]
        if owner not in empires:
            kept.append(unit_id)
    return tuple(kept)


# --- where a reserve fleet may go (4B) ---------------------------------------------------------


def foes(state: FeState, empire: str) -> list[str]:
    """The phasing empires at war with ``empire``, in the scenario's order."""
    board = state.board
    return [e for e in base.phasing_empires(state) if board.enemies(empire, e)]


def target_hexes(state: FeState, empire: str) -> list[HexId]:
    """The battle and target hexes of this turn for a reserve of ``empire``, sorted: hexes
    holding a unit of a phasing enemy that moved this turn (``state.moved``, kept from phase
    3 through phase 4) or that stands in a battle hex (with a unit at war with it)."""
    board = state.board
    hostile = foes(state, empire)
    found: set[HexId] = set()
    for unit in board.units:
        if unit.hex == OFF_MAP or unit.empire not in hostile or unit.hex in found:
            continue
        fighting = any(board.enemies(unit.empire, other.empire) for other in board.at(unit.hex))
        if fighting or state.moved_by(unit.id):
            found.add(unit.hex)
    return sorted(found)


def cut_off_in_battle(
    state: FeState, board: Board, empire: str, leaving: tuple[str, ...] = ()
) -> list[str]:
    """The ``empire`` units out of supply on ``board`` in a hex holding a phasing enemy (a
    battle hex), sorted, leaving out the ids in ``leaving``."""
    hostile = foes(state, empire)
    grid = grid_on(state, board, empire)
    return sorted(
        u.id
        for u in board.units
        if u.empire == empire
        and u.hex != OFF_MAP
        and u.id not in leaving
        and grid.status(u.hex) == "none"
        and any(o.empire in hostile for o in board.at(u.hex))
    )


def opens_supply(state: FeState, empire: str, move: Move) -> list[str]:
    """The ``empire`` units in battle hexes that ``move`` puts back in supply."""
    before = cut_off_in_battle(state, state.board, empire, move.unit_ids)
    if not before:
        return []
    after = cut_off_in_battle(state, apply_move(state.board, move), empire)
    return [uid for uid in before if uid not in after]


def _distance_text(n: int) -> str:
    return "1 hex" if n == 1 else f"{n} hexes"


def target_problems(state: FeState, empire: str, move: Move, reach: int) -> list[Violation]:
    """Why ``move`` does not take a reserve fleet of ``empire`` to a battle or target hex of
    this turn (203.7); ``reach`` is how far the fleet may still go, for the refusal's list."""
    end, start = move.path[-1], move.path[0]
    hexes = target_hexes(state, empire)
    if end in hexes or opens_supply(state, empire, move):
        return []
    foe_text = " or ".join(foes(state, empire)) or "enemy"
    near = sorted((hexgrid.distance(start, h), h) for h in hexes)
    shown = [f"{h:04d} ({_distance_text(d)})" for d, h in near if d <= reach]
    within = f"within {_distance_text(reach)} of {start:04d}"
    where = f"the target hexes {within} are " + ", ".join(shown) if shown else f"none is {within}"
    text = (
        f"a reserve fleet moves only to a battle or target hex of this turn (a hex holding "
        f"{foe_text} units that moved this turn or are in a battle, or one that puts a cut-off "
        f"{empire} unit in a battle hex back in supply): {end:04d} is none; {where}"
    )
    return [Violation(text, RESERVE_RULE)]


def may_reach_a_target(state: FeState, empire: str, unit: Unit, reach: int) -> bool:
    """Whether a reserve ``unit`` of ``empire`` might have a target this phase: a target hex
    within ``reach`` hexes as the crow flies, or a unit of its empire cut off in a battle hex
    (a supply path to open, wherever that may be)."""
    if any(hexgrid.distance(unit.hex, h) <= reach for h in target_hexes(state, empire)):
        return True
    return bool(cut_off_in_battle(state, state.board, empire))


class _Reserves(Area):
    name = "reserves"
    orders = ("reserve",)

    def check(self, state: FeState, seat: Seat, step: Step, order: Any) -> list[Violation]:
        if not isinstance(order, ReserveOrder):
            return super().check(state, seat, step, order)
        units, problems = base.own_units(state, seat, order.units, RESERVE_RULE)
        if problems:
            return problems
        empires = sorted({u.empire for u in units})
        if len(empires) > 1:
            text = f"a reserve fleet is one empire's; these units are {' and '.join(empires)}'s"
            return [Violation(text, RESERVE_RULE)]
        hexes = sorted({u.hex for u in units})
        if len(hexes) > 1:
            where = ", ".join(base.hex_text(h) for h in hexes)
            text = f"a reserve fleet stands in one hex; these units are in {where}"
            return [Violation(text, RESERVE_RULE)]
        out = [p for u in units for p in unit_problems(state, u)]
        if out:
            return out
        fleet = fleet_in(state, empires[0], hexes[0]) + units
        flagship, counted, command = fleet_size(fleet, flagship_counts(state))
        if counted > command:
            joined = " with the reserve already there" if len(fleet) > len(units) else ""
            text = (
                f"a reserve fleet is one battle force: its flagship {flagship.cls} "
                f"{flagship.id} has command rating {command}, so it holds at most {command} "
                f"units plus one free scout; this one{joined} would count {counted}"
            )
            out.append(Violation(text, RESERVE_RULE))
        return out

    def apply(
        self, state: FeState, seat: Seat, step: Step, order: Any, events: list[Event]
    ) -> FeState:
        if not isinstance(order, ReserveOrder):
            return super().apply(state, seat, step, order, events)
        board = state.board
        units = sorted((board.unit(i) for i in order.units), key=lambda u: u.id)
        empire, h = units[0].empire, units[0].hex
        fleet = sorted(fleet_in(state, empire, h) + units, key=lambda u: u.id)
        flagship, counted, command = fleet_size(fleet, flagship_counts(state))
        joined = f", joining the reserve there ({len(fleet)} units now)" if fleet != units else ""
        events.append(
            Event(
                "reserve",
                f"{empire} designates {_units_text(units)} in {base.hex_text(h)} a reserve "
                f"fleet{joined}; its flagship {flagship.cls} {flagship.id} commands {command}, "
                f"the fleet counts {counted} ({ESTABLISH_RULE}, {RESERVE_RULE})",
                seat,
                step.id,
                {
                    "empire": empire,
                    "hex": base.hex_text(h),
                    "units": [u.id for u in units],
                    "fleet": [u.id for u in fleet],
                    "flagship": flagship.id,
                    "rule": RESERVE_RULE,
                },
            )
        )
        reserves = tuple(sorted({*state.reserves, *order.units}))
        return msgspec.structs.replace(state, reserves=reserves)

    def skip(self, state: FeState, step: Step) -> str:
        mine = base.phasing_empires(state)
        reserves = frozenset(state.reserves)
        # Apart from being a reserve already, `may_be_reserve` reads a unit's empire, hex,
        # class and fleet only: like units of a stack are judged once.
        # Units off the map or of a fleet still held are none (`may_be_reserve`'s first
        # tests, told here with the released fleets as a set): most of an army at the start.
        released = frozenset(state.board.released)
        judged: set[tuple[str, int, str, str]] = set()
        for forces in state.forces:  # the phasing empires' units only (any one will do)
            if forces.empire in mine:
                for unit in forces.units:
                    if unit.id in reserves or unit.empire not in mine or unit.hex == OFF_MAP:
                        continue
                    if unit.fleet and (unit.empire, unit.fleet) not in released:
                        continue
                    key = (unit.empire, unit.hex, unit.cls, unit.fleet)
                    if key in judged:
                        continue
                    judged.add(key)
                    if may_be_reserve(state, unit):
                        return ""
        who = " and ".join(mine)
        return (
            f"no {who} unit could be a reserve (released, able to move, in supply, "
            f"free of enemy units) ({RESERVE_RULE})"
        )

    def on_phase(self, state: FeState, phase: str, events: list[Event]) -> FeState:
        if phase not in (ECONOMICS_PHASE, RESERVES_PHASE) or not state.reserves:
            return state
        kept = _dropped(state, base.phasing_empires(state))
        if kept == state.reserves:
            return state
        if phase == ECONOMICS_PHASE:
            gone = len(state.reserves) - len(kept)
            events.append(
                Event(
                    "reserve-markers",
                    f"{base.phasing(state)} removes its reserve markers: "
                    f"{gone} unit{'s' if gone != 1 else ''} no longer reserves ({ESTABLISH_RULE})",
                    base.phasing(state),
                    data={"rule": ESTABLISH_RULE},
                )
            )
        return msgspec.structs.replace(state, reserves=kept)


AREA = _Reserves()
