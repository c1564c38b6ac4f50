"""The combat phase's list of battle hexes (302.0), announced and recorded for retrograde."""

from __future__ import annotations

import msgspec

from engine.core.ruleset import Event
from engine.fe.forces import Unit
from engine.fe.model import FeState
from engine.fe.steps import battles
from tests.engine.fe.steps.tutorial_states import after_setup, placed, run_to, texts


def _contact() -> FeState:
    """The Strike Force on the Kzinti battle station in 1205; the Flank Patrol on the one in
    1605, where a crippled Kzinti frigate waits."""
    state = placed(after_setup(), {f"KLI-000{n}": 1205 for n in range(1, 5)})
    state = placed(state, {"KLI-0005": 1605, "KLI-0006": 1605, "KZI-0004": 1605})
    board = state.board
    return state.with_board(
        board.with_units([msgspec.structs.replace(board.unit("KZI-0004"), crippled=True)])
    )


def test_phase_5_lists_the_battle_hexes_with_each_side() -> None:
    events: list[Event] = []
    state = run_to(_contact(), "5-1A", events)
    assert texts(events, "battle-hexes") == [
        "Battle hexes: 1205 (KLI 4 ships vs KZI BATS), "
        "1605 (KLI 2 ships vs KZI 1 ship (1 crippled) and BATS) (302.0)"
    ]
    (event,) = [e for e in events if e.kind == "battle-hexes"]
    assert event.seat == "coalition"
    assert event.data["hexes"] == ["1205", "1605"]
    assert event.data["units"]["1605"] == {
        "KLI": ["KLI-0005", "KLI-0006"],
        "KZI": ["KZI-0004", "KZI-B003"],
    }
    assert state.battle_hexes == (1205, 1605)


def test_no_contact_no_battle_hexes() -> None:
    """Without a battle hex the whole combat phase passes by itself as it begins (302.9):
    an event says so, and nobody is asked anything in phase 5 (issue 15)."""
    events: list[Event] = []
    state = run_to(after_setup(), "6B", events)
    assert texts(events, "battle-hexes") == [
        "No battle hexes: nobody fights this combat phase (302.0)"
    ]
    assert texts(events, "battle") == ["no battle hexes: the combat phase passes (302.9)"]
    assert state.battle_hexes == () and state.battles == ()
    in_phase_5 = [(e.kind, e.step) for e in events if e.step.startswith("5-")]
    assert in_phase_5 == [("phase", "5-1A"), ("battle", "5-1A")]


def test_a_battle_hex_stops_the_combat_phase_at_5_1a() -> None:
    """With a battle hex the phase is played: the defender is asked at 5-1A (302.1)."""
    events: list[Event] = []
    state = run_to(_contact(), "5-1A", events)
    assert [r.hex for r in state.battles] == [1205, 1605]
    assert "no battle hexes: the combat phase passes (302.9)" not in texts(events, "battle")


def test_the_phasing_side_comes_first_and_non_ships_are_named() -> None:
    state = after_setup()
    frd = Unit("KZI-0100", "KZI", "FRD", 1107)
    state = placed(state, {"KZI-0001": 1107, "KZI-0002": 1107}, frd)
    (entry,) = battles.battle_list(state)
    assert entry["text"] == "1107 (KLI BATS vs KZI 2 ships and FRD)"
    assert entry["sides"] == [["KLI"], ["KZI"]]
    assert entry["hex"] == "1107"
    assert entry["units"] == {"KLI": ["KLI-B001"], "KZI": ["KZI-0001", "KZI-0002", "KZI-0100"]}


def test_the_record_is_emptied_as_the_next_player_turn_begins() -> None:
    state = run_to(_contact(), "5-1A")
    assert state.battle_hexes
    state = run_to(state, "1A1")
    assert state.player_turn == 1
    assert state.battle_hexes == ()
