"""Battle forces (302.3) on small hand-made stacks of Lyran and Kzinti units."""

from __future__ import annotations

from engine.fe.combat.forces import (
    BattleForce,
    CarrierGroup,
    Forward,
    count_force,
    eligible_flagships,
    force_problems,
    force_targets,
    reserve,
    support_echelon,
)
from engine.fe.forces import Unit

HEX = 1010


def lyr(unit_id: str, cls: str, crippled: bool = False) -> Unit:
    return Unit(unit_id, "LYR", cls, HEX, crippled)


def kzi(unit_id: str, cls: str, crippled: bool = False) -> Unit:
    return Unit(unit_id, "KZI", cls, HEX, crippled)


def fleet(frigates: int) -> list[Unit]:
    """A Lyran DN (command 10), a scout SC and ``frigates`` frigates."""
    return [lyr("DN-1", "DN"), lyr("SC-1", "SC")] + [
        lyr(f"FF-{i:02d}", "FF") for i in range(1, frigates + 1)
    ]


def ids(units: list[Unit]) -> tuple[str, ...]:
    return tuple(u.id for u in units)


def test_ten_units_and_a_free_scout_fit_a_rating_of_ten() -> None:
    units = fleet(9)
    force = BattleForce("DN-1", ids(units))
    count = count_force(force, units)
    assert (count.units, count.limit, count.free_scout) == (10, 10, "SC-1")
    assert force_problems(force, units) == []


def test_a_force_over_its_command_rating_is_refused_with_both_numbers() -> None:
    units = fleet(10)
    problems = force_problems(BattleForce("DN-1", ids(units)), units)
    assert [p.rule for p in problems] == ["302.33"]
    assert problems[0].message.startswith(
        "the force counts 11 (11 units, the scout SC-1 free) against a command rating of 10"
    )
    assert "flagship DN DN-1 rated 10" in problems[0].message


def test_the_flagship_counts_option_takes_the_flagship_out_of_its_own_limit() -> None:
    units = fleet(10)
    force = BattleForce("DN-1", ids(units))
    assert force_problems(force, units, flagship_counts=False) == []
    over = fleet(11)
    problems = force_problems(BattleForce("DN-1", ids(over)), over, flagship_counts=False)
    assert "counts 11" in problems[0].message


def test_an_admiral_and_command_points_raise_the_limit() -> None:
    units = fleet(11)
    force = BattleForce("DN-1", ids(units))
    assert "counts 12" in force_problems(force, units, admiral=1)[0].message
    assert "rating of 11" in force_problems(force, units, admiral=1)[0].message
    assert force_problems(force, units, admiral=1, command_points=1) == []
    message = force_problems(force, units, command_points=1)[0].message
    assert "rated 10 + 1 command points)" in message


def test_only_a_unit_among_the_three_highest_rated_may_be_flagship() -> None:
    units = [
        lyr("DN-1", "DN"),
        lyr("BC-1", "BC"),
        lyr("CA-1", "CA"),
        lyr("CC-1", "CC"),
        lyr("CW-1", "CW"),
    ]
    # ratings 10, 10, 9, 9, 6: the third best is 9, and both 9s are eligible
    assert eligible_flagships(units) == ("DN-1", "BC-1", "CA-1", "CC-1")
    problems = force_problems(BattleForce("CW-1", ids(units)), units)
    assert [p.rule for p in problems] == ["302.32"]
    assert problems[0].message == (
        "CW CW-1 has command rating 6; the flagship must be one of the three highest rated: "
        "BC-1 (10), DN-1 (10), CA-1 (9), CC-1 (9)"
    )
    assert force_problems(BattleForce("CC-1", ids(units)), units) == []


def test_the_flagship_must_be_in_the_force_and_the_one_named_at_withdrawal() -> None:
    units = fleet(2)
    outside = BattleForce("DN-1", ("SC-1", "FF-01"))
    assert [p.rule for p in force_problems(outside, units)] == ["302.32"]
    assert force_problems(BattleForce("", ids(units)), units)[0].message == (
        "the battle force has no flagship"
    )
    units = [lyr("DN-1", "DN"), lyr("BC-1", "BC")]
    problems = force_problems(BattleForce("BC-1", ids(units)), units, fixed_flagship="DN-1")
    assert [p.rule for p in problems] == ["302.133"]
    assert "DN-1 was named flagship" in problems[0].message


def test_units_must_be_the_sides_own_in_the_hex_and_named_once() -> None:
    units = fleet(1)
    force = BattleForce("DN-1", ("DN-1", "FF-01", "FF-01", "KZI-9"))
    messages = [(p.message, p.rule) for p in force_problems(force, units)]
    assert ("FF-01 is named twice in the battle force", "302.31") in messages
    assert ("KZI-9 is not one of this side's units in the battle hex", "302.31") in messages


def test_fighters_sent_forward_count_for_command_and_at_most_three_ship_equivalents() -> None:
    carriers = [kzi(f"CV-{i}", "CV") for i in range(1, 5)]  # 6 fighter factors each
    units = [kzi("DN-1", "DN"), *carriers]
    sent = tuple(Forward(c.id, fighters2=12) for c in carriers)
    force = BattleForce("DN-1", ("DN-1",), forward=sent)
    problems = force_problems(force, units)
    assert [p.rule for p in problems] == ["302.332A"]
    assert "4 ship equivalents of fighters and PFs sent forward; at most 3" in problems[0].message
    three = BattleForce("DN-1", ("DN-1",), forward=sent[:3])
    assert force_problems(three, units) == []
    assert count_force(three, units).counted == 4
    assert support_echelon(three) == ("CV-1", "CV-2", "CV-3")
    assert reserve(three, units) == ("CV-4",)


def test_a_started_squadron_counts_a_whole_ship_equivalent_against_the_limit() -> None:
    units = [kzi("DN-1", "DN"), kzi("CV-1", "CV")] + [kzi(f"FF-{i}", "FF") for i in range(9)]
    force = BattleForce("DN-1", ("DN-1", *(f"FF-{i}" for i in range(9))), (Forward("CV-1", 2),))
    problems = force_problems(force, units)
    assert [p.rule for p in problems] == ["302.33"]
    assert problems[0].message.startswith(
        "the force counts 11 (10 units, 1 ship equivalents of fighters and PFs) "
        "against a command rating of 10"
    )


def test_the_support_echelon_sends_what_it_has_from_outside_the_force() -> None:
    units = [kzi("DN-1", "DN"), kzi("CV-1", "CV"), kzi("CV-2", "CV", crippled=True)]
    inside = BattleForce("DN-1", ("DN-1", "CV-1"), (Forward("CV-1", 12),))
    assert [p.rule for p in force_problems(inside, units)] == ["302.563"]
    too_many = BattleForce("DN-1", ("DN-1",), (Forward("CV-2", 12),))
    problems = force_problems(too_many, units)
    assert [p.message for p in problems] == [
        "CV-2 sends 6 fighter factors and 0 PFs forward; it has 3 and 0"
    ]
    empty = BattleForce("DN-1", ("DN-1",), (Forward("CV-1"),))
    assert [(p.message, p.rule) for p in force_problems(empty, units)] == [
        ("CV-1 is named in the support echelon but sends nothing forward", "302.563")
    ]


def test_carrier_groups_stay_together() -> None:
    units = [lyr("DN-1", "DN"), lyr("CV-1", "CV"), lyr("CWE-1", "CWE"), lyr("DWE-1", "DWE")]
    group = CarrierGroup("CV-1", ("CWE-1", "DWE-1"))
    split = BattleForce("DN-1", ("DN-1", "CV-1", "CWE-1"))
    problems = force_problems(split, units, groups=[group])
    assert [(p.message, p.rule) for p in problems] == [
        (
            "the carrier group of CV-1 stays together: CV-1, CWE-1 in the battle force, "
            "DWE-1 left out",
            "515.15",
        )
    ]
    whole = BattleForce("DN-1", ("DN-1", "CV-1", "CWE-1", "DWE-1"))
    assert force_problems(whole, units, groups=[group]) == []
    left_out = BattleForce("DN-1", ("DN-1",))
    assert force_problems(left_out, units, groups=[group]) == []
    assert reserve(left_out, units) == ("CV-1", "CWE-1", "DWE-1")


def test_only_carriers_and_escorts_form_groups() -> None:
    units = [lyr("DN-1", "DN"), lyr("CV-1", "CV"), lyr("FF-1", "FF")]
    bad = [CarrierGroup("DN-1", ("FF-1",))]
    messages = [
        p.message for p in force_problems(BattleForce("DN-1", ("DN-1",)), units, groups=bad)
    ]
    assert "DN-1 is not a carrier in the hex" in messages
    assert "FF-1 is not an escort in the hex (group of DN-1)" in messages


def test_force_targets_put_the_support_echelon_after_the_force() -> None:
    units = [kzi("DN-1", "DN"), kzi("CV-1", "CV"), kzi("FF-1", "FF", crippled=True)]
    force = BattleForce("DN-1", ("FF-1", "DN-1"), (Forward("CV-1", 6),))
    targets = force_targets(force, units)
    assert [(t.id, t.echelon, t.def2, t.crippled, t.fighters2) for t in targets] == [
        ("DN-1", "force", 24, False, 0),
        ("FF-1", "force", 8, True, 0),
        ("CV-1", "support", 20, False, 6),
    ]


def test_the_reserve_can_be_listed_for_directed_damage_to_refuse_by_name() -> None:
    units = [kzi("DN-1", "DN"), kzi("CL-1", "CL")]
    targets = force_targets(BattleForce("DN-1", ("DN-1",)), units, with_reserve=True)
    assert [(t.id, t.echelon) for t in targets] == [("DN-1", "force"), ("CL-1", "reserve")]
