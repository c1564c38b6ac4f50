"""The steps a ``done`` can leave a seat at, still its own (`engine.core.through.own_stops`,
the face's `engine.core.face.PlayOn`): the app's ``D`` lists only these, so each must be
what the promise says. Every stop is reached by the ``done`` it names (a plain one for the
first, through the stop before it for the others), and there the seat is the one to act."""

from __future__ import annotations

from engine.core.face import own_stops_of
from engine.core.ruleset import DecisionKind
from engine.core.turn_orders import Done, Standing
from engine.fe import FE, RULESET
from engine.fe.face import FACE
from engine.fe.model import FeState
from tests.engine.fe.helpers import first_states, play, run_until, start
from tests.engine.fe.test_standing import alliance_owes


def reached(state: FeState, seat: str, stops: list[str]) -> None:
    """Each stop of ``stops`` is where its ``done`` leaves ``seat``, still the one to act."""
    for n, stop in enumerate(stops):
        order = Done() if n == 0 else Done(through=stops[n - 1])
        assert not RULESET.validate(state, seat, order), (stop, order)
        after = RULESET.apply(state, seat, order).state
        (owed, *_) = RULESET.pending(after)
        assert (owed.step, owed.seats[0]) == (stop, seat), (stops, n)


def test_the_coalition_may_play_on_to_each_step_before_the_alliance_answers() -> None:
    state = start()
    stops = FACE.own_stops(state, "coalition")
    run = FE.own_run(state, "coalition")
    # The run's steps after the first, and 2B11, the coalition's part of a step both answer.
    assert stops == run[1:] and stops[-1] == "2B11" and "1A2" not in stops
    assert own_stops_of(FACE, state, "coalition") == tuple(stops)
    reached(state, "coalition", stops)
    assert FACE.own_stops(state, "alliance") == []  # it owes nothing


def test_a_standing_order_of_the_other_seat_lets_the_run_go_on() -> None:
    """With the alliance's standing order covering 3A-2C, the coalition plays on past it."""
    state = start()
    with_standing = play(run_until(state, alliance_owes), "alliance", Standing(["2", "3A"]))
    stops = FACE.own_stops(with_standing, "coalition")
    assert "3A-2C" not in stops and "3A-2E" in stops
    reached(with_standing, "coalition", stops)


def test_every_stop_is_reached_along_a_plain_game() -> None:
    """Through set-up, the first turn's steps and its battles (the plainest answers): for
    every seat owing an orders step, each stop is reached by its ``done``."""
    checked = 0
    for state in first_states(400)[::7]:
        (owed, *_) = RULESET.pending(state)
        if owed.kind != DecisionKind.ORDERS:
            continue
        seat = owed.seats[0]
        stops = FACE.own_stops(state, seat)
        reached(state, seat, stops)
        checked += len(stops)
        other = next(s for s in ("coalition", "alliance") if s != seat)
        assert FACE.own_stops(state, other) == [] or other in owed.seats
    assert checked > 100, checked
