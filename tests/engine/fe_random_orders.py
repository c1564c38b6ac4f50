"""Orders a player might give at any F&E step, drawn at random, for the random campaign.

`tests.engine.fe_random_campaign` plays the orders the golden games play (builds, moves,
reactions, retreats, battle choices) with random values. The engine takes many more, each
step its own: repairs, conversions, strategic and retrograde movement, reserves, missions,
command points, replacements, declarations of war, the order of the battles, withdrawals
before combat, approach battles, cloaking, directed damage, retreats to a hex the player
names, pursuit and capture. Here each is drawn as a player would write it, from what the
board holds: the seat's own units (a random part of a stack), the enemy's in the battle
hex, hexes next to the battle, the seat's bases and planets as destinations.

An order is kept only if the engine accepts it after the ones before it (`_accepted`), so
what reaches the table is a legal packet: the point is to reach the rules areas and the
board changes the scripts never make (a crippled ship captured, a stack retreated where
its player chose, a unit repaired or converted), not to test refusals (the hostile orders
test does that).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from engine.core import hexgrid
from engine.fe import RULESET, flow
from engine.fe.forces import OFF_MAP, Unit
from engine.fe.galaxy import load_galaxy
from engine.fe.menus import convert_presets
from engine.fe.model import FeState
from engine.fe.opening import ApproachOrder, CloakOrder, OpposeOrder, WithdrawOrder
from engine.fe.orders import (
    BattlesOrder,
    CaptureOrder,
    CommandPointsOrder,
    ConvertOrder,
    DeclareWar,
    DirectOrder,
    MissionOrder,
    PursueOrder,
    RepairOrder,
    ReplaceOrder,
    ReserveOrder,
    RetreatOrder,
    RetrogradeOrder,
    StrategicOrder,
)
from engine.fe.sequence import load_sequence
from engine.fe.steps import base, combat
from engine.fe.unit_kinds import can_supply

TRIES = 6
"""Candidate orders drawn per order type the step takes."""
MOST_KEPT = 4
"""Orders kept in one packet, at most."""


def accepted(state: FeState, seat: str, order: Any) -> FeState | None:
    """``state`` after ``order`` if the engine accepts it, else None."""
    if RULESET.validate(state, seat, order):
        return None
    after: FeState = RULESET.apply(state, seat, order).state
    return after


class _Board:
    """What the candidates are drawn from: the seat's units and the enemy's, by hex."""

    def __init__(self, rng: random.Random, state: FeState, seat: str) -> None:
        self.rng = rng
        self.state = state
        self.seat = seat
        mine = set(base.empires_of(state, seat))
        on_map = [u for u in state.board.units if u.hex != OFF_MAP]
        self.mine = [u for u in on_map if u.empire in mine]
        self.free = [u for u in self.mine if state.board.is_released(u)]
        """The seat's units that may move (their fleet released, 600.3)."""
        self.theirs = [u for u in on_map if u.empire not in mine]
        record = combat.current(state)
        self.battle = record.hex if record is not None else 0
        self.empires = sorted(mine)
        galaxy = load_galaxy()
        self.size = (galaxy.width, galaxy.height)

    def some(self, units: list[Unit]) -> list[str]:
        """A random non-empty part of ``units`` (ids), or none if there are none."""
        if not units:
            return []
        return [u.id for u in self.rng.sample(units, self.rng.randint(1, len(units)))]

    def stack(self) -> list[str]:
        """A random part of the seat's released units in one random hex."""
        if not self.free:
            return []
        here = self.rng.choice(self.free).hex
        return self.some([u for u in self.free if u.hex == here])

    def in_battle(self, units: list[Unit]) -> list[Unit]:
        return [u for u in units if u.hex == self.battle]

    def next_to_battle(self) -> str:
        if not self.battle:
            return ""
        return f"{self.rng.choice(hexgrid.neighbours(self.battle, *self.size)):04d}"

    def own_hex(self) -> str:
        """A hex holding one of the seat's units (a base, a planet's fleet: a destination)."""
        return f"{self.rng.choice(self.mine).hex:04d}" if self.mine else ""


def _repair(b: _Board) -> list[Any]:
    return [RepairOrder(u.id) for u in b.mine if u.crippled]


def _convert(b: _Board) -> list[Any]:
    presets = convert_presets(b.state, b.seat)
    return [ConvertOrder(dict(p.values)["unit"], dict(p.values)["to"]) for p in presets]


def _moves(kind: type[Any]) -> Callable[[_Board], list[Any]]:
    def draw(b: _Board) -> list[Any]:
        units, to = b.stack(), b.own_hex()
        return [kind(units, to)] if units and to else []

    return draw


def _reserve(b: _Board) -> list[Any]:
    units = b.stack()
    return [ReserveOrder(units)] if units else []


def _mission(b: _Board) -> list[Any]:
    on = set(b.state.supply_tugs)
    return [
        MissionOrder(u.id, "none" if u.id in on else "supply")
        for u in b.mine
        if u.id in on or can_supply(u)
    ]


def _command_points(b: _Board) -> list[Any]:
    return [CommandPointsOrder(b.rng.randint(1, 3), empire=e) for e in b.empires]


def _replace(b: _Board) -> list[Any]:
    return [
        ReplaceOrder(u.id, fighters=b.rng.choice(("0", "1", "2")), pfs=b.rng.choice((0, 1)))
        for u in b.mine
    ]


def _declare(b: _Board) -> list[Any]:
    enemies = sorted({u.empire for u in b.theirs})
    return [DeclareWar(enemy, empire=e) for enemy in enemies for e in b.empires]


def _battles(b: _Board) -> list[Any]:
    hexes = sorted({u.hex for u in b.mine} & {u.hex for u in b.theirs})
    b.rng.shuffle(hexes)
    return [BattlesOrder([f"{h:04d}" for h in hexes])] if hexes else []


def _retreat(b: _Board) -> list[Any]:
    to = b.next_to_battle()
    return [RetreatOrder(to or None), RetreatOrder()]


def _withdraw(b: _Board) -> list[Any]:
    """A part of the seat's units in the battle, and the flagship of those that stay."""
    here = b.in_battle(b.mine)
    units, to = b.some(here), b.next_to_battle()
    if not units or not to:
        return []
    staying = [u.id for u in here if u.id not in units]
    return [WithdrawOrder(units, to, staying[0] if staying else "")]


def _direct(b: _Board) -> list[Any]:
    return [DirectOrder(u.id, b.rng.random() < 0.5) for u in b.in_battle(b.theirs)]


def _pursue(b: _Board) -> list[Any]:
    units = b.some(b.in_battle(b.mine))
    return [PursueOrder(units)] if units else []


def _capture(b: _Board) -> list[Any]:
    crippled = [u for u in b.in_battle(b.theirs) if u.crippled]
    fresh = [u for u in b.in_battle(b.mine) if not u.crippled]
    return [CaptureOrder(c.id, f.id) for c in crippled for f in fresh]


DRAWS: dict[str, Callable[[_Board], list[Any]]] = {
    "repair": _repair,
    "convert": _convert,
    "retrograde": _moves(RetrogradeOrder),
    "strategic": _moves(StrategicOrder),
    "reserve": _reserve,
    "mission": _mission,
    "command-points": _command_points,
    "replace": _replace,
    "declare": _declare,
    "battles": _battles,
    "retreat": _retreat,
    "withdraw": _withdraw,
    "oppose": lambda b: [OpposeOrder()],
    "approach": lambda b: [ApproachOrder(b.rng.random() < 0.5)],
    "cloak": lambda b: [CloakOrder()],
    "direct": _direct,
    "pursue": _pursue,
    "capture": _capture,
}
"""The order types drawn here, each from the board (the others are the campaign's own)."""

WANDER_STEPS = frozenset(
    step.id for step in load_sequence().steps.values() if any(o in DRAWS for o in step.orders)
)
"""The steps that take orders drawn here (1B, 2A2, 2B3, ... 9A)."""


def plausible_orders(rng: random.Random, state: FeState, seat: str) -> list[Any]:
    """Up to `MOST_KEPT` orders of the types the current step takes, each accepted by the
    engine after the ones before it; often none (the board offers nothing, or the engine
    refuses what was drawn)."""
    step = flow.current(state)
    if step is None:
        return []
    kept: list[Any] = []
    for tag in [t for t in step.orders if t in DRAWS]:
        board = _Board(rng, state, seat)
        drawn = DRAWS[tag](board)
        for order in rng.sample(drawn, min(TRIES, len(drawn))):
            after = accepted(state, seat, order)
            if after is not None:
                kept.append(order)
                state = after
                if len(kept) == MOST_KEPT:
                    return kept
    return kept
