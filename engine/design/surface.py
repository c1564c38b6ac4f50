"""What sits on the hull's surface: sensors, radiators and the weapon mounts' capacity.

Sensors take surface first; radiators get what is left of the sensors' and radiators' share.
The mounts' capacities are fractions of the whole outside surface.
"""

from __future__ import annotations

from fractions import Fraction

from engine.design.hull import surface_area, surface_for_use


def sensor_area(tl: int, sensors: int) -> Fraction:
    """Sensors cover hull surface equal to the sensor value squared times (40 - TL): higher tech
    packs the same reach into less hull."""
    return Fraction(sensors**2 * (40 - tl))


def sensor_cost_formula(tl: int, sensors: int) -> Fraction:
    """The source's sensor cost as written: the sensor value squared less (TL + 10) squared.
    It is negative until the sensor value passes TL + 10."""
    return Fraction(sensors**2 - (tl + 10) ** 2)


def sensor_cost(tl: int, sensors: int) -> Fraction:
    """The sensor cost we charge: the source's formula, floored at 0 (a sensor never pays the
    builder; the formula goes negative for every sensor value up to TL + 10)."""
    return max(sensor_cost_formula(tl, sensors), Fraction(0))


def radiator_area(size: int, tl: int, sensors: int) -> Fraction:
    """Radiators take the rest of the surface the sensors share with them."""
    return surface_for_use(size) - sensor_area(tl, sensors)


def radiator_systems(size: int, compartment_count: Fraction) -> Fraction:
    """The most separate radiator systems the radiators may be split into: the number of
    compartments plus SIZE (a negative size takes away), at least one."""
    return max(compartment_count + size, Fraction(1))


def radiator_cost(systems: Fraction) -> Fraction:
    """Radiators cost two per system and take no room of their own; we cost the most systems
    allowed (the split that loses the least to one hit)."""
    return 2 * systems


def hardpoint_capacity(size: int) -> Fraction:
    """All hardpoints together hold at most an eighth of the outside surface (2 spaces each)."""
    return surface_area(size) / 8


def turret_capacity(size: int) -> Fraction:
    """All turrets together hold at most a fiftieth of the outside surface (10 spaces each)."""
    return surface_area(size) / 50
