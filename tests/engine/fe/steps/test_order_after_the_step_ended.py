"""A packet whose first orders already ended the seat's part names that as the reason its
next order is refused (`engine.core.game`).

Seen in the game by mail: Bob sent a combat policy that never retreats and a ``done`` at his
retreat option. The policy answered the option at once, so the ``done`` fell on the
coalition's step, and the packet was refused with "order 2: coalition owes the next move":
true, and not what he needed to read. Through the protocol core, on the tutorial's 1105
battle at the defender's first retreat option.
"""

from __future__ import annotations

import pytest

from engine.core.errors import OutOfTurn
from engine.core.turn_orders import Done
from engine.fe.orders import PolicyOrder
from tests.engine.fe.steps.test_combat_loop import at_first_retreat_option
from tests.engine.fe_battle import PlacedFe
from tests.engine.table import Table


def test_a_done_after_a_policy_that_answered_the_step_says_why_it_is_refused() -> None:
    table = Table(PlacedFe(at_first_retreat_option), "tutorial", ["coalition", "alliance"])
    table.entropy_only("coalition")  # (the coalition's packet accepts the joined key)
    before = table.state
    with pytest.raises(OutOfTurn) as refused:
        table.orders("alliance", PolicyOrder(retreat=0), Done())
    said = str(refused.value)
    assert said.startswith("order 2: coalition owes the next move")
    assert said.endswith("; the orders before it ended alliance's part: leave it out")
    assert table.state is before
    table.orders("alliance", PolicyOrder(retreat=0))  # the policy alone is taken
