"""A step that both seats answer in turn always has someone who owes it.

Found by the random campaigns with policies (seed 151, wandering): at 5-6X1 (captures) the
Klingons completed their part and the Kzinti were to go; the Kzinti then signed a combat
policy that never captures. The step asks only the seats that could try a capture and do not
decline (`combat_capture`'s ``answering``), so no seat was left to ask, the step had not
ended, and the engine failed with an IndexError on the next question of who owes what: the
Kzinti's own client could not send its next packet, and a packet of a modified client doing
the same would stop every replica that applied it.

The core's answer (`engine.core.turns.Turns.owing`): when the seats a host still asks have
all answered a step that has not ended, the seats of the step's plain order who have not
answered owe it, as they did before the change.
"""

from __future__ import annotations

import msgspec

from engine.core.turn_orders import Done
from engine.fe import FE
from engine.fe.battle_model import CombatPolicy
from engine.fe.orders import PolicyOrder
from tests.engine.fe.helpers import owed
from tests.engine.fe.steps.test_combat_capture import battle


def test_a_seat_that_signs_never_capture_after_the_other_answered_still_owes_the_step() -> None:
    state, _ = battle(version=FE.version)
    board = state.board  # a crippled Klingon too: both sides may try a capture
    state = state.with_board(
        board.with_units([msgspec.structs.replace(board.unit("KLI-0003"), crippled=True)])
    )
    assert owed(state).step == "5-6X1" and owed(state).seats == ("coalition",)
    state = FE.apply(state, "coalition", Done()).state
    assert owed(state).seats == ("alliance",)
    state = FE.apply(state, "alliance", PolicyOrder(capture="never")).state
    decision = owed(state)  # IndexError before the fix
    assert decision.step == "5-6X1" and decision.seats == ("alliance",)
    assert not FE.validate(state, "alliance", Done())
    state = FE.apply(state, "alliance", Done()).state
    assert owed(state).step != "5-6X1"
    # the next round's captures do not ask the alliance any more
    assert dict(state.policies)["alliance"] == CombatPolicy(capture="never")
