"""Minus points count against one round's damage, not every round's (308.2; F&E 5.7).

Found by the random campaigns (seed 6, wandering): a Hydran ship had over-resolved its
damage at a Klingon battle station by 4 points; the station then scored 2 or 3 points a
round, the 4 minus points cancelled them, and the allocation step passed with nothing owed
(`combat_damage`), leaving the same 4 minus points carried into the next round, and the
next: 400 rounds with the Hydran ship never hit, every packet an automatic reply, until a
seat's entropy chain ran out. An allocation spends what was carried in (what it leaves is
carried afresh); a round with nothing owed spent nothing.

From 5.7 (`combat.UNOWED_SPENT_FROM`) a side that owed nothing in a round it fought is
recorded as having resolved nothing at the round's end: the minus points it carried in are
spent, as an allocation of nothing would spend them. The board is the tutorial's: the D6
alone against the Kzinti Border Guard in 1105 (BIRs 3 and 2, variable die 4, combat dice 3
and 6: the Klingons score 2 points, the Kzinti 11), with 10 minus points carried in by the
Kzinti.
"""

from __future__ import annotations

import msgspec

from engine.fe import FE as RULESET
from engine.fe import battle_report
from engine.fe.battle_model import BattleRecord, RoundLog, SideRound
from engine.fe.model import FeState
from engine.fe.steps import combat, combat_damage
from tests.engine.fe.helpers import owed, run_until
from tests.engine.fe.steps.test_combat_round import reveal
from tests.engine.fe.steps.test_combat_withdrawal import GUARD
from tests.engine.fe.steps.tutorial_states import after_setup, placed, run_to

MINUS2 = -20
"""10 minus points carried in by the Kzinti (doubled, as ``BattleRecord.carry`` keeps them)."""


def round_one(version: str) -> tuple[FeState, BattleRecord]:
    """Round 1 fought with the Kzinti carrying 10 minus points in, at ``version``: the state
    and the battle's record once the round is counted."""
    state = RULESET.at_version(placed(after_setup(), {"KLI-0005": 1105}), version)
    state = run_to(state, "5-3D")
    record = combat.current(state)
    assert record is not None
    state = combat.replace_current(
        state, msgspec.structs.replace(record, carry=(("alliance", MINUS2),))
    )
    state = reveal(state, {"coalition": "KLI-0005", "alliance": "KZI-0001"})
    state = reveal(run_to(state, "5-3E"), {"coalition": ["KLI-0005"], "alliance": list(GUARD)})
    state = reveal(run_to(state, "5-3X2"), {"coalition": 3, "alliance": 2}, dice=(4,))
    state = reveal(
        run_to(state, "5-4A2"), {"coalition": "default", "alliance": "default"}, dice=(3, 6)
    )
    state = run_until(state, lambda s: owed(s).step == "5-6B")
    allocation = combat_damage.suggested(state, "coalition")
    assert allocation is not None
    state = RULESET.apply(state, "coalition", allocation).state
    found: list[BattleRecord] = []

    def counted(state: FeState) -> bool:
        record = combat.current(state)
        if record is not None and record.rounds >= 1:
            found.append(record)
            return True
        return False

    run_until(state, counted)
    return state, found[0]


def carried(record: BattleRecord, seat: str) -> int:
    return dict(record.carry).get(seat, 0)


def test_the_kzinti_owe_nothing_in_round_one() -> None:
    _, record = round_one("5.7")
    assert record.log[0].attacker.damage == 2  # 4 doubled, less the 20 carried in: 0 owed
    assert not record.log[0].defender.losses


def test_from_5_7_minus_points_that_cancelled_a_round_are_spent() -> None:
    _, record = round_one("5.7")
    assert carried(record, "alliance") == 0
    assert record.log[0].defender.resolved2 == 0


def test_before_5_7_the_same_minus_points_were_carried_on() -> None:
    _, record = round_one("5.6")
    assert carried(record, "alliance") == MINUS2
    assert record.log[0].defender.resolved2 < 0


def two_rounds(resolved2: int) -> BattleRecord:
    """Round 1: the Kzinti owe 2 points and resolve 12 (10 minus points); round 2: they owe
    nothing (3 points scored against them), and record ``resolved2`` for it."""
    one = RoundLog(
        1,
        SideRound("coalition", damage=2, resolved2=-1),
        SideRound("alliance", damage=0, resolved2=24, losses=("KZI-0001 crippled",)),
    )
    two = RoundLog(
        2,
        SideRound("coalition", damage=3, resolved2=-1),
        SideRound("alliance", damage=0, resolved2=resolved2),
    )
    return BattleRecord(1105, rounds=2, log=(one, two))


def test_the_report_says_what_each_reading_carries() -> None:
    for resolved2, said in (
        (-1, "alliance owed 0 points: nothing to allocate, 10 minus points carried"),
        (0, "alliance owed 0 points: nothing to allocate;"),
    ):
        lines = [t for t in battle_report.report_lines(two_rounds(resolved2)) if "losses" in t]
        assert "alliance owed 2 points, allocated 12: KZI-0001 crippled, 10 minus" in lines[0]
        assert said in lines[1], lines[1]
