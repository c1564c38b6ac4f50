"""Step 8A played with the board: strategic moves, the free allowance and the EP (204.0)."""

from __future__ import annotations

import functools

import msgspec

from engine.fe.model import FeState
from engine.fe.steps import strategic
from tests.engine.fe.steps.tutorial_states import after_setup, orders, refusals, run_to, texts

KLI_FREE = 15


def _strategic(units: list[str], to: str) -> dict[str, object]:
    return {"type": "strategic", "units": units, "to": to}


@functools.cache
def _at_8a() -> FeState:
    """Turn 1, the coalition's 8A: the Klingons have collected 9 EP and moved nothing."""
    return run_to(after_setup(), "8A")


def _after_free_moves(count: int) -> FeState:
    """8A after ``count`` strategic moves by Klingon units since lost (ids of no unit)."""
    return msgspec.structs.replace(
        _at_8a(), moved_once=tuple(f"KLI-9{n:03d}" for n in range(count))
    )


def test_free_moves_cost_nothing_and_are_counted() -> None:
    state = _at_8a()
    assert state.ep2("KLI") == 18
    state, events = orders(state, "coalition", _strategic(["KLI-0002", "KLI-0001"], "1809"))
    assert texts(events, "strategic") == [
        "KLI moves D7 KLI-0002, D7C KLI-0001 from 1307 (5 hexes) strategically to 1809: "
        "strategic moves 1-2 of the turn, 15 free (204.0)"
    ]
    assert state.board.unit("KLI-0001").hex == 1809
    assert state.board.unit("KLI-0002").hex == 1809
    assert state.ep2("KLI") == 18
    assert state.moved_once == ("KLI-0001", "KLI-0002")
    assert strategic.moves_made(state, "KLI") == 2
    assert strategic.free_left(state, "KLI") == KLI_FREE - 2


def test_moves_beyond_the_free_ones_are_charged_to_the_treasury() -> None:
    state = _after_free_moves(KLI_FREE - 1)
    state, events = orders(state, "coalition", _strategic(["KLI-0001", "KLI-0002"], "1809"))
    assert texts(events, "strategic") == [
        "KLI moves D7C KLI-0001, D7 KLI-0002 from 1307 (5 hexes) strategically to 1809: "
        "strategic moves 15-16 of the turn, 15 free; 1 EP paid, treasury 9 -> 8 EP (204.0)"
    ]
    (event,) = [e for e in events if e.kind == "strategic"]
    assert (event.data["ep2"], event.data["treasury2"]) == (2, 16)
    assert state.ep2("KLI") == 16
    state, _ = orders(state, "coalition", _strategic(["KLI-0003", "KLI-0004"], "1107"))
    assert state.ep2("KLI") == 12


def test_nothing_may_overspend() -> None:
    poor = _after_free_moves(KLI_FREE - 1).with_ep2("KLI", 1)
    assert refusals(poor, "coalition", _strategic(["KLI-0001", "KLI-0002"], "1809")) == [
        "KLI has 1 free strategic move left and 0.5 EP; moving 2 units costs 1 EP "
        "(1 EP a move beyond the free ones) (204.0)"
    ]
    assert not refusals(poor, "coalition", _strategic(["KLI-0001"], "1809"))
    broke = _after_free_moves(KLI_FREE).with_ep2("KLI", 1)
    assert refusals(broke, "coalition", _strategic(["KLI-0001"], "1809")) == [
        "KLI has 0 free strategic moves left and 0.5 EP; moving 1 unit costs 1 EP "
        "(1 EP a move beyond the free ones) (204.0)"
    ]


def test_a_unit_moves_strategically_once_a_turn() -> None:
    state, _ = orders(_at_8a(), "coalition", _strategic(["KLI-0001"], "1809"))
    assert refusals(state, "coalition", _strategic(["KLI-0001"], "1307")) == [
        "KLI-0001 has already moved strategically this turn (204.0)"
    ]


def test_refusals_name_the_rule() -> None:
    state = _at_8a()
    cases = {
        (
            "KLI-0005",
            "1107",
        ): "KLI-0005 is in 1607, which is no KLI strategic movement node (756.2)",
        ("KLI-0001", "1206"): "1206 is no KLI strategic movement node (base, planet, supply tug) "
        "(756.2)",
        ("KLI-0001", "1307"): "KLI-0001 is already in 1307 (204.0)",
        ("KLI-B002", "1107"): "KLI-B002 (BATS) cannot move by itself (towing by tugs is not "
        "modelled) (204.0)",
        ("KZI-0001", "1107"): "KZI-0001 is a unit of KZI, not of coalition (204.0)",
        ("KLI-0001", "0000"): "0000 is not a hex of the map (204.0)",
    }
    for (unit, to), message in cases.items():
        assert refusals(state, "coalition", _strategic([unit], to)) == [message]


def test_a_node_cut_off_from_the_others_cannot_be_reached() -> None:
    state = _at_8a()
    captured = msgspec.structs.replace(state.board, owners=((1502, "KLI"),))
    state = state.with_board(captured)
    assert refusals(state, "coalition", _strategic(["KLI-0001"], "1502")) == [
        "no chain of KLI nodes, each within 6 hexes of the next through unblocked hexes, "
        "joins 1307 to 1502 (204.0)"
    ]


def test_the_counts_start_again_each_turn() -> None:
    state, _ = orders(_at_8a(), "coalition", _strategic(["KLI-0001"], "1809"))
    assert strategic.moves_made(state, "KLI") == 1
    state = run_to(state, "1B")
    assert state.player_turn == 1
    state = run_to(state, "6G")  # phase 7 passes: no repair ship, tug or FRD in the tutorial
    state = msgspec.structs.replace(state, moved_once=("KZI-0001",))
    assert strategic.moves_made(state, "KZI") == 1
    state = run_to(state, "8A")
    assert state.moved_once == ()
    assert strategic.moves_made(state, "KZI") == 0
