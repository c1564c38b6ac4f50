"""Phase 1 (Economics) and the scenario's calendar: income, scripted events, fleet releases.

- 1C3 is automatic: each phasing empire collects its income (`engine.fe.economics.income`)
  into its treasury, and the event says how it was made up, line by line.
- As each game turn begins, the scenario's scripted events for that turn happen (war
  declarations, fleet releases: 600.3x), and then every starting fleet of an empire at war
  that the scenario never mentions (no release trigger, no scripted release) is released.
  That last rule is ours (marked I in the rules notes): the order of battle lists such
  fleets without a condition, and without it they could never move.
- An empire's economy is ``war`` once it is at war with anyone; else the economy its
  scenario's war-entry condition gave it (``FeState.economies``), else the scenario's own.
  Empires at peace or limited war collect a share of their income (`engine.fe.economics`,
  options, C).
- War entry (601.0, the scenario's data; I): at every economic phase (1C3, before income is
  collected), each empire not at war whose scenario lists a war-entry condition has it
  checked against the board as the release triggers are (`engine.fe.steps.releases`): a unit
  that can move, of the condition's actors (for The Wind's Federation: its future
  belligerents, the Klingons, Lyrans and Romulans), standing in a target hex (a hex the
  Kzinti own now, or the Marquis' Fleet's set-up area) invades. The first time it holds the
  empire's economy changes for good (an event says why); it is never changed back. Checking at
  the economic phase, not after every move, means a raider that leaves or dies before the next
  economic phase changes nothing: the invasion must still stand when the books are done.
"""

from __future__ import annotations

import msgspec

from engine.core import caches
from engine.core.ruleset import Event
from engine.fe import economics, provinces, rule_options
from engine.fe.forces import Board, war_pairs
from engine.fe.model import FeState
from engine.fe.oob import Economy, EmpireSetup, ScenarioSetup, WarEntry
from engine.fe.sequence import Step
from engine.fe.steps import base
from engine.fe.steps import supply as supply_area
from engine.fe.steps.base import Area
from engine.fe.steps.releases import Watchers, firing_lookup, trigger_reason, watchers_of
from engine.fe.supply import SupplyGrid

INCOME_RULE = "430.1"
RELEASE_RULE = "600.3"
WAR_ENTRY_RULE = "601.0"
ECONOMIES: tuple[Economy, ...] = ("war", "limited-war", "peace")


def economy_of(state: FeState, empire: str) -> Economy:
    """War once the empire is at war with anyone; else what its war entry made it; else what
    the scenario says."""
    if any(empire in pair for pair in state.at_war):
        return "war"
    for name, economy in state.economies:
        if name == empire:
            return next((e for e in ECONOMIES if e == economy), "war")
    setup = base.empire_setup(state, empire)
    return setup.economy if setup is not None else "war"


def war_entries(state: FeState) -> list[tuple[str, Economy, str]]:
    """The economies that change on this board: ``(empire, new economy, reason)`` by empire.

    Only empires not at war whose scenario lists a war entry to another economy than the one
    they are on; the first of their entries whose condition holds wins.
    """
    setups = base.scenario_setup(state)
    checked: list[tuple[EmpireSetup, list[tuple[int, WarEntry]]]] = []
    for setup in sorted(setups.empires, key=lambda e: e.empire):
        current = economy_of(state, setup.empire)
        if current == "war":
            continue
        entries = [(n, e) for n, e in enumerate(setup.war_entry) if e.economy != current]
        if entries:
            checked.append((setup, entries))
    if not checked:
        return []
    # Read only where a stand fires one of the conditions (`releases.firing_lookup`), not
    # every stand of the board: on most boards nowhere, and nothing is read per unit.
    key = tuple((s.empire, n) for s, entries in checked for n, _ in entries)
    lookup = firing_lookup(state, _entry_watchers(setups, key))
    if lookup is None:
        return []
    found: list[tuple[str, Economy, str]] = []
    galaxy = base.galaxy()
    for setup, entries in checked:
        for _, entry in entries:
            reason = trigger_reason(state, galaxy, setup, entry.trigger, lookup)
            if reason:
                found.append((setup.empire, entry.economy, reason))
                break
    return found


@caches.by_identity(maxsize=4, identity=1)
def _entry_watchers(setups: ScenarioSetup, checked: tuple[tuple[str, int], ...]) -> Watchers:
    """`releases.watchers_of` the war entries ``checked`` (each an empire and the index of
    the entry in its set-up) of the scenario's set-ups ``setups`` (by identity): worked out
    once per set of entries to check, and kept, as `releases.firing_lookup` keys on it."""
    triggers = []
    for empire, n in checked:
        setup = setups.empire(empire)
        if setup is not None:
            triggers.append((setup, setup.war_entry[n].trigger))
    return watchers_of(setups, triggers)


def enter_war_economies(state: FeState, step_id: str, events: list[Event]) -> FeState:
    """``state`` with every war entry that holds now applied (601.0), one event each."""
    changes = war_entries(state)
    if not changes:
        return state
    economies = dict(state.economies)
    for empire, economy, reason in changes:
        economies[empire] = economy
        events.append(
            Event(
                "economy",
                f"{empire} goes on a {economy} economy ({reason}; war entry, {WAR_ENTRY_RULE})",
                base.seat_of(state, empire),
                step_id,
                {"empire": empire, "economy": economy, "reason": reason, "rule": WAR_ENTRY_RULE},
            )
        )
    return msgspec.structs.replace(state, economies=tuple(sorted(economies.items())))


def income_of(state: FeState, empire: str) -> economics.Income:
    """What ``empire`` would collect with the board as it stands."""
    setup = base.empire_setup(state, empire)
    return economics.income(
        base.galaxy(),
        state.board,
        empire,
        economy_of(state, empire),
        provinces=setup.provinces if setup is not None else (),
        captured=provinces.long_term(
            state.held, empire, provinces.long_term_turns(dict(state.options))
        ),
        captured_planets=provinces.captured_planets(base.galaxy(), state.board, empire),
        devastated=state.devastated,
        options=economics.economy_options(rule_options.values(state)),
        given2=given_income2(setup) if setup is not None else 0,
    )


def given_income2(setup: EmpireSetup) -> int:
    """EP in halves the scenario pays ``setup``'s empire each turn beyond what its map pays:
    its ``income_ep`` less what the starting map pays it (0 when it gives no figure)."""
    if not setup.income_ep:
        return 0
    start = economics.income(base.galaxy(), Board(), setup.empire, provinces=setup.provinces)
    return 2 * setup.income_ep - start.gross2


class _Economy(Area):
    name = "economy"

    def automatic(self, state: FeState, step: Step, events: list[Event]) -> FeState:
        state = enter_war_economies(state, step.id, events)
        for empire in base.phasing_empires(state):
            earned = income_of(state, empire)
            before = state.ep2(empire)
            state, kept = _grids(state, empire, earned)  # 413.44: partial grids keep theirs
            shown = ", ".join(f"{label} {ep}" for label, ep in earned.lines()[:-1])
            events.append(
                Event(
                    "income",
                    f"{empire} collects {economics.fmt_ep(earned.total2)} EP ({shown}); "
                    f"treasury {economics.fmt_ep(before)} -> "
                    f"{economics.fmt_ep(state.ep2(empire))} EP{kept}",
                    base.seat_of(state, empire),
                    step.id,
                    {
                        "empire": empire,
                        "ep2": earned.total2,
                        "gross2": earned.gross2,
                        "permille": earned.permille,
                        "disrupted": earned.disrupted,
                        "treasury2": state.ep2(empire),
                        "rule": INCOME_RULE,
                    },
                )
            )
        return state

    def on_turn(self, state: FeState, events: list[Event]) -> FeState:
        setup = base.scenario_setup(state)
        wars = list(state.at_war)
        released = set(state.released)
        for event in setup.events_of_turn(state.turn):
            for enemy in event.declare_war:
                if (min(event.empire, enemy), max(event.empire, enemy)) not in wars:
                    wars.append((event.empire, enemy))
                    events.append(
                        Event(
                            "war",
                            f"{event.empire} declares war on {enemy}",
                            base.seat_of(state, event.empire),
                            data={"empire": event.empire, "enemy": enemy},
                        )
                    )
            for fleet in event.release:
                if (event.empire, fleet) not in released:
                    released.add((event.empire, fleet))
                    events.append(_released(state, event.empire, fleet, "by the scenario"))
        at_war = war_pairs(wars)
        mentioned = {(e.empire, f) for e in setup.events for f in e.release}
        for empire_setup in setup.empires:
            if not any(empire_setup.empire in pair for pair in at_war):
                continue
            conditional = {r.fleet for r in empire_setup.releases}
            for starting in empire_setup.fleets:
                key = (empire_setup.empire, starting.name)
                if key in released or key in mentioned or starting.name in conditional:
                    continue
                released.add(key)
                events.append(_released(state, key[0], key[1], "at war, with no condition"))
        return msgspec.structs.replace(state, at_war=at_war, released=tuple(sorted(released)))


def _grids(state: FeState, empire: str, earned: economics.Income) -> tuple[FeState, str]:
    """Collect ``earned``: the part made in partial supply grids stays there, sums of grids
    now joined to the main grid come in (413.44, `engine.fe.provinces`); the text says what
    the grids kept ("" when nothing is kept or moved)."""
    grid = supply_area.grid_of(state, empire)
    split = split_income(grid, earned)
    settled = provinces.settle(state.grid_ep, empire, grid, split)
    treasury = state.ep2(empire) + split.treasury2 + settled.to_treasury2
    state = msgspec.structs.replace(state.with_ep2(empire, treasury), grid_ep=settled.grid_ep)
    notes = [
        f"the grid at {base.hex_text(key)} keeps {economics.fmt_ep(ep2)}"
        for key, ep2 in split.grids
    ]
    if settled.to_treasury2:
        notes.append(f"{economics.fmt_ep(settled.to_treasury2)} come in from reconnected grids")
    notes += [
        f"{economics.fmt_ep(ep2)} of the grid at {base.hex_text(key)} are lost"
        for key, ep2 in settled.lost
    ]
    return state, (f"; {'; '.join(notes)} ({provinces.GRID_RULE})" if notes else "")


def split_income(grid: SupplyGrid, earned: economics.Income) -> provinces.Split:
    """`provinces.split` of ``earned`` in ``grid``: with no partial grid (the usual case), all
    of it to the treasury, as no source can lie in a partial grid, without looking up where
    each paying province lies."""
    if not provinces.grid_keys(grid):
        return provinces.Split(earned.total2)
    return provinces.split(
        base.galaxy(),
        grid,
        earned.total2,
        earned.permille,
        earned.paying_provinces,
        earned.paying_planets,
        earned.offmap2,
    )


def _released(state: FeState, empire: str, fleet: str, why: str) -> Event:
    return Event(
        "release",
        f"{empire} {fleet} is released ({why}, {RELEASE_RULE})",
        base.seat_of(state, empire),
        data={"empire": empire, "fleet": fleet, "rule": RELEASE_RULE},
    )


AREA = _Economy()
