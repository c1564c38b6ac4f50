"""Standing orders: steps the engine completes for a seat whenever they are owed."""

from __future__ import annotations

from engine.core.ruleset import DecisionKind, Event
from engine.core.turn_orders import Done, Standing
from engine.fe import FE as RULESET
from tests.engine.fe.helpers import (
    at_step,
    battle_start,
    owed,
    play,
    run_until,
    start,
    step_once,
)


def alliance_owes(state) -> bool:  # type: ignore[no-untyped-def]
    return owed(state).seats == ("alliance",)


def seat_changes(state, limit: int = 5000) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    """(seat changes, decisions) over the rest of the current player turn."""
    changes = 0
    last = owed(state).seats[0]
    turn = RULESET.summary(state)["phasing"]
    for decisions in range(limit):
        if RULESET.summary(state)["phasing"] != turn or state.over:
            return changes, decisions
        decision = owed(state)
        if decision.seats[0] != last:
            changes += 1
            last = decision.seats[0]
        state = step_once(state)
    raise AssertionError("the player turn did not end")


def test_standing_order_completes_the_named_steps_for_their_owner() -> None:
    state = run_until(battle_start(), at_step("2B11"))
    assert owed(state).seats == ("coalition",)
    events: list[Event] = []
    # 2B11 is a "both" step: coalition answers first, then alliance's part is automatic.
    state = play(state, "coalition", Done())
    assert owed(state).seats == ("alliance",) and owed(state).step == "2B11"
    state = play(state, "alliance", Standing(["2B11", "4", "5-1A"]), events)
    assert owed(state).seats == ("coalition",), "alliance's part of 2B11 was completed for it"
    assert any(e.kind == "standing" for e in events)
    auto = [e for e in events if e.data.get("standing")]
    assert [e.step for e in auto] == ["2B11"] and "(standing order)" in auto[0].text
    # 5-1A is the defender's in the battle of 0701 (302.1); 5-2A3 is its too, not covered.
    state = run_until(state, lambda s: owed(s).step in ("4A", "4B", "5-1A", "5-2A3"), events)
    assert owed(state).step == "5-2A3", "4A, 4B and 5-1A were completed for alliance"
    assert [e.step for e in events if e.data.get("standing")][-1] == "5-1A"


def test_standing_order_never_covers_secret_steps() -> None:
    state = battle_start()
    assert RULESET.validate(state, "coalition", Standing(["5-3C"]))
    assert not RULESET.validate(state, "coalition", Standing(["5-3"]))
    state = play(state, "coalition", Standing(["5"]))
    state = run_until(state, lambda s: owed(s).step.startswith("5-") or s.over)
    state = run_until(state, lambda s: owed(s).kind == DecisionKind.SECRET)
    assert owed(state).step == "5-3C"


def test_unknown_step_is_refused_and_empty_list_cancels() -> None:
    state = start()
    (violation,) = RULESET.validate(state, "coalition", Standing(["9Z"]))
    assert "9Z" in violation.message
    # Names are matched as written: one typed in other capitals is named as it is written.
    for typed, written in (("2b11", "2B11"), ("Manual", "manual")):
        (violation,) = RULESET.validate(state, "coalition", Standing([typed]))
        assert violation.message == (
            f"standing order: no step, heading or phase {typed!r}; its id is written {written!r}"
        )
    state = play(state, "coalition", Standing(["1A3"]))
    assert state.standing_for("coalition")
    state = play(state, "coalition", Standing([]))
    assert state.standing_for("coalition") == ()


def test_standing_orders_cut_the_round_trips_of_a_player_turn() -> None:
    plain = seat_changes(start())
    state = start()
    # The alliance, not phasing, lets the engine answer its routine steps except reaction
    # movement (3B3), reserve movement (4) and the retreat options.
    routine = ["1", "2", "3A", "5-1A", "5-1C", "5-1D", "5-1E", "5-2A3", "5-6", "6", "10"]
    state = run_until(state, alliance_owes)
    state = play(state, "alliance", Standing(routine))
    fewer = seat_changes(state)
    assert fewer[0] < plain[0], (plain, fewer)


def test_manual_leaves_the_other_seat_only_its_decisions() -> None:
    """With ``manual`` the alliance, not phasing, is asked only where it decides (its
    reaction, reserve and combat windows, none of which opens in this turn): the coalition
    plays its whole turn without waiting for it."""
    plain = seat_changes(start())
    state = run_until(start(), alliance_owes)
    routine = ["1", "2", "3A", "5-1A", "5-1C", "5-1D", "5-1E", "5-2A3", "5-6", "6", "10"]
    picked = seat_changes(play(state, "alliance", Standing(routine)))
    events: list[Event] = []
    state = play(state, "alliance", Standing(["manual"]), events)
    (said,) = [e for e in events if e.kind == "standing"]
    assert "alliance's part of manual (138 steps" in said.text
    manual = seat_changes(state)
    # (measured: 22 seat changes with nothing signed, 2 with the routine, none with manual)
    assert manual[0] == 0 < picked[0] < plain[0], (plain, picked, manual)


def test_done_through_passes_steps_the_other_seats_standing_order_covers() -> None:
    state = run_until(start(), alliance_owes)  # alliance's part of 2B11
    state = play(state, "alliance", Standing(["2", "3A-2"]))
    # 3A-2C is alliance's: without the standing order coalition would stop there.
    assert owed(state).step == "3A-1A"
    assert not RULESET.validate(state, "coalition", Done(through="3A-2D"))
    state = play(state, "coalition", Done(through="3A-2D", note="quiet turn"))
    assert owed(state).step == "3A-2E"


def test_own_run_lists_the_steps_a_seat_can_complete_in_a_row() -> None:
    from engine.fe import FE

    state = start()
    run = FE.own_run(state, "coalition")
    assert run[:2] == ["1A1", "1A3A"] and run[-1] == "2B11" and "1C3" not in run
    assert FE.own_run(state, "coalition", "1A3A") == ["1A1"]
    assert FE.own_run(state, "alliance") == []
    with_standing = play(run_until(state, alliance_owes), "alliance", Standing(["2", "3A"]))
    run = FE.own_run(with_standing, "coalition")
    assert "3A-2C" not in run and "3A-2E" in run, "alliance's 3A-2C is completed for it"


def test_manual_covers_the_decisions_that_take_only_adjustments_and_no_other() -> None:
    """5-3B and 5-8G take only typed adjustments (the battle force and groups are chosen at
    the secret steps after 5-3B): ``manual`` covers them with the manual steps; every other
    decision (a withdrawal, a retreat, a reaction, builds) stays the seat's."""
    from engine.core.ruleset import StepKind
    from engine.fe.flow import TURNS

    ids, problem = TURNS.expand_standing(["manual"])
    kinds = {s.id: s.kind for s in TURNS.host.sequence().every_step()}
    decisions = [i for i in ids if kinds[i] == StepKind.DECISION]
    assert problem == "" and decisions == ["5-3B", "5-8G"]
    assert len(ids) == 138 and all(kinds[i] in (StepKind.MANUAL, StepKind.DECISION) for i in ids)
