"""Derive a whole design from its inputs: every figure in the procedure's order, and the rules
that make a design impossible.

`derive` never raises for inputs `make_inputs` accepts: a design that breaks a rule still gets
all its figures, plus a Problem for each broken rule naming the input to change (the rules are
in engine/design/rules.py). The formulas live in engine/design/hull.py, drive.py and surface.py;
this module names each result (a stable key, a label, the formula as the docs write it, a unit
and the reading chosen) and adds up the cost and the unusable space used.
"""

from __future__ import annotations

from fractions import Fraction

from engine.design import drive, hull, surface
from engine.design.inputs import DesignInputs
from engine.design.model import Design, Figure, Problem
from engine.design.output import design_json, display
from engine.design.rules import find_problems
from engine.design.tables import CREW_QUALITY_BY_VALUE, SHIELDING_REACH, era_of

__all__ = ["Design", "Figure", "Problem", "derive", "design_json", "display"]

CREW_NOTE = "rounded up to whole crew (the source gives no rounding)"
COUNTED_COSTS = (
    "tech_level_cost",
    "speed_cost",
    "maneuver_cost",
    "crew_cost",
    "supply_cost",
    "shielding_cost",
    "hull_cost",
    "compartment_cost_change",
    "armor_cost",
    "sensor_cost",
    "radiator_cost",
)


def _reach_note(level: int) -> str:
    """The places a shielding level opens, for the level figure's note."""
    if level == 0:
        return "no shielding: " + SHIELDING_REACH[0][0]
    return f"adds to the levels below: {'; '.join(SHIELDING_REACH[level])}"


def _figures(i: DesignInputs) -> list[Figure]:
    """Every figure of the design, in the source's procedure order (costs added up last)."""
    out: list[Figure] = []

    def add(key: str, label: str, formula: str, value: Fraction, unit: str, note: str = "") -> None:
        out.append(Figure(key, label, formula, value, unit, note))

    era = era_of(i.tl)
    last = f"-{era.last_tl}" if era.last_tl is not None else "+"
    add(
        "tech_era",
        "Tech era",
        "era of TL",
        Fraction(era.number),
        "",
        f"{era.name} (TL {era.first_tl}{last}); 1 primitive, 2 early, 3 middle, 4 late",
    )
    add("total_volume", "Total volume", "(SIZE + 11)^3", hull.total_volume(i.size), "spaces")
    add("surface_area", "Surface area", "3 x total volume", hull.surface_area(i.size), "area")
    add(
        "surface_for_use",
        "Surface for sensors and radiators",
        "total volume",
        hull.surface_for_use(i.size),
        "area",
        "read as the sensors' and radiators' share; the source also gives 2/3 of the surface "
        "to radiators, sensors, jets and ports",
    )
    add(
        "habitable_space",
        "Habitable space",
        "(11 + SIZE)^2",
        hull.habitable_space(i.size),
        "spaces",
        "squared, as the source writes it and works its size +2 example (169), "
        "not cubed like the volume",
    )
    unusable = hull.unusable_space(i.size)
    add("unusable_space", "Unusable space", "total volume - habitable space", unusable, "spaces")

    preferred = hull.preferred_crew(i.size)
    add(
        "preferred_crew",
        "Preferred crew",
        "(SIZE + 10)^2 / 4",
        preferred,
        "crew",
        CREW_NOTE + "; the source's SIZE + 10 kept though other formulas use SIZE + 11",
    )
    for key, label, formula, num, den in (
        ("damage_control_crew", "Damage control crew", "5% of preferred", 5, 100),
        ("skeleton_crew", "Skeleton crew", "25% of preferred", 25, 100),
        ("engineering_crew", "Engineering crew", "25% of preferred", 25, 100),
        ("gunnery_crew", "Gunnery crew", "25% of preferred", 25, 100),
        ("minimum_combat_crew", "Minimum combat crew", "preferred / 2", 1, 2),
    ):
        add(key, label, formula, hull.crew_share(preferred, num, den), "crew", CREW_NOTE)
    quality = CREW_QUALITY_BY_VALUE[i.crew_quality]
    add(
        "crew_cost",
        "Crew cost",
        "preferred crew x crew quality rate",
        hull.crew_cost(preferred, i.crew_quality),
        "cost",
        f"{quality.name} ({i.crew_quality:+d}): {quality.rate_text}, charged pro rata "
        "on the preferred crew",
    )

    add(
        "supply_size",
        "Supply size",
        "total volume x months / 10",
        hull.supply_size(i.size, i.supply_months),
        "spaces",
        "taken from unusable space",
    )
    add(
        "supply_cost",
        "Supply cost",
        "supply size / 10",
        hull.supply_cost(i.size, i.supply_months),
        "cost",
    )
    add(
        "months_in_space",
        "Months in space",
        "(TL - 10)^2 + months",
        hull.months_in_space(i.tl, i.supply_months),
        "months",
    )
    add(
        "fuel_tanks",
        "Fuel tanks",
        "months + compartments",
        hull.fuel_tanks(i.supply_months, i.compartments),
        "tanks",
        "one tank per month carried, one more or less per compartment added or dropped "
        "(our reading), never below 0",
    )

    add(
        "shielding_level",
        "Shielding level",
        "level",
        Fraction(i.shielding),
        "level",
        _reach_note(i.shielding),
    )
    add(
        "shielding_size",
        "Shielding size",
        "level x total volume / 20",
        hull.shielding_size(i.size, i.shielding),
        "spaces",
        "taken from unusable space",
    )
    add(
        "shielding_cost",
        "Shielding cost",
        "level x shielding size",
        hull.shielding_cost(i.size, i.shielding),
        "cost",
    )

    add(
        "hull_size",
        "Hull G structure size",
        "G's x (SIZE + 11)^2",
        hull.hull_size(i.size, i.gs),
        "spaces",
        "taken from unusable space (our reading)",
    )
    add("hull_cost", "Hull cost", "hull size / 2", hull.hull_cost(i.size, i.gs), "cost")
    add("hull_hits", "Hull hits", "G's", hull.hull_hits(i.gs), "hits")
    count = hull.compartment_count(i.compartments)
    add("compartments", "Compartments", "5 + compartments", count, "compartments")
    add(
        "compartment_cost_change",
        "Compartment hull cost change",
        "+20% of hull cost per added, -10% per dropped",
        hull.compartment_hull_change(i.size, i.gs, i.compartments),
        "cost",
    )

    add(
        "armor_allowance",
        "Armor allowance",
        "(SIZE + speed)^2, none if under 1",
        drive.armor_allowance(i.size, i.speed),
        "armor strength",
        "uses the speed input",
    )
    add(
        "armor_capacity",
        "Armor capacity",
        "(allowance x SIZE)^2",
        drive.armor_capacity(i.size, i.speed),
        "starship scale",
        "SIZE as written, not SIZE + 11; split evenly among the compartments (armor "
        "strength is not)",
    )
    add(
        "armor_cost",
        "Armor cost",
        "(allowances used - 1) x ((SIZE + 11) + speed)^3",
        drive.armor_cost(i.size, i.speed, i.armor),
        "cost",
        "the first allowance is free; armor beyond it is given no size by the source, so none",
    )
    modifier = drive.armor_modifier(i.size, i.speed, i.armor)
    add(
        "armor_modifier",
        "Armor speed/maneuver change",
        "+1 if an allowance is unused, -1 per allowance after the first",
        modifier,
        "",
    )
    speed = drive.effective_speed(i.size, i.speed, i.armor)
    add("speed", "Speed", "speed + armor change", speed, "")
    add("acceleration", "Acceleration", "1 + speed", drive.acceleration(speed), "hexes/turn")
    maneuver = drive.effective_maneuver(i.size, i.speed, i.maneuver, i.armor)
    add("maneuver", "Maneuver", "maneuver + armor change", maneuver, "")
    add(
        "maneuver_rating",
        "Maneuver rating",
        "6 + maneuver",
        drive.maneuver_rating(maneuver),
        "hex sides/turn",
    )

    add(
        "sensor_area",
        "Sensor surface",
        "sensors^2 x (40 - TL)",
        surface.sensor_area(i.tl, i.sensors),
        "area",
    )
    raw = surface.sensor_cost_formula(i.tl, i.sensors)
    add(
        "sensor_cost",
        "Sensor cost",
        "max(0, sensors^2 - (TL + 10)^2)",
        surface.sensor_cost(i.tl, i.sensors),
        "cost",
        f"the source's formula gives {display(raw)}; floored at 0" if raw < 0 else "",
    )
    add(
        "radiator_area",
        "Radiator surface",
        "surface for use - sensor surface",
        surface.radiator_area(i.size, i.tl, i.sensors),
        "area",
    )
    systems = surface.radiator_systems(i.size, count)
    add(
        "radiator_systems",
        "Radiator systems (max)",
        "compartments + SIZE, at least 1",
        systems,
        "systems",
        "compartments counted whole (5 + input); at least one system",
    )
    add(
        "radiator_cost",
        "Radiator cost",
        "2 x radiator systems",
        surface.radiator_cost(systems),
        "cost",
        "costed at the most systems allowed",
    )
    add(
        "hardpoint_capacity",
        "Hardpoint capacity",
        "surface area / 8",
        surface.hardpoint_capacity(i.size),
        "spaces",
        "at most 2 spaces a hardpoint",
    )
    add(
        "turret_capacity",
        "Turret capacity",
        "surface area / 50",
        surface.turret_capacity(i.size),
        "spaces",
        "at most 10 spaces a turret (the source's line says 'hardpoints', read as turrets)",
    )
    add("command_size_modifier", "Command rating from size", "-SIZE", Fraction(-i.size), "")

    add(
        "tech_level_cost",
        "Tech level cost",
        "10 x TL",
        hull.tech_level_cost(i.tl),
        "cost",
        "the source's 'cost is 10 each' read as 10 per tech level",
    )
    add(
        "speed_cost",
        "Speed cost",
        "speed x (SIZE + 11)",
        hull.stat_cost(i.size, i.speed),
        "cost",
        "'a stat costs one times SIZE' read with SIZE as SIZE + 11; the armor change is free",
    )
    add(
        "maneuver_cost",
        "Maneuver cost",
        "maneuver x (SIZE + 11)",
        hull.stat_cost(i.size, i.maneuver),
        "cost",
        "as speed; a negative stat is a saving",
    )
    reentry, landing, flight = hull.streamlining_costs(i.size)
    option = "an option's price, not counted in the total"
    add("reentry_cost", "Emergency re-entry option", "SIZE + 11", reentry, "cost", option)
    add("landing_cost", "Atmosphere capable option", "(SIZE + 11)^2", landing, "cost", option)
    add("flight_cost", "Atmospheric flight option", "(SIZE + 11)^3", flight, "cost", option)

    by_key = {figure.key: figure.value for figure in out}
    used = by_key["supply_size"] + by_key["shielding_size"] + by_key["hull_size"]
    add(
        "unusable_space_used",
        "Unusable space used",
        "supply + shielding + hull G structure",
        used,
        "spaces",
    )
    add(
        "unusable_space_free",
        "Unusable space free",
        "unusable space - used",
        unusable - used,
        "spaces",
    )
    add(
        "total_cost",
        "Total cost",
        "sum of the costs counted",
        sum((by_key[key] for key in COUNTED_COSTS), Fraction(0)),
        "cost",
        "counts tech level, speed, maneuver, crew, supply, shielding, hull, compartments, "
        "armor, sensors and radiators; engines, weapons, screens, quarters and options are "
        "not designed here",
    )
    return out


def derive(inputs: DesignInputs) -> Design:
    """The design these inputs make: all its figures, and a Problem for every rule it breaks."""
    figures = _figures(inputs)
    problems = find_problems(inputs, {figure.key: figure.value for figure in figures})
    return Design(inputs, tuple(figures), tuple(problems))
