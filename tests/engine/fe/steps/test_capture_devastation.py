"""Typed adjustments for captures and devastation, and what they do to income (430.1)."""

from __future__ import annotations

from engine.fe.model import FeState
from engine.fe.steps.battles import battle_list
from engine.fe.steps.economy import income_of
from engine.fe.steps.supply import grid_of
from tests.engine.fe.helpers import owed
from tests.engine.fe.steps.tutorial_states import after_setup, orders, placed, refusals, run_to

CAPTURE = {"type": "adjust", "change": "capture", "hex": "1305", "reason": "occupied"}
DEVASTATE = {"type": "adjust", "change": "devastate", "hex": "1504", "reason": "bombardment"}
RECOVER = {"type": "adjust", "change": "recover", "hex": "1504", "reason": "recovered"}


def in_combat() -> FeState:
    """KLI's combat phase at 5-6X4 (captures and devastation, 508.2), in a battle the Klingon
    KLI-0001 makes at the Kzinti battle station in 1205: without a battle hex the combat phase
    passes by itself (302.9). The coalition, which ended the step before (5-6E: the Tholian
    and tug steps between pass in the tutorial), answers its part first."""
    state = run_to(placed(after_setup(), {"KLI-0001": 1205}), "5-6X4")
    assert owed(state).step == "5-6X4" and owed(state).seats == ("coalition",)
    return state


def test_a_capture_needs_a_ship_there_and_takes_the_province_s_income() -> None:
    state = after_setup()
    assert refusals(state, "coalition", CAPTURE) == [
        "adjust capture: KLI has no ship in 1305 to capture it (438.0)"
    ]
    before = income_of(state, "KZI").total2
    state = placed(state, {"KLI-0005": 1305})
    state, events = orders(state, "coalition", CAPTURE)
    assert events[0].text == "KLI adjusts: 1305 captured from KZI (occupied)"
    assert dict(state.owners) == {1305: "KLI"}
    assert income_of(state, "KZI").total2 == before - 4  # KZI-05 (2 EP) pays nobody now
    assert refusals(state, "coalition", CAPTURE) == [
        "adjust capture: 1305 is already KLI's (438.0)"
    ]


def test_a_capture_is_refused_while_enemy_units_stand_in_the_hex() -> None:
    state = placed(after_setup(), {"KLI-0005": 1305, "KZI-0004": 1305})
    (problem,) = refusals(state, "coalition", CAPTURE)
    assert problem == "adjust capture: 1305 still holds units of KZI (438.0)"


def test_a_planet_is_not_captured_while_its_defenders_stand() -> None:
    state = placed(in_combat(), {"KLI-0005": 1105})
    (problem,) = refusals(state, "coalition", dict(CAPTURE, hex="1105"))
    assert problem == (
        "adjust capture: the planet in 1105 is not defeated: 5 enemy units still defend it "
        "(CC KZI-0001, BC KZI-0002, CL KZI-0003, FF KZI-0004, FF KZI-0005) (508.2)"
    )


def test_devastation_stops_a_planet_s_income_until_its_owner_records_recovery() -> None:
    state = placed(in_combat(), {"KLI-0006": 1504})
    before = income_of(state, "KZI").total2
    state, _ = orders(state, "coalition", DEVASTATE)
    assert state.devastated == (1504,)
    assert income_of(state, "KZI").total2 == before - 6  # a minor planet, 3 EP
    assert refusals(state, "coalition", RECOVER) == [
        "adjust recover: the planet in 1504 is KZI's: its owner records it (508.25)"
    ]
    state = run_to(state, "2B11")
    # the battle of 1205 is over by now, so compare with the income just before the recovery
    devastated = income_of(state, "KZI").total2
    state, _ = orders(state, "alliance", RECOVER)
    assert state.devastated == ()
    assert income_of(state, "KZI").total2 == devastated + 6


def test_a_devastated_planet_is_no_supply_point() -> None:
    def planet_points(state: FeState) -> list[int]:
        return [p.hex for p in grid_of(state, "KZI").points if p.kind == "planet"]

    state = placed(in_combat(), {"KLI-0006": 1504})
    assert 1504 in planet_points(state)
    state, _ = orders(state, "coalition", DEVASTATE)
    assert 1504 not in planet_points(state)


def test_a_planet_falls_only_in_the_captor_s_combat_phase() -> None:
    state = placed(after_setup(), {"KLI-0006": 1504})
    assert refusals(state, "coalition", DEVASTATE) == [
        "adjust devastate: the planet in 1504 falls in combat: record its capture or "
        "devastation in the combat phase (5) of KLI's own player turn (508.2)"
    ]
    assert state.devastated == ()


def test_a_captured_planet_pays_its_captor_and_no_longer_its_owner() -> None:
    border_guard = {f"KZI-000{n}": 1104 for n in range(1, 6)}
    state = placed(in_combat(), {"KLI-0005": 1105, **border_guard})
    kzi, kli = income_of(state, "KZI"), income_of(state, "KLI")
    state, events = orders(state, "coalition", dict(CAPTURE, hex="1105"))
    assert events[0].text == "KLI adjusts: 1105 captured from KZI (occupied)"
    assert income_of(state, "KZI").minor2 == kzi.minor2 - 6  # its minor planet, 3 EP
    assert income_of(state, "KLI").minor2 == kli.minor2 + 6  # 508.2: now the captor's


def test_a_ship_at_an_enemy_planet_is_listed_as_a_battle() -> None:
    state = placed(after_setup(), {"KLI-0006": 1504})
    (entry,) = [b for b in battle_list(state) if b["hex"] == "1504"]
    assert entry["text"] == "1504 (KLI 1 ship vs KZI minor planet)"
    assert entry["sides"] == [["KLI"], ["KZI"]]
