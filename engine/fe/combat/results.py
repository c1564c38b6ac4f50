"""The 300 Combat Results Table and the battle intensity rating (302.3X, 304), in integers.

The play aids' Combat Results Table reads the damage of one side's roll from one number:
"Attacker BIR + Defender BIR +/- Variable BIR + EW Shift + die roll". Its results 1 to 16 give
10% to 45% in steps of 2.5%, then 50% at 16 (the long 300 table prints the same values as BIR
rows 0-10 by die columns 1-6: a BIR 10 with a 6 is 50%, not 47.5%). The percentages are kept
here as per-mille integers (100 to 500): no float ever touches a result, so two machines agree
to the bit.

What each piece is and where it comes from:

- Each side picks its rating secretly (304.1, step 5-3X2) within `BIR_PICK_MIN`..`BIR_PICK_MAX`
  (1..4: inferred in the rules notes; the summary prints no range). The two picks are added.
- The variable BIR die (304.3, step 5-3X4) adds -2, -1, 0, 0, +1, +2 for 1..6. Further BIR
  changes (stolen war plans +1, 534.243; a web caster, 525.74C) come in as ``modifier``.
- The total is clamped to the table's rows 0..10 (304.3). With picks of 1..4 the die alone
  cannot leave the table; the clamp matters once modifiers apply.
- One total serves both sides; each side then rolls its own die for its own damage and adds
  its own EW shift (`engine.fe.combat.ew`). The result is clamped to the table's ends 1..16.
- Fighting retreat (302.771-302.772, step 5-3X1): the retreating force fights at BIR 0 and the
  blocking force at BIR 10. We read this as each side's damage roll using its own row (the
  retreating side's roll on row 0, inflicting little; the blocking side's on row 10), with no
  picks and no variable BIR for that round: the summary sets the two ratings before any pick
  is made and gives no sum for them.
- Minimum BIRs (play aids): some weapons work only at a total of at least a value (SFG 3,
  maulers more than 3, ground attack 4, SAF 4, attack webs 4). We compare them with the total
  used for the round (inferred: the aid does not say "each side's pick").
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from engine.core.ruleset import Violation

BIR_RULE = "304.1"
VBIR_RULE = "304.3"
CRT_RULE = "302.4"
FIGHTING_RETREAT_RULE = "302.772"
MIN_BIR_RULE = "304.0"

BIR_PICK_MIN = 1
BIR_PICK_MAX = 4
"""Each side's secret pick (304.1; the range is inferred, see the module docstring)."""
BIR_MIN = 0
BIR_MAX = 10
"""The table's rows: every total is clamped into them."""
DIE_MIN = 1
DIE_MAX = 6
RESULT_MIN = 1
RESULT_MAX = 16
"""The play aid's Combat Results Table runs from result 1 (10%) to 16 (50%)."""

RETREATING_BIR = 0
BLOCKING_BIR = 10
"""Fighting retreat (302.772): the retreating force's row and the blocking force's row."""

VARIABLE_BIR: Mapping[int, int] = {1: -2, 2: -1, 3: 0, 4: 0, 5: 1, 6: 2}
"""The variable BIR die (304.3): roll -> change to the total."""

RESULT_PERMILLE: Mapping[int, int] = {
    1: 100, 2: 125, 3: 150, 4: 175, 5: 200, 6: 225, 7: 250, 8: 275,
    9: 300, 10: 325, 11: 350, 12: 375, 13: 400, 14: 425, 15: 450, 16: 500,
}  # fmt: skip
"""The play aids' Combat Results Table: result -> damage in per-mille of the potential."""

MINIMUM_BIR: Mapping[str, int] = {"SFG": 3, "mauler": 4, "ground": 4, "SAF": 4, "web": 4}
"""Play aids' minimum BIRs: the least total at which a weapon may be used ("total greater
than 3" for maulers is a minimum of 4; the SFG's 3 is the starbase special)."""


class Intensity(msgspec.Struct, frozen=True):
    """A round's battle intensity: both picks, the variable die and what it added, any other
    change, and the total used by both sides (clamped to 0..10)."""

    attacker: int
    defender: int
    vbir_die: int
    vbir: int
    modifier: int
    total: int


class CombatResult(msgspec.Struct, frozen=True):
    """One side's roll on the table: the BIR total, its die, its EW shift, the table's result
    number (clamped to 1..16) and the damage in per-mille of its combat potential."""

    bir: int
    die: int
    ew: int
    result: int
    permille: int


def check_die(die: int, what: str = "die roll") -> Violation | None:
    """A six-sided die shows 1..6; anything else is refused (a forged or mistyped roll)."""
    if DIE_MIN <= die <= DIE_MAX:
        return None
    return Violation(
        f"a {what} of {die} is not possible: a die shows {DIE_MIN} to {DIE_MAX}", CRT_RULE
    )


def check_pick(bir: int, *, low: int = BIR_PICK_MIN, high: int = BIR_PICK_MAX) -> Violation | None:
    """A side's secret BIR pick must lie in its allowed range (304.1)."""
    if low <= bir <= high:
        return None
    return Violation(
        f"a battle intensity rating of {bir} is outside the allowed {low} to {high}", BIR_RULE
    )


def check_total(bir: int) -> Violation | None:
    """A BIR total given directly (a calculator, a fixed rating) must be a table row 0..10."""
    if BIR_MIN <= bir <= BIR_MAX:
        return None
    return Violation(
        f"a BIR total of {bir} is not on the combat table: its rows are {BIR_MIN} to {BIR_MAX}",
        CRT_RULE,
    )


def variable_bir(die: int) -> int:
    """What the variable BIR die adds (304.3). Raises ValueError for a roll that is not 1..6
    (dice come from the engine's fair rolls; `check_die` refuses a typed one first)."""
    if die not in VARIABLE_BIR:
        raise ValueError(f"variable BIR die {die} is not 1..6")
    return VARIABLE_BIR[die]


def clamp_bir(total: int) -> int:
    """A BIR total pushed onto the table's rows 0..10 (304.3)."""
    return max(BIR_MIN, min(BIR_MAX, total))


def intensity(attacker: int, defender: int, vbir_die: int, *, modifier: int = 0) -> Intensity:
    """The round's BIR: both picks plus the variable die's change plus ``modifier``, clamped.

    The picks are assumed checked (`check_pick`); the die is one of the engine's rolls.
    """
    vbir = variable_bir(vbir_die)
    total = clamp_bir(attacker + defender + vbir + modifier)
    return Intensity(attacker, defender, vbir_die, vbir, modifier, total)


def fighting_retreat_bir(*, retreating: bool) -> int:
    """The row a side's roll uses in a fighting retreat (302.772): 0 retreating, 10 blocking."""
    return RETREATING_BIR if retreating else BLOCKING_BIR


def result_number(bir: int, die: int, ew: int = 0) -> int:
    """The table's result: BIR total + die + EW shift, clamped to 1..16 (the table's ends)."""
    return max(RESULT_MIN, min(RESULT_MAX, bir + die + ew))


def combat_result(bir: int, die: int, ew: int = 0) -> CombatResult:
    """One side's roll on the Combat Results Table. ``bir`` is the total (clamped to 0..10
    first, as every total is); ``die`` must be 1..6 (ValueError otherwise: check typed dice
    with `check_die`)."""
    if not DIE_MIN <= die <= DIE_MAX:
        raise ValueError(f"die {die} is not 1..6")
    total = clamp_bir(bir)
    result = result_number(total, die, ew)
    return CombatResult(total, die, ew, result, RESULT_PERMILLE[result])


def permille_text(permille: int) -> str:
    """Per-mille as the tables print percentages: 250 -> "25%", 175 -> "17.5%"."""
    whole, tenths = divmod(permille, 10)
    return f"{whole}.{tenths}%" if tenths else f"{whole}%"


def weapon_allowed(weapon: str, bir_total: int) -> Violation | None:
    """Whether a weapon with a minimum BIR (play aids) may be used at this round's total."""
    need = MINIMUM_BIR.get(weapon)
    if need is None or bir_total >= need:
        return None
    return Violation(
        f"{weapon} needs a battle intensity of at least {need}; this round's is {bir_total}",
        MIN_BIR_RULE,
    )
