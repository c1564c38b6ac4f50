"""A game's ruleset calculator, opened from the game screen (``i``, or the command palette).

Which calculators there are, and their fields, is the ruleset client's say
(`tui.services.rulesets.calculators`); the dialog (`tui.widgets.calculator`) knows no ruleset,
so this module hands it the fields and a function that works the values through the service,
turning a refusal into an `Outcome` naming the field at fault (`tui.rulesets.CalcRefusal`).
The work is pure and quick (no store, no file, no network), so it runs on the event loop, at
every keystroke, without a worker.
"""

from __future__ import annotations

from engine.core.errors import HexpostError
from tui.rulesets import CalcRefusal, Calculator
from tui.services import rulesets
from tui.widgets.calculator import CalculatorDialog, Outcome

NO_CALCULATOR = "no calculator for this ruleset"


def work(ruleset: str, calculator: Calculator, values: dict[str, str]) -> Outcome:
    """The ruleset's calculator on ``values``: its text, or its refusal and the field."""
    try:
        details = rulesets.calculate(calculator.name, values, ruleset=ruleset)
    except CalcRefusal as refusal:
        return Outcome(str(refusal), refused=True, field=refusal.field)
    except HexpostError as refusal:
        return Outcome(str(refusal), refused=True)
    return Outcome(details.text)


def calculator_dialog(ruleset: str) -> CalculatorDialog | None:
    """The dialog of ``ruleset``'s first calculator (F&E has one: combat damage), or None
    when the ruleset has none."""
    found = rulesets.calculators(ruleset)
    if not found:
        return None
    calculator = found[0]
    return CalculatorDialog(
        calculator.title, calculator.fields, lambda values: work(ruleset, calculator, values)
    )
