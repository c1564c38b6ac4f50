"""The inputs of a ship design: the fields, their ranges, and how loose values are checked.

A design is fixed by a handful of whole numbers (the hull's SIZE, its tech level and the values
the designer picks). Everything else is derived from them (engine/design/derive.py), so these
inputs are all a saved design holds, and this module is the one gate every face passes them
through: the command line's options, the designer screen's form and a hand-edited TOML file all
arrive as loose values (ints or text such as "+2") and leave as a checked `DesignInputs`, or as a
`DesignInputError` naming the field and the range it allows.

The ranges come from the source where it gives one (a stat runs from -10 to +10, shielding
levels 0 to 10, crew quality -5 to +5, at most four compartments dropped); where it gives none
the range is ours, wide enough for any sensible ship. Limits that depend on other figures (a
manoeuvre below -6 after the armor penalty, shielding that does not fit the unusable space) are
not input ranges: the design is derived and those come back as Problems naming the input.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from engine.core.errors import HexpostError


@dataclass(frozen=True, slots=True)
class InputField:
    """One input of a design: its key, its label on a form, its allowed range and default."""

    name: str
    label: str
    minimum: int
    maximum: int
    default: int
    help: str

    def range_text(self) -> str:
        """The allowed range as a person reads it, signed where the range goes below zero."""
        if self.minimum < 0:
            return f"{self.minimum:+d} to {self.maximum:+d}"
        return f"{self.minimum} to {self.maximum}"


INPUT_FIELDS: tuple[InputField, ...] = (
    InputField(
        "size",
        "Size",
        -10,
        10,
        0,
        "the hull's size stat; SIZE + 11 is the hull's linear measure (-10 is the smallest)",
    ),
    InputField(
        "tl",
        "Tech level",
        10,
        30,
        15,
        "the tech level the ship is built at: 10-12 primitive, 13-15 early, 16-19 middle, 20+ late",
    ),
    InputField(
        "speed",
        "Speed",
        -10,
        10,
        0,
        "thrust stat: 0 accelerates 1 hex a turn; below 0 is refused",
    ),
    InputField(
        "maneuver",
        "Maneuver",
        -10,
        10,
        0,
        "facing-change stat: the rating is 6 + maneuver; below -6 is refused",
    ),
    InputField(
        "gs",
        "Hull G's",
        0,
        30,
        1,
        "the G's the hull is built to take; also the number of hits the hull can take",
    ),
    InputField(
        "supply_months",
        "Supply months",
        0,
        120,
        1,
        "months of fuel, life support, food and parts carried (tech adds more for free)",
    ),
    InputField(
        "shielding",
        "Shielding",
        0,
        10,
        0,
        "radiation shielding level: 0 none, each level reaches harsher space",
    ),
    InputField(
        "sensors",
        "Sensors",
        1,
        30,
        1,
        "sensor value (also the communication range); sensors take hull surface",
    ),
    InputField(
        "compartments",
        "Compartments",
        -4,
        20,
        0,
        "compartments added to the standard five (negative drops them; -4 leaves one)",
    ),
    InputField(
        "armor",
        "Armor",
        0,
        20,
        0,
        "armor allowances used: 0 unarmored, 1 the free first allowance, more cost and slow",
    ),
    InputField(
        "crew_quality",
        "Crew quality",
        -5,
        5,
        0,
        "crew quality from -5 (women & children) to +5 (legendary); sets the crew's cost",
    ),
)

FIELDS_BY_NAME: dict[str, InputField] = {field.name: field for field in INPUT_FIELDS}

_REQUIRED = ("size", "tl")
_WHOLE = re.compile(r"[+-]?[0-9]+")


@dataclass(frozen=True, slots=True)
class DesignInputs:
    """A design's inputs, checked by `make_inputs`; the defaults are the fields' defaults."""

    size: int
    tl: int
    speed: int = 0
    maneuver: int = 0
    gs: int = 1
    supply_months: int = 1
    shielding: int = 0
    sensors: int = 1
    compartments: int = 0
    armor: int = 0
    crew_quality: int = 0


class DesignInputError(HexpostError, ValueError):
    """A bad input: `field` names it; str(error) says what was wrong and the allowed range."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def _whole(field: InputField, raw: object) -> int:
    """The whole number a loose value stands for, or an error naming the field and its range."""
    allowed = f"allowed: a whole number from {field.range_text()}"
    if isinstance(raw, bool) or not isinstance(raw, int | str):
        raise DesignInputError(
            field.name, f"{field.name}: {raw!r} is not a whole number ({allowed})"
        )
    if isinstance(raw, str):
        text = raw.strip()
        if not _WHOLE.fullmatch(text):
            raise DesignInputError(
                field.name, f"{field.name}: {raw!r} is not a whole number ({allowed})"
            )
        value = int(text)
    else:
        value = raw
    if not field.minimum <= value <= field.maximum:
        raise DesignInputError(field.name, f"{field.name}: {value} is out of range ({allowed})")
    return value


def make_inputs(values: Mapping[str, object]) -> DesignInputs:
    """Build and range-check inputs from loose values (ints, or strings such as "+2", "-3" from a
    form or a TOML file). Unknown keys, non-integers, missing size/tl, out-of-range values raise
    DesignInputError naming the field and its allowed range [minimum, maximum]."""
    known = ", ".join(field.name for field in INPUT_FIELDS)
    for key in sorted(str(k) for k in values):
        if key not in FIELDS_BY_NAME:
            raise DesignInputError(key, f"{key}: not a design input (the inputs are: {known})")
    checked: dict[str, int] = {}
    for field in INPUT_FIELDS:
        if field.name not in values:
            if field.name in _REQUIRED:
                raise DesignInputError(
                    field.name,
                    f"{field.name}: missing (required: a whole number from {field.range_text()})",
                )
            checked[field.name] = field.default
            continue
        checked[field.name] = _whole(field, values[field.name])
    return DesignInputs(**checked)


def inputs_as_dict(inputs: DesignInputs) -> dict[str, int]:
    """The inputs as field name -> value, in the fields' order (what a saved design holds)."""
    return {field.name: int(getattr(inputs, field.name)) for field in INPUT_FIELDS}
