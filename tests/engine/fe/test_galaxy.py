"""Golden facts of the shipped F&E map (engine/fe/data/map.json), and the loader's checks.

These read only the packaged map file. The numbers are the rulebook's: the map is 61 x 19,
185 provinces, 158 neutral-zone hexes, capitals and their systems per 759.0, and the starting
income of the economics chart (753.0).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from importlib import resources

import pytest

from engine.core.hexgrid import neighbours, valid
from engine.fe.galaxy import (
    NEUTRAL_ZONE,
    Base,
    HexInfo,
    Planet,
    decode_galaxy,
    load_galaxy,
)

G = load_galaxy()

PROVINCES = {
    "FED": 46,
    "GOR": 18,
    "HYD": 11,
    "ISC": 22,
    "KLI": 26,
    "KZI": 12,
    "LDR": 1,
    "LYR": 16,
    "ROM": 31,
    "THO": 1,
    "WYN": 1,
}

CAPITALS = {
    "FED": (2908,),
    "KLI": (1411,),
    "ROM": (4514, 4613),
    "KZI": (1401,),
    "GOR": (4402, 4403, 4503),
    "THO": (2919,),
    "HYD": (617,),
    "LYR": (408,),
    "ISC": (5910,),
}

INCOME_753 = {
    "FED": 221,
    "KLI": 142,
    "ROM": 113,
    "KZI": 93,
    "GOR": 87,
    "HYD": 74,
    "LYR": 115,
    "ISC": 151,
}

GLYPHS = {
    "FED": "F",
    "GOR": "G",
    "HYD": "H",
    "ISC": "I",
    "KLI": "K",
    "KZI": "Z",
    "LDR": "L",
    "LYR": "Y",
    "ROM": "R",
    "THO": "T",
    "WYN": "W",
    "NZ": "N",
}


def _raw() -> dict[str, object]:
    data: dict[str, object] = json.loads(
        resources.files("engine.fe.data").joinpath("map.json").read_text(encoding="utf-8")
    )
    return data


# -- the map as a whole -------------------------------------------------------------------------


def test_size_and_every_hex() -> None:
    assert (G.width, G.height) == (61, 19)
    assert len(G.hexes) == 1159
    assert [h.hex for h in G.hexes] == sorted(h.hex for h in G.hexes)
    assert all(G.hex(h.hex) is h for h in G.hexes)


def test_every_hex_is_a_province_or_the_neutral_zone() -> None:
    owners = Counter(h.empire for h in G.hexes)
    assert owners[NEUTRAL_ZONE] == 158
    assert sum(n for e, n in owners.items() if e != NEUTRAL_ZONE) == 1001
    assert "" not in owners
    for info in G.hexes:
        assert bool(info.province) == (info.empire != NEUTRAL_ZONE)


def test_hex_lookup_refuses_hexes_off_the_map() -> None:
    for bad in (0, 100, 120, 6201, 2920, 6200, -1):
        with pytest.raises(ValueError):
            G.hex(bad)


def test_load_is_cached() -> None:
    # Asked twice in a row rather than against the module's `G`: a test that empties every
    # cache (tests/engine/test_caches.py) may have run in between in the same session.
    assert load_galaxy() is load_galaxy()


# -- empires ------------------------------------------------------------------------------------


def test_empires_in_order_with_distinct_glyphs() -> None:
    assert [e.id for e in G.empires] == list(GLYPHS)
    assert {e.id: e.glyph for e in G.empires} == GLYPHS
    assert len({e.glyph for e in G.empires}) == len(G.empires)
    for e in G.empires:
        assert len(e.glyph) == 1 and e.glyph.isascii()
        assert re.fullmatch(r"#[0-9a-f]{6}", e.color), e
        assert re.fullmatch(r"#[0-9a-f]{6}", e.color2), e
    assert G.empire("FED").name == "United Federation of Planets"
    assert G.empire("KZI").short_name == "Kzinti"
    assert G.empire("FED").color == "#398ee6"
    with pytest.raises(KeyError):
        G.empire("ORI")


def test_strategic_moves_and_capital_star_points() -> None:
    moves = {e.id: e.free_strategic_moves for e in G.empires}
    assert moves["FED"] == moves["KLI"] == 15
    assert moves["THO"] == 5
    assert all(moves[e] == 10 for e in ("GOR", "HYD", "ISC", "KZI", "LYR", "ROM"))
    stars = {e.id: e.capital_star_points for e in G.empires}
    assert stars["KLI"] == stars["LYR"] == stars["ROM"] == 8
    assert stars["FED"] == 5


# -- provinces ----------------------------------------------------------------------------------


def test_province_counts_and_ids() -> None:
    assert len(G.provinces) == 185
    assert Counter(p.empire for p in G.provinces) == PROVINCES
    ids = [p.id for p in G.provinces]
    assert len(set(ids)) == 185
    for eid, n in PROVINCES.items():
        assert [p.id for p in G.provinces_of(eid)] == [f"{eid}-{i:02d}" for i in range(1, n + 1)]
    assert G.province("FED-01").hexes == (2003, 2103, 2104, 2202, 2203, 2303)
    with pytest.raises(KeyError):
        G.province("FED-47")


def test_provinces_are_disjoint_sorted_and_on_the_map() -> None:
    seen: set[int] = set()
    for p in G.provinces:
        assert list(p.hexes) == sorted(p.hexes)
        assert not seen.intersection(p.hexes), p.id
        seen.update(p.hexes)
        for h in p.hexes:
            assert valid(h, G.width, G.height)
            assert G.hex(h).province == p.id and G.hex(h).empire == p.empire
    assert len(seen) == 1001


def test_every_province_is_connected() -> None:
    for p in G.provinces:
        members = set(p.hexes)
        reached = {p.hexes[0]}
        todo = [p.hexes[0]]
        while todo:
            here = todo.pop()
            for n in neighbours(here, G.width, G.height):
                if n in members and n not in reached:
                    reached.add(n)
                    todo.append(n)
        assert reached == members, p.id


# -- capitals (759.0) ---------------------------------------------------------------------------


def test_capitals_where_the_rules_put_them() -> None:
    found: dict[str, tuple[int, ...]] = {}
    for c in G.capitals:
        found[c.empire] = (*found.get(c.empire, ()), c.hex)
    assert found == CAPITALS
    capital_hexes = sorted(h for hs in CAPITALS.values() for h in hs)
    assert sorted(i.hex for i in G.hexes if i.capital) == capital_hexes
    for eid, hexes in CAPITALS.items():
        assert [c.hex for c in G.capitals_of(eid)] == list(hexes)
        for h in hexes:
            assert G.hex(h).empire == eid


def test_one_capital_planet_per_empire() -> None:
    seats = {
        eid: [i.hex for i in G.hexes if i.empire == eid for p in i.planets if p.capital]
        for eid in CAPITALS
    }
    assert seats == {
        "FED": [2908],
        "KLI": [1411],
        "ROM": [4613],
        "KZI": [1401],
        "GOR": [4402],
        "THO": [2919],
        "HYD": [617],
        "LYR": [408],
        "ISC": [5910],
    }
    for i in G.hexes:
        for p in i.planets:
            assert p.kind in ("major", "minor")
            assert not p.capital or p.kind == "major"


def _system_summary(eid: str) -> list[tuple[int, str, int, int, int]]:
    out = []
    for c in G.capitals_of(eid):
        for s in c.systems:
            majors = sum(p.kind == "major" for p in s.planets)
            minors = sum(p.kind == "minor" for p in s.planets)
            out.append((c.hex, s.name, majors, minors, len(s.bases)))
    return out


def test_capital_systems_759() -> None:
    assert _system_summary("FED") == [
        (2908, "Earth", 2, 2, 1),
        (2908, "Vulcan", 1, 1, 0),
        (2908, "Rigel", 2, 3, 1),
        (2908, "Andorian", 2, 2, 1),
    ]
    assert _system_summary("ROM") == [
        (4514, "Remus", 1, 2, 1),
        (4514, "Tiberius", 0, 2, 0),
        (4613, "Romulus", 1, 1, 1),
        (4613, "Vesuvius", 0, 3, 0),
    ]
    assert _system_summary("GOR") == [
        (4402, "Ghdar I", 1, 1, 1),
        (4403, "Ghdar II", 1, 1, 1),
        (4503, "Ghdar III", 1, 1, 1),
    ]
    assert _system_summary("THO") == [(2919, "Tholia", 1, 0, 1)]
    # The source gives the ISC capital no systems; 753.0 counts 8 major and 7 minor planets.
    assert _system_summary("ISC") == [(5910, "ISC Capital", 8, 7, 0)]
    earth = G.hex(2908)
    assert earth.planets[0] == Planet("major", "Earth", capital=True)
    assert earth.bases == (Base("SB"), Base("SB"), Base("SB"))


# -- features, neutral zone, off-map ------------------------------------------------------------


def test_planets_and_bases_outside_capitals() -> None:
    kinds = Counter(
        p.kind for i in G.hexes if not i.capital and i.empire != NEUTRAL_ZONE for p in i.planets
    )
    assert kinds == {"minor": 43, "major": 17}
    bases = Counter(b.kind for i in G.hexes if not i.capital for b in i.bases)
    assert bases == {"BATS": 156, "SB": 34}
    assert G.hex(2103).bases == (Base("BATS"),)
    assert G.hex(2106).planets == (Planet("minor"),)
    assert G.hex(2103) == HexInfo(2103, "FED", "FED-01", bases=(Base("BATS"),))


def test_neutral_zone() -> None:
    nz = G.neutral_zone
    assert len(nz.hexes) == len(set(nz.hexes)) == 158
    assert nz.planets == (2214, 3415, 3912, 4309, 5109, 5403)
    for h in nz.hexes:
        info = G.hex(h)
        assert info.empire == NEUTRAL_ZONE and info.province == ""
        assert info.planets == ((Planet("minor"),) if h in nz.planets else ())


def test_offmap_possessions() -> None:
    fed = G.offmap_of("FED")
    assert fed is not None
    assert (fed.provinces, fed.minor_planets, fed.major_planets, fed.survey_ships) == (3, 0, 0, 7)
    assert fed.name == "Federation Survey Area"
    assert fed.adjacent == (2701, 2801, 2901, 3001, 3101)
    assert fed.bases == (Base("SB"),)
    isc = G.offmap_of("ISC")
    assert isc is not None and isc.bases == (Base("SB"), Base("SB"))
    hyd = G.offmap_of("HYD")
    assert hyd is not None and hyd.old_shipyard
    kli = G.offmap_of("KLI")
    assert kli is not None and kli.no_offmap_capital and kli.survey_ships == 2
    assert G.offmap_of("THO") is None
    for area in G.offmap:
        for h in area.adjacent:
            assert valid(h, G.width, G.height)
            # The Romulan area is entered through the neutral zone's last two hexes.
            assert G.hex(h).empire == (NEUTRAL_ZONE if area.empire == "ROM" else area.empire)
    assert G.offmap_of("ROM") is not None
    assert G.offmap_of("ROM").adjacent == (6118, 6119)  # type: ignore[union-attr]


# -- income (753.0) -----------------------------------------------------------------------------


@pytest.mark.parametrize(("eid", "ep"), sorted(INCOME_753.items()))
def test_income_matches_the_economics_chart(eid: str, ep: int) -> None:
    assert G.income(eid) == ep


def test_income_of_the_others() -> None:
    # The chart gives the Tholians 22 EP, which the map does not make (1 province, 1 major
    # planet): the scenario sets it. The LDR, the Wyn and the neutral zone are not in the chart.
    assert G.income("THO") == 7
    assert G.income("LDR") == 5
    assert G.income("WYN") == 2
    assert G.income(NEUTRAL_ZONE) == 0
    with pytest.raises(KeyError):
        G.income("ORI")


# -- the file and the loader's checks -----------------------------------------------------------


def test_the_file_is_in_the_project_format() -> None:
    raw = _raw()
    assert raw["format"] == "hexpost/fe-map/1"
    assert list(raw) == [
        "format",
        "width",
        "height",
        "empires",
        "provinces",
        "planets",
        "bases",
        "capitals",
        "neutral_zone",
        "offmap",
    ]
    text = resources.files("engine.fe.data").joinpath("map.json").read_text(encoding="utf-8")
    assert "." not in re.sub(r'"[^"]*"', "", text), "no floats in the data"


def _small(**change: object) -> bytes:
    data: dict[str, object] = {
        "format": "hexpost/fe-map/1",
        "width": 3,
        "height": 3,
        "empires": [{"id": "FED", "name": "F", "short_name": "F", "glyph": "F"}],
        "provinces": [{"id": "FED-01", "empire": "FED", "hexes": [101, 102]}],
        "planets": {"minor": [102]},
        "bases": {},
        "capitals": [],
        "neutral_zone": {"hexes": [301], "planets": []},
        "offmap": [],
    }
    data.update(change)
    return json.dumps(data).encode()


def test_a_small_map_and_empty_hexes() -> None:
    g = decode_galaxy(_small())
    assert len(g.hexes) == 9
    assert g.hex(202) == HexInfo(202)
    assert g.hex(102).planets == (Planet("minor"),)
    assert g.income("FED") == 2 + 3
    with pytest.raises(ValueError):
        g.hex(401)


@pytest.mark.parametrize(
    "change",
    [
        {"format": "hexpost/fe-map/0"},
        {"provinces": [{"id": "FED-01", "empire": "FED", "hexes": [101, 401]}]},
        {"provinces": [{"id": "FED-01", "empire": "XXX", "hexes": [101]}]},
        {
            "provinces": [
                {"id": "FED-01", "empire": "FED", "hexes": [101]},
                {"id": "FED-02", "empire": "FED", "hexes": [101]},
            ]
        },
        {"neutral_zone": {"hexes": [101], "planets": []}},
        {
            "provinces": [
                {"id": "FED-01", "empire": "FED", "hexes": [101]},
                {"id": "FED-01", "empire": "FED", "hexes": [102]},
            ]
        },
        {"planets": {"giant": [101]}},
        {"bases": {"SB": [104]}},
        {"width": "wide"},
        {"surprise": 1},
    ],
)
def test_the_loader_refuses_inconsistent_maps(change: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        decode_galaxy(_small(**change))
