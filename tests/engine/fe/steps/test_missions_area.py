"""Step 2B7: supply missions (509.1-D) extend an empire's supply grid until ended."""

from __future__ import annotations

from engine.fe import FE
from engine.fe.model import FeState
from engine.fe.orders import parse_orders
from engine.fe.steps.supply import grid_of
from tests.engine.fe.helpers import at_step, run_until, start

TUG = "KLI-0027"  # a Klingon TGB in 1709 after the default set-up of The Wind


def at_2b7() -> FeState:
    return run_until(start(), at_step("2B7"))


def play(state: FeState, *items: dict[str, str]) -> FeState:
    for order in parse_orders(list(items)):
        assert not FE.validate(state, "coalition", order), FE.validate(state, "coalition", order)
        state = FE.apply(state, "coalition", order).state
    return state


def refused(state: FeState, item: dict[str, str]) -> str:
    (order,) = parse_orders([item])
    (problem,) = FE.validate(state, "coalition", order)
    return f"{problem.message} ({problem.rule})"


def tug_points(state: FeState) -> list[int]:
    return [p.hex for p in grid_of(state, "KLI").points if p.kind == "tug"]


def test_a_tug_on_the_supply_mission_becomes_a_supply_point_until_the_mission_ends() -> None:
    state = at_2b7()
    assert state.board.unit(TUG).cls == "TGB" and tug_points(state) == []
    state = play(state, {"type": "mission", "unit": TUG, "mission": "supply"})
    assert state.supply_tugs == (TUG,)
    assert tug_points(state) == [state.board.unit(TUG).hex]
    assert refused(state, {"type": "mission", "unit": TUG, "mission": "supply"}) == (
        f"{TUG} is already on the supply mission (509.1)"
    )
    state = play(state, {"type": "mission", "unit": TUG, "mission": "none"})
    assert state.supply_tugs == () and tug_points(state) == []


def test_only_own_tugs_ltts_and_convoys_take_the_mission() -> None:
    state = at_2b7()
    warship = next(u for u in state.board.units if u.empire == "KLI" and u.cls == "D7")
    assert refused(state, {"type": "mission", "unit": warship.id, "mission": "supply"}) == (
        f"D7 {warship.id} cannot take the supply mission: only tugs with mission D, LTTs and "
        "convoys can (509.1)"
    )
    kzinti = next(u for u in state.board.units if u.empire == "KZI")
    assert "not of coalition" in refused(
        state, {"type": "mission", "unit": kzinti.id, "mission": "supply"}
    )


def test_a_destroyed_tug_leaves_its_mission() -> None:
    state = play(at_2b7(), {"type": "mission", "unit": TUG, "mission": "supply"})
    state = play(
        state,
        {"type": "adjust", "change": "destroy", "unit": TUG, "reason": "lost to a raid"},
    )
    assert state.supply_tugs == () and tug_points(state) == []
