"""Electronic warfare (308.51, 313.0): each side's EW points, bases' attack-for-EW trade, shift.

Scouts and bases give a battle force EW points (step 5-4A2: the variable ones are chosen
secretly and revealed together). Each unit's points come from the side of its counter in use
(a crippled scout whose crippled side has no scout symbol gives none):

- a fixed value from the unit tables (``UnitClass.ew``: a scout, a mobile base);
- one of the unit's EW modes (``UnitClass.ew_modes``: a CVL gives 4 EW keeping 2 attack, or
  1 keeping 6), chosen by its EW points; with no choice, the mode keeping the most attack;
- a base's EW factor (EWF) from the base EW tables below, which set the attack factor the base
  keeps at that EWF; with no choice, the EWF keeping the most attack (its printed attack).

The shift (rules notes, C): the side with more EW points adds the difference to its own
combat-table roll, at most `EW_SHIFT_MAX` (option ``ew-shift-max``, default 2); the other side
adds nothing.

The base EW table is printed twice in the summary with the attack values in opposite orders:
"Electronic warfare ratings for bases" gives a starbase at EWF 1 its 36 attack and at EWF 6
only 6, while the play aid "Starbase electronic warfare and SIDS" puts 6 under column 1 and 36
under column 6. Option ``base-ew-order`` picks one:

- ``"rating"`` (default): EWF 1 keeps the most attack. This is the only order in which EW is
  *traded* for attack (each EW point costs attack, as the tables' titles and step 5-4A2 say);
  it keeps the printed attack of the unit tables (SB 36, BATS 12) at the lowest EWF; and it
  lets a crippled base use the low EWFs (crippled SB: EWF 1-3 keep 18, 12, 6), where the other
  order would give a crippled starbase keeping 18 attack six EW points, twice the three a whole
  one keeping 18 gets.
- ``"play-aid"``: the play aid's columns read as the EWF: EWF 1 keeps the least attack and a
  crippled base uses the top EWFs. Offered for groups that play from that chart.

The data below are in the ``"rating"`` order; SBX and BTX, which only the play aid prints, are
turned into it the way the starbase's two printings relate (the play aid's BTX row sits in its
columns 2-4; its crippled values under the top two).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import msgspec

from engine.core.ruleset import OptionValue, Violation
from engine.fe import option_specs as specs
from engine.fe.forces import Unit
from engine.fe.units import Side

EW_RULE = specs.EW_RULE
"""Scouts' EW and the shift (step 5-4A2 cites 308.51 or 313.21)."""
BASE_EW_RULE = specs.BASE_EW_RULE
"""Electronic warfare (313.0): the base EW tables are play aids with no finer rule number."""

BASE_EW_ORDER = specs.BASE_EW_ORDER
EW_SHIFT_MAX_OPTION = specs.EW_SHIFT_MAX_OPTION
RATING = specs.RATING
PLAY_AID = specs.PLAY_AID
EW_SHIFT_MAX = specs.EW_SHIFT_MAX

OPTIONS = specs.EW_OPTIONS
"""The rule options this module reads (house-rule defaults until checked against a rulebook),
declared in `engine.fe.option_specs`."""


class EwOptions(msgspec.Struct, frozen=True):
    order: str = RATING
    shift_max: int = EW_SHIFT_MAX


def ew_options(values: Mapping[str, OptionValue]) -> EwOptions:
    """The options from a game's chosen values (absent or unusable ones take the default)."""
    order = values.get(BASE_EW_ORDER, RATING)
    most = values.get(EW_SHIFT_MAX_OPTION, EW_SHIFT_MAX)
    return EwOptions(
        order=order if order in (RATING, PLAY_AID) else RATING,
        shift_max=most if isinstance(most, int) and not isinstance(most, bool) and most >= 0 else 2,
    )


KZI = ("KZI",)
FED_KLI = ("FED", "KLI")
KZI_FED_KLI = ("FED", "KLI", "KZI")
FED_KZI = ("FED", "KZI")


class EwRow(msgspec.Struct, frozen=True):
    """Attack factors a base keeps at EWF 1, 2, ... (``"rating"`` order), against ``vs``
    empires (empty: everyone else)."""

    attack: tuple[int, ...]
    vs: tuple[str, ...] = ()


class BaseChart(msgspec.Struct, frozen=True):
    """One base kind's rows, whole and crippled (a kind with no crippled rows has none)."""

    full: tuple[EwRow, ...]
    crippled: tuple[EwRow, ...] = ()


BASE_EW: Mapping[str, BaseChart] = {
    "SB": BaseChart(
        (EwRow((36, 30, 24, 18, 12, 6)), EwRow((36, 30, 24, 18, 18, 18), KZI),
         EwRow((36, 30, 24, 18, 12, 12), FED_KLI)),
        (EwRow((18, 12, 6)), EwRow((18, 12, 9), KZI)),
    ),
    "SBX": BaseChart(
        (EwRow((54, 45, 36, 27, 18, 9)), EwRow((54, 45, 36, 27, 27, 27), KZI),
         EwRow((54, 45, 36, 27, 18, 18), FED_KLI)),
        (EwRow((27, 18, 9)), EwRow((27, 18, 14), KZI)),
    ),
    "STB": BaseChart(
        (EwRow((12, 9, 6, 3)), EwRow((12, 12, 9, 9), KZI_FED_KLI)),
        (EwRow((6, 3)), EwRow((6, 6), KZI_FED_KLI)),
    ),
    "STX": BaseChart(
        (EwRow((18, 14, 9, 5)), EwRow((18, 18, 14, 14), KZI_FED_KLI)),
        (EwRow((9, 5)), EwRow((9, 9), KZI_FED_KLI)),
    ),
    "BATS": BaseChart(
        (EwRow((12, 9, 6, 3)), EwRow((12, 9, 6, 6), KZI_FED_KLI)),
        (EwRow((6, 3)), EwRow((6, 4), KZI_FED_KLI)),
    ),
    "BTX": BaseChart((EwRow((18, 14, 9)),), (EwRow((9, 5)),)),
    "BS": BaseChart(
        (EwRow((10, 5)), EwRow((10, 10), KZI_FED_KLI)),
        (EwRow((5,)), EwRow((5,), KZI_FED_KLI)),
    ),
    "BSX": BaseChart((EwRow((16, 9, 3)), EwRow((16, 9, 6), FED_KZI))),
}  # fmt: skip
"""The base EW tables of the summary, in the ``"rating"`` order (see the module docstring).
The crippled BSX row is cut off in the summary: a crippled BSX has no EW choice here."""


class UnitEw(msgspec.Struct, frozen=True):
    """What one unit brings to its side for a round: EW points and the attack (doubled) it
    keeps for them."""

    ew: int
    att2: int


def base_kind(cls: str) -> str:
    """The base kind a class id names: ``"SBv.2"`` -> ``"SB"``, ``"BATS"`` -> ``"BATS"``."""
    return cls.split(" ", maxsplit=1)[0].removesuffix("v.2")


def _row(chart: BaseChart, crippled: bool, enemies: Iterable[str]) -> EwRow | None:
    """The row that applies: a ``vs`` row when every enemy empire is in its group (a mixed
    enemy force gets the general row, inferred), else the general row."""
    rows = chart.crippled if crippled else chart.full
    if not rows:
        return None
    against = set(enemies)
    for row in rows:
        if row.vs and against and against <= set(row.vs):
            return row
    return rows[0]


def base_ewf_range(cls: str, *, crippled: bool, order: str = RATING) -> tuple[int, int] | None:
    """The EWFs a base may choose (None: not a base with an EW chart). In the play aid's order
    a crippled base's values sit under the top EWFs of its whole row."""
    chart = BASE_EW.get(base_kind(cls))
    if chart is None:
        return None
    rows = chart.crippled if crippled else chart.full
    if not rows:
        return None
    size = len(rows[0].attack)
    if order == PLAY_AID and crippled:
        top = len(chart.full[0].attack)
        return top - size + 1, top
    return 1, size


def base_attack(
    cls: str, ewf: int, *, crippled: bool, enemies: Iterable[str] = (), order: str = RATING
) -> int | Violation:
    """The attack factor (whole) a base keeps at EW factor ``ewf`` (313.0), or why not."""
    chart = BASE_EW.get(base_kind(cls))
    span = base_ewf_range(cls, crippled=crippled, order=order)
    row = None if chart is None else _row(chart, crippled, enemies)
    if chart is None or span is None or row is None:
        state = "crippled " if crippled else ""
        return Violation(f"a {state}{cls} has no EW factor to choose", BASE_EW_RULE)
    low, high = span
    if not low <= ewf <= high:
        state = "crippled " if crippled else ""
        return Violation(
            f"EW factor {ewf} is not on the {state}{cls}'s chart ({low} to {high})", BASE_EW_RULE
        )
    if order == PLAY_AID:
        # The play aid's column c holds the rating order's entry counted from the top EWF.
        return row.attack[high - ewf]
    return row.attack[ewf - 1]


def _side(unit: Unit) -> Side:
    info = unit.info()
    return info.shown(unit.crippled)


def unit_ew(
    unit: Unit, choice: int | None = None, *, enemies: Iterable[str] = (), order: str = RATING
) -> UnitEw | Violation:
    """A unit's EW points and the attack it keeps, for ``choice`` (an EWF for a base, the EW
    points of a mode for a variable scout; None: the default, which keeps the most attack).
    A unit without EW refuses any choice but None."""
    side = _side(unit)
    info = unit.info()
    foes = tuple(enemies)
    span = base_ewf_range(unit.cls, crippled=unit.crippled, order=order)
    if span is not None and side.scout:
        if choice is None:
            best = max(range(span[0], span[1] + 1), key=lambda e: _whole(unit, e, foes, order))
            choice = best
        kept = base_attack(unit.cls, choice, crippled=unit.crippled, enemies=foes, order=order)
        if isinstance(kept, Violation):
            return kept
        return UnitEw(choice, 2 * kept)
    if side.scout and info.ew_modes and not unit.crippled:
        modes = {mode.ew: side.att2 if mode.att2 is None else mode.att2 for mode in info.ew_modes}
        if choice is None:
            choice = max(sorted(modes), key=lambda e: (modes[e], -e))
        if choice not in modes:
            offered = ", ".join(str(e) for e in sorted(modes))
            return Violation(
                f"{unit.id} ({unit.cls}) cannot give {choice} EW points: its modes give {offered}",
                EW_RULE,
            )
        return UnitEw(choice, modes[choice])
    fixed = info.ew if side.scout else 0
    if choice is not None and choice != fixed:
        return Violation(
            f"{unit.id} ({unit.cls}) has no EW choice: it gives {fixed} EW points", EW_RULE
        )
    return UnitEw(fixed, side.att2)


def _whole(unit: Unit, ewf: int, enemies: tuple[str, ...], order: str) -> tuple[int, int]:
    """Sort key for a base's default EWF: most attack, then the lowest EWF."""
    kept = base_attack(unit.cls, ewf, crippled=unit.crippled, enemies=enemies, order=order)
    return (-1 if isinstance(kept, Violation) else kept, -ewf)


def side_ew(
    units: Sequence[Unit],
    choices: Mapping[str, int] | None = None,
    *,
    enemies: Iterable[str] = (),
    order: str = RATING,
) -> int | Violation:
    """A battle force's EW points (308.51): the sum of its units' (`unit_ew`)."""
    chosen = choices or {}
    foes = tuple(enemies)
    total = 0
    for unit in units:
        got = unit_ew(unit, chosen.get(unit.id), enemies=foes, order=order)
        if isinstance(got, Violation):
            return got
        total += got.ew
    return total


def ew_shift(own: int, enemy: int, *, most: int = EW_SHIFT_MAX) -> int:
    """The shift a side adds to its combat roll (308.51; rules notes C): the amount its EW
    points exceed the enemy's, at most ``most``; nothing when it has no more than the enemy."""
    return max(0, min(most, own - enemy))


def check_shift(shift: int, *, most: int = EW_SHIFT_MAX) -> Violation | None:
    """An EW shift given directly (a calculator) must be one a side can have: 0..``most``."""
    if 0 <= shift <= most:
        return None
    return Violation(
        f"an EW shift of {shift} is not possible: the side with more EW points adds 0 to "
        f"{most} to its own roll, the other side nothing",
        EW_RULE,
    )
