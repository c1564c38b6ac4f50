"""An approach battle needs ships: a base left alone fights the base battle (F&E 5.7).

Found by the random campaigns with policies (seed 11): the Kzinti ships at the battle station
in 0701 retreated and left it alone; from round 12 the Lyran policy offered an approach
battle every round and the Kzinti policy accepted it. An approach battle is fought without
the base (302.22), so the Kzinti had no battle force at all: the base fired nothing and took
nothing, round after round, until the stall rule of 5.6 handed the battle to the Lyrans. A
defender with nothing but a base could so shield it for ever by accepting; and every round
its seat and the attacker's were asked about an approach battle nobody could fight (two
hand-offs by email).

From 5.7 (`combat_approach.APPROACH_NEEDS_SHIPS_FROM`), when nothing of the defender's in the
hex moves by itself (bases, PDUs and planets only), the approach steps 5-2A1 to 5-2A3 pass
with the reason and the base battle is fought, base included. The board is the tutorial's:
the Klingon D6 in 1205, the hex of the Kzinti battle station KZI-B001.
"""

from __future__ import annotations

import msgspec

from engine.core.ruleset import Event
from engine.fe import FE as RULESET
from engine.fe.battle_model import BattleRecord, CombatPolicy
from engine.fe.model import FeState
from engine.fe.steps import combat, combat_round
from tests.engine.fe.helpers import owed, run_until
from tests.engine.fe.steps.test_combat_withdrawal import battle_in, record
from tests.engine.fe.steps.tutorial_states import after_setup, orders, placed

DONE = {"type": "done"}
ACCEPT = {"type": "approach", "accept": True}
STATION = "KZI-B001"
seen: list[BattleRecord] = []


def the_base_alone(version: str, events: list[Event] | None = None) -> FeState:
    """The D6 attacks the battle station, which has no ship beside it, in a game played at
    ``version``: the state as the battle begins (5-1A passes: nothing may withdraw)."""
    state = RULESET.at_version(placed(after_setup(), {"KLI-0005": 1205}), version)
    return run_until(state, lambda s: combat.current(s) is not None, events)


def asked_until_round(
    state: FeState, rounds: int, asked: list[tuple[str, str]], events: list[Event] | None = None
) -> FeState:
    """Play on (done, or the plainest secret choice) until ``rounds`` rounds are fought;
    ``asked`` gets the (step, seat) of every decision met on the way, `seen` keeps the
    battle's last record (the battle may end with the round)."""

    def fought(state: FeState) -> bool:
        found = combat.current(state)
        if found is None or found.rounds >= rounds:
            return True
        seen[:] = [found]
        decision = owed(state)
        asked.append((decision.step, ",".join(decision.seats)))
        return False

    return run_until(state, fought, events)


def test_from_5_7_the_base_alone_fights_its_base_battle_unasked() -> None:
    state = the_base_alone("5.7")
    asked: list[tuple[str, str]] = []
    state = asked_until_round(state, 1, asked)
    steps = [step for step, _ in asked]
    assert not {"5-2A1", "5-2A2", "5-2A3", "5-2B1"} & set(steps), asked
    first = record(state).log[0]
    assert first.defender.force == (STATION,), first.defender
    assert first.defender.potential2 > 0


def test_from_5_7_the_steps_say_why_they_pass() -> None:
    events: list[Event] = []
    asked_until_round(the_base_alone("5.7", events), 1, [], events)
    passed = {e.step: e.text for e in events if e.kind == "step-passed"}
    assert "5-2A3" in passed, passed
    assert "nothing of alliance's in 1205 moves by itself" in passed["5-2A3"]
    assert "(302.22)" in passed["5-2A3"]


def test_from_5_7_the_attacker_is_not_asked_to_offer_in_later_rounds() -> None:
    """The D6's policy never retreats, and says nothing about offers: before 5.7 its seat is
    asked at 5-2A2 in round 2; from 5.7 the step passes."""
    for version, offer_asked in (("5.6", True), ("5.7", False)):
        state = the_base_alone(version)
        state = msgspec.structs.replace(state, policies=(("coalition", CombatPolicy(retreat=0)),))
        asked: list[tuple[str, str]] = []
        asked_until_round(state, 2, asked)
        assert (("5-2A2", "coalition") in asked) == offer_asked, (version, asked)
        (last,) = seen
        assert last.rounds == 1 and ("5-3B", "coalition") in asked  # round 2 was begun
        if version == "5.7":
            assert all(r.defender.force == (STATION,) for r in last.log), last.log


def test_before_5_7_the_base_alone_may_accept_and_then_has_no_battle_force() -> None:
    """What a game begun before 5.7 keeps: the defender is asked at 5-2A3, may accept, and
    the round is fought without the base: no battle force, nothing fired."""
    state = run_until(the_base_alone("5.6"), lambda s: owed(s).step == "5-2A3")
    assert owed(state).step == "5-2A3" and owed(state).seats == ("alliance",)
    state, _ = orders(state, "alliance", ACCEPT)
    assert record(state).opening.kind == "approach"
    assert combat_round.available(state, "alliance", record(state)) == []


def test_from_5_7_ships_beside_the_base_are_still_asked() -> None:
    state = RULESET.at_version(battle_in(1205), "5.7")
    state, _ = orders(state, "alliance", DONE)  # no withdrawal
    state = run_until(state, lambda s: owed(s).step.startswith("5-2A3") or owed(s).step >= "5-3")
    assert owed(state).step == "5-2A3" and owed(state).seats == ("alliance",)
