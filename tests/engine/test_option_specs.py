"""An optional rule says which values it takes (`engine.core.ruleset.OptionSpec.problem`),
so a game is never created with a value its ruleset would read as something else: F&E read
an unknown rounding, or an income share of 5000 thousandths, as if it were valid."""

from __future__ import annotations

import pytest

from engine.core.ruleset import OptionSpec, OptionValue
from engine.fe.rule_options import RULE_OPTIONS

ROUNDING = OptionSpec("rounding", "up", "How to round", "1.0", choices=("up", "down"))
SHARE = OptionSpec("share", 500, "A share in thousandths", "2.0", bounds=(0, 1000))
FLAG = OptionSpec("flag", False, "A switch")
FREE = OptionSpec("free", "anything", "Free text")


@pytest.mark.parametrize(
    ("spec", "value"),
    [(ROUNDING, "down"), (SHARE, 0), (SHARE, 1000), (FLAG, True), (FREE, "other")],
)
def test_a_value_the_rule_takes_has_no_problem(spec: OptionSpec, value: OptionValue) -> None:
    assert spec.problem(value) is None


@pytest.mark.parametrize(
    ("spec", "value", "words"),
    [
        (ROUNDING, "sideways", "optional rule 'rounding' takes one of up, down, not 'sideways'"),
        (SHARE, 1001, "optional rule 'share' takes a whole number from 0 to 1000, not 1001"),
        (SHARE, -1, "optional rule 'share' takes a whole number from 0 to 1000, not -1"),
        (SHARE, True, "optional rule 'share' takes a whole number, not True"),
        (FLAG, 1, "optional rule 'flag' takes true or false, not 1"),
        (ROUNDING, 3, "optional rule 'rounding' takes a text, not 3"),
    ],
)
def test_a_value_the_rule_does_not_take_is_named_with_what_it_takes(
    spec: OptionSpec, value: OptionValue, words: str
) -> None:
    assert spec.problem(value) == words


def test_every_fe_rule_option_takes_its_default_and_names_its_values() -> None:
    """Each F&E option's default passes its own check; each text option lists its values
    and each whole-number option its bounds, so a form can offer them."""
    for spec in RULE_OPTIONS:
        assert spec.problem(spec.default) is None, spec.id
        if isinstance(spec.default, str):
            assert spec.choices, spec.id
        elif isinstance(spec.default, int) and not isinstance(spec.default, bool):
            assert spec.bounds is not None, spec.id
