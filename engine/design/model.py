"""What a derived design is made of: its figures, the problems that make it impossible, and itself.

Kept apart from the formulas (engine/design/derive.py) and from the way a design is shown
(engine/design/output.py) so that both can name these types without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from engine.design.inputs import DesignInputs


@dataclass(frozen=True, slots=True)
class Figure:
    """One derived number, exact, with the name of the formula that gives it.

    `key` is stable (the JSON output and the docs use it); `note` states the reading chosen where
    the source is ambiguous or contradicts itself, so the choice is visible wherever the figure
    is shown ("" when the source is plain)."""

    key: str
    label: str
    formula: str
    value: Fraction
    unit: str
    note: str = ""


@dataclass(frozen=True, slots=True)
class Problem:
    """A reason the design cannot be built: the input that causes it, the rule, and the numbers."""

    field: str
    rule: str
    message: str


@dataclass(frozen=True, slots=True)
class Design:
    """The inputs and everything derived from them; possible when no rule is broken."""

    inputs: DesignInputs
    figures: tuple[Figure, ...]
    problems: tuple[Problem, ...]

    def figure(self, key: str) -> Figure:
        """The figure with this key (KeyError if the design has none)."""
        for figure in self.figures:
            if figure.key == key:
                return figure
        raise KeyError(key)

    @property
    def possible(self) -> bool:
        """True when no rule forbids the design."""
        return not self.problems
