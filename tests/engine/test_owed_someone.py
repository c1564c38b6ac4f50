"""A packet may not leave the game waiting for nobody.

Every state a chain reaches must owe its next decision to some seat, or be over: a state
whose first decision names no seat cannot be played on (who may write next?), and every
reader of the game fails on it, the games list and the app included. Before this was kept,
one F&E ``back`` order could do that (`tests/engine/fe/steps/test_combat_policy.py`), and
its packet was signed and accepted by both players, so the game could not go on.

The core now refuses, whole, any packet whose orders would leave the game so, whatever the
ruleset, as it refuses a packet whose orders break a rule; here a ruleset plug-in whose
secret step names no seat, as a buggy or modified one would, is the attacker.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from engine.core.errors import RulesError
from engine.core.game import apply_packet
from engine.core.packets import Turn, open_packet, raw_public_key, sign_body
from engine.core.ruleset import Decision, DecisionKind
from engine.core.state import state_hash
from tests.engine.table import Table
from tests.engine.toy import STEPS, Say, Toy, ToyState


class NobodyPicks(Toy):
    """The toy, but its secret "pick" step is owed by no seat (and its answers by nobody)."""

    def __init__(self, kind: DecisionKind = DecisionKind.SECRET) -> None:
        self.kind = kind

    def pending(self, state: ToyState) -> list[Decision]:
        if STEPS[state.step] == "pick":
            return [Decision((), "pick", self.kind, self._key(state))]
        return super().pending(state)


@pytest.mark.parametrize("more", [0, 1], ids=["last order", "an order after it"])
@pytest.mark.parametrize("kind", [DecisionKind.SECRET, DecisionKind.ORDERS])
def test_a_packet_that_would_leave_the_game_owed_by_no_seat_is_refused_whole(
    kind: DecisionKind, more: int
) -> None:
    """Whether the order that leads there is the packet's last or another follows it (that
    one is then owed by no seat, and refused as out of turn)."""
    ruleset = NobodyPicks(kind)
    table = Table(ruleset, "duel", ["north", "south"], label=f"nobody {kind.value}")
    table.orders("north", Say("hello"))
    assert table.state is not None
    before = table.state
    orders = [Say("this leads to pick"), *[Say("and on")] * more]
    body = table.body("south", Turn(ruleset.encode_orders(orders)))
    # A modified client signs it past its own checks, with the hash the toy's engine gives
    # for the first order (the refusal comes before any hash is compared).
    first = msgspec.structs.replace(body, kind=Turn(ruleset.encode_orders(orders[:1])))
    after = apply_packet(Toy(), before, _signed(table, first), check_hash=False).state
    forged = msgspec.structs.replace(body, state_hash=state_hash(after))
    with pytest.raises(RulesError, match=r"^(packet|order 2)\b.* at pick for no seat"):
        apply_packet(ruleset, before, _signed(table, forged))
    with pytest.raises(RulesError, match="at pick for no seat"):
        table.orders("south", *orders)  # the honest client refuses to sign it
    assert table.state is before
    assert table.owed() == ("south", DecisionKind.ORDERS, "answer")


def _signed(table: Table, body: Any) -> Any:
    key = table.players[body.seat].key
    return open_packet(sign_body(body, key), lambda _kid: [raw_public_key(key)])
