"""Every figure of two designs against values worked by hand (the workings are in the comments).

Design A is the source's size +2 example hull (13 on a side: 169 habitable space) at TL 15;
design B a negative-size hull (size -3, 8 on a side) at TL 12 with armor past its allowance.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from engine.design import DesignInputs, derive, make_inputs

F = Fraction

A = make_inputs(
    {
        "size": "+2",
        "tl": 15,
        "speed": 2,
        "maneuver": 1,
        "gs": 2,
        "supply_months": 3,
        "shielding": 2,
        "sensors": 3,
        "compartments": 2,
        "armor": 0,
        "crew_quality": 1,
    }
)

# n = 2 + 11 = 13.
A_EXPECTED: dict[str, F] = {
    "tech_era": F(2),  # TL 15 is early
    "total_volume": F(2197),  # 13^3
    "surface_area": F(6591),  # 3 x 2197
    "surface_for_use": F(2197),
    "habitable_space": F(169),  # 13^2, the source's own example
    "unusable_space": F(2028),  # 2197 - 169
    "preferred_crew": F(36),  # 12^2 / 4
    "damage_control_crew": F(2),  # 5% of 36 = 1.8, up to 2
    "skeleton_crew": F(9),
    "engineering_crew": F(9),
    "gunnery_crew": F(9),
    "minimum_combat_crew": F(18),
    "crew_cost": F(576, 100),  # Good: 8 per 50 -> 36 x 8/50 = 5.76
    "supply_size": F(6591, 10),  # 2197 x 3 / 10 = 659.1
    "supply_cost": F(6591, 100),  # 65.91
    "months_in_space": F(28),  # (15 - 10)^2 + 3
    "fuel_tanks": F(5),  # 3 months + 2 compartments
    "shielding_level": F(2),
    "shielding_size": F(2197, 10),  # 2 x 2197 / 20 = 219.7
    "shielding_cost": F(4394, 10),  # 2 x 219.7
    "hull_size": F(338),  # 2 x 169
    "hull_cost": F(169),  # 338 / 2
    "hull_hits": F(2),
    "compartments": F(7),  # 5 + 2
    "compartment_cost_change": F(676, 10),  # 169 x 2 x 20%
    "armor_allowance": F(16),  # (2 + 2)^2
    "armor_capacity": F(1024),  # (16 x 2)^2
    "armor_cost": F(0),
    "armor_modifier": F(1),  # an allowance left unused
    "speed": F(3),
    "acceleration": F(4),
    "maneuver": F(2),
    "maneuver_rating": F(8),
    "sensor_area": F(225),  # 3^2 x (40 - 15)
    "sensor_cost": F(0),  # 9 - 25^2 = -616, floored
    "radiator_area": F(1972),  # 2197 - 225
    "radiator_systems": F(9),  # 7 compartments + 2
    "radiator_cost": F(18),
    "hardpoint_capacity": F(6591, 8),  # 823.875
    "turret_capacity": F(6591, 50),  # 131.82
    "command_size_modifier": F(-2),
    "tech_level_cost": F(150),
    "speed_cost": F(26),  # 2 x 13
    "maneuver_cost": F(13),  # 1 x 13
    "reentry_cost": F(13),
    "landing_cost": F(169),
    "flight_cost": F(2197),
    "unusable_space_used": F(12168, 10),  # 659.1 + 219.7 + 338
    "unusable_space_free": F(8112, 10),  # 2028 - 1216.8
    # 150 + 26 + 13 + 5.76 + 65.91 + 439.4 + 169 + 67.6 + 0 + 0 + 18
    "total_cost": F(95467, 100),
}

B = make_inputs(
    {
        "size": -3,
        "tl": 12,
        "speed": 4,
        "maneuver": -2,
        "gs": 1,
        "supply_months": 2,
        "shielding": 1,
        "sensors": 2,
        "compartments": -2,
        "armor": 2,
        "crew_quality": -3,
    }
)

# n = -3 + 11 = 8.
B_EXPECTED: dict[str, F] = {
    "tech_era": F(1),  # TL 12 is primitive
    "total_volume": F(512),
    "surface_area": F(1536),
    "surface_for_use": F(512),
    "habitable_space": F(64),
    "unusable_space": F(448),
    "preferred_crew": F(13),  # 7^2 / 4 = 12.25, up to 13
    "damage_control_crew": F(1),  # 0.65 up
    "skeleton_crew": F(4),  # 3.25 up
    "engineering_crew": F(4),
    "gunnery_crew": F(4),
    "minimum_combat_crew": F(7),  # 6.5 up
    "crew_cost": F(13, 100),  # Militia: 1 per 100
    "supply_size": F(1024, 10),  # 512 x 2 / 10
    "supply_cost": F(1024, 100),
    "months_in_space": F(6),  # 2^2 + 2
    "fuel_tanks": F(0),  # 2 months - 2 compartments
    "shielding_level": F(1),
    "shielding_size": F(256, 10),  # 512 / 20
    "shielding_cost": F(256, 10),
    "hull_size": F(64),
    "hull_cost": F(32),
    "hull_hits": F(1),
    "compartments": F(3),
    "compartment_cost_change": F(-64, 10),  # 32 x -2 x 10%
    "armor_allowance": F(1),  # (-3 + 4)^2
    "armor_capacity": F(9),  # (1 x -3)^2
    "armor_cost": F(1728),  # one allowance past the first: (8 + 4)^3
    "armor_modifier": F(-1),
    "speed": F(3),
    "acceleration": F(4),
    "maneuver": F(-3),
    "maneuver_rating": F(3),
    "sensor_area": F(112),  # 4 x 28
    "sensor_cost": F(0),  # 4 - 22^2 = -480, floored
    "radiator_area": F(400),
    "radiator_systems": F(1),  # 3 - 3 = 0, at least 1
    "radiator_cost": F(2),
    "hardpoint_capacity": F(192),
    "turret_capacity": F(3072, 100),  # 30.72
    "command_size_modifier": F(3),
    "tech_level_cost": F(120),
    "speed_cost": F(32),
    "maneuver_cost": F(-16),
    "reentry_cost": F(8),
    "landing_cost": F(64),
    "flight_cost": F(512),
    "unusable_space_used": F(192),  # 102.4 + 25.6 + 64
    "unusable_space_free": F(256),
    # 120 + 32 - 16 + 0.13 + 10.24 + 25.6 + 32 - 6.4 + 1728 + 0 + 2
    "total_cost": F(192757, 100),
}


@pytest.mark.parametrize(("inputs", "expected"), [(A, A_EXPECTED), (B, B_EXPECTED)])
def test_every_figure_matches_the_hand_worked_value(
    inputs: DesignInputs, expected: dict[str, F]
) -> None:
    design = derive(inputs)
    assert design.possible, design.problems
    got = {figure.key: figure.value for figure in design.figures}
    assert list(got) == list(expected)  # every figure checked, in procedure order
    for key, value in expected.items():
        assert got[key] == value, key


@pytest.mark.parametrize("inputs", [A, B, make_inputs({"size": 10, "tl": 30, "sensors": 30})])
def test_no_float_in_any_figure(inputs: DesignInputs) -> None:
    for figure in derive(inputs).figures:
        assert type(figure.value) is F, figure.key


def test_sensor_cost_says_when_it_was_floored() -> None:
    low = derive(make_inputs({"size": 2, "tl": 15, "sensors": 3})).figure("sensor_cost")
    assert low.value == 0
    assert "-616" in low.note
    # 30^2 - (10 + 10)^2 = 500: above the floor, no note.
    high = derive(make_inputs({"size": 10, "tl": 10, "sensors": 30})).figure("sensor_cost")
    assert high.value == 500
    assert high.note == ""


def test_habitable_space_states_the_squared_reading() -> None:
    figure = derive(make_inputs({"size": 2, "tl": 15})).figure("habitable_space")
    assert figure.formula == "(11 + SIZE)^2"
    assert "squared" in figure.note
    assert "169" in figure.note


def test_an_unarmored_ship_without_an_allowance_gets_no_bonus() -> None:
    design = derive(make_inputs({"size": -5, "tl": 15, "speed": 3}))  # -5 + 3 < 1
    assert design.figure("armor_allowance").value == 0
    assert design.figure("armor_modifier").value == 0
    assert design.figure("speed").value == 3


def test_dropping_four_compartments_leaves_one_and_cuts_the_hull_cost_by_40_percent() -> None:
    design = derive(make_inputs({"size": 0, "tl": 15, "gs": 2, "compartments": -4}))
    assert design.figure("compartments").value == 1
    # hull 2 x 121 = 242, cost 121; four dropped save 40% of it.
    assert design.figure("compartment_cost_change").value == F(-484, 10)


def test_shielding_reach_is_named_for_each_level() -> None:
    assert (
        "low-energy system: orbit"
        in derive(make_inputs({"size": 0, "tl": 15})).figure("shielding_level").note
    )
    three = derive(make_inputs({"size": 5, "tl": 15, "shielding": 3})).figure("shielding_level")
    assert "deep stellar: a week" in three.note
    ten = derive(make_inputs({"size": 10, "tl": 15, "shielding": 10})).figure("shielding_level")
    assert "deep stellar: millions of years" in ten.note


@pytest.mark.parametrize(
    ("tl", "era", "name"),
    [
        (10, 1, "primitive"),
        (12, 1, "primitive"),
        (13, 2, "early"),
        (16, 3, "middle"),
        (19, 3, "middle"),
        (20, 4, "late"),
        (30, 4, "late"),
    ],
)
def test_tech_eras(tl: int, era: int, name: str) -> None:
    figure = derive(make_inputs({"size": 0, "tl": tl})).figure("tech_era")
    assert figure.value == era
    assert figure.note.startswith(name)


@pytest.mark.parametrize(
    ("quality", "per_crewman"),
    [
        (-5, F(25, 10000)),
        (-4, F(5, 1000)),
        (-3, F(1, 100)),
        (-2, F(2, 100)),
        (-1, F(4, 100)),
        (0, F(8, 100)),
        (1, F(8, 50)),
        (2, F(10, 25)),
        (3, F(1)),
        (4, F(2)),
        (5, F(5)),
    ],
)
def test_crew_cost_follows_the_quality_table(quality: int, per_crewman: F) -> None:
    # Size +10: (20)^2 / 4 = 100 preferred crew.
    design = derive(make_inputs({"size": 10, "tl": 15, "crew_quality": quality}))
    assert design.figure("preferred_crew").value == 100
    assert design.figure("crew_cost").value == 100 * per_crewman


def test_figure_lookup_refuses_an_unknown_key() -> None:
    with pytest.raises(KeyError):
        derive(A).figure("warp_factor")
