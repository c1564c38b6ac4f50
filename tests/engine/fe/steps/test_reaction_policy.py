"""Standing reaction policies (`engine.fe.steps.reaction_policy`): the non-phasing seat signs
what it does in its reaction windows (3B3, 205.0), and the engine answers them for it.

The tutorial, set up as in `test_movement_area`: the Kzinti Border Guard (KZI-0001 CC, -0002
BC, -0003 CL, -0004/-0005 FF) in 1305, the Starbase Squadron (not released) in 1704; the
Klingon Strike Force (KLI-0001 D7C, -0002/-0003 D7, -0004 F5S) in 1307 and the Flank Patrol
(KLI-0005 D6, -0006 F5) in 1607. 1306 and 1405 are both next to 1305; the Kzinti battle
station KZI-B002 stands in 1405. The alliance signs its policy in its set-up packet.
"""

from __future__ import annotations

import functools
from itertools import pairwise

import msgspec
import pytest

from engine.core.errors import IllegalOrder
from engine.core.ruleset import DecisionKind, Event
from engine.core.turn_orders import Done
from engine.fe import FE
from engine.fe.checklist import FeRuleset
from engine.fe.face import FACE
from engine.fe.model import FeState
from engine.fe.orders import Batch, MoveOrder, Order, Place, React, ReactionOrder
from engine.fe.reaction import ReactionPolicy
from tests.engine.fe.steps.tutorial_states import placed
from tests.engine.table import Table

SEATS = ["coalition", "alliance"]
BORDER_GUARD = ("KZI-0001", "KZI-0002", "KZI-0003", "KZI-0004", "KZI-0005")
STRIKE_FORCE = ["KLI-0001", "KLI-0002", "KLI-0003", "KLI-0004"]
SETUP: dict[str, list[Order]] = {
    "alliance": [
        Place(hex="1305", fleet="Border Guard"),
        Place(hex="1704", fleet="Starbase Squadron"),
        Done(),
    ],
    "coalition": [
        Place(hex="1307", fleet="Strike Force"),
        Place(hex="1607", fleet="Flank Patrol"),
        Done(),
    ],
}
NEVER = ReactionOrder(mode="never")
ANY = ReactionOrder(mode="react")


def _play(state: FeState, seat: str, order: Order, events: list[Event] | None = None) -> FeState:
    problems = FE.validate(state, seat, order)
    assert not problems, problems
    applied = FE.apply(state, seat, order)
    if events is not None:
        events.extend(applied.events)
    return applied.state


def _refusals(state: FeState, seat: str, order: Order) -> list[str]:
    return [f"{v.message} ({v.rule})" for v in FE.validate(state, seat, order)]


def _owed(state: FeState) -> tuple[str, tuple[str, ...]]:
    decision = FE.pending(state)[0]
    return decision.step, decision.seats


def _run_to(state: FeState, step_id: str) -> FeState:
    for _ in range(400):
        step, seats = _owed(state)
        if step == step_id:
            return state
        state = _play(state, seats[0], Done())
    raise AssertionError(f"{step_id} never came up")


def _texts(events: list[Event], kind: str) -> list[str]:
    return [e.text for e in events if e.kind == kind]


def _at_movement(policy: ReactionOrder | None = None) -> FeState:
    """The tutorial set up, at the coalition's 3B2; the alliance signed ``policy`` first."""
    return _at_movement_cached(FE.encode_orders([policy]) if policy is not None else b"")


@functools.cache
def _at_movement_cached(signed: bytes) -> FeState:
    state = FE.initial_state("tutorial", SEATS, {})
    policy = FE.decode_orders(signed)[0] if signed else None
    for seat in ("alliance", "coalition"):
        if seat == "alliance" and policy is not None:
            state = _play(state, seat, policy)
        for order in SETUP[seat]:
            state = _play(state, seat, order)
    return _run_to(state, "3B2")


def _move(units: list[str], *path: str) -> MoveOrder:
    return MoveOrder(units=units, path=list(path))


def _hexes(state: FeState, *unit_ids: str) -> list[int]:
    return [state.board.unit(u).hex for u in unit_ids]


# --- signing -------------------------------------------------------------------------------


def test_a_signed_policy_is_public_and_stored_in_the_state() -> None:
    state = FE.initial_state("tutorial", SEATS, {})
    events: list[Event] = []
    order = ReactionOrder(mode="react", units=["KZI-0002", "KZI-0001"], hexes=["1306", "1206"])
    state = _play(state, "alliance", order, events)
    assert _texts(events, "reaction-policy") == [
        "alliance signs its reaction policy: react with KZI-0001, KZI-0002 to an enemy "
        "entering 1306, 1206 (preferred in that order); no other reaction (the engine answers "
        "alliance's reaction windows, 205.0)"
    ]
    stored = ReactionPolicy("react", ("KZI-0001", "KZI-0002"), ("1306", "1206"))
    assert state.reaction_policies == (("alliance", stored),)
    state = _play(state, "alliance", ReactionOrder(), events)
    assert state.reaction_policies == ()
    assert _texts(events, "reaction-policy")[-1] == (
        "alliance cancels its reaction policy: it will be asked at every reaction window"
    )


def test_the_order_reads_from_json_and_writes_back() -> None:
    item = {"type": "reaction", "mode": "react", "units": ["KZI-0001"], "hexes": ["1306"]}
    (order,) = FE.parse_orders([item])
    assert order == ReactionOrder(mode="react", units=["KZI-0001"], hexes=["1306"])
    assert FE.order_to_json(order) == item
    assert FE.decode_orders(FE.encode_orders([order])) == [order]
    with pytest.raises(IllegalOrder, match="reaction"):
        FE.parse_orders([{"type": "reaction", "mode": "sometimes"}])


def test_bad_policies_are_refused_with_the_rule() -> None:
    state = FE.initial_state("tutorial", SEATS, {})
    assert _owed(state)[1] == ("alliance",)
    bad = ReactionOrder(
        mode="react",
        units=["KZI-9999", "KLI-0001", "KZI-B002", "KZI-0001", "KZI-0001"],
        hexes=["1306", "9999", "1306"],
    )
    assert _refusals(state, "alliance", bad) == [
        "reaction policy: there is no unit KZI-9999 (205.0)",
        "reaction policy: KLI-0001 is a unit of KLI, not of alliance (205.0)",
        "reaction policy: KZI-0001 is named twice (205.0)",
        "reaction policy: KZI-B002 (BATS) has no movement allowance and never reacts (205.0)",
        "reaction policy: hex 9999 is not on the map (205.0)",
        "reaction policy: hex 1306 is named twice (205.0)",
    ]
    assert _refusals(state, "alliance", ReactionOrder(mode="never", hexes=["1306"])) == [
        "a reaction policy of mode never (never react) names no units, hexes or otherwise (205.0)"
    ]
    assert _refusals(state, "alliance", ReactionOrder(otherwise="ask")) == [
        "a reaction policy of mode ask (cancel the policy) names no units, hexes or otherwise "
        "(205.0)"
    ]


def test_a_refused_policy_rejects_the_whole_packet() -> None:
    table = Table(FeRuleset(), "tutorial", SEATS, label="reaction-refused")
    while table.owed()[1] == DecisionKind.ACCEPT:
        table.orders(table.owed()[0])
    before = table.state
    with pytest.raises(IllegalOrder, match=r"there is no unit KZI-9999 \(205\.0\)"):
        table.orders("alliance", NEVER, ReactionOrder(mode="react", units=["KZI-9999"]))
    assert table.state is before
    assert _rules(table).reaction_policies == ()


def test_the_face_offers_the_policy_in_the_movement_phase() -> None:
    offered = [c.order for c in FACE.choices(_at_movement(), "coalition")]
    assert "reaction" in offered
    assert "reaction" not in [c.order for c in FACE.choices(_rules_at_setup(), "alliance")]


def _rules_at_setup() -> FeState:
    return FE.initial_state("tutorial", SEATS, {})


# --- never ---------------------------------------------------------------------------------


def test_never_passes_every_window_and_movement_goes_on_in_the_same_packet() -> None:
    state = _at_movement(NEVER)
    events: list[Event] = []
    state = _play(state, "coalition", _move(STRIKE_FORCE, "1307", "1306"), events)
    state = _play(state, "coalition", Batch(), events)
    assert _texts(events, "reaction-policy") == [
        "alliance's reaction policy: never react; the window passes (205.0)"
    ]
    assert "movement-resumes" in [e.kind for e in events]
    assert _owed(state) == ("3B2", ("coalition",))
    assert state.batch == () and state.reacted == ()
    state = _play(state, "coalition", _move(STRIKE_FORCE[:1], "1306", "1406", "1405"), events)
    state = _play(state, "coalition", Done(), events)  # the last window, after done
    assert len(_texts(events, "reaction-policy")) == 2
    assert _owed(state) == ("3B4", ("coalition",))
    assert list(_hexes(state, *BORDER_GUARD)) == [1305] * 5


def test_done_through_runs_past_a_window_the_policy_answers() -> None:
    through = Done(through="3B4")
    state = _play(_at_movement(), "coalition", _move(STRIKE_FORCE, "1307", "1306"))
    assert _refusals(state, "coalition", through) == [
        "cannot complete through 3B4: step 3B3 (Reaction movement) is alliance's (105.0)"
    ]
    state = _play(_at_movement(NEVER), "coalition", _move(STRIKE_FORCE, "1307", "1306"))
    events: list[Event] = []
    state = _play(state, "coalition", through, events)
    assert [e.step for e in events if e.kind == "step-done"] == ["3B2", "3B4"]
    assert len(_texts(events, "reaction-policy")) == 1


def test_without_a_policy_the_window_is_the_seat_s() -> None:
    state = _play(_at_movement(), "coalition", _move(STRIKE_FORCE, "1307", "1306"))
    state = _play(state, "coalition", Batch())
    assert _owed(state) == ("3B3", ("alliance",))


def test_the_checklist_marks_the_window_the_policy_answers_and_play_agrees() -> None:
    """The checklist's mark (`engine.fe.policy_cover`) against play: marked, the window
    passes without the alliance; unmarked, it is the alliance's."""
    for policy, marked in ((NEVER, ("alliance",)), (None, ())):
        state = _at_movement(policy)
        rows = {row.step: row for row in FACE.checklist(state)}
        assert rows["3B3"].policy == marked
        state = _play(state, "coalition", _move(STRIKE_FORCE, "1307", "1306"))
        state = _play(state, "coalition", Batch())
        assert (_owed(state) == ("3B3", ("alliance",))) is not bool(marked)


def test_a_policy_signed_in_the_open_window_answers_it() -> None:
    state = _play(_at_movement(), "coalition", _move(STRIKE_FORCE, "1307", "1306"))
    state = _play(state, "coalition", Batch())
    state = _play(state, "alliance", NEVER)
    assert _owed(state) == ("3B2", ("coalition",))


def test_a_policy_is_idle_in_its_own_seat_s_player_turn() -> None:
    """The alliance's "never" answers nothing when the coalition reacts: that window is the
    coalition's (the rules give it to the non-phasing seat); the coalition's own policy does."""
    state = msgspec.structs.replace(_at_movement(NEVER), player_turn=1)
    assert _owed(state) == ("3B2", ("alliance",))
    moved = _play(state, "alliance", _move(list(BORDER_GUARD), "1305", "1306"))
    opened = _play(moved, "alliance", Batch())
    assert _owed(opened) == ("3B3", ("coalition",))
    moved = _play(moved, "alliance", NEVER)  # replaces nothing of the coalition's
    signed = _play(moved, "alliance", Batch())
    assert _owed(signed) == ("3B3", ("coalition",))
    coalition = msgspec.structs.replace(
        moved, reaction_policies=(("coalition", ReactionPolicy("never")),)
    )
    assert _owed(_play(coalition, "alliance", Batch())) == ("3B2", ("alliance",))


# --- react ---------------------------------------------------------------------------------


def test_react_with_any_unit_moves_the_stack_toward_the_enemy() -> None:
    state = _play(_at_movement(ANY), "coalition", _move(STRIKE_FORCE, "1307", "1306"))
    events: list[Event] = []
    state = _play(state, "coalition", Batch(), events)
    assert _texts(events, "react") == [
        "KZI reacts with CC KZI-0001, BC KZI-0002, CL KZI-0003, FF KZI-0004, FF KZI-0005 "
        "1305->1306 toward the enemy in 1306 (205.0)"
    ]
    assert _texts(events, "reaction-policy") == [
        "alliance's reaction policy: reacted with KZI-0001, KZI-0002, KZI-0003, KZI-0004, "
        "KZI-0005 (205.0)"
    ]
    assert _hexes(state, *BORDER_GUARD) == [1306] * 5
    assert state.reacted == BORDER_GUARD
    assert _owed(state) == ("3B2", ("coalition",))
    # The Border Guard pins the Strike Force now (203.5), as a reaction made by hand would.
    (problem,) = FE.validate(state, "coalition", _move(STRIKE_FORCE, "1306", "1206"))
    assert problem.rule == "203.5"


def test_only_the_named_units_react_and_the_others_stay() -> None:
    policy = ReactionOrder(mode="react", units=["KZI-0002"])
    state = _play(_at_movement(policy), "coalition", _move(STRIKE_FORCE, "1307", "1306"))
    state = _play(state, "coalition", Batch())
    assert _hexes(state, *BORDER_GUARD) == [1305, 1306, 1305, 1305, 1305]
    assert state.reacted == ("KZI-0002",)


def test_otherwise_ask_hands_the_window_over_when_another_unit_could_react() -> None:
    policy = ReactionOrder(mode="react", units=["KZI-0002"], otherwise="ask")
    state = _play(_at_movement(policy), "coalition", _move(STRIKE_FORCE, "1307", "1306"))
    events: list[Event] = []
    state = _play(state, "coalition", Batch(), events)
    assert _texts(events, "reaction-policy") == [
        "alliance's reaction policy cannot decide: KZI-0001 may react to 1306, which the "
        "policy does not cover; alliance is asked (205.0)"
    ]
    assert _owed(state) == ("3B3", ("alliance",))
    assert _hexes(state, *BORDER_GUARD) == [1305] * 5
    by_hand = React(units=["KZI-0003"], path=["1305", "1306"], trigger="1306")
    state = _play(state, "alliance", by_hand)
    assert state.reacted == ("KZI-0003",)


def _two_hexes(policy: ReactionOrder) -> FeState:
    """KLI-0001 stops in 1306 and KLI-0002 in 1405 (past 1406): the Border Guard in 1305 is
    next to both."""
    state = _play(_at_movement(policy), "coalition", _move(["KLI-0001"], "1307", "1306"))
    return _play(state, "coalition", _move(["KLI-0002"], "1307", "1406", "1405"))


def test_two_targets_and_no_hexes_named_ask_the_seat() -> None:
    events: list[Event] = []
    state = _play(_two_hexes(ANY), "coalition", Batch(), events)
    assert _texts(events, "reaction-policy") == [
        "alliance's reaction policy cannot decide: KZI-0001 may react to 1306, 1405 and the "
        "policy names no hexes to choose between them; alliance is asked (205.0)"
    ]
    assert _owed(state) == ("3B3", ("alliance",))


def test_named_hexes_choose_between_targets_in_the_order_named() -> None:
    policy = ReactionOrder(mode="react", hexes=["1405", "1306"])
    state = _play(_two_hexes(policy), "coalition", Batch())
    assert _hexes(state, *BORDER_GUARD) == [1405] * 5
    assert _owed(state) == ("3B2", ("coalition",))


def test_an_enemy_outside_the_named_hexes_provokes_nothing() -> None:
    policy = ReactionOrder(mode="react", hexes=["1405"])
    state = _play(_at_movement(policy), "coalition", _move(STRIKE_FORCE, "1307", "1306"))
    events: list[Event] = []
    state = _play(state, "coalition", Batch(), events)
    assert _texts(events, "reaction-policy") == [
        "alliance's reaction policy: no unit it covers reacts (205.0)"
    ]
    assert _hexes(state, *BORDER_GUARD) == [1305] * 5
    assert _owed(state) == ("3B2", ("coalition",))


def test_a_stack_that_may_not_leave_whole_reacts_unit_by_unit_as_pins_allow() -> None:
    """The D6 KLI-0005 stands in 1305 too: someone must stay to pin it (203.5). The whole
    Border Guard may not leave; its units go one by one in id order until one must stay."""
    state = placed(_at_movement(ANY), {"KLI-0005": 1305})
    state = _play(state, "coalition", _move(STRIKE_FORCE, "1307", "1306"))
    events: list[Event] = []
    state = _play(state, "coalition", Batch(), events)
    assert _hexes(state, *BORDER_GUARD) == [1306, 1306, 1306, 1306, 1305]
    (said,) = _texts(events, "reaction-policy")
    assert said.startswith(
        "alliance's reaction policy: reacted with KZI-0001, KZI-0002, KZI-0003, KZI-0004; "
        "KZI-0005 stays: "
    )
    assert said.endswith("(203.5) (205.0)")
    assert len(_texts(events, "react")) == 4


# --- hand-offs -----------------------------------------------------------------------------


def _rules(table: Table) -> FeState:
    assert table.state is not None and isinstance(table.state.rules, FeState)
    return table.state.rules


MOVES: list[Order] = [
    _move(["KLI-0001"], "1307", "1306"),
    Batch(),
    _move(["KLI-0002"], "1307", "1306"),
    Batch(),
    _move(["KLI-0003"], "1307", "1306"),
    Done(),
]
"""Three movement batches, each into 1306 next to the Border Guard (the last one closed by
``done``): without a policy each gives the alliance a reaction window."""


def _accepted(state: FeState, seat: str, orders: list[Order]) -> int:
    """How many of ``orders``, from the first, the engine takes from ``seat`` in one packet."""
    count = 0
    for order in orders:
        if FE.validate(state, seat, order):
            break
        state = FE.apply(state, seat, order).state
        count += 1
    return count


def _movement_packets(label: str, policy: ReactionOrder | None) -> tuple[list[str], str]:
    """Play the tutorial to the coalition's 3B2 by packets, then the three batches of `MOVES`,
    each packet carrying as many of them as the engine takes; the alliance answers its
    windows with ``done``. Returns the writers of the packets from the first move until the
    game left 3B3, and the seat owed next."""
    table = Table(FeRuleset(), "tutorial", SEATS, label=label)
    first = [policy] if policy is not None else []
    while table.owed()[1] == DecisionKind.ACCEPT:
        table.orders(table.owed()[0])
    table.orders("alliance", *first, *SETUP["alliance"])
    table.orders("coalition", *SETUP["coalition"])
    while table.owed()[2] != "3B2":
        seat, kind, _ = table.owed()
        assert kind == DecisionKind.ORDERS
        table.orders(seat, Done())
    writers: list[str] = []
    left = list(MOVES)
    while left or table.owed()[2] in ("3B2", "3B3"):
        seat, _, step = table.owed()
        if seat == "coalition":
            taken = _accepted(_rules(table), seat, left)
            assert taken, (step, left)
            table.orders(seat, *left[:taken])
            left = left[taken:]
        else:
            assert step == "3B3"
            table.orders(seat, Done())
        writers.append(seat)
    return writers, table.owed()[0]


def _hand_offs(writers: list[str], next_seat: str) -> int:
    seats = [*writers, next_seat]
    return sum(1 for a, b in pairwise(seats) if a != b)


def test_three_batches_against_never_cost_no_hand_off_from_the_other_side() -> None:
    writers, next_seat = _movement_packets("reaction-never", NEVER)
    assert writers == ["coalition"]
    assert (next_seat, _hand_offs(writers, next_seat)) == ("coalition", 0)


def test_three_batches_without_a_policy_cost_a_hand_off_each_way_per_window() -> None:
    writers, next_seat = _movement_packets("reaction-none", None)
    assert writers == ["coalition", "alliance"] * 3
    assert _hand_offs(writers, next_seat) == 6


def test_three_batches_against_react_need_no_hand_off_either() -> None:
    writers, next_seat = _movement_packets("reaction-any", ANY)
    assert writers == ["coalition"]
    assert _hand_offs(writers, next_seat) == 0


def test_a_policy_that_cannot_decide_hands_the_window_over() -> None:
    policy = ReactionOrder(mode="react", units=["KZI-0001"], otherwise="ask")
    writers, _ = _movement_packets("reaction-ask", policy)
    assert writers[:2] == ["coalition", "alliance"]
