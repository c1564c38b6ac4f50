"""Phase 1 (Economics) and the scenario's calendar: income, scripted events, fleet releases.

- 1C3 is automatic: each phasing empire collects its income (`engine.fe.economics.income`)
  into its treasury, and the event says how it was made up, line by line.
- As each game turn begins, the scenario's scripted events for that turn happen (war
  declarations, fleet releases: 600.3x), and then every starting fleet of an empire at war
  that the scenario never mentions (no release trigger, no scripted release) is released.
  That last rule is ours (marked I in the rules notes): the order of battle lists such
  fleets without a condition, and without it they could never move.
- An empire's economy is ``war`` once it is at war with anyone, else the scenario's.
"""

from __future__ import annotations

import msgspec

from engine.core.ruleset import Event
from engine.fe import economics, provinces
from engine.fe.forces import war_pairs
from engine.fe.model import FeState
from engine.fe.oob import Economy
from engine.fe.sequence import Step
from engine.fe.steps import base
from engine.fe.steps import supply as supply_area
from engine.fe.steps.base import Area

INCOME_RULE = "430.1"
RELEASE_RULE = "600.3"


def economy_of(state: FeState, empire: str) -> Economy:
    """War once the empire is at war with anyone; otherwise what the scenario says."""
    if any(empire in pair for pair in state.at_war):
        return "war"
    setup = base.empire_setup(state, empire)
    return setup.economy if setup is not None else "war"


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
        options=economics.economy_options(dict(state.options)),
    )


class _Economy(Area):
    name = "economy"

    def automatic(self, state: FeState, step: Step, events: list[Event]) -> FeState:
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
    split = provinces.split(
        base.galaxy(),
        grid,
        earned.total2,
        earned.permille,
        earned.paying_provinces,
        earned.paying_planets,
        earned.offmap2,
    )
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


def _released(state: FeState, empire: str, fleet: str, why: str) -> Event:
    return Event(
        "release",
        f"{empire} {fleet} is released ({why}, {RELEASE_RULE})",
        base.seat_of(state, empire),
        data={"empire": empire, "fleet": fleet, "rule": RELEASE_RULE},
    )


AREA = _Economy()
