"""The golden policy battles (`tests/golden/fe_policies.msgpack`,
`tests/golden/fe_base_policies.msgpack`) read back from their packets.

Both sides signed standing orders for the combat phase and combat policies with their moves
(`tests.engine.fe_policy_golden`): from fe 5.1 the battle's later dice are follow-on dice,
read from the values that rolled the first round's (`engine.core.rolls.follows_on`), so one
packet, the automatic reply the first dice wait for, fights the whole battle: both rounds,
the retreat, the pursuit die and the pursuit round.
"""

from __future__ import annotations

from engine.core.packets import EntropyOnly
from engine.fe.battle_model import BattleRecord
from engine.fe.battle_report import REPORT_KIND
from engine.fe.model import FeState
from engine.fe.steps.combat_round import BIR_STEP
from saves.registry import ruleset_for
from tests.engine.fe_battle_golden import ATTACKER, DEFENDER, TARGET
from tests.engine.fe_policy_golden import LYRAN_BIR, OPENING_STEPS, play_base_policy_golden
from tests.golden.companion import read_golden, replay_golden
from tests.golden.regen import HERE


def test_one_packet_fights_the_whole_battle_from_the_values_of_its_first_dice() -> None:
    golden = read_golden(HERE / "fe_policies.msgpack")
    ruleset = ruleset_for("fe")
    assert golden.ruleset == f"fe/{ruleset.version}"  # regenerated at each version since 5.1
    state = None
    reports: list[int] = []
    armed: list[int] = []
    rolls: dict[int, list[str]] = {}
    packets = []
    for seq, packet, result in replay_golden(golden, ruleset):
        state = result.state
        packets.append(packet)
        kinds = [e.kind for e in result.events]
        reports += [seq] * (REPORT_KIND in kinds)
        armed += [seq] * ("roll-armed" in kinds)
        rolls[seq] = [e.text for e in result.events if e.kind == "roll"]
    assert state is not None and isinstance(state.rules, FeState)
    (fought,) = set(reports)
    assert isinstance(packets[fought].body.kind, EntropyOnly)
    assert packets[fought].body.seat == ATTACKER  # its automatic reply
    assert max(armed) < fought  # nothing armed from the battle on: no packet waited for dice
    assert rolls[fought][0].startswith(f"{DEFENDER} rolled 1d6 for variable BIR, ")
    assert sum(text.startswith("then rolled") for text in rolls[fought]) >= 5
    record = state.rules.battles[0]
    assert record.hex == TARGET and record.rounds == 2
    assert record.retreated[0][0] == DEFENDER and record.pursuit == "fought"


def test_a_base_battle_s_opening_is_answered_by_the_policies_from_5_4() -> None:
    """Nobody is asked at 5-2A2, 5-2A3 or 5-2B1: the Kzinti policy refuses both approach
    battles (the Lyrans' offer of round 2 too), the Lyran policy stays for both base battles
    and retreats after round 2, as `tests.engine.fe_policy_golden.BASE_POLICIES` say."""
    golden = read_golden(HERE / "fe_base_policies.msgpack")
    ruleset = ruleset_for("fe")
    assert golden.ruleset == f"fe/{ruleset.version}"
    fought: list[BattleRecord] = []
    approach: list[str] = []
    for _seq, _packet, result in replay_golden(golden, ruleset):
        rules = result.state.rules
        if isinstance(rules, FeState):  # (kept until the next player turn's economics)
            fought += rules.battles[:1]
        approach += [e.text for e in result.events if e.kind == "approach"]
    record = fought[-1]
    assert record.hex == 701 and record.rounds == 2 and record.retreats == ("coalition",)
    assert (record.opening.kind, record.opening.offered, record.opening.declined) == ("base", 2, 2)
    assert [text.split(":")[0] for text in approach] == [
        "alliance refuses the approach battle in 0701, round 1",
        "coalition offers an approach battle in 0701, round 2 (302.22)",
        "alliance refuses the approach battle in 0701, round 2",
    ]
    _table, asked = play_base_policy_golden()
    assert asked and not set(asked) & set(OPENING_STEPS), asked


def test_a_round_whose_bir_one_policy_chose_scores_its_damage_from_5_6() -> None:
    """The Lyrans pick their BIR each round, the Kzinti policy picks theirs: every round of
    the golden scores both sides' damage (before 5.6 its combat dice were rolled before the
    BIR die and scored nothing, `tests/engine/fe/steps/test_policy_bir_dice.py`)."""
    golden = read_golden(HERE / "fe_base_policies.msgpack")
    logs = {}
    revealed = []
    for _seq, _packet, result in replay_golden(golden, ruleset_for("fe")):
        rules = result.state.rules
        if isinstance(rules, FeState) and rules.battles:
            logs = {log.round: log for log in rules.battles[0].log}
        revealed += [e.text for e in result.events if e.kind == "secret" and e.step == BIR_STEP]
    assert sorted(logs) == [1, 2]
    for log in logs.values():
        assert log.attacker.bir == LYRAN_BIR and log.defender.bir == 1
        assert log.attacker.damage >= 0 and log.defender.damage >= 0, log
    picked = f"revealed: coalition: {LYRAN_BIR}"
    assert sum(text.endswith(picked) for text in revealed) == 2, revealed  # once a round
