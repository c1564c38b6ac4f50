"""Step 6D2: the phasing player's retrograde movement (206.0), played with the board.

Each ``retrograde`` order names a stack in one hex and the supply point it falls back to;
`engine.fe.retrograde` checks it (the rules and their readings are documented there) and
moves it. This module supplies what the pure check needs from the game:

- the empire's supply grid on the board as it stands (`engine.fe.steps.supply.grids`): its
  supply points are the destinations, and a unit out of supply moves half its allowance
  (410.31). I: the grid is taken when each order is checked, not frozen at step 6A; the two
  differ only when a stack that retrograded earlier in the step was what kept another's
  supply path open, and the state keeps no copy of the 6A grid;
- the battle hexes of this player turn (``FeState.battle_hexes``, recorded as phase 5
  began): only units there may retrograde (206.0);
- the units that already retrograded this phase (``FeState.moved_once``, emptied as phase 6
  begins): a unit retrogrades once.

The step passes by itself when no unit of the phasing side could retrograde at all: none
stands in a battle hex free of enemy units, released and able to move. When some unit could,
the step waits for the player even if no supply point is in reach (finding that out would
mean trying every destination; the player's ``done`` costs little).
"""

from __future__ import annotations

from typing import Any

import msgspec

from engine.core.ruleset import Event, Seat, Violation
from engine.fe import retrograde
from engine.fe.forces import OFF_MAP, Board, Unit
from engine.fe.model import FeState
from engine.fe.orders import RetrogradeOrder, hex_id
from engine.fe.sequence import Step
from engine.fe.steps import base
from engine.fe.steps.base import Area
from engine.fe.steps.supply import grid_of
from engine.fe.unit_kinds import movement_points

RETROGRADE_RULE = retrograde.RETROGRADE_RULE
RETROGRADE_PHASE = "6"


def _move(order: RetrogradeOrder) -> retrograde.RetrogradeMove:
    return retrograde.RetrogradeMove(tuple(order.units), hex_id(order.to))


def _units_text(units: list[Unit]) -> str:
    return ", ".join(f"{u.cls} {u.id}" for u in units)


def could_retrograde(state: FeState, unit: Unit) -> bool:
    """Whether nothing but the destination keeps ``unit`` from retrograding now: it is on the
    map in a battle hex of this turn free of enemy units, released, able to move, and has not
    retrograded yet this phase."""
    board = state.board
    return (
        unit.hex != OFF_MAP
        and unit.hex in state.battle_hexes
        and unit.id not in state.moved_once
        and board.is_released(unit)
        and movement_points(unit) > 0
        and not _enemies_in(board, unit)
    )


def _enemies_in(board: Board, unit: Unit) -> bool:
    return any(board.enemies(unit.empire, other.empire) for other in board.at(unit.hex))


class _Retrograde(Area):
    name = "retrograde"
    orders = ("retrograde",)

    def check(self, state: FeState, seat: Seat, step: Step, order: Any) -> list[Violation]:
        if not isinstance(order, RetrogradeOrder):
            return super().check(state, seat, step, order)
        units, problems = base.own_units(state, seat, order.units, RETROGRADE_RULE)
        if problems:
            return problems
        empires = sorted({u.empire for u in units})
        if len(empires) > 1:
            text = (
                f"a retrograde moves one empire's stack; these units are "
                f"{' and '.join(empires)}'s: send one order per empire"
            )
            return [Violation(text, RETROGRADE_RULE)]
        if not base.on_map(hex_id(order.to)):
            return [Violation(f"{order.to} is not a hex of the map", RETROGRADE_RULE)]
        empire = empires[0]
        return retrograde.check_retrograde(
            base.galaxy(),
            state.board,
            grid_of(state, empire),
            empire,
            _move(order),
            battle_hexes=state.battle_hexes,
            already=state.moved_once,
        )

    def apply(
        self, state: FeState, seat: Seat, step: Step, order: Any, events: list[Event]
    ) -> FeState:
        if not isinstance(order, RetrogradeOrder):
            return super().apply(state, seat, step, order, events)
        board = state.board
        move = _move(order)
        units = sorted((board.unit(i) for i in move.unit_ids), key=lambda u: u.id)
        empire = units[0].empire
        start = units[0].hex
        grid = grid_of(state, empire)
        limit = min(retrograde.retrograde_allowance(grid, u) for u in units)
        path = retrograde.retrograde_path(base.galaxy(), board, empire, start, move.to, limit)
        hexes = len(path) - 1 if path is not None else 0
        halved = [u.id for u in units if grid.status(u.hex) == "none"]
        note = " (out of supply: half movement, 410.31)" if halved else ""
        events.append(
            Event(
                "retrograde",
                f"{empire} retrogrades {_units_text(units)} from {base.hex_text(start)} to "
                f"{order.to}, {hexes} hex{'es' if hexes != 1 else ''}{note} ({RETROGRADE_RULE})",
                seat,
                step.id,
                {
                    "empire": empire,
                    "units": [u.id for u in units],
                    "from": base.hex_text(start),
                    "to": order.to,
                    "path": [base.hex_text(h) for h in path or ()],
                    "out_of_supply": halved,
                    "rule": RETROGRADE_RULE,
                },
            )
        )
        state = state.with_board(retrograde.apply_retrograde(board, move))
        moved = tuple(sorted({*state.moved_once, *move.unit_ids}))
        return msgspec.structs.replace(state, moved_once=moved)

    def skip(self, state: FeState, step: Step) -> str:
        mine = base.phasing_empires(state)
        # Only a unit in a battle hex may retrograde (`could_retrograde`): those hexes'
        # stacks are read, not every unit on the board.
        board = state.board
        here = (u for h in state.battle_hexes if h != OFF_MAP for u in board.at(h))
        if any(u.empire in mine and could_retrograde(state, u) for u in here):
            return ""
        who = " and ".join(mine)
        if not state.battle_hexes:
            return (
                f"no combat took place this player turn, so {who} has nothing to retrograde "
                f"({RETROGRADE_RULE})"
            )
        shown = ", ".join(base.hex_text(h) for h in state.battle_hexes)
        return (
            f"no {who} unit that may move stands in a battle hex of this turn ({shown}) "
            f"free of enemy units, so nothing may retrograde ({RETROGRADE_RULE})"
        )

    def on_phase(self, state: FeState, phase: str, events: list[Event]) -> FeState:
        if phase == RETROGRADE_PHASE and state.moved_once:
            return msgspec.structs.replace(state, moved_once=())
        return state


AREA = _Retrograde()
