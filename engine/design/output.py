"""How a derived design is shown: exact values rounded for reading, and the JSON form.

The figures stay exact fractions everywhere; rounding happens only here, when a value is turned
into text for a person. The JSON form carries both the rounded text and the exact fraction, so a
reader can check a figure without trusting the rounding.
"""

from __future__ import annotations

from fractions import Fraction

from engine.design.inputs import inputs_as_dict
from engine.design.model import Design


def display(value: Fraction, places: int = 2) -> str:
    """`value` rounded to at most `places` decimals (halves away from zero), trailing zeros
    dropped: 169 -> "169", 169/4 -> "42.25", -7/2 -> "-3.5", 1/3 -> "0.33"."""
    scale = 10**places
    scaled = abs(value) * scale
    whole, rest = divmod(scaled.numerator, scaled.denominator)
    if 2 * rest >= scaled.denominator:
        whole += 1
    sign = "-" if value < 0 and whole else ""
    integer, decimals = divmod(whole, scale)
    if places == 0 or decimals == 0:
        return f"{sign}{integer}"
    digits = str(decimals).rjust(places, "0").rstrip("0")
    return f"{sign}{integer}.{digits}"


def exact_text(value: Fraction) -> str:
    """The exact value as text: "169" for a whole number, "169/4" otherwise."""
    if value.denominator == 1:
        return str(value.numerator)
    return f"{value.numerator}/{value.denominator}"


def design_json(design: Design) -> dict[str, object]:
    """The design as plain JSON-ready data (the keys are listed in docs/design.md):
    {"inputs": {field: int}, "figures": {key: {"label", "formula", "value" (rounded text),
    "exact" ("169" or "169/4"), "unit", "note"}}, "problems": [{"field", "rule", "message"}],
    "possible": bool}."""
    figures: dict[str, object] = {
        figure.key: {
            "label": figure.label,
            "formula": figure.formula,
            "value": display(figure.value),
            "exact": exact_text(figure.value),
            "unit": figure.unit,
            "note": figure.note,
        }
        for figure in design.figures
    }
    problems: list[object] = [
        {"field": problem.field, "rule": problem.rule, "message": problem.message}
        for problem in design.problems
    ]
    return {
        "inputs": inputs_as_dict(design.inputs),
        "figures": figures,
        "problems": problems,
        "possible": design.possible,
    }
