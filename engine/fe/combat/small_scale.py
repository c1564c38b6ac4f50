"""Small-scale combat (310.0): the results table, its die roll modifiers and when it applies.

Small battles are not fought on the 300 table: each side rolls two dice, adds its modifiers
and reads a number of casualties from the play aid's "Small-Scale Combat Results"; each
casualty is one step of damage on the enemy's battle force. Whether a battle is small-scale
is decided once, at 5-3B of its first round, and holds for every round in that hex (105.0,
5-3B). This module holds those rules as pure functions of given facts and dice; the steps
that read the facts off the board are `engine.fe.steps.combat_small_scale`.

Readings, marked as in ``fe-rules-notes.md`` (S sourced, I inferred, C a choice):

- S (play aid "Small-Scale Combat Results"): two dice plus modifiers: 2-4 no casualty, 5-7
  one, 8-9 two, 10 three, 11 four, 12 five, 13 six, 14 seven, 15 eight, 16 or more nine.
  I: a total below 2 (modifiers can take it there) reads as the first row: no casualty.
- S (play aid "Small-Scale Combat die roll modifiers"): +1 the force has an X ship; +1 it has
  a mauler with consorts; -1 it includes a slow unit; -1 the enemy has a fast or X ship; -2
  conducting a fighting retreat, +2 opposing one; -1 when its largest defence factor is 2 to
  4 less than the enemy's largest, -2 when 5 or more less; 0 to -2 for the enemy's EW
  advantage; a modifier for the combat potential differential that "varies".
- Not in the seed: the size conditions of 310.11 (how small each battle force must be), the
  numbers of the combat potential differential modifier, and the scale of the EW one. C: the
  size is the option ``small-scale-size``: a battle is small-scale when neither side has
  more than that many units able to fight in the hex; its default 0 means never, because a
  guessed size would change every small battle of every game. The potential differential is
  not applied (0) until its numbers are sourced. I: the EW modifier is minus the EW shift
  the enemy has against this side (308.51), at most 2.
- I: "largest defence factor" compares the defence each side's units show now (a cripple its
  crippled side), in whole factors; a difference between 4 and 5 (half factors) counts as
  "2 to 4".
- I: a casualty is one step: it cripples an uncrippled unit or destroys a crippled one (or a
  unit without a crippled side); the owner picks them (the steps module makes each step cost
  one point of the 302.6 allocation, so the forced-resolution rule still holds).
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from engine.core.ruleset import OptionValue
from engine.fe import option_specs as specs
from engine.fe.combat.targets import Target

SMALL_SCALE_RULE = "310.0"
SIZE_RULE = specs.SIZE_RULE
DICE = 2
"""Small-scale combat rolls two dice (the table's "Roll (2d6)")."""

RESULTS: tuple[tuple[int, int], ...] = (
    (2, 0),
    (5, 1),
    (8, 2),
    (10, 3),
    (11, 4),
    (12, 5),
    (13, 6),
    (14, 7),
    (15, 8),
    (16, 9),
)
"""The "Small-Scale Combat Results" table as (lowest total of the row, casualties), rows in
order: each row runs up to the next row's lowest total less one; the last row is open."""

EW_MOST = 2
"""The enemy's EW advantage takes at most 2 off the roll (play aid: 0 to -2)."""

SMALL_SCALE_SIZE = specs.SMALL_SCALE_SIZE
OPTIONS = specs.SMALL_SCALE_OPTIONS
"""The rule options this module reads (declared in `engine.fe.option_specs`)."""


def size_option(values: Mapping[str, OptionValue]) -> int:
    """The size limit in force (an absent or non-integer value takes the default: never)."""
    value = values.get(SMALL_SCALE_SIZE, 0)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def applies(attacker_units: int, defender_units: int, size: int) -> bool:
    """Whether a battle is small-scale (310.11, C): neither side has more than ``size`` units
    able to fight; never when ``size`` is 0."""
    return size > 0 and 0 < attacker_units <= size and 0 < defender_units <= size


def casualties(total: int) -> int:
    """The casualties a modified two-dice total inflicts (the results table)."""
    found = 0
    for lowest, count in RESULTS:
        if total >= lowest:
            found = count
    return found


class SideFacts(msgspec.Struct, frozen=True):
    """What the modifiers read about one side's battle force and the enemy's, this round.
    Defences are doubled, as on the unit tables."""

    x_ship: bool = False
    mauler_with_consorts: bool = False
    slow_unit: bool = False
    enemy_fast_or_x: bool = False
    fighting_retreat: bool = False
    """This side conducts a fighting retreat (302.77)."""
    opposing_fighting_retreat: bool = False
    largest_def2: int = 0
    enemy_largest_def2: int = 0
    enemy_ew_shift: int = 0
    """The EW shift the enemy has against this side (308.51)."""


def modifiers(facts: SideFacts) -> tuple[tuple[int, str], ...]:
    """Each modifier that applies to the side's roll, with why (play aid)."""
    found: list[tuple[int, str]] = []
    if facts.x_ship:
        found.append((1, "the force has an X ship"))
    if facts.mauler_with_consorts:
        found.append((1, "the force has a mauler with consorts"))
    if facts.slow_unit:
        found.append((-1, "the force includes a slow unit"))
    if facts.enemy_fast_or_x:
        found.append((-1, "the enemy has a fast or X ship"))
    if facts.fighting_retreat:
        found.append((-2, "conducting a fighting retreat"))
    if facts.opposing_fighting_retreat:
        found.append((2, "opposing a fighting retreat"))
    short2 = facts.enemy_largest_def2 - facts.largest_def2
    if short2 >= 10:
        found.append((-2, f"largest defence {_whole(short2)} less than the enemy's"))
    elif short2 >= 4:
        found.append((-1, f"largest defence {_whole(short2)} less than the enemy's"))
    ew = min(EW_MOST, max(0, facts.enemy_ew_shift))
    if ew:
        found.append((-ew, "the enemy's EW advantage"))
    return tuple(found)


def _whole(points2: int) -> str:
    return f"{points2 // 2}" + (".5" if points2 % 2 else "")


class SmallScaleResult(msgspec.Struct, frozen=True):
    """One side's small-scale roll: its dice, modifiers, total and the casualties scored."""

    dice: tuple[int, ...]
    modifier: int
    total: int
    casualties: int
    reasons: tuple[str, ...] = ()


def resolve(dice: tuple[int, ...], facts: SideFacts) -> SmallScaleResult:
    """The casualties one side scores with ``dice`` (two, 1 to 6) and its ``facts``."""
    if len(dice) != DICE or not all(1 <= d <= 6 for d in dice):
        raise ValueError(f"small-scale combat rolls two dice 1 to 6, not {dice!r}")
    found = modifiers(facts)
    modifier = sum(value for value, _ in found)
    total = sum(dice) + modifier
    reasons = tuple(f"{value:+d} {why}" for value, why in found)
    return SmallScaleResult(dice, modifier, total, casualties(total), reasons)


def result_text(result: SmallScaleResult) -> str:
    """``"dice 4 + 5 -1 = 8: 2 casualties (-1 the force includes a slow unit)"``."""
    dice = " + ".join(str(d) for d in result.dice)
    shown = f" {result.modifier:+d}" if result.modifier else ""
    count = f"{result.casualties} casualt{'y' if result.casualties == 1 else 'ies'}"
    why = f" ({'; '.join(result.reasons)})" if result.reasons else ""
    return f"dice {dice}{shown} = {result.total}: {count}{why}"


def step_targets(targets: list[Target]) -> list[Target]:
    """The allocation targets of a small-scale round: each casualty is one step, so every
    unit costs one point to cripple and one more to destroy once crippled (doubled: 2); no
    fighters or SIDS are taken one by one."""
    return [
        msgspec.structs.replace(
            t,
            def2=2,
            crippled_def2=None if t.crippled_def2 is None else 2,
            fighters2=0,
            sids="",
            steps=0,
        )
        for t in targets
    ]
