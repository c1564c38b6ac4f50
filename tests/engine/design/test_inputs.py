"""make_inputs: loose values in, checked inputs out, or an error naming the field and its range."""

from __future__ import annotations

import pytest

from engine.design import (
    FIELDS_BY_NAME,
    INPUT_FIELDS,
    DesignInputError,
    DesignInputs,
    inputs_as_dict,
    make_inputs,
)

ORDER = (
    "size",
    "tl",
    "speed",
    "maneuver",
    "gs",
    "supply_months",
    "shielding",
    "sensors",
    "compartments",
    "armor",
    "crew_quality",
)


def test_the_fields_come_in_the_contracts_order_with_defaults_inside_their_ranges() -> None:
    assert tuple(field.name for field in INPUT_FIELDS) == ORDER
    assert list(FIELDS_BY_NAME) == list(ORDER)
    for field in INPUT_FIELDS:
        assert field.minimum <= field.default <= field.maximum, field.name
        assert field.label and field.help


def test_the_dataclass_defaults_match_the_fields_defaults() -> None:
    plain = inputs_as_dict(DesignInputs(size=0, tl=15))
    for field in INPUT_FIELDS[2:]:
        assert plain[field.name] == field.default, field.name


def test_signed_text_and_ints_are_read_and_missing_fields_take_defaults() -> None:
    inputs = make_inputs({"size": "+2", "tl": " 15 ", "maneuver": "-3", "armor": 1})
    assert inputs == DesignInputs(size=2, tl=15, maneuver=-3, armor=1)
    assert list(inputs_as_dict(inputs).items())[:4] == [
        ("size", 2),
        ("tl", 15),
        ("speed", 0),
        ("maneuver", -3),
    ]


def test_the_ranges_ends_are_accepted() -> None:
    low = {field.name: field.minimum for field in INPUT_FIELDS}
    high = {field.name: str(field.maximum) for field in INPUT_FIELDS}
    assert inputs_as_dict(make_inputs(low)) == low
    assert inputs_as_dict(make_inputs(high)) == {k: int(v) for k, v in high.items()}


@pytest.mark.parametrize("bad", ["abc", "", "2.5", "1e3", "+", 2.5, 2.0, None, True, [2]])
def test_a_non_integer_is_refused_naming_the_field_and_range(bad: object) -> None:
    with pytest.raises(DesignInputError) as caught:
        make_inputs({"size": 0, "tl": 15, "speed": bad})
    assert caught.value.field == "speed"
    assert "speed" in str(caught.value)
    assert "not a whole number" in str(caught.value)
    assert "-10 to +10" in str(caught.value)


@pytest.mark.parametrize(
    ("field", "value", "allowed"),
    [
        ("size", 11, "-10 to +10"),
        ("size", "-11", "-10 to +10"),
        ("tl", 9, "10 to 30"),
        ("tl", 31, "10 to 30"),
        ("shielding", 11, "0 to 10"),
        ("sensors", 0, "1 to 30"),
        ("compartments", -5, "-4 to +20"),
        ("crew_quality", "+6", "-5 to +5"),
        ("armor", -1, "0 to 20"),
        ("gs", -1, "0 to 30"),
    ],
)
def test_an_out_of_range_value_is_refused_naming_the_field_and_range(
    field: str, value: object, allowed: str
) -> None:
    values: dict[str, object] = {"size": 0, "tl": 15, field: value}
    with pytest.raises(DesignInputError) as caught:
        make_inputs(values)
    assert caught.value.field == field
    assert str(caught.value).startswith(f"{field}: ")
    assert "out of range" in str(caught.value)
    assert allowed in str(caught.value)


def test_an_unknown_key_is_refused_naming_it_and_the_known_inputs() -> None:
    with pytest.raises(DesignInputError) as caught:
        make_inputs({"size": 0, "tl": 15, "colour": "red"})
    assert caught.value.field == "colour"
    assert "not a design input" in str(caught.value)
    assert "crew_quality" in str(caught.value)


@pytest.mark.parametrize("missing", ["size", "tl"])
def test_size_and_tl_are_required(missing: str) -> None:
    values: dict[str, object] = {"size": 0, "tl": 15}
    del values[missing]
    with pytest.raises(DesignInputError) as caught:
        make_inputs(values)
    assert caught.value.field == missing
    assert "missing" in str(caught.value)


def test_the_error_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="size"):
        make_inputs({"size": "x", "tl": 15})
