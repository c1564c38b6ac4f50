"""Games recorded by an earlier minor version of a ruleset, replayed by this one.

A campaign lasts months, and a player may update hexpost in the middle of one. A newer
minor version of a ruleset plays a game at the version its genesis names, so what a minor
version adds is gated on the game's version (`engine.core.rolls.follows_on`, and from fe
5.2 `FeState.version`). These files were written by the engine of the version they name and
are never regenerated: every later 5.x must replay them to the hashes they carry.

- ``fe_5_0_signed_wind.msgpack``: The Wind with standing orders and both sides' combat and
  reaction policies signed at set-up (``bench/handoffs.py``'s signed mode), turn 1, with a
  battle fought round after round by the policies, each round's dice armed and rolled by the
  other seat's next packet;
- ``fe_5_0_pursuit.msgpack``: the large test board of `tests.engine.fe_battle`, a retreat by
  policy after round 1 and a pursuit by policy, its die and the pursuit battle's dice armed
  for the next packet;
- ``fe_5_1_back.msgpack``: The Wind, turn 1, a battle in 0701 whose second round goes back
  to 5-3X4, an automatic step, where fe 5.1 waits for the phasing seat's ``done`` (from 5.2
  the engine carries the step out: `engine.fe.flow.BACK_SETTLES_FROM`);
- ``fe_5_2_wind.msgpack``: the golden ``fe_wind`` as 5.2 wrote it (The Wind, turn 1, both
  player turns), where the alliance's base in 0701, which may not retreat, is asked at its
  retreat options 5-7A1 and 5-7A3 (from 5.3 they pass:
  `engine.fe.steps.combat_retreat.UNASKED_FROM`);
- ``fe_5_3_base.msgpack``: The Wind, turn 1, the Lyrans' attack on the Kzinti battle station
  in 0701 with both seats' standing order ``manual`` and combat policies (the Lyrans retreat
  once two rounds are fought): the Kzinti are asked at 5-2A3 and the Lyrans at 5-2B1 and
  5-2A2 (from 5.4 a policy answers them: `engine.fe.steps.combat_policy.OPENING_FROM`);
- ``fe_5_4_directed.msgpack``: the golden ``fe_battle`` as 5.4 played its script (The Wind,
  turn 1, the Kzinti attack in 0601), where the Lyrans' directed attack at 5-5C leaves the
  step theirs until a packet of ``done`` (from 5.5 the attack's packet ends it:
  `engine.fe.steps.combat_directed.ENDS_WITH_ORDER_FROM`);
- ``fe_5_4_base.msgpack``: the golden ``fe_base_policies`` as 5.4 played its script, whose
  policies had no ``capture`` field yet: each side is asked at 5-6X1 (from 5.5 a policy's
  ``capture`` "never" answers it: `engine.fe.steps.combat_capture.declines`);
- ``fe_5_4_checklist.msgpack``: the golden ``fe_checklist`` as 5.4 wrote it (its committed
  file then), where after the alliance's ``back`` to 5-2A1 the approach battle of the round,
  answered already, leaves 5-2A3 the alliance's until a packet of ``done`` (from 5.5 the
  packet of the ``back`` ends it: `engine.fe.steps.base.ORDER_ENDS_STEP_FROM`);
- ``fe_5_7_checklist.msgpack`` and ``fe_5_7_wind.msgpack``: the goldens ``fe_checklist`` and
  ``fe_wind`` as 5.7 wrote them, where both sides commit and reveal at 5-3C in a battle's
  second round, to the groups the first round fixed (from 5.8 the engine makes a choice the
  board forces: `engine.fe.steps.forced_choices`);
- ``fe_5_8_checklist.msgpack`` and ``fe_5_8_wind.msgpack``: the goldens ``fe_checklist`` and
  ``fe_wind`` as 5.8 wrote them, where in a battle's second round the Kzinti, with nothing
  left in 0701 but their battle station (their flagship), commit and reveal it as their
  battle force at 5-3E (from 5.9 a force the board forces is the engine's too:
  `engine.fe.steps.forced_choices.FORCE_FORCED_FROM`);
- ``fe_5_9_checklist.msgpack`` and ``fe_5_9_wind.msgpack``: the goldens ``fe_checklist`` and
  ``fe_wind`` as 5.9 wrote them, where each side commits and reveals its flagship at 5-3D
  before it chooses its battle force at 5-3E (from 5.10 groups, flagship and force are one
  choice at 5-3E: `engine.fe.steps.force_together`);
- ``fe_5_10_policies.msgpack``: the golden ``fe_policies`` as 5.10 wrote it, both sides'
  combat policies signed in a game whose policies have no ``planet`` field yet (from 5.11 a
  policy may capture or devastate a planet left alone: `engine.fe.steps.planet_policy`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.core.packets import EntropyOnly, Genesis
from engine.core.ruleset import AnyRuleset
from engine.core.seating import check_genesis
from engine.fe import RULESET
from tests.engine.fe_battle import PlacedFe, large_board
from tests.golden.companion import read_golden, replay_golden

FROZEN = Path(__file__).parent / "frozen"
RULESETS: dict[str, AnyRuleset] = {
    "fe_5_0_signed_wind.msgpack": RULESET,
    "fe_5_0_pursuit.msgpack": PlacedFe(large_board),
    "fe_5_1_back.msgpack": RULESET,
    "fe_5_2_wind.msgpack": RULESET,
    "fe_5_3_base.msgpack": RULESET,
    "fe_5_4_base.msgpack": RULESET,
    "fe_5_4_checklist.msgpack": RULESET,
    "fe_5_4_directed.msgpack": RULESET,
    "fe_5_6_checklist.msgpack": RULESET,
    "fe_5_6_policies.msgpack": RULESET,
    "fe_5_7_checklist.msgpack": RULESET,
    "fe_5_7_wind.msgpack": RULESET,
    "fe_5_8_checklist.msgpack": RULESET,
    "fe_5_8_wind.msgpack": RULESET,
    "fe_5_9_checklist.msgpack": RULESET,
    "fe_5_9_wind.msgpack": RULESET,
    "fe_5_10_policies.msgpack": RULESET,
}


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_a_game_of_an_earlier_minor_version_replays_to_its_recorded_hashes(name: str) -> None:
    golden = read_golden(FROZEN / name)
    ruleset = RULESETS[name]
    version = golden.ruleset.removeprefix("fe/")
    assert version in ("5.0", "5.1", "5.2", "5.3", "5.4", "5.6", "5.7", "5.8", "5.9", "5.10")
    assert ruleset.version != version
    assert name.startswith(f"fe_{version.replace('.', '_')}_")
    state = None
    entropy_packets = 0
    for seq, packet, result in replay_golden(golden, ruleset):
        if isinstance(packet.body.kind, Genesis):
            check_genesis(ruleset, packet.body.kind)
        assert seq == 0 or packet.body.ruleset == golden.ruleset
        entropy_packets += isinstance(packet.body.kind, EntropyOnly)
        assert result.state_hash == golden.hashes[seq], f"{name}: state hash moved at {seq}"
        state = result.state
    assert state is not None and state.core.ruleset_version == version
    assert state.rules is not None  # (5.1 and before kept no version in the rules state)
    assert state.rules.version == ("" if version in ("5.0", "5.1") else version)
    if version == "5.0":
        assert entropy_packets >= 2  # the dice the rules ran on to each waited for a packet


def test_the_5_1_game_waits_at_the_automatic_step_it_went_back_to() -> None:
    """What the frozen 5.1 game pins: after ``back 5-3X4`` the next packet completes 5-3X4
    with ``done`` (from 5.2 the engine would have carried it out and moved on)."""
    golden = read_golden(FROZEN / "fe_5_1_back.msgpack")
    texts = [
        e.text for _seq, _packet, result in replay_golden(golden, RULESET) for e in result.events
    ]
    back = next(i for i, t in enumerate(texts) if "went back" in t and "to 5-3X4" in t)
    assert texts[back + 1] == "coalition completed 5-3X4 Roll variable battle intensity"


def test_the_5_2_game_asks_a_base_that_may_not_retreat() -> None:
    """What the frozen 5.2 game pins: the alliance, with nothing in 0701 that can retreat,
    completes its retreat options by hand (from 5.3 the engine passes them)."""
    golden = read_golden(FROZEN / "fe_5_2_wind.msgpack")
    texts = [
        e.text for _seq, _packet, result in replay_golden(golden, RULESET) for e in result.events
    ]
    assert "alliance completed 5-7A1 Defender's first retreat option" in texts
    assert "alliance completed 5-7A3 Defender's last retreat option" in texts
    assert not any("nothing of alliance's in 0701 can retreat" in t for t in texts)


def test_the_5_3_game_asks_the_base_battle_s_opening_its_policies_could_answer() -> None:
    """What the frozen 5.3 game pins: the Lyran policy (retreat once two rounds are fought)
    does not answer the retreat before the base battle, and the Kzinti answer the approach
    battle by hand (from 5.4 the policies answer both)."""
    golden = read_golden(FROZEN / "fe_5_3_base.msgpack")
    texts = [
        e.text for _seq, _packet, result in replay_golden(golden, RULESET) for e in result.events
    ]
    assert "alliance completed 5-2A3 Defender accepts or refuses the approach battle" in texts
    assert "coalition completed 5-2B1 Attacker may retreat before the base battle" in texts
    assert not any(t.startswith("5-2") and "answered for the seats" in t for t in texts)


def test_the_5_4_game_ends_a_directed_step_with_a_packet_of_done() -> None:
    """What the frozen 5.4 game pins: the packet of the Lyrans' directed attack leaves 5-5C
    theirs, and their next packet, a ``done``, ends it (from 5.5 the attack's packet does)."""
    golden = read_golden(FROZEN / "fe_5_4_directed.msgpack")
    seen = [
        (packet.body.seat, [e.text for e in result.events])
        for _seq, packet, result in replay_golden(golden, RULESET)
    ]
    ended = "coalition completed 5-5C Defender's directed damage on one enemy unit"
    directs = next(
        i
        for i, (_, texts) in enumerate(seen)
        if any("coalition directs damage" in t for t in texts)
    )
    assert ended not in seen[directs][1]
    assert seen[directs + 1][0] == "coalition" and seen[directs + 1][1][0] == ended


def test_the_5_4_base_battle_asks_each_side_at_its_captures() -> None:
    """What the frozen 5.4 base battle pins: each side completes 5-6X1 by hand (from 5.5 the
    golden's policies say ``capture`` "never" and the step passes)."""
    golden = read_golden(FROZEN / "fe_5_4_base.msgpack")
    texts = [
        e.text for _seq, _packet, result in replay_golden(golden, RULESET) for e in result.events
    ]
    for seat in ("alliance", "coalition"):
        assert f"{seat} completed 5-6X1 Either side resolves its ship captures" in texts


def test_the_5_4_checklist_game_ends_an_answered_approach_with_a_packet_of_done() -> None:
    """What the frozen 5.4 checklist game pins: the packet after the alliance's ``back`` is
    its own ``done`` for 5-2A3 (from 5.5 the ``back``'s packet ends the step)."""
    golden = read_golden(FROZEN / "fe_5_4_checklist.msgpack")
    seen = [
        (packet.body.seat, [e.text for e in result.events])
        for _seq, packet, result in replay_golden(golden, RULESET)
    ]
    back = next(i for i, (_, said) in enumerate(seen) if any("went back" in t for t in said))
    ended = "alliance completed 5-2A3 Defender accepts or refuses the approach battle"
    assert ended not in seen[back][1]
    assert seen[back + 1][0] == "alliance" and seen[back + 1][1][0] == ended


def _texts(name: str) -> list[str]:
    golden = read_golden(FROZEN / name)
    return [
        e.text for _seq, _packet, result in replay_golden(golden, RULESET) for e in result.events
    ]


def test_the_5_6_checklist_game_offers_an_approach_battle_to_a_base_alone() -> None:
    """What the frozen 5.6 checklist game pins: the Lyrans complete 5-2A2 in round 2 at the
    Kzinti battle station left alone, and the round the Kzinti went back to is fought with
    their potential whole (16; from 5.7 the 3 fighter factors KZI-0016 lost are gone: 13)."""
    texts = _texts("fe_5_6_checklist.msgpack")
    assert "coalition completed 5-2A2 Attacker offers the approach battle" in texts
    fired = [t for t in texts if t.startswith("0701 round 1, alliance: potential")]
    assert [t.split(" x ")[0] for t in fired] == ["0701 round 1, alliance: potential 16"] * 2


def test_the_5_6_policies_game_loses_the_same_fighters_twice() -> None:
    """What the frozen 5.6 policies game pins: KZI-0016 loses 6 fighter factors in round 1
    and 6 again in the pursuit round (from 5.7 it has none left to lose there)."""
    texts = _texts("fe_5_6_policies.msgpack")
    lost = [
        t.split(": ")[0]
        for t in texts
        if t.startswith("alliance resolves") and "KZI-0016 lost 6 fighter factors" in t
    ]
    assert lost == [
        "alliance resolves 6 damage points in 0601 round 1",
        "alliance resolves 6 damage points in 0601 round 3",  # the pursuit round
    ]


@pytest.mark.parametrize("name", ["fe_5_7_checklist.msgpack", "fe_5_7_wind.msgpack"])
def test_the_5_7_games_ask_both_sides_for_the_groups_they_must_keep(name: str) -> None:
    """What the frozen 5.7 games pin: in a battle's second round each side commits to its
    carrier groups at 5-3C, which the first round fixed (from 5.8 the engine makes that
    choice and asks nobody)."""
    golden = read_golden(FROZEN / name)
    commits = [
        e.text
        for _seq, _packet, result in replay_golden(golden, RULESET)
        for e in result.events
        if e.kind == "commit" and e.step == "5-3C"
    ]
    assert commits.count("coalition committed a secret choice for 5-3C") >= 2
    assert commits.count("alliance committed a secret choice for 5-3C") >= 2


@pytest.mark.parametrize("name", ["fe_5_8_checklist.msgpack", "fe_5_8_wind.msgpack"])
def test_the_5_8_games_ask_a_base_alone_for_its_battle_force(name: str) -> None:
    """What the frozen 5.8 games pin: in the second round in 0701 the Kzinti commit to their
    battle station as their battle force, their only unit there (from 5.9 the engine makes
    that choice and asks only the Lyrans, who then reveal in the same packet)."""
    golden = read_golden(FROZEN / name)
    seen = [
        e.text
        for _seq, _packet, result in replay_golden(golden, RULESET)
        for e in result.events
        if e.step == "5-3E" and e.kind in ("commit", "secret")
    ]
    assert seen.count("alliance committed a secret choice for 5-3E") >= 2
    assert not any("made by the rules" in text for text in seen)


@pytest.mark.parametrize("name", ["fe_5_9_checklist.msgpack", "fe_5_9_wind.msgpack"])
def test_the_5_9_games_reveal_flagships_before_the_forces_are_chosen(name: str) -> None:
    """What the frozen 5.9 games pin: the flagships are committed and revealed at 5-3D, and
    only then is a battle force chosen at 5-3E (from 5.10 one commitment names all three)."""
    golden = read_golden(FROZEN / name)
    seen = [
        (e.step, e.kind)
        for _seq, _packet, result in replay_golden(golden, RULESET)
        for e in result.events
        if e.step in ("5-3D", "5-3E") and e.kind in ("commit", "secret")
    ]
    assert ("5-3D", "commit") in seen
    assert seen.index(("5-3D", "secret")) < seen.index(("5-3E", "commit"))
