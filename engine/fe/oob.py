"""A scenario's set-up as data: orders of battle, schedules, war status and scripted events.

One `ScenarioSetup` per scenario lives in ``engine/fe/data/setups/<scenario id>.json`` and is
attached to its `engine.fe.scenario.Scenario` by the loader, so the scenario's data hash (P8)
covers every ship and every event. The Wind's file is built by ``tools/convert_fe_units.py``
from the reference order of battle; smaller scenarios are written by hand in the same shape.

Conventions:

- empires are the three-letter codes of the map and the unit tables (``"KLI"``);
- a unit is named by its class id in its own empire's table (`engine.fe.units`); a Hydran
  schedule may also name a hull slot (``"CC"``) that the tables list as an `OtherName`;
- hexes are ``column * 100 + row``; a fleet with no hexes sets up off the map;
- a fleet's *area* (a release trigger's ``fleet-area`` target) is its set-up hexes;
- ``season`` defaults to spring, the first half of a year.
"""

from typing import Literal

import msgspec

from engine.fe.units import Date, Season

Economy = Literal["war", "limited-war", "peace"]
Action = Literal["occupies", "destroys"]
TargetKind = Literal["hexes", "starbase", "fleet-area", "empire"]


class _Data(msgspec.Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True):
    """Immutable, strict about unknown fields, and compact on disk (defaults are left out)."""


def date_turn(date: Date) -> int:
    """The game turn of a date: Fall Y168 is turn 1, Spring Y169 turn 2 (before 168: <= 0)."""
    return 2 * (date.year - 168) + (1 if date.season == "fall" else 0)


class UnitCount(_Data, frozen=True):
    """``count`` units of class ``unit``."""

    unit: str
    count: int = 1


class Batch(_Data, frozen=True):
    """Units that appear at one date: a production-schedule turn or a fleet's pre-war build."""

    year: int
    units: tuple[UnitCount, ...]
    season: Season = "spring"

    @property
    def date(self) -> Date:
        return Date(self.year, self.season)


class HexLimit(_Data, frozen=True):
    """At most ``max_units`` of the fleet's units may set up in ``hex``."""

    hex: int
    max_units: int


class Fleet(_Data, frozen=True):
    """A starting fleet: where it may set up and what it holds (600.3x release status)."""

    name: str
    units: tuple[UnitCount, ...]
    hexes: tuple[int, ...] = ()
    """Hexes it may set up in; empty: it starts off the map."""
    reserve: bool = False
    """The order of battle marks it a reserve fleet."""
    prewar: tuple[Batch, ...] = ()
    """Ships built before the war that join this fleet at their dates."""
    arrives: Date | None = None
    """An off-map fleet that arrives by strategic movement at this date."""
    hex_limits: tuple[HexLimit, ...] = ()


class Mothballs(_Data, frozen=True):
    """The mothball reserve and how many leave it each turn of war or limited war."""

    units: tuple[UnitCount, ...]
    war_release: tuple[UnitCount, ...] = ()
    limited_war_release: tuple[UnitCount, ...] = ()


class FleetRef(_Data, frozen=True):
    """A fleet of another empire's order of battle (a trigger may watch a neighbour's area)."""

    empire: str
    fleet: str


class Target(_Data, frozen=True):
    """What a trigger watches: hexes, any starbase, fleets' set-up areas, or empires' space."""

    kind: TargetKind
    hexes: tuple[int, ...] = ()
    fleets: tuple[FleetRef, ...] = ()
    empires: tuple[str, ...] = ()


class Trigger(_Data, frozen=True):
    """The condition of a release or a war entry: some actors act against any of the targets."""

    any_of: tuple[Target, ...]
    actors: tuple[str, ...] = ()
    """Empires whose action fires it."""
    future_belligerents: bool = False
    """Also fired by any of the owning empire's future belligerents."""
    action: Action = "occupies"


class Release(_Data, frozen=True):
    """A fleet released early when its trigger fires (600.3x)."""

    fleet: str
    trigger: Trigger


class WarEntry(_Data, frozen=True):
    """The empire's economy changes to ``economy`` when the trigger fires."""

    economy: Economy
    trigger: Trigger


class EmpireSetup(_Data, frozen=True):
    """One empire's part of a scenario."""

    empire: str
    economy: Economy = "war"
    at_war_with: tuple[str, ...] = ()
    future_belligerents: tuple[str, ...] = ()
    exhaustion_at_peace: bool = False
    """It accumulates exhaustion even before it is at war."""
    provinces: tuple[str, ...] = ()
    """Ids of the map's provinces it holds (``"KZI-05"``); empty: all the map gives it."""
    fleets: tuple[Fleet, ...] = ()
    mothballs: Mothballs | None = None
    production: tuple[Batch, ...] = ()
    releases: tuple[Release, ...] = ()
    war_entry: tuple[WarEntry, ...] = ()
    income_ep: int = 0
    """EP a turn the scenario gives the empire at the start where the province rule (753.0)
    does not reproduce the economics chart (the Tholians' 22 against the 7 their province and
    capital pay); 0: the province rule alone. The difference is paid every turn on top of
    what the board pays (`engine.fe.steps.economy.income_of`)."""

    def fleet(self, name: str) -> Fleet | None:
        return next((f for f in self.fleets if f.name == name), None)

    def unit_counts(self, *, prewar: bool = False) -> dict[str, int]:
        """Units per class over all starting fleets (with their pre-war builds if asked)."""
        counts: dict[str, int] = {}
        for fleet in self.fleets:
            items = list(fleet.units)
            if prewar:
                items += [u for batch in fleet.prewar for u in batch.units]
            for item in items:
                counts[item.unit] = counts.get(item.unit, 0) + item.count
        return counts


class TurnEvent(_Data, frozen=True):
    """What the scenario makes one empire do at the start of a turn: declare war, release."""

    turn: int
    empire: str
    declare_war: tuple[str, ...] = ()
    release: tuple[str, ...] = ()
    """Fleet names of ``empire``'s order of battle."""


class ScenarioSetup(_Data, frozen=True):
    """Everything a scenario sets up beyond its seats and turns."""

    setup_order: tuple[str, ...]
    """Empires in the order they place their units."""
    empires: tuple[EmpireSetup, ...]
    events: tuple[TurnEvent, ...] = ()

    def empire(self, code: str) -> EmpireSetup | None:
        return next((e for e in self.empires if e.empire == code), None)

    def events_of_turn(self, turn: int) -> tuple[TurnEvent, ...]:
        return tuple(e for e in self.events if e.turn == turn)


def decode_setup(raw: bytes) -> ScenarioSetup:
    """Decode one set-up file."""
    return msgspec.json.decode(raw, type=ScenarioSetup)
