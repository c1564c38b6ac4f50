"""Economic state (C, rules notes; war entry 601.0): who is on which economy, when the
Federation's limited-war condition fires, and what each collects at 1C3."""

from __future__ import annotations

import msgspec

from engine.core.ruleset import Event, OptionValue
from engine.fe import FE
from engine.fe.economics import income
from engine.fe.forces import Board
from engine.fe.galaxy import load_galaxy
from engine.fe.model import FeState
from engine.fe.oob import EmpireSetup
from engine.fe.sequence import load_sequence
from engine.fe.steps.economy import (
    AREA,
    economy_of,
    enter_war_economies,
    given_income2,
    war_entries,
)

STEP = load_sequence().steps["1C3"]


def _wind(player_turn: int = 1, options: dict[str, OptionValue] | None = None) -> FeState:
    """The Wind's starting board, its set-up over, in the given player turn (1: Alliance)."""
    state = FE.initial_state("the-wind", ["coalition", "alliance"], options or {})
    return msgspec.structs.replace(state, setup=False, player_turn=player_turn)


def _put(state: FeState, unit_id: str, h: int) -> FeState:
    unit = msgspec.structs.replace(state.board.unit(unit_id), hex=h)
    return state.with_board(state.board.with_units([unit]))


def _collect(state: FeState) -> tuple[FeState, list[Event]]:
    events: list[Event] = []
    return AREA.automatic(state, STEP, events), events


def test_the_scenario_says_who_is_on_which_economy() -> None:
    state = _wind()
    assert {e: economy_of(state, e) for e in ("LYR", "KZI", "KLI", "FED", "HYD")} == {
        "LYR": "war", "KZI": "war", "KLI": "war", "FED": "peace", "HYD": "peace",
    }  # fmt: skip
    at_war = msgspec.structs.replace(state, at_war=(("HYD", "KLI"),))
    assert economy_of(at_war, "HYD") == "war"  # until at war, then on a war economy


def test_a_peaceful_federation_collects_half_its_income() -> None:
    state, events = _collect(_wind())
    # 221 EP by the chart (753.0), 50% on a peace economy: 110.5 EP
    assert state.ep2("FED") == _wind().ep2("FED") + 221
    assert [e.kind for e in events] == ["income", "income", "income"]
    fed = next(e for e in events if e.data["empire"] == "FED")
    assert "economy share 50% 110.5" in fed.text and fed.data["ep2"] == 221
    kzi = next(e for e in events if e.data["empire"] == "KZI")
    assert kzi.data["ep2"] == 2 * 93  # at war: all of it


def test_the_share_is_an_option() -> None:
    state, _ = _collect(_wind(options={"economy-fractions": "off"}))
    assert state.ep2("FED") == _wind().ep2("FED") + 2 * 221
    state, _ = _collect(_wind(options={"peace-income-permille": 600}))
    assert state.ep2("FED") == _wind().ep2("FED") + 265  # 132.6 EP, rounded down to 132.5


def test_nothing_invades_kzinti_space_on_the_starting_board() -> None:
    assert war_entries(_wind()) == []


def test_a_coalition_ship_in_kzinti_space_puts_the_federation_on_limited_war() -> None:
    invaded = _put(_wind(), "LYR-0001", 1401)
    assert war_entries(invaded) == [("FED", "limited-war", "LYR entered KZI space at 1401")]
    state, events = _collect(invaded)
    assert state.economies == (("FED", "limited-war"),)
    assert economy_of(state, "FED") == "limited-war"
    first = events[0]
    assert (first.kind, first.seat, first.step) == ("economy", "alliance", "1C3")
    assert first.text == (
        "FED goes on a limited-war economy (LYR entered KZI space at 1401; war entry, 601.0)"
    )
    # 221 EP x 75% = 165.75, rounded down to the half EP: 165.5
    assert state.ep2("FED") == _wind().ep2("FED") + 331
    assert economy_of(state, "HYD") == "peace"  # the Hydrans have no such condition


def test_the_change_lasts_after_the_invader_leaves_and_fires_once() -> None:
    state, _ = _collect(_put(_wind(), "KLI-0001", 1401))
    left = _put(state, "KLI-0001", 1411)
    assert economy_of(left, "FED") == "limited-war"
    events: list[Event] = []
    assert enter_war_economies(left, "1C3", events) is left and events == []
    again = _put(state, "KLI-0001", 1401)
    assert war_entries(again) == []  # already on limited war: nothing new


def test_only_the_federations_future_belligerents_invade() -> None:
    assert war_entries(_put(_wind(), "HYD-0002", 1401)) == []  # an ally is no invader
    assert war_entries(_put(_wind(), "KZI-0001", 1401)) == []


def test_the_check_runs_in_the_coalition_player_turn_too() -> None:
    state, events = _collect(_put(_wind(player_turn=0), "LYR-0001", 1401))
    assert economy_of(state, "FED") == "limited-war"
    assert [e.kind for e in events] == ["economy", "income", "income"]
    assert all(e.data["empire"] != "FED" for e in events[1:])  # FED collects in its own turn


def test_a_scenario_given_income_pays_the_chart_figure_on_top_of_the_map() -> None:
    """753.0: the Tholians' 22 EP; their province and capital pay 7, the scenario the rest."""
    tholians = EmpireSetup("THO", income_ep=22)
    assert given_income2(tholians) == 2 * (22 - 7)
    assert given_income2(EmpireSetup("THO")) == 0
    galaxy = load_galaxy()
    start = income(galaxy, Board(), "THO", given2=given_income2(tholians))
    assert (start.gross2, start.given2) == (44, 30)
    assert ("given by the scenario", "15") in start.lines()
    # losing the capital's planet (devastated, 508.2x) costs its 5 EP, not the given 15
    hurt = income(galaxy, Board(), "THO", given2=30, devastated=[2919])
    assert hurt.total2 == 2 * (22 - 5)
