"""F&E's events in a few words, for the summary of what arrived (`engine.core.news`).

The event texts are written for the log: complete, with unit lists, treasuries and rule
numbers. A player syncing wants "LYR built FF at 0408 (2.5 EP)" and "LYR moved 6 units
0303->0701". `headline` words the kinds whose data allow it shorter, treats F&E's own
bookkeeping (supply checks, phase openings, fighter replacement, the long battle reports whose
results the damage and allocation events already say) as routine, and leaves every other kind
to `engine.core.news.plain_headline`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.core.news import ROUTINE_KINDS, plain_headline, shorten, without_rule
from engine.core.ruleset import Event
from engine.fe.economics import fmt_ep

ENGINE_DICE = ("variable BIR", "combat die", "capture", "pursuit")
"""How the purposes of the dice the engine asks for itself begin (`engine.fe.steps.combat_round`,
`pursuit_round`, `combat_capture`, `pursuit_die`; the news test checks them against those
modules, which this module does not import): the events they decide are listed instead. Any
other roll is a player's own ``roll`` order, whose dice no rule reads: its result is news."""

ROUTINE = (ROUTINE_KINDS - {"roll"}) | {
    "phase",
    "supply",
    "fighters",
    "battle-report",
    "intensity",
    "reserve-markers",
}
"""Kinds counted as routine: bookkeeping the engine does every player turn, or detail that
another event of the same packet already sums up."""


def headline(event: Event) -> str | None:
    """``event`` in a few words, or None when it is routine (see `ROUTINE`)."""
    if event.kind in ROUTINE or _no_battle(event) or _engine_dice(event):
        return None
    if event.kind == "roll":  # a player's own dice (the plain wording counts every roll)
        return shorten(without_rule(event.text))
    worder = _WORDERS.get(event.kind)
    if worder is not None:
        try:
            return worder(event.data)
        except (KeyError, TypeError, IndexError, ValueError):
            pass  # data of another shape (an older event): the text still says it
    return plain_headline(event)


def _engine_dice(event: Event) -> bool:
    """A roll of the engine's own dice (`ENGINE_DICE`), or one whose purpose is not told."""
    if event.kind != "roll":
        return False
    purpose = event.data.get("purpose")
    return not isinstance(purpose, str) or purpose.startswith(ENGINE_DICE)


def _no_battle(event: Event) -> bool:
    """The combat loop's order of the battle hexes when there are none (the phase passes)
    or one: the battle-hex list of the same phase already said as much."""
    hexes = event.data.get("hexes") if list(event.data) == ["hexes"] else None
    return event.kind == "battle" and isinstance(hexes, list) and len(hexes) <= 1


def _units(units: Any) -> str:
    """One unit by its id, several by their count."""
    listed = list(units)
    return str(listed[0]) if len(listed) == 1 else f"{len(listed)} units"


def _build(data: dict[str, Any]) -> str:
    instead = f" instead of {data['instead_of']}" if data.get("instead_of") else ""
    cost = fmt_ep(int(data["cost2"]))
    return f"{data['empire']} built {data['cls']}{instead} at {data['hex']} ({cost} EP)"


def _move(data: dict[str, Any]) -> str:
    path = list(data["path"])
    return f"{data['empire']} moved {_units(data['units'])} {path[0]}->{path[-1]}"


def _strategic(data: dict[str, Any]) -> str:
    return f"{data['empire']} moved {_units(data['units'])} strategically to {data['to']}"


def _reserve(data: dict[str, Any]) -> str:
    return f"{data['empire']} made {_units(data['units'])} in {data['hex']} a reserve"


def _income(data: dict[str, Any]) -> str:
    return f"{data['empire']} collects {fmt_ep(int(data['ep2']))} EP"


def _release(data: dict[str, Any]) -> str:
    return f"{data['empire']} {data['fleet']} released"


def _reinforcement(data: dict[str, Any]) -> str:
    units = _units(data["units"])
    return f"{data['empire']} {data['fleet']} receives {units} in {data['hex']}"


def _economy(data: dict[str, Any]) -> str:
    return f"{data['empire']} goes on a {data['economy']} economy"


_WORDERS: dict[str, Callable[[dict[str, Any]], str]] = {
    "income": _income,
    "release": _release,
    "reinforcement": _reinforcement,
    "economy": _economy,
    "build": _build,
    "move": _move,
    "strategic": _strategic,
    "reserve": _reserve,
}
