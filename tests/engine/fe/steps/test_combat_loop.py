"""The combat phase's loop (302.9, `engine.fe.steps.combat`) on the tutorial board.

Two Klingon ships are put into Kzinti hexes before the coalition's turn: the D6 KLI-0005 with
the Border Guard in 1105, the F5 KLI-0006 with the Starbase Squadron in 1704, so phase 5
has two battle hexes. The tests play the loop by its orders: the order of battle hexes, the
retreat announcements, rounds that go on by themselves, and a side with nothing left.
"""

from __future__ import annotations

import msgspec

from engine.core.ruleset import Event
from engine.fe import FE as RULESET
from engine.fe.face import FACE
from engine.fe.model import FeState
from engine.fe.steps import combat
from engine.fe.steps.battles import battle_list
from tests.engine.fe.helpers import owed, run_until
from tests.engine.fe.steps.tutorial_states import (
    after_setup,
    orders,
    placed,
    refusals,
    run_to,
    texts,
)


def two_battles() -> FeState:
    return placed(after_setup(), {"KLI-0005": 1105, "KLI-0006": 1704})


def step(state: FeState) -> str:
    return str(RULESET.summary(state)["step"])


def at_first_retreat_option(plan: list[str] | None = None) -> FeState:
    state = run_to(two_battles(), "3B2")
    if plan is not None:
        state, _ = orders(state, "coalition", {"type": "battles", "hexes": plan})
    return run_to(state, "5-7A1")


def test_hexes_are_fought_in_hex_order_unless_the_phasing_player_orders_them() -> None:
    state = at_first_retreat_option()
    assert [r.hex for r in state.battles] == [1105, 1704]
    state = at_first_retreat_option(["1704"])
    assert [r.hex for r in state.battles] == [1704, 1105]
    assert combat.current(state) == state.battles[0]


def test_the_order_of_battles_is_the_phasing_player_s() -> None:
    state = run_to(two_battles(), "3B2")
    assert refusals(state, "coalition", {"type": "battles", "hexes": ["1704", "1704"]}) == [
        "hex 1704 is named twice (302.9)"
    ]
    assert refusals(state, "coalition", {"type": "battles", "hexes": ["9999"]}) == [
        "hex 9999 is not on the map (302.9)"
    ]


def test_nobody_retreats_and_the_next_round_begins_by_itself() -> None:
    state = at_first_retreat_option()
    events: list[Event] = []
    state, _ = orders(state, "alliance", {"type": "done"})
    state, _ = orders(state, "coalition", {"type": "done"})
    state, events = orders(state, "alliance", {"type": "done"})
    # 5-2A1 passes (no cloaks); the Kzinti planet in 1105 is base-like (302.211): from round
    # 2 on the attacker may offer an approach battle at 5-2A2
    assert step(state) == "5-2A2"
    assert state.battles[0].rounds == 1 and not state.battles[0].resolved
    assert texts(events, "battle") == ["nobody retreats from 1105: round 2 begins at 5-2A1 (302.9)"]
    assert owed(state).key.endswith("/5-2A2/2")  # a fresh pass: new decision keys


def test_a_retreat_lets_the_phase_run_on_then_the_next_hex_begins() -> None:
    state = at_first_retreat_option()
    state, events = orders(state, "alliance", {"type": "retreat"}, {"type": "done"})
    assert texts(events, "retreat") == [
        "alliance announces its retreat from 1105 in round 1 (302.71)"
    ]
    assert refusals(state, "alliance", {"type": "retreat"})[0].startswith("it is coalition's")
    state, events = orders(state, "coalition", {"type": "done"})
    assert texts(events, "battle")[0] == (
        "alliance retreated after round 1 from 1105: retreat and pursuit follow (302.9)"
    )
    # The Kzinti ships left; the planet of 1105 stays, so the battle goes on (302.741).
    assert step(state) == "5-2A2" and state.battles[0].rounds == 1  # 5-2A1: no cloaks
    assert state.battles[0].resolved == ""
    events = []
    state = run_to(state, "5-1A", events)  # round 2: the attacker retreats (the scripts' rule)
    assert combat.current(state) == state.battles[1]
    assert "the battle in 1704 begins (302.9)" in texts(events, "battle")
    state = run_to(state, "6B")  # the starbase of 1704 destroys the F5 in round 2; phase 6
    assert [r.resolved for r in state.battles] == [
        "coalition retreated after round 2",
        "the attacker has nothing left in 1704",
    ]


def test_a_side_with_nothing_left_ends_the_battle_without_retreat_or_pursuit() -> None:
    """The D6 in 1105 is destroyed in round 1 (its owner records it): the Kzinti planet there
    still defends, but the attacker has nothing left, so the battle ends at 5-7A4 and the
    next hex begins without the retreat and pursuit steps."""
    state = at_first_retreat_option()
    item = {"type": "adjust", "change": "destroy", "unit": "KLI-0005", "reason": "round 1"}
    state, _ = orders(state, "alliance", {"type": "done"})
    state, _ = orders(state, "coalition", item, {"type": "done"})
    state, events = orders(state, "alliance", {"type": "done"})
    assert state.battles[0].resolved == "the attacker has nothing left in 1105"
    assert step(state) == "5-1A" and combat.current(state) == state.battles[1]
    assert not [e for e in events if e.step in ("5-7B", "5-8A")]


def test_a_retreat_needs_a_battle_and_is_announced_once() -> None:
    # no battle hex on this board, so the phase passes (302.9): the step is set by hand
    quiet = run_to(after_setup(), "4A")
    state = msgspec.structs.replace(quiet, step=combat.index_of("5-7A1"))
    assert refusals(state, "alliance", {"type": "retreat"}) == [
        "no battle is being fought (302.71)"
    ]
    state = at_first_retreat_option()
    state, _ = orders(state, "alliance", {"type": "retreat"})
    assert refusals(state, "alliance", {"type": "retreat"}) == [
        "alliance already announced its retreat from 1105 (302.71)"
    ]


def test_a_hex_a_retreat_makes_a_battle_is_added() -> None:
    """The defender of 1105 'retreats' into 1307, where the Klingon Strike Force stands: at
    the end of the phase 1307 is a battle hex, fought after 1704."""
    state = at_first_retreat_option()
    state, _ = orders(state, "alliance", {"type": "retreat"}, {"type": "done"})
    state = placed(state, {"KZI-0003": 1307})
    state = run_to(state, "5-1A")
    assert [r.hex for r in state.battles] == [1105, 1704, 1307]


def test_the_battle_list_carries_each_hex_s_record() -> None:
    """`hexpost show --json` ``battles``: order, rounds, the hex being fought, why it ended."""
    state = at_first_retreat_option(["1704"])
    state, _ = orders(state, "alliance", {"type": "retreat"}, {"type": "done"})
    state = run_to(state, "5-1A")
    listed = {b["hex"]: b for b in battle_list(state)}
    assert listed["1704"]["order"] == 1 and listed["1704"]["rounds"] == 2  # the SB stayed
    assert listed["1704"]["resolved"] == "the attacker has nothing left in 1704"
    assert listed["1704"]["fighting"] is False
    assert listed["1105"]["order"] == 2 and listed["1105"]["fighting"] is True
    assert str(listed["1105"]["text"]).startswith("1105 (KLI 1 ship vs KZI")


def test_the_bir_pick_is_a_typed_secret_and_the_variable_die_sets_the_total() -> None:
    """5-3X2 in a battle: each side's pick is a whole number 1 to 4 (304.1); the reveal asks
    for the variable BIR die at once (304.3) and the round's log keeps picks, die and total."""
    state = at_first_retreat_option()
    for seat in ("alliance", "coalition", "alliance"):  # nobody retreats: round 2 of 1105
        state, _ = orders(state, seat, {"type": "done"})
    state = run_to(state, "5-3X2")
    decision = owed(state)
    (choice,) = FACE.choices(state, "coalition")
    assert choice.params[0].options == ("1", "2", "3", "4")
    assert [v.message for v in RULESET.validate_secret(state, decision, "coalition", "BIR 3")] == [
        "the secret choice of 5-3X2 is the BIR you pick: a whole number 1 to 4"
    ]
    (too_high,) = RULESET.validate_secret(state, decision, "alliance", 5)
    assert too_high.rule == "304.1" and "outside the allowed 1 to 4" in too_high.message
    applied = RULESET.apply_secret(state, decision, {"coalition": 3, "alliance": 2})
    (die,) = applied.rolls
    assert die.at_reveal and (die.count, die.sides) == (1, 6)
    rolled = RULESET.apply_roll(applied.state, die, (5,))
    record = combat.current(rolled.state)
    assert record is not None and [entry.round for entry in record.log] == [1, 2]
    log = record.log[-1]
    assert (log.attacker.bir, log.defender.bir, log.vbir_die, log.bir) == (3, 2, 5, 6)
    assert rolled.events[0].text == (
        "1105 round 2: BIR 3 + 2, variable die 5 (+1): total 6 (304.3)"
    )


def test_from_5_3_a_side_with_nothing_left_is_not_asked_about_retreats() -> None:
    """As above, the attacker's D6 destroyed at its own option (5-7A2): from fe 5.3 the
    defender's last option (5-7A3) passes, since the battle is over, and the next hex begins
    in the same packet; in a 5.2 game the defender is still asked (a hand-off for nothing)."""
    item = {"type": "adjust", "change": "destroy", "unit": "KLI-0005", "reason": "round 1"}
    for version, asked in (("5.2", True), ("5.3", False)):
        state = RULESET.at_version(at_first_retreat_option(), version)
        state, _ = orders(state, "alliance", {"type": "done"})
        state, events = orders(state, "coalition", item, {"type": "done"})
        assert (step(state) == "5-7A3") is asked, (version, step(state))
        if not asked:
            assert state.battles[0].resolved == "the attacker has nothing left in 1105"
            assert step(state) == "5-1A" and combat.current(state) == state.battles[1]
            (passed,) = [e for e in events if e.step == "5-7A3"]
            assert "the battle in 1105 is over: the attacker has nothing left" in passed.text


def test_from_5_3_a_base_alone_is_not_asked_whether_it_retreats() -> None:
    """1704: the Kzinti ships retreat in round 1 and the starbase fights on (302.741). In
    round 2 (the D6 joins the F5, so the attacker is not destroyed) the starbase alone may
    not retreat, so from fe 5.3 its option 5-7A1 passes with the reason, and the attacker
    is asked (5-7A2)."""
    state = RULESET.at_version(run_to(two_battles(), "3B2"), "5.3")
    state, _ = orders(state, "coalition", {"type": "battles", "hexes": ["1704"]})
    state = run_to(state, "5-7A1")
    state, _ = orders(state, "alliance", {"type": "retreat"}, {"type": "done"})
    state, _ = orders(state, "coalition", {"type": "done"})
    assert step(state) == "5-2A2"  # round 2 against the starbase
    state = placed(state, {"KLI-0005": 1704})  # with the D6 too: the attacker outlasts it
    events: list[Event] = []
    state = run_until(state, lambda s: step(s).startswith("5-7"), events)
    assert step(state) == "5-7A2" and owed(state).seats == ("coalition",)
    (passed,) = [e for e in events if e.step == "5-7A1"]
    assert "nothing of alliance's in 1704 can retreat" in passed.text
