"""The movement area played through the real ruleset: the tutorial's Klingon strike.

Set-up (tutorial): the Kzinti Border Guard (KZI-0001 CC, -0002 BC, -0003 CL, -0004/-0005 FF)
in 1305 and the Starbase Squadron (KZI-0006 BC, -0007 SF, held until the Klingons reach
1704) in 1704; the Klingon Strike Force (KLI-0001 D7C, -0002/-0003 D7, -0004 F5S) in 1307
and the Flank Patrol (KLI-0005 D6, -0006 F5) in 1607. The neutral zone is row 6 between them.
"""

from __future__ import annotations

import functools

import msgspec
import pytest

from engine.core.ruleset import Event, Violation
from engine.core.turn_orders import Done
from engine.fe import FE
from engine.fe.forces import Board
from engine.fe.model import FeState
from engine.fe.opening import ApproachOrder
from engine.fe.orders import Batch, MoveOrder, Order, Place, React
from engine.fe.sequence import load_sequence
from engine.fe.steps import reactors, reserves
from engine.fe.steps.movement import AREA

STRIKE_FORCE = ["KLI-0001", "KLI-0002", "KLI-0003", "KLI-0004"]
FLANK_PATROL = ["KLI-0005", "KLI-0006"]
STARBASE_SQUADRON = ["KZI-0006", "KZI-0007"]


def _play(state: FeState, seat: str, order: Order, events: list[Event] | None = None) -> FeState:
    problems = FE.validate(state, seat, order)
    assert not problems, problems
    applied = FE.apply(state, seat, order)
    if events is not None:
        events.extend(applied.events)
    return applied.state


def _refused(state: FeState, seat: str, order: Order) -> list[Violation]:
    problems = FE.validate(state, seat, order)
    assert problems, f"{order} was accepted"
    return problems


def _step(state: FeState) -> str:
    return FE.pending(state)[0].step


def _key(state: FeState) -> str:
    return FE.pending(state)[0].key


def _run_to(state: FeState, step_id: str, events: list[Event] | None = None) -> FeState:
    """Answer ``done`` to every step up to ``step_id`` (at most one player turn)."""
    for _ in range(400):
        decision = FE.pending(state)[0]
        if decision.step == step_id:
            return state
        state = _play(state, decision.seats[0], Done(), events)
    raise AssertionError(f"{step_id} never came up")


@functools.cache
def _at_movement() -> FeState:
    """The tutorial set up, at 3B2 of the coalition's first player turn."""
    state = FE.initial_state("tutorial", ["coalition", "alliance"], {})
    state = _play(state, "alliance", Place(hex="1305", fleet="Border Guard"))
    state = _play(state, "alliance", Place(hex="1704", fleet="Starbase Squadron"))
    state = _play(state, "alliance", Done())
    state = _play(state, "coalition", Place(hex="1307", fleet="Strike Force"))
    state = _play(state, "coalition", Place(hex="1607", fleet="Flank Patrol"))
    state = _play(state, "coalition", Done())
    return _run_to(state, "3B2")


def _move(units: list[str], *path: str) -> MoveOrder:
    return MoveOrder(units=units, path=list(path))


def _react(units: list[str], trigger: str, *path: str) -> React:
    return React(units=units, path=list(path), trigger=trigger)


def _hex(state: FeState, unit_id: str) -> int:
    return state.board.unit(unit_id).hex


def _kinds(events: list[Event]) -> list[str]:
    return [e.kind for e in events]


def _text(events: list[Event], kind: str) -> str:
    (text,) = [e.text for e in events if e.kind == kind]
    return text


# --- 3B2: operational movement -------------------------------------------------------------


def test_the_tutorial_reaches_operational_movement() -> None:
    state = _at_movement()
    assert _step(state) == "3B2"
    assert FE.pending(state)[0].seats == ("coalition",)
    assert state.moved == ()
    assert state.batch == ()


def test_a_move_is_applied_tallied_and_recorded_in_the_batch() -> None:
    state = _at_movement()
    events: list[Event] = []
    state = _play(state, "coalition", _move(STRIKE_FORCE[:2], "1307", "1306", "1206"), events)
    assert _text(events, "move") == "KLI moves D7C KLI-0001, D7 KLI-0002 1307->1206 (2 hexes)"
    assert events[0].data["rule"] == "203.1"
    assert _hex(state, "KLI-0001") == _hex(state, "KLI-0002") == 1206
    assert _hex(state, "KLI-0003") == 1307
    assert state.moved == (("KLI-0001", 2), ("KLI-0002", 2))
    assert state.batch == ((1206, 1206), (1306, 1206), (1307, 1306))
    assert _step(state) == "3B2"
    assert _key(state) == "T1/coalition/3B2/1"


def test_a_move_beyond_the_allowance_names_the_numbers() -> None:
    path = ("1307", "1308", "1309", "1310", "1311", "1312", "1313", "1314")
    problems = _refused(_at_movement(), "coalition", _move(["KLI-0001"], *path))
    assert problems == [Violation("KLI-0001 (D7C): 1307->1314 needs 7 hexes, allowance 6", "203.1")]


def test_hexes_moved_earlier_in_the_phase_count_against_the_allowance() -> None:
    state = _play(
        _at_movement(), "coalition", _move(["KLI-0001"], "1307", "1308", "1309", "1310", "1311")
    )
    problems = _refused(state, "coalition", _move(["KLI-0001"], "1311", "1312", "1313", "1314"))
    assert problems == [
        Violation(
            "KLI-0001 (D7C): 1311->1314 needs 3 hexes, allowance 6 (4 already moved this phase)",
            "203.1",
        )
    ]
    _play(state, "coalition", _move(["KLI-0001"], "1311", "1312", "1313"))


def test_the_other_sides_units_are_refused() -> None:
    problems = _refused(_at_movement(), "coalition", _move(["KZI-0001"], "1305", "1306"))
    assert problems == [Violation("KZI-0001 is a unit of KZI, not of coalition", "105.0")]


def test_an_unreleased_fleet_may_not_move() -> None:
    state = _at_movement()
    held = tuple(r for r in state.released if r != ("KLI", "Flank Patrol"))
    state = msgspec.structs.replace(state, released=held)
    problems = _refused(state, "coalition", _move(FLANK_PATROL, "1607", "1606"))
    assert problems == [
        Violation(
            "fleet Flank Patrol (KLI) is not released (600-series scenario rules): "
            "KLI-0005, KLI-0006",
            "600.3",
        )
    ]


def test_a_neutral_empires_space_is_closed() -> None:
    problems = _refused(
        _at_movement(), "coalition", _move(FLANK_PATROL, "1607", "1707", "1807", "1907", "2007")
    )
    assert problems == [Violation("2007 is FED space and KLI is not at war with FED", "503.0")]


def test_a_path_must_step_to_adjacent_hexes() -> None:
    problems = _refused(_at_movement(), "coalition", _move(["KLI-0001"], "1307", "1305"))
    assert problems == [Violation("1307->1305 is not a step to an adjacent hex", "203.1")]


def test_movement_orders_belong_to_their_steps() -> None:
    state = _at_movement()
    (problem,) = _refused(state, "coalition", _react(["KLI-0001"], "1306", "1307", "1306"))
    assert problem.rule == "105.0"
    assert problem.message.startswith("a react order belongs to step 3B3, not to the current")
    early = _run_to(FE.initial_state("tutorial", ["coalition", "alliance"], {}), "0-KZI")
    (problem,) = _refused(early, "alliance", _move(["KZI-0001"], "1305", "1306"))
    assert problem.message.startswith("a move order belongs to step 3B2 or 4B, not to")


def test_an_order_named_with_a_vowel_takes_an() -> None:
    (problem,) = _refused(_at_movement(), "coalition", ApproachOrder())
    assert problem.message.startswith("an approach order belongs to step 5-2A2 or 5-2A3, not")


# --- batches and reaction windows -----------------------------------------------------------


def _strike_into_the_neutral_zone() -> FeState:
    return _play(_at_movement(), "coalition", _move(STRIKE_FORCE, "1307", "1306"))


def test_a_batch_with_nothing_moved_is_refused() -> None:
    problems = _refused(_at_movement(), "coalition", Batch())
    assert problems == [
        Violation(
            "nothing has moved since the last reaction window: move a stack first, "
            "or end movement with done",
            "205.0",
        )
    ]


def test_a_batch_opens_a_reaction_window_and_movement_comes_back() -> None:
    events: list[Event] = []
    state = _play(_strike_into_the_neutral_zone(), "coalition", Batch(), events)
    assert _text(events, "batch") == (
        "coalition ends a movement batch: alliance may react (205.0; 5 units can), "
        "then coalition moves on"
    )
    decision = FE.pending(state)[0]
    assert (decision.step, decision.seats, decision.key) == (
        "3B3",
        ("alliance",),
        "T1/coalition/3B3/2",
    )
    # The phasing seat may not move while the window is open.
    assert _refused(state, "coalition", _move(["KLI-0001"], "1306", "1206"))

    events = []
    state = _play(state, "alliance", _react(["KZI-0001"], "1306", "1305", "1306"), events)
    assert _text(events, "react") == (
        "KZI reacts with CC KZI-0001 1305->1306 toward the enemy in 1306 (205.0)"
    )
    assert _hex(state, "KZI-0001") == 1306
    assert state.reacted == ("KZI-0001",)

    events = []
    state = _play(state, "alliance", Done(), events)
    assert "movement-resumes" in _kinds(events)
    decision = FE.pending(state)[0]
    assert (decision.step, decision.seats, decision.key) == (
        "3B2",
        ("coalition",),
        "T1/coalition/3B2/3",
    )
    assert state.batch == ()
    assert state.moved == tuple((uid, 1) for uid in STRIKE_FORCE)


def test_reactions_are_refused_with_their_rule() -> None:
    state = _play(_strike_into_the_neutral_zone(), "coalition", Batch())
    assert _refused(state, "alliance", _react(["KZI-0006"], "1306", "1704", "1705")) == [
        Violation(
            "KZI-0006: fleet Starbase Squadron (KZI) is not released (600-series scenario rules)",
            "600.3",
        )
    ]
    assert _refused(state, "alliance", _react(["KZI-0001"], "1307", "1305", "1306")) == [
        Violation("no enemy stack entered 1307 in this batch (entered: 1306)", "205.0")
    ]
    assert _refused(state, "alliance", _react(["KZI-0001"], "1306", "1305", "1304")) == [
        Violation("a reaction moves toward 1306; 1305->1304 does not", "205.0")
    ]
    assert _refused(state, "alliance", _react(["KLI-0001"], "1306", "1306", "1305")) == [
        Violation("KLI-0001 is a unit of KLI, not of alliance", "205.0")
    ]
    state = _play(state, "alliance", _react(["KZI-0001"], "1306", "1305", "1306"))
    assert _refused(state, "alliance", _react(["KZI-0001"], "1306", "1306", "1305")) == [
        Violation("KZI-0001 has already reacted this phase", "205.0")
    ]


def test_a_reacting_ship_pins_the_stack_it_joined() -> None:
    state = _play(_strike_into_the_neutral_zone(), "coalition", Batch())
    state = _play(state, "alliance", _react(["KZI-0001"], "1306", "1305", "1306"))
    state = _play(state, "alliance", Done())
    (problem,) = _refused(state, "coalition", _move(STRIKE_FORCE, "1306", "1206"))
    assert problem.rule == "203.5"
    _play(state, "coalition", _move(STRIKE_FORCE[:3], "1306", "1206"))


def test_a_batch_nobody_can_react_to_keeps_movement_going() -> None:
    state = _play(_at_movement(), "coalition", _move(FLANK_PATROL, "1607", "1608"))
    events: list[Event] = []
    state = _play(state, "coalition", Batch(), events)
    assert _text(events, "batch") == (
        "coalition ends a movement batch; no alliance unit can react to it, "
        "so movement goes on (205.0)"
    )
    assert _step(state) == "3B2"
    assert _key(state) == "T1/coalition/3B2/1"
    assert state.batch == ()
    assert _refused(state, "coalition", Batch())


def test_the_last_window_is_passed_when_nobody_can_react() -> None:
    state = _play(_at_movement(), "coalition", _move(FLANK_PATROL, "1607", "1608"))
    events: list[Event] = []
    state = _play(state, "coalition", Done(), events)
    passed = [e.text for e in events if e.kind == "step-passed"]
    assert passed[0] == "3B3 Reaction movement: no alliance unit can react to what moved (205.0)"
    assert _step(state) == "3B4"


def test_the_last_window_after_done_leads_on_not_back() -> None:
    state = _play(_strike_into_the_neutral_zone(), "coalition", Done())
    assert (_step(state), _key(state)) == ("3B3", "T1/coalition/3B3/1")
    events: list[Event] = []
    state = _play(state, "alliance", Done(), events)
    assert "movement-resumes" not in _kinds(events)
    assert _step(state) == "3B4"
    assert state.batch == ()


# --- fleet releases -------------------------------------------------------------------------


def test_entering_the_starbase_hex_releases_the_starbase_squadron() -> None:
    state = _at_movement()
    assert ("KZI", "Starbase Squadron") not in state.released
    events: list[Event] = []
    path = ("1607", "1606", "1605", "1705", "1704")
    state = _play(state, "coalition", _move(FLANK_PATROL, *path), events)
    assert _kinds(events) == ["move", "release"]
    assert events[1].text == "KZI Starbase Squadron is released (KLI entered 1704, 600.3)"
    assert events[1].seat == "alliance"
    assert ("KZI", "Starbase Squadron") in state.released


def test_a_move_elsewhere_releases_nothing() -> None:
    events: list[Event] = []
    state = _play(_at_movement(), "coalition", _move(FLANK_PATROL, "1607", "1606"), events)
    assert _kinds(events) == ["move"]
    assert ("KZI", "Starbase Squadron") not in state.released


# --- 4B: reserve movement -------------------------------------------------------------------


def _with_reserves(state: FeState, *unit_ids: str) -> FeState:
    released = tuple(sorted({*state.released, ("KZI", "Starbase Squadron")}))
    return msgspec.structs.replace(state, reserves=unit_ids, released=released)


def test_reserve_movement_is_passed_without_reserves() -> None:
    events: list[Event] = []
    state = _run_to(_at_movement(), "6B", events)  # no battle: phase 5 passes (302.9)
    assert "4B Move reserve fleets: alliance has no reserve fleet to move (203.7)" in [
        e.text for e in events if e.kind == "step-passed"
    ]
    assert _step(state) == "6B"


def _flank_patrol_to_1606() -> FeState:
    """The Flank Patrol moved 1607->1606 in 3B2; the Starbase Squadron is a reserve."""
    state = _play(_at_movement(), "coalition", _move(FLANK_PATROL, "1607", "1606"))
    return _run_to(_with_reserves(state, *STARBASE_SQUADRON), "4B")


def test_reserve_fleets_move_once_in_4b() -> None:
    state = _flank_patrol_to_1606()
    assert FE.pending(state)[0].seats == ("alliance",)
    assert _refused(state, "alliance", _move(["KZI-0001"], "1305", "1306")) == [
        Violation(
            "KZI-0001 is not a reserve unit; only reserve fleets (designated in 9A) move in "
            "phase 4",
            "203.7",
        )
    ]
    events: list[Event] = []
    path = ("1704", "1705", "1605", "1606")
    state = _play(state, "alliance", _move(STARBASE_SQUADRON, *path), events)
    assert _text(events, "reserve-move") == (
        "KZI moves reserve fleet BC KZI-0006, SF KZI-0007 1704->1606 (3 hexes)"
    )
    assert _hex(state, "KZI-0007") == 1606
    assert _refused(state, "alliance", _move(["KZI-0006"], "1606", "1607")) == [
        Violation("KZI-0006 has already made its reserve move this phase", "203.7")
    ]
    state = _play(state, "alliance", Done())
    assert _step(state) == "5-1A"


def test_a_reserve_fleet_moves_only_to_a_battle_or_target_hex() -> None:
    state = _flank_patrol_to_1606()
    target = (
        "a reserve fleet moves only to a battle or target hex of this turn (a hex holding KLI "
        "units that moved this turn or are in a battle, or one that puts a cut-off KZI unit "
        "in a battle hex back in supply): {end} is none; {where} (203.7)"
    )
    # 1706 is empty; 1707 holds a Klingon battle station that neither moved nor fights
    for end, path in (
        ("1706", ("1704", "1705", "1706")),
        ("1707", ("1704", "1705", "1706", "1707")),
    ):
        problems = _refused(state, "alliance", _move(STARBASE_SQUADRON, *path))
        assert [f"{v.message} ({v.rule})" for v in problems] == [
            target.format(
                end=end, where="the target hexes within 6 hexes of 1704 are 1606 (3 hexes)"
            )
        ]
    assert (
        FE.validate(state, "alliance", _move(STARBASE_SQUADRON, "1704", "1705", "1605", "1606"))
        == []
    )


class _FakeGrid:
    """A supply grid where the hex ``cut`` is out of supply unless a KZI unit stands in
    ``opener``: the geometry of a blocked path, without the map's."""

    def __init__(self, board: Board, cut: int, opener: int) -> None:
        self.open = any(u.empire == "KZI" and u.hex == opener for u in board.units)
        self.cut = cut

    def status(self, h: int) -> str:
        return "main" if self.open or h != self.cut else "none"


def test_a_reserve_may_move_to_open_a_supply_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CL KZI-0003 fights the Flank Patrol in 1606, cut off from supply; only a Kzinti
    unit in 1705 would reopen its path (the April 2011 Q&A's case)."""
    state = _flank_patrol_to_1606()
    state = state.with_board(
        state.board.with_units([msgspec.structs.replace(state.board.unit("KZI-0003"), hex=1606)])
    )
    monkeypatch.setattr(reserves, "grid_on", lambda s, board, e: _FakeGrid(board, 1606, 1705))
    assert reserves.cut_off_in_battle(state, state.board, "KZI") == ["KZI-0003"]
    assert FE.validate(state, "alliance", _move(STARBASE_SQUADRON, "1704", "1705")) == []
    (problem,) = _refused(state, "alliance", _move(STARBASE_SQUADRON, "1704", "1804"))
    assert problem.rule == "203.7" and "1804 is none" in problem.message
    monkeypatch.setattr(reserves, "grid_on", lambda s, board, e: _FakeGrid(board, 1606, 9999))
    assert _refused(state, "alliance", _move(STARBASE_SQUADRON, "1704", "1705"))[0].rule == "203.7"


def test_a_move_with_no_target_in_reach_says_so() -> None:
    state = _run_to(_with_reserves(_at_movement(), *STARBASE_SQUADRON), "3B2")
    state = msgspec.structs.replace(state, step=[s.id for s in load_sequence().main].index("4B"))
    (problem,) = _refused(state, "alliance", _move(STARBASE_SQUADRON, "1704", "1705"))
    assert problem.message.endswith("1705 is none; none is within 6 hexes of 1704")


def test_4b_passes_when_no_reserve_fleet_can_reach_a_target() -> None:
    state = _with_reserves(_at_movement(), *STARBASE_SQUADRON)
    events: list[Event] = []
    state = _run_to(state, "6B", events)  # no battle: phase 5 passes (302.9)
    assert (
        "4B Move reserve fleets: no alliance reserve fleet is within reach of a battle or "
        "target hex (203.7)"
    ) in [e.text for e in events if e.kind == "step-passed"]
    assert AREA.skip(_flank_patrol_to_1606(), load_sequence().steps["4B"]) == ""


def test_a_reserve_fleet_avoids_enemy_occupied_hexes_when_it_can() -> None:
    state = _play(_at_movement(), "coalition", _move(STRIKE_FORCE, "1307", "1306", "1206"))
    state = _run_to(_with_reserves(state, "KZI-0002"), "4B")
    # 1307 holds a Klingon battle station; 1305-1306-1206 reaches the strike force around it.
    assert _refused(state, "alliance", _move(["KZI-0002"], "1305", "1306", "1307", "1206")) == [
        Violation(
            "1305->1206 enters enemy-occupied 1307, but a path within 6 hexes avoids "
            "enemy-occupied hexes",
            "203.74",
        )
    ]
    _play(state, "alliance", _move(["KZI-0002"], "1305", "1306", "1206"))


# --- the tallies' lifetimes -----------------------------------------------------------------


def test_movement_tallies_reset_as_a_movement_phase_begins() -> None:
    state = msgspec.structs.replace(
        _at_movement(), moved=(("KLI-0001", 3),), batch=((1307, 1306),), reacted=("KZI-0001",)
    )
    after = AREA.on_phase(state, "3", [])
    assert (after.moved, after.batch, after.reacted) == ((), (), ("KZI-0001",))
    # phase 4 keeps what moved in phase 3: the reserves' targets (203.7)
    after = AREA.on_phase(state, "4", [])
    assert (after.moved, after.batch, after.reacted) == ((("KLI-0001", 3),), (), ("KZI-0001",))


def test_reactions_reset_with_the_player_turn() -> None:
    state = msgspec.structs.replace(_at_movement(), moved=(("KLI-0001", 3),), reacted=("KZI-1",))
    after = AREA.on_phase(state, "1", [])
    assert (after.moved, after.reacted) == ((("KLI-0001", 3),), ())
    assert AREA.on_phase(state, "2", []) is state


def test_reactors_lists_who_may_react_to_the_batch() -> None:
    state = _strike_into_the_neutral_zone()
    assert reactors.reactors(state) == ["KZI-0001", "KZI-0002", "KZI-0003", "KZI-0004", "KZI-0005"]
    assert reactors.reactors(msgspec.structs.replace(state, batch=())) == []


def test_a_standing_order_declines_reaction_windows_without_a_round_trip() -> None:
    from tests.engine.fe.steps.tutorial_states import after_setup, orders, run_to

    state = msgspec.structs.replace(after_setup(), standing=(("alliance", ("3B3",)),))
    state = run_to(state, "3B2")
    move = {"type": "move", "units": ["KLI-0001"], "path": ["1307", "1206", "1205"]}
    state, events = orders(state, "coalition", move, {"type": "batch"})
    kinds = [e.kind for e in events]
    assert kinds[-2:] == ["step-done", "movement-resumes"], kinds
    assert "(standing order)" in events[-2].text
    decision = FE.pending(state)[0]
    assert (decision.step, decision.seats, decision.key) == (
        "3B2",
        ("coalition",),
        "T1/coalition/3B2/3",
    )


def test_hexes_within_reaction_range_match_the_distance_hex_by_hex() -> None:
    """`reactors.within_range` (read from the targets' side) lists, for every hex of the map,
    exactly the targets whose distance is in reach, in the targets' order: map edges and
    corners included, where the box it searches is cut."""
    from engine.core import hexgrid

    targets = [101, 102, 201, 1907, 1908, 2010, 3001, 6119, 6101, 119]
    for reach in (0, 1, 2, 3):
        found = reactors.within_range(targets, reach)
        for column in range(1, 62):
            for row in range(1, 20):
                h = column * 100 + row
                expected = [t for t in targets if hexgrid.distance(h, t) <= reach]
                assert found.get(h, []) == expected, (h, reach)
