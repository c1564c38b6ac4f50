"""Dice a secret step asks for as it is revealed (`RollRequest.at_reveal`).

A combat round's dice must come after both sides' choices for the round are signed, and
must not cost an email of their own. The core reads them from the entropy values carried by
the packets that revealed the step's choices: each value is the next link of its seat's
pre-committed chain, sent only after every seat committed. These tests play a toy whose
secret step rolls at the reveal, check the dice against the packets' own bytes, and attack
the rule as a modified client would.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec
import pytest

from engine.core import entropy
from engine.core.errors import IllegalOrder, PacketError
from engine.core.game import apply_packet
from engine.core.packets import Reveal, Turn, open_packet, raw_public_key, sign_body
from engine.core.ruleset import Applied, Decision, DecisionKind, RollRequest, Seat
from engine.core.state import state_hash
from tests.engine.table import Table
from tests.engine.toy import Roll, Say, Toy, ToyState

DICE = 8
"""Enough dice that two different sources of values giving the same dice is negligible."""


class TossToy(Toy):
    """The toy, but its secret pick also tosses 8d6 at the reveal."""

    def apply_secret(
        self, state: ToyState, decision: Decision, choices: Mapping[Seat, Any]
    ) -> Applied[ToyState]:
        applied = super().apply_secret(state, decision, choices)
        toss = RollRequest(DICE, 6, "toss at the reveal", decision.step, at_reveal=True)
        return Applied(applied.state, applied.events, [toss])


class CheatingToy(Toy):
    """A ruleset bug: an order asking for dice 'at the reveal'."""

    def apply(self, state: ToyState, seat: Seat, order: Any) -> Applied[ToyState]:
        if isinstance(order, Roll):
            request = RollRequest(order.count, order.sides, order.purpose, "talk", at_reveal=True)
            return Applied(state, [], [request])
        return super().apply(state, seat, order)


def to_the_pick(ruleset: Toy) -> Table:
    table = Table(ruleset, "duel", ["north", "south"], label="reveal-dice")
    table.orders("north", Say("ready"))
    table.orders("south", Say("ready too"))
    assert table.owed()[1] == DecisionKind.SECRET
    return table


def played() -> Table:
    table = to_the_pick(TossToy())
    table.commit("north", 3)
    table.commit("south", 5)
    table.reveal("north")
    table.reveal("south")
    return table


def test_the_dice_come_with_the_last_reveal_and_cost_no_packet() -> None:
    table = played()
    (toss,) = [e for e in table.results[-1].events if e.kind == "roll"]
    assert toss.data["purpose"] == "toss at the reveal" and len(toss.data["dice"]) == DICE
    assert table.state is not None and table.state.rules is not None
    assert table.state.rules.last_roll == tuple(toss.data["dice"])
    assert table.state.core.armed == ()
    # Nobody owes an entropy packet for them: the game goes straight on to the next step.
    assert table.owed()[:2] == ("north", DecisionKind.ORDERS)


def test_the_dice_are_read_from_the_reveal_packets_values_alone() -> None:
    """Anyone can recompute them from the two reveal packets; the values of the commit
    packets (sent before every seat had committed) would give other dice."""
    table = played()
    assert table.state is not None
    (toss,) = [e for e in table.results[-1].events if e.kind == "roll"]
    north_reveal, south_reveal = table.packets[-2], table.packets[-1]
    assert (north_reveal.body.seat, south_reveal.body.seat) == ("north", "south")
    game_id = table.state.core.game_id
    event = toss.data["event"]
    values = [north_reveal.body.entropy, south_reveal.body.entropy]
    assert entropy.roll_dice(game_id, event, values, DICE, 6) == tuple(toss.data["dice"])
    commits = [table.packets[-4].body.entropy, table.packets[-3].body.entropy]
    assert entropy.roll_dice(game_id, event, commits, DICE, 6) != tuple(toss.data["dice"])


def test_replaying_the_bytes_gives_the_same_dice_and_hash() -> None:
    table = played()
    assert table.state is not None
    state = None
    for packet in table.packets:
        state = apply_packet(TossToy(), state, packet).state
    assert state is not None and state_hash(state) == state_hash(table.state)


def test_a_modified_client_cannot_pick_its_reveal_value() -> None:
    """To steer the dice the last revealer would have to send another entropy value than
    its chain's next one: the packet is refused and nothing changes."""
    table = to_the_pick(TossToy())
    table.commit("north", 3)
    table.commit("south", 5)
    table.reveal("north")
    assert table.state is not None
    before = state_hash(table.state)
    decision_key = table.state.core.secret.decision.key  # type: ignore[union-attr]
    salt, data = table.players["south"].secrets[decision_key]
    body = table.body(
        "south", Turn(TossToy().encode_orders([])), reveals=[Reveal(decision_key, salt, data)]
    )
    forged = msgspec.structs.replace(body, entropy=b"\x07" * 32)
    key = table.players["south"].key
    packet = open_packet(sign_body(forged, key), lambda _kid: [raw_public_key(key)])
    with pytest.raises(PacketError, match="does not follow its chain"):
        apply_packet(TossToy(), table.state, packet)
    assert state_hash(table.state) == before


def test_an_order_cannot_ask_for_dice_at_the_reveal() -> None:
    """Only a secret step's reveal may read dice at once: an order's roll doing so would let
    its asker, who knows its own value, see the dice before anyone else contributed."""
    table = Table(CheatingToy(), "duel", ["north", "south"], label="cheat")
    with pytest.raises(IllegalOrder, match="at a secret step's reveal only") as caught:
        table.orders("north", Roll(1, 6, "peek"))
    assert caught.value.rule == "P6"
