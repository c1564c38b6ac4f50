"""What the installed rulesets offer beyond their games: scenario details, data checks, the
plug-ins left out, and their printed maps read ahead of time.

Every answer is found by ruleset id through the plug-in registries (`saves.registry` for the
rules and face, `tui.rulesets` for client code), so nothing here names a ruleset.
"""

from __future__ import annotations

from typing import Any

import msgspec

from engine.core.errors import HexpostError
from saves.registry import face_for, installed
from saves.replica import GameRow
from tui.rulesets import Calculator, DataProblem, ScenarioDetails, client_for
from tui.rulesets import installed as installed_clients
from tui.services.start import ruleset_of_scenario


class PluginNote(msgspec.Struct, frozen=True):
    """A plug-in hexpost left out, and why: shown by ``scenarios`` and ``data check``."""

    group: str
    name: str
    value: str
    problem: str

    @property
    def text(self) -> str:
        return f"plug-in {self.name} ({self.value}, {self.group}) left out: {self.problem}"


def plugin_notes() -> list[PluginNote]:
    """Every ruleset or client plug-in that failed to load, by name."""
    notes = [
        PluginNote("hexpost.rulesets", p.name, p.value, p.problem) for p in installed().problems
    ]
    notes += [
        PluginNote("hexpost.clients", p.name, p.value, p.problem)
        for p in installed_clients().problems
    ]
    return notes


def scenario_details(scenario_id: str, turn: int | None = None) -> ScenarioDetails:
    """What ``hexpost scenario info`` prints: the ruleset client's details, or the scenario's
    entry in the list when the ruleset adds none. With ``turn``: the client's view of that
    game turn (``--turn``); a ruleset without one is refused by name."""
    ruleset = ruleset_of_scenario(scenario_id)
    if turn is not None:
        found = client_for(ruleset.id).turn_details(scenario_id, turn)
        if found is None:
            raise HexpostError(f"the {ruleset.id} ruleset shows no view of one turn (--turn)")
        return found
    details = client_for(ruleset.id).scenario_details(scenario_id)
    if details is not None:
        return details
    info = next(s for s in ruleset.scenarios() if s.id == scenario_id)
    record: dict[str, Any] = {
        "scenario": info.id,
        "title": info.title,
        "seats": [
            {"seat": s.seat, "side": s.side, "commands": list(s.commands)} for s in info.seats
        ],
    }
    seats = "; ".join(f"{s.seat} ({s.side})" for s in info.seats)
    return ScenarioDetails(record, f"{info.id}: {info.title}\nseats: {seats}")


def data_problems() -> list[DataProblem]:
    """Broken references in every installed ruleset's shipped data, then the plug-ins that
    could not load at all (each named, as a problem of its own)."""
    problems: list[DataProblem] = []
    for plugin in installed().plugins:
        problems += client_for(plugin.id).data_problems()
    for note in plugin_notes():
        problems.append(DataProblem(f"plug-in {note.name}", note.value, note.problem))
    return problems


def data_gaps() -> list[DataProblem]:
    """What every installed ruleset's sources leave open (reported, not a failure)."""
    gaps: list[DataProblem] = []
    for plugin in installed().plugins:
        gaps += client_for(plugin.id).data_gaps()
    return gaps


def calculate(name: str, values: dict[str, str], ruleset: str | None = None) -> ScenarioDetails:
    """``hexpost calc NAME``: the first installed ruleset (by id) with that calculator works
    it, or ``ruleset``'s client alone when given (the app's dialog works the rules of the
    game it was opened from); none has one: refused by name."""
    ids = [ruleset] if ruleset is not None else sorted(p.id for p in installed().plugins)
    for ruleset_id in ids:
        found = client_for(ruleset_id).calculate(name, values)
        if found is not None:
            return found
    if ruleset is not None:
        raise HexpostError(f"the {ruleset} ruleset has no {name} calculator")
    raise HexpostError(f"no installed ruleset has a {name} calculator")


def calculators(ruleset: str) -> tuple[Calculator, ...]:
    """The calculators ``ruleset``'s client works, with their fields (empty: none; the app
    then says so instead of opening a dialog)."""
    return client_for(ruleset).calculators()


def has_map(row: GameRow) -> bool:
    """Whether the game's ruleset prints a map for its scenario."""
    return face_for(row.ruleset).map_sheet(row.scenario) is not None


def preload_maps(rows: list[GameRow]) -> None:
    """Read the printed maps the listed games use now (static data, cached): the app's map
    widget would otherwise read one on the event loop, a visible hitch."""
    for ruleset, scenario in sorted({(row.ruleset, row.scenario) for row in rows}):
        face_for(ruleset).map_sheet(scenario)
