"""The rule options marked C in the rules notes change what the engine allows."""

from __future__ import annotations

import msgspec

from engine.fe import FE
from engine.fe.model import FeState
from engine.fe.rule_options import RULE_OPTIONS, values
from engine.fe.steps.reserves import fleet_size
from tests.engine.fe.steps.tutorial_states import after_setup, orders, refusals, run_to

MOVE = {"type": "move", "units": ["KLI-0001"], "path": ["1307", "1306", "1305", "1304", "1303"]}


def with_option(state: FeState, key: str, value: object) -> FeState:
    chosen = dict(state.options) | {key: value}
    return msgspec.structs.replace(state, options=tuple(sorted(chosen.items())))


def test_every_rule_option_is_offered_with_its_default_at_creation() -> None:
    info = next(i for i in FE.scenarios() if i.id == "tutorial")
    offered = {o.id: o.default for o in info.options}
    for spec in RULE_OPTIONS:
        assert offered[spec.id] == spec.default and spec.rule and spec.help
    state = FE.initial_state("tutorial", ["coalition", "alliance"], {"hex-cost": 2})
    assert values(state)["hex-cost"] == 2
    assert values(state)["flagship-counts"] is True


def test_hex_cost_two_halves_the_reach_of_a_move() -> None:
    state = run_to(after_setup(), "3B2")
    assert not refusals(state, "coalition", MOVE)
    costly = with_option(state, "hex-cost", 2)
    (problem,) = refusals(costly, "coalition", MOVE)
    assert problem == (
        "KLI-0001 (D7C): 1307->1303 needs 4 hexes (8 movement points at 2 a hex), "
        "allowance 6 (203.1)"
    )
    three = dict(MOVE, path=MOVE["path"][:4])
    moved, _ = orders(costly, "coalition", three)
    assert moved.moved_by("KLI-0001") == 6


def test_flagship_counts_decides_whether_the_flagship_is_inside_its_own_limit() -> None:
    units = [u for u in after_setup().board.units if u.fleet == "Strike Force"]
    flagship, counted, _ = fleet_size(units)
    assert flagship.id == "KLI-0001" and counted == 4 - 1  # the F5S scout rides free
    assert fleet_size(units, flagship_counts=False)[1] == counted - 1
