"""Orders that leave the step their seat owed still owed by it (a note, an answer without
the ``done`` that ends the step): signed and sent, they would cost an email to the other
player and back for nothing, since the game still waits for the same seat. `Submitted`
names that step (``left_open``) so the faces can say so before the packet goes."""

from __future__ import annotations

from engine.core.owed import owed_first
from saves.registry import ruleset_for
from tests.saves.conftest import Player, now


def _owed(player: Player, game_id: bytes) -> str:
    row = player.replica.game(game_id)
    decision = owed_first(ruleset_for(row.ruleset), player.replica.state(game_id))
    assert decision is not None and decision.seats == (row.my_seat,)
    return decision.step


def test_orders_that_do_not_end_the_step_name_it(alice: Player, game: bytes) -> None:
    step = _owed(alice, game)
    note = [{"type": "note", "text": "thinking it over"}]
    checked = alice.replica.submit(game, note, now=now(), dry_run=True)
    assert checked.left_open is not None and checked.left_open.step == step
    ended = alice.replica.submit(game, [{"type": "done"}], now=now(), dry_run=True)
    assert ended.left_open is None
    signed = alice.replica.submit(game, note, now=now())
    assert signed.left_open is not None and signed.left_open.step == step
    assert _owed(alice, game) == step  # and so it stays, once signed
