"""Typed adjustments (`engine.fe.steps.adjust`): checked against the board, then carried out.

The tutorial after set-up: KLI (coalition) owes step 1A1 with its Strike Force in 1307
(KLI-0001 D7C, KLI-0002/0003 D7, KLI-0004 F5S) and the Flank Patrol in 1607; KZI (alliance)
has its Border Guard in 1105. Orders go through the ruleset (`validate`/`apply`), as a packet
would, so the routing of ``adjust`` to its area is tested too.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from engine.core.ruleset import Event
from engine.fe import FE, flow
from engine.fe.model import FeState
from engine.fe.orders import Adjust, parse_orders
from engine.fe.steps import adjust
from tests.engine.fe.steps.tutorial_states import after_setup


def tutorial_after_setup() -> FeState:
    return after_setup()


@pytest.fixture(scope="module")
def start() -> FeState:
    state = tutorial_after_setup()
    assert FE.summary(state)["step"] == "1A1"
    return state


def adjust_order(**fields: Any) -> Adjust:
    fields.setdefault("reason", "combat at 1305: lost round 1")
    (order,) = parse_orders([{"type": "adjust", **fields}])
    assert isinstance(order, Adjust)
    return order


def refused(state: FeState, seat: str, **fields: Any) -> list[str]:
    return [v.message for v in FE.validate(state, seat, adjust_order(**fields))]


def adjusted(state: FeState, seat: str, **fields: Any) -> tuple[FeState, Event]:
    order = adjust_order(**fields)
    assert FE.validate(state, seat, order) == []
    applied = FE.apply(state, seat, order)
    (event,) = applied.events
    assert event.kind == "adjust" and event.seat == seat and event.step == "1A1"
    assert FE.summary(applied.state)["step"] == "1A1", "an adjustment does not end the step"
    return applied.state, event


# --- treasury -----------------------------------------------------------------------------


def test_treasury_adds_and_spends_halves(start: FeState) -> None:
    state, event = adjusted(start, "coalition", change="treasury", ep="12.5", reason="bonus")
    assert state.ep2("KLI") == 25 and state.ep2("KZI") == 0
    assert event.text == "KLI adjusts: treasury +12.5 EP, 0 -> 12.5 EP (bonus)"
    assert event.data == {
        "change": "treasury",
        "reason": "bonus",
        "ep2": 25,
        "treasury2": 25,
        "empire": "KLI",
    }
    state, event = adjusted(state, "coalition", change="treasury", ep="-12.5", reason="spent")
    assert state.ep2("KLI") == 0
    assert event.text == "KLI adjusts: treasury -12.5 EP, 12.5 -> 0 EP (spent)"


def test_treasury_may_not_go_below_zero(start: FeState) -> None:
    state, _ = adjusted(start, "coalition", change="treasury", ep="3")
    assert refused(state, "coalition", change="treasury", ep="-3.5") == [
        "adjust treasury: KLI has 3 EP; taking 3.5 would leave -0.5 "
        "(the treasury may not go below 0)"
    ]


def test_treasury_of_another_seats_empire_is_refused(start: FeState) -> None:
    assert refused(start, "coalition", change="treasury", ep="5", empire="KZI") == [
        "adjust treasury: KZI is not an empire of coalition (KLI)"
    ]


def test_a_seat_of_two_empires_must_name_one() -> None:
    wind = FE.initial_state("the-wind", ["coalition", "alliance"], {})
    wind = msgspec.structs.replace(wind, setup=False)
    step = flow.current(wind)
    assert step is not None
    problems = adjust.AREA.check(wind, "coalition", step, adjust_order(change="treasury", ep="1"))
    assert [p.message for p in problems] == [
        "adjust treasury: coalition plays LYR, KLI: say which empire"
    ]
    order = adjust_order(change="treasury", ep="1", empire="LYR")
    assert adjust.AREA.check(wind, "coalition", step, order) == []


# --- cripple, repair, destroy ---------------------------------------------------------------


def test_cripple_then_repair(start: FeState) -> None:
    state, event = adjusted(start, "coalition", change="cripple", unit="KLI-0003")
    assert state.board.unit("KLI-0003").crippled
    assert event.text == "KLI adjusts: D7 KLI-0003 crippled at 1307 (combat at 1305: lost round 1)"
    assert event.data["unit"] == "KLI-0003" and event.data["hex"] == "1307"
    assert refused(state, "coalition", change="cripple", unit="KLI-0003") == [
        "adjust cripple: D7 KLI-0003 is already crippled"
    ]
    state, event = adjusted(state, "coalition", change="repair", unit="KLI-0003", reason="SB")
    assert not state.board.unit("KLI-0003").crippled
    assert event.text == "KLI adjusts: D7 KLI-0003 repaired at 1307 (SB)"
    assert refused(state, "coalition", change="repair", unit="KLI-0003") == [
        "adjust repair: D7 KLI-0003 is not crippled"
    ]


def test_enemy_units_are_adjusted_by_their_owner(start: FeState) -> None:
    assert refused(start, "coalition", change="cripple", unit="KZI-0001") == [
        "adjust cripple: KZI-0001 is a unit of KZI: a seat adjusts only its own units, "
        "so losses inflicted on it are recorded by alliance"
    ]
    assert refused(start, "coalition", change="destroy", unit="KLI-9999") == [
        "adjust destroy: there is no unit KLI-9999"
    ]


def test_the_other_seat_cannot_adjust_at_a_step_it_does_not_owe(start: FeState) -> None:
    (problem,) = refused(start, "alliance", change="cripple", unit="KZI-0001")
    assert problem.startswith("it is coalition's step 1A1")


def test_destroy_removes_the_unit_and_its_reserve_mark(start: FeState) -> None:
    marked = msgspec.structs.replace(start, reserves=("KLI-0002", "KLI-0005"))
    state, event = adjusted(marked, "coalition", change="destroy", unit="KLI-0002")
    with pytest.raises(KeyError):
        state.board.unit("KLI-0002")
    assert len(state.board.units) == len(start.board.units) - 1
    assert state.reserves == ("KLI-0005",)
    assert event.text == "KLI adjusts: D7 KLI-0002 destroyed at 1307 (combat at 1305: lost round 1)"


def test_a_class_without_a_crippled_side_is_destroyed_not_crippled(start: FeState) -> None:
    state, event = adjusted(start, "coalition", change="place", cls="PDU", hex="1307")
    new = event.data["unit"]
    assert refused(state, "coalition", change="cripple", unit=new) == [
        f"adjust cripple: PDU {new} has no crippled side: destroy it instead"
    ]


# --- move, place, convert -------------------------------------------------------------------


def test_move_to_an_on_map_hex(start: FeState) -> None:
    state, event = adjusted(start, "coalition", change="move", unit="KLI-0004", hex="1306")
    assert state.board.unit("KLI-0004").hex == 1306
    assert event.text == (
        "KLI adjusts: F5S KLI-0004 moved from 1307 to 1306 (combat at 1305: lost round 1)"
    )
    assert event.data["hex"] == "1307" and event.data["to"] == "1306"
    assert refused(state, "coalition", change="move", unit="KLI-0004", hex="1306") == [
        "adjust move: F5S KLI-0004 is already in 1306"
    ]
    assert refused(state, "coalition", change="move", unit="KLI-0004", hex="9950") == [
        "adjust move: 9950 is not a hex of the map"
    ]


def test_place_a_new_unit_with_the_next_id(start: FeState) -> None:
    state, event = adjusted(start, "coalition", change="place", cls="D7", hex="1307", reason="gift")
    unit = state.board.unit("KLI-0007")
    assert (unit.empire, unit.cls, unit.hex, unit.crippled, unit.fleet) == (
        "KLI", "D7", 1307, False, ""
    )  # fmt: skip
    assert state.board.is_released(unit)
    assert event.text == "KLI adjusts: new D7 KLI-0007 placed at 1307 (gift)"
    assert event.data["unit"] == "KLI-0007"
    state, _ = adjusted(state, "coalition", change="place", cls="F5", hex="1607")
    assert state.board.unit("KLI-0008").hex == 1607
    assert refused(state, "coalition", change="place", cls="CC", hex="1307") == [
        "adjust place: KLI has no unit class 'CC' in the unit tables"
    ]
    assert refused(state, "coalition", change="place", cls="D7", hex="0000") == [
        "adjust place: 0000 is not a hex of the map"
    ]


def test_placing_stops_at_the_most_units_a_board_may_hold(
    start: FeState, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(adjust, "MOST_UNITS", len(start.board.units) + 1)
    state, _ = adjusted(start, "coalition", change="place", cls="D7", hex="1307")
    assert refused(state, "coalition", change="place", cls="D7", hex="1307") == [
        f"adjust place: the board holds {len(state.board.units):,} units, the most a game may have"
    ]


def test_placed_units_make_the_board_a_full_reading_makes(start: FeState) -> None:
    """`adjust place` hands the new unit to the state as a change (`FeState.with_units`):
    the state and board equal those rebuilt from scratch with the unit added."""
    state, _ = adjusted(start, "coalition", change="place", cls="D7", hex="1307")
    state, _ = adjusted(state, "coalition", change="place", cls="F5", hex="1607")
    rebuilt = start.with_board(start.board.with_units(
        [state.board.unit("KLI-0007"), state.board.unit("KLI-0008")]
    ))  # fmt: skip
    assert state.forces == rebuilt.forces
    assert state.board.units == rebuilt.board.units


def test_convert_to_a_class_of_the_same_empire(start: FeState) -> None:
    state, event = adjusted(start, "coalition", change="convert", unit="KLI-0002", cls="D7C")
    assert state.board.unit("KLI-0002").cls == "D7C"
    assert event.text == (
        "KLI adjusts: D7 KLI-0002 converted to D7C at 1307 (combat at 1305: lost round 1)"
    )
    assert refused(state, "coalition", change="convert", unit="KLI-0002", cls="D7C") == [
        "adjust convert: D7C KLI-0002 already is a D7C"
    ]
    assert refused(state, "coalition", change="convert", unit="KLI-0002", cls="BC") == [
        "adjust convert: KLI has no unit class 'BC' in the unit tables"
    ]


# --- the order's shape ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"change": "cripple", "unit": "KLI-0003", "hex": "1307"},
         "adjust cripple: hex does not belong to a cripple (it takes unit)"),
        ({"change": "move", "unit": "KLI-0003"}, "adjust move: it needs hex"),
        ({"change": "treasury"}, "adjust treasury: it needs a non-zero ep"),
        ({"change": "place", "hex": "1307"}, "adjust place: it needs cls"),
        ({"change": "destroy", "unit": "KLI-0003", "reason": "  "},
         "adjust destroy: the reason is blank: say why, for the log"),
        ({"change": "cripple", "unit": "KLI-0003", "empire": "KZI"},
         "adjust cripple: KLI-0003 is a unit of KLI, not of KZI"),
    ],
)  # fmt: skip
def test_fields_that_are_missing_or_do_not_belong(
    start: FeState, fields: dict[str, Any], message: str
) -> None:
    assert refused(start, "coalition", **fields) == [message]


def test_no_adjustments_during_set_up() -> None:
    state = FE.initial_state("tutorial", ["coalition", "alliance"], {})
    assert refused(state, "alliance", change="treasury", ep="1") == [
        "adjust treasury: no adjustments during set-up: place the starting fleets with place orders"
    ]


def test_the_same_adjustments_give_the_same_state(start: FeState) -> None:
    """Both replicas apply the same packet: the result must not depend on anything else."""
    script = [
        {"change": "cripple", "unit": "KLI-0001"},
        {"change": "place", "cls": "D7", "hex": "1607"},
        {"change": "destroy", "unit": "KLI-0006"},
        {"change": "treasury", "ep": "4.5"},
    ]
    results = []
    for _ in range(2):
        state = start
        for fields in script:
            state, _ = adjusted(state, "coalition", **fields)
        results.append(msgspec.msgpack.encode(state.hash_form()))
    assert results[0] == results[1]
