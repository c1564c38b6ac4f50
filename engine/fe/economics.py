"""Phase 1 (Economics): what an empire earns this turn (430.1), as exact money.

Money is kept in halves of an Economic Point (``ep2``): the tables price things in halves
(a 2.5 EP frigate, 0.5 EP per repair point), and floats must never reach game state. `fmt_ep`
turns halves back into the printed form ("37.5", "31").

Income follows the economics chart (753.0): 2 EP per province, 3 per minor planet, 5 per major
planet, capital systems (759.0) and off-map possessions included. It reproduces
`engine.fe.holdings` for the starting map and then follows the board:

- a province pays its owner only while the owner holds every one of its hexes (a province
  with a captured hex pays nobody: the captor does not collect yet, and the owner has lost it),
  and only while no enemy ship stands in it (disruption, `engine.fe.provinces`);
- a planet pays the owner of its hex, unless devastated (508.2x: nothing until it recovers,
  508.25);
- what an empire has captured pays it nothing (438.0) unless the caller names it in the
  ``captured`` / ``captured_planets`` hooks (long-term capture, 438.1; annexation, 448.x), which
  this module does not yet decide;
- off-map possessions pay while the empire keeps them (``offmap_held``) and the scenario gives
  it its whole territory (as `engine.fe.holdings` reads a scenario);
- the chart's figure for the Tholians (22 EP) is not what their one province and capital pay
  (7): a scenario gives it (``given2``, from ``EmpireSetup.income_ep``) and until one does,
  ``hexpost data check`` names the gap (`engine.fe.datacheck.income_gaps`).

Peace and limited-war economies (marked C in the rules notes): an empire on a peace economy
collects ``peace-income-permille`` of its income (default 500: half), one on a limited-war
economy ``limited-war-income-permille`` (default 750), one at war all of it; the switch
``economy-fractions`` ('on' by default; 'off': everyone collects it all) turns the shares off.
Which economy an empire is on comes from its scenario (`engine.fe.oob.EmpireSetup.economy`,
its war-entry condition) and its wars (`engine.fe.steps.economy.economy_of`). The share is
taken of the gross in exact integers and rounded *down* to the half EP (I: the project keeps
money in halves; 221 EP at 75% is 165.75, collected as 165.5). Exhaustion (447.2) and debt
(447.1-447.4) stay manual steps.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from operator import itemgetter

import msgspec

from engine.core import caches
from engine.core.ruleset import OptionSpec, OptionValue
from engine.fe import occupancy
from engine.fe import provinces as province_rules
from engine.fe.forces import Board, Unit
from engine.fe.galaxy import (
    MAJOR_PLANET_EP,
    MINOR_PLANET_EP,
    PROVINCE_EP,
    Galaxy,
    HexId,
    Province,
)
from engine.fe.oob import Economy

PROVINCE_EP2 = 2 * PROVINCE_EP
MINOR_PLANET_EP2 = 2 * MINOR_PLANET_EP
MAJOR_PLANET_EP2 = 2 * MAJOR_PLANET_EP
"""Income per province, minor planet and major planet (753.0), in halves of an EP."""

ECONOMY_RULE = "600.0"
"""The scenarios set each empire's economy (general scenario rules); the shares are ours (C)."""
ECONOMY_FRACTIONS = "economy-fractions"
PEACE_PERMILLE = "peace-income-permille"
LIMITED_WAR_PERMILLE = "limited-war-income-permille"

OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        ECONOMY_FRACTIONS,
        "on",
        "Empires at peace or limited war collect only part of their income "
        "('on'; 'off': everyone collects it all)",
        ECONOMY_RULE,
        choices=("on", "off"),
    ),
    OptionSpec(
        PEACE_PERMILLE,
        500,
        "Share of income on a peace economy, in thousandths (rounded down to the half EP)",
        ECONOMY_RULE,
        bounds=(0, 1000),
    ),
    OptionSpec(
        LIMITED_WAR_PERMILLE,
        750,
        "Share of income on a limited-war economy, in thousandths (rounded down to the half EP)",
        ECONOMY_RULE,
        bounds=(0, 1000),
    ),
)
"""The rule options this module reads (house-rule defaults until checked against a rulebook)."""


class EconomyOptions(msgspec.Struct, frozen=True):
    """The economics options in force; the defaults are the rules notes' defaults."""

    fractions: bool = True
    peace_permille: int = 500
    limited_war_permille: int = 750

    def permille(self, economy: Economy) -> int:
        """The share of its income an empire on this economy collects, in thousandths."""
        if not self.fractions or economy == "war":
            return 1000
        return self.peace_permille if economy == "peace" else self.limited_war_permille


def economy_options(values: Mapping[str, OptionValue]) -> EconomyOptions:
    """The options from a game's chosen values (absent ones take their defaults)."""
    fractions = values.get(ECONOMY_FRACTIONS, "on")
    peace = values.get(PEACE_PERMILLE, 500)
    limited = values.get(LIMITED_WAR_PERMILLE, 750)
    return EconomyOptions(
        fractions=fractions in ("on", True),
        peace_permille=peace if isinstance(peace, int) else 500,
        limited_war_permille=limited if isinstance(limited, int) else 750,
    )


class Income(msgspec.Struct, frozen=True):
    """One empire's income this turn, broken down so a player can check it line by line.

    Counts say how many of each thing pay; ``*2`` fields are EP in halves. ``minor2`` and
    ``major2`` are planets outside capital hexes; ``capital2`` the planets of the capital
    systems (759.0); ``offmap2`` the off-map provinces and planets. ``gross2`` is their sum and
    ``total2`` what the empire collects after its economy's share (``permille``).
    """

    empire: str
    provinces: int = 0
    minor_planets: int = 0
    major_planets: int = 0
    capital_planets: int = 0
    offmap_provinces: int = 0
    offmap_planets: int = 0
    provinces2: int = 0
    minor2: int = 0
    major2: int = 0
    capital2: int = 0
    offmap2: int = 0
    gross2: int = 0
    permille: int = 1000
    total2: int = 0
    given2: int = 0
    """The part of ``gross2`` a scenario gives outright (``EmpireSetup.income_ep``)."""
    disrupted: int = 0
    """Provinces that would pay but are disrupted by enemy ships (430.22)."""
    paying_provinces: tuple[str, ...] = ()
    paying_planets: tuple[tuple[HexId, int], ...] = ()
    """The provinces and planet hexes (with their EP in halves) that paid: where the EP were
    earned decides which grid keeps them (413.44, `engine.fe.provinces.split`)."""

    def lines(self) -> list[tuple[str, str]]:
        """``(label, EP)`` rows for display, in the chart's order."""
        rows = [
            (f"{self.provinces} provinces", fmt_ep(self.provinces2)),
            (f"{self.minor_planets} minor planets", fmt_ep(self.minor2)),
            (f"{self.major_planets} major planets", fmt_ep(self.major2)),
            (f"{self.capital_planets} capital planets", fmt_ep(self.capital2)),
            (
                f"off map: {self.offmap_provinces} provinces, {self.offmap_planets} planets",
                fmt_ep(self.offmap2),
            ),
        ]
        if self.given2:
            rows.append(("given by the scenario", fmt_ep(self.given2)))
        if self.disrupted:
            rows.append((f"{self.disrupted} provinces disrupted", "0"))
        if self.permille != 1000:
            tenths = f".{self.permille % 10}" if self.permille % 10 else ""
            rows.append((f"economy share {self.permille // 10}{tenths}%", fmt_ep(self.total2)))
        rows.append(("total", fmt_ep(self.total2)))
        return rows


def fmt_ep(ep2: int) -> str:
    """Halves of an EP as the tables print them: 75 -> "37.5", 62 -> "31", -5 -> "-2.5"."""
    sign = "-" if ep2 < 0 else ""
    whole, half = divmod(abs(ep2), 2)
    return f"{sign}{whole}.5" if half else f"{sign}{whole}"


def _held(owner: Callable[[HexId], str], province: Province, empire: str) -> bool:
    return all(owner(h) == empire for h in province.hexes)


def income(
    galaxy: Galaxy,
    board: Board,
    empire: str,
    economy: Economy = "war",
    *,
    provinces: Sequence[str] = (),
    captured: Sequence[str] = (),
    captured_planets: Sequence[HexId] = (),
    devastated: Sequence[HexId] = (),
    offmap_held: bool = True,
    options: EconomyOptions | None = None,
    given2: int = 0,
) -> Income:
    """What ``empire`` earns in Phase 1C (430.1) with the board as it stands.

    ``provinces`` are the province ids the scenario gives the empire (its ``EmpireSetup``);
    empty: all the map gives it. Hooks for what this module does not decide yet:
    ``captured`` province ids and ``captured_planets`` hexes of others that now pay
    ``empire`` (438.1 long-term capture, 448.x annexation; full value), ``devastated`` planet
    hexes that pay nothing (508.2x), ``offmap_held`` False when the off-map area is lost,
    ``given2`` EP in halves its scenario adds to what the map pays (the Tholians' chart figure).

    The board's units matter only through disruption: the hexes of the provinces that could
    pay where a foe's ship stands (`engine.fe.provinces.disrupting_hexes`). The rest is a
    function of the map, the board's owners and these arguments, worked out by `_income` and
    kept by value: a player turn whose captures and disruptions are those of an earlier one
    reads the income it earned then.
    """
    captured_ids = tuple(sorted(set(captured)))
    given_hexes = _given(galaxy, empire, tuple(provinces))[3]
    watched = given_hexes.union(*(galaxy.province(pid).hexes for pid in captured_ids))
    # Only a hex holding units can hold a foe's ship: the provinces' hexes the board has
    # stacks in are found in C (a few dozen of an empire's hundreds), and only those read.
    occupied = watched.intersection(map(_HEX_OF_STACK, board.stacks()))
    hot = _disrupting(galaxy, board, province_rules.foes_of(board, empire), occupied)
    return _income(
        galaxy,
        empire,
        economy,
        tuple(provinces),
        captured_ids,
        frozenset(captured_planets),
        frozenset(devastated),
        offmap_held,
        options or EconomyOptions(),
        given2,
        board.owners,
        hot,
    )


_HEX_OF_STACK = itemgetter(0)
"""The hex of one of `Board.stacks`."""


def _disrupting(
    galaxy: Galaxy, board: Board, foes: frozenset[str], hexes: frozenset[HexId]
) -> frozenset[HexId]:
    """`provinces.disrupting_hexes`: those of ``hexes`` where a ship of one of ``foes``
    stands. Read from the board's occupancy index when it is at hand (the supply check of
    phase 1 read this board: `occupancy.board_index`), which tells the empires in a hex
    without reading its stack, so only the hexes a foe stands in are asked about ships;
    else from the stacks."""
    index = caches.peek(occupancy.board_index, galaxy, board)
    if index is None or not foes:
        return frozenset(province_rules.disrupting_hexes(board, foes, hexes))
    by_hex = index[0]
    return frozenset(
        h
        for h in hexes
        if not foes.isdisjoint(by_hex.get(h, ()))
        and not foes.isdisjoint(occupancy.ship_empires(galaxy, board, h))
    )


@caches.by_identity(maxsize=64, identity=1)
def _income(
    galaxy: Galaxy,
    empire: str,
    economy: Economy,
    provinces: tuple[str, ...],
    captured: tuple[str, ...],
    captured_planets: frozenset[HexId],
    devastated: frozenset[HexId],
    offmap_held: bool,
    options: EconomyOptions,
    given2: int,
    owners: tuple[tuple[HexId, str], ...],
    hot: frozenset[HexId],
) -> Income:
    """`income` from the values it reads (the map by identity, the rest by value):
    ``captured`` sorted without repeats, the board as its ``owners`` and ``hot``, the hexes
    where a foe's ship disrupts a province (those of every province that could pay at least)."""
    given, whole, given_planets, _ = _given(galaxy, empire, provinces)
    owner = province_rules.owner_of(galaxy, Board(owners=owners))
    # The map gives every hex of a province to the province's empire (`Galaxy` checks it),
    # so a province none of whose hexes was captured is held by its own empire: only the
    # others are read hex by hex.
    taken = {h for h, _ in owners}

    def holds(p: Province) -> bool:
        if taken.isdisjoint(p.hexes):
            return p.empire == empire
        return _held(owner, p, empire)

    paying = [p for p in given if holds(p)]
    paying += [
        galaxy.province(pid)
        for pid in captured
        if galaxy.province(pid).empire != empire and holds(galaxy.province(pid))
    ]
    held = len(paying)
    # Disruption (`engine.fe.provinces.disrupted_by`): a province with a hex where a foe's
    # ship stands.
    paying = [p for p in paying if hot.isdisjoint(p.hexes)]
    with_planets = planet_hexes(galaxy)  # most hexes hold none: they are not read
    captured_hexes = {h for pid in captured for h in galaxy.province(pid).hexes}
    captured_hexes |= captured_planets
    planet_hexes_here = sorted(given_planets.union(h for h in captured_hexes if h in with_planets))
    ruined = devastated
    counts = {"minor": 0, "major": 0, "capital": 0}
    ep2 = {"minor": 0, "major": 0, "capital": 0}
    planets_paid: list[tuple[HexId, int]] = []
    for h in planet_hexes_here:
        info = galaxy.hex(h)
        if owner(h) != empire or h in ruined:
            continue
        if info.empire != empire and h not in captured_hexes:
            continue
        for planet in info.planets:
            value = MAJOR_PLANET_EP2 if planet.kind == "major" else MINOR_PLANET_EP2
            bucket = "capital" if info.capital else planet.kind
            counts[bucket] += 1
            ep2[bucket] += value
            planets_paid.append((h, value))
    offmap = galaxy.offmap_of(empire) if whole and offmap_held else None
    off_provinces = offmap.provinces if offmap is not None else 0
    off_minor = offmap.minor_planets if offmap is not None else 0
    off_major = offmap.major_planets if offmap is not None else 0
    offmap2 = (
        PROVINCE_EP2 * off_provinces + MINOR_PLANET_EP2 * off_minor + MAJOR_PLANET_EP2 * off_major
    )
    provinces2 = PROVINCE_EP2 * len(paying)
    gross2 = provinces2 + ep2["minor"] + ep2["major"] + ep2["capital"] + offmap2 + given2
    permille = options.permille(economy)
    return Income(
        empire=empire,
        provinces=len(paying),
        minor_planets=counts["minor"],
        major_planets=counts["major"],
        capital_planets=counts["capital"],
        offmap_provinces=off_provinces,
        offmap_planets=off_minor + off_major,
        provinces2=provinces2,
        minor2=ep2["minor"],
        major2=ep2["major"],
        capital2=ep2["capital"],
        offmap2=offmap2,
        gross2=gross2,
        permille=permille,
        total2=gross2 * permille // 1000,
        given2=given2,
        disrupted=held - len(paying),
        paying_provinces=tuple(p.id for p in paying),
        paying_planets=tuple(planets_paid),
    )


@caches.by_identity(maxsize=32, identity=1)
def _given(
    galaxy: Galaxy, empire: str, provinces: tuple[str, ...]
) -> tuple[tuple[Province, ...], bool, frozenset[HexId], frozenset[HexId]]:
    """What `income` reads of the map alone for ``empire`` given ``provinces`` (empty: all
    the map gives it): those provinces, whether they are all it has (the off-map area pays
    then), their hexes that hold planets, and all their hexes. Read once per map, empire and
    province list, not at every Phase 1C."""
    own = galaxy.provinces_of(empire)
    given = tuple(galaxy.province(pid) for pid in provinces) if provinces else own
    with_planets = planet_hexes(galaxy)
    hexes = frozenset(h for p in given for h in p.hexes)
    return given, len(given) == len(own), hexes & with_planets, hexes


@caches.by_identity(maxsize=4, shipped=True)
def planet_hexes(galaxy: Galaxy) -> frozenset[HexId]:
    """The hexes of the map that hold planets (read once per map): income asks only these
    which of an empire's hexes pay for planets."""
    return frozenset(info.hex for info in galaxy.hexes if info.planets)


def collect(treasury2: int, earned: Income) -> int:
    """The treasury after Phase 1C adds the turn's income (430.1), in halves of an EP."""
    return treasury2 + earned.total2


# Specified costs (752.0)


def fighter_price2(unit: Unit) -> int:
    """EP in halves per fighter factor replaced on ``unit`` (752.0).

    2 EP on a carrier or a fighter pod; 1 EP on a base or dock and on a hybrid ship (a ship
    with fighters but no carrier designation, the Hydran way); 0.5 EP on a PDU.
    """
    info = unit.info()
    if unit.cls.startswith("PDU"):
        return 1
    if info.pod or (info.carrier and info.move > 0):
        return 4
    return 2


def replacement_cost2(unit: Unit, fighters2: int, pfs: int = 0) -> int:
    """EP in halves to replace ``fighters2`` (doubled) fighter factors and ``pfs`` PFs (0.5 EP
    each) on ``unit`` (752.0); a quarter EP left by half a PDU factor rounds up."""
    return (fighters2 * fighter_price2(unit) + 1) // 2 + pfs
