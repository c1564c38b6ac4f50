"""The four scales of play and the conversions between them and other game systems.

The source plays at four scales, each a factor of about ten apart: starship, aerospace/corvette,
tactical/mecha and personal/melee. For each it says how long a hex is, how many dollars one cost
point stands for, how long a turn lasts, how many megawatts one power point is, how much damage a
ton of TNT does, and how much room one space aboard a vehicle is. It also gives one line that
converts damage between the scales and into five other game systems (Star Fleet Battles among
them, at 0.45 per starship damage point).

Every figure here is an exact fraction, so a conversion and its reverse give back the value
exactly. Where the source's figures disagree with each other (see `DISAGREEMENTS`) the choice is
made here once and stated: damage follows the conversion line, distance follows the stated hex
lengths, power the stated megawatts and cost the stated dollars.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from engine.core.errors import HexpostError


@dataclass(frozen=True, slots=True)
class Scale:
    """What one unit means at one scale of play, as the source gives it (exact)."""

    name: str
    label: str
    hex_m: Fraction  # a hex's length in metres
    cost_dollars: Fraction  # dollars one cost point stands for
    turn_s: Fraction  # a turn's length in seconds
    power_mw: Fraction  # megawatts one power point stands for
    damage_per_power: Fraction  # damage one power point does when all of it is turned to damage
    damage_per_ton_tnt: Fraction  # damage a ton of TNT does at this scale
    space_m3: Fraction  # room one space aboard a vehicle holds, cubic metres
    space_tons: Fraction  # mass one space aboard a vehicle carries, metric tons
    gees_per_hex_turn: Fraction  # the source's acceleration for 1 hex per turn per turn
    damage_factor: Fraction  # damage points equal to one starship damage point (the line)


SCALE_TABLE: tuple[Scale, ...] = (
    Scale(
        "starship",
        "Starship",
        Fraction(17860),
        Fraction(10_000_000),
        Fraction(60),
        Fraction(300),
        Fraction(120),
        Fraction(51, 100),
        Fraction(125),
        Fraction(50),
        Fraction(30),
        Fraction(1),
    ),
    Scale(
        "corvette",
        "Aerospace/Corvette",
        Fraction(1800),
        Fraction(1_000_000),
        Fraction(60),
        Fraction(30),
        Fraction(120),
        Fraction(51),
        Fraction(25, 2),
        Fraction(5),
        Fraction(3),
        Fraction(100),
    ),
    Scale(
        "mecha",
        "Tactical/Mecha",
        Fraction(180),
        Fraction(100_000),
        Fraction(60),
        Fraction(3),
        Fraction(120),
        Fraction(510),
        Fraction(5, 4),
        Fraction(1, 2),
        Fraction(3, 10),
        Fraction(1000),
    ),
    Scale(
        "melee",
        "Personal/Melee",
        Fraction(18),
        Fraction(10_000),
        Fraction(6),
        Fraction(3),
        Fraction(1200),
        Fraction(5100),
        Fraction(1, 8),
        Fraction(1, 20),
        Fraction(3, 10),
        Fraction(10_000),
    ),
)
SCALE_BY_NAME: dict[str, Scale] = {scale.name: scale for scale in SCALE_TABLE}
SCALES: tuple[str, ...] = tuple(scale.name for scale in SCALE_TABLE)

# Other systems' damage points equal to one starship damage point (the source's conversion line).
SYSTEM_FACTORS: dict[str, Fraction] = {
    "traveller": Fraction(112, 10),  # Classic Traveller / StarCruiser
    "starfire": Fraction(11, 10),
    "palladium": Fraction(371, 10),  # Palladium mega-damage (MDC)
    "battletech": Fraction(225, 10),  # BattleMech damage
    "sfb": Fraction(45, 100),  # Star Fleet Battles
}
SYSTEMS: tuple[str, ...] = tuple(SYSTEM_FACTORS)
SYSTEM_LABELS: dict[str, str] = {
    "traveller": "Classic Traveller/StarCruiser",
    "starfire": "Starfire",
    "palladium": "Palladium MDC",
    "battletech": "BattleMech damage",
    "sfb": "Star Fleet Battles",
}
QUANTITIES: tuple[str, ...] = ("damage", "distance", "power", "cost")

# Spellings accepted for each name, compared after lower-casing and dropping spaces, dashes,
# underscores, dots and slashes ("Star Fleet Battles" -> "starfleetbattles").
NAMES: dict[str, str] = {
    "starship": "starship",
    "ship": "starship",
    "corvette": "corvette",
    "aerospace": "corvette",
    "aerospacecorvette": "corvette",
    "mecha": "mecha",
    "tactical": "mecha",
    "tacticalmecha": "mecha",
    "melee": "melee",
    "personal": "melee",
    "personalmelee": "melee",
    "traveller": "traveller",
    "classictraveller": "traveller",
    "starcruiser": "traveller",
    "classictravellerstarcruiser": "traveller",
    "starfire": "starfire",
    "palladium": "palladium",
    "mdc": "palladium",
    "palladiummdc": "palladium",
    "battletech": "battletech",
    "battlemech": "battletech",
    "sfb": "sfb",
    "starfleetbattles": "sfb",
}

# Where the source's own figures disagree, and what this module does about it.
DISAGREEMENTS: tuple[str, ...] = (
    "Damage: the conversion line makes one starship point 100 corvette points, and the TNT "
    "figures agree (0.51 vs 51 per ton); but the power figures (300 MW = 120 starship damage, "
    "30 MW = 120 corvette damage) make a megawatt worth only 10 times more corvette damage. "
    "Damage conversion follows the line (and the TNT figures).",
    "Distance: a starship hex is given as 17.86 km and as a millionth of a light second (about "
    "300 m); 17.86 km is used. It is 9.92 corvette hexes of 1.8 km, not the 10 the other "
    "scales step by; distance conversion uses the stated lengths as they are.",
    "Acceleration: the gees the source gives for 1 hex per turn per turn do not follow from its "
    "hex and turn lengths (17.86 km a minute per minute is about half a gee, not 30); they are "
    "kept as given and used for nothing.",
    "Space: the mecha scale's space carries '1000 pounds (500 kilos)'; 500 kg is used.",
)


class ConversionError(HexpostError, ValueError):
    """A conversion that cannot be made: an unknown name, or a quantity a system lacks."""


def _key(name: str) -> str:
    return re.sub(r"[\s\-_./]+", "", name.strip().lower())


def canonical_name(name: str) -> str:
    """The canonical scale or system name for a spelling of it (case and spacing ignored)."""
    found = NAMES.get(_key(name))
    if found is None:
        known = ", ".join((*SCALES, *SYSTEMS))
        raise ConversionError(f"unknown scale or system {name!r} (known: {known})")
    return found


def _per_unit(name: str, quantity: str) -> Fraction:
    """What one unit of `quantity` at `name` is worth in a common measure for that quantity:
    starship damage points per damage point, metres per hex, megawatts per power point, dollars
    per cost point."""
    if quantity == "damage":
        factor = (
            SCALE_BY_NAME[name].damage_factor if name in SCALE_BY_NAME else SYSTEM_FACTORS[name]
        )
        return 1 / factor
    if name not in SCALE_BY_NAME:
        raise ConversionError(
            f"{name} has only a damage conversion, not {quantity} "
            f"({quantity} converts among the scales: {', '.join(SCALES)})"
        )
    scale = SCALE_BY_NAME[name]
    if quantity == "distance":
        return scale.hex_m
    if quantity == "power":
        return scale.power_mw
    return scale.cost_dollars


def convert(value: Fraction | int, source: str, target: str, quantity: str = "damage") -> Fraction:
    """`value` of `quantity` at `source` expressed at `target`, exactly.

    Damage goes through the conversion line (to starship points and out again); distance
    through each scale's hex length; power through its megawatts per power point; cost through
    its dollars per cost point. The other game systems have only a damage conversion."""
    if quantity not in QUANTITIES:
        raise ConversionError(f"unknown quantity {quantity!r} (known: {', '.join(QUANTITIES)})")
    if isinstance(value, float):
        raise ConversionError("convert takes exact values (int or Fraction), not a float")
    src = canonical_name(source)
    dst = canonical_name(target)
    return Fraction(value) * _per_unit(src, quantity) / _per_unit(dst, quantity)
