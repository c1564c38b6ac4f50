"""What each empire of a scenario holds at the start: provinces, planets, bases, income.

A scenario may give an empire only some of its provinces (the tutorial does); then only the
planets and bases in those provinces count, plus its capital if the capital's hex is among
them, and off-map possessions only when the empire keeps all of its provinces. The income
rule is the economics chart's (753.0): 2 EP per province, 3 per minor planet, 5 per major
planet, capital systems included.
"""

from __future__ import annotations

import msgspec

from engine.fe.galaxy import (
    MAJOR_PLANET_EP,
    MINOR_PLANET_EP,
    PROVINCE_EP,
    Galaxy,
    HexId,
    load_galaxy,
)
from engine.fe.scenario import find_scenario


class PlanetHolding(msgspec.Struct, frozen=True):
    hex: HexId
    kind: str
    name: str = ""
    capital: bool = False


class EmpireHoldings(msgspec.Struct, frozen=True):
    """One empire's starting holdings in a scenario."""

    empire: str
    name: str
    seat: str
    provinces: tuple[str, ...]
    hexes: int
    planets: tuple[PlanetHolding, ...]
    bases: tuple[tuple[HexId, str], ...]
    capitals: tuple[HexId, ...]
    offmap_provinces: int
    offmap_minor_planets: int
    offmap_major_planets: int
    income: int


def scenario_holdings(scenario_id: str, galaxy: Galaxy | None = None) -> list[EmpireHoldings]:
    """Every empire of a scenario, in seat order then the scenario's empire order."""
    scenario = find_scenario(scenario_id)
    if scenario is None:
        raise KeyError(scenario_id)
    galaxy = galaxy or load_galaxy()
    empires = scenario.setup.empires if scenario.setup is not None else ()
    setups = {setup.empire: setup for setup in empires}
    result: list[EmpireHoldings] = []
    for seat in scenario.seats:
        for empire in seat.empires:
            setup = setups.get(empire)
            chosen = setup.provinces if setup is not None and setup.provinces else ()
            result.append(_holdings(galaxy, empire, seat.seat, chosen))
    return result


def _holdings(galaxy: Galaxy, empire: str, seat: str, chosen: tuple[str, ...]) -> EmpireHoldings:
    all_provinces = galaxy.provinces_of(empire)
    provinces = tuple(galaxy.province(pid) for pid in chosen) if chosen else tuple(all_provinces)
    whole = len(provinces) == len(all_provinces)
    hexes = sorted(h for province in provinces for h in province.hexes)
    planets: list[PlanetHolding] = []
    bases: list[tuple[HexId, str]] = []
    capitals: list[HexId] = []
    for h in hexes:
        info = galaxy.hex(h)
        planets.extend(PlanetHolding(h, p.kind, p.name, p.capital) for p in info.planets)
        bases.extend((h, base.kind) for base in info.bases)
        if info.capital:
            capitals.append(h)
    offmap = galaxy.offmap_of(empire) if whole else None
    off = (
        (offmap.provinces, offmap.minor_planets, offmap.major_planets)
        if offmap is not None
        else (0, 0, 0)
    )
    minors = sum(1 for p in planets if p.kind == "minor") + off[1]
    majors = sum(1 for p in planets if p.kind == "major") + off[2]
    income = PROVINCE_EP * (len(provinces) + off[0]) + MINOR_PLANET_EP * minors
    income += MAJOR_PLANET_EP * majors
    return EmpireHoldings(
        empire=empire,
        name=galaxy.empire(empire).name,
        seat=seat,
        provinces=tuple(p.id for p in provinces),
        hexes=len(hexes),
        planets=tuple(planets),
        bases=tuple(bases),
        capitals=tuple(capitals),
        offmap_provinces=off[0],
        offmap_minor_planets=off[1],
        offmap_major_planets=off[2],
        income=income,
    )
