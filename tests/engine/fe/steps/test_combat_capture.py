"""Ship captures at 5-6X1, played by the engine (305.1; `engine.fe.steps.combat_capture`).

The tutorial board with one battle of our own making in 1104, a Kzinti hex with neither a
planet nor a base: the Kzinti CL KZI-0003 (crippled before the battle) and the FF KZI-0004
against the D7C KLI-0001 and the D7s KLI-0002/-0003. The scripts play round 1 up to 5-6X1
without losses, so the crippled CL is there to be captured; the Kzinti have nothing to
capture and no part in the step.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec
import pytest

from engine.core.ruleset import Event, RollRequest
from engine.core.turn_orders import Done
from engine.fe import FE, RULESET
from engine.fe.battle_model import CombatPolicy
from engine.fe.face import FACE
from engine.fe.model import FeState
from engine.fe.orders import CaptureOrder, parse_orders
from engine.fe.steps import combat_capture, force_together
from tests.engine.fe.helpers import owed
from tests.engine.fe.steps.test_combat_round import reveal
from tests.engine.fe.steps.tutorial_states import (
    after_setup,
    placed,
    refusals,
    run_to,
    texts,
)

KLINGONS = ("KLI-0001", "KLI-0002", "KLI-0003")


def battle(
    cripple: bool = True,
    *,
    version: str = "",
    to: str = "",
    policies: Mapping[str, CombatPolicy] | None = None,
) -> tuple[FeState, list[Event]]:
    """The Klingons and the Kzinti CL and FF in 1104 after a quiet round 1, at the capture
    step (with ``cripple``, the CL crippled) or else at 5-7A1, or at step ``to``; in a game
    played at ``version`` (default: this one) with ``policies`` signed before the battle."""
    state = placed(
        after_setup(), {"KZI-0003": 1104, "KZI-0004": 1104, **dict.fromkeys(KLINGONS, 1104)}
    )
    if cripple:
        board = state.board
        cl = msgspec.structs.replace(board.unit("KZI-0003"), crippled=True)
        state = state.with_board(board.with_units([cl]))
    if version:
        state = FE.at_version(state, version)
    state = msgspec.structs.replace(state, policies=tuple(sorted((policies or {}).items())))
    events: list[Event] = []
    # A quiet round 1 (BIRs 1 + 1, every die 1: 10%): the D7C alone scores 1 point on the
    # Kzinti FF and the FF none, so nothing is lost and the crippled CL waits in reserve.
    if force_together.together(state):  # flagship and force at once (fe 5.10)
        joined: dict[str, object] = {
            "coalition": {"flagship": "KLI-0001", "units": ["KLI-0001"]},
            "alliance": {"flagship": "KZI-0004", "units": ["KZI-0004"]},
        }
        state = reveal(run_to(state, "5-3E", events), joined)
    else:
        flagships: dict[str, object] = {"coalition": "KLI-0001", "alliance": "KZI-0004"}
        state = reveal(run_to(state, "5-3D", events), flagships)
        state = reveal(
            run_to(state, "5-3E", events), {"coalition": ["KLI-0001"], "alliance": ["KZI-0004"]}
        )
    state = reveal(run_to(state, "5-3X2", events), {"coalition": 1, "alliance": 1}, dice=(1,))
    state = reveal(
        run_to(state, "5-4A2", events), {"coalition": "default", "alliance": "default"}, dice=(1, 1)
    )
    return run_to(state, to or ("5-6X1" if cripple else "5-7A1"), events), events


def capture(unit: str = "KZI-0003", by: str = "KLI-0002") -> dict[str, Any]:
    return {"type": "capture", "unit": unit, "by": by}


def attempt(state: FeState, seat: str, item: dict[str, Any]) -> tuple[FeState, RollRequest]:
    (order,) = parse_orders([item])
    assert not RULESET.validate(state, seat, order)
    applied = RULESET.apply(state, seat, order)
    (roll,) = applied.rolls
    return applied.state, roll


def test_only_the_side_with_a_cripple_to_take_answers() -> None:
    state, _ = battle()
    assert owed(state).step == "5-6X1" and owed(state).seats == ("coalition",)
    assert [u.id for u in combat_capture.targets(state, "coalition", state.battles[0])] == [
        "KZI-0003"
    ]
    assert not combat_capture.may_try(state, "alliance")  # no crippled Klingon
    (choice,) = [c for c in FACE.choices(state, "coalition") if c.order == "capture"]
    assert choice.title == "Try to capture a crippled enemy ship"
    assert [(p.name, p.kind.value) for p in choice.params] == [
        ("unit", "piece"),
        ("by", "piece"),
    ]


def test_two_dice_below_three_capture_the_ship() -> None:
    state, roll = attempt(battle()[0], "coalition", capture())
    assert roll.count == 2 and roll.sides == 6
    assert roll.purpose == "capture, 1104 round 1, coalition, KZI-0003"
    (tried,) = state.battles[0].captures
    assert (tried.unit, tried.by, tried.modifier, tried.result) == (
        "KZI-0003",
        "KLI-0002",
        0,
        "rolling",
    )
    rolled = RULESET.apply_roll(state, roll, (1, 1))
    assert texts(rolled.events, "capture") == [
        "1104 round 1: capture dice 1 + 1 = 2 (success below 3): KZI-0003 is captured: it is "
        "KLI's now, crippled (305.1)"
    ]
    taken = rolled.state.board.unit("KZI-0003")
    assert (taken.empire, taken.cls, taken.crippled, taken.hex) == ("KLI", "KZI:CL", True, 1104)
    assert taken.info().empire == "KZI" and taken.info().id == "CL"  # still a Kzinti CL
    assert rolled.state.battles[0].captures[0].dice == (1, 1)
    # the CL was this round's target already, so the Kzinti may not try to take it back now:
    # nothing is left to try and the step passes by itself
    assert not combat_capture.may_try(rolled.state, "alliance")
    assert owed(rolled.state).step == "5-6X2"


def test_a_total_of_three_fails_and_the_ship_stays() -> None:
    state, roll = attempt(battle()[0], "coalition", capture())
    rolled = RULESET.apply_roll(state, roll, (2, 1))
    assert texts(rolled.events, "capture") == [
        "1104 round 1: capture dice 2 + 1 = 3 (success below 3): KZI-0003 is not captured (305.1)"
    ]
    assert rolled.state.board.unit("KZI-0003").empire == "KZI"
    assert rolled.state.battles[0].captures[0].result == "failed"
    # nothing is left to try this round: the step passes without the coalition's done
    assert owed(rolled.state).step == "5-6X2"


def test_a_ground_combat_ship_takes_one_off_the_dice(monkeypatch: pytest.MonkeyPatch) -> None:
    """No class of the shipped tables is marked a ground combat ship (521): the mark is stood
    in for. 2 + 1 - 1 = 2 is below 3."""
    state = battle()[0]
    assert not any(combat_capture.ground_combat_ship(u) for u in state.board.units)
    monkeypatch.setattr(combat_capture, "ground_combat_ship", lambda u: u.id == "KLI-0002")
    state, roll = attempt(state, "coalition", capture())
    assert state.battles[0].captures[0].modifier == -1
    rolled = RULESET.apply_roll(state, roll, (2, 1))
    assert texts(rolled.events, "capture")[0].startswith("1104 round 1: capture dice 2 + 1 -1 = 2")
    assert rolled.state.board.unit("KZI-0003").empire == "KLI"


def test_bad_attempts_are_refused_with_the_rule_and_nothing_changes() -> None:
    state, _ = battle()
    assert refusals(state, "coalition", capture("KZI-0004")) == [
        "KZI-0004 is not crippled: only a crippled ship may be captured (305.1)"
    ]
    assert refusals(state, "coalition", capture("KLI-0001")) == [
        "KLI-0001 is a unit of KLI, not of an enemy of coalition (305.1)"
    ]
    assert refusals(state, "coalition", capture("KZI-0001")) == [
        "KZI-0001 is in 1105, not in the battle hex 1104 (305.1)"
    ]
    assert refusals(state, "coalition", capture(by="KLI-0004")) == [
        "KLI-0004 is in 1307, not in the battle hex 1104 (305.1)"
    ]
    assert refusals(state, "coalition", capture(by="KZI-0004")) == [
        "KZI-0004 is a unit of KZI, not of coalition (305.1)"
    ]
    assert refusals(state, "coalition", capture("NOPE-1")) == ["there is no unit NOPE-1 (305.1)"]
    assert refusals(state, "coalition", capture("kzi-0004")) == [
        "there is no unit kzi-0004; its id is written KZI-0004 (305.1)"
    ]
    assert refusals(state, "alliance", capture("KLI-0001", "KZI-0004"))[0].startswith(
        "it is coalition's step 5-6X1"
    )
    (order,) = parse_orders([capture()])
    assert isinstance(order, CaptureOrder)
    assert combat_capture.check_capture(state, "coalition", order) == []
    board = state.board
    crippled = msgspec.structs.replace(board.unit("KLI-0002"), crippled=True)
    (problem,) = combat_capture.check_capture(
        state.with_board(board.with_units([crippled])), "coalition", order
    )
    assert (problem.message, problem.rule) == (
        "KLI-0002 is crippled: an uncrippled ship makes the capture attempt",
        "305.1",
    )


def test_one_attempt_a_target_a_round_and_no_done_before_the_dice() -> None:
    """The FF KZI-0004 is crippled too: after the failed attempt on the CL the step waits
    for the coalition, which may still try the FF, not the CL again."""
    state = battle()[0]
    board = state.board
    ff = msgspec.structs.replace(board.unit("KZI-0004"), crippled=True)
    state, roll = attempt(state.with_board(board.with_units([ff])), "coalition", capture())
    (problem,) = RULESET.validate(state, "coalition", Done())
    assert (problem.message, problem.rule) == ("the capture dice are not rolled yet", "305.1")
    assert refusals(state, "coalition", capture(by="KLI-0003")) == [
        "the dice of the last capture attempt are not rolled yet (305.1)"
    ]
    rolled = RULESET.apply_roll(state, roll, (6, 6)).state
    assert refusals(rolled, "coalition", capture(by="KLI-0003")) == [
        "KZI-0003 was the target of coalition's capture attempt in round 1 already: one "
        "attempt a round (305.1)"
    ]
    assert refusals(rolled, "coalition", capture("KZI-0004", "KLI-0002")) == [
        "KLI-0002 tried a capture in round 1 already (305.1)"
    ]
    assert refusals(rolled, "coalition", capture("KZI-0004", "KLI-0003")) == []


def test_with_nothing_to_capture_the_step_passes_by_itself() -> None:
    _, events = battle(cripple=False)
    assert (
        "5-6X1 Either side resolves its ship captures: no crippled enemy ship to capture, or "
        "no ship to capture with (305.1)" in texts(events, "step-passed")
    )
