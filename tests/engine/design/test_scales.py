"""Scale and damage conversions: the source's figures, exact round trips, and refusals."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import pytest

from engine.design import QUANTITIES, SCALES, SYSTEMS, ConversionError, canonical_name, convert
from engine.design.scales import SCALE_BY_NAME

F = Fraction

VALUES = (F(1), F(0), F(-7, 3), F(12345, 17), F(45, 100))


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("starship", F(1)),
        ("corvette", F(100)),
        ("mecha", F(1000)),
        ("melee", F(10000)),
        ("traveller", F(112, 10)),
        ("starfire", F(11, 10)),
        ("palladium", F(371, 10)),
        ("battletech", F(225, 10)),
        ("sfb", F(45, 100)),
    ],
)
def test_one_starship_damage_point_follows_the_conversion_line(target: str, expected: F) -> None:
    assert convert(F(1), "starship", target) == expected


def test_damage_between_two_other_systems_goes_through_starship_points() -> None:
    # 0.45 SFB = 1 starship = 22.5 BattleMech, so 1 SFB point is 50 BattleMech points.
    assert convert(F(1), "sfb", "battletech") == 50
    assert convert(F(100), "corvette", "mecha") == 1000


@pytest.mark.parametrize(("source", "target"), list(product(SCALES + SYSTEMS, repeat=2)))
def test_damage_round_trips_exactly(source: str, target: str) -> None:
    for value in VALUES:
        there = convert(value, source, target)
        assert type(there) is F
        assert convert(there, target, source) == value


@pytest.mark.parametrize("quantity", ["distance", "power", "cost"])
@pytest.mark.parametrize(("source", "target"), list(product(SCALES, repeat=2)))
def test_scale_quantities_round_trip_exactly(quantity: str, source: str, target: str) -> None:
    for value in VALUES:
        there = convert(value, source, target, quantity)
        assert type(there) is F
        assert convert(there, target, source, quantity) == value


def test_distance_uses_the_stated_hex_lengths() -> None:
    assert convert(F(1), "starship", "corvette", "distance") == F(17860, 1800)  # 9.92...
    assert convert(F(1), "corvette", "mecha", "distance") == 10
    assert convert(F(1), "mecha", "melee", "distance") == 10
    assert convert(F(3), "melee", "starship", "distance") == F(54, 17860)


def test_power_uses_the_stated_megawatts() -> None:
    assert convert(F(1), "starship", "corvette", "power") == 10  # 300 MW / 30 MW
    assert convert(F(1), "corvette", "mecha", "power") == 10
    assert convert(F(1), "mecha", "melee", "power") == 1  # both 3 MW


def test_cost_uses_the_stated_dollars() -> None:
    assert convert(F(1), "starship", "melee", "cost") == 1000  # $10M / $10k
    assert convert(F(5), "mecha", "corvette", "cost") == F(1, 2)


def test_a_ton_of_tnt_is_the_same_blast_at_every_scale() -> None:
    # The TNT figures (0.51, 51, 510, 5100) agree with the conversion line.
    for name in SCALES:
        assert convert(SCALE_BY_NAME[name].damage_per_ton_tnt, name, "starship") == F(51, 100)


@pytest.mark.parametrize(
    ("alias", "name"),
    [
        ("Star Fleet Battles", "sfb"),
        ("SFB", "sfb"),
        ("aerospace", "corvette"),
        ("Aerospace/Corvette", "corvette"),
        ("tactical", "mecha"),
        ("personal", "melee"),
        ("BattleMech", "battletech"),
        ("MDC", "palladium"),
        ("Classic Traveller", "traveller"),
        ("StarCruiser", "traveller"),
        (" Starship ", "starship"),
    ],
)
def test_aliases_are_accepted(alias: str, name: str) -> None:
    assert canonical_name(alias) == name
    assert convert(F(1), alias, name) == 1


def test_an_unknown_name_is_refused_listing_the_known_ones() -> None:
    with pytest.raises(ConversionError) as caught:
        convert(F(1), "warhammer", "starship")
    assert "warhammer" in str(caught.value)
    for name in SCALES + SYSTEMS:
        assert name in str(caught.value)


@pytest.mark.parametrize("quantity", ["distance", "power", "cost"])
def test_other_systems_convert_only_damage(quantity: str) -> None:
    with pytest.raises(ConversionError, match=f"sfb has only a damage conversion, not {quantity}"):
        convert(F(1), "starship", "sfb", quantity)
    with pytest.raises(ConversionError, match="traveller has only a damage conversion"):
        convert(F(1), "traveller", "melee", quantity)


def test_an_unknown_quantity_is_refused() -> None:
    with pytest.raises(ConversionError, match="unknown quantity 'mass'"):
        convert(F(1), "starship", "corvette", "mass")


def test_a_float_is_refused() -> None:
    with pytest.raises(ConversionError, match="not a float"):
        convert(1.5, "starship", "corvette")  # type: ignore[arg-type]


def test_the_names_tuples() -> None:
    assert SCALES == ("starship", "corvette", "mecha", "melee")
    assert SYSTEMS == ("traveller", "starfire", "palladium", "battletech", "sfb")
    assert QUANTITIES == ("damage", "distance", "power", "cost")
