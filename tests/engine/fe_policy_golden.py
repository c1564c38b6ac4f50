"""A battle of The Wind fought by both sides' signed policies from its first round.

Golden game `tests/golden/fe_policies.msgpack` (`tests.golden.regen`) is built from it: the
rules area it pins is follow-on dice (`engine.core.rolls.follows_on`, fe 5.1), where the
packet that rolls a round's dice reads the next rounds', the retreat's pursuit die and the
pursuit battle's from the same values. The battle of `tests.engine.fe_battle_golden` in the
same hex, but each seat signs a standing order for the combat phase and its combat policy
with its movement orders: the Lyrans (coalition) retreat once two rounds are fought and
never pursue; the Kzinti (alliance) never retreat and always pursue. The whole battle, two
rounds, the retreat, the pursuit die and the pursuit round, is then fought by one packet:
the coalition's automatic reply that gives the value the first round's dice wait for.

Golden game `tests/golden/fe_base_policies.msgpack` (`play_base_policy_golden`) pins the
policies' answers to a base battle's opening steps (fe 5.4): the Lyran Red Claw Fleet
attacks the Kzinti Count's Fleet and its battle station in 0701, the coalition's policy
offering an approach battle every round from the second and retreating once two rounds are
fought, the alliance's refusing every approach battle and never retreating. Each seat's
standing order is the app's offer, ``manual`` (every manual step), which leaves those
decisions to the seat: the policies answer them, and no seat is asked at 5-2A2, 5-2A3 or
5-2B1; nor, from fe 5.5, at 5-6X1 (both policies say ``capture`` "never").
"""

from __future__ import annotations

from engine.core.ruleset import DecisionKind
from engine.core.sequence import MANUAL_NAME
from engine.core.turn_orders import Done, Standing
from engine.fe import RULESET
from engine.fe.battle_report import REPORT_KIND
from engine.fe.orders import Batch, PolicyOrder
from tests.engine.fe_battle_golden import ATTACKER, DEFENDER, LYRANS, RAIDERS, TARGET
from tests.engine.fe_play import set_up
from tests.engine.fe_wind import SEATS, march, owed_step, rules, units_at, walk_to
from tests.engine.table import Table

POLICIES = {
    ATTACKER: PolicyOrder(
        flagship="auto", force="auto", bir=1, ew="default", allocate="suggested", retreat=0,
        pursue="always",
    ),
    DEFENDER: PolicyOrder(
        flagship="auto", force="auto", bir=1, ew="default", allocate="suggested", retreat=2,
        pursue="never",
    ),
}  # fmt: skip
"""The lowest BIR (304.1) so both forces outlive the first rounds; the Lyrans retreat after
round 2, the Kzinti stay and pursue."""
COMBAT_STEPS = "5-"
LABEL = "fe-policies-1"
"""The table's label: it derives every key and entropy chain, so it decides the dice."""


def play_policy_golden(label: str = LABEL) -> Table:
    table = Table(RULESET, "the-wind", SEATS, label=label)
    set_up(table)
    walk_to(table, "3B2")  # turn 1, coalition
    lyrans = units_at(table, "LYR", "Red Claw Fleet")[:LYRANS]
    move = march(table, DEFENDER, lyrans, TARGET)
    table.orders(DEFENDER, Standing(["5"]), POLICIES[DEFENDER], move, Done())
    walk_to(table, "3B2")  # turn 1, alliance
    assert owed_step(table)[0] == ATTACKER
    count = [u for u in units_at(table, "KZI", "Count's Fleet") if u.info().move > 0]
    raid = march(table, ATTACKER, count[:RAIDERS], TARGET)
    table.orders(ATTACKER, Standing(["5"]), POLICIES[ATTACKER], raid, Done())
    for _ in range(100):
        seat, kind, step = table.owed()
        if rules(table).battles and not step.startswith(COMBAT_STEPS):
            return table  # the combat phase is over
        if kind == DecisionKind.ENTROPY:
            table.entropy_only(seat)
        else:
            table.orders(seat, Done())
    raise AssertionError("the battle did not end")


def battle_packets(table: Table) -> list[int]:
    """The packets whose events report a round of the battle (`REPORT_KIND`)."""
    return sorted(
        {i for i, r in enumerate(table.results) for e in r.events if e.kind == REPORT_KIND}
    )


BASE_POLICIES = {
    "coalition": PolicyOrder(
        flagship="auto", force="auto", ew="default", allocate="suggested", retreat=2,
        pursue="never", offer="always", capture="never",
    ),
    "alliance": PolicyOrder(
        flagship="auto", force="auto", bir=1, ew="default", allocate="suggested", retreat=0,
        pursue="never", approach="refuse", capture="never",
    ),
}  # fmt: skip
"""Both sides' tactics at a base signed: the Lyrans offer an approach battle from round 2 and
leave after two rounds; the Kzinti refuse every approach battle (their base fights); neither
tries to capture a crippled ship (fe 5.5: nobody is asked at 5-6X1; the frozen 5.4 game of
this script, without the field, asks each side there). The Lyran policy leaves the BIR to
the player, as the app's recommended policy does, and the Kzinti's picks it: each round the
coalition alone is asked at 5-3X2 (`LYRAN_BIR`), and from fe 5.6 the round's dice are rolled
in the order that scores its damage (`tests/engine/fe/steps/test_policy_bir_dice.py`)."""
LYRAN_BIR = 2
BASE_LABEL = "fe-base-policies-1"
OPENING_STEPS = ("5-2A2", "5-2A3", "5-2B1")


def play_base_policy_golden(label: str = BASE_LABEL) -> tuple[Table, list[str]]:
    """The Lyrans' attack on 0701 fought by both policies, and the rest of turn 1;
    returns the table and the steps a seat was asked at during the combat phase, in order."""
    table = Table(RULESET, "the-wind", SEATS, label=label)
    set_up(table)
    walk_to(table, "3B2")  # turn 1, coalition
    red_claw = units_at(table, "LYR", "Red Claw Fleet")[:6]
    count = units_at(table, "KZI", "Count's Fleet")
    move = march(table, "coalition", red_claw, count[0].hex)
    table.orders("coalition", Standing([MANUAL_NAME]), BASE_POLICIES["coalition"], move, Batch())
    signed = False
    asked: list[str] = []
    for _ in range(200):
        seat, kind, step = table.owed()
        if rules(table).battles and not step.startswith(COMBAT_STEPS):
            _rest_of_turn(table)
            return table, asked
        if step.startswith(COMBAT_STEPS):
            asked.append(step)
        if kind == DecisionKind.ENTROPY:
            table.entropy_only(seat)
        elif kind == DecisionKind.SECRET:  # the Lyran BIR, the one choice not signed
            table.commit(seat, LYRAN_BIR, reveal_now=True)
        elif seat == "alliance" and not signed:  # its reaction window or the withdrawal
            signed = True
            table.orders(seat, Standing([MANUAL_NAME]), BASE_POLICIES[seat], Done())
        else:
            table.orders(seat, Done())
    raise AssertionError("the battle did not end")


def _rest_of_turn(table: Table) -> None:
    """Turn 1 played out with ``done``, each seat cancelling its standing order in its next
    packet (``manual`` would play on through the turns after it): the golden records a whole
    game turn."""
    cancelled: set[str] = set()
    for _ in range(500):
        if rules(table).turn > 1:
            return
        seat, kind, _step = table.owed()
        if kind == DecisionKind.ENTROPY:
            table.entropy_only(seat)
            continue
        cancel = [] if seat in cancelled else [Standing([])]
        cancelled.add(seat)
        table.orders(seat, *cancel, Done())
    raise AssertionError("turn 1 did not end")
