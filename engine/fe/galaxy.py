"""The F&E strategic map as data: hexes, provinces, planets, bases, capitals, neutral zone.

Loaded once from the project's own data file ``engine/fe/data/map.json`` (converted from the
reference data by ``tools/convert_fe_data.py``; nothing outside the package is read at run
time). Everything is immutable; hex ids are ``column * 100 + row`` (see `engine.core.hexgrid`).

Interface:

- `load_galaxy()` -> the shipped map (cached; safe to call anywhere); `decode_galaxy(bytes)`
  for another map file (tests use small ones);
- `Galaxy.hex(h)` -> `HexInfo` for every on-map hex (1,159 of them); `Galaxy.hexes` lists them
  all in id order (column by column), which is what a map drawing walks;
- `Galaxy.provinces` (185, ids like ``"FED-01"``), `Galaxy.province(id)`;
- `Galaxy.empires` (the eleven powers of the map, then the neutral zone ``"NZ"``),
  `Galaxy.empire(id)`; `Galaxy.capitals`, `Galaxy.neutral_zone`, `Galaxy.offmap`;
- `Galaxy.income(empire)` -> the economic points of the starting map.

The file format (``"format": "hexpost/fe-map/1"``) is one JSON object::

    width, height                   61, 19
    empires     [{id, name, short_name, glyph, color, color2,
                  free_strategic_moves, capital_star_points}]
    provinces   [{id, empire, hexes: [hex ids]}]
    planets     {"major": [hex ids], "minor": [hex ids]}     planets outside capitals
    bases       {"BATS": [hex ids], "SB": [hex ids]}          starting bases outside capitals
    capitals    [{empire, hex, systems: [{name, planets: ["capital"|"major"|"minor"],
                                          bases: ["SB"]}]}]   rule 759.0
    neutral_zone {hexes: [hex ids], planets: [hex ids]}
    offmap      [{empire, name, adjacent: [hex ids], bases, provinces, minor_planets,
                  major_planets, survey_ships, old_shipyard, no_offmap_capital}]

A ``"capital"`` planet is the empire's capital planet: a major planet that is also the seat.
"""

from importlib import resources

import msgspec

from engine.core import caches, hexgrid
from engine.core.hexgrid import HexId

MAP_FORMAT = "hexpost/fe-map/1"
NEUTRAL_ZONE = "NZ"

PROVINCE_EP = 2
MINOR_PLANET_EP = 3
MAJOR_PLANET_EP = 5
"""Income of the starting map (753.0): per province, minor planet and major planet."""

__all__ = [
    "NEUTRAL_ZONE",
    "Base",
    "Capital",
    "CapitalSystem",
    "Empire",
    "Galaxy",
    "HexId",
    "HexInfo",
    "NeutralZone",
    "OffMapArea",
    "Planet",
    "Province",
    "decode_galaxy",
    "load_galaxy",
]


class Planet(msgspec.Struct, frozen=True):
    """A planet in a hex: ``kind`` is ``"minor"`` or ``"major"``; ``capital`` marks the seat.

    ``name`` is the capital system the planet belongs to (759.0: ``"Vulcan"``); planets
    outside capital hexes have none on the map.
    """

    kind: str
    name: str = ""
    capital: bool = False


class Base(msgspec.Struct, frozen=True):
    """A base at game start: ``kind`` is a unit class id such as ``"SB"``, ``"BATS"``."""

    kind: str


class HexInfo(msgspec.Struct, frozen=True):
    """What the map says about one hex at the start of the game."""

    hex: HexId
    empire: str = ""
    """Owner at the start (``""`` for none, ``"NZ"`` for the neutral zone)."""
    province: str = ""
    """Province id (``""`` outside provinces)."""
    planets: tuple[Planet, ...] = ()
    bases: tuple[Base, ...] = ()
    capital: bool = False
    """Part of its empire's capital (759.0); its planets and bases are those of the systems."""


class Province(msgspec.Struct, frozen=True):
    """A province: the unit of territory that pays 2 EP and changes hands as a whole."""

    id: str
    """``<empire>-<nn>``, numbered in the order of the source data (stable across releases)."""
    empire: str
    hexes: tuple[HexId, ...]
    """Sorted hex ids."""


class CapitalSystem(msgspec.Struct, frozen=True):
    """One planetary system of a capital hex (759.0), with its planets and bases."""

    name: str
    planets: tuple[Planet, ...]
    bases: tuple[Base, ...]


class Capital(msgspec.Struct, frozen=True):
    """One capital hex; the Gorn (three) and the Romulans (two) have several."""

    empire: str
    hex: HexId
    systems: tuple[CapitalSystem, ...]


class OffMapArea(msgspec.Struct, frozen=True):
    """An empire's off-map possessions (counted for income, not drawn).

    ``adjacent`` are the map-edge hexes from which units enter the area; ``bases`` the bases
    that start there. ``old_shipyard`` (Hydran) and ``no_offmap_capital`` (may not move its
    capital off the map: Klingon, Romulan) are flags the rules modules will consult.
    """

    empire: str
    name: str = ""
    adjacent: tuple[HexId, ...] = ()
    bases: tuple[Base, ...] = ()
    provinces: int = 0
    minor_planets: int = 0
    major_planets: int = 0
    survey_ships: int = 0
    old_shipyard: bool = False
    no_offmap_capital: bool = False


class Empire(msgspec.Struct, frozen=True):
    """A power of the map (or the neutral zone, id ``"NZ"``), as the map and 759.0 give it."""

    id: str
    """Three-letter code, e.g. ``"FED"``."""
    name: str
    short_name: str
    free_strategic_moves: int = 0
    """Free strategic moves per turn (204.0); 0 where the data gives none (LDR, WYN, NZ)."""
    capital_star_points: int = 0
    color: str = ""
    """A hex colour (``"#398ee6"``) for the map; glyphs carry the meaning, colour only helps."""
    color2: str = ""
    """The secondary colour (counter text, borders): several empires share a primary one."""
    glyph: str = ""
    """One ASCII character for the text map (F G H I K Z L Y R T W, N for the neutral zone)."""


class NeutralZone(msgspec.Struct, frozen=True):
    """The neutral zone's hexes and its planets (minor planets, owned by nobody at start)."""

    hexes: tuple[HexId, ...]
    planets: tuple[HexId, ...]


# The file's own shape, decoded strictly so a malformed data file fails loudly at load.


class _System(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    name: str
    planets: tuple[str, ...]
    bases: tuple[str, ...]


class _Capital(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    empire: str
    hex: HexId
    systems: tuple[_System, ...]


class _OffMap(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    empire: str
    name: str
    adjacent: tuple[HexId, ...]
    bases: tuple[str, ...]
    provinces: int
    minor_planets: int
    major_planets: int
    survey_ships: int
    old_shipyard: bool
    no_offmap_capital: bool


class _MapFile(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    format: str
    width: int
    height: int
    empires: tuple[Empire, ...]
    provinces: tuple[Province, ...]
    planets: dict[str, tuple[HexId, ...]]
    bases: dict[str, tuple[HexId, ...]]
    capitals: tuple[_Capital, ...]
    neutral_zone: NeutralZone
    offmap: tuple[_OffMap, ...]


def _planet(kind: str, system: str = "") -> Planet:
    if kind == "capital":
        return Planet("major", system, capital=True)
    if kind not in ("major", "minor"):
        raise ValueError(f"map.json: unknown planet kind {kind!r}")
    return Planet(kind, system)


class Galaxy:
    """The starting map: immutable, built by `load_galaxy` / `decode_galaxy`."""

    __slots__ = (
        "_by_hex",
        "_empires",
        "_provinces",
        "capitals",
        "empires",
        "height",
        "hexes",
        "neutral_zone",
        "offmap",
        "provinces",
        "width",
    )

    def __init__(self, data: _MapFile) -> None:
        if data.format != MAP_FORMAT:
            raise ValueError(f"map.json: format {data.format!r}, expected {MAP_FORMAT!r}")
        self.width = data.width
        self.height = data.height
        self.empires = data.empires
        self.provinces = data.provinces
        self.neutral_zone = data.neutral_zone
        self.capitals = tuple(
            Capital(
                c.empire,
                c.hex,
                tuple(
                    CapitalSystem(
                        s.name,
                        tuple(_planet(k, s.name) for k in s.planets),
                        tuple(Base(k) for k in s.bases),
                    )
                    for s in c.systems
                ),
            )
            for c in data.capitals
        )
        self.offmap = tuple(
            OffMapArea(
                o.empire,
                o.name,
                o.adjacent,
                tuple(Base(k) for k in o.bases),
                o.provinces,
                o.minor_planets,
                o.major_planets,
                o.survey_ships,
                o.old_shipyard,
                o.no_offmap_capital,
            )
            for o in data.offmap
        )
        self._empires = {e.id: e for e in self.empires}
        self._provinces = {p.id: p for p in self.provinces}
        if len(self._empires) < len(self.empires) or len(self._provinces) < len(self.provinces):
            raise ValueError("map.json: an empire or province id is used twice")
        self._by_hex = self._index(data)
        self.hexes = tuple(
            self._by_hex.get(h) or HexInfo(h)
            for h in (
                c * 100 + r for c in range(1, self.width + 1) for r in range(1, self.height + 1)
            )
        )

    def _index(self, data: _MapFile) -> dict[HexId, HexInfo]:
        """Every hex the file mentions, with what it holds; refuses inconsistent data."""
        owner: dict[HexId, tuple[str, str]] = {}
        for p in self.provinces:
            if p.empire not in self._empires:
                raise ValueError(f"map.json: province {p.id} of unknown empire {p.empire}")
            for h in p.hexes:
                self._check_hex(h, p.id)
                if h in owner:
                    raise ValueError(f"map.json: hex {h:04d} in {owner[h][1]} and {p.id}")
                owner[h] = (p.empire, p.id)
        for h in self.neutral_zone.hexes:
            self._check_hex(h, "the neutral zone")
            if h in owner:
                raise ValueError(f"map.json: neutral-zone hex {h:04d} is in {owner[h][1]}")
            owner[h] = (NEUTRAL_ZONE, "")
        planets: dict[HexId, list[Planet]] = {}
        bases: dict[HexId, list[Base]] = {}
        for kind, hexes in sorted(data.planets.items()):
            for h in hexes:
                planets.setdefault(h, []).append(_planet(kind))
        for h in self.neutral_zone.planets:
            planets.setdefault(h, []).append(Planet("minor"))
        for kind, hexes in sorted(data.bases.items()):
            for h in hexes:
                bases.setdefault(h, []).append(Base(kind))
        capital_hexes = set()
        for c in self.capitals:
            capital_hexes.add(c.hex)
            for s in c.systems:
                planets.setdefault(c.hex, []).extend(s.planets)
                bases.setdefault(c.hex, []).extend(s.bases)
        out = {}
        for h in sorted(set(owner) | set(planets) | set(bases)):
            self._check_hex(h, "a feature")
            empire, province = owner.get(h, ("", ""))
            out[h] = HexInfo(
                h,
                empire,
                province,
                tuple(planets.get(h, ())),
                tuple(bases.get(h, ())),
                h in capital_hexes,
            )
        return out

    def _check_hex(self, h: HexId, where: str) -> None:
        if not hexgrid.valid(h, self.width, self.height):
            raise ValueError(f"map.json: {where} names hex {h}, not on the map")

    def hex(self, h: HexId) -> HexInfo:
        """What the map says about hex ``h``; ValueError when ``h`` is not on the map."""
        found = self._by_hex.get(h)
        if found is not None:
            return found
        if not hexgrid.valid(h, self.width, self.height):
            raise ValueError(f"hex {h} is not on the {self.width}x{self.height} map")
        return HexInfo(h)

    def empire(self, eid: str) -> Empire:
        """The empire with id ``eid`` (KeyError when unknown)."""
        return self._empires[eid]

    def province(self, pid: str) -> Province:
        """The province with id ``pid`` (KeyError when unknown)."""
        return self._provinces[pid]

    def provinces_of(self, eid: str) -> tuple[Province, ...]:
        """The provinces ``eid`` holds at the start, in id order."""
        return tuple(p for p in self.provinces if p.empire == eid)

    def capitals_of(self, eid: str) -> tuple[Capital, ...]:
        """The capital hexes of ``eid`` (none for the LDR, the Wyn and the neutral zone)."""
        return tuple(c for c in self.capitals if c.empire == eid)

    def offmap_of(self, eid: str) -> OffMapArea | None:
        """The off-map possessions of ``eid``, if it has any."""
        return next((o for o in self.offmap if o.empire == eid), None)

    def income(self, eid: str) -> int:
        """Economic points of the starting map (753.0): 2 per province, 3 per minor planet,
        5 per major planet (capital planets are major), on the map and off it.

        Planets count for the empire whose province holds them; neutral-zone planets count
        for nobody. Scenario-given figures (the Tholians' 22) are the scenario's business.
        """
        self.empire(eid)  # KeyError for an unknown empire
        provinces = self.provinces_of(eid)
        total = PROVINCE_EP * len(provinces)
        for p in provinces:
            for h in p.hexes:
                for planet in self._by_hex[h].planets:
                    total += MAJOR_PLANET_EP if planet.kind == "major" else MINOR_PLANET_EP
        off = self.offmap_of(eid)
        if off is not None:
            total += PROVINCE_EP * off.provinces
            total += MINOR_PLANET_EP * off.minor_planets + MAJOR_PLANET_EP * off.major_planets
        return total


def decode_galaxy(raw: bytes) -> Galaxy:
    """A map from the bytes of a map file (the shipped one, or a small one in a test).

    Raises ValueError for a file that is malformed or inconsistent (a hex in two provinces,
    a hex off the map, an unknown format).
    """
    try:
        data = msgspec.json.decode(raw, type=_MapFile)
    except msgspec.DecodeError as exc:
        raise ValueError(f"map.json: {exc}") from exc
    return Galaxy(data)


@caches.static
def load_galaxy() -> Galaxy:
    """The shipped F&E map (``engine/fe/data/map.json``), decoded and checked once."""
    return decode_galaxy(resources.files("engine.fe.data").joinpath("map.json").read_bytes())
