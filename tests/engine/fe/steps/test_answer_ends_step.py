"""From F&E 5.5 a retreat announced, or an approach battle offered or answered, ends the step
with the packet that says it, as a directed attack does (`test_directed_ends_step`).

Each of those steps takes the one answer and nothing after it, so the ``done`` that used to
follow in a packet of its own only cost a packet (and a stalled battle whenever the player did
not see that the step stayed theirs). Played through the protocol core on the tutorial's
boards: the Klingon Strike Force against the Kzinti Border Guard in 1105 at the defender's
first retreat option (`test_combat_loop.at_first_retreat_option`), and the Klingon D6
against the Border Guard at the Kzinti battle station in 1205
(`test_combat_withdrawal.battle_in`).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from engine.core.owed import pending
from engine.core.turn_orders import Done
from engine.fe.model import FeState
from engine.fe.opening import ApproachOrder, OpposeOrder
from engine.fe.orders import RetreatOrder
from tests.engine.fe.steps.test_combat_loop import at_first_retreat_option
from tests.engine.fe.steps.test_combat_withdrawal import battle_in, withdraw
from tests.engine.fe.steps.tutorial_states import orders
from tests.engine.fe_battle import PlacedFe
from tests.engine.table import Table

SEATS = ["coalition", "alliance"]


def table_at(board: Callable[[], FeState], version: str) -> Table:
    """A game of ``version`` from ``board``, the joined key accepted (the coalition's packet
    that carries the acceptance: the alliance owes the step)."""
    table = Table(PlacedFe(board, version=version), "tutorial", SEATS, label=f"a{version}")
    table.entropy_only("coalition")
    return table


def owed(table: Table) -> tuple[str, tuple[str, ...]]:
    assert table.state is not None
    decision = pending(table.ruleset, table.state)[0]
    return decision.step, decision.seats


def at_the_approach_answer() -> FeState:
    """1205 at 5-2A3: the Kzinti have answered their withdrawal (none); the approach battle of
    round 1 is offered by the rules (302.22) and theirs to answer."""
    state, _ = orders(battle_in(1205), "alliance", {"type": "done"})
    return state


@pytest.mark.parametrize(("version", "ends"), [("5.5", True), ("5.4", False)])
def test_an_announced_retreat_ends_the_option(version: str, ends: bool) -> None:
    table = table_at(at_first_retreat_option, version)
    table.orders("alliance", RetreatOrder())
    if ends:
        assert owed(table) == ("5-7A2", ("coalition",))
    else:
        assert owed(table) == ("5-7A1", ("alliance",))
        table.orders("alliance", Done())
        assert owed(table) == ("5-7A2", ("coalition",))


@pytest.mark.parametrize(("version", "ends"), [("5.5", True), ("5.4", False)])
def test_an_answered_approach_battle_ends_the_answer(version: str, ends: bool) -> None:
    table = table_at(at_the_approach_answer, version)
    assert owed(table) == ("5-2A3", ("alliance",))
    table.orders("alliance", ApproachOrder(accept=False))
    step, seats = owed(table)
    assert (step != "5-2A3") is ends, (step, seats)


def test_a_retreat_and_a_done_in_one_packet_are_taken_as_before() -> None:
    table = table_at(at_first_retreat_option, "5.5")
    table.orders("alliance", RetreatOrder(), Done())
    assert owed(table) == ("5-7A2", ("coalition",))


def at_the_opposition() -> FeState:
    """1104 at 5-1B: the Kzinti FFs and CL withdraw to 1103, the CC and BC stay; the
    Klingons may oppose (`test_combat_withdrawal._opposed`)."""
    going = ["KZI-0003", "KZI-0004", "KZI-0005"]
    state, _ = orders(
        battle_in(1104), "alliance", withdraw(going, "1103", "KZI-0002"), {"type": "done"}
    )
    return state


@pytest.mark.parametrize(("version", "ends"), [("5.5", True), ("5.4", False)])
def test_an_opposed_withdrawal_ends_the_opposition(version: str, ends: bool) -> None:
    table = Table(PlacedFe(at_the_opposition, version=version), "tutorial", SEATS, label="o")
    assert owed(table) == ("join", ("coalition",))  # (its packet accepts the joined key too)
    table.orders("coalition", OpposeOrder())
    assert (owed(table)[0] != "5-1B") is ends, owed(table)
