"""The golden policy battle (`tests/golden/fe_policies.msgpack`) read back from its packets.

Both sides signed standing orders for the combat phase and combat policies with their moves
(`tests.engine.fe_policy_golden`): from fe 5.1 the battle's later dice are follow-on dice,
read from the values that rolled the first round's (`engine.core.rolls.follows_on`), so one
packet, the automatic reply the first dice wait for, fights the whole battle: both rounds,
the retreat, the pursuit die and the pursuit round.
"""

from __future__ import annotations

from engine.core.packets import EntropyOnly
from engine.fe.battle_report import REPORT_KIND
from engine.fe.model import FeState
from saves.registry import ruleset_for
from tests.engine.fe_battle_golden import ATTACKER, DEFENDER, TARGET
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
