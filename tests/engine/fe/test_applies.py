"""Steps that cannot apply pass by themselves (105.0, `engine.fe.applies`); standing orders
leave a player's own builds to it; ``done`` through the end stops where the other side
decides."""

from __future__ import annotations

import importlib
import random

import msgspec
import pytest

from engine.core.errors import NotPending
from engine.core.ruleset import Event
from engine.core.turn_orders import Done, Standing
from engine.fe import FE, applies, board_views, steps
from engine.fe.forces import Unit
from engine.fe.model import FeState
from engine.fe.orders import MoveOrder
from engine.fe.sequence import load_sequence
from engine.fe.steps import base
from tests.engine.fe.helpers import battle_start, owed, play, run_until, start
from tests.engine.fe.steps.tutorial_states import after_setup, placed, run_to
from tests.engine.fe.test_play import PACKETS_WITHOUT_BATTLE

THOLIAN = Unit("THO-0001", "THO", "PC", 1105)
"""A Tholian patrol corvette: with it on the board, the Tholians are in the game."""
KLINGON_TUG = Unit("KLI-T001", "KLI", "TGB", 1307)


def _passed(events: list[Event]) -> dict[str, str]:
    return {e.step: e.text for e in events if e.kind == "step-passed"}


def _asked_or_passed(state: FeState, step_id: str) -> tuple[bool, list[Event]]:
    """Play on until ``step_id`` is owed (True) or has passed by itself (False)."""
    events: list[Event] = []
    state = run_until(
        state, lambda s: owed(s).step == step_id or step_id in _passed(events), events
    )
    return owed(state).step == step_id, events


def test_every_condition_in_the_sequence_is_in_the_vocabulary() -> None:
    conditions = [c for s in load_sequence().every_step() for c in s.applies]
    assert conditions, "the sequence marks some steps"
    assert [c for c in conditions if applies.problem(c)] == []
    assert "unit kind 'zeppelin'" in applies.problem("unit:zeppelin")
    assert "is not a condition" in applies.problem("tholians")
    assert "is not a condition" in applies.problem("empire:THO|")


def test_a_tholian_step_passes_without_tholians() -> None:
    asked, events = _asked_or_passed(battle_start(), "5-3F1")
    assert not asked
    assert _passed(events)["5-3F1"] == (
        "5-3F1 Tholians declare how many pinwheels they form: does not apply (no THO in the game)"
    )
    assert {"5-3F2", "5-3F3", "5-3F4"} <= set(_passed(events))


def test_a_tholian_step_is_asked_with_tholians() -> None:
    state = battle_start()
    state = state.with_board(state.board.with_units([THOLIAN]))
    asked, events = _asked_or_passed(state, "5-3F1")
    assert asked and "5-3F1" not in _passed(events)


def test_tug_missions_pass_without_tugs_and_are_asked_with_one() -> None:
    # The tutorial's Klingons have no tug (509.32).
    asked, events = _asked_or_passed(after_setup(), "1F")
    assert not asked
    assert _passed(events)["1F"].endswith("does not apply (no tug among the units of KLI)")
    with_tug = placed(after_setup(), {}, KLINGON_TUG)
    asked, _ = _asked_or_passed(with_tug, "1F")
    assert asked


def test_a_step_for_another_seats_empire_passes_for_this_one() -> None:
    state = start()  # the coalition (LYR, KLI) is phasing
    swarm, fighters = load_sequence().steps["2B8"], load_sequence().steps["2B9"]
    assert applies.unmet(state, swarm, "plays:KLI") == ""
    assert applies.unmet(state, fighters, "plays:FED") == "coalition does not play FED"
    alliance_turn = msgspec.structs.replace(state, player_turn=1)
    assert applies.unmet(alliance_turn, swarm, "plays:KLI") == "alliance does not play KLI"
    assert applies.unmet(alliance_turn, swarm, "plays:KLI|plays:KZI") == ""


def test_an_option_condition_reads_the_games_options() -> None:
    step = load_sequence().steps["11A"]
    assert applies.unmet(start(), step, "option:orion") == "option orion is off"
    assert applies.unmet(start({"orion": True}), step, "option:orion") == ""


# --- standing orders ------------------------------------------------------------------------


def test_a_standing_order_for_phase_2_leaves_the_owners_builds_to_it() -> None:
    events: list[Event] = []
    state = play(start(), "coalition", Standing(["2"]), events)
    assert "coalition still decides 2A2, 2B3, 2B4, 2B7 itself" in events[-1].text
    state = play(state, "coalition", Done(through="1H"), events)
    assert owed(state).step == "2B3" and owed(state).seats == ("coalition",)
    assert state.ep2("KLI") > 0, "income came in at 1C3: the Klingons could build (431.0)"
    standing = [e.step for e in events if e.data.get("standing")]
    assert standing[:3] == ["2A3", "2A4", "2B1"] and "2B3" not in standing


def test_a_standing_order_naming_the_build_step_passes_it() -> None:
    events: list[Event] = []
    state = play(start(), "coalition", Standing(["2", "2B3"]), events)
    assert "still decides 2A2, 2B4, 2B7" in events[-1].text
    state = play(state, "coalition", Done(through="1H"), events)
    assert "2B3" in [e.step for e in events if e.data.get("standing")]
    assert owed(state).step not in ("2B3",)


def test_the_checklist_shows_which_steps_a_standing_order_covers() -> None:
    state = play(start(), "coalition", Standing(["2"]))
    rows = {row.step: row for row in FE.checklist(state)}
    assert rows["2A3"].standing == ("coalition",)
    assert rows["2B3"].standing == ()
    assert rows["1A1"].standing == ()


# --- done through the end -------------------------------------------------------------------


def _at_movement() -> FeState:
    """The tutorial at the coalition's 3B2, the Kzinti Border Guard one hex from the Klingon
    Strike Force's path (it may react to a move into 1306, 205.0)."""
    guard = {f"KZI-000{n}": 1305 for n in range(1, 6)}
    return run_to(placed(after_setup(), guard), "3B2")


def test_done_through_the_end_stops_at_the_reaction_window_and_says_why() -> None:
    state = _at_movement()
    strike = ["KLI-0001", "KLI-0002", "KLI-0003", "KLI-0004"]
    state = play(state, "coalition", MoveOrder(units=strike, path=["1307", "1306"]))
    events: list[Event] = []
    state = play(state, "coalition", Done(through="end"), events)
    assert owed(state).step == "3B3" and owed(state).seats == ("alliance",)
    (stop,) = [e for e in events if e.kind == "through-stopped"]
    assert stop.text == (
        "coalition's done through the end stopped at 3B3 (Reaction movement): it is alliance's"
    )
    assert stop.data == {"through": "end", "stopped": "3B3", "reason": "it is alliance's"}


def test_done_through_the_end_is_refused_when_the_step_is_not_yours() -> None:
    state = play(_at_movement(), "coalition", MoveOrder(units=["KLI-0001"], path=["1307", "1306"]))
    state = play(state, "coalition", Done(through="end"))
    (problem,) = FE.validate(state, "coalition", Done(through="end"))
    assert problem.message == "it is alliance's step 3B3 (Reaction movement), not coalition's"


def test_done_through_a_step_past_the_other_sides_decision_is_refused_but_end_stops() -> None:
    state = play(_at_movement(), "coalition", MoveOrder(units=["KLI-0001"], path=["1307", "1306"]))
    (problem,) = FE.validate(state, "coalition", Done(through="10D"))
    assert problem.message == (
        "cannot complete through 10D: step 3B3 (Reaction movement) is alliance's"
    )
    assert FE.validate(state, "coalition", Done(through="end")) == []


def test_a_quiet_player_turn_walked_with_done_through_the_end() -> None:
    state = start()
    packets = 0
    stops: list[Event] = []
    while state.player_turn == 0:
        seat = owed(state).seats[0]
        events: list[Event] = []
        state = play(state, seat, Done(through="end"), events)
        packets += 1
        (stop,) = [e for e in events if e.kind == "through-stopped"]
        stops.append(stop)
    assert packets <= PACKETS_WITHOUT_BATTLE
    assert stops[0].data["stopped"] == "2B11" and stops[0].data["reason"] == (
        "it needs alliance too"
    )
    assert "stopped" not in stops[-1].data, "the last one ran to the end of the player turn"


def test_the_remembered_unit_kinds_match_a_unit_by_unit_reading() -> None:
    """`applies.has_kind` answers per units tuple: after random changes to the board (a
    repair ship added, moved, removed by replacing the units), every empire's answer for
    every kind is the one a fresh reading of its units gives."""
    rng = random.Random(16)
    state = battle_start()
    repair = [Unit(f"KLI-R{n:03d}", "KLI", "REPR", 1307) for n in range(1, 4)]
    seen: set[bool] = set()
    for round_ in range(30):
        pick = rng.choice(repair)
        if round_ % 3 == 2:  # take every repair ship off again: the board without them
            kept = tuple(u for u in state.board.units if not u.id.startswith("KLI-R"))
            state = state.with_board(msgspec.structs.replace(state.board, units=kept))
        else:
            state = state.with_units([msgspec.structs.replace(pick, hex=rng.choice([1307, 1408]))])
        for forces in state.forces:
            for kind, test in applies.UNIT_KINDS.items():
                fresh = any(test(unit) for unit in forces.units)
                assert applies.has_kind(forces.units, kind) is fresh, (round_, forces.empire, kind)
            if forces.empire == "KLI":
                seen.add(applies.has_kind(forces.units, "repair-ship"))
    assert seen == {True, False}, "the Klingons had a repair ship at times, none at others"


def test_the_remembered_class_readings_match_a_unit_by_unit_reading() -> None:
    """`applies._classes_have` answers per set of classes, which a move carries over as the
    same object: asked directly of each empire's class set, and through `has_kind`, after a
    repair ship is moved, crippled or taken off, every empire's answer for every kind is the
    one a fresh reading of its units gives."""
    rng = random.Random(160)
    state = battle_start()
    ship = Unit("KLI-R001", "KLI", "REPR", 1307)
    for round_ in range(24):
        choice = round_ % 4
        if choice == 3:  # off the board again
            kept = tuple(u for u in state.board.units if u.id != ship.id)
            state = state.with_board(msgspec.structs.replace(state.board, units=kept))
        else:
            moved = msgspec.structs.replace(
                ship, hex=rng.choice([1307, 1408]), crippled=choice == 2
            )
            state = state.with_units([moved])
        for forces in state.forces:
            for kind, test in applies.UNIT_KINDS.items():
                fresh = any(test(unit) for unit in forces.units)
                classes = board_views.unit_classes(forces.units)
                assert applies._classes_have(classes, kind) is fresh, (round_, forces.empire)
                assert applies.has_kind(forces.units, kind) is fresh, (round_, forces.empire)


def test_the_remembered_empires_of_seats_match_the_scenario() -> None:
    """`applies._empires_of_seats` gives, for any list of seats, the empires the scenario
    gives them (`steps.base.empires_of`), and refuses an unknown scenario by name."""
    state = start()
    for seats in [(), state.seats, state.seats[:1], state.seats[1:], state.seats[::-1]]:
        fresh = {e for seat in seats for e in base.empires_of(state, seat)}
        assert applies._empires_of_seats(state.scenario, seats) == fresh
    with pytest.raises(NotPending, match="unknown scenario 'nowhere'"):
        applies._empires_of_seats("nowhere", state.seats)


def test_an_area_is_found_once_and_an_unknown_one_is_refused() -> None:
    """`steps.area` keeps each area once found: the same object its module plays, for every
    name; a name the sequence does not know raises and is not kept."""
    for name, module in steps._MODULES.items():
        found = steps.area(name)
        assert found is importlib.import_module(f"engine.fe.steps.{module}").AREA
        assert found.name == name and steps.area(name) is found
    with pytest.raises(KeyError):
        steps.area("no-such-area")
