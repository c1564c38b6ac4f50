"""A round in which a signed policy chose one side's BIR and the other side picked its own.

Seen in the game by mail: Bob's policy chose the alliance's BIR, Alice picked hers at 5-3X2
(the app's recommended policy leaves the BIR to the player), and the next packet rolled the
round's combat dice before its variable BIR die. With no BIR total yet the combat dice scored
nothing, and the battle stopped at 5-5B: its ``done`` waits for damage dice that nothing would
roll again. From F&E 5.6 the core rolls them in the order the rules asked
(`engine.core.rolls.reveal_dice`); a game begun before keeps the recorded order, and the step
says how to fight the round again.

The board is the tutorial's with the Klingon Strike Force in the Kzinti hex 1105
(`tests.engine.fe_battle`), every packet signed and chained by the protocol core.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.core.errors import IllegalOrder
from engine.core.ruleset import DecisionKind
from engine.core.turn_orders import Back, Done, Standing
from engine.fe import FE
from engine.fe.orders import PolicyOrder
from engine.fe.steps import combat_round
from tests.engine.fe_battle import PlacedFe, policy, rules
from tests.engine.table import Table

ALL_BUT_THE_BIR = PolicyOrder(
    flagship="auto", force="auto", ew="default", allocate="suggested", retreat=0
)
"""The coalition's policy: everything but the BIR, which the player picks each round."""


def at_the_coalition_s_bir(version: str) -> Table:
    """The first round of 1105 at 5-3X2, where only the coalition is asked (the alliance's
    policy chose its BIR of 1)."""
    table = Table(PlacedFe(version=version), "tutorial", ["coalition", "alliance"], label="bir")
    signed: set[str] = set()
    for _ in range(500):
        seat, kind, step = table.owed()
        if kind == DecisionKind.SECRET:
            assert (seat, step) == ("coalition", combat_round.BIR_STEP)
            return table
        extra: list[Any] = []
        if seat not in signed:
            signed.add(seat)
            extra = [Standing(["5"]), ALL_BUT_THE_BIR if seat == "coalition" else policy(1)]
        table.orders(seat, *extra, Done())
    raise AssertionError("the BIR step was not reached")


def picked_and_rolled(version: str) -> Table:
    """The coalition picks BIR 2; the alliance's next packet brings the value that rolls."""
    table = at_the_coalition_s_bir(version)
    table.commit("coalition", 2, reveal_now=True)
    assert rules(table).battles[0].log[0].bir == -1  # the dice wait for the alliance
    assert table.owed()[:2] == ("alliance", DecisionKind.ENTROPY)
    table.entropy_only("alliance")
    return table


def test_from_5_6_the_round_scores_its_damage_and_the_battle_goes_on() -> None:
    table = picked_and_rolled("5.6")
    log = rules(table).battles[0].log[0]
    assert log.bir >= 0 and log.attacker.damage >= 0 and log.defender.damage >= 0
    purposes = [e.data["purpose"] for e in table.events if e.kind == "roll"]
    assert purposes == [
        "variable BIR, 1105 round 1",
        "combat die, 1105 round 1, coalition",
        "combat die, 1105 round 1, alliance",
    ]
    # The policies answered the rest of the round (no directed damage affordable, the
    # allocations suggested, nobody retreats): the coalition picks round 2's BIR.
    assert rules(table).battles[0].rounds == 1
    assert table.owed() == ("coalition", DecisionKind.SECRET, combat_round.BIR_STEP)


def test_before_5_6_the_dice_were_lost_and_the_refusal_says_how_to_fight_again() -> None:
    """The recorded order: the combat dice first (scoring nothing), then the BIR die. The
    ``done`` at 5-5B is refused, and the refusal names the way on, which works."""
    table = picked_and_rolled("5.5")
    log = rules(table).battles[0].log[0]
    assert log.bir >= 0 and log.attacker.damage == -1 and log.defender.damage == -1
    assert table.owed()[:3] == ("coalition", DecisionKind.ORDERS, "5-5B")
    with pytest.raises(IllegalOrder) as refused:
        table.orders("coalition", Done())
    said = str(refused.value)
    assert "not rolled yet" in said and "before F&E 5.6" in said, said
    assert "back to 5-3X2" in said and "a policy that picks your BIR" in said, said
    # The way it names: a policy that picks the coalition's BIR too, and back to 5-3X2.
    table.orders("coalition", policy(2), Back(combat_round.BIR_STEP))
    assert table.owed()[:2] == ("alliance", DecisionKind.ENTROPY)
    table.entropy_only("alliance")
    first = rules(table).battles[0].log[0]
    assert first.bir >= 0 and first.attacker.damage >= 0 and first.defender.damage >= 0


def test_a_round_whose_dice_only_wait_says_nothing_was_lost() -> None:
    """Before the alliance's packet the step waits, and says only that: nothing was lost."""
    table = at_the_coalition_s_bir("5.5")
    table.commit("coalition", 2, reveal_now=True)
    waiting = combat_round.dice_wait_text(rules(table))
    assert waiting == "the round's damage dice are not rolled yet: they come with the next packet"


def test_a_run_of_done_stops_where_the_policies_ask_for_dice() -> None:
    """`FeRuleset.own_run` (the steps a seat can complete with a packet of plain ``done``)
    stopped only at a secret step. Where both policies choose a round's BIR, the ``done``
    before 5-3X2 runs into dice, which the core arms at once: the other seat owes its value
    before anything else, and the run's next ``done`` was refused. Found by the random
    campaigns with policies (`tests.engine.fe_random_campaign`)."""
    table = Table(PlacedFe(), "tutorial", ["coalition", "alliance"], label="bir-run")
    signed: set[str] = set()
    for _ in range(500):
        seat, kind, step = table.owed()
        if kind == DecisionKind.ORDERS and step == "5-3X1":
            break
        orders: list[Any] = [] if seat in signed else [policy(1)]
        signed.add(seat)
        table.orders(seat, *orders, Done())
    else:
        raise AssertionError("5-3X1 was not reached")
    run = FE.own_run(rules(table), seat)
    assert run == ["5-3X1"], run  # its done brings the round to the dice
    table.orders(seat, *[Done() for _ in run])
    assert table.owed()[1] == DecisionKind.ENTROPY
