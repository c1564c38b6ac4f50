"""The checklist names the seats whose signed policies answer a step (`engine.fe.policy_cover`):
a player sees which secret choices, allocations, retreats and reaction windows will not wait
for an email of theirs, as they see the steps their standing order covers."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from engine.core.packets import VerifiedPacket
from engine.fe import FE, policy_cover
from engine.fe.battle_model import CombatPolicy
from engine.fe.model import FeState
from engine.fe.orders import PolicyOrder, ReactionOrder
from engine.fe.reaction import ReactionPolicy
from engine.fe.steps import combat_policy, combat_pursuit, reaction_policy
from tests.engine.fe.helpers import play, start
from tests.engine.fe_battle import PlacedFe, play_battle, policy, rules
from tests.engine.table import Table

COMBAT_STEPS = ("5-3C", "5-3D", "5-3E", "5-3X2", "5-4A2", "5-6A", "5-6B", "5-7A1", "5-8A")


def _policy_rows(state: FeState) -> dict[str, tuple[str, ...]]:
    return {row.step: row.policy for row in FE.checklist(state)}


def test_no_policy_marks_no_step() -> None:
    rows = _policy_rows(start())
    assert not any(rows.values())


def test_each_field_of_a_combat_policy_marks_the_steps_it_answers() -> None:
    state = play(start(), "coalition", PolicyOrder(flagship="auto", bir=2, allocate="suggested"))
    rows = _policy_rows(state)
    marked = {step for step in COMBAT_STEPS if rows[step] == ("coalition",)}
    assert marked == {"5-3D", "5-3X2", "5-6A", "5-6B"}
    assert rows["5-8F"] == ("coalition",)  # the pursued side's allocation, as in battle
    assert rows["5-8D"] == ()  # the set-up needs the force and EW too
    assert rows["3B3"] == ()


def test_a_whole_policy_marks_the_round_retreat_pursuit_and_its_set_up() -> None:
    whole = PolicyOrder(
        flagship="auto", force="auto", bir=1, ew="default", allocate="suggested", retreat=0,
        pursue="never",
    )  # fmt: skip
    rows = _policy_rows(play(start(), "coalition", whole))
    assert all(rows[step] == ("coalition",) for step in COMBAT_STEPS), rows
    assert rows["5-8D"] == ("coalition",)


def test_both_seats_are_named_in_seat_order_and_a_cancelled_policy_unmarks() -> None:
    state = play(start(), "coalition", PolicyOrder(bir=3))
    # The alliance's policy as its own packet would store it (policies sorted by seat name;
    # the seats' order is the coalition's first).
    alliance = ("alliance", CombatPolicy(bir=1, ew="default"))
    state = msgspec.structs.replace(state, policies=(alliance, *state.policies))
    assert state.seats == ("coalition", "alliance")
    rows = _policy_rows(state)
    assert rows["5-3X2"] == ("coalition", "alliance")
    assert rows["5-4A2"] == ("alliance",)
    state = play(state, "coalition", PolicyOrder())
    assert _policy_rows(state)["5-3X2"] == ("alliance",)


def test_a_reaction_policy_marks_the_reaction_window() -> None:
    state = play(start(), "coalition", ReactionOrder(mode="never"))
    assert _policy_rows(state)["3B3"] == ("coalition",)
    asking = play(start(), "coalition", ReactionOrder(mode="react", otherwise="ask"))
    assert _policy_rows(asking)["3B3"] == ()  # it asks wherever it does not cover a unit


class AskLog(Table):
    """A table that notes the seat and step of every choice a seat is asked for (orders or
    a secret commitment): what a player would have had to send an email for."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.asked: list[tuple[str, str]] = []

    def orders(self, seat: str, *orders: Any) -> VerifiedPacket:
        self.asked.append((seat, self.owed()[2]))
        return super().orders(seat, *orders)

    def commit(self, seat: str, *args: Any, **kwargs: Any) -> VerifiedPacket:
        self.asked.append((seat, self.owed()[2]))
        return super().commit(seat, *args, **kwargs)


@pytest.mark.parametrize(
    ("signed", "still_asked"),
    [
        # (5-3C and 5-3D are chosen at 5-3E from 5.10, `force_together`)
        (PolicyOrder(bir=1, allocate="suggested", retreat=0), {"5-3E", "5-4A2"}),
        (PolicyOrder(flagship="auto", force="auto", ew="default"), {"5-3X2", "5-6A"}),
        (
            PolicyOrder(flagship="auto", force="auto", bir=2, ew="default", allocate="suggested"),
            set(),
        ),
    ],
    ids=["bir-allocate-stay", "flagship-force-ew", "whole-round"],
)
def test_the_engine_never_asks_a_seat_where_the_checklist_says_its_policy_answers(
    signed: PolicyOrder, still_asked: set[str]
) -> None:
    """The mark is checked against play: a battle fought for two rounds, the alliance with
    ``signed`` and the coalition with none (both with a standing order for phase 5), and no
    step the alliance is asked at is one the checklist marks as answered by its policy."""
    table = AskLog(PlacedFe(), "tutorial", ["coalition", "alliance"], label="policy-cover")
    whole = policy(2)  # the choices each side makes by hand, where it is asked
    hands = {"alliance": whole, "coalition": whole}
    played = play_battle(table, {"alliance": signed}, rounds=2, hands=hands)
    assert sorted(played.rounds) == [1, 2]
    answered = {step for step, seats in _policy_rows(rules(table)).items() if "alliance" in seats}
    assert answered, "the policy marks some step"
    in_battle = {step for seat, step in table.asked if seat == "alliance" and step.startswith("5-")}
    assert in_battle == still_asked
    assert not answered & in_battle, (sorted(answered), in_battle)
    coalition = {step for seat, step in table.asked if seat == "coalition"}
    assert {"5-3E", "5-3X2"} <= coalition  # the coalition, with no policy, is asked


def test_the_orders_named_for_each_step_are_the_rules_areas_own() -> None:
    """`POLICY_ORDERS` is data, so the checklist need not import the rules areas: checked
    here against what those areas answer for a policy with every field set."""
    whole = CombatPolicy(
        flagship="auto", force="auto", bir=1, ew="default", allocate="suggested", retreat=0,
        pursue="always", offer="always", approach="refuse", capture="never", direct="never",
    )  # fmt: skip
    every_version = combat_policy.answered_steps(whole, joined=False)  # (5-3C, 5-3D before 5.10)
    combat = {*every_version, *combat_pursuit.answered_steps(whole)}
    assert set(policy_cover.COMBAT_POLICY_STEPS) == combat
    assert policy_cover.REACTION_POLICY_STEPS == (reaction_policy.REACTION_STEP,)
    assert reaction_policy.answers(ReactionPolicy(mode="never"))
    rows = {row.step: row.policy_order for row in FE.checklist(start())}
    assert {step for step, order in rows.items() if order == "policy"} == combat
    assert {step for step, order in rows.items() if order == "reaction"} == {"3B3"}
    assert rows["2B3"] == "" and rows["5-3F1"] == ""  # builds; a manual step
