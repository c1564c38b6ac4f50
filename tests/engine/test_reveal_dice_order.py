"""The dice a secret step's reveal asks for, when a seat was not asked: they wait for the
other seats' next values, and (from a ruleset's `reveal_dice_in_order_from`) they are rolled
in the order the ruleset asked for them (`engine.core.rolls.reveal_dice`).

The toy here asks only north at its ``pick`` step (south's choice is its rule's, as a signed
policy chooses for a seat in F&E) and asks for two dice there: one the rules would read at
the reveal, then one for later. The second must not be rolled first: in F&E the first is
the variable BIR die and the second a combat die, whose damage needs the BIR total, and the
core once rolled them the other way round, so the damage was lost and the battle stalled.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec
import pytest

from engine.core.rolls import in_asked_order
from engine.core.ruleset import Applied, Decision, DecisionKind, Event, RollRequest
from tests.engine.table import Table
from tests.engine.toy import STEPS, Say, Toy, ToyState

FIRST, SECOND = "read at the reveal", "read after it"


class Delegated(Toy):
    """The toy whose ``pick`` asks north alone and asks for the two dice above."""

    def __init__(self, since: str) -> None:
        self.reveal_dice_in_order_from = since

    def pending(self, state: ToyState) -> list[Decision]:
        if STEPS[state.step] == "pick":
            return [Decision(state.seats[:1], "pick", DecisionKind.SECRET, self._key(state))]
        return super().pending(state)

    def apply_secret(
        self, state: ToyState, decision: Decision, choices: Mapping[str, Any]
    ) -> Applied[ToyState]:
        applied = super().apply_secret(state, decision, choices)
        asked = [
            RollRequest(1, 6, FIRST, "pick", at_reveal=True),
            RollRequest(1, 6, SECOND, "pick"),
        ]
        return Applied(applied.state, applied.events, asked)

    def apply_roll(
        self, state: ToyState, request: RollRequest, dice: tuple[int, ...]
    ) -> Applied[ToyState]:
        state = msgspec.structs.replace(state, last_roll=(*state.last_roll, *dice))
        return Applied(state, [Event("used", request.purpose)])


def rolled_in(since: str) -> list[str]:
    """The purposes of the dice as the toy was handed them, in a game of version 1.2."""
    table = Table(Delegated(since), "duel", ["north", "south"], label="reveal-order")
    table.orders("north", Say("hello"))
    table.orders("south", Say("hi"))
    assert table.owed() == ("north", DecisionKind.SECRET, "pick")
    table.commit("north", 3, reveal_now=True)
    assert not [e for e in table.events if e.kind == "used"]  # south has sent no value yet
    assert table.owed()[:2] == ("south", DecisionKind.ENTROPY)
    table.entropy_only("south")
    return [e.text for e in table.events if e.kind == "used"]


def test_from_the_version_the_dice_are_rolled_in_the_order_asked() -> None:
    assert in_asked_order(Delegated("1.2"), "1.2")
    assert rolled_in("1.2") == [FIRST, SECOND]


@pytest.mark.parametrize("since", ["", "1.3"])
def test_a_game_begun_before_keeps_the_order_it_was_recorded_with(since: str) -> None:
    """Before the version (or for a ruleset that names none) the dice the reveal would have
    read go after the others, as games were recorded then: they must replay the same."""
    assert not in_asked_order(Delegated(since), "1.2")
    assert rolled_in(since) == [SECOND, FIRST]


def test_a_ruleset_without_the_attribute_keeps_the_old_order() -> None:
    ruleset = Delegated("")
    del ruleset.reveal_dice_in_order_from
    assert not in_asked_order(ruleset, "1.2")
