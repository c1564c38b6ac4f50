"""The tutorial scenario played forward, for the tests of the rules areas.

After set-up the Kzinti Border Guard (KZI-0001 CC, -0002 BC, -0003 CL, -0004/-0005 FF)
stands in 1105 and the Starbase Squadron (KZI-0006 BC, -0007 SF, not released on turn 1) in
1704; the Klingon Strike Force (KLI-0001 D7C, -0002/-0003 D7, -0004 F5S) in 1307 and the
Flank Patrol (KLI-0005 D6, -0006 F5) in 1607. The map's bases are units too: Klingon
battle stations KLI-B001..B005 in 1107, 1307, 1507, 1707, 1807; Kzinti battle stations
KZI-B001..B003 in 1205, 1405, 1605, the starbase KZI-B004 in 1704, KZI-B005/B006 in 1803,
1805. The coalition (KLI) has the first player turn.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import msgspec

from engine.core.ruleset import Event
from engine.fe import FE
from engine.fe.forces import Unit
from engine.fe.model import FeState
from engine.fe.orders import parse_orders
from tests.engine.fe.helpers import at_step, run_until

SEATS = ["coalition", "alliance"]


def orders(state: FeState, seat: str, *items: Mapping[str, Any]) -> tuple[FeState, list[Event]]:
    """Validate then apply each order (JSON form), failing loudly on a refusal."""
    events: list[Event] = []
    for order in parse_orders(list(items)):
        problems = FE.validate(state, seat, order)
        assert not problems, problems
        applied = FE.apply(state, seat, order)
        events.extend(applied.events)
        state = applied.state
    return state, events


def refusals(state: FeState, seat: str, item: Mapping[str, Any]) -> list[str]:
    """The refusals of one order, each as ``message (rule)``."""
    (order,) = parse_orders([item])
    return [f"{v.message} ({v.rule})" for v in FE.validate(state, seat, order)]


TUTORIAL_SETUP: dict[str, list[dict[str, Any]]] = {
    "alliance": [
        {"type": "place", "fleet": "Border Guard", "hex": "1105"},
        {"type": "place", "fleet": "Starbase Squadron", "hex": "1704"},
        {"type": "done"},
    ],
    "coalition": [
        {"type": "place", "fleet": "Strike Force", "hex": "1307"},
        {"type": "place", "fleet": "Flank Patrol", "hex": "1607"},
        {"type": "done"},
    ],
}
"""The set-up the module notes describe, as each seat's orders (KZI places first)."""


@functools.cache
def after_setup() -> FeState:
    """Turn 1, the coalition's step 1A1, every fleet set up as the module notes say."""
    state = FE.initial_state("tutorial", SEATS, {})
    for seat in ("alliance", "coalition"):
        state, _ = orders(state, seat, *TUTORIAL_SETUP[seat])
    return state


def placed(state: FeState, hexes: Mapping[str, int], *new: Unit) -> FeState:
    """The state with units moved by id (``{"KLI-0001": 1205}``) and new units added."""
    board = state.board
    moved = [msgspec.structs.replace(board.unit(i), hex=h) for i, h in hexes.items()]
    return state.with_board(board.with_units([*moved, *new]))


def run_to(state: FeState, step_id: str, events: list[Event] | None = None) -> FeState:
    """Answer ``done`` (or a secret choice) to everything until ``step_id`` is current."""
    return run_until(state, at_step(step_id), events)


def texts(events: list[Event], kind: str) -> list[str]:
    return [e.text for e in events if e.kind == kind]
