"""The contract's names exist and the source's example comes out (the first cut of issue 17)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from engine.design import DesignInputError, convert, derive, make_inputs


def test_the_sources_example_size_plus_2_has_169_habitable_space() -> None:
    design = derive(make_inputs({"size": "+2", "tl": 15}))
    assert design.figure("habitable_space").value == 169
    assert design.figure("total_volume").value == 2197


def test_a_bad_size_is_refused_naming_the_field() -> None:
    with pytest.raises(DesignInputError) as caught:
        make_inputs({"size": "big", "tl": 15})
    assert caught.value.field == "size"


def test_one_starship_damage_point_is_045_sfb() -> None:
    assert convert(Fraction(1), "starship", "sfb") == Fraction(45, 100)
