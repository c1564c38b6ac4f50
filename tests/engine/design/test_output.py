"""display rounds only for reading; design_json carries every figure with the keys the docs list."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from engine.design import derive, design_json, display, make_inputs

F = Fraction


@pytest.mark.parametrize(
    ("value", "places", "text"),
    [
        (F(169), 2, "169"),
        (F(169, 4), 2, "42.25"),
        (F(-7, 2), 2, "-3.5"),
        (F(1, 3), 2, "0.33"),
        (F(2, 3), 2, "0.67"),
        (F(6591, 8), 2, "823.88"),  # 823.875: halves go away from zero
        (F(-6591, 8), 2, "-823.88"),
        (F(-1, 1000), 2, "0"),
        (F(5, 2), 0, "3"),
        (F(1, 8), 3, "0.125"),
        (F(0), 2, "0"),
    ],
)
def test_display(value: F, places: int, text: str) -> None:
    assert display(value, places) == text


def _walk(value: object) -> list[object]:
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in _walk(item)]
    if isinstance(value, list):
        return [leaf for item in value for leaf in _walk(item)]
    return [value]


def test_the_json_form_has_the_documented_shape_and_no_float() -> None:
    design = derive(make_inputs({"size": 2, "tl": 15, "speed": -1}))
    data = design_json(design)
    assert list(data) == ["inputs", "figures", "problems", "possible"]
    assert data["possible"] is False
    assert data["inputs"] == {
        "size": 2,
        "tl": 15,
        "speed": -1,
        "maneuver": 0,
        "gs": 1,
        "supply_months": 1,
        "shielding": 0,
        "sensors": 1,
        "compartments": 0,
        "armor": 0,
        "crew_quality": 0,
    }
    figures = data["figures"]
    assert isinstance(figures, dict)
    assert list(figures) == [figure.key for figure in design.figures]
    supply = figures["supply_size"]
    assert supply == {
        "label": "Supply size",
        "formula": "total volume x months / 10",
        "value": "219.7",
        "exact": "2197/10",
        "unit": "spaces",
        "note": "taken from unusable space",
    }
    assert data["problems"] == [
        {"field": "speed", "rule": "speed cannot be below 0", "message": "speed -1 is below 0"}
    ]
    assert not any(isinstance(leaf, float) for leaf in _walk(data))
    json.dumps(data)  # plain JSON data throughout
