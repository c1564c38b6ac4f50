"""Phase 2's shared ground: what the phase used so far, and the lookups its orders share.

The Shipyard phase's rules live in the pure modules (`engine.fe.repair`,
`engine.fe.production`, `engine.fe.economics`), which judge a whole turn's orders at once.
Packets bring them one at a time, so the phase's steps (`engine.fe.steps.repairs`,
`engine.fe.steps.shipyard`, `engine.fe.steps.replacements`) feed the pure checks one order
and add here what the earlier orders of the turn already used. That tally lives in
``FeState.shipyard_used`` as ``(empire, what, count)`` entries (`used`, `use`); the Shipyard
area clears it as each phase begins.

Money needs no tally: every order pays as it is applied, so the treasury an order is checked
against is already what the earlier ones left. The pure production check is handed an
unlimited purse (`UNLIMITED2`) and money is checked here instead (`money`), so the refusal
can name the order's own price ("D7 costs 8 EP, KLI has 5.5").

Which empire acts: the unit's, for repairs, conversions and replacements; for a build, the
seat's only empire or the one the order names. Supply (410.23, 501.5) is read as: a hex is
cut off when the empire's grid reaches it neither as main nor as partial supply (`cut_off`);
supply tugs are not tracked yet, so a unit that only a tug supplies counts as cut off
(inferred).
"""

from __future__ import annotations

from bisect import bisect_left

import msgspec

from engine.core import caches
from engine.core.errors import NotPending
from engine.core.ruleset import OptionValue, Seat, Violation
from engine.fe import production, repair, rule_options
from engine.fe.economics import fmt_ep
from engine.fe.forces import OFF_MAP, Unit
from engine.fe.galaxy import HexId
from engine.fe.model import FeState
from engine.fe.oob import Batch
from engine.fe.scenario import find_scenario
from engine.fe.steps import base
from engine.fe.supply import supply_grid

UNLIMITED2 = 10**12
"""The purse handed to the pure production check: money is checked here, order by order."""


# --- what this phase used -----------------------------------------------------------------


def used(state: FeState, empire: str, what: str) -> int:
    """How much of ``what`` (``"slot D7"``, ``"repair 1307"``...) ``empire`` used this phase."""
    entries = state.shipyard_used  # sorted, each (empire, what) once (`use`): bisection
    i = bisect_left(entries, (empire, what))
    if i < len(entries) and entries[i][0] == empire and entries[i][1] == what:
        return entries[i][2]
    return 0


def use(state: FeState, empire: str, *uses: tuple[str, int]) -> FeState:
    """``state`` with ``empire``'s tally of each ``(what, count)`` raised by ``count``."""
    # The tally is sorted and each (empire, what) is in it once: an entry's place is found
    # by bisection ((empire, what) sorts just before any (empire, what, count)).
    entries = list(state.shipyard_used)
    for what, count in uses:
        i = bisect_left(entries, (empire, what))
        if i < len(entries) and entries[i][0] == empire and entries[i][1] == what:
            entries[i] = (empire, what, entries[i][2] + count)
        else:
            entries.insert(i, (empire, what, count))
    return msgspec.structs.replace(state, shipyard_used=tuple(entries))


def at(h: HexId) -> str:
    """A hex as the tally keys and the messages write it (``"0704"``)."""
    return base.hex_text(h)


# --- shared lookups -----------------------------------------------------------------------


def repair_options(state: FeState) -> repair.RepairOptions:
    return _repair_options(state.options)


def production_options(state: FeState) -> production.ProductionOptions:
    return _production_options(state.options)


@caches.by_identity(maxsize=4)
def _repair_options(options: tuple[tuple[str, OptionValue], ...]) -> repair.RepairOptions:
    """`repair_options` by the game's chosen options (by identity: a game keeps the same
    tuple from state to state), read by every repair order's check and apply."""
    return repair.repair_options(rule_options.values_of(options))


@caches.by_identity(maxsize=4)
def _production_options(
    options: tuple[tuple[str, OptionValue], ...],
) -> production.ProductionOptions:
    """`production_options` by the game's chosen options (by identity, as `_repair_options`),
    read three times by every build order."""
    return production.production_options(rule_options.values_of(options))


def schedule(state: FeState, empire: str) -> tuple[Batch, ...]:
    """``empire``'s production schedule from its scenario set-up (none if it has no set-up)."""
    return _schedule(state.scenario, empire)


@caches.derived(maxsize=64, shipped=True)
def _schedule(scenario_id: str, empire: str) -> tuple[Batch, ...]:
    """`schedule` by the scenario's id: read from the shipped scenario once per empire (a
    build order asks three times), the same tuple each time (`production._planned` keys on
    it). An unknown scenario raises as `base.scenario` does, and is not remembered."""
    found = find_scenario(scenario_id)
    if found is None:
        raise NotPending(f"unknown scenario {scenario_id!r}")
    setup = found.setup.empire(empire) if found.setup is not None else None
    return setup.production if setup is not None else ()


def cut_off(state: FeState, unit: Unit) -> tuple[HexId, ...]:
    """``(unit.hex,)`` when the unit's empire cannot trace supply there, else ``()``."""
    if unit.hex == OFF_MAP:
        return ()
    grid = supply_grid(base.galaxy(), state.board, unit.empire)
    return (unit.hex,) if grid.status(unit.hex) == "none" else ()


def own_unit(state: FeState, seat: Seat, unit_id: str, rule: str) -> Unit | list[Violation]:
    """The unit, if ``seat`` plays its empire; else why not, under ``rule``."""
    units, problems = base.own_units(state, seat, [unit_id], rule)
    return problems if problems else units[0]


def check(
    state: FeState,
    empire: str,
    orders: production.ProductionOrders,
    unsupplied: tuple[HexId, ...] = (),
) -> list[Violation]:
    """The pure production check of one order, with money left to the caller."""
    return production.check_builds(
        base.galaxy(),
        state.board,
        empire,
        state.turn,
        UNLIMITED2,
        schedule(state, empire),
        orders,
        unsupplied=unsupplied,
        options=production_options(state),
    )


def produce(
    state: FeState, empire: str, orders: production.ProductionOrders
) -> tuple[FeState, int, tuple[str, ...]]:
    """The pure module carries out one checked order, paid from the real treasury: the state
    with the units placed and paid for, the cost in halves of an EP, the new units' ids.

    The changed units go straight into the state (`FeState.with_units`), at the cost of
    those units, with no whole board made in between."""
    treasury2 = state.ep2(empire)
    units, cost2, ids = production.production_changes(
        base.galaxy(),
        state.board,
        empire,
        state.turn,
        treasury2,
        schedule(state, empire),
        orders,
        production_options(state),
    )
    return state.with_units(units).with_ep2(empire, treasury2 - cost2), cost2, ids


def treasury_text(before2: int, after2: int) -> str:
    return f"treasury {fmt_ep(before2)} -> {fmt_ep(after2)}"


def money(what: str, cost2: int, empire: str, treasury2: int, rule: str) -> list[Violation]:
    """Why ``empire`` cannot pay ``cost2`` (halves of an EP) for ``what``, if it cannot."""
    if cost2 <= treasury2:
        return []
    return [Violation(f"{what} costs {fmt_ep(cost2)} EP, {empire} has {fmt_ep(treasury2)}", rule)]
