"""Every cross-reference of the shipped F&E data, checked: a broken one is a packaging bug.

The unit tables, the scenarios and their set-ups name each other by strings (class ids, fleet
names, empire codes, hexes). A typo there would surface mid-game, on one machine, as a crash or
a silent wrong count; `check_data` finds all of them at once, naming the file and the entry.
The shipped data must check clean (a test says so); tests pass broken copies to show that each
kind of problem is found.

The map is the other source of truth: when ``engine.fe.galaxy.load_galaxy`` is available and
loads, empires must be empires of the map, provinces provinces of their empire, and a fleet
must set up in its own empire's territory (inside the provinces its scenario gives it, when it
lists them): a mistyped hex id (1141 for 1411) usually lands elsewhere. Without the map only
its bounds (61 columns by 19 rows) are checked.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import msgspec

from engine.fe.oob import EmpireSetup, ScenarioSetup, Target, Trigger, UnitCount
from engine.fe.scenario import Scenario, load_scenarios
from engine.fe.units import UnitClass, UnitTables, load_units

UNITS_FILE = "units.json"
MAP_COLUMNS = 61
MAP_ROWS = 19
MAP_FILE = "map.json"
CHART_INCOME = {
    "FED": 221, "KLI": 142, "ROM": 113, "KZI": 93, "GOR": 87, "THO": 22, "HYD": 74,
    "LYR": 115, "ISC": 151,
}  # fmt: skip
"""The economics chart's starting EP per empire (753.0), to compare with the province rule."""


class DataProblem(msgspec.Struct, frozen=True):
    """One broken reference: the file (under ``engine/fe/data``), the entry, what is wrong."""

    file: str
    entry: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}: {self.entry}: {self.message}"


class MapView:
    """What the checks need from the map, read from a `engine.fe.galaxy.Galaxy`-like object.

    Tests pass small stand-ins: ``hex(h)`` (with ``.empire`` and ``.province``, ValueError off
    the map), ``empires`` (with ``.id``) and ``provinces`` (with ``.id``, ``.empire``, ``.hexes``).
    """

    def __init__(self, galaxy: Any) -> None:
        self.galaxy = galaxy
        self.empires: set[str] = {e.id for e in galaxy.empires}
        self.provinces: dict[str, Any] = {p.id: p for p in galaxy.provinces}

    def hex(self, hex_id: int) -> Any:
        """The map's hex record, or None for a hex that is not on the map."""
        try:
            return self.galaxy.hex(hex_id)
        except (KeyError, IndexError, ValueError):
            return None

    def owner(self, hex_id: int) -> str:
        found = self.hex(hex_id)
        return str(getattr(found, "empire", "")) if found is not None else ""


def shipped_map() -> MapView | None:
    """The map of ``engine.fe.galaxy`` if that module can load it (it may not exist yet)."""
    try:
        from engine.fe import galaxy

        return MapView(galaxy.load_galaxy())
    except (ImportError, AttributeError, OSError, ValueError, msgspec.MsgspecError):
        return None


def on_map(hex_id: int) -> bool:
    """Inside the map's bounds (columns 1..61, rows 1..19)."""
    column, row = divmod(hex_id, 100)
    return 1 <= column <= MAP_COLUMNS and 1 <= row <= MAP_ROWS


_SHIPPED: Any = object()


def check_data(
    *,
    units: UnitTables | None = None,
    scenarios: Sequence[Scenario] | None = None,
    galaxy: MapView | None = _SHIPPED,
) -> list[DataProblem]:
    """Every problem of the given data (default: the shipped data and map), in file order."""
    units = load_units() if units is None else units
    scenarios = load_scenarios() if scenarios is None else scenarios
    world = shipped_map() if galaxy is _SHIPPED else galaxy
    problems = list(check_units(units))
    for scenario in scenarios:
        problems += check_scenario(scenario, units, world)
    return problems


def income_gaps(
    galaxy: Any | None = _SHIPPED, scenarios: Sequence[Scenario] | None = None
) -> list[DataProblem]:
    """What the sources leave open, not a broken reference: empires whose chart income
    (753.0) the province rule does not reproduce and that no scenario here gives a figure
    (``EmpireSetup.income_ep``). Today: the Tholians, 22 EP on the chart, 7 by the map."""
    world = shipped_map() if galaxy is _SHIPPED else galaxy
    if world is None or not hasattr(world.galaxy, "income"):
        return []
    scenarios = load_scenarios() if scenarios is None else scenarios
    given = {
        e.empire for s in scenarios if s.setup is not None for e in s.setup.empires if e.income_ep
    }
    gaps = []
    for code, chart in CHART_INCOME.items():
        if code not in world.empires or code in given:
            continue
        by_map = world.galaxy.income(code)
        if by_map != chart:
            text = (
                f"the economics chart (753.0) gives {chart} EP, its provinces and planets "
                f"{by_map}; no shipped scenario gives the figure (a set-up's income_ep), so a "
                f"game with {code} would pay {by_map}"
            )
            gaps.append(DataProblem(MAP_FILE, f"{code} income", text))
    return gaps


# --- the unit tables --------------------------------------------------------------------------


def check_units(units: UnitTables) -> Iterator[DataProblem]:
    seen: set[tuple[str, str]] = set()
    for unit in units.classes:
        entry = f"{unit.empire} {unit.id}"
        if unit.key in seen:
            yield DataProblem(UNITS_FILE, entry, "the class is listed twice")
        seen.add(unit.key)
        yield from _unit_references(units, unit, entry)
    for other in units.others:
        if units.find(other.empire, other.id):
            yield DataProblem(
                UNITS_FILE, f"{other.empire} {other.id}", "listed as other name but is a class"
            )


def _unit_references(units: UnitTables, unit: UnitClass, entry: str) -> Iterator[DataProblem]:
    for conv in unit.conversions:
        empire = conv.empire or unit.empire
        if empire not in units.empires:
            yield DataProblem(UNITS_FILE, entry, f"conversion from unknown empire {empire}")
            continue
        for name in conv.source:
            if not _known(units, empire, name):
                yield DataProblem(UNITS_FILE, entry, f"conversion from unknown class {name}")
        for name in conv.plus:
            if not _known(units, unit.empire, name):
                yield DataProblem(UNITS_FILE, entry, f"conversion uses unknown class {name}")
    for sub in unit.substitutions:
        for name in sub.instead_of:
            if not _known(units, unit.empire, name):
                yield DataProblem(UNITS_FILE, entry, f"substitution for unknown class {name}")


def _known(units: UnitTables, empire: str, name: str, *, hulls: bool = True) -> bool:
    if units.find(empire, name):
        return True
    other = units.other(empire, name)
    return other is not None and (hulls or other.kind != "hull")


# --- scenarios and their set-ups --------------------------------------------------------------


class _Scope:
    """One scenario's names, to check its set-up against."""

    def __init__(self, scenario: Scenario, units: UnitTables, world: MapView | None) -> None:
        self.scenario = scenario
        self.units = units
        self.world = world
        self.header = f"scenarios/{scenario.id}.json"
        self.file = f"setups/{scenario.id}.json"
        self.known_empires = set(units.empires)
        if world is not None:
            self.known_empires |= world.empires

    def problem(self, entry: str, message: str) -> DataProblem:
        return DataProblem(self.file, entry, message)

    def empires(self, entry: str, codes: Iterable[str], what: str) -> Iterator[DataProblem]:
        for code in codes:
            if code not in self.known_empires:
                yield self.problem(entry, f"{what} names unknown empire {code}")

    def hexes(self, entry: str, hexes: Iterable[int], what: str) -> Iterator[DataProblem]:
        for hex_id in hexes:
            if not on_map(hex_id):
                yield self.problem(entry, f"{what} hex {hex_id:04d} is off the map")
            elif self.world is not None and self.world.hex(hex_id) is None:
                yield self.problem(entry, f"{what} hex {hex_id:04d} is not a hex of the map")


def check_scenario(
    scenario: Scenario, units: UnitTables, world: MapView | None
) -> Iterator[DataProblem]:
    scope = _Scope(scenario, units, world)
    seat_empires = [e for seat in scenario.seats for e in seat.empires]
    for code in seat_empires:
        if code not in units.empires:
            yield DataProblem(scope.header, "seats", f"empire {code} has no unit table")
        if world is not None and code not in world.empires:
            yield DataProblem(scope.header, "seats", f"empire {code} is not on the map")
    if scenario.setup is not None:
        yield from _check_setup(scope, scenario.setup, seat_empires)


def _check_setup(
    scope: _Scope, setup: ScenarioSetup, seat_empires: list[str]
) -> Iterator[DataProblem]:
    codes = [e.empire for e in setup.empires]
    if sorted(setup.setup_order) != sorted(codes):
        yield scope.problem("setup_order", f"must name each set-up empire once: {codes}")
    if sorted(codes) != sorted(seat_empires):
        yield scope.problem("empires", f"set up {codes}, but the seats play {seat_empires}")
    for empire in setup.empires:
        yield from _check_empire(scope, setup, empire)
    first, last = scope.scenario.first_turn, scope.scenario.last_turn
    for event in setup.events:
        entry = f"turn {event.turn} {event.empire}"
        if not first <= event.turn <= last:
            yield scope.problem(entry, f"turn outside the scenario's turns {first}-{last}")
        owner = setup.empire(event.empire)
        if owner is None:
            yield scope.problem(entry, f"empire {event.empire} is not set up")
            continue
        yield from scope.empires(entry, event.declare_war, "declaration of war")
        for name in event.release:
            if owner.fleet(name) is None:
                yield scope.problem(entry, f"release of unknown fleet {name!r}")


def _check_empire(
    scope: _Scope, setup: ScenarioSetup, empire: EmpireSetup
) -> Iterator[DataProblem]:
    code = empire.empire
    if code not in scope.known_empires:
        yield scope.problem(code, "unknown empire")
        return
    yield from scope.empires(code, empire.at_war_with, "at war with")
    yield from scope.empires(code, empire.future_belligerents, "future belligerents")
    yield from _check_provinces(scope, empire)
    yield from _check_income(scope, empire)
    names = [f.name for f in empire.fleets]
    for name in sorted({n for n in names if names.count(n) > 1}):
        yield scope.problem(f"{code} fleet {name!r}", "two fleets share this name")
    for fleet in empire.fleets:
        entry = f"{code} fleet {fleet.name!r}"
        items = list(fleet.units) + [u for batch in fleet.prewar for u in batch.units]
        yield from _check_units(scope, code, entry, items, hulls=False)
        yield from scope.hexes(entry, fleet.hexes, "set-up")
        yield from _check_territory(scope, empire, entry, fleet.hexes)
        for limit in fleet.hex_limits:
            if limit.hex not in fleet.hexes:
                yield scope.problem(entry, f"limit for hex {limit.hex:04d} outside its hexes")
    if empire.mothballs is not None:
        m = empire.mothballs
        items = [*m.units, *m.war_release, *m.limited_war_release]
        yield from _check_units(scope, code, f"{code} mothballs", items, hulls=False)
    for batch in empire.production:
        entry = f"{code} production {batch.season} Y{batch.year}"
        yield from _check_units(scope, code, entry, batch.units, hulls=True)
    for release in empire.releases:
        entry = f"{code} release of {release.fleet!r}"
        if empire.fleet(release.fleet) is None:
            yield scope.problem(entry, "no such fleet")
        yield from _check_trigger(scope, setup, entry, release.trigger)
    for war in empire.war_entry:
        yield from _check_trigger(scope, setup, f"{code} war entry", war.trigger)


def _check_units(
    scope: _Scope, code: str, entry: str, items: Iterable[UnitCount], *, hulls: bool
) -> Iterator[DataProblem]:
    for item in items:
        if not _known(scope.units, code, item.unit, hulls=hulls):
            yield scope.problem(entry, f"{item.unit} is not a {code} unit class")
        if item.count < 1:
            yield scope.problem(entry, f"{item.unit} count {item.count} is not positive")


def _check_provinces(scope: _Scope, empire: EmpireSetup) -> Iterator[DataProblem]:
    if scope.world is None:
        return
    for name in empire.provinces:
        province = scope.world.provinces.get(name)
        if province is None:
            yield scope.problem(f"{empire.empire} provinces", f"no province {name} on the map")
        elif province.empire != empire.empire:
            yield scope.problem(
                f"{empire.empire} provinces", f"{name} is a province of {province.empire}"
            )


def _check_income(scope: _Scope, empire: EmpireSetup) -> Iterator[DataProblem]:
    """An empire whose chart income the province rule misses needs its scenario's figure."""
    world = scope.world
    chart = CHART_INCOME.get(empire.empire)
    if world is None or chart is None or empire.income_ep or empire.provinces:
        return
    if hasattr(world.galaxy, "income") and world.galaxy.income(empire.empire) != chart:
        by_map = world.galaxy.income(empire.empire)
        yield scope.problem(
            f"{empire.empire} income",
            f"the chart (753.0) gives {chart} EP, the map {by_map}: set income_ep",
        )


def _check_territory(
    scope: _Scope, empire: EmpireSetup, entry: str, hexes: Iterable[int]
) -> Iterator[DataProblem]:
    """Set-up hexes lie in the empire's territory (in its listed provinces, if it lists any)."""
    if scope.world is None:
        return
    world = scope.world
    allowed = {
        h for name in empire.provinces if name in world.provinces
        for h in world.provinces[name].hexes
    }  # fmt: skip
    for hex_id in hexes:
        if world.hex(hex_id) is None:
            continue  # reported as off the map
        owner = world.owner(hex_id)
        if owner != empire.empire:
            yield scope.problem(entry, f"set-up hex {hex_id:04d} is {owner or 'nobody'}'s")
        elif empire.provinces and hex_id not in allowed:
            yield scope.problem(entry, f"set-up hex {hex_id:04d} is outside its provinces")


def _check_trigger(
    scope: _Scope, setup: ScenarioSetup, entry: str, trigger: Trigger
) -> Iterator[DataProblem]:
    yield from scope.empires(entry, trigger.actors, "trigger actor")
    for target in trigger.any_of:
        yield from _check_target(scope, setup, entry, target)


def _check_target(
    scope: _Scope, setup: ScenarioSetup, entry: str, target: Target
) -> Iterator[DataProblem]:
    yield from scope.hexes(entry, target.hexes, "target")
    yield from scope.empires(entry, target.empires, "target")
    for ref in target.fleets:
        owner = setup.empire(ref.empire)
        if owner is None or owner.fleet(ref.fleet) is None:
            yield scope.problem(entry, f"target fleet {ref.empire} {ref.fleet!r} does not exist")
