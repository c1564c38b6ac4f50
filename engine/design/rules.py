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
    unusable = figures["unusable_space"]
    running = Fraction(0)
    for field, key, what in (
        ("supply_months", "supply_size", "supply"),
        ("shielding", "shielding_size", "shielding"),
        ("gs", "hull_size", "the hull's G structure"),
    ):
        running += figures[key]
        if figures[key] and running > unusable:
            found.append(
                Problem(
                    field,
                    f"{what} must fit in the unusable space",
                    f"{what} needs {display(figures[key])} spaces but only "
                    f"{display(unusable - running + figures[key])} of the {display(unusable)} "
                    "unusable spaces are left",
                )
            )
    if i.armor > 0 and not drive.can_carry_armor(i.size, i.speed):
        found.append(
            Problem(
                "armor",
                "a ship whose SIZE + speed is under 1 cannot carry armor",
                f"SIZE {i.size:+d} + speed {i.speed} = {i.size + i.speed}, under 1, "
                f"so armor {i.armor} cannot be carried",
            )
        )
    speed = figures["speed"]
    if speed < 0:
        field = "speed" if i.speed < 0 else "armor"
        found.append(
            Problem(
                field,
                "speed cannot be below 0",
                f"speed {i.speed} with the armor change {display(figures['armor_modifier'])} "
                f"gives {display(speed)}, below 0",
            )
        )
    maneuver = figures["maneuver"]
    if maneuver < -6:
        field = "maneuver" if i.maneuver < -6 else "armor"
        found.append(
            Problem(
                field,
                "maneuver cannot be below -6",
                f"maneuver {i.maneuver} with the armor change {display(figures['armor_modifier'])} "
                f"gives {display(maneuver)}, below -6",
            )
        )
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
