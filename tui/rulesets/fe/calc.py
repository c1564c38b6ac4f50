"""``hexpost calc combat``: the F&E damage calculator players use to plan intensities.

The command line hands over the typed values as text; this module checks them with the
engine's own rules (`engine.fe.combat`), so the calculator refuses exactly what a game would:
a die that is not 1-6, a BIR total off the table's rows 0-10, an EW shift no side can have,
a negative or non-numeric potential (whole or half factors, like the counters), a rounding
that is not one of the ``damage-rounding`` option's values. A refusal is a `CalcRefusal`
naming the value, the rule and the field at fault: the command line prints it on one line and
exits 1, the app's calculator dialog shows it beside that field (`COMBAT` lists the fields).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from engine.core.ruleset import Violation
from engine.fe.combat.ew import check_shift
from engine.fe.combat.potential import (
    NEAREST_HALF_UP,
    ROUNDINGS,
    damage,
    exact_text,
    factors_text,
)
from engine.fe.combat.results import check_die, check_total, permille_text
from tui.rulesets import CalcField, CalcRefusal, Calculator, ScenarioDetails

COMBAT = Calculator(
    "combat",
    "Combat damage (302.4)",
    (
        CalcField("potential", "Potential"),
        CalcField("bir", "BIR total"),
        CalcField("die", "Die"),
        CalcField("ew", "EW shift", "0", required=False),
        CalcField("rounding", "Rounding", NEAREST_HALF_UP, ROUNDINGS, required=False),
    ),
)
"""What ``hexpost calc combat`` takes (its flags) and the app's dialog asks for."""

CALCULATORS = (COMBAT,)
_FACTORS = re.compile(r"(\d{1,6})(?:\.(0|5))?")


def _refuse(problem: Violation | str, field: str) -> CalcRefusal:
    if isinstance(problem, Violation):
        text = f"{problem.message} ({problem.rule})" if problem.rule else problem.message
    else:
        text = problem
    return CalcRefusal(f"calc combat: {text}", field)


def potential2(text: str) -> int:
    """A combat potential as typed (``"40"``, ``"40.5"``), doubled; refused unless a whole or
    half number of factors, not negative."""
    found = _FACTORS.fullmatch(text.strip())
    if found is None:
        raise _refuse(
            f"--potential {text!r} is not a combat potential: give a whole or half number of "
            "factors from 0 to 999999.5 (e.g. 40 or 40.5)",
            "potential",
        )
    return 2 * int(found.group(1)) + (1 if found.group(2) == "5" else 0)


def _integer(values: Mapping[str, str], key: str, default: int | None = None) -> int:
    text = values.get(key)
    if text is None or text == "":
        if default is None:
            raise _refuse(f"--{key} is required", key)
        return default
    try:
        return int(text)
    except ValueError:
        raise _refuse(f"--{key} {text!r} is not a whole number", key) from None


def combat(values: Mapping[str, str]) -> ScenarioDetails:
    """Damage points and percentage for one side's roll: ``potential``, ``bir`` (the total),
    ``die``, ``ew`` (the side's shift, default 0) and ``rounding`` (default: the option's)."""
    doubled = potential2(values.get("potential", ""))
    bir = _integer(values, "bir")
    die = _integer(values, "die")
    shift = _integer(values, "ew", 0)
    rounding = values.get("rounding") or NEAREST_HALF_UP
    checks = (("bir", check_total(bir)), ("die", check_die(die)), ("ew", check_shift(shift)))
    for field, problem in checks:
        if problem is not None:
            raise _refuse(problem, field)
    if rounding not in ROUNDINGS:
        raise _refuse(
            f"--rounding {rounding!r} is not one of {', '.join(ROUNDINGS)} (option "
            "damage-rounding, 302.4)",
            "rounding",
        )
    result = damage(doubled, bir, die, shift, rounding=rounding)
    record: dict[str, Any] = {
        "potential": factors_text(result.potential2),
        "bir": result.bir,
        "die": result.die,
        "ew": result.ew,
        "result": result.result,
        "permille": result.permille,
        "percent": permille_text(result.permille),
        "exact": exact_text(result.exact2000),
        "damage": result.damage,
        "rounding": result.rounding,
    }
    shown = f" + EW {shift}" if shift else ""
    clamped = ", the table's top" if bir + die + shift != result.result else ""
    text = (
        f"{result.damage} damage points: potential {record['potential']} x "
        f"{record['percent']} = {record['exact']}, rounded {result.rounding}\n"
        f"(combat table 302.4: BIR {bir} + die {die}{shown} = result {result.result}{clamped})"
    )
    return ScenarioDetails(record, text)
