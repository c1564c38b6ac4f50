"""SIDS steps stay on a base between rounds and turns (`engine.fe.steps.sids`, 308.8).

The Klingon Strike Force (D7C, two D7, F5S) attacks the Kzinti starbase KZI-B004 in 1704
(tutorial board). Round 1: BIRs 4 and 1, variable die 3 (+0): total 5; the Klingons' die 3.
The starbase owes 7 damage points and gives two voluntary SIDS steps (4.5 each, 308.82):
9 points, 2 over-resolved (minus points)."""

from __future__ import annotations

import msgspec

from engine.fe.combat.targets import target_of
from engine.fe.model import FeState
from engine.fe.steps import combat_damage, sids
from tests.engine.fe.steps.test_combat_round import order_refusals, reveal
from tests.engine.fe.steps.tutorial_states import after_setup, orders, placed, run_to

STRIKE = ["KLI-0001", "KLI-0002", "KLI-0003", "KLI-0004"]


def first_round_allocation() -> FeState:
    state = run_to(placed(after_setup(), dict.fromkeys(STRIKE, 1704)), "5-3D")
    state = reveal(state, {"coalition": "KLI-0001", "alliance": "KZI-B004"})
    state = reveal(run_to(state, "5-3E"), {"coalition": STRIKE, "alliance": ["KZI-B004"]})
    state = reveal(run_to(state, "5-3X2"), {"coalition": 4, "alliance": 1}, dice=(3,))
    state = reveal(run_to(state, "5-4A2"), {"coalition": "default", "alliance": "default"},
                   dice=(3, 1))  # fmt: skip
    return run_to(state, "5-6A")


def test_steps_given_in_allocation_stay_on_the_base_and_cheapen_crippling_it() -> None:
    state = first_round_allocation()
    owed = combat_damage.owed2(state, "alliance")
    assert owed is not None and owed[2] == 14  # 7 points, doubled
    two = {"type": "allocate", "losses": ["sids KZI-B004", "sids KZI-B004"]}
    assert order_refusals(state, "alliance", two) == []
    state, _ = orders(state, "alliance", two, {"type": "done"})
    assert sids.steps_of(state, "KZI-B004") == 2
    assert not state.board.unit("KZI-B004").crippled
    (base,) = sids.with_scored(state, [target_of(state.board.unit("KZI-B004"))])
    assert base.cripple_cost2() == 72 - 2 * 9  # defence 36 less two 4.5-point steps
    state = run_to(state, "1A1")  # the battle goes on or ends; the next player turn begins
    assert sids.steps_of(state, "KZI-B004") >= 2  # still there (no repair is modelled)


def test_a_track_that_fills_cripples_the_base_and_starts_again() -> None:
    state = first_round_allocation()
    state = msgspec.structs.replace(state, sids=(("KZI-B004", 7),))
    (base,) = sids.with_scored(state, [target_of(state.board.unit("KZI-B004"))])
    after = base.after_step()
    assert after.crippled and after.steps == 0  # the 8th step cripples a starbase (308.82)
    assert sids.record(state, [after]).sids == ()
