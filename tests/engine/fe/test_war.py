"""War declared by a player in step 1B (503.4) and the neutral zone's entry rule (503.6).

The Wind's data: future belligerents LYR: FED, GOR, HYD, KZI; KZI: KLI, LYR, ROM; HYD: KLI,
LYR, ROM. The script has KLI and KZI declare war on each other on turn 2 (KLI releases its
Northern Fleet, Northern Reserve and Tholian Border Squadron, KZI its Baron's Fleet), and on
turn 3 the Hydrans declare war on KLI and LYR (Home, Expeditionary, First and Second Fleets),
LYR on HYD (Enemy's Blood Fleet). Neutral-zone hex 1005 lies between KLI, KZI and the Wyn;
1106 between KLI and KZI.
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from engine.core.ruleset import Event
from engine.fe import RULESET, flow
from engine.fe.galaxy import load_galaxy
from engine.fe.model import FeState
from engine.fe.neutral import entry_problem, flanking
from engine.fe.orders import DeclareWar, MoveOrder
from engine.fe.scenario import find_scenario
from engine.fe.steps.economy import economy_of
from engine.fe.steps.setup_stage import starting_board
from tests.engine.fe.helpers import play, run_until, start


def current(state: FeState) -> str:
    step = flow.current(state)
    return step.id if step is not None else ""


def at(turn: int, player_turn: int, step: str) -> Callable[[FeState], bool]:
    def check(state: FeState) -> bool:
        return state.turn == turn and state.player_turn == player_turn and current(state) == step

    return check


def refusals(state: FeState, seat: str, order: DeclareWar | MoveOrder) -> list[tuple[str, str]]:
    return [(v.rule, v.message) for v in RULESET.validate(state, seat, order)]


def released(events: list[Event]) -> list[tuple[str, str]]:
    return [(e.data["empire"], e.data["fleet"]) for e in events if e.kind == "release"]


# --- declaring war ------------------------------------------------------------------------------


def test_lyrans_declare_war_on_the_hydrans_on_turn_1_and_both_sides_release_their_fleets() -> None:
    state = run_until(start(), at(1, 0, "1B"))
    assert economy_of(state, "HYD") == "peace"
    events: list[Event] = []
    state = play(state, "coalition", DeclareWar(enemy="HYD", empire="LYR"), events)
    assert ("HYD", "LYR") in state.at_war
    (war,) = [e for e in events if e.kind == "war"]
    assert war.text == "LYR declares war on HYD (503.4)" and war.data["turn"] == 1
    assert released(events) == [
        ("LYR", "Enemy's Blood Fleet"),
        ("HYD", "Home Fleet"),
        ("HYD", "Expeditionary Fleet"),
        ("HYD", "First Fleet"),
        ("HYD", "Second Fleet"),
    ]
    assert all(e.data["rule"] == "600.3" for e in events if e.kind == "release")
    assert economy_of(state, "HYD") == "war"
    assert ("LYR", "Enemy's Blood Fleet") in state.released


def test_kzinti_war_on_the_klingons_a_turn_early_releases_the_scripted_and_unnamed_fleets() -> None:
    state = run_until(start(), at(1, 1, "1B"))
    events: list[Event] = []
    state = play(state, "alliance", DeclareWar(enemy="KLI", empire="KZI"), events)
    assert released(events) == [
        ("KZI", "Baron's Fleet"),
        ("KLI", "Northern Fleet"),
        ("KLI", "Northern Reserve"),
        ("KLI", "Tholian Border Squadron"),
        ("KLI", "Imperial War Reserve, Squadron I"),
        ("KLI", "Imperial War Reserve, Squadron II"),
        ("KLI", "Imperial War Reserve, Squadron III"),
    ]
    later: list[Event] = []
    state = run_until(state, at(2, 0, "1B"), later)
    assert not [e for e in later if e.kind == "war"], "the scripted declaration changes nothing"
    assert ("LYR", "Far Stars Fleet") in released(later), "the rest of turn 2's script runs"
    assert not {("KLI", "Northern Fleet"), ("KZI", "Baron's Fleet")} & set(released(later))


def test_war_is_refused_outside_the_future_belligerents_with_the_rule() -> None:
    state = run_until(start(), at(1, 0, "1B"))
    assert refusals(state, "coalition", DeclareWar(enemy="KLI", empire="LYR")) == [
        (
            "503.4",
            "KLI is not one of LYR's future belligerents (FED, GOR, HYD, KZI): "
            "war may be declared only on them",
        )
    ]
    assert refusals(state, "coalition", DeclareWar(enemy="KZI", empire="LYR")) == [
        ("503.4", "LYR is already at war with KZI")
    ]
    assert refusals(state, "coalition", DeclareWar(enemy="GOR", empire="LYR")) == [
        ("503.4", "GOR takes no part in this scenario (its empires are LYR, KLI, KZI, HYD, FED)")
    ]
    assert refusals(state, "coalition", DeclareWar(enemy="HYD")) == [
        ("503.4", "coalition plays LYR, KLI: the order must name its empire")
    ]
    assert refusals(state, "coalition", DeclareWar(enemy="LYR", empire="HYD")) == [
        ("503.4", "HYD is not an empire of coalition (LYR, KLI)")
    ]


def test_war_is_declared_only_in_step_1b() -> None:
    state = run_until(start(), at(1, 0, "2B3"))
    ((rule, message),) = refusals(state, "coalition", DeclareWar(enemy="HYD", empire="LYR"))
    assert rule == "105.0" and message.startswith("a declare order belongs to step 1B")


# --- the neutral zone (503.6) -------------------------------------------------------------------


def test_the_neutral_zone_is_closed_to_empires_at_peace_with_those_it_separates() -> None:
    scenario = find_scenario("the-wind")
    assert scenario is not None
    galaxy, board = load_galaxy(), starting_board(scenario)
    assert flanking(galaxy, 1106) == ("KLI", "KZI")
    problem = entry_problem(galaxy, board, "KZI", 1106, {})
    assert problem is not None and problem.rule == "503.6"
    assert problem.message == (
        "1106 is in the neutral zone between KLI and KZI; KZI is at war with none of KLI "
        "(option neutral-zone=at-war)"
    )
    at_war = msgspec.structs.replace(board, at_war=(("KLI", "KZI"),))
    assert entry_problem(galaxy, at_war, "KZI", 1106, {}) is None
    assert entry_problem(galaxy, board, "KZI", 1106, {"neutral-zone": "open"}) is None
    assert entry_problem(galaxy, board, "KZI", 1105, {}) is None  # Kzinti space
    annexed = msgspec.structs.replace(board, owners=((1106, "KZI"),))
    assert entry_problem(galaxy, annexed, "KZI", 1106, {}) is None


def test_a_move_into_the_zone_is_refused_until_war_is_declared() -> None:
    state = run_until(start(), at(1, 1, "1B"))
    duke = sorted(u.id for u in state.board.units if u.fleet == "Duke's Fleet" and u.hex == 1003)
    move = MoveOrder(units=duke[:1], path=["1003", "1004", "1005"])
    moving = run_until(state, at(1, 1, "3B2"))
    assert refusals(moving, "alliance", move) == [
        (
            "503.6",
            "1005 is in the neutral zone between KLI, KZI and WYN; KZI is at war with none "
            "of KLI, WYN (option neutral-zone=at-war)",
        )
    ]
    chosen = sorted({**dict(moving.options), "neutral-zone": "open"}.items())
    opened = msgspec.structs.replace(moving, options=tuple(chosen))
    assert refusals(opened, "alliance", move) == []
    state = play(state, "alliance", DeclareWar(enemy="KLI", empire="KZI"))
    assert refusals(run_until(state, at(1, 1, "3B2")), "alliance", move) == []
