"""Playing the checklist: who owes what, completing steps, combat rounds, secrets, dice."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest

from engine.core.ruleset import DecisionKind, Event, RollRequest
from engine.core.turn_orders import Back, Done, Note, Roll
from engine.fe import FACE
from engine.fe import FE as RULESET
from engine.fe.flow import sequence
from engine.fe.model import FeState
from tests.engine.fe.helpers import (
    at_step,
    battle_start,
    farthest_through,
    fresh,
    owed,
    play,
    run_until,
    start,
    step_once,
)


def test_first_decision() -> None:
    state = start()
    decision = owed(state)
    assert decision.seats == ("coalition",)
    assert decision.step == "1A1"
    assert decision.kind == DecisionKind.ORDERS
    assert decision.key == "T1/coalition/1A1/1"
    assert decision.title


def test_out_of_turn_refusal_names_the_step_and_its_owner() -> None:
    state = run_until(start(), at_step("1C4"))
    (violation,) = RULESET.validate(state, "alliance", Done())
    assert violation.message == (
        "it is coalition's step 1C4 (Pay the debt interest (and any penalty)), not alliance's"
    )
    assert violation.rule == "105.0"
    assert RULESET.validate(state, "alliance", Note("hello"))
    assert RULESET.validate(state, "romulans", Done())


def test_both_step_needs_both_seats() -> None:
    state = run_until(start(), at_step("2B11"))
    first = owed(state)
    assert first.seats == ("coalition",)
    events: list[Event] = []
    state = play(state, "coalition", Done(note="nothing scuttled"), events)
    assert RULESET.summary(state)["step"] == "2B11"
    second = owed(state)
    assert second.seats == ("alliance",)
    assert second.key != first.key
    assert RULESET.validate(state, "coalition", Done())
    state = play(state, "alliance", Done(), events)
    assert RULESET.summary(state)["step"] == "3A-1A"
    assert [e.kind for e in events][:2] == ["step-part", "step-done"]
    assert events[0].data["note"] == "nothing scuttled"


def test_a_both_step_asks_first_the_seat_that_ended_the_step_before() -> None:
    """5-6D and 5-6E are "both" steps (311.21, 501.6): the seat that ends one answers the
    next first, in the same packet, so the row costs one packet per step plus one."""
    state = run_until(battle_start(), at_step("5-6D"))
    first = owed(state).seats[0]
    other = next(seat for seat in ("coalition", "alliance") if seat != first)
    events: list[Event] = []
    state = play(state, first, Done(), events)
    assert owed(state).seats == (other,)
    state = play(state, other, Done(through="5-6E"), events)
    assert [(e.kind, e.seat, e.step) for e in events] == [
        ("step-part", first, "5-6D"),
        ("step-done", other, "5-6D"),
        ("step-part", other, "5-6E"),
    ]
    assert owed(state).seats == (first,)
    state = play(state, first, Done(), events)
    assert RULESET.summary(state)["step"] != "5-6E"


def test_non_phasing_steps_belong_to_the_other_seat() -> None:
    state = run_until(start(), at_step("4A"))
    assert owed(state).seats == ("alliance",)
    state = run_until(battle_start(), at_step("5-1A"))  # the defender's (302.1)
    assert owed(state).seats == ("alliance",)
    state = run_until(state, at_step("5-2B1"))  # the attacker's (302.23)
    assert owed(state).seats == ("coalition",)


PACKETS_WITHOUT_BATTLE = 23
"""The packets of the coalition's first player turn of The Wind, each seat completing as many
steps as it may with one ``done through`` (no battle hex; 27 before the ISC pacification steps,
3A-6 and 6D1, passed by themselves in a game without the ISC)."""


def test_done_through_walks_a_whole_player_turn() -> None:
    state = start()
    events: list[Event] = []
    packets = widest = 0
    while state.player_turn == 0:
        decision = owed(state)
        packets += 1
        if decision.kind == DecisionKind.SECRET:
            choices = {seat: "a choice" for seat in decision.seats}
            applied = RULESET.apply_secret(state, decision, choices)
            state, events = applied.state, events + applied.events
            continue
        seat = decision.seats[0]
        through = farthest_through(state, seat)
        assert through, f"{seat} cannot even complete {decision.step}"
        before = len(events)
        state = play(state, seat, Done(through=through), events)
        widest = max(widest, sum(e.kind == "step-done" for e in events[before:]))
    # No battle hex: the combat phase passes by itself (302.9), with its many "both" steps
    # and five secret steps (75 packets when they were walked, 27 then); steps that cannot
    # apply in The Wind pass too (105.0, `engine.fe.applies`): 23 now.
    assert packets <= PACKETS_WITHOUT_BATTLE, packets
    assert widest >= 8  # e.g. 2B5 through 2B10 in one order
    done = [e.step for e in events if e.kind == "step-done"]
    passed = {e.step for e in events if e.kind == "step-passed"}
    automatic = [e.step for e in events if e.kind == "step-auto"]
    playable = [s.id for s in sequence().main if not s.obsolete and s.phase != "5"]
    kinds = {s: sequence().steps[s].kind for s in playable}
    assert done == [s for s in playable if kinds[s] in ("manual", "decision") and s not in passed]
    assert automatic == [s for s in playable if kinds[s] == "automatic"]
    assert not [e for e in events if e.kind in ("secret", "commit")]
    assert [e.text for e in events if e.kind == "battle"] == [
        "no battle hexes: the combat phase passes (302.9)"
    ]
    assert events[-1].kind == "phase"
    turn_starts = [e.text for e in events if e.kind == "player-turn"]
    assert turn_starts == ["Turn 1, Fall Y168: alliance player turn begins"]
    assert owed(state).seats == ("alliance",)
    assert owed(state).key == "T1/alliance/1A1/1"


def test_done_through_puts_the_note_on_the_last_step() -> None:
    state = run_until(start(), at_step("1A3A"))
    events: list[Event] = []
    state = play(state, "coalition", Done(note="ok", adjustments=["+2 EP"], through="1C"), events)
    assert RULESET.summary(state)["step"] == "1D"
    assert [e.step for e in events if e.kind == "step-done"] == [
        "1A3A", "1A3B", "1A3C", "1A3D", "1B", "1C1", "1C2", "1C4", "1C5"
    ]  # fmt: skip
    assert [e.step for e in events if e.kind == "step-auto"] == ["1C3"]
    last = next(e for e in reversed(events) if e.kind == "step-done")
    assert last.data == {"note": "ok", "adjustments": ["+2 EP"], "through": "1C"}


@pytest.mark.parametrize(
    ("at", "through", "blocker"),
    [
        ("2B6", "3A-1A", "step 2B11 (Scuttle own units if wanted) needs alliance too"),
        ("3A-2A", "3A-2D", "step 3A-2C (Target reacts to raids or calls up police ships) is "
                           "alliance's"),
        ("5-3X1", "5-3X3", "step 5-3X2 (Secretly choose battle intensity ratings) is secret"),
    ],
)  # fmt: skip
def test_done_through_refuses_at_the_first_blocking_step(
    at: str, through: str, blocker: str
) -> None:
    state = run_until(battle_start(), at_step(at))
    (violation,) = RULESET.validate(state, "coalition", Done(through=through))
    assert violation.message == f"cannot complete through {through}: {blocker}"


def test_done_through_other_mistakes() -> None:
    state = run_until(start(), at_step("1C4"))
    assert "no such step" in RULESET.validate(state, "coalition", Done(through="99Z"))[0].message
    assert "no such step" in RULESET.validate(state, "coalition", Done(through="11A"))[0].message
    assert "already behind" in RULESET.validate(state, "coalition", Done(through="1B"))[0].message
    # Ids are matched as written; one typed in other capitals is named as it is written.
    (lower,) = RULESET.validate(state, "coalition", Done(through="1c5"))
    assert lower.message == (
        "through '1c5': no such step in this part of the game; its id is written '1C5'"
    )
    (unknown,) = RULESET.validate(state, "coalition", Done(through="economics"))
    assert unknown.message == (
        "through 'economics': no such step in this part of the game (give a step, heading or "
        "phase id of it, or 'end')"
    )


def test_done_through_may_finish_a_both_step_it_is_last_to_answer() -> None:
    state = run_until(start(), at_step("2B11"))
    state = play(state, "coalition", Done())
    assert not RULESET.validate(state, "alliance", Done(through="2B11"))
    assert RULESET.validate(state, "alliance", Done(through="3A-1A"))


def test_secret_step_decision_shape_and_reveal() -> None:
    state = run_until(battle_start(), at_step("5-3C"))
    (decision,) = RULESET.pending(state)
    assert decision.kind == DecisionKind.SECRET
    assert decision.seats == ("coalition", "alliance")
    assert decision.key == "T1/coalition/5-3C/1"
    assert decision.rules[0] == "515.15"
    (violation,) = RULESET.validate(state, "coalition", Done())
    assert violation.message == "step 5-3C is secret: send a secret choice"
    # In a battle 5-3C takes typed carrier groups (515.15), not free words.
    assert not RULESET.validate_secret(state, decision, "alliance", "none")
    assert not RULESET.validate_secret(state, decision, "coalition", [])
    (wrong,) = RULESET.validate_secret(state, decision, "alliance", "CV group at 1401")
    assert wrong.rule == "515.15" and "carrier groups" in wrong.message
    assert RULESET.validate_secret(state, decision, "alliance", "")
    assert RULESET.validate_secret(state, decision, "alliance", {"not": "text"})
    assert RULESET.validate_secret(state, decision, "romulans", "none")
    stale = msgspec.structs.replace(decision, key="T1/coalition/5-3C/2")
    assert RULESET.validate_secret(state, stale, "alliance", "none")
    applied = RULESET.apply_secret(state, decision, {"coalition": [], "alliance": "none"})
    (event,) = [e for e in applied.events if e.kind == "secret"]
    assert event.data["choices"] == {"coalition": "[]", "alliance": "none"}
    assert RULESET.summary(applied.state)["step"] == "5-3D"


def test_roll_requests_dice_and_does_not_advance() -> None:
    state = run_until(battle_start(), at_step("5-4A1"))  # 5-3X5 passes: no ISC (525.74C)
    applied = RULESET.apply(state, "coalition", Roll("1d6", "variable battle intensity"))
    assert applied.state == state
    assert applied.rolls == [RollRequest(1, 6, "variable battle intensity", "5-4A1")]
    result = RULESET.apply_roll(state, applied.rolls[0], (4,))
    assert result.state == state
    assert result.events == []  # the protocol core logs the roll itself
    assert RULESET.validate(state, "coalition", Roll("0d6", "x"))
    assert RULESET.validate(state, "coalition", Roll("2d6", "   "))


def test_note_does_not_advance() -> None:
    state = start()
    applied = RULESET.apply(state, "coalition", Note("planning"))
    assert applied.state == state
    assert applied.events[0].kind == "note"


def test_back_only_in_combat_and_only_backwards() -> None:
    state = run_until(battle_start(), at_step("3B2"))
    (violation,) = RULESET.validate(state, "coalition", Back("3B1"))
    assert violation.rule == "302.9"
    assert "combat phase" in violation.message
    state = run_until(state, at_step("5-7A2"))
    assert RULESET.validate(state, "coalition", Back("5-7A2"))  # not earlier
    assert RULESET.validate(state, "coalition", Back("5-8A"))  # later
    assert RULESET.validate(state, "coalition", Back("4A"))  # not combat
    assert RULESET.validate(state, "alliance", Back("5-2A1"))  # not alliance's step
    assert not RULESET.validate(state, "coalition", Back("5-2"))
    (lower,) = RULESET.validate(state, "coalition", Back("5-2a1"))
    assert lower.message == "back '5-2a1': no such step in this part; its id is written '5-2A1'"


def test_back_repeats_combat_with_fresh_keys() -> None:
    state = run_until(battle_start(), at_step("5-7A2"))
    events: list[Event] = []
    state = play(state, "coalition", Back("5-2"), events)
    assert events[0].kind == "back"
    assert events[0].data == {"from": "5-7A2", "to": "5-2A1", "rule": "302.9"}
    assert RULESET.summary(state)["step"] == "5-2A1"
    assert owed(state).key == "T1/coalition/5-2A1/2"
    state = run_until(state, at_step("5-3C"))
    assert owed(state).key == "T1/coalition/5-3C/2"
    state = run_until(state, at_step("5-7A2"))
    state = play(state, "coalition", Back("5-3C"))
    assert owed(state).key == "T1/coalition/5-3C/3"
    state = run_until(state, lambda s: s.player_turn == 1)
    assert state.backs == 0
    assert owed(state).key == "T1/alliance/1A1/1"


@pytest.mark.parametrize("version", ["5.1", "5.2"])
def test_back_to_an_automatic_step_carries_it_out_from_5_2(version: str) -> None:
    """From fe 5.2 ``back`` goes on from the step it names as the sequence does: the engine
    carries out 5-3X4 (it rolls the variable battle intensity, 304.3, when the round has
    none yet), passes 5-3X5, and asks the seat the next step needs. In a game of 5.1 the
    game waited at 5-3X4 for the phasing seat's ``done``, and the engine did not carry the
    step out; such games replay as recorded (`tests/golden/frozen/fe_5_1_back.msgpack`)."""
    state = run_until(battle_start(), at_step("5-7A2"))
    state = RULESET.at_version(state, version)
    assert not RULESET.validate(state, "coalition", Back("5-3X4"))
    applied = RULESET.apply(state, "coalition", Back("5-3X4"))
    after, events = applied.state, applied.events
    assert events[0].kind == "back"
    if version == "5.1":
        assert owed(after).step == "5-3X4" and owed(after).seats == ("coalition",)
        assert len(events) == 1 and not applied.rolls
        return
    assert [(e.kind, e.step) for e in events[1:3]] == [
        ("step-auto", "5-3X4"),
        ("step-passed", "5-3X5"),
    ]
    assert owed(after).step == "5-4A1"


def test_the_back_form_offers_the_steps_back_may_name_now() -> None:
    """The ``back`` choice's ``step`` is a menu of the earlier combat steps the engine would
    take, in the order of the sequence, rather than a step id to type."""
    state = RULESET.at_version(run_until(battle_start(), at_step("5-7A2")), "5.2")
    (choice,) = [c for c in FACE.choices(state, "coalition") if c.order == "back"]
    (param,) = choice.params
    combat = [s.id for s in sequence().main if s.phase == "5"]
    taken = [i for i in combat if not RULESET.validate(state, "coalition", Back(i))]
    assert param.options == tuple(taken)
    assert "5-3X4" in taken and "5-1A" in taken and "5-7A2" not in taken and "5-8A" not in taken


def test_a_game_keeps_its_version_in_its_state_from_5_2_only() -> None:
    """The state of a game of 5.1 or before is the one those versions made (its hashes stay
    as recorded); from 5.2 on it names the version its rules are played at."""
    state = start()
    assert RULESET.at_version(state, "5.1") is state and state.version == ""
    assert RULESET.at_version(state, "5.0") is state
    assert RULESET.at_version(state, "5.2").version == "5.2"
    assert RULESET.at_version(state, "5.10").plays_at_least("5.2")
    assert not RULESET.at_version(state, "5.2").plays_at_least("5.10")


def _play_game(options: dict[str, Any], events: list[Event]) -> tuple[FeState, list[str]]:
    state = start(options)
    keys: list[str] = []
    while not state.over:
        keys.append(owed(state).key)
        state = step_once(state, events)
    return state, keys


def test_whole_scenario_ends_after_turn_6_with_unique_keys() -> None:
    events: list[Event] = []
    state, keys = _play_game({}, events)
    assert state.over
    assert RULESET.pending(state) == []
    assert RULESET.validate(state, "coalition", Done())
    assert len(keys) == len(set(keys))
    starts = [e.text for e in events if e.kind == "player-turn"]
    assert starts[0] == "Turn 1, Fall Y168: alliance player turn begins"
    assert starts[1] == "Turn 2, Spring Y169: coalition player turn begins"
    assert starts[-1] == "Turn 6, Spring Y171: alliance player turn begins"
    assert events[-1].kind == "over"
    assert not [e for e in events if e.kind == "orion"]
    summary = RULESET.summary(state)
    assert summary["over"] is True
    assert summary["step"] is None
    assert summary["turn"] == {"number": 6, "year": 171, "season": "Spring"}
    assert {i.status for i in RULESET.checklist(state)} == {"done", "skipped"}


def test_orion_phase_runs_after_both_player_turns() -> None:
    state = start({"orion": True})
    state = run_until(state, lambda s: s.orion)
    summary = RULESET.summary(state)
    assert summary["phasing"] is None
    assert summary["step"] == "11A"
    assert summary["turn"]["number"] == 1
    assert owed(state).key == "T1/orion/11A/1"
    assert owed(state).seats == ("coalition",)
    state = run_until(state, at_step("11D"))
    assert owed(state).seats == ("coalition",)
    state = step_once(state)
    assert owed(state).seats == ("alliance",)
    state = run_until(state, lambda s: not s.orion)
    assert RULESET.summary(state)["turn"]["number"] == 2
    assert RULESET.summary(state)["phasing"] == "coalition"
    items = RULESET.checklist(state)
    assert items[-1].step == "11H"


def test_checklist_statuses() -> None:
    state = run_until(start(), at_step("1C4"))
    items = RULESET.checklist(state)
    assert len(items) == len(RULESET.checklist(start())) == 189
    status = {item.step: item.status for item in items}
    assert status["1C3"] == "done"
    assert status["1C4"] == "current"
    assert status["1C5"] == "todo"
    during_setup = RULESET.checklist(fresh())
    assert [i.step for i in during_setup][:5] == ["0-LYR", "0-KZI", "0-KLI", "0-FED", "0-HYD"]
    assert [i.status for i in during_setup][:3] == ["current", "todo", "todo"]
    assert len(during_setup) == 189 + 5
    assert status["5-8H"] == "skipped"
    assert "11A" not in status
    orion_items = RULESET.checklist(start({"orion": True}))
    assert [i.step for i in orion_items][-9:][0] == "11A"


def test_summary_is_json_safe() -> None:
    state = run_until(battle_start(), at_step("5-3X2"))
    summary = RULESET.summary(state)
    assert json.loads(json.dumps(summary)) == summary
    assert summary["turn"] == {"number": 1, "year": 168, "season": "Fall"}
    assert summary["phasing"] == "coalition"
    assert summary["step"] == "5-3X2"
    assert summary["phase"] == "5"
    assert summary["waiting_for"] == ["coalition", "alliance"]
    assert summary["over"] is False


def _no_floats(value: object) -> bool:
    if isinstance(value, float):
        return False
    if isinstance(value, dict):
        return all(_no_floats(k) and _no_floats(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return all(_no_floats(v) for v in value)
    return True


def test_determinism_and_bounded_state() -> None:
    first: list[Event] = []
    second: list[Event] = []
    end_a, keys_a = _play_game({"orion": True}, first)
    end_b, keys_b = _play_game({"orion": True}, second)
    assert keys_a == keys_b
    assert msgspec.msgpack.encode(first) == msgspec.msgpack.encode(second)
    encoder = msgspec.msgpack.Encoder(order="deterministic")
    assert encoder.encode(end_a) == encoder.encode(end_b)
    assert _no_floats(msgspec.to_builtins(end_a))
    assert not (end_a.moved or end_a.batch or end_a.reacted)  # per-phase bookkeeping is cleared
    assert len(encoder.encode(end_a)) < 40_000  # the board; notes and histories are in events
    decoded = msgspec.msgpack.decode(encoder.encode(end_a), type=RULESET.state_type)
    assert decoded == end_a
