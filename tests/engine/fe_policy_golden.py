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
"""

from __future__ import annotations

from engine.core.ruleset import DecisionKind
from engine.core.turn_orders import Done, Standing
from engine.fe import RULESET
from engine.fe.battle_report import REPORT_KIND
from engine.fe.orders import PolicyOrder
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
