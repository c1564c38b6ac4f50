"""Step 6D2 played with the board: retrograde from this turn's battle hexes (206.0)."""

from __future__ import annotations

import functools

import msgspec

from engine.core.ruleset import Event
from engine.fe import FE
from engine.fe.model import FeState
from tests.engine.fe.steps.tutorial_states import (
    after_setup,
    orders,
    placed,
    refusals,
    run_to,
    texts,
)


def _retrograde(units: list[str], to: str) -> dict[str, object]:
    return {"type": "retrograde", "units": units, "to": to}


@functools.cache
def _after_battle() -> FeState:
    """6D2 of turn 1: the Strike Force destroyed the Kzinti battle station in 1205 and the
    Flank Patrol's F5 the Kzinti CL in 1302 (both removed by hand at the first battle's
    retreat option, so nobody retreats)."""
    state = placed(after_setup(), {f"KLI-000{n}": 1205 for n in range(1, 5)})
    state = placed(state, {"KZI-0003": 1302, "KLI-0006": 1302})
    state = run_to(state, "5-7A1")
    state = placed(state, {"KZI-B001": 0, "KZI-0003": 0})
    return run_to(state, "6D2")


def test_the_battle_hexes_of_phase_5_are_where_retrograde_starts() -> None:
    assert _after_battle().battle_hexes == (1205, 1302)


def test_a_stack_retrogrades_to_a_supply_point() -> None:
    state, events = orders(
        _after_battle(), "coalition", _retrograde(["KLI-0002", "KLI-0001"], "1307")
    )
    assert texts(events, "retrograde") == [
        "KLI retrogrades D7C KLI-0001, D7 KLI-0002 from 1205 to 1307, 2 hexes (206.0)"
    ]
    (event,) = [e for e in events if e.kind == "retrograde"]
    assert event.data["path"] == ["1205", "1306", "1307"]
    assert event.step == "6D2"
    assert state.board.unit("KLI-0001").hex == 1307
    assert state.board.unit("KLI-0002").hex == 1307
    assert state.board.unit("KLI-0003").hex == 1205
    assert state.moved_once == ("KLI-0001", "KLI-0002")
    assert FE.summary(state)["step"] == "6D2"


def test_a_unit_retrogrades_once() -> None:
    state, _ = orders(_after_battle(), "coalition", _retrograde(["KLI-0001"], "1307"))
    assert "KLI-0001 has already retrograded this phase (206.0)" in refusals(
        state, "coalition", _retrograde(["KLI-0001"], "1107")
    )


def test_refusals_name_the_rule_and_the_numbers() -> None:
    state = _after_battle()
    cases = {
        ("KLI-0005",): (
            "1507",
            "no combat took place in 1607 this turn: its units may not retrograde (206.0)",
        ),
        ("KLI-0001",): ("1206", "1206 holds no KLI supply point: a retrograde ends at one (206.0)"),
        ("KLI-0003",): (
            "1411",
            "1411 is 7 hexes from 1205; KLI-0003 may retrograde at most 6 hexes (206.0)",
        ),
        ("KLI-0001", "KLI-0006"): (
            "1107",
            "a retrograde stack must start in one hex, not 1205, 1302 (206.0)",
        ),
        ("KZI-0001",): ("1107", "KZI-0001 is a unit of KZI, not of coalition (206.0)"),
        ("KLI-0006",): ("0000", "0000 is not a hex of the map (206.0)"),
    }
    for units, (to, message) in cases.items():
        assert refusals(state, "coalition", _retrograde(list(units), to)) == [message]


def test_a_base_does_not_retrograde() -> None:
    found = refusals(_after_battle(), "coalition", _retrograde(["KLI-B002"], "1107"))
    assert "KLI-B002 (BATS) cannot move by itself (203.1)" in found


def test_only_the_phasing_player_retrogrades_at_6d2() -> None:
    found = refusals(_after_battle(), "alliance", _retrograde(["KZI-0001"], "1205"))
    assert found and found[0].startswith("it is coalition's step 6D2")


def test_retrograde_is_refused_at_another_step() -> None:
    state = run_to(_after_battle(), "8A")
    found = refusals(state, "coalition", _retrograde(["KLI-0003"], "1307"))
    assert found and found[0].startswith("a retrograde order belongs to step 6D2")


def test_without_combat_the_step_passes_by_itself() -> None:
    events: list[Event] = []
    run_to(after_setup(), "6G", events)  # 6D3, 6F and phase 7 pass: no X-ship, tug or FRD
    assert [t for t in texts(events, "step-passed") if t.startswith("6D2")] == [
        "6D2 Phasing player's retrograde movement: no combat took place this player turn, "
        "so KLI has nothing to retrograde (206.0)"
    ]


def test_units_still_pinned_by_the_enemy_let_the_step_pass() -> None:
    state = placed(after_setup(), {f"KLI-000{n}": 1205 for n in range(1, 5)})
    events: list[Event] = []
    state = run_to(state, "6B")  # the scripts' Strike Force retreated from the BATS (302.741)
    state = placed(state, {f"KLI-000{n}": 1205 for n in range(1, 5)})  # back by hand
    state = run_to(state, "6G", events)
    assert [t for t in texts(events, "step-passed") if t.startswith("6D2")] == [
        "6D2 Phasing player's retrograde movement: no KLI unit that may move stands in a "
        "battle hex of this turn (1205) free of enemy units, so nothing may retrograde (206.0)"
    ]
    assert state.board.unit("KLI-0001").hex == 1205


def test_the_record_of_retrograded_units_starts_empty_in_phase_6() -> None:
    state = placed(after_setup(), {f"KLI-000{n}": 1205 for n in range(1, 5)})
    state = run_to(state, "5-7A1")
    state = placed(state, {"KZI-B001": 0})
    state = msgspec.structs.replace(state, moved_once=("KLI-0001",))
    state = run_to(state, "6D2")
    assert state.moved_once == ()
    assert not refusals(state, "coalition", _retrograde(["KLI-0001"], "1307"))
