"""`check_data` passes the shipped data and reports every kind of broken reference.

Each test breaks one fact of a copy of the shipped data and checks that the problem names the
right file and entry. The map-dependent checks run against a tiny stand-in map, so they do not
depend on the shipped map's state.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import msgspec
import pytest

from engine.fe.datacheck import DataProblem, MapView, check_data, income_gaps, shipped_map
from engine.fe.oob import EmpireSetup, ScenarioSetup
from engine.fe.scenario import Scenario, ScenarioSeat, find_scenario
from engine.fe.units import UnitTables, load_units

WIND = "setups/the-wind.json"
Mutate = Callable[[dict[str, Any]], None]


def _wind() -> Scenario:
    found = find_scenario("the-wind")
    assert found is not None
    return found


def _broken_setup(mutate: Mutate, scenario: Scenario | None = None) -> Scenario:
    scenario = scenario or _wind()
    data = json.loads(msgspec.json.encode(scenario.setup))
    mutate(data)
    setup = msgspec.convert(data, type=ScenarioSetup)
    return msgspec.structs.replace(scenario, setup=setup)


def _broken_units(mutate: Mutate) -> UnitTables:
    data = json.loads(msgspec.json.encode(load_units()))
    mutate(data)
    return msgspec.convert(data, type=UnitTables)


def _empire(data: dict[str, Any], code: str) -> dict[str, Any]:
    return next(e for e in data["empires"] if e["empire"] == code)


def _fleet(data: dict[str, Any], code: str, name: str) -> dict[str, Any]:
    return next(f for f in _empire(data, code)["fleets"] if f["name"] == name)


def _unit(data: dict[str, Any], empire: str, class_id: str) -> dict[str, Any]:
    return next(c for c in data["classes"] if c["empire"] == empire and c["id"] == class_id)


def _problems(scenario: Scenario, world: MapView | None = None) -> list[DataProblem]:
    return check_data(scenarios=[scenario], galaxy=world)


def test_shipped_data_is_clean() -> None:
    assert check_data() == []
    assert check_data(galaxy=None) == []


def test_shipped_data_is_clean_against_the_shipped_map() -> None:
    world = shipped_map()
    if world is None:
        pytest.skip("engine.fe.galaxy cannot load a map yet")
    assert check_data(galaxy=world) == []


# --- the unit tables ---------------------------------------------------------------------------


def test_conversion_from_an_unknown_class() -> None:
    def mutate(data: dict[str, Any]) -> None:
        _unit(data, "FED", "CVS")["conversions"][0]["source"] = ["CAX"]

    problems = check_data(units=_broken_units(mutate), scenarios=[])
    assert problems == [DataProblem("units.json", "FED CVS", "conversion from unknown class CAX")]


def test_substitution_and_conversion_extras() -> None:
    def mutate(data: dict[str, Any]) -> None:
        _unit(data, "KLI", "D7C")["substitutions"][0]["instead_of"] = ["D8"]
        _unit(data, "LYR", "DN")["conversions"][0]["plus"] = ["DNX"]
        _unit(data, "ROM", "KC9")["conversions"][0]["empire"] = "XXX"

    problems = check_data(units=_broken_units(mutate), scenarios=[])
    assert [(p.entry, p.message) for p in problems] == [
        ("KLI D7C", "substitution for unknown class D8"),
        ("LYR DN", "conversion uses unknown class DNX"),
        ("ROM KC9", "conversion from unknown empire XXX"),
    ]


def test_a_class_listed_twice() -> None:
    def mutate(data: dict[str, Any]) -> None:
        data["classes"].append(_unit(data, "THO", "PC"))

    problems = check_data(units=_broken_units(mutate), scenarios=[])
    assert problems == [DataProblem("units.json", "THO PC", "the class is listed twice")]


def test_unknown_class_in_the_order_of_battle() -> None:
    def mutate(data: dict[str, Any]) -> None:
        _fleet(data, "KLI", "Home Fleet")["units"][0]["unit"] = "D99"
        _empire(data, "FED")["mothballs"]["units"][0]["unit"] = "CAA"
        _fleet(data, "FED", "Third Fleet")["prewar"][0]["units"][0]["unit"] = "DNN"

    problems = _problems(_broken_setup(mutate))
    assert problems == [
        DataProblem(WIND, "KLI fleet 'Home Fleet'", "D99 is not a KLI unit class"),
        DataProblem(WIND, "FED fleet 'Third Fleet'", "DNN is not a FED unit class"),
        DataProblem(WIND, "FED mothballs", "CAA is not a FED unit class"),
    ]


def test_hull_slots_only_on_the_schedule() -> None:
    def mutate(data: dict[str, Any]) -> None:
        _fleet(data, "HYD", "Home Fleet")["units"][0]["unit"] = "CC"  # a slot, not a ship

    problems = _problems(_broken_setup(mutate))
    assert problems == [DataProblem(WIND, "HYD fleet 'Home Fleet'", "CC is not a HYD unit class")]


def test_set_up_hex_off_the_map() -> None:
    def mutate(data: dict[str, Any]) -> None:
        _fleet(data, "KZI", "Home Fleet")["hexes"] = [1420]
        _fleet(data, "LYR", "Home Fleet")["hexes"] = [6201, 408]

    problems = _problems(_broken_setup(mutate))
    assert [(p.entry, p.message) for p in problems] == [
        ("LYR fleet 'Home Fleet'", "set-up hex 6201 is off the map"),
        ("LYR fleet 'Home Fleet'", "limit for hex 0707 outside its hexes"),
        ("KZI fleet 'Home Fleet'", "set-up hex 1420 is off the map"),
    ]


def test_events_name_unknown_fleets_and_empires() -> None:
    def mutate(data: dict[str, Any]) -> None:
        data["events"][0]["release"] = ["Count Fleet"]
        data["events"][2]["declare_war"] = ["KZN"]
        data["events"].append({"turn": 9, "empire": "ROM", "release": ["Home Fleet"]})

    problems = _problems(_broken_setup(mutate))
    assert [(p.entry, p.message) for p in problems] == [
        ("turn 1 KZI", "release of unknown fleet 'Count Fleet'"),
        ("turn 2 KLI", "declaration of war names unknown empire KZN"),
        ("turn 9 ROM", "turn outside the scenario's turns 1-6"),
        ("turn 9 ROM", "empire ROM is not set up"),
    ]


def test_releases_and_triggers() -> None:
    def mutate(data: dict[str, Any]) -> None:
        fed = _empire(data, "FED")
        fed["releases"][0]["fleet"] = "Ninth Fleet"
        fed["war_entry"][0]["trigger"]["any_of"][0]["fleets"][0]["fleet"] = "Marquis Fleet"
        fed["war_entry"][0]["trigger"]["actors"] = ["XYZ"]

    problems = _problems(_broken_setup(mutate))
    assert [(p.entry, p.message) for p in problems] == [
        ("FED release of 'Ninth Fleet'", "no such fleet"),
        ("FED war entry", "trigger actor names unknown empire XYZ"),
        ("FED war entry", "target fleet KZI 'Marquis Fleet' does not exist"),
    ]


def test_empires_of_the_setup_and_the_seats() -> None:
    def mutate(data: dict[str, Any]) -> None:
        data["setup_order"] = ["LYR", "KZI", "KLI", "FED"]
        _empire(data, "FED")["at_war_with"] = ["QQQ"]

    problems = _problems(_broken_setup(mutate))
    assert [(p.entry, p.message) for p in problems] == [
        ("setup_order", "must name each set-up empire once: ['LYR', 'KZI', 'KLI', 'FED', 'HYD']"),
        ("FED", "at war with names unknown empire QQQ"),
    ]
    seats = (
        ScenarioSeat("coalition", "Coalition", ("LYR", "KLI")),
        ScenarioSeat("alliance", "Alliance", ("ZZZ",)),
    )
    wrong = msgspec.structs.replace(_wind(), seats=seats)
    assert [(p.file, p.message) for p in _problems(wrong)] == [
        ("scenarios/the-wind.json", "empire ZZZ has no unit table"),
        (
            WIND,
            "set up ['LYR', 'KZI', 'KLI', 'FED', 'HYD'], but the seats play ['LYR', 'KLI', 'ZZZ']",
        ),
    ]


# --- against a map -----------------------------------------------------------------------------


class _Hex(msgspec.Struct):
    hex: int
    empire: str = ""
    province: str = ""


class _Empire(msgspec.Struct):
    id: str


class _Province(msgspec.Struct):
    id: str
    empire: str
    hexes: tuple[int, ...]


class _TinyMap:
    """Two Kzinti provinces and one Klingon one; every other hex is empty space."""

    empires: tuple[_Empire, ...] = (_Empire("KLI"), _Empire("KZI"))
    provinces = (
        _Province("KZI-05", "KZI", (1104, 1105, 1204, 1205, 1305)),
        _Province("KZI-10", "KZI", (1404, 1405, 1504, 1505, 1604, 1605)),
        _Province("KLI-05", "KLI", (1107, 1108, 1207, 1208, 1307, 1308)),
    )

    def hex(self, h: int) -> _Hex:
        if not (1 <= h // 100 <= 61 and 1 <= h % 100 <= 19):
            raise ValueError(f"hex {h} is not on the map")
        owner = next((p for p in self.provinces if h in p.hexes), None)
        return _Hex(h, owner.empire, owner.id) if owner else _Hex(h)


def _tutorial() -> Scenario:
    found = find_scenario("tutorial")
    assert found is not None
    return found


def test_map_checks_provinces_territory_and_empires() -> None:
    def mutate(data: dict[str, Any]) -> None:
        kzi = _empire(data, "KZI")
        kzi["provinces"] = ["KZI-05", "KLI-05", "KZI-99"]
        kzi["fleets"][0]["hexes"] = [1105, 1107, 1405]

    world = MapView(_TinyMap())
    problems = _problems(_broken_setup(mutate, _tutorial()), world)
    assert [(p.file, p.entry, p.message) for p in problems] == [
        ("setups/tutorial.json", "KZI provinces", "KLI-05 is a province of KLI"),
        ("setups/tutorial.json", "KZI provinces", "no province KZI-99 on the map"),
        ("setups/tutorial.json", "KZI fleet 'Border Guard'", "set-up hex 1107 is KLI's"),
        (
            "setups/tutorial.json",
            "KZI fleet 'Border Guard'",
            "set-up hex 1405 is outside its provinces",
        ),
        ("setups/tutorial.json", "KZI fleet 'Starbase Squadron'", "set-up hex 1704 is nobody's"),
        ("setups/tutorial.json", "KLI provinces", "no province KLI-11 on the map"),
        ("setups/tutorial.json", "KLI provinces", "no province KLI-15 on the map"),
        ("setups/tutorial.json", "KLI fleet 'Strike Force'", "set-up hex 1407 is nobody's"),
        ("setups/tutorial.json", "KLI fleet 'Flank Patrol'", "set-up hex 1507 is nobody's"),
        ("setups/tutorial.json", "KLI fleet 'Flank Patrol'", "set-up hex 1607 is nobody's"),
        ("setups/tutorial.json", "KLI fleet 'Flank Patrol'", "set-up hex 1707 is nobody's"),
    ]


def test_empires_unknown_to_the_map() -> None:
    class NoKlingons(_TinyMap):
        empires = (_Empire("KZI"),)

    problems = _problems(_tutorial(), MapView(NoKlingons()))
    assert (
        DataProblem("scenarios/tutorial.json", "seats", "empire KLI is not on the map") in problems
    )


def test_problem_reads_as_one_line() -> None:
    assert str(DataProblem("units.json", "FED CA", "bad")) == "units.json: FED CA: bad"


# --- income the map does not reproduce (the Tholians, 753.0) -----------------------------------


def _tholian_scenario(income_ep: int = 0) -> Scenario:
    """A two-empire scenario seating the Tholians, with or without the chart's figure."""
    setup = ScenarioSetup(
        setup_order=("KLI", "THO"),
        empires=(EmpireSetup("KLI"), EmpireSetup("THO", income_ep=income_ep)),
    )
    seats = (
        ScenarioSeat("coalition", "Coalition", ("KLI",)),
        ScenarioSeat("alliance", "Alliance", ("THO",)),
    )
    return msgspec.structs.replace(_wind(), id="holdfast", seats=seats, setup=setup)


def test_the_tholian_income_gap_is_named_until_a_scenario_gives_the_figure() -> None:
    world = shipped_map()
    if world is None:
        pytest.skip("engine.fe.galaxy cannot load a map yet")
    (gap,) = income_gaps(world)
    assert (gap.file, gap.entry) == ("map.json", "THO income")
    assert "gives 22 EP, its provinces and planets 7" in gap.message
    assert income_gaps(world, [_tholian_scenario(income_ep=22)]) == []
    assert check_data(scenarios=[_tholian_scenario(income_ep=22)], galaxy=world) == []


def test_a_scenario_seating_the_tholians_without_their_figure_is_refused() -> None:
    world = shipped_map()
    if world is None:
        pytest.skip("engine.fe.galaxy cannot load a map yet")
    assert check_data(scenarios=[_tholian_scenario()], galaxy=world) == [
        DataProblem(
            "setups/holdfast.json",
            "THO income",
            "the chart (753.0) gives 22 EP, the map 7: set income_ep",
        )
    ]
