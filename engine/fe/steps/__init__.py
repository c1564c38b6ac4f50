"""The engine's share of the sequence of play: one rules area per module.

`engine.fe.data.sequence.json` marks the steps the engine plays: ``automatic`` steps it
carries out itself as the game reaches them (income, supply checks), and ``decision`` steps
whose orders it checks against the board (set-up, repairs, builds, movement, reaction,
retrograde, strategic movement, reserves). Each step names its ``area``; `area` finds the
module that plays it. Everything else stays manual, with typed adjustments (`adjust`).
"""

from __future__ import annotations

from engine.fe.steps import (
    adjust,
    arrivals,
    battles,
    captures,
    combat,
    combat_capture,
    combat_damage,
    combat_directed,
    combat_pursuit,
    combat_retreat,
    combat_small_scale,
    combat_withdrawal,
    economy,
    missions,
    movement,
    replacements,
    reserves,
    retrograde,
    setup_stage,
    shipyard,
    strategic,
    supply,
    war,
)
from engine.fe.steps.base import Area

AREAS: dict[str, Area] = {
    a.name: a
    for a in (
        adjust.AREA,
        arrivals.AREA,
        battles.AREA,
        combat.AREA,
        combat_capture.AREA,
        combat_damage.AREA,
        combat_directed.AREA,
        combat_pursuit.AREA,
        combat_retreat.AREA,
        combat_small_scale.AREA,
        combat_withdrawal.AREA,
        captures.AREA,
        economy.AREA,
        missions.AREA,
        movement.AREA,
        replacements.AREA,
        reserves.AREA,
        retrograde.AREA,
        setup_stage.AREA,
        shipyard.AREA,
        strategic.AREA,
        supply.AREA,
        war.AREA,
    )
}
"""Every rules area by name, as the sequence data names them."""

ORDER_AREAS: dict[str, Area] = {order: a for a in AREAS.values() for order in a.orders}
"""The area that checks and applies each engine-checked order type."""


def area(name: str) -> Area:
    return AREAS[name]
