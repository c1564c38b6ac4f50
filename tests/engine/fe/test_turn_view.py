"""The view of one game turn (`engine.fe.turn_view`): each empire's schedule in force (431.0)
and its economic state (C options; war entry 601.0), from the scenario data alone."""

from __future__ import annotations

import msgspec
import pytest

from engine.fe.oob import EmpireSetup
from engine.fe.scenario import Scenario, find_scenario
from engine.fe.turn_view import SECTIONS, Section, TurnContext, turn_view, view_record


def wind() -> Scenario:
    found = find_scenario("the-wind")
    assert found is not None
    return found


def sections(turn: int, empire: str, **options: int | str) -> dict[str, Section]:
    view = turn_view(wind(), turn, options)
    (found,) = [e for e in view.empires if e.empire == empire]
    return {s.name: s for s in found.sections}


@pytest.mark.parametrize(
    ("turn", "batch"),
    [(1, "Fall Y168"), (2, "Spring Y169"), (3, "Fall Y168"), (6, "Spring Y169")],
)
def test_the_klingon_schedule_in_force_names_its_batch(turn: int, batch: str) -> None:
    schedule = sections(turn, "KLI")["schedule"]
    assert schedule.record["batch"] == batch
    assert schedule.text.startswith(f"the {batch} schedule: ")


def test_economies_follow_the_scripted_wars_and_the_options() -> None:
    assert sections(2, "HYD")["economy"].record == {"economy": "peace", "permille": 500}
    assert sections(3, "HYD")["economy"].record == {"economy": "war", "permille": 1000}
    fed = sections(6, "FED", **{"limited-war-income-permille": 800})["economy"]
    assert fed.record["economy"] == "peace"
    assert fed.record["war_entry"] == [
        {
            "economy": "limited-war",
            "condition": "a unit of KLI, LYR or ROM stands in the set-up area of "
            "KZI Marquis' Fleet or KZI space",
        }
    ]
    assert "limited-war (80%)" in fed.text
    off = sections(1, "FED", **{"economy-fractions": "off"})["economy"]
    assert off.record["permille"] == 1000


def test_every_empire_in_seat_order_and_turns_outside_the_scenario_refused() -> None:
    view = turn_view(wind(), 1)
    assert [e.empire for e in view.empires] == ["LYR", "KLI", "KZI", "HYD", "FED"]
    assert [s.name for s in view.empires[0].sections] == ["schedule", "economy"]  # none due
    assert msgspec.json.decode(msgspec.json.encode(view_record(view)))["turn"] == 1
    with pytest.raises(ValueError, match="plays turns 1 to 6, not 0"):
        turn_view(wind(), 0)


def test_a_section_is_one_function_of_the_list(monkeypatch: pytest.MonkeyPatch) -> None:
    """The place a later section (reinforcements) goes: one more function in SECTIONS."""

    def extra(ctx: TurnContext, empire: EmpireSetup) -> Section:
        return Section("extra", f"{empire.empire} on turn {ctx.turn}", {"n": ctx.turn})

    monkeypatch.setattr("engine.fe.turn_view.SECTIONS", (*SECTIONS, extra))
    record = view_record(turn_view(wind(), 4))
    assert record["empires"][0]["extra"] == {"n": 4}


def test_reinforcements_due_are_a_section_of_their_turn() -> None:
    """The order of battle's deliveries (`engine.fe.reinforcements`) by turn: the Federation's
    Third Fleet dreadnought in Fall Y168 (431.0), the Hydran Home Fleet while at peace, then
    withheld once the script has the Hydrans at war (turn 3), and the Baron's Fleet entering
    by strategic movement in Spring Y169 (204.0)."""
    third = sections(1, "FED")["reinforcements"]
    assert third.record["due"][0]["fleet"] == "Third Fleet"
    assert {"unit": "DN", "count": 1} in third.record["due"][0]["units"]
    assert "431.0" in third.text and not third.text.startswith("FED ")
    assert sections(2, "HYD")["reinforcements"].record["due"][0]["withheld"] == ""
    assert sections(3, "HYD")["reinforcements"].record["due"][0]["withheld"]
    baron = sections(2, "KZI")["reinforcements"].record["due"][0]
    assert (baron["fleet"], baron["kind"], baron["rule"]) == ("Baron's Fleet", "arrival", "204.0")
    assert [u["unit"] for u in baron["units"]].count("EFF") == 2  # listed as the data gives them
    assert "reinforcements" not in sections(1, "LYR")
