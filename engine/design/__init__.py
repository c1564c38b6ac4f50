"""Ship design and scale calculator (issue 17): a hull's figures from its SIZE, tech level and
the designer's choices, and conversions between the scales of play and other game systems.

Pure like the rest of the engine: no I/O, exact fractions, rounding only in `display`.
"""

from engine.design.derive import derive
from engine.design.inputs import (
    FIELDS_BY_NAME,
    INPUT_FIELDS,
    DesignInputError,
    DesignInputs,
    InputField,
    inputs_as_dict,
    make_inputs,
)
from engine.design.model import Design, Figure, Problem
from engine.design.output import design_json, display
from engine.design.scales import (
    NAMES,
    QUANTITIES,
    SCALES,
    SYSTEMS,
    ConversionError,
    canonical_name,
    convert,
)

__all__ = [
    "FIELDS_BY_NAME",
    "INPUT_FIELDS",
    "NAMES",
    "QUANTITIES",
    "SCALES",
    "SYSTEMS",
    "ConversionError",
    "Design",
    "DesignInputError",
    "DesignInputs",
    "Figure",
    "InputField",
    "Problem",
    "canonical_name",
    "convert",
    "derive",
    "design_json",
    "display",
    "inputs_as_dict",
    "make_inputs",
]
