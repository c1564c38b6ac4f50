"""Provinces and grids through the sequence of play: 1A3B counts long-term capture, 1C3 keeps
a partial grid's EP in the grid (413.44) and brings them home when it reconnects."""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from engine.core.ruleset import Event
from engine.fe.galaxy import load_galaxy
from engine.fe.model import FeState
from engine.fe.steps.economy import income_of
from tests.engine.fe.helpers import at_step, run_until
from tests.engine.fe.steps.tutorial_states import after_setup, placed, texts

KZI_PLANET = 1504  # a Kzinti minor planet (3 EP) in province KZI-10


def at(step_id: str, player_turn: int, turn: int = 1) -> Callable[[FeState], bool]:
    step = at_step(step_id)
    return lambda s: s.turn == turn and s.player_turn == player_turn and step(s)


def test_a_blockaded_planet_keeps_its_ep_until_it_reconnects() -> None:
    # A Klingon ship at the planet: the planet is a grid by itself (413.x), and its
    # province KZI-10 is disrupted (430.22).
    state = placed(after_setup(), {"KLI-0006": KZI_PLANET})
    events: list[Event] = []
    # the scripts' F5 retreats from the planet's battle (302.741); it comes back by hand
    state = placed(run_until(state, at("6B", player_turn=0), events), {"KLI-0006": KZI_PLANET})
    state = run_until(state, at("1C4", player_turn=1), events)
    (text,) = [t for t in texts(events, "income") if t.startswith("KZI")]
    assert "1 provinces disrupted 0" in text
    assert text.endswith("; the grid at 1504 keeps 3 (413.44)")
    earned = next(e for e in events if e.kind == "income" and e.data["empire"] == "KZI")
    assert state.grid_ep == (("KZI", KZI_PLANET, 6),)
    assert state.ep2("KZI") == earned.data["ep2"] - 6  # the treasury got all but the 3 EP
    # the Klingon ship leaves: at the next Kzinti Phase 1C the 3 EP come home
    state = placed(state, {"KLI-0006": 1607})
    treasury = state.ep2("KZI")
    events = []
    state = run_until(state, at("1C4", player_turn=1, turn=2), events)
    (text,) = [t for t in texts(events, "income") if t.startswith("KZI")]
    assert text.endswith("; 3 come in from reconnected grids (413.44)")
    assert state.grid_ep == ()
    assert state.ep2("KZI") == treasury + income_of(state, "KZI").total2 + 6


def test_a_province_held_long_enough_pays_its_captor() -> None:
    province = load_galaxy().province("KZI-10")
    state = after_setup()  # the coalition's Phase 1 of turn 1 has begun
    owners = tuple((h, "KLI") for h in province.hexes)
    state = msgspec.structs.replace(state, owners=owners, last_turn=3)  # a third turn to see
    events: list[Event] = []
    state = run_until(state, at("1C4", player_turn=0, turn=2), events)
    # one count at the Klingons' Phase 1 of turn 2 (turn 1's began before the capture)
    assert texts(events, "held") == [
        "KLI holds captured provinces, turns toward long-term capture: KZI-10 1/2 (438.1)"
    ]
    assert state.held == (("KZI-10", "KLI", 1),)
    assert "KZI-10" not in income_of(state, "KLI").paying_provinces
    before = [e.data["ep2"] for e in events if e.kind == "income" and e.data["empire"] == "KLI"]
    events = []
    state = run_until(state, at("1C4", player_turn=0, turn=3), events)
    assert state.held == (("KZI-10", "KLI", 2),)
    assert "KZI-10" in income_of(state, "KLI").paying_provinces
    after = [e.data["ep2"] for e in events if e.kind == "income" and e.data["empire"] == "KLI"]
    assert after[0] - before[-1] == 4  # the province's 2 EP, now the captor's
