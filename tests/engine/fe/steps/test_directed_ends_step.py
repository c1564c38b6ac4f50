"""From F&E 5.5 a directed attack ends its side's step with the packet that makes it (302.5).

A side directs damage at one unit a round, so once it has, nothing is left to decide at 5-5B
or 5-5C: the packet's ``direct`` alone ends the step (`engine.core.ruleset.AfterOrders`,
`engine.fe.steps.combat_directed.ENDS_WITH_ORDER_FROM`), where before the step waited for a
``done`` in a packet of its own. Played through the protocol core, as packets, on the
tutorial's border battle of `tests.engine.fe.steps.test_combat_directed` (the Klingons score
17 points, the Kzinti 11).
"""

from __future__ import annotations

import pytest

from engine.core.errors import IllegalOrder
from engine.core.owed import pending
from engine.core.turn_orders import Done, Note
from engine.fe.orders import DirectOrder
from tests.engine.fe.steps.test_combat_directed import border_battle
from tests.engine.fe_battle import PlacedFe
from tests.engine.table import Table

SEATS = ["coalition", "alliance"]
CRIPPLE_BC = DirectOrder(unit="KZI-0002")
"""The Klingons cripple the Kzinti BC for 16 of their 17 points."""


def at_5_5b(version: str) -> Table:
    """The border battle at 5-5B, the Klingons' (coalition's) directed damage owed, in a game
    played at ``version`` (the coalition's first packet accepts the alliance's key)."""
    return Table(PlacedFe(border_battle, version=version), "tutorial", SEATS, label=f"d{version}")


def owed(table: Table) -> tuple[str, tuple[str, ...]]:
    assert table.state is not None
    decision = pending(table.ruleset, table.state)[0]
    return decision.step, decision.seats


def texts(table: Table) -> list[str]:
    """The events of the table's last packet."""
    return [e.text for e in table.results[-1].events]


def test_from_5_5_the_directed_attack_ends_the_side_s_step() -> None:
    table = at_5_5b("5.5")
    table.orders("coalition", CRIPPLE_BC)
    assert owed(table) == ("5-5C", ("alliance",))
    said = texts(table)
    directed = next(i for i, t in enumerate(said) if t.startswith("coalition directs damage"))
    assert said[directed + 1] == (
        "coalition completed 5-5B Attacker's directed damage on one enemy unit"
    )


def test_the_defender_s_attack_ends_its_step_too() -> None:
    table = at_5_5b("5.5")
    table.orders("coalition", CRIPPLE_BC)
    table.orders("alliance", DirectOrder(unit="KLI-0004"))  # the F5S, for 10 of 11 points
    assert owed(table)[0] != "5-5C"
    assert "alliance completed 5-5C Defender's directed damage on one enemy unit" in texts(table)


def test_a_done_after_the_attack_is_taken_as_before() -> None:
    table = at_5_5b("5.5")
    table.orders("coalition", CRIPPLE_BC, Done())
    assert owed(table) == ("5-5C", ("alliance",))


def test_a_5_4_game_still_waits_for_the_done() -> None:
    table = at_5_5b("5.4")
    table.orders("coalition", CRIPPLE_BC)
    assert owed(table) == ("5-5B", ("coalition",))
    table.orders("coalition", Done())
    assert owed(table) == ("5-5C", ("alliance",))


def test_a_packet_that_directs_nothing_leaves_the_step_open() -> None:
    table = at_5_5b("5.5")
    table.orders("coalition", Note(text="thinking it over"))
    assert owed(table) == ("5-5B", ("coalition",))


def test_a_second_attack_after_the_step_ended_is_refused_whole() -> None:
    """A modified client sends two directed attacks in one packet: the second is refused by
    the rule (302.5) and nothing of the packet is applied."""
    table = at_5_5b("5.5")
    before = table.state
    with pytest.raises(IllegalOrder, match="one unit a round"):
        table.orders("coalition", CRIPPLE_BC, DirectOrder(unit="KZI-0004"))
    assert table.state is before
