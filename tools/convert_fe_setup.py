"""The Wind's set-up, from the reference scenario and order of battle (used by convert_fe_units).

Reads ``the_wind.json`` and ``default_oob.json`` and builds an `engine.fe.oob.ScenarioSetup`
for the scenario's five empires. The source's shapes are checked key by key: an unknown key
stops the run (`SourceError`) rather than losing a fact. The source spells a few fleet names
differently in its events than in its order of battle ("Far Stars" for "Far Stars Fleet");
`Fleets.resolve` matches them and logs each match.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from engine.fe.oob import (
    Batch,
    EmpireSetup,
    Fleet,
    FleetRef,
    HexLimit,
    Mothballs,
    Release,
    ScenarioSetup,
    Target,
    Trigger,
    TurnEvent,
    UnitCount,
    WarEntry,
)
from engine.fe.scenario import decode_scenario
from engine.fe.units import Date

Json = Any
"""Decoded source JSON (its shapes vary: checked key by key)."""

FLEET_KEYS = {
    "hexes", "units", "reserve", "prewar_construction", "strategic_move_arrival_year",
    "strategic_move_arrival_season", "hex_placement_limits",
}  # fmt: skip
NATION_KEYS = {
    "at_war_with", "future_belligerents", "economy", "exhaustion_turns",
    "accumulate_exhaustion_at_peace", "release_conditions", "war_entry_conditions",
}  # fmt: skip
SCENARIO_KEYS = {
    "name", "description", "start_turn", "teams", "team_turn_order", "map", "order_of_battle",
    "setup_order", "nations", "turns",
}  # fmt: skip
ECONOMIES = {"war": "war", "limited_war": "limited-war", "peace": "peace"}
TARGETS = {"hexes": "hexes", "sb": "starbase", "fleet_area": "fleet-area", "nation": "empire"}


class SourceError(Exception):
    """The source holds something this converter does not understand: fix the converter."""


def check_keys(where: str, data: dict[str, Json], known: set[str]) -> None:
    unknown = sorted(set(data) - known)
    if unknown:
        raise SourceError(f"{where}: unknown keys {unknown}")


# --- The Wind's set-up ------------------------------------------------------------------------


def _counts(items: list[Json], where: str) -> tuple[UnitCount, ...]:
    for item in items:
        check_keys(where, item, {"unit", "times"})
    return tuple(UnitCount(item["unit"], int(item.get("times", 1))) for item in items)


def _batch(data: Json, where: str) -> Batch:
    check_keys(where, data, {"year", "season", "units"})
    units = _counts(data["units"], where)
    return Batch(year=data["year"], units=units, season=data.get("season", "spring"))


def _fleet(name: str, data: Json, where: str) -> Fleet:
    check_keys(where, data, FLEET_KEYS)
    arrives = None
    if "strategic_move_arrival_year" in data:
        season = data.get("strategic_move_arrival_season", "spring")
        arrives = Date(data["strategic_move_arrival_year"], season)
    limits = data.get("hex_placement_limits", [])
    for limit in limits:
        check_keys(where, limit, {"key", "value"})
    return Fleet(
        name=name,
        units=_counts(data["units"], where),
        hexes=tuple(sorted(data.get("hexes", ()))),
        reserve=bool(data.get("reserve", False)),
        prewar=tuple(_batch(b, where) for b in data.get("prewar_construction", ())),
        arrives=arrives,
        hex_limits=tuple(HexLimit(limit["key"], limit["value"]) for limit in limits),
    )


class Fleets:
    """Fleet names of the order of battle, to resolve the scenario's slightly different names."""

    def __init__(self, oobs: Json, empires: Iterable[str], log: list[str]) -> None:
        self.names = {e: list(oobs[e]["starting_fleets"]) for e in empires}
        self.log = log

    def resolve(self, empire: str, name: str, where: str) -> str:
        names = self.names[empire]
        if name in names:
            return name
        near = [n for n in names if name in (n.removesuffix(" Fleet"), n + " Fleet")]
        near += [n for n in names if n.removesuffix(" Fleet") == name.removesuffix(" Fleet")]
        near = list(dict.fromkeys(near))
        if len(near) != 1:
            raise SourceError(f"{where}: no fleet {name!r} in the {empire} order of battle")
        self.log.append(f"{where}: fleet {name!r} read as {near[0]!r}")
        return near[0]

    def owner(self, name: str, first: str, where: str) -> FleetRef:
        order = [first] + [e for e in self.names if e != first]
        for empire in order:
            if name in self.names[empire]:
                return FleetRef(empire, name)
        raise SourceError(f"{where}: no fleet {name!r} in any order of battle")


def _trigger(data: Json, owner: str, fleets: Fleets, where: str) -> Trigger:
    check_keys(where, data, {"actors", "action", "one_of"})
    targets = []
    for item in data["one_of"]:
        check_keys(where, item, {"type", "names", "hexes"})
        kind = TARGETS[item.get("type", "hexes")]
        names = item.get("names", [])
        if kind == "starbase" and names != ["any"]:
            raise SourceError(f"{where}: starbase target {names}")
        targets.append(
            Target(
                kind=kind,  # type: ignore[arg-type]
                hexes=tuple(item.get("hexes", ())),
                fleets=tuple(fleets.owner(n, owner, where) for n in names)
                if kind == "fleet-area"
                else (),
                empires=tuple(names) if kind == "empire" else (),
            )
        )
    actors = data["actors"]
    return Trigger(
        any_of=tuple(targets),
        actors=tuple(a for a in actors if a != "future belligerent"),
        future_belligerents="future belligerent" in actors,
        action=data.get("action", "occupies"),
    )


def _empire(code: str, nation: Json, oob: Json, fleets: Fleets) -> EmpireSetup:
    where = f"the_wind.json {code}"
    check_keys(where, nation, NATION_KEYS)
    parts = {"starting_fleets", "mothball_reserve", "production"}
    check_keys(f"default_oob.json {code}", oob, parts)
    if nation.get("exhaustion_turns"):
        raise SourceError(f"{where}: exhaustion_turns is not converted yet")
    mothballs = None
    if "mothball_reserve" in oob:
        data = oob["mothball_reserve"]
        check_keys(f"{code} mothballs", data, {"units", "war_release", "limited_war_release"})
        mothballs = Mothballs(
            units=_counts(data["units"], where),
            war_release=_counts(data.get("war_release", []), where),
            limited_war_release=_counts(data.get("limited_war_release", []), where),
        )
    releases = []
    for item in nation.get("release_conditions", ()):
        check_keys(where, item, {"fleet", "condition"})
        name = fleets.resolve(code, item["fleet"], where)
        releases.append(Release(name, _trigger(item["condition"], code, fleets, where)))
    entries = []
    for item in nation.get("war_entry_conditions", ()):
        check_keys(where, item, {"economy", "condition"})
        trigger = _trigger(item["condition"], code, fleets, where)
        entries.append(WarEntry(ECONOMIES[item["economy"]], trigger))  # type: ignore[arg-type]
    return EmpireSetup(
        empire=code,
        economy=ECONOMIES[nation.get("economy", "war")],  # type: ignore[arg-type]
        at_war_with=tuple(nation.get("at_war_with", ())),
        future_belligerents=tuple(nation.get("future_belligerents", ())),
        exhaustion_at_peace=bool(nation.get("accumulate_exhaustion_at_peace", False)),
        fleets=tuple(
            _fleet(name, data, f"{code} {name}") for name, data in oob["starting_fleets"].items()
        ),
        mothballs=mothballs,
        production=tuple(_batch(b, f"{code} production") for b in oob.get("production", ())),
        releases=tuple(releases),
        war_entry=tuple(entries),
    )


def _events(turns: list[Json], fleets: Fleets) -> tuple[TurnEvent, ...]:
    events = []
    for turn in turns:
        check_keys("the_wind.json turns", turn, {"turn", "national_actions"})
        for empire, block in turn.get("national_actions", {}).items():
            where = f"turn {turn['turn']} {empire}"
            check_keys(where, block, {"actions"})
            wars: list[str] = []
            released: list[str] = []
            for action in block["actions"]:
                check_keys(where, action, {"type", "names"})
                kind = action.get("type", "release_fleets")
                if kind == "declare_war":
                    wars += action["names"]
                elif kind == "release_fleets":
                    released += [fleets.resolve(empire, n, where) for n in action["names"]]
                else:
                    raise SourceError(f"{where}: action {kind}")
            events.append(TurnEvent(turn["turn"], empire, tuple(wars), tuple(released)))
    return tuple(events)


def convert_the_wind(source: Path, log: list[str]) -> ScenarioSetup:
    wind = json.loads((source / "the_wind.json").read_text(encoding="utf-8"))
    check_keys("the_wind.json", wind, SCENARIO_KEYS)
    oobs = json.loads((source / "default_oob.json").read_text(encoding="utf-8"))["oobs"]
    order = tuple(wind["setup_order"])
    fleets = Fleets(oobs, order, log)
    empires = tuple(_empire(e, wind["nations"].get(e, {}), oobs[e], fleets) for e in order)
    return ScenarioSetup(setup_order=order, empires=empires, events=_events(wind["turns"], fleets))


def check_header(source: Path, header: bytes) -> None:
    """The hand-written header must agree with the source on sides, order and turns."""
    wind = json.loads((source / "the_wind.json").read_text(encoding="utf-8"))
    scenario = decode_scenario(header)
    teams = {t["name"]: tuple(t["nations"]) for t in wind["teams"]}
    mine = {s.side: tuple(s.empires) for s in scenario.seats}
    if {k: sorted(v) for k, v in teams.items()} != {k: sorted(v) for k, v in mine.items()}:
        raise SourceError(f"the-wind.json seats {mine} differ from the source's teams {teams}")
    sides = [next(s.side for s in scenario.seats if s.seat == t) for t in scenario.turn_order]
    if sides != wind["team_turn_order"]:
        raise SourceError(f"turn order {sides} differs from {wind['team_turn_order']}")
    if wind["start_turn"] != {"year": 168, "season": "fall"} or scenario.first_turn != 1:
        raise SourceError("The Wind starts on turn 1, Fall Y168")
    if max(t["turn"] for t in wind["turns"]) != scenario.last_turn:
        raise SourceError("the last turn differs from the source's")


def all_counts(empire: EmpireSetup) -> Iterator[UnitCount]:
    for fleet in empire.fleets:
        yield from fleet.units
        for batch in fleet.prewar:
            yield from batch.units
    for batch in empire.production:
        yield from batch.units
    if empire.mothballs:
        yield from empire.mothballs.units
        yield from empire.mothballs.war_release
        yield from empire.mothballs.limited_war_release
