"""Phase 2 played by the engine (`engine.fe.steps.shipyard`): repairs, builds, conversions,
replacements, checked one order at a time against what the phase already used.

Two boards:

- the tutorial, played through the ruleset from its set-up: KZI (alliance) has a starbase
  KZI-B004 in 1704 (16 repair points, one minor conversion a turn, 12 fighter factors);
  before the game starts the test cripples the BCs KZI-0006 (in 1704) and KZI-0002 and the
  CL KZI-0003 (both moved to 1704), and takes the scout frigate KZI-0007 off the map: its
  class id ``SF`` reads as a star fortress in the repair and conversion tables, which would
  add a facility wherever it stands. KLI (coalition) has battle stations only
  (4 repair points, no conversions) and no production schedule;
- the Wind at step 2B3 of turn 1 (Fall Y168), built directly: the coalition plays LYR and
  KLI; KLI's capital 1411 (three starbases) and its schedule (1 D7, 4 F5, 1 D7C...).

Money is in halves of an EP in the state (``with_ep2("KZI", 40)`` is 20 EP).
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from engine.core.ruleset import Event, OptionValue
from engine.fe import FE, flow, production, repair, rule_options
from engine.fe.forces import OFF_MAP, Unit
from engine.fe.model import FeState
from engine.fe.orders import parse_orders
from engine.fe.sequence import Step
from engine.fe.steps import replacements, shipyard
from tests.engine.fe.helpers import step_once
from tests.engine.fe.steps.tutorial_states import after_setup

# --- drivers --------------------------------------------------------------------------------


def owed(state: FeState) -> tuple[str, str]:
    decision = FE.pending(state)[0]
    return decision.step, decision.seats[0]


def refusals(state: FeState, seat: str, item: dict[str, Any]) -> list[str]:
    (order,) = parse_orders([item])
    return [f"{v.message} ({v.rule})" for v in FE.validate(state, seat, order)]


def play(state: FeState, seat: str, item: dict[str, Any], events: list[Event]) -> FeState:
    (order,) = parse_orders([item])
    assert not FE.validate(state, seat, order), FE.validate(state, seat, order)
    applied = FE.apply(state, seat, order)
    events.extend(applied.events)
    return applied.state


def run_to(state: FeState, step: str, seat: str, events: list[Event] | None = None) -> FeState:
    """Answer every decision with ``done`` (or a secret) until ``seat`` owes ``step``."""
    for _ in range(2000):
        if owed(state) == (step, seat):
            return state
        state = step_once(state, events)
    raise AssertionError(f"{seat} never owed {step}")


def with_units(state: FeState, *units: Unit) -> FeState:
    return state.with_board(state.board.with_units(units))


def changed(state: FeState, unit_id: str, **fields: Any) -> Unit:
    return msgspec.structs.replace(state.board.unit(unit_id), **fields)


def with_options(state: FeState, **chosen: OptionValue) -> FeState:
    options = dict(state.options)
    options.update({key.replace("_", "-"): value for key, value in chosen.items()})
    return msgspec.structs.replace(state, options=tuple(sorted(options.items())))


def sequence_step(step_id: str) -> Step:
    return next(s for s in flow.sequence().main if s.id == step_id)


def tutorial_after_setup() -> FeState:
    return after_setup()


# --- fixtures -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def coalition_events() -> tuple[FeState, list[Event]]:
    """The tutorial played to KLI's 2B6 (2B5 passes: no Romulan or Hydran modular ships),
    with every event on the way."""
    events: list[Event] = []
    state = run_to(tutorial_after_setup(), "2B6", "coalition", events)
    return state, events


@pytest.fixture(scope="module")
def alliance_2a2() -> FeState:
    """KZI owes 2A2 with two crippled BCs and a crippled CL at its starbase in 1704."""
    state = tutorial_after_setup()
    state = with_units(
        state,
        changed(state, "KZI-0006", crippled=True),
        changed(state, "KZI-0002", crippled=True, hex=1704),
        changed(state, "KZI-0003", crippled=True, hex=1704),
        changed(state, "KZI-0007", hex=OFF_MAP),
    )
    state = run_to(state, "2A2", "alliance")
    return state.with_ep2("KZI", 40)


@pytest.fixture(scope="module")
def alliance_2b3(alliance_2a2: FeState) -> FeState:
    """KZI at 2B3 after repairing both BCs at 2A2 (12 EP left)."""
    events: list[Event] = []
    state = play(alliance_2a2, "alliance", {"type": "repair", "unit": "KZI-0006"}, events)
    state = play(state, "alliance", {"type": "repair", "unit": "KZI-0002"}, events)
    return run_to(state, "2B3", "alliance")


@pytest.fixture(scope="module")
def wind_2b3() -> FeState:
    state = FE.initial_state("the-wind", ["coalition", "alliance"], {})
    index = [s.id for s in flow.sequence().main].index("2B3")
    state = msgspec.structs.replace(state, setup=False, step=index, turn=1)
    state = state.with_ep2("KLI", 40).with_ep2("LYR", 10)
    assert owed(state) == ("2B3", "coalition")
    return state


# --- 2A2 repairs ----------------------------------------------------------------------------


def test_klingon_steps_with_nothing_to_do_pass_by_themselves(
    coalition_events: tuple[FeState, list[Event]],
) -> None:
    state, events = coalition_events
    passed = {e.step: e.text for e in events if e.kind == "step-passed"}
    assert "KLI: no crippled ship that a base or FRD can repair now" in passed["2A2"]
    assert "KLI: no production slot this turn and no affordable conversion" in passed["2B3"]
    # battle stations carry fighters but no PFs: fighters are never bought (530.12)
    assert passed["2B4"] == (
        "2B4 Replace fighters, PFs and GCEs in supply: fighters come back free at the end of "
        "the combat phase (530.12); KLI: no unit in supply carrying PFs or F-111s, or no EP "
        "to pay"
    )
    assert owed(state) == ("2B6", "coalition")


def test_a_cripple_at_a_starbase_stops_the_flow_at_2a2(alliance_2a2: FeState) -> None:
    assert owed(alliance_2a2) == ("2A2", "alliance")
    assert not shipyard.AREA.skip(alliance_2a2, sequence_step("2A2"))


def test_repairs_fill_the_starbase_then_the_next_is_refused(alliance_2a2: FeState) -> None:
    events: list[Event] = []
    state = play(alliance_2a2, "alliance", {"type": "repair", "unit": "KZI-0006"}, events)
    assert events[-1].text == "KZI repairs BC KZI-0006 at 1704 SB for 4 EP (treasury 20 -> 16)"
    assert events[-1].data["cost2"] == 8
    assert not state.board.unit("KZI-0006").crippled
    assert state.shipyard_used == (("KZI", "repair 1704", 8),)

    state = play(state, "alliance", {"type": "repair", "unit": "KZI-0002"}, events)
    assert state.ep2("KZI") == 24
    assert refusals(state, "alliance", {"type": "repair", "unit": "KZI-0003"}) == [
        "repairing CL KZI-0003 needs 6 points at 1704: capacity 16 a turn, "
        "16 already used this turn (420.42)"
    ]
    # before the BCs took the capacity, the CL alone would have fitted
    assert not refusals(alliance_2a2, "alliance", {"type": "repair", "unit": "KZI-0003"})


def test_two_repairs_may_not_spend_more_than_the_treasury(alliance_2a2: FeState) -> None:
    events: list[Event] = []
    state = alliance_2a2.with_ep2("KZI", 13)
    state = play(state, "alliance", {"type": "repair", "unit": "KZI-0006"}, events)
    assert state.ep2("KZI") == 5
    assert refusals(state, "alliance", {"type": "repair", "unit": "KZI-0002"}) == [
        "repairs cost 4 EP, treasury 2.5 EP (420.2)"
    ]


def test_repair_refusals_name_the_unit(alliance_2a2: FeState) -> None:
    assert refusals(alliance_2a2, "alliance", {"type": "repair", "unit": "KZI-0001"}) == [
        "KZI-0001 (CC) is not crippled (420.42)"
    ]
    assert refusals(alliance_2a2, "alliance", {"type": "repair", "unit": "KLI-0002"}) == [
        "KLI-0002 is a unit of KLI, not of alliance (420.42)"
    ]
    base = with_units(alliance_2a2, changed(alliance_2a2, "KZI-B004", crippled=True))
    assert refusals(base, "alliance", {"type": "repair", "unit": "KZI-B004"}) == [
        "KZI-B004 (SB) is a base: bases are repaired by SIDS steps (420.6) (420.42)"
    ]


def test_a_cripple_too_big_for_its_battle_station_passes_2a2_unless_the_option_says() -> None:
    """A D7 needs 8 points (its defense); a battle station gives 4. With the rule option
    ``repair-points`` = ``difference`` it needs 8 - 4 = 4 and can be repaired."""
    start = tutorial_after_setup()
    start = with_units(start, changed(start, "KLI-0002", crippled=True))
    events: list[Event] = []
    state = run_to(start, "2A3", "coalition", events)
    assert any(e.kind == "step-passed" and e.step == "2A2" for e in events)

    state = run_to(with_options(start, repair_points="difference"), "2A2", "coalition")
    before = state.ep2("KLI")
    state = play(state, "coalition", {"type": "repair", "unit": "KLI-0002"}, events)
    assert events[-1].text.startswith("KLI repairs D7 KLI-0002 at 1307 BATS for 2 EP")
    assert state.ep2("KLI") == before - 4


def test_what_the_phase_used_is_forgotten_as_the_next_phase_begins(
    alliance_2b3: FeState,
) -> None:
    assert ("KZI", "repair 1704", 16) in alliance_2b3.shipyard_used
    state = run_to(alliance_2b3, "3A-1A", "alliance")
    assert state.shipyard_used == ()


# --- 2B3 builds -----------------------------------------------------------------------------


def test_a_scheduled_build_appears_at_the_capital(wind_2b3: FeState) -> None:
    events: list[Event] = []
    order = {"type": "build", "cls": "D7", "hex": "1411", "empire": "KLI"}
    state = play(wind_2b3, "coalition", order, events)
    assert events[-1].text == "KLI builds D7 KLI-0212 at 1411 for 8 EP (treasury 20 -> 12)"
    assert state.board.unit("KLI-0212") == Unit("KLI-0212", "KLI", "D7", 1411)
    assert state.ep2("KLI") == 24
    assert refusals(state, "coalition", order) == [
        "KLI's schedule for Fall Y168 (turn 1) (the Fall Y168 schedule) "
        "has 1 D7 slot, 1 already filled this turn (431.0)"
    ]


def test_builds_off_the_schedule_away_from_the_capital_or_unpaid_are_refused(
    wind_2b3: FeState,
) -> None:
    assert refusals(
        wind_2b3, "coalition", {"type": "build", "cls": "C8", "hex": "1411", "empire": "KLI"}
    ) == [
        "C8 is not on KLI's production schedule for Fall Y168 (turn 1) (the Fall Y168 schedule) "
        "(431.0)"
    ]
    assert refusals(
        wind_2b3, "coalition", {"type": "build", "cls": "D7", "hex": "1311", "empire": "KLI"}
    ) == ["new D7 may not appear in 1311: the capital or a shipyard (1411) (431.0)"]
    poor = wind_2b3.with_ep2("KLI", 11)
    assert refusals(
        poor, "coalition", {"type": "build", "cls": "D7", "hex": "1411", "empire": "KLI"}
    ) == ["D7 costs 8 EP, KLI has 5.5 (431.0)"]


def test_a_build_names_its_empire_when_the_seat_plays_several(wind_2b3: FeState) -> None:
    assert refusals(wind_2b3, "coalition", {"type": "build", "cls": "D7", "hex": "1411"}) == [
        "coalition plays LYR, KLI: the build order must name its empire (431.0)"
    ]
    assert refusals(
        wind_2b3, "coalition", {"type": "build", "cls": "BC", "hex": "1401", "empire": "KZI"}
    ) == ["KZI is not an empire of coalition (LYR, KLI) (431.0)"]


def test_substitutions_are_limited_per_turn(wind_2b3: FeState) -> None:
    events: list[Event] = []
    order = {"type": "build", "cls": "F5S", "instead_of": "F5", "hex": "1411", "empire": "KLI"}
    state = play(wind_2b3, "coalition", order, events)
    assert events[-1].text == (
        "KLI builds F5S KLI-0212 at 1411 instead of F5 for 4 EP (treasury 20 -> 16)"
    )
    state = play(state, "coalition", order, events)
    assert refusals(state, "coalition", order) == [
        "KLI already made 2 limited substitutions this turn, at most 2 "
        "(F5S for F5 is limited) (450.4)"
    ]
    # a dagger substitution (450.4 "F5 for F5W or F5L") is not limited: still allowed
    dagger = {"type": "build", "cls": "F5", "instead_of": "F5L", "hex": "1411", "empire": "KLI"}
    assert not refusals(state, "coalition", dagger)
    after = play(state, "coalition", dagger, events)
    assert ("KLI", "substitutions", 2) in after.shipyard_used
    unlimited = with_options(state, substitutions_per_turn=0)
    assert not refusals(unlimited, "coalition", order)
    # with no limit the third and fourth F5 slots take F5S too; there is no fifth
    state = play(unlimited, "coalition", order, events)
    state = play(state, "coalition", order, events)
    assert refusals(state, "coalition", order) == [
        "KLI's schedule for Fall Y168 (turn 1) (the Fall Y168 schedule) "
        "has 4 F5 slots, 4 already filled this turn (431.0)"
    ]


def test_a_substitution_the_tables_do_not_list_is_refused(wind_2b3: FeState) -> None:
    order = {"type": "build", "cls": "D5", "instead_of": "F5", "hex": "1411", "empire": "KLI"}
    assert refusals(wind_2b3, "coalition", order) == ["D5 may not substitute for F5 (450.4)"]


# --- 2B3 conversions ------------------------------------------------------------------------


def test_a_minor_conversion_at_a_starbase_and_its_limit(alliance_2b3: FeState) -> None:
    assert owed(alliance_2b3) == ("2B3", "alliance")
    assert alliance_2b3.ep2("KZI") == 24
    events: list[Event] = []
    state = play(
        alliance_2b3, "alliance", {"type": "convert", "unit": "KZI-0006", "to": "CC"}, events
    )
    assert events[-1].text == (
        "KZI converts BC KZI-0006 into CC at 1704 (minor conversion) for 2 EP (treasury 12 -> 10)"
    )
    assert state.board.unit("KZI-0006").cls == "CC"
    assert refusals(state, "alliance", {"type": "convert", "unit": "KZI-0002", "to": "CVL"}) == [
        "conversions at 1704 this turn would be 0 major and 2 minor, "
        "capacity 0 major and 1 minor (433.1)"
    ]
    assert refusals(state, "alliance", {"type": "convert", "unit": "KZI-0006", "to": "CC"}) == [
        "KZI-0006 was converted this turn: it converts next turn (433.1)"
    ]


def test_conversion_refusals(alliance_2b3: FeState) -> None:
    major = {"type": "convert", "unit": "KZI-0002", "to": "CV"}  # 5 EP: a major conversion
    assert refusals(alliance_2b3, "alliance", major) == [
        "conversions at 1704: 1 major and 0 minor ordered, capacity 0 major and 1 minor (433.1)"
    ]
    assert refusals(
        alliance_2b3, "alliance", {"type": "convert", "unit": "KZI-0003", "to": "CLE"}
    ) == ["KZI-0003 (CL) is crippled: repair it before converting (433.44) (433.1)"]
    poor = alliance_2b3.with_ep2("KZI", 3)
    assert refusals(poor, "alliance", {"type": "convert", "unit": "KZI-0006", "to": "CC"}) == [
        "converting BC KZI-0006 into CC costs 2 EP, KZI has 1.5 (433.1)"
    ]


def test_2b3_passes_only_when_nothing_can_be_built_or_converted(alliance_2b3: FeState) -> None:
    step = sequence_step("2B3")
    assert shipyard.AREA.skip(alliance_2b3, step) == ""
    assert shipyard.AREA.skip(alliance_2b3.with_ep2("KZI", 3), step) == (
        "KZI: no production slot this turn and no affordable conversion"
    )


def test_a_scheduled_slot_keeps_2b3_open_even_without_money(wind_2b3: FeState) -> None:
    assert shipyard.AREA.skip(wind_2b3.with_ep2("KLI", 0), sequence_step("2B3")) == ""


# --- 2B4 replacements -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def alliance_2b4(alliance_2b3: FeState) -> FeState:
    """KZI at 2B4 with its starbase KZI-B004 upgraded to an SBv.2 (12 fighters, 12 PFs)."""
    state = with_units(alliance_2b3, changed(alliance_2b3, "KZI-B004", cls="SBv.2"))
    return run_to(state, "2B4", "alliance")


def test_pfs_are_bought_at_half_an_ep_up_to_what_the_unit_carries(
    alliance_2b4: FeState,
) -> None:
    events: list[Event] = []
    order = {"type": "replace", "unit": "KZI-B004", "pfs": 5}
    state = play(alliance_2b4.with_ep2("KZI", 40), "alliance", order, events)
    assert events[-1].text == (
        "KZI replaces 5 PFs on SBv.2 KZI-B004 for 2.5 EP (treasury 20 -> 17.5)"
    )
    assert events[-1].data["cost2"] == 5
    assert state.ep2("KZI") == 35
    more = {"type": "replace", "unit": "KZI-B004", "pfs": 8}
    assert refusals(state, "alliance", more) == [
        "KZI-B004 (SBv.2) carries at most 12 PFs: 5 replaced this turn, 8 more ordered (502.43)"
    ]
    state = play(state, "alliance", {**more, "pfs": 7}, events)
    assert events[-1].text.endswith("for 3.5 EP (treasury 17.5 -> 14)")


def test_fighters_are_not_bought_and_pfs_need_the_money(alliance_2b4: FeState) -> None:
    rich = alliance_2b4.with_ep2("KZI", 40)
    assert refusals(rich, "alliance", {"type": "replace", "unit": "KZI-B004", "fighters": "4"}) == [
        "KZI-B004 (SBv.2): fighter factors lost in combat come back free at the end of the "
        "combat phase (6E) if the unit is in supply; they are not bought (4 ordered). A replace "
        "order buys PFs and F-111 factors (530.12)"
    ]
    assert refusals(rich, "alliance", {"type": "replace", "unit": "KZI-0002", "pfs": 1}) == [
        "KZI-0002 (BC) carries at most 0 PFs, 1 ordered (502.43)"
    ]
    poor = alliance_2b4.with_ep2("KZI", 5)
    assert refusals(poor, "alliance", {"type": "replace", "unit": "KZI-B004", "pfs": 6}) == [
        "replacing 6 PFs on SBv.2 KZI-B004 costs 3 EP, KZI has 2.5 (502.43)"
    ]


def test_replacement_prices_follow_the_fixed_cost_table() -> None:
    carrier = Unit("KZI-9001", "KZI", "CV", 1704)
    f111 = Unit("FED-9001", "FED", "NVH", 2908)
    assert replacements.replacement_price2(carrier, 12, 0) == 0  # 6 fighter factors: free
    assert replacements.replacement_price2(carrier, 0, 6) == 6  # 6 PFs: 3 EP
    assert replacements.replacement_price2(f111, 18, 0) == 5  # 9 F-111 factors: 2.25 -> 2.5
    assert replacements.replacement_price2(f111, 8, 0) == 2  # 4 F-111 factors: 1 EP
    assert replacements.f111_carrier(f111) and not replacements.f111_carrier(carrier)


def test_2b4_waits_only_for_pfs_in_supply_and_money(alliance_2b4: FeState) -> None:
    step = sequence_step("2B4")
    assert shipyard.AREA.skip(alliance_2b4, step) == ""
    reason = (
        "fighters come back free at the end of the combat phase (530.12); KZI: no unit in "
        "supply carrying PFs or F-111s, or no EP to pay"
    )
    assert shipyard.AREA.skip(alliance_2b4.with_ep2("KZI", 0), step) == reason
    plain = with_units(alliance_2b4, changed(alliance_2b4, "KZI-B004", cls="SB"))
    assert shipyard.AREA.skip(plain, step) == reason


def test_2b4_remembers_each_empires_buyers_as_a_fresh_scan_finds_them(
    alliance_2b4: FeState,
) -> None:
    """The units 2B4's skip test reads (`replacements._buyers`, remembered per empire's units)
    are those a scan of every unit finds, after each change, and the skip test follows them."""

    def fresh(state: FeState) -> tuple[str, ...]:
        return tuple(
            u.id
            for u in state.board.units
            if u.empire == "KZI" and u.hex != OFF_MAP and replacements._buyable(u)
        )

    def remembered(state: FeState) -> tuple[str, ...]:
        (kzi,) = [f for f in state.forces if f.empire == "KZI"]
        return tuple(u.id for u in replacements._buyers(kzi.units))

    step = sequence_step("2B4")
    base_sb = changed(alliance_2b4, "KZI-B004", cls="SB")
    boards = [
        alliance_2b4,
        with_units(alliance_2b4, base_sb),
        with_units(alliance_2b4, changed(alliance_2b4, "KZI-B004", hex=OFF_MAP)),
        with_units(alliance_2b4, changed(alliance_2b4, "KZI-B004", crippled=True)),
        with_units(alliance_2b4, Unit("KZI-9002", "KZI", "SBv.2", 1704)),
        with_units(with_units(alliance_2b4, base_sb), Unit("KZI-9002", "KZI", "SBv.2", 1704)),
    ]
    answers = []
    for state in boards:
        assert remembered(state) == fresh(state)
        answers.append(shipyard.AREA.skip(state, step))
    assert fresh(boards[0]) == ("KZI-B004",) and fresh(boards[1]) == ()
    assert fresh(boards[5]) == ("KZI-9002",)
    assert answers[0] == "" and answers[1] != "" and answers[5] == ""


# --- 6E free fighters -----------------------------------------------------------------------


def test_6e_gives_fighters_back_free_to_units_in_supply(alliance_2b3: FeState) -> None:
    """A KZI carrier far from any Kzinti supply point keeps its losses; the rest get theirs."""
    lost = Unit("KZI-9001", "KZI", "CV", 3010)
    state = with_units(alliance_2b3, lost).with_ep2("KZI", 40)
    events: list[Event] = []
    after = replacements.AREA.automatic(state, sequence_step("6E"), events)
    assert after is state
    by_empire = {e.data["empire"]: e for e in events}
    kzi = by_empire["KZI"]
    assert kzi.kind == "fighters" and kzi.step == "6E" and kzi.seat == "alliance"
    assert "KZI-B004" in kzi.data["replaced"]
    assert kzi.data["unsupplied"] == ["KZI-9001"]
    assert kzi.data["cost2"] == 0
    assert kzi.text.endswith(
        "in supply (530.12, 501.5); out of supply, keeping their losses: CV KZI-9001 in 3010"
    )
    assert state.ep2("KZI") == 40
    assert by_empire["KLI"].data["unsupplied"] == []


def test_6e_is_automatic_for_both_sides() -> None:
    step = sequence_step("6E")
    assert (step.kind, step.actor, step.area) == ("automatic", "both", "replacements")
    assert step.rules[0] == "530.12"


# --- rule options ---------------------------------------------------------------------------


def test_rule_options_gather_the_modules_options_sorted_and_unique() -> None:
    ids = [spec.id for spec in rule_options.RULE_OPTIONS]
    assert ids == sorted(set(ids))
    for spec in (*repair.OPTIONS, *production.OPTIONS):
        assert spec in rule_options.RULE_OPTIONS
    assert {"repair-points", "substitutions-per-turn", "economy-fractions"} <= set(ids)


def test_rule_option_values_are_the_choices_or_the_defaults(wind_2b3: FeState) -> None:
    defaults = rule_options.values(wind_2b3)
    assert defaults["substitutions-per-turn"] == 2
    assert defaults["repair-points"] == "defense"
    chosen = rule_options.values(with_options(wind_2b3, substitutions_per_turn=3))
    assert chosen["substitutions-per-turn"] == 3
    assert chosen["repair-points"] == "defense"
