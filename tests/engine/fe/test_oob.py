"""Scenario set-ups: The Wind's orders of battle, schedules and events, and the tutorial."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.fe import RULESET
from engine.fe.oob import FleetRef, ScenarioSetup, Target, date_turn
from engine.fe.scenario import find_scenario, load_scenarios
from engine.fe.units import Date

ROOT = Path(__file__).resolve().parents[3]
CANDIDATES = (ROOT.parent / "shared" / "fe-data", Path("/work/shared/fe-data"))
SOURCE = next((p for p in CANDIDATES if (p / "default_oob.json").is_file()), None)
needs_source = pytest.mark.skipif(SOURCE is None, reason="no reference data (shared/fe-data)")

WIND_EMPIRES = ("LYR", "KZI", "KLI", "FED", "HYD")


def _wind() -> ScenarioSetup:
    scenario = find_scenario("the-wind")
    assert scenario is not None and scenario.setup is not None
    return scenario.setup


@pytest.mark.parametrize(
    ("date", "turn"),
    [
        (Date(168, "fall"), 1),
        (Date(169), 2),
        (Date(169, "fall"), 3),
        (Date(171), 6),
        (Date(168), 0),
    ],
)
def test_date_turn(date: Date, turn: int) -> None:
    assert date_turn(date) == turn


def test_setup_order_and_every_empire_has_fleets() -> None:
    setup = _wind()
    assert setup.setup_order == WIND_EMPIRES
    assert tuple(e.empire for e in setup.empires) == WIND_EMPIRES
    for empire in setup.empires:
        assert empire.fleets, empire.empire


# Counted by hand from default_oob.json (units x times over the starting fleets), with the
# fleets, pre-war builds, mothballs and schedule entries of each empire.
EXPECTED = {
    # empire: (fleets, units, pre-war units, mothballed, scheduled)
    "LYR": (4, 104, 0, 0, 22),
    "KZI": (6, 92, 0, 0, 37),
    "KLI": (10, 211, 0, 48, 42),
    "FED": (7, 107, 31, 45, 147),
    "HYD": (5, 59, 107, 0, 24),
}


@pytest.mark.parametrize("code", WIND_EMPIRES)
def test_unit_counts_per_empire(code: str) -> None:
    empire = _wind().empire(code)
    assert empire is not None
    units = sum(empire.unit_counts().values())
    prewar = sum(empire.unit_counts(prewar=True).values()) - units
    mothballed = sum(u.count for u in empire.mothballs.units) if empire.mothballs else 0
    scheduled = sum(u.count for batch in empire.production for u in batch.units)
    assert (len(empire.fleets), units, prewar, mothballed, scheduled) == EXPECTED[code]


@needs_source
@pytest.mark.parametrize("code", WIND_EMPIRES)
def test_unit_counts_match_the_source(code: str) -> None:
    assert SOURCE is not None
    oob = json.loads((SOURCE / "default_oob.json").read_text(encoding="utf-8"))["oobs"][code]
    empire = _wind().empire(code)
    assert empire is not None
    for name, fleet in oob["starting_fleets"].items():
        ours = empire.fleet(name)
        assert ours is not None, name
        theirs: dict[str, int] = {}
        for item in fleet["units"]:
            theirs[item["unit"]] = theirs.get(item["unit"], 0) + item.get("times", 1)
        mine: dict[str, int] = {}
        for unit in ours.units:
            mine[unit.unit] = mine.get(unit.unit, 0) + unit.count
        assert mine == theirs, name
        assert sorted(ours.hexes) == sorted(fleet.get("hexes", [])), name


def test_war_status_and_economies() -> None:
    setup = _wind()
    economies = {e.empire: e.economy for e in setup.empires}
    assert economies == {"LYR": "war", "KZI": "war", "KLI": "war", "FED": "peace", "HYD": "peace"}
    kzi = setup.empire("KZI")
    assert kzi is not None and kzi.at_war_with == ("LYR",)
    hyd = setup.empire("HYD")
    assert (
        hyd is not None
        and hyd.exhaustion_at_peace
        and hyd.future_belligerents
        == (
            "KLI",
            "LYR",
            "ROM",
        )
    )


def test_release_and_war_entry_conditions() -> None:
    fed = _wind().empire("FED")
    assert fed is not None
    (release,) = fed.releases
    assert release.fleet == "Fourth Fleet"
    assert release.trigger.future_belligerents and release.trigger.action == "occupies"
    marquis = Target("fleet-area", fleets=(FleetRef("KZI", "Marquis' Fleet"),))
    assert release.trigger.any_of == (marquis, Target("empire", empires=("KZI",)))
    (entry,) = fed.war_entry
    assert entry.economy == "limited-war" and entry.trigger == release.trigger
    hyd = _wind().empire("HYD")
    assert hyd is not None
    assert [(r.trigger.action, r.trigger.any_of[0].kind) for r in hyd.releases] == [
        ("occupies", "hexes"),
        ("destroys", "starbase"),
    ]


def test_scripted_events() -> None:
    setup = _wind()
    turn2 = {e.empire: e for e in setup.events_of_turn(2)}
    assert turn2["KLI"].declare_war == ("KZI",)
    # the source's events say "Northern Reserve Fleet"; the order of battle "Northern Reserve"
    assert "Northern Reserve" in turn2["KLI"].release
    assert turn2["LYR"].release == ("Far Stars Fleet",)
    assert {e.turn for e in setup.events} == {1, 2, 3, 4}
    turn3 = {e.empire: e for e in setup.events_of_turn(3)}
    assert turn3["HYD"].declare_war == ("KLI", "LYR")


def test_fleet_details() -> None:
    setup = _wind()
    lyr, kzi, fed = setup.empire("LYR"), setup.empire("KZI"), setup.empire("FED")
    assert lyr is not None and kzi is not None and fed is not None
    home = lyr.fleet("Home Fleet")
    assert home is not None and [(h.hex, h.max_units) for h in home.hex_limits] == [(707, 6)]
    far = lyr.fleet("Far Stars Fleet")
    assert far is not None and far.hexes == () and far.arrives == Date(169)
    third = fed.fleet("Third Fleet")
    assert third is not None and third.reserve
    assert [(b.year, b.season) for b in third.prewar] == [
        (168, "fall"),
        (169, "spring"),
        (170, "spring"),
    ]
    assert fed.mothballs is not None and sum(u.count for u in fed.mothballs.war_release) == 8


def test_tutorial_is_listed_and_small() -> None:
    ids = [s.id for s in load_scenarios()]
    assert ids == ["the-wind", "tutorial"]
    tutorial = find_scenario("tutorial")
    assert tutorial is not None and tutorial.setup is not None
    assert tutorial.title == "Tutorial: the Kzinti border"
    assert [(s.seat, s.empires) for s in tutorial.seats] == [
        ("coalition", ("KLI",)),
        ("alliance", ("KZI",)),
    ]
    assert (tutorial.first_turn, tutorial.last_turn) == (1, 2)
    ships = sum(sum(e.unit_counts().values()) for e in tutorial.setup.empires)
    assert 10 <= ships <= 14
    kzi = tutorial.setup.empire("KZI")
    assert kzi is not None and kzi.provinces == ("KZI-05", "KZI-10", "KZI-12")


def test_tutorial_starts_a_game() -> None:
    state = RULESET.initial_state("tutorial", ["alliance", "coalition"], {})
    assert state.seats == ("coalition", "alliance")
    assert (state.turn, state.last_turn) == (1, 2)
    info = next(i for i in RULESET.scenarios() if i.id == "tutorial")
    assert info.options[0].id == "orion"
