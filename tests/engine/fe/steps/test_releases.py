"""Fleet releases by trigger (600.3x), read from the board: `fired_releases`, `release_fired`."""

from __future__ import annotations

import msgspec
import pytest

from engine.core.ruleset import Event
from engine.fe import FE
from engine.fe.model import FeState
from engine.fe.oob import Release, ScenarioSetup, Target, Trigger
from engine.fe.steps import base
from engine.fe.steps.releases import fired_releases, release_fired


def _start(scenario: str) -> FeState:
    return FE.initial_state(scenario, ["coalition", "alliance"], {})


def _put(state: FeState, unit_id: str, h: int) -> FeState:
    """``state`` with one unit standing in ``h``: all a trigger looks at is the board."""
    unit = msgspec.structs.replace(state.board.unit(unit_id), hex=h)
    return state.with_board(state.board.with_units([unit]))


def test_nothing_fires_on_the_starting_board() -> None:
    assert fired_releases(_start("tutorial")) == []
    assert fired_releases(_start("the-wind")) == []


def test_a_klingon_ship_in_1704_releases_the_starbase_squadron() -> None:
    state = _put(_start("tutorial"), "KLI-0005", 1704)
    assert fired_releases(state) == [("KZI", "Starbase Squadron", "KLI entered 1704")]


def test_a_released_fleet_is_not_released_again() -> None:
    state = _put(_start("tutorial"), "KLI-0005", 1704)
    state = msgspec.structs.replace(state, released=(("KZI", "Starbase Squadron"),))
    assert fired_releases(state) == []


def test_only_units_that_move_occupy_a_hex() -> None:
    assert fired_releases(_put(_start("tutorial"), "KLI-B001", 1704)) == []  # a battle station
    assert fired_releases(_put(_start("tutorial"), "KLI-0005", 1705)) == []


def test_release_fired_records_each_fleet_with_an_event() -> None:
    state = _put(_start("tutorial"), "KLI-0005", 1704)
    events: list[Event] = []
    after = release_fired(state, "3B2", events)
    assert ("KZI", "Starbase Squadron") in after.released
    assert list(after.released) == sorted(after.released)
    (event,) = events
    assert (event.kind, event.seat, event.step) == ("release", "alliance", "3B2")
    assert event.text == "KZI Starbase Squadron is released (KLI entered 1704, 600.3)"
    assert event.data["rule"] == "600.3"
    assert release_fired(after, "3B2", []) is after


def test_a_future_belligerent_in_kzinti_space_releases_the_marquis_and_the_fourth_fleet() -> None:
    state = _put(_start("the-wind"), "LYR-0001", 1401)
    assert fired_releases(state) == [
        ("FED", "Fourth Fleet", "LYR entered KZI space at 1401"),
        ("KZI", "Marquis' Fleet", "LYR entered KZI space at 1401"),
        ("KZI", "Marquis' Reserve Fleet", "LYR entered KZI space at 1401"),
    ]


def test_an_empire_that_is_no_future_belligerent_fires_nothing() -> None:
    assert fired_releases(_put(_start("the-wind"), "HYD-0002", 1401)) == []
    assert fired_releases(_put(_start("the-wind"), "KZI-0001", 1401)) == []


def test_a_fleets_set_up_area_is_a_target() -> None:
    state = _put(_start("the-wind"), "FED-0002", 1810)
    assert fired_releases(state) == [
        ("KLI", "Eastern Fleet", "FED entered the set-up area of KLI Eastern Fleet at 1810")
    ]


def test_a_listed_hex_fires_for_future_belligerents() -> None:
    state = _put(_start("the-wind"), "KLI-0002", 617)
    assert fired_releases(state) == [("HYD", "Old Colonies Squadron", "KLI entered 0617")]


def _with_trigger(monkeypatch: pytest.MonkeyPatch, trigger: Trigger) -> None:
    """Give the tutorial's Kzinti one release with ``trigger`` instead of the scenario's."""
    real = base.scenario_setup(_start("tutorial"))
    kzi = real.empire("KZI")
    assert kzi is not None
    changed = msgspec.structs.replace(kzi, releases=(Release("Starbase Squadron", trigger),))
    empires = tuple(changed if e.empire == "KZI" else e for e in real.empires)
    setup = ScenarioSetup(setup_order=real.setup_order, empires=empires)
    monkeypatch.setattr(base, "scenario_setup", lambda state: setup)


def test_a_starbase_target_fires_in_the_starbases_hex(monkeypatch: pytest.MonkeyPatch) -> None:
    _with_trigger(monkeypatch, Trigger(any_of=(Target(kind="starbase"),), actors=("KLI",)))
    state = _put(_start("tutorial"), "KLI-0005", 1704)
    assert fired_releases(state) == [
        ("KZI", "Starbase Squadron", "KLI entered 1704, the hex of a KZI starbase")
    ]
    assert fired_releases(_put(_start("tutorial"), "KLI-0005", 1605)) == []  # a BATS hex


def test_destroying_is_not_fired_by_movement(monkeypatch: pytest.MonkeyPatch) -> None:
    trigger = Trigger(any_of=(Target(kind="starbase"),), actors=("KLI",), action="destroys")
    _with_trigger(monkeypatch, trigger)
    assert fired_releases(_put(_start("tutorial"), "KLI-0005", 1704)) == []


def test_the_owning_empire_never_fires_its_own_release(monkeypatch: pytest.MonkeyPatch) -> None:
    hexes = Target(kind="hexes", hexes=(1305,))
    _with_trigger(monkeypatch, Trigger(any_of=(hexes,), actors=("KZI", "KLI")))
    assert fired_releases(_put(_start("tutorial"), "KZI-0001", 1305)) == []
    state = _put(_start("tutorial"), "KLI-0005", 1305)
    assert fired_releases(state) == [("KZI", "Starbase Squadron", "KLI entered 1305")]
