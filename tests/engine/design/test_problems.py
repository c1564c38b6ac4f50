"""Impossible designs: each is derived whole but carries a Problem naming the input and the rule."""

from __future__ import annotations

import pytest

from engine.design import derive, make_inputs


def _problems(values: dict[str, object]) -> list[tuple[str, str, str]]:
    design = derive(make_inputs(values))
    assert design.possible is (not design.problems)
    return [(p.field, p.rule, p.message) for p in design.problems]


def test_a_sensible_design_has_no_problem() -> None:
    assert _problems({"size": 2, "tl": 15, "shielding": 3, "armor": 1, "speed": 1}) == []


def test_shielding_larger_than_the_unusable_space_is_refused() -> None:
    # Size -10: volume 1 = habitable 1, so no unusable space; level 1 needs 1/20. (Such a hull
    # has no room for sensors either: 1 x (40 - 15) = 25 of surface against 1.)
    found = _problems({"size": -10, "tl": 15, "supply_months": 0, "gs": 0, "shielding": 1})
    assert next((f, r) for f, r, _ in found) == (
        "shielding",
        "shielding must fit in the unusable space",
    )
    assert [f for f, _, _ in found] == ["shielding", "sensors"]
    assert "needs 0.05 spaces but only 0 of the 0" in found[0][2]


def test_supply_shielding_and_hull_that_fill_the_unusable_space_exactly_fit() -> None:
    # Size -7: volume 64, habitable 16, unusable 48 = supply 6.4 + level 8 25.6 + 1 G 16.
    values: dict[str, object] = {"size": -7, "tl": 15, "supply_months": 1, "gs": 1}
    assert _problems({**values, "shielding": 8}) == []
    assert derive(make_inputs({**values, "shielding": 8})).figure("unusable_space_free").value == 0
    # One level more (3.2 spaces) and the hull, placed last, no longer fits.
    assert [f for f, _, _ in _problems({**values, "shielding": 9})] == ["gs"]


def test_shielding_must_fit_in_what_the_supply_leaves() -> None:
    # Size -7: supply 64 x 4 / 10 = 25.6 first, then level 8 needs 25.6 of the 22.4 left.
    found = _problems({"size": -7, "tl": 15, "supply_months": 4, "gs": 0, "shielding": 8})
    assert [f for f, _, _ in found] == ["shielding"]
    assert "needs 25.6 spaces but only 22.4 of the 48" in found[0][2]


def test_supply_that_overflows_the_unusable_space_is_the_supplys_problem() -> None:
    # Size 0: volume 1331, unusable 1210; 10 months of supply take 1331.
    found = _problems({"size": 0, "tl": 15, "supply_months": 10, "shielding": 5})
    assert [f for f, _, _ in found] == ["supply_months"]


def test_a_hull_g_structure_that_does_not_fit_is_the_gs_problem() -> None:
    # Size 0: supply 133.1, then 10 G's need 10 x 121 = 1210 of the 1076.9 left.
    found = _problems({"size": 0, "tl": 15, "gs": 10})
    assert [(f, r) for f, r, _ in found] == [
        ("gs", "the hull's G structure must fit in the unusable space")
    ]
    assert "1076.9" in found[0][2]


def test_speed_below_0_is_refused() -> None:
    found = _problems({"size": 2, "tl": 15, "speed": -1})
    assert [(f, r) for f, r, _ in found] == [("speed", "speed cannot be below 0")]


def test_armor_penalty_pushing_speed_below_0_is_armors_problem() -> None:
    # Size +2, speed 0: three allowances used cost two points of speed: 0 - 2 = -2.
    found = _problems({"size": 2, "tl": 15, "armor": 3})
    assert [(f, r) for f, r, _ in found] == [("armor", "speed cannot be below 0")]
    assert "gives -2" in found[0][2]


def test_maneuver_below_minus_6_is_refused_even_with_the_unused_armor_bonus() -> None:
    found = _problems({"size": 2, "tl": 15, "maneuver": -7})
    assert [(f, r) for f, r, _ in found] == [("maneuver", "maneuver cannot be below -6")]


def test_maneuver_minus_6_is_allowed() -> None:
    assert _problems({"size": -5, "tl": 15, "maneuver": -6}) == []


def test_armor_penalty_pushing_maneuver_below_minus_6_is_armors_problem() -> None:
    # Size +5, speed 2 (speed 2 - 1 = 1 stays legal), maneuver -6, two allowances: -7.
    found = _problems({"size": 5, "tl": 15, "speed": 2, "maneuver": -6, "armor": 2})
    assert [(f, r) for f, r, _ in found] == [("armor", "maneuver cannot be below -6")]


@pytest.mark.parametrize(("size", "speed"), [(-3, 1), (0, 0), (-10, 10)])
def test_armor_on_a_ship_whose_size_plus_speed_is_under_1_is_refused(size: int, speed: int) -> None:
    found = _problems({"size": size, "tl": 15, "speed": speed, "armor": 1})
    assert ("armor", "a ship whose SIZE + speed is under 1 cannot carry armor") in [
        (f, r) for f, r, _ in found
    ]


def test_armor_at_size_plus_speed_exactly_1_is_allowed() -> None:
    assert _problems({"size": 0, "tl": 15, "speed": 1, "armor": 1}) == []


def test_sensors_larger_than_their_surface_are_refused() -> None:
    # Size -5: volume 216; sensors 3 at TL 15 need 9 x 25 = 225.
    found = _problems({"size": -5, "tl": 15, "sensors": 3})
    assert [(f, r) for f, r, _ in found] == [
        ("sensors", "sensors must fit in the hull surface they share with radiators")
    ]
    assert "need 225 of surface but the hull has 216" in found[0][2]


def test_every_problem_names_a_real_input() -> None:
    from engine.design import FIELDS_BY_NAME

    found = _problems(
        {"size": -10, "tl": 15, "speed": -1, "maneuver": -7, "armor": 2, "shielding": 1}
    )
    assert {f for f, _, _ in found} == {"supply_months", "armor", "speed", "maneuver", "sensors"}
    assert all(f in FIELDS_BY_NAME for f, _, _ in found)


def test_every_corner_of_the_input_ranges_derives_without_error_or_float() -> None:
    from itertools import product

    from engine.design import INPUT_FIELDS, design_json

    ends = [(field.minimum, field.maximum) for field in INPUT_FIELDS]
    for corner in product(*ends):
        values = {field.name: value for field, value in zip(INPUT_FIELDS, corner, strict=True)}
        design = derive(make_inputs(values))
        assert all(type(figure.value).__name__ == "Fraction" for figure in design.figures)
        data = design_json(design)
        assert data["possible"] is (not design.problems)
