"""The rule options of the pure rules modules, as game options players choose at creation.

The rules modules (`engine.fe.economics`, `engine.fe.movement`, `engine.fe.neutral`,
`engine.fe.production`, `engine.fe.repair`, `engine.fe.steps.reserves`) each list the
readings they leave to the players (``OPTIONS``: house-rule defaults until checked against a
rulebook). Gathered here into one list, sorted by id, so a game shows them all in
one place and a ruleset can offer them next to a scenario's own options. `values` gives the
value in force for each of them in a game: the one chosen at creation, or its default when
the game was created before the option existed (its state does not name it).

The combat modules' options and the reserves' are declared apart from their rules
(`engine.fe.option_specs`), so that reading them does not import the combat sequence and the
movement steps (a game screen reads them for the income it shows; issue 16). The combat
modules' options (`engine.fe.combat.ew`, `engine.fe.combat.potential`: base EW
order, EW shift cap, damage rounding) are read where a battle round's damage is worked out
(`engine.fe.steps.combat_round`), the pursuit battle's (return fire, the cost of directed
damage) where it is fought (`engine.fe.steps.pursuit_round`); ``hexpost calc combat`` takes
the rounding as a flag.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.core import caches
from engine.core.ruleset import OptionSpec, OptionValue
from engine.fe import economics, movement, neutral, option_specs, production, provinces, repair
from engine.fe.model import FeState
from engine.fe.steps import command_points


def _sorted_unique(specs: Iterable[OptionSpec]) -> tuple[OptionSpec, ...]:
    """The specs by id; two modules claiming one id is a programming error, caught at import."""
    ordered = tuple(sorted(specs, key=lambda spec: spec.id))
    ids = [spec.id for spec in ordered]
    twice = sorted({i for i in ids if ids.count(i) > 1})
    if twice:
        raise ValueError(f"rule options defined twice: {', '.join(twice)}")
    return ordered


RULE_OPTIONS: tuple[OptionSpec, ...] = _sorted_unique(
    (
        *option_specs.PURSUIT_OPTIONS,
        *command_points.OPTIONS,
        *economics.OPTIONS,
        *option_specs.EW_OPTIONS,
        *movement.OPTIONS,
        *neutral.OPTIONS,
        *option_specs.POTENTIAL_OPTIONS,
        *production.OPTIONS,
        *provinces.OPTIONS,
        *repair.OPTIONS,
        *option_specs.RESERVES_OPTIONS,
        *option_specs.SMALL_SCALE_OPTIONS,
    )
)
"""Every rule option of the rules modules, sorted by id."""


def values(state: FeState) -> dict[str, OptionValue]:
    """Each rule option's value in this game: as chosen, else its default (a new dict)."""
    return values_of(state.options)


def values_of(options: tuple[tuple[str, OptionValue], ...]) -> dict[str, OptionValue]:
    """`values` from a state's chosen ``options`` alone (a new dict)."""
    return dict(_values(options))


@caches.by_identity(maxsize=4)
def _values(options: tuple[tuple[str, OptionValue], ...]) -> dict[str, OptionValue]:
    """`values` of the game's chosen ``options`` (by identity: a game keeps the same tuple
    from state to state). Not to be mutated."""
    chosen: dict[str, OptionValue] = {}
    for name, value in reversed(options):  # as `FeState.option` reads them: the first wins
        chosen[name] = value
    out: dict[str, OptionValue] = {}
    for spec in RULE_OPTIONS:
        picked = chosen.get(spec.id)
        out[spec.id] = spec.default if picked is None else picked
    return out
