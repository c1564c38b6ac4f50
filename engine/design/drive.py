"""Armor and the drive's stats: the armor allowance, what armor costs, and how it moves speed and
manoeuvre.

Armor sits in its own module because it is the one system that changes other stats: a ship that
could carry armor and carries none gains a point of speed and manoeuvre, and every allowance used
beyond the first costs one of each. Speed and manoeuvre are therefore derived here, after armor.
"""

from __future__ import annotations

from fractions import Fraction

from engine.design.hull import measure


def can_carry_armor(size: int, speed: int) -> bool:
    """A ship whose SIZE + speed is under one cannot carry armor at all."""
    return size + speed >= 1


def armor_allowance(size: int, speed: int) -> Fraction:
    """The armor strength a ship carries without penalty: (SIZE + speed) squared, or none when
    SIZE + speed is under one. We use the speed input (the armor's own effect on speed would
    make the rule circular)."""
    if not can_carry_armor(size, speed):
        return Fraction(0)
    return Fraction((size + speed) ** 2)


def armor_capacity(size: int, speed: int) -> Fraction:
    """The armor allowance as starship-scale capacity: (armor strength x SIZE) squared."""
    return (armor_allowance(size, speed) * size) ** 2


def armor_cost(size: int, speed: int, armor: int) -> Fraction:
    """The first allowance used is free; each further one costs ((SIZE + 11) + speed) cubed."""
    return Fraction(max(armor - 1, 0) * (measure(size) + speed) ** 3)


def armor_modifier(size: int, speed: int, armor: int) -> Fraction:
    """What armor does to speed and manoeuvre: +1 to each when the ship has an allowance and
    leaves it unused, -1 to each for every allowance used beyond the first."""
    if armor == 0:
        return Fraction(1 if can_carry_armor(size, speed) else 0)
    return Fraction(-(armor - 1))


def effective_speed(size: int, speed: int, armor: int) -> Fraction:
    """The speed stat after armor: the input plus the armor modifier (never allowed below 0)."""
    return speed + armor_modifier(size, speed, armor)


def acceleration(speed: Fraction) -> Fraction:
    """Hexes a turn the ship can speed up or slow down by: 1 at speed 0, one more per point."""
    return 1 + speed


def effective_maneuver(size: int, speed: int, maneuver: int, armor: int) -> Fraction:
    """The manoeuvre stat after armor: the input plus the armor modifier (never below -6)."""
    return maneuver + armor_modifier(size, speed, armor)


def maneuver_rating(maneuver: Fraction) -> Fraction:
    """Hex sides the ship can turn through in a turn: 6 at manoeuvre 0, the stat added to 6
    (a negative stat subtracts), so the lowest allowed stat, -6, leaves none."""
    return 6 + maneuver
