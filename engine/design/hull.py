"""The hull's formulas: volume, surface, habitable and unusable space, crew, supply, shielding,
the hull's G capacity and compartments.

Every function takes whole-number inputs and returns an exact Fraction; nothing is rounded here.
Each docstring says in our words what the source says, and where we chose a reading, which one.
`SIZE + 11` (called the hull's measure here) is the term nearly every formula builds on: a size
-10 hull measures 1, a size +2 hull 13.
"""

from __future__ import annotations

from fractions import Fraction

from engine.design.tables import CREW_QUALITY_BY_VALUE


def measure(size: int) -> int:
    """SIZE + 11: the hull's linear measure, which the size formulas square or cube."""
    return size + 11


def total_volume(size: int) -> Fraction:
    """The ship's whole volume in spaces is its measure cubed: (SIZE + 11)^3."""
    return Fraction(measure(size) ** 3)


def surface_area(size: int) -> Fraction:
    """The outside of the hull has three times the total volume in area: 3 x (SIZE + 11)^3."""
    return 3 * total_volume(size)


def surface_for_use(size: int) -> Fraction:
    """The hull surface sensors and radiators share starts at the total volume: (SIZE + 11)^3.

    The source also says two thirds of the surface goes to radiators, sensors, manoeuvre jets
    and ports; we read the total-volume figure (a third of the surface) as the sensors' and
    radiators' part of it, the rest being jets and ports."""
    return total_volume(size)


def habitable_space(size: int) -> Fraction:
    """The room people and most systems can use is the measure squared: (11 + SIZE)^2.

    The source writes 'squared' and works its example that way (size +2: 13 squared is 169),
    though volume is cubed; we follow the formula and the example."""
    return Fraction(measure(size) ** 2)


def unusable_space(size: int) -> Fraction:
    """What the volume holds beyond habitable space, for hull, bulkheads, supply, shielding and
    the hull's G structure: total volume less habitable space."""
    return total_volume(size) - habitable_space(size)


def preferred_crew(size: int) -> Fraction:
    """The crew the ship wants is (SIZE + 10) squared over four, rounded up to whole people.

    The source writes SIZE + 10 here where every other formula has SIZE + 11; we keep its + 10."""
    return _up(Fraction((size + 10) ** 2, 4))


def crew_share(preferred: Fraction, numerator: int, denominator: int) -> Fraction:
    """A share of the preferred crew, rounded up to whole people (damage control 5%, skeleton
    25%, engineering 25%, gunnery 25%, the minimum combat crew a half)."""
    return _up(preferred * Fraction(numerator, denominator))


def crew_cost(crew: Fraction, crew_quality: int) -> Fraction:
    """The crew's cost at its quality's rate (the crew quality table), paid pro rata: a rate of
    8 per 100 crewmen makes 36 crewmen cost 2.88."""
    return crew * CREW_QUALITY_BY_VALUE[crew_quality].cost_per_crewman


def supply_size(size: int, months: int) -> Fraction:
    """Supply for the months wanted takes the total volume times the months, over ten."""
    return total_volume(size) * months / 10


def supply_cost(size: int, months: int) -> Fraction:
    """Supply costs a tenth of its size."""
    return supply_size(size, months) / 10


def months_in_space(tl: int, months: int) -> Fraction:
    """Higher tech stretches supply for free: (TL - 10)^2 months plus the months carried."""
    return Fraction((tl - 10) ** 2 + months)


def shielding_size(size: int, level: int) -> Fraction:
    """Radiation shielding takes a twentieth of the total volume (not of habitable space) per
    level, out of the unusable space; level 0 takes nothing."""
    return total_volume(size) * level / 20


def shielding_cost(size: int, level: int) -> Fraction:
    """Shielding costs its level times its size, whatever the tech level."""
    return level * shielding_size(size, level)


def hull_size(size: int, gs: int) -> Fraction:
    """The hull's structure for a G capacity takes G's x (SIZE + 11)^2 spaces."""
    return Fraction(gs * measure(size) ** 2)


def hull_cost(size: int, gs: int) -> Fraction:
    """The hull's structure costs half its size (before compartments change it)."""
    return hull_size(size, gs) / 2


def hull_hits(gs: int) -> Fraction:
    """The hull takes as many hits as it has G's; each hit lowers the G's it can safely pull."""
    return Fraction(gs)


def compartment_count(compartments: int) -> Fraction:
    """Five compartments is standard (four sides and a core); the input adds or drops them."""
    return Fraction(5 + compartments)


def compartment_hull_change(size: int, gs: int, compartments: int) -> Fraction:
    """Each added compartment costs 20% of the hull's cost; each dropped one saves 10% of it."""
    percent = 20 if compartments > 0 else 10
    return hull_cost(size, gs) * compartments * percent / 100


def fuel_tanks(months: int, compartments: int) -> Fraction:
    """Every month of supply is a fuel tank, and compartments add or take tanks: months carried
    plus the compartments input, never below none (our reading: one tank per compartment)."""
    return Fraction(max(months + compartments, 0))


def tech_level_cost(tl: int) -> Fraction:
    """The tech level the ship is built at costs 10 per level (the source's 'cost is 10 each')."""
    return Fraction(10 * tl)


def stat_cost(size: int, value: int) -> Fraction:
    """A stat with no cost of its own costs its value times SIZE; we read SIZE as the hull's
    measure SIZE + 11 (raw SIZE would make stats free at size 0 and pay for them below it), and
    a negative value as a saving."""
    return Fraction(value * measure(size))


def streamlining_costs(size: int) -> tuple[Fraction, Fraction, Fraction]:
    """The prices of the atmosphere options: re-entering once in an emergency (SIZE + 11), being
    able to land and lift off ((SIZE + 11)^2) and flying in atmosphere ((SIZE + 11)^3)."""
    m = measure(size)
    return Fraction(m), Fraction(m**2), Fraction(m**3)


def _up(value: Fraction) -> Fraction:
    """`value` rounded up to a whole number (people come whole)."""
    return Fraction(-(-value.numerator // value.denominator))
