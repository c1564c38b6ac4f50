"""Extra command points (308.9, `engine.fe.steps.command_points`): bought at 2B3 for 5 EP each,
spent at 5-3D of a battle's first round, raising the command limit the force of 5-3E is
checked against (302.33).

Boards:

- the Wind at 2B3 of turn 1 (`test_shipyard_area.wind_2b3`): the coalition plays LYR and KLI,
  KLI has 20 EP, LYR 5;
- the tutorial's battle in 1105 (`test_combat_loop.two_battles`): the D6 KLI-0005 against the
  Kzinti CC KZI-0001 (command 9), BC KZI-0002 (8), CL KZI-0003 (6) and the FFs KZI-0004 and
  KZI-0005 (3), with two more FFs KZI-0090 and KZI-0091 added here: seven Kzinti units. The
  three best rated are 9, 8 and 6, so the CL may be flagship; with the flagship counting
  (the ``flagship-counts`` default) its rating 6 holds six of them, one command point seven.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from engine.core.errors import IllegalOrder
from engine.core.face import ParamKind
from engine.core.ruleset import Event
from engine.fe import RULESET, views
from engine.fe.battle_model import CombatPolicy
from engine.fe.face import FACE
from engine.fe.forces import Unit
from engine.fe.model import FeState
from engine.fe.steps import combat, combat_policy, command_points, shipyard
from tests.engine.fe.helpers import owed
from tests.engine.fe.steps.test_combat_loop import two_battles
from tests.engine.fe.steps.test_combat_round import refusals as secret_refusals
from tests.engine.fe.steps.test_combat_round import reveal
from tests.engine.fe.steps.test_shipyard_area import play, refusals, wind_2b3, with_options
from tests.engine.fe.steps.tutorial_states import placed, run_to

__all__ = ["wind_2b3"]  # the fixture, used by name

KZI_FORCE = ["KZI-0003", "KZI-0001", "KZI-0002", "KZI-0004", "KZI-0005", "KZI-0090", "KZI-0091"]


# --- buying at 2B3 ---------------------------------------------------------------------------


def test_points_are_bought_at_5_ep_each_and_held_by_the_empire(wind_2b3: FeState) -> None:
    events: list[Event] = []
    order = {"type": "command-points", "count": 2, "empire": "KLI"}
    state = play(wind_2b3, "coalition", order, events)
    assert (
        events[-1].text
        == "KLI buys 2 command points for 10 EP (treasury 20 -> 10); it holds 2 (308.9)"
    )
    assert (state.ep2("KLI"), command_points.held(state, "KLI")) == (20, 2)
    state = play(
        state, "coalition", {"type": "command-points", "count": 1, "empire": "KLI"}, events
    )
    assert (state.ep2("KLI"), command_points.held(state, "KLI")) == (10, 3)
    shown = {e["empire"]: e["command_points"] for e in views.views(state)["empires"]}
    assert (shown["KLI"], shown["LYR"], shown["KZI"]) == (3, 0, 0)


def test_a_purchase_the_treasury_cannot_pay_is_refused_whole(wind_2b3: FeState) -> None:
    poor = wind_2b3.with_ep2("KLI", 15)
    assert refusals(poor, "coalition", {"type": "command-points", "count": 2, "empire": "KLI"}) == [
        "2 command points at 5 EP each cost 10 EP, KLI has 7.5 (308.9)"
    ]
    assert (
        refusals(poor, "coalition", {"type": "command-points", "count": 1, "empire": "KLI"}) == []
    )
    assert refusals(poor, "coalition", {"type": "command-points", "count": 1}) == [
        "coalition plays LYR, KLI: the command-points order must name its empire (308.9)"
    ]
    assert refusals(poor, "coalition", {"type": "command-points", "count": 1, "empire": "KZI"}) == [
        "KZI is not an empire of coalition (LYR, KLI) (308.9)"
    ]
    with pytest.raises(IllegalOrder, match="count"):
        refusals(poor, "coalition", {"type": "command-points", "count": 0, "empire": "KLI"})


def test_unspent_points_lapse_as_the_empire_s_next_production_begins_unless_kept(
    wind_2b3: FeState,
) -> None:
    holding = command_points.with_held(command_points.with_held(wind_2b3, "KLI", 2), "KZI", 1)
    events: list[Event] = []
    after = shipyard.AREA.on_phase(holding, "2", events)
    assert after.command_points == (("KZI", 1),)  # the phasing coalition's lapse, not KZI's
    assert [e.text for e in events] == [
        "KLI's 2 command points not spent since bought lapse (308.9)"
    ]
    assert shipyard.AREA.on_phase(holding, "3", []).command_points == holding.command_points
    kept = with_options(holding, command_points_kept=True)
    assert shipyard.AREA.on_phase(kept, "2", []).command_points == holding.command_points


# --- spending at 5-3D ------------------------------------------------------------------------


def battle(points: int) -> FeState:
    """The tutorial battle in 1105 at 5-3D of round 1, seven Kzinti units there and KZI
    holding ``points`` command points."""
    new = (Unit("KZI-0090", "KZI", "FF", 1105), Unit("KZI-0091", "KZI", "FF", 1105))
    state = placed(two_battles(), {}, *new)
    return run_to(command_points.with_held(state, "KZI", points), "5-3D")


def spent(state: FeState, choice: Any) -> tuple[FeState, list[Event]]:
    """5-3D revealed: the D6 for KLI, ``choice`` for the Kzinti (checked first)."""
    choices = {"coalition": "KLI-0005", "alliance": choice}
    for seat, each in choices.items():
        assert not RULESET.validate_secret(state, owed(state), seat, each)
    applied = RULESET.apply_secret(state, owed(state), choices)
    return applied.state, list(applied.events)


def test_a_side_spends_no_more_points_than_its_flagship_s_empire_holds() -> None:
    state = battle(1)
    assert secret_refusals(state, "alliance", {"flagship": "KZI-0003", "command_points": 2}) == [
        "KZI holds 1 command point; 2 may not be spent (308.9)"
    ]
    assert secret_refusals(state, "coalition", {"flagship": "KLI-0005", "command_points": 1}) == [
        "KLI holds 0 command points; 1 may not be spent (308.9)"
    ]
    (shape,) = secret_refusals(state, "alliance", {"flagship": "KZI-0003", "points": 1})
    assert shape.startswith("the secret choice of 5-3D is your flagship's unit id: one of")
    assert secret_refusals(state, "alliance", {"flagship": "KZI-0004", "command_points": 1}) == [
        "KZI-0004 may not be flagship here: the eligible units are KZI-0001, KZI-0002, "
        "KZI-0003 (302.32)"
    ]
    assert secret_refusals(state, "alliance", {"flagship": "KZI-0003", "command_points": 1}) == []
    assert secret_refusals(state, "alliance", {"flagship": "KZI-0003"}) == []  # none spent


def test_points_are_spent_in_the_first_round_only() -> None:
    state = battle(1)
    record = combat.current(state)
    assert record is not None
    later = combat.replace_current(state, msgspec.structs.replace(record, rounds=1))
    assert secret_refusals(later, "alliance", {"flagship": "KZI-0003", "command_points": 1}) == [
        "command points are spent in a battle's first round only; this is round 2 "
        "(1 command point named) (308.9)"
    ]
    assert secret_refusals(later, "alliance", "KZI-0003") == []


def test_points_spent_leave_the_holdings_at_the_reveal_and_raise_the_limit() -> None:
    state, events = spent(battle(2), {"flagship": "KZI-0003", "command_points": 1})
    assert command_points.held(state, "KZI") == 1
    assert [e.text for e in events if e.kind == "command-points"] == [
        "1105 round 1: alliance spends 1 command point of KZI on its flagship (2 -> 1) (308.9)"
    ]
    record = combat.current(state)
    assert record is not None
    assert record.log[-1].defender.command_points == 1
    state = run_to(state, "5-3E")
    assert secret_refusals(state, "alliance", KZI_FORCE) == []  # 7 units, rating 6 + 1 point
    eight = [*KZI_FORCE, "KZI-0092"]
    state_8 = placed(state, {}, Unit("KZI-0092", "KZI", "FF", 1105))
    assert secret_refusals(state_8, "alliance", eight) == [
        "the force counts 8 (8 units) against a command rating of 7 (flagship CL KZI-0003 "
        "rated 6 + 1 command points) (302.33)"
    ]


def test_without_points_the_same_force_is_over_the_limit() -> None:
    state, events = spent(battle(1), "KZI-0003")
    assert command_points.held(state, "KZI") == 1  # a bare flagship spends none
    assert not [e for e in events if e.kind == "command-points"]
    state = run_to(state, "5-3E")
    assert secret_refusals(state, "alliance", KZI_FORCE) == [
        "the force counts 7 (7 units) against a command rating of 6 (flagship CL KZI-0003 "
        "rated 6) (302.33)"
    ]
    assert secret_refusals(state, "alliance", KZI_FORCE[:6]) == []


def test_a_policy_never_spends_points_but_fills_the_limit_they_raised() -> None:
    state = battle(1)
    policy = CombatPolicy(flagship="auto", force="auto")
    assert combat_policy.choice(state, "5-3D", "alliance", policy) == "KZI-0001"
    state, _ = spent(state, {"flagship": "KZI-0003", "command_points": 1})
    state = run_to(state, "5-3E")
    forced = combat_policy.choice(state, "5-3E", "alliance", policy)
    assert isinstance(forced, list) and len(forced) == 7


def test_the_last_point_spent_leaves_no_holding() -> None:
    choice = {"flagship": "KZI-0003", "command_points": 1}
    state = reveal(battle(1), {"coalition": "KLI-0005", "alliance": choice})
    assert command_points.held(state, "KZI") == 0
    assert state.command_points == ()  # an empire at 0 is left out: the default, as before


def test_the_app_s_flagship_form_offers_the_points_only_when_some_may_be_spent() -> None:
    (plain,) = FACE.choices(battle(0), "alliance")
    assert plain.params[0].kind == ParamKind.PIECE
    (choice,) = FACE.choices(battle(2), "alliance")
    (param,) = choice.params
    assert param.kind == ParamKind.RECORD
    flagship, points = param.entries
    assert (flagship.name, flagship.options) == ("flagship", ("KZI-0001", "KZI-0002", "KZI-0003"))
    assert (points.name, points.kind, points.options) == (
        "command_points",
        ParamKind.INTEGER,
        ("0", "1", "2"),
    )
    (coalition,) = FACE.choices(battle(2), "coalition")
    assert coalition.params[0].kind == ParamKind.PIECE  # KLI holds none
