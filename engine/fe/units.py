"""Unit classes of the Ship Information Tables: factors, costs, conversions, as exact data.

Loaded once from the project's own data file ``engine/fe/data/units.json``, which
``tools/convert_fe_units.py`` builds from the reference tables (nothing outside the package is
read at run time). Everything the rules will compute with is an integer: factors and costs are
stored *doubled* (``att2 = 2 x attack``) because the tables print halves (a 2.5 attack, a 2.5 EP
frigate), and floats must never reach game state (two machines must agree to the bit).
``Fraction`` properties give the printed value back for display and arithmetic.

Naming: a field ending in a number is that many times the printed value (``cost2`` = 2 x EP,
``lease4`` = 4 x EP, ``salvage1000`` = 1000 x EP).
"""

import functools
from fractions import Fraction
from importlib import resources
from typing import Literal

import msgspec

from engine.core import caches

Season = Literal["spring", "fall"]
Carrier = Literal["", "single-ship", "light", "medium", "heavy"]
Escort = Literal["", "light", "heavy"]
OtherKind = Literal["hull", "unlisted"]

TUG_MISSIONS = {
    "A": "battle",
    "B": "carrier",
    "C": "mobile base",
    "D": "supply",
    "E": "repair",
    "F": "tow FRD",
    "G": "PF tender",
    "H": "economic transfer",
    "I": "crippled ship",
    "J1": "base repair",
    "J2": "base upgrade",
    "K1": "PDU transport",
    "K2": "PDU upgrade",
    "L": "drone",
    "M": "vanilla",
    "O": "Hydran special supply",
}
"""Tug mission letters (509.x) as the tables list them, with a short name for display."""


class Date(msgspec.Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True):
    """A half-year of the calendar: the tables and schedules date things by year and season."""

    year: int
    season: Season = "spring"


class Side(msgspec.Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True):
    """One side of a counter (uncrippled or crippled), every factor doubled."""

    att2: int = 0
    def2: int = 0
    fighters2: int = 0
    """Fighter factors carried (the number in brackets on the counter)."""
    heavy2: int = 0
    """Extra factors of heavy fighters (302.352) on top of ``fighters2``."""
    pfs: int = 0
    """PFs carried (a flotilla is 6)."""
    drones: int = 0
    """Drone bombardment factors."""
    scout: bool = False
    mauler: bool = False
    tug_missions: tuple[str, ...] = ()
    """Letters of the tug missions (509.x) this unit may perform; see `TUG_MISSIONS`."""

    @property
    def attack(self) -> Fraction:
        return Fraction(self.att2, 2)

    @property
    def defense(self) -> Fraction:
        return Fraction(self.def2, 2)

    @property
    def fighters(self) -> Fraction:
        return Fraction(self.fighters2, 2)


class Cost(msgspec.Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True):
    """Economic points to build a unit from scratch on the production schedule."""

    cost2: int
    fighter_cost2: int = 0
    """Extra EP for the fighters it carries (2 EP per factor on a ship, 752.0)."""

    @property
    def cost(self) -> Fraction:
        return Fraction(self.cost2, 2)


class Substitution(msgspec.Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True):
    """Build this class in a production slot scheduled for ``instead_of`` (any one of them).

    Two sources: the class's own table row ("For D5: 7", a variant in its hull's slot) and the
    list of allowable substitutions (450.4, ``listed``: "D5 for D6 or D7 or C7")."""

    instead_of: tuple[str, ...]
    cost2: int
    fighter_cost2: int = 0
    from_year: int = 0
    """The substitution is allowed only from this year on (0: always)."""
    listed: bool = False
    """From the list of allowable production substitutions (450.4), not the class's own
    table row: a cheaper ship built in a scheduled slot, at its own price."""
    unlimited: bool = False
    """Marked with a dagger in that list: not counted against the per-turn limit (450.4)."""
    from_season: Season = "spring"
    """With ``from_year``: allowed only from that half-year on ("Fall Y175+")."""


class Conversion(msgspec.Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True):
    """Rebuild an existing unit of class ``source`` (any one of them) into this class."""

    source: tuple[str, ...]
    """Alternatives: any one of these classes will do (e.g. ``("KR", "K7R")``)."""
    count: int = 1
    """How many source units the conversion consumes (Tholian ``2xPC``)."""
    plus: tuple[str, ...] = ()
    """Further units consumed together with the source (Lyran ``CA + DND``)."""
    empire: str = ""
    """The source classes are another empire's (Romulan rebuilds of Klingon hulls, 431.6)."""
    cost2: int | None = None
    """None: the table names the conversion but leaves its cost to a rule (see ``rules``)."""
    fighter_cost2: int = 0


class Towable(msgspec.Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True):
    """A unit that cannot move alone but can be towed (bases, FRDs, PDUs)."""

    move_cost: int
    """Movement points it costs its tug per hex."""
    strategic_limit: int = 0
    """At most this many hexes of strategic movement per turn (0: the usual limit)."""


class EwMode(msgspec.Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True):
    """A scout's trade of attack factors for electronic warfare points (``2EW:2AF``)."""

    ew: int
    att2: int | None = None
    """Attack (doubled) the unit keeps in this mode; None: its tug's own attack factor."""


class UnitClass(msgspec.Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True):
    """One row of an empire's Ship Information Table."""

    empire: str
    id: str
    """The class designation, unique within its empire (``"D7"``, ``"BATSv.2"``)."""
    available: Date
    full: Side = Side()
    """The uncrippled side."""
    crippled: Side | None = None
    """None: the counter has no crippled side (pods, bases' modules, auxiliaries)."""
    command: int = 0
    """Command rating (754.0); 0 when the table gives none."""
    move: int = 0
    """Operational movement points; 0 when the unit cannot move by itself."""
    towable: Towable | None = None
    not_spaceworthy: bool = False
    pod: bool = False
    max_in_service: int = 0
    """0: no limit."""
    construction: Cost | None = None
    """None: it cannot be built from scratch (only substituted, converted or given)."""
    substitutions: tuple[Substitution, ...] = ()
    conversions: tuple[Conversion, ...] = ()
    carrier: Carrier = ""
    escort: Escort = ""
    salvage1000: int = 0
    """Salvage value (439.0) in thousandths of an EP (the tables print 0.625)."""
    ew: int = 0
    """A scout's EW points when the tables give a fixed value (0: none or a base chart)."""
    ew_modes: tuple[EwMode, ...] = ()
    base_hull: bool = False
    """The class is a base hull type: variants are converted from or substituted for it."""
    no_early_variant: bool = False
    """The tables exclude this class from early variants (443.31)."""
    no_cloak: bool = False
    sit_mark: bool = False
    """The table prints a section mark (``§``) on this class; kept for the rules that read it."""
    cargo: int = 0
    """EP carried (convoys)."""
    lease4: int = 0
    """Orion lease cost per turn, 4 x EP (the tables print 1.75)."""
    rules: tuple[str, ...] = ()
    """Rule numbers the table's notes cite for this class, e.g. ``("433.41", "510.3")``."""

    @property
    def key(self) -> tuple[str, str]:
        return (self.empire, self.id)

    def shown(self, crippled: bool) -> Side:
        """The side a counter of this class shows: the crippled one when it is crippled and
        has one, else the full side."""
        return self.crippled if crippled and self.crippled is not None else self.full

    @property
    def attack(self) -> Fraction:
        return self.full.attack

    @property
    def defense(self) -> Fraction:
        return self.full.defense

    @property
    def salvage(self) -> Fraction:
        return Fraction(self.salvage1000, 1000)


class OtherName(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A name that conversions, substitutions or schedules use but that is not a class here.

    ``hull``: a hull size standing for a production slot (the Hydran schedule lists "CA" and
    "CC" slots that their classes fill); ``unlisted``: a real unit without a row in these
    tables (base stations, ground bases, ships of later products). Listing them explicitly
    keeps `engine.fe.datacheck` strict: any other unknown name is a broken reference.
    """

    empire: str
    id: str
    kind: OtherKind


class UnitTables(msgspec.Struct, frozen=True, forbid_unknown_fields=True, dict=True):
    """The whole file: every class of every empire, in table order, and the other names."""

    classes: tuple[UnitClass, ...]
    others: tuple[OtherName, ...] = ()

    @functools.cached_property
    def _index(self) -> dict[tuple[str, str], UnitClass]:
        return {c.key: c for c in self.classes}

    def find(self, empire: str, class_id: str) -> UnitClass | None:
        return self._index.get((empire, class_id))

    def empire_classes(self, empire: str) -> tuple[UnitClass, ...]:
        return tuple(c for c in self.classes if c.empire == empire)

    @property
    def empires(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(c.empire for c in self.classes))

    def other(self, empire: str, name: str) -> OtherName | None:
        return next((o for o in self.others if o.empire == empire and o.id == name), None)


def decode_units(raw: bytes) -> UnitTables:
    """Decode a units file (the shipped one or a test's copy)."""
    return msgspec.json.decode(raw, type=UnitTables)


@caches.static
def load_units() -> UnitTables:
    """The shipped unit tables (read once)."""
    raw = resources.files("engine.fe.data").joinpath("units.json").read_bytes()
    return decode_units(raw)


def unit_class(empire: str, class_id: str) -> UnitClass:
    """The class ``class_id`` of ``empire``; KeyError names both when there is none."""
    found = load_units().find(empire, class_id)
    if found is None:
        raise KeyError(f"{empire} has no unit class {class_id!r}")
    return found
