"""The battle record and report (`engine.fe.battle_report`): hand-built rounds worked out from
the 300 table, and a round the engine played on the tutorial board (`test_combat_round`)."""

from __future__ import annotations

from typing import Any

import msgspec

from engine.core.ruleset import Event
from engine.fe import RULESET, battle_report
from engine.fe.battle_model import BattleRecord, RoundLog, SideRound
from engine.fe.model import FeState
from engine.fe.steps import combat
from engine.fe.steps.battles import battle_list
from tests.engine.fe.helpers import owed, run_until
from tests.engine.fe.steps.test_combat_loop import two_battles
from tests.engine.fe.steps.test_combat_round import damaged_round, reveal
from tests.engine.fe.steps.tutorial_states import orders, run_to, texts

KEYS = (
    "seat", "flagship", "force", "potential", "bir", "vbir_die", "ew", "die", "permille",
    "damage", "directed", "allocated", "plus", "minus", "losses",
)  # fmt: skip


def issue_round() -> RoundLog:
    """The issue's example: potential 40, BIRs 2 and 2, variable die 4 (+0): total 4; die 3
    gives 4 + 3 = result 7 on the play aid's table, 25%: 40 x 25% = 10 damage points. The
    defender (potential 31.5, EW shift -1, die 5: result 8, 27.5%) scores 8.6625 -> 9."""
    attacker = SideRound(
        "coalition", "KLI-0001", ("KLI-0001", "KLI-0002"), bir=2,
        potential2=80, ew=1, shift=0, die=3, permille=250, damage=10,
    )  # fmt: skip
    defender = SideRound(
        "alliance", "KZI-0001", ("KZI-0001",), bir=2,
        potential2=63, ew=0, shift=-1, die=5, permille=275, damage=9,
    )  # fmt: skip
    return RoundLog(1, attacker, defender, vbir_die=4, bir=4)


def test_the_issue_s_round_as_record_and_line() -> None:
    record = BattleRecord(1305, log=(issue_round(),))
    (first,) = battle_report.rounds(record)
    attacker = msgspec.json.decode(msgspec.json.encode(first.attacker))
    assert tuple(attacker) == KEYS
    assert attacker == {
        "seat": "coalition", "flagship": "KLI-0001", "force": ["KLI-0001", "KLI-0002"],
        "potential": "40", "bir": 4, "vbir_die": 4, "ew": 0, "die": 3, "permille": 250,
        "damage": 10, "directed": None, "allocated": None, "plus": None, "minus": None,
        "losses": [],
    }  # fmt: skip
    assert (first.defender.potential, first.defender.ew) == ("31.5", -1)  # a half stays exact
    assert battle_report.report_lines(record) == [
        "1305 round 1: BIR 2 + 2, variable die 4 (+0) = 4; coalition (flagship KLI-0001, "
        "2 units) potential 40, EW +0, die 3 -> 25% = 10 points; alliance (flagship "
        "KZI-0001, 1 unit) potential 31.5, EW -1, die 5 -> 27.5% = 9 points (302.4)"
    ]


def test_plus_and_minus_points_follow_the_rounds() -> None:
    """Round 1: the alliance owes 10, resolves 8 (2 plus points); the coalition owes 9 and
    resolves 10 (1 minus point). Round 2: coalition scores 4, so the alliance owes 4 + 2 =
    6 and resolves 6; alliance scores 3, the coalition owes 3 - 1 = 2 and resolves 4.5
    (2.5 minus points, a fighter's half factor)."""
    first = issue_round()
    first = msgspec.structs.replace(
        first,
        attacker=msgspec.structs.replace(
            first.attacker, resolved2=20, losses=("KLI-0002 destroyed",)
        ),
        defender=msgspec.structs.replace(
            first.defender, resolved2=16, losses=("KZI-0001 crippled",)
        ),
    )
    second = RoundLog(
        2,
        msgspec.structs.replace(first.attacker, damage=4, resolved2=9, losses=()),
        msgspec.structs.replace(first.defender, damage=3, resolved2=12, losses=()),
        vbir_die=1,
        bir=2,
    )
    record = BattleRecord(1305, rounds=2, log=(first, second))
    one, two = battle_report.rounds(record)
    assert (one.defender.allocated, one.defender.plus, one.defender.minus) == ("8", "2", "0")
    assert (one.attacker.allocated, one.attacker.plus, one.attacker.minus) == ("10", "0", "1")
    assert (two.defender.plus, two.defender.minus) == ("0", "0")
    assert (two.attacker.allocated, two.attacker.minus) == ("4.5", "2.5")
    lines = battle_report.report_lines(record)
    assert lines[1] == (
        "1305 round 1 losses: alliance owed 10 points, allocated 8: KZI-0001 crippled, "
        "2 plus points carried; coalition owed 9 points, allocated 10: KLI-0002 destroyed, "
        "1 minus point carried (302.6)"
    )
    assert lines[2].startswith("1305 round 2: BIR 2 + 2, variable die 1 (-2) = 2;")
    assert lines[3] == (
        "1305 round 2 losses: alliance owed 6 points, allocated 6: no loss; coalition owed "
        "2 points, allocated 4.5: no loss, 2.5 minus points carried (302.6)"
    )


def test_directed_damage_is_reported_and_leaves_the_general_damage() -> None:
    """The coalition directs 8 of its 10 points (a cripple of defence 4 at double cost,
    302.5): the alliance then owes the 2 left (302.6)."""
    first = issue_round()
    fields = msgspec.structs.asdict(first.attacker)
    attacker = SideRound(**(fields | {"directed": "KZI-0001 crippled", "directed2": 16}))
    defender = msgspec.structs.replace(first.defender, resolved2=4, losses=("KZI-0002 crippled",))
    record = BattleRecord(1305, log=(RoundLog(1, attacker, defender, vbir_die=4, bir=4),))
    (first_round,) = battle_report.rounds(record)
    assert first_round.attacker.directed == battle_report.Directed("8", "KZI-0001 crippled")
    assert first_round.defender.directed is None
    assert (first_round.defender.allocated, first_round.defender.plus) == ("2", "0")
    assert battle_report.report_lines(record)[1] == (
        "1305 round 1 losses: coalition directed 8 points: KZI-0001 crippled; alliance owed "
        "2 points, allocated 2: KZI-0002 crippled (302.6)"
    )


def test_a_round_not_yet_rolled_shows_what_is_known() -> None:
    half = RoundLog(1, SideRound("coalition", bir=3), SideRound("alliance", bir=1))
    record = BattleRecord(1105, log=(half,))
    (first,) = battle_report.rounds(record)
    assert (first.attacker.bir, first.attacker.potential, first.attacker.damage) == (None,) * 3
    assert battle_report.report_lines(record) == [
        "1105 round 1: BIR picks 3 + 1, variable die not rolled yet; coalition (no battle "
        "force) die not rolled yet; alliance (no battle force) die not rolled yet (302.4)"
    ]


# --- a round the engine played -------------------------------------------------------------


def fired_round() -> tuple[FeState, list[Event]]:
    """`test_combat_round`'s round up to its choices of 5-4A2, then the two combat dice (3 for
    the coalition, 6 for the alliance) applied as the core applies them, with their events."""
    state = reveal(run_to(two_battles(), "5-3D"), {"coalition": "KLI-0005", "alliance": "KZI-0001"})
    everyone = ["KZI-0001", "KZI-0002", "KZI-0003", "KZI-0004", "KZI-0005"]
    state = reveal(run_to(state, "5-3E"), {"coalition": ["KLI-0005"], "alliance": everyone})
    state = reveal(run_to(state, "5-3X2"), {"coalition": 3, "alliance": 2}, dice=(4,))
    state = run_to(state, "5-4A2")
    applied = RULESET.apply_secret(state, owed(state), {"coalition": "default", "alliance": {}})
    state, events = applied.state, list(applied.events)
    for request, die in zip(applied.rolls, (3, 6), strict=True):
        rolled = RULESET.apply_roll(state, request, (die,))
        state = rolled.state
        events.extend(rolled.events)
    return state, events


FIRE = (
    "1105 round 1: BIR 3 + 2, variable die 4 (+0) = 5; coalition (flagship KLI-0005, 1 unit) "
    "potential 7, EW +0, die 3 -> 27.5% = 2 points; alliance (flagship KZI-0001, 5 units) "
    "potential 31, EW +0, die 6 -> 35% = 11 points (302.4)"
)
LOSSES = (
    "1105 round 1 losses: alliance owed 2 points, allocated 4: KZI-0004 crippled, 2 minus "
    "points carried; coalition owed 11 points, allocated 12: KLI-0005 destroyed, 1 minus point "
    "carried (302.6)"
)


def test_the_second_combat_die_completes_the_fire_line() -> None:
    _, events = fired_round()
    assert [e.kind for e in events][-3:] == ["damage", "damage", battle_report.REPORT_KIND]
    assert texts(events, battle_report.REPORT_KIND) == [FIRE]
    assert events[-1].data == {"hex": "1105", "round": 1, "part": "fire"}
    assert texts(events[:-1], battle_report.REPORT_KIND) == []  # not after the first die


def allocated() -> FeState:
    state = damaged_round()
    state, _ = orders(
        state, "alliance", {"type": "allocate", "losses": ["cripple KZI-0004"]}, {"type": "done"}
    )
    state = run_to(state, "5-6B")
    state, _ = orders(
        state, "coalition", {"type": "allocate", "losses": ["destroy KLI-0005"]}, {"type": "done"}
    )
    return state


def test_the_round_s_end_reports_its_losses_then_the_battle_s_end() -> None:
    """The D6 destroyed, the coalition has nothing left in 1105: 5-7A4 ends the battle, and
    the report says so after the losses, before the next hex's battle begins."""
    events: list[Event] = []
    state = run_until(allocated(), lambda s: s.battle_at == 1, events)
    reported = [e for e in events if e.kind == battle_report.REPORT_KIND]
    assert [e.text for e in reported] == [
        LOSSES,
        "1105: battle over after 1 round: the attacker has nothing left in 1105",
    ]
    kinds = [(e.kind, e.data.get("hex")) for e in events]
    assert kinds.index((battle_report.REPORT_KIND, "1105")) < kinds.index(("battle", "1704"))
    record = state.battles[0]
    assert battle_report.report_lines(record) == [FIRE, *(e.text for e in reported)]


def test_show_s_battles_carry_the_record_per_round_and_side() -> None:
    """``show --json`` (`battle_list`) after both allocations: every key of the issue, the
    minus points matching what the engine carries (``BattleRecord.carry``, doubled)."""
    state = allocated()
    entry: dict[str, Any] = battle_list(state)[0]
    (first,) = entry["log"]
    assert first["round"] == 1
    attacker, defender = first["attacker"], first["defender"]
    assert tuple(attacker) == tuple(defender) == KEYS
    assert (attacker["potential"], attacker["die"], attacker["permille"]) == ("7", 3, 275)
    assert (defender["potential"], defender["die"], defender["permille"]) == ("31", 6, 350)
    assert (attacker["bir"], attacker["vbir_die"], attacker["ew"]) == (5, 4, 0)
    assert (attacker["damage"], defender["damage"]) == (2, 11)
    assert (attacker["allocated"], attacker["losses"]) == ("12", ["KLI-0005 destroyed"])
    assert (defender["allocated"], defender["losses"]) == ("4", ["KZI-0004 crippled"])
    record = combat.current(state)
    assert record is not None and dict(record.carry) == {"alliance": -4, "coalition": -2}
    assert (defender["plus"], defender["minus"]) == ("0", "2")
    assert (attacker["plus"], attacker["minus"]) == ("0", "1")
    assert entry["report"] == [FIRE, LOSSES]


def test_a_battle_ended_on_the_way_to_the_next_player_turn_is_still_reported() -> None:
    """One packet may end a battle and play on into the next player turn (both sides' policies
    and standing orders): the report still has the battle's last lines, because the records
    stay in the state until the next combat phase replaces them; the list of battles shows
    them only from phase 5 on."""
    before = allocated()
    after = run_until(before, lambda s: s.player_turn != before.player_turn)
    assert after.battles and not battle_list(after)
    lines = [e.text for e in battle_report.new_reports(before, after)]
    assert lines[:2] == [
        LOSSES,
        "1105: battle over after 1 round: the attacker has nothing left in 1105",
    ]
    assert battle_list(before)[0]["report"] == [FIRE, LOSSES]


def test_carrier_groups_the_support_echelon_and_command_points_show_where_present() -> None:
    """A side with a carrier group (515.15), a carrier outside its force sending 4.5 fighter
    factors and 2 PFs forward (302.563) and a command point spent (308.9): the line and the
    JSON name them; the other side, with none, shows neither (its keys stay those above)."""
    log = issue_round()
    attacker = msgspec.structs.replace(
        log.attacker,
        groups=(("KLI-0010", ("KLI-0011", "KLI-0012")),),
        forward=(("KLI-0020", 9),),
        forward_pfs=(("KLI-0020", 2),),
        command_points=1,
    )
    record = BattleRecord(1305, log=(msgspec.structs.replace(log, attacker=attacker),))
    (first,) = battle_report.rounds_json(record)
    assert first["attacker"]["groups"] == [
        {"carrier": "KLI-0010", "escorts": ["KLI-0011", "KLI-0012"]}
    ]
    assert first["attacker"]["forward"] == [{"unit": "KLI-0020", "fighters": "4.5", "pfs": 2}]
    assert first["attacker"]["command_points"] == 1
    assert tuple(first["defender"]) == KEYS
    assert battle_report.report_lines(record)[0].startswith(
        "1305 round 1: BIR 2 + 2, variable die 4 (+0) = 4; coalition (flagship KLI-0001, "
        "2 units, +1 command point, group KLI-0010+KLI-0011+KLI-0012, KLI-0020 sends 4.5 "
        "fighters and 2 PFs forward) potential 40,"
    )
