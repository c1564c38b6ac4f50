"""The engine's share of the sequence of play: one rules area per module.

`engine.fe.data.sequence.json` marks the steps the engine plays: ``automatic`` steps it
carries out itself as the game reaches them (income, supply checks), and ``decision`` steps
whose orders it checks against the board (set-up, repairs, builds, movement, reaction,
retrograde, strategic movement, reserves). Each step names its ``area``; `area` finds the
module that plays it. Everything else stays manual, with typed adjustments (`adjust`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from engine.core import caches
from engine.fe.steps.base import Area

_MODULES: dict[str, str] = {
    "adjust": "adjust",
    "arrivals": "arrivals",
    "battles": "battles",
    "combat": "combat",
    "capture": "combat_capture",
    "damage": "combat_damage",
    "directed": "combat_directed",
    "pursuit": "combat_pursuit",
    "retreat": "combat_retreat",
    "small_scale": "combat_small_scale",
    "withdrawal": "combat_withdrawal",
    "captures": "captures",
    "economy": "economy",
    "missions": "missions",
    "movement": "movement",
    "replacements": "replacements",
    "reserves": "reserves",
    "retrograde": "retrograde",
    "setup": "setup_stage",
    "shipyard": "shipyard",
    "strategic": "strategic",
    "supply": "supply",
    "war": "war",
}
"""Every rules area by name, as the sequence data names them, with the module that plays it
(in the order their hooks run). A module is imported when its area is first asked for
(`area`), or all of them when `AREAS` or `ORDER_AREAS` is first read: importing the ruleset
(opening a game to show it) does not pay for the rules of every step."""

if TYPE_CHECKING:
    from engine.fe.sequence import Step

    AREAS: dict[str, Area]
    """Every rules area by name, as the sequence data names them."""
    ORDER_AREAS: dict[str, Area]
    """The area that checks and applies each engine-checked order type."""


@caches.derived(maxsize=len(_MODULES), shipped=True)
def area(name: str) -> Area:
    """The area ``name``, its module imported on first use. The flow asks for an area at
    every step it passes (skip, answering, automatic, finish): each is kept once found, so
    the import machinery runs once per area, not once per step. Bounded by the areas there
    are; an unknown name raises (KeyError) and is not kept."""
    module = importlib.import_module(f"{__name__}.{_MODULES[name]}")
    found: Area = module.AREA
    if found.name != name:
        raise AssertionError(f"{module.__name__} plays area {found.name!r}, not {name!r}")
    return found


@caches.static
def _areas() -> dict[str, Area]:
    return {name: area(name) for name in _MODULES}


@caches.static
def _order_areas() -> dict[str, Area]:
    return {order: a for a in _areas().values() for order in a.orders}


def order_area(step: Step, tag: str) -> Area:
    """The area that checks an engine order at ``step``: the pursuit battle's steps take
    ``direct`` and ``allocate`` themselves (`engine.fe.steps.combat_pursuit`); elsewhere
    the order's own."""
    if step.area == "pursuit" and tag in step.orders and tag != "adjust":
        return area("pursuit")
    return _order_areas()[tag]


def __getattr__(attr: str) -> Any:
    """`AREAS` and `ORDER_AREAS`, built (every step module imported) when first read."""
    if attr == "AREAS":
        return _areas()
    if attr == "ORDER_AREAS":
        return _order_areas()
    raise AttributeError(f"module {__name__!r} has no attribute {attr!r}")
