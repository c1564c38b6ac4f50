"""A side's combat potential and the damage it scores (302.4), in exact integers.

Combat potential (rules notes, S) is the sum over the battle force of:

- attack factors, from the side of the counter in use (the crippled side for cripples), or the
  attack a scout or base keeps for its EW choice (`engine.fe.combat.ew`);
- fighter factors, with the heavy-fighter and F-111 extra factors (``Side.heavy2``); fighters
  lost earlier in the battle are subtracted (``lost_fighters2``). A lone half fighter factor
  (the triangle on some counters) counts only when a second one pairs with it, so standard
  fighter halves add up in pairs and an odd one left over is dropped;
- PFs, two factors each (rules notes), less those lost earlier (``lost_pfs``);
- the fighters and PFs sent forward by the support echelon (302.563: they fight in the
  force, their carriers stay out of it), ``forward_fighters2`` and ``forward_pfs``; fighters
  sent forward are counted as standard ones (I: heavy fighters' extra factors are not sent);
- drone bombardment factors (the ``<#>`` on a counter, 309.0) of the units that use them this
  round (``drones``); each such factor costs 0.1 EP a round (fixed economic costs), reported
  as `SidePotential.drones` for the economy to charge.

Like the unit tables, every factor is doubled (``att2 = 2 x attack``) so halves stay exact.

Damage is potential x the table's per-mille (`engine.fe.combat.results`). The exact product is
kept over a denominator of 2000 (doubled factors x per-mille); the whole damage points come from
rounding it with option ``damage-rounding`` (rules notes, I: to the nearest point, a half going
up, "18 x 10% = 1.8 -> 2"; the other values are for groups that play it otherwise):
``"nearest-half-up"`` (default), ``"nearest-half-down"``, ``"down"``, ``"up"``. The rounding's
difference stays in `DamageResult.remainder2000` (positive: a fraction dropped; negative: one
added) so a battle record can show it, and so a house rule carrying fractions between rounds
could; plus and minus points (308.2) are whole points of damage left over or over-resolved in
allocation (302.6), which `apply_minus` and `with_plus` carry into the next round.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import msgspec

from engine.core.ruleset import OptionValue, Violation
from engine.fe import option_specs as specs
from engine.fe.combat import ew as ew_rules
from engine.fe.combat.results import CombatResult, combat_result, permille_text
from engine.fe.forces import Unit
from engine.fe.units import Side

POTENTIAL_RULE = specs.POTENTIAL_RULE
PLUS_MINUS_RULE = "308.2"
DRONE_RULE = "309.0"

DAMAGE_ROUNDING = specs.DAMAGE_ROUNDING
NEAREST_HALF_UP = specs.NEAREST_HALF_UP
NEAREST_HALF_DOWN = specs.NEAREST_HALF_DOWN
DOWN = specs.DOWN
UP = specs.UP
ROUNDINGS = specs.ROUNDINGS

PF_FACTORS = 2
"""Combat factors per PF (rules notes)."""
DENOMINATOR = 2000
"""Exact damage is kept in 2000ths of a point: doubled factors x per-mille."""

OPTIONS = specs.POTENTIAL_OPTIONS
"""The rule options this module reads (house-rule defaults until checked against a rulebook),
declared in `engine.fe.option_specs`."""


def rounding_option(values: Mapping[str, OptionValue]) -> str:
    """The damage rounding in force (an absent or unknown value takes the default)."""
    chosen = values.get(DAMAGE_ROUNDING, NEAREST_HALF_UP)
    return chosen if isinstance(chosen, str) and chosen in ROUNDINGS else NEAREST_HALF_UP


class SidePotential(msgspec.Struct, frozen=True):
    """A battle force's combat potential, doubled, by source; ``ew`` its EW points and
    ``drones`` the drone bombardment factors used (0.1 EP each this round)."""

    attack2: int
    fighters2: int
    pfs2: int
    drones2: int
    total2: int
    ew: int
    drones: int


class DamageResult(msgspec.Struct, frozen=True):
    """One side's damage for a round: its potential (doubled), the BIR total used, the
    variable BIR die (0: none rolled, e.g. a total given directly), its EW shift, its die, the
    table's result and per-mille, the rounding used, the whole damage points and what the
    rounding left (``remainder2000``: exact minus damage, in 2000ths of a point)."""

    potential2: int
    bir: int
    vbir_die: int
    ew: int
    die: int
    result: int
    permille: int
    rounding: str
    damage: int
    remainder2000: int

    @property
    def exact2000(self) -> int:
        """Potential x per-mille, exactly, in 2000ths of a point."""
        return self.potential2 * self.permille


def _side(unit: Unit) -> Side:
    info = unit.info()
    return info.shown(unit.crippled)


def lost_within(units: Sequence[Unit], lost_fighters2: Mapping[str, int]) -> dict[str, int]:
    """``lost_fighters2`` for the units of ``units`` only, each at most the fighter factors
    the side of its counter in use carries (a carrier crippled after its losses carries
    fewer): what `side_potential` takes as ``lost_fighters2``."""
    out: dict[str, int] = {}
    for unit in units:
        lost = lost_fighters2.get(unit.id, 0)
        if lost > 0:
            side = _side(unit)
            out[unit.id] = min(lost, side.fighters2 + side.heavy2)
    return out


def side_potential(
    units: Sequence[Unit],
    *,
    ew_choices: Mapping[str, int] | None = None,
    drones: Iterable[str] = (),
    lost_fighters2: Mapping[str, int] | None = None,
    lost_pfs: Mapping[str, int] | None = None,
    enemies: Iterable[str] = (),
    order: str = ew_rules.RATING,
    forward_fighters2: int = 0,
    forward_pfs: int = 0,
) -> SidePotential | Violation:
    """The combat potential of ``units`` (the battle force) for one round (302.4).

    ``ew_choices`` maps unit ids to their EW choice (see `engine.fe.combat.ew.unit_ew`);
    ``drones`` names the units firing drone bombardment this round; ``lost_*`` what each unit
    lost earlier in the battle. A choice, drone user or loss naming a unit outside the force,
    a drone user without drone factors, or a loss beyond what the unit carries is refused.
    """
    chosen = dict(ew_choices or {})
    firing = tuple(sorted(set(drones)))
    lost_f = dict(lost_fighters2 or {})
    lost_p = dict(lost_pfs or {})
    ids = {unit.id for unit in units}
    for what, named in (
        ("an EW choice", chosen),
        ("drone bombardment", firing),
        ("lost fighters", lost_f),
        ("lost PFs", lost_p),
    ):
        strangers = sorted(set(named) - ids)
        if strangers:
            return Violation(
                f"{what} names {', '.join(strangers)}, not in the battle force", POTENTIAL_RULE
            )
    foes = tuple(enemies)
    attack2 = standard2 = heavy2 = pfs = drones2 = ew_points = drone_factors = 0
    for unit in units:
        side = _side(unit)
        got = ew_rules.unit_ew(unit, chosen.get(unit.id), enemies=foes, order=order)
        if isinstance(got, Violation):
            return got
        ew_points += got.ew
        attack2 += got.att2
        lost = lost_f.get(unit.id, 0)
        carried = side.fighters2 + side.heavy2
        if not 0 <= lost <= carried:
            return Violation(
                f"{unit.id} ({unit.cls}) carries {factors_text(carried)} fighter factors; "
                f"{factors_text(lost)} lost is not possible",
                POTENTIAL_RULE,
            )
        # Losses come off the heavy extra factors last: they ride on the standard ones.
        standard_lost = min(lost, side.fighters2)
        standard2 += side.fighters2 - standard_lost
        heavy2 += side.heavy2 - (lost - standard_lost)
        gone = lost_p.get(unit.id, 0)
        if not 0 <= gone <= side.pfs:
            return Violation(
                f"{unit.id} ({unit.cls}) carries {side.pfs} PFs; {gone} lost is not possible",
                POTENTIAL_RULE,
            )
        pfs += side.pfs - gone
        if unit.id in firing:
            if side.drones == 0:
                return Violation(
                    f"{unit.id} ({unit.cls}) has no drone bombardment factors", DRONE_RULE
                )
            drones2 += 2 * side.drones
            drone_factors += side.drones
    standard2 += forward_fighters2
    pfs += forward_pfs
    fighters2 = standard2 - standard2 % 2 + heavy2
    pfs2 = 2 * PF_FACTORS * pfs
    total2 = attack2 + fighters2 + pfs2 + drones2
    return SidePotential(attack2, fighters2, pfs2, drones2, total2, ew_points, drone_factors)


def round_damage(exact2000: int, rounding: str = NEAREST_HALF_UP) -> int:
    """Whole damage points from an exact amount in 2000ths of a point (never negative)."""
    whole, rest = divmod(exact2000, DENOMINATOR)
    if rest == 0 or rounding == DOWN:
        return whole
    if rounding == UP:
        return whole + 1
    if rounding == NEAREST_HALF_DOWN:
        return whole + 1 if 2 * rest > DENOMINATOR else whole
    if rounding == NEAREST_HALF_UP:
        return whole + 1 if 2 * rest >= DENOMINATOR else whole
    raise ValueError(f"unknown damage rounding {rounding!r}")


def damage(
    potential2: int,
    bir: int,
    die: int,
    ew: int = 0,
    *,
    rounding: str = NEAREST_HALF_UP,
    vbir_die: int = 0,
) -> DamageResult:
    """One side's damage: potential (doubled) x the table's per-mille for BIR total ``bir``
    (clamped to 0..10), ``die`` and EW shift ``ew``, rounded by ``rounding``.

    Raises ValueError for a negative potential or a die that is not 1..6: the engine's own
    rolls are always 1..6, and typed input is checked first (`check_damage_input`).
    """
    if potential2 < 0:
        raise ValueError(f"negative combat potential {potential2}/2")
    table: CombatResult = combat_result(bir, die, ew)
    exact = potential2 * table.permille
    points = round_damage(exact, rounding)
    return DamageResult(
        potential2=potential2,
        bir=table.bir,
        vbir_die=vbir_die,
        ew=ew,
        die=die,
        result=table.result,
        permille=table.permille,
        rounding=rounding,
        damage=points,
        remainder2000=exact - DENOMINATOR * points,
    )


def apply_minus(damage_points: int, minus: int) -> tuple[int, int]:
    """Minus points (308.2) from earlier rounds taken off this round's damage before directed
    damage (step 5-4E): the damage left and the minus points still to carry (inferred: what
    this round cannot absorb waits for the next)."""
    taken = min(damage_points, minus)
    return damage_points - taken, minus - taken


def with_plus(general: int, plus: int) -> int:
    """Plus points (308.2) from earlier rounds added to this round's general damage, after
    directed damage (step 5-5D)."""
    return general + plus


def exact_text(amount2000: int) -> str:
    """An amount in 2000ths of a point as a short decimal: 32400 -> "16.2", 3000 -> "1.5".
    Exact to three decimals (every product of a doubled factor and a per-mille is)."""
    sign = "-" if amount2000 < 0 else ""
    whole, rest = divmod(abs(amount2000), DENOMINATOR)
    if rest == 0:
        return f"{sign}{whole}"
    thousandths = rest // 2  # rest is even: 2000ths of a doubled factor x per-mille
    if rest % 2:
        return f"{sign}{whole}.{rest * 5:04d}".rstrip("0")
    return f"{sign}{whole}.{thousandths:03d}".rstrip("0")


def factors_text(value2: int) -> str:
    """A doubled factor as printed: 81 -> "40.5", 80 -> "40"."""
    whole, half = divmod(value2, 2)
    return f"{whole}.5" if half else f"{whole}"


def damage_text(result: DamageResult) -> str:
    """One line for people: "potential 36 x 45% = 16.2 -> 16 damage points (nearest-half-up)"."""
    exact = exact_text(result.exact2000)
    return (
        f"potential {factors_text(result.potential2)} x {permille_text(result.permille)} = "
        f"{exact} -> {result.damage} damage points ({result.rounding})"
    )
