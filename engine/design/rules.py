"""The rules that make a design impossible, checked on its derived figures.

Each broken rule becomes a Problem naming the input to change (the one that causes it, or armor
when armor's penalty pushes speed or manoeuvre past its limit), the rule in our words, and the
numbers involved. The rules are the source's: speed never below 0, manoeuvre never below -6, no
armor when SIZE + speed is under 1, shielding (and, by our reading, supply and the hull's G
structure before and after it) within the unusable space, and sensors within the surface they
share with the radiators.
"""

from __future__ import annotations

from fractions import Fraction

from engine.design import drive
from engine.design.inputs import DesignInputs
from engine.design.model import Problem
from engine.design.output import display


def find_problems(i: DesignInputs, figures: dict[str, Fraction]) -> list[Problem]:
    """The rules the design breaks, each naming the input to change and the numbers."""
    found: list[Problem] = []
    _fit_unusable(figures, found)
    if i.armor > 0 and not drive.can_carry_armor(i.size, i.speed):
        found.append(
            Problem(
                "armor",
                "a ship whose SIZE + speed is under 1 cannot carry armor",
                f"SIZE {i.size:+d} + speed {i.speed} = {i.size + i.speed}, under 1, "
                f"so armor {i.armor} cannot be carried",
            )
        )
    _stat_floor(found, "speed", i.speed, figures["speed"], 0, figures["armor_modifier"])
    _stat_floor(found, "maneuver", i.maneuver, figures["maneuver"], -6, figures["armor_modifier"])
    if figures["sensor_area"] > figures["surface_for_use"]:
        found.append(
            Problem(
                "sensors",
                "sensors must fit in the hull surface they share with radiators",
                f"sensors {i.sensors} need {display(figures['sensor_area'])} of surface but the "
                f"hull has {display(figures['surface_for_use'])}",
            )
        )
    return found


def _fit_unusable(figures: dict[str, Fraction], found: list[Problem]) -> None:
    """Supply, shielding and the hull's G structure go into the unusable space in that order (the
    source's order); the first that does not fit in what the earlier ones leave is the problem.
    The source says shielding must drop a level when it needs more than the unusable space
    available; we read supply and the hull (which it says may make you rethink both) the same."""
    unusable = figures["unusable_space"]
    used = Fraction(0)
    for field, key, what in (
        ("supply_months", "supply_size", "supply"),
        ("shielding", "shielding_size", "shielding"),
        ("gs", "hull_size", "the hull's G structure"),
    ):
        need = figures[key]
        if used + need > unusable:
            found.append(
                Problem(
                    field,
                    f"{what} must fit in the unusable space",
                    f"{what} needs {display(need)} spaces but only {display(unusable - used)} "
                    f"of the {display(unusable)} unusable spaces are left",
                )
            )
            return
        used += need


def _stat_floor(
    found: list[Problem], field: str, chosen: int, after: Fraction, floor: int, change: Fraction
) -> None:
    """A stat below its floor: the input's fault when chosen below it, armor's when its penalty
    pushes the stat there."""
    if chosen < floor:
        found.append(
            Problem(
                field,
                f"{field} cannot be below {floor}",
                f"{field} {chosen} is below {floor}",
            )
        )
    elif after < floor:
        found.append(
            Problem(
                "armor",
                f"{field} cannot be below {floor}",
                f"{field} {chosen} with the armor change {display(change)} gives "
                f"{display(after)}, below {floor}: use fewer armor allowances",
            )
        )
