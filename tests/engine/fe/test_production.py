"""Production (431.0), substitutions (450.4), conversions (433.x) and replacements (501.5)
with The Wind's real schedules on small hand-made boards."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec
import pytest

from engine.fe.conversions import conversion_capacity
from engine.fe.forces import Board, Unit
from engine.fe.galaxy import HexId, load_galaxy
from engine.fe.oob import Batch
from engine.fe.production import (
    Build,
    Convert,
    ProductionOptions,
    ProductionOrders,
    Replace,
    apply_builds,
    build_sites,
    check_builds,
    next_ids,
    production_options,
    schedule_label,
    scheduled,
)
from engine.fe.scenario import find_scenario

GALAXY = load_galaxy()
CAPITAL = 1411


def schedule(empire: str) -> tuple[Batch, ...]:
    scenario = find_scenario("the-wind")
    assert scenario is not None and scenario.setup is not None
    setup = scenario.setup.empire(empire)
    assert setup is not None
    return setup.production


def klingons(*extra: Unit) -> Board:
    return Board(
        units=(
            Unit("KLI-0001", "KLI", "SB", CAPITAL),
            Unit("KLI-0002", "KLI", "D7", CAPITAL),
            Unit("KLI-0007", "KLI", "F5", 1509),
            Unit("KLI-0010", "KLI", "SB", 1509),
            Unit("KLI-0011", "KLI", "F5", 1509),
            Unit("KZI-0099", "KZI", "BC", 1401),
            *extra,
        )
    )


def check(
    orders: ProductionOrders,
    treasury2: int = 2 * 142,
    board: Board | None = None,
    empire: str = "KLI",
    turn: int = 1,
    *,
    shipyards: Sequence[HexId] = (),
    unsupplied: Sequence[HexId] = (),
    options: ProductionOptions | None = None,
) -> list[str]:
    """The refusals as "message (rule)" lines."""
    found = check_builds(
        GALAXY, board or klingons(), empire, turn, treasury2, schedule(empire), orders,
        shipyards=shipyards, unsupplied=unsupplied, options=options,
    )  # fmt: skip
    return [f"{v.message} ({v.rule})" for v in found]


def whole_schedule(turn: int = 1) -> tuple[Build, ...]:
    slots = scheduled(schedule("KLI"), turn)
    return tuple(Build(cls, CAPITAL) for cls, count in slots.items() for _ in range(count))


def test_the_schedule_of_a_turn_lists_its_slots() -> None:
    assert scheduled(schedule("KLI"), 1) == {
        "D7C": 1, "D7": 1, "D6": 1, "D5": 9, "F5": 4, "F5L": 2, "E4": 3,
    }  # fmt: skip
    assert scheduled(schedule("KLI"), 0) == {}  # Spring Y168: no batch of that season yet


def test_schedules_repeat_by_season_until_a_later_batch_replaces_them() -> None:
    """431.0 (I, rules notes): the source lists changes. KLI has a Fall Y168 and a Spring Y169
    batch: every later fall uses Fall Y168's, every later spring Spring Y169's."""
    fall, spring = scheduled(schedule("KLI"), 1), scheduled(schedule("KLI"), 2)
    assert fall != spring and "C8" in spring and "C8" not in fall
    assert [scheduled(schedule("KLI"), t) for t in (3, 4, 5, 6)] == [fall, spring, fall, spring]
    assert schedule_label(schedule("KLI"), 5) == "the Fall Y168 schedule"
    assert schedule_label(schedule("KLI"), 6) == "the Spring Y169 schedule"
    # the Kzinti list four batches: Fall Y169 replaces Fall Y168, Spring Y170 Spring Y169
    assert schedule_label(schedule("KZI"), 1) == "the Fall Y168 schedule"
    assert schedule_label(schedule("KZI"), 3) == "the Fall Y169 schedule"
    assert schedule_label(schedule("KZI"), 5) == "the Fall Y169 schedule"
    assert schedule_label(schedule("KZI"), 6) == "the Spring Y170 schedule"
    assert scheduled(schedule("KZI"), 7)["FF"] == 5
    # the Hydrans have nothing before Fall Y169; the Federation nothing before Fall Y171
    assert schedule_label(schedule("HYD"), 2) == "no spring schedule yet"
    assert scheduled(schedule("HYD"), 4) == scheduled(schedule("HYD"), 6) != {}
    assert scheduled(schedule("FED"), 6) == {}


def test_a_batch_without_a_season_is_the_spring_schedule() -> None:
    batch = msgspec.json.decode(b'{"year": 169, "units": [{"unit": "D7"}]}', type=Batch)
    assert batch.season == "spring"
    assert scheduled((batch,), 2) == scheduled((batch,), 4) == {"D7": 1}
    assert scheduled((batch,), 3) == {}


@pytest.mark.parametrize("turn", [3, 4, 5, 6])
def test_the_klingons_build_their_schedule_on_turns_3_to_6(turn: int) -> None:
    builds = whole_schedule(turn)
    assert builds, f"nothing scheduled on turn {turn}"
    assert check(ProductionOrders(builds=builds), turn=turn, treasury2=2 * 500) == []
    done = apply_builds(
        GALAXY, klingons(), "KLI", turn, 2 * 500, schedule("KLI"), ProductionOrders(builds=builds)
    )
    assert len(done.new_units) == len(builds)


def test_a_build_off_the_repeated_schedule_names_the_schedule_used() -> None:
    # C8 is on the spring schedule only: refused in Fall Y169, allowed in Spring Y170
    c8 = ProductionOrders(builds=(Build("C8", CAPITAL),))
    assert check(c8, turn=3) == [
        "C8 is not on KLI's production schedule for Fall Y169 (turn 3) "
        "(the Fall Y168 schedule) (431.0)"
    ]
    assert check(c8, turn=4) == []
    two = ProductionOrders(builds=(Build("D7C", CAPITAL), Build("D7C", CAPITAL)))
    assert check(two, turn=5) == [
        "the Fall Y168 schedule for Fall Y170 (turn 5) allows 1 D7C, 2 ordered (431.0)"
    ]


def test_the_whole_schedule_within_budget_is_built_at_the_capital() -> None:
    orders = ProductionOrders(builds=whole_schedule())
    assert check(orders) == []
    done = apply_builds(GALAXY, klingons(), "KLI", 1, 2 * 142, schedule("KLI"), orders)
    # D7C 9 (its substitution price), D7 8, D6 8, 9 D5 45, 4 F5 12, 2 F5L 8, 3 E4 7.5
    assert done.cost2 == 2 * 97 + 1
    assert done.treasury2 == 2 * 142 - done.cost2
    assert done.new_units[0] == "KLI-0012" and done.new_units[-1] == "KLI-0032"
    new = [done.board.unit(uid) for uid in done.new_units]
    assert all(u.hex == CAPITAL and u.empire == "KLI" and not u.fleet for u in new)
    assert [u.cls for u in new[:3]] == ["D7C", "D7", "D6"]


def test_a_build_off_the_schedule_is_refused() -> None:
    assert check(ProductionOrders(builds=(Build("C8", CAPITAL),))) == [
        "C8 is not on KLI's production schedule for Fall Y168 (turn 1) "
        "(the Fall Y168 schedule) (431.0)"
    ]
    two = ProductionOrders(builds=(Build("D7", CAPITAL), Build("D7", CAPITAL)))
    assert check(two) == [
        "the Fall Y168 schedule for Fall Y168 (turn 1) allows 1 D7, 2 ordered (431.0)"
    ]
    assert check(ProductionOrders(builds=(Build("XX", CAPITAL),))) == [
        "KLI has no unit class 'XX' (431.0)"
    ]


def test_new_units_appear_only_at_a_capital_still_held_or_a_shipyard() -> None:
    away = ProductionOrders(builds=(Build("D5", 1509),))
    assert check(away) == [
        "new D5 may not appear in 1509: the capital or a shipyard (1411) (431.0)"
    ]
    assert check(away, shipyards=[1509]) == []
    lost = Board(units=klingons().units, owners=((CAPITAL, "KZI"),))
    assert build_sites(GALAXY, lost, "KLI") == ()
    assert "(none held)" in check(ProductionOrders(builds=(Build("D5", CAPITAL),)), board=lost)[0]


def test_a_substitution_within_its_limit() -> None:
    orders = ProductionOrders(
        builds=(
            Build("F5", CAPITAL, instead_of="F5L"),  # 3 EP in a 4 EP slot
            Build("D6D", CAPITAL, instead_of="D6"),  # the drone variant, 11 EP
            Build("F5L", CAPITAL),
        )
    )
    assert check(orders) == []
    done = apply_builds(GALAXY, klingons(), "KLI", 1, 200, schedule("KLI"), orders)
    assert done.cost2 == 2 * (3 + 11 + 4)
    assert [done.board.unit(u).cls for u in done.new_units] == ["F5", "D6D", "F5L"]


def test_substitutions_beyond_the_limit_or_not_allowed_are_refused() -> None:
    three = ProductionOrders(
        builds=(
            Build("E4", CAPITAL, instead_of="F5"),  # 450.4 list, limited
            Build("E4", CAPITAL, instead_of="F5"),
            Build("D6D", CAPITAL, instead_of="D6"),  # its own row's variant: counted (C)
        )
    )
    assert check(three) == [
        "3 limited substitutions ordered (E4 for F5, E4 for F5, D6D for D6), at most 2 per "
        "turn (those marked with a dagger are not counted) (450.4)"
    ]
    assert check(three, options=production_options({"substitutions-per-turn": 0})) == []
    assert check(three, options=ProductionOptions(substitution_limit=3)) == []
    early = ProductionOrders(builds=(Build("D7C", CAPITAL, instead_of="D7"),))
    assert check(early) == ["D7C may substitute for D7 only from Y179 (450.4)"]
    wrong = ProductionOrders(builds=(Build("D5", CAPITAL, instead_of="F5"),))
    assert check(wrong) == ["D5 may not substitute for F5 (450.4)"]


def test_dagger_substitutions_are_not_limited() -> None:
    """450.4: "F5 for F5W or F5L†", "D6 for C8 or D7†": three in one turn, with two limited
    ones besides, are allowed; a third limited one is refused with the count."""
    daggers = (
        Build("F5", CAPITAL, instead_of="F5L"),
        Build("F5", CAPITAL, instead_of="F5L"),
        Build("D6", CAPITAL, instead_of="D7"),
    )
    assert check(ProductionOrders(builds=daggers)) == []
    two = (Build("E4", CAPITAL, instead_of="F5"), Build("F5L", CAPITAL, instead_of="D6"))
    assert check(ProductionOrders(builds=(*daggers, *two))) == []
    done = apply_builds(
        GALAXY, klingons(), "KLI", 1, 2 * 142, schedule("KLI"),
        ProductionOrders(builds=(*daggers, *two)),
    )  # fmt: skip
    # F5 3 EP twice, D6 at its own price 8, E4 2.5, F5L 4: a 450.4 substitute pays its price
    assert done.cost2 == 2 * (3 + 3 + 8 + 4) + 5
    third = ProductionOrders(builds=(*daggers, *two, Build("E4", CAPITAL, instead_of="F5")))
    assert check(third) == [
        "3 limited substitutions ordered (E4 for F5, F5L for D6, E4 for F5), at most 2 per "
        "turn (those marked with a dagger are not counted) (450.4)"
    ]


def test_federation_destroyers_for_any_dn_cc_or_ncl_are_not_limited() -> None:
    """450.4 FED: "DD for any DN or CC†", "DD for CA or NCL†"; "CL for any DN or CC or CA" is
    limited. A hand-made batch: The Wind's Federation has no schedule before Fall Y171."""
    batch = msgspec.json.decode(
        b'{"year": 168, "season": "fall", "units": [{"unit": "DN"}, {"unit": "CC"}, '
        b'{"unit": "NCL"}, {"unit": "CA", "count": 3}]}',
        type=Batch,
    )
    board = Board(units=(Unit("FED-0001", "FED", "SB", 2908),))
    daggers = tuple(Build("DD", 2908, instead_of=slot) for slot in ("DN", "CC", "NCL", "CA"))
    orders = ProductionOrders(builds=daggers)
    assert check_builds(GALAXY, board, "FED", 1, 2 * 100, (batch,), orders) == []
    limited = ProductionOrders(builds=(*daggers, *(Build("CL", 2908, "CA") for _ in range(2))))
    assert check_builds(GALAXY, board, "FED", 1, 2 * 100, (batch,), limited) == []
    over = ProductionOrders(builds=(*daggers[:3], *(Build("CL", 2908, "CA") for _ in range(3))))
    (problem,) = check_builds(GALAXY, board, "FED", 1, 2 * 100, (batch,), over)
    assert problem.rule == "450.4"
    assert problem.message.startswith("3 limited substitutions ordered (CL for CA, CL for CA")


def test_the_spring_schedule_takes_daggers_for_its_c8_and_d7s() -> None:
    spring = ProductionOrders(
        builds=(
            Build("D7", CAPITAL, instead_of="C8"),  # "D7C or D7 for C8†"
            Build("D6", CAPITAL, instead_of="D7"),  # "D6 for C8 or D7†"
            Build("D6", CAPITAL, instead_of="D7"),
        )
    )
    assert check(spring, turn=2) == check(spring, turn=4) == []
    assert check(spring, turn=3) == [
        "C8 is not on KLI's production schedule for Fall Y169 (turn 3) "
        "(the Fall Y168 schedule) (431.0)",
        "the Fall Y168 schedule for Fall Y169 (turn 3) allows 1 D7, 2 ordered (431.0)",
    ]


def test_a_hull_slot_is_filled_by_a_class_and_is_not_a_substitution() -> None:
    board = Board(units=(Unit("HYD-0001", "HYD", "SB", 617),))
    slot = ProductionOrders(builds=(Build("CC", 617),))
    assert check(slot, board=board, empire="HYD", turn=3) == [
        "CC is a production slot, not a class: build a class that fills it (431.0)"
    ]
    filled = ProductionOrders(
        builds=(
            Build("LM", 617, instead_of="CC"),  # fills the CC slot: not a substitution
            Build("AH", 617, instead_of="HN"),
            Build("AH", 617, instead_of="HN"),
        )
    )
    assert check(filled, board=board, empire="HYD", turn=3) == []
    done = apply_builds(GALAXY, board, "HYD", 3, 100, schedule("HYD"), filled)
    assert done.cost2 == (16 + 6) + 2 * 7
    assert done.new_units == ("HYD-0002", "HYD-0003", "HYD-0004")
    one_more = ProductionOrders(builds=(*filled.builds, Build("AH", 617, instead_of="HN")))
    assert check(one_more, board=board, empire="HYD", turn=3) == [
        "3 limited substitutions ordered (AH for HN, AH for HN, AH for HN), at most 2 per turn "
        "(those marked with a dagger are not counted) (450.4)"
    ]
    # a 450.4 list substitution into a hull slot counts ("HR for PAL or CC or CA")
    listed = ProductionOrders(builds=(Build("HR", 617, instead_of="CC"), *filled.builds[1:]))
    assert check(listed, board=board, empire="HYD", turn=3) == [
        "3 limited substitutions ordered (HR for CC, AH for HN, AH for HN), at most 2 per turn "
        "(those marked with a dagger are not counted) (450.4)"
    ]


def test_overspending_is_refused_with_the_numbers() -> None:
    orders = ProductionOrders(
        builds=tuple(Build("D5", CAPITAL) for _ in range(6))
        + tuple(Build("E4", CAPITAL) for _ in range(3))
    )
    assert check(orders, treasury2=62) == ["builds cost 37.5 EP, treasury 31 EP (431.0)"]
    with pytest.raises(ValueError, match=r"builds cost 37\.5 EP"):
        apply_builds(GALAXY, klingons(), "KLI", 1, 62, schedule("KLI"), orders)
    assert check(orders, treasury2=75) == []


def test_a_minor_conversion_at_a_starbase() -> None:
    orders = ProductionOrders(conversions=(Convert("KLI-0007", "F5L"),))
    assert check(orders) == []
    done = apply_builds(GALAXY, klingons(), "KLI", 1, 10, schedule("KLI"), orders)
    assert done.board.unit("KLI-0007").cls == "F5L" and done.cost2 == 4
    assert done.new_units == () and done.treasury2 == 6


def test_each_starbase_converts_one_minor_a_turn() -> None:
    two = ProductionOrders(conversions=(Convert("KLI-0007", "F5L"), Convert("KLI-0011", "F5L")))
    assert check(two) == [
        "conversions at 1509: 0 major and 2 minor ordered, capacity 0 major and 1 minor (433.1)"
    ]
    nowhere = klingons(Unit("KLI-0020", "KLI", "F5", 1210))
    orders = ProductionOrders(conversions=(Convert("KLI-0020", "F5L"),))
    assert check(orders, board=nowhere) == [
        "conversions at 1210: 0 major and 1 minor ordered, capacity 0 major and 0 minor (433.1)"
    ]


def test_major_conversions_happen_at_the_capital() -> None:
    board = klingons(
        Unit("KLI-0020", "KLI", "D7", CAPITAL),
        Unit("KLI-0021", "KLI", "D7", CAPITAL),
        Unit("KLI-0022", "KLI", "D7", 1509),
    )
    assert conversion_capacity(GALAXY, board, "KLI", CAPITAL) == (2, 1)
    assert conversion_capacity(GALAXY, board, "KLI", CAPITAL, extra_major=True) == (3, 1)
    assert conversion_capacity(GALAXY, board, "KLI", 1509) == (0, 1)
    two = (Convert("KLI-0002", "D6M"), Convert("KLI-0020", "D6M"))
    assert check(ProductionOrders(conversions=two), board=board) == []
    three = ProductionOrders(conversions=(*two, Convert("KLI-0021", "D6M")))
    assert check(three, board=board) == [
        "conversions at 1411: 3 major and 0 minor ordered, capacity 2 major and 1 minor (433.1)"
    ]
    bought = ProductionOrders(conversions=three.conversions, extra_major=True)
    assert check(bought, board=board) == []
    done = apply_builds(GALAXY, board, "KLI", 1, 100, schedule("KLI"), bought)
    assert done.cost2 == 3 * 10 + 10  # three 5 EP conversions and the 5 EP extra one
    away = ProductionOrders(conversions=(Convert("KLI-0022", "D6M"),))
    assert check(away, board=board) == [
        "conversions at 1509: 1 major and 0 minor ordered, capacity 0 major and 1 minor (433.1)"
    ]


def test_conversions_that_stay_manual_or_are_not_allowed() -> None:
    board = klingons(
        Unit("KLI-0020", "KLI", "D7", CAPITAL, crippled=True),
        Unit("KLI-0021", "KLI", "MB", CAPITAL),
    )
    orders = ProductionOrders(
        conversions=(
            Convert("KLI-0020", "D6M"),
            Convert("KLI-0021", "BATS"),
            Convert("KLI-0002", "F5L"),
            Convert("KLI-0002", "C8S"),
            Convert("KZI-0099", "CV"),
        )
    )
    assert check(orders, board=board) == [
        "KLI-0020 (D7) is crippled: repair it before converting (433.44) (433.1)",
        "BATS is a base: base upgrades need a tug (433.41) and stay manual (433.1)",
        "D7 cannot be converted into F5L (433.1)",
        "D7 cannot be converted into C8S (433.1)",
        "KZI-0099 is not a unit of KLI (433.1)",
    ]


def test_fighter_and_pf_replacement_costs_on_a_carrier_and_a_base() -> None:
    board = Board(
        units=(
            Unit("KZI-0001", "KZI", "CV", 1401),
            Unit("KZI-0002", "KZI", "SB", 1401),
            Unit("KZI-0003", "KZI", "PDU", 1401),
        )
    )
    carrier = ProductionOrders(replacements=(Replace("KZI-0001", fighters2=6),))
    base = ProductionOrders(replacements=(Replace("KZI-0002", fighters2=6),))
    pdu = ProductionOrders(replacements=(Replace("KZI-0003", fighters2=6),))

    def cost(orders: ProductionOrders) -> int:
        done = apply_builds(GALAXY, board, "KZI", 1, 100, schedule("KZI"), orders)
        assert done.board == board  # losses are not tracked on the board yet
        return done.cost2

    assert cost(carrier) == 2 * 6  # 3 factors x 2 EP
    assert cost(base) == 2 * 3  # 3 factors x 1 EP
    assert cost(pdu) == 3  # 3 factors x 0.5 EP
    too_many = ProductionOrders(replacements=(Replace("KZI-0001", fighters2=14),))
    assert check(too_many, board=board, empire="KZI") == [
        "KZI-0001 (CV) carries at most 6 fighter factors, 7 ordered (501.5)"
    ]
    no_pfs = ProductionOrders(replacements=(Replace("KZI-0002", pfs=1),))
    assert check(no_pfs, board=board, empire="KZI") == [
        "KZI-0002 (SB) carries at most 0 PFs, 1 ordered (502.43)"
    ]
    assert check(carrier, board=board, empire="KZI", unsupplied=[1401]) == [
        "KZI-0001 (CV) is not in supply: no replacements (501.5)"
    ]
    assert check(carrier, treasury2=11, board=board, empire="KZI") == [
        "builds cost 6 EP, treasury 5.5 EP (431.0)"
    ]


def test_new_ids_continue_after_the_highest_of_the_empire() -> None:
    board = klingons(Unit("KLI-0100", "KLI", "D5", 0), Unit("KZI-0500", "KZI", "FF", 0))
    assert next_ids(board, "KLI", 2) == ("KLI-0101", "KLI-0102")
    assert next_ids(Board(), "KZI", 1) == ("KZI-0001",)


def test_production_is_deterministic() -> None:
    orders = ProductionOrders(
        builds=whole_schedule(),
        conversions=(Convert("KLI-0007", "F5L"),),
    )
    first = apply_builds(GALAXY, klingons(), "KLI", 1, 300, schedule("KLI"), orders)
    again = apply_builds(GALAXY, klingons(), "KLI", 1, 300, schedule("KLI"), orders)
    assert first == again
    assert check(orders, treasury2=300) == check(orders, treasury2=300)
