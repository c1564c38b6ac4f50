"""The source's lookup tables for a design: crew quality costs, shielding reach, tech eras.

Each is a plain tuple indexed by the input it is looked up by, with the source's wording
paraphrased; the formulas (engine/design/hull.py) and the figures' notes
(engine/design/derive.py) read them.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction


@dataclass(frozen=True, slots=True)
class CrewQuality:
    """One row of the crew quality table: the quality's name and what one crewman costs."""

    quality: int
    name: str
    cost_per_crewman: Fraction
    rate_text: str  # the rate as the source states it, e.g. "8 per 100 crewmen"


CREW_QUALITIES: tuple[CrewQuality, ...] = (
    CrewQuality(-5, "Women & Children", Fraction(25, 100 * 100), "0.25 per 100 crewmen"),
    CrewQuality(-4, "Green", Fraction(5, 10 * 100), "0.5 per 100 crewmen"),
    CrewQuality(-3, "Militia", Fraction(1, 100), "1 per 100 crewmen"),
    CrewQuality(-2, "Fresh", Fraction(2, 100), "2 per 100 crewmen"),
    CrewQuality(-1, "Trained", Fraction(4, 100), "4 per 100 crewmen"),
    CrewQuality(0, "Veteran", Fraction(8, 100), "8 per 100 crewmen"),
    CrewQuality(1, "Good", Fraction(8, 50), "8 per 50 crewmen"),
    CrewQuality(2, "Excellent", Fraction(10, 25), "10 per 25 crewmen"),
    CrewQuality(3, "Elite", Fraction(1), "1 each"),
    CrewQuality(4, "Crack", Fraction(2), "2 each"),
    CrewQuality(5, "Legendary", Fraction(5), "5 each"),
)
CREW_QUALITY_BY_VALUE: dict[int, CrewQuality] = {row.quality: row for row in CREW_QUALITIES}

# Where each radiation shielding level lets a crew go (and stay longer than a day); a level also
# allows everything the levels below it allow. "Low energy" systems have G, K or M stars,
# "energetic" ones A or F, "high energy" ones O or B; "orbital" assumes a planet with a magnetic
# field; "deep stellar" means an energetic nebula or other source within a light year.
SHIELDING_REACH: tuple[tuple[str, ...], ...] = (
    ("low-energy system: orbit",),
    ("low-energy system: lunar travel", "energetic system: orbit"),
    (
        "low-energy system: interplanetary",
        "energetic system: lunar travel",
        "high-energy system: orbit",
    ),
    (
        "low-energy system: near the star",
        "energetic system: interplanetary",
        "high-energy system: lunar travel",
        "deep stellar: a week",
    ),
    (
        "energetic system: near the star",
        "high-energy system: interplanetary",
        "deep stellar: a month",
        "superspace level one: a day",
    ),
    ("superspace level one: a week", "high-energy system: near the star", "deep stellar: a year"),
    ("superspace level two: a day", "superspace level one: a month", "deep stellar: a year"),
    ("superspace level two: a week", "superspace level one: a year", "deep stellar: 5 years"),
    (
        "superspace level three: a day",
        "superspace level two: a month",
        "superspace level one: 5 years",
        "deep stellar: 20 years",
    ),
    (
        "superspace level three: a week",
        "superspace level two: a year",
        "superspace level one: 20 years",
        "deep stellar: a lifetime",
    ),
    (
        "superspace level three: a month",
        "superspace level two: 20 years",
        "superspace level one: a lifetime",
        "deep stellar: millions of years",
    ),
)


@dataclass(frozen=True, slots=True)
class Era:
    """A band of tech levels and its name."""

    number: int
    name: str
    first_tl: int
    last_tl: int | None  # None: no upper end


ERAS: tuple[Era, ...] = (
    Era(1, "primitive", 10, 12),
    Era(2, "early", 13, 15),
    Era(3, "middle", 16, 19),
    Era(4, "late", 20, None),
)


def era_of(tl: int) -> Era:
    """The era a tech level falls in (levels below 10 count as primitive)."""
    for era in reversed(ERAS):
        if tl >= era.first_tl:
            return era
    return ERAS[0]
