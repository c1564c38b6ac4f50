"""Convert the F&E reference data into the project's own data files under engine/fe/data.

    python tools/convert_fe_data.py --map [--source DIR] [--out DIR]

The reference data (see ``--source``; by default ``shared/fe-data`` next to or above the
repository) is a developer-side input only: the product and its tests read what this script
writes, never the source. Only facts cross over (numbers, hex ids, names); the output format is
ours and is written deterministically, so re-running the converter on the same source
reproduces the shipped files byte for byte (tests/tools/test_convert.py checks that).

Parts: ``--map`` writes ``map.json`` (engine/fe/galaxy.py reads it). Further parts (units,
scenarios) may live in their own module ``tools/convert_fe_units.py``: when it defines
``PARTS: list[Part]`` (built with the helpers below: `Source`, `Part`, `render_json`), this
script offers one ``--<name>`` flag per part and runs them with the same source and output.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "engine" / "fe" / "data"
MAP_FORMAT = "hexpost/fe-map/1"

# ----------------------------------------------------------------------------------------------
# Shared helpers (also used by tools/convert_fe_units.py)


def default_source() -> Path | None:
    """The reference-data folder: ``/work/shared/fe-data`` or ``../shared/fe-data``, if any.

    Looked for next to the repository (``<repo>/../shared/fe-data``) first, so a checkout
    elsewhere finds its own sibling folder before the machine-wide one.
    """
    for candidate in (REPO.parent / "shared" / "fe-data", Path("/work/shared/fe-data")):
        if (candidate / "default_map.json").is_file():
            return candidate
    return None


@dataclass
class Source:
    """The reference-data folder, read-only: each file is parsed once and kept."""

    folder: Path
    _cache: dict[str, Any] = field(default_factory=dict, repr=False)

    def json(self, name: str) -> Any:
        """The parsed contents of ``name`` (a JSON file of the folder)."""
        if name not in self._cache:
            self._cache[name] = json.loads((self.folder / name).read_text(encoding="utf-8"))
        return self._cache[name]

    def text(self, name: str) -> str:
        """The text of ``name`` (for the CSV files of ``sit/``, for example)."""
        return (self.folder / name).read_text(encoding="utf-8")


@dataclass(frozen=True)
class Part:
    """One thing the converter can write: ``--<name>`` turns it on.

    ``convert(source)`` returns ``{file name: document}``; documents are written with
    `render_json` into the output folder (the package's data folder by default).
    """

    name: str
    help: str
    convert: Callable[[Source], dict[str, Any]]


def render_json(value: Any, width: int = 100) -> str:
    """Compact, readable, deterministic JSON: a container goes on one line when it fits.

    Keys keep the order the converter built them in (which is fixed), so the output depends
    only on the source data. Ends with a newline.
    """
    return _render(value, 0, 0, width) + "\n"


def _render(value: Any, indent: int, used: int, width: int) -> str:
    """``value`` laid out at ``indent``, starting ``used`` characters into its first line."""
    flat = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    # One character is kept free for the comma that may follow.
    if max(indent, used) + len(flat) < width or not isinstance(value, dict | list) or not value:
        return flat
    pad = " " * (indent + 2)
    if isinstance(value, list) and all(not isinstance(v, dict | list) for v in value):
        # A long list of scalars (hex ids): fill lines rather than one number per line.
        lines: list[str] = []
        current = ""
        for item in value:
            text = json.dumps(item, ensure_ascii=False)
            if current and len(pad) + len(current) + len(text) + 3 > width:
                lines.append(current + ",")
                current = ""
            current = f"{current}, {text}" if current else text
        lines.append(current)
        return "[\n" + "\n".join(pad + line for line in lines) + "\n" + " " * indent + "]"
    if isinstance(value, list):
        items = [pad + _render(v, indent + 2, indent + 2, width) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"
    items = []
    for key, v in value.items():
        head = json.dumps(key, ensure_ascii=False) + ": "
        items.append(pad + head + _render(v, indent + 2, indent + 2 + len(head), width))
    return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"


def write(out: Path, documents: dict[str, Any]) -> list[Path]:
    """Write each document as `render_json` text; returns the paths written."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, document in documents.items():
        path = out / name
        path.write_text(render_json(document), encoding="utf-8", newline="\n")
        written.append(path)
    return written


# ----------------------------------------------------------------------------------------------
# The map

EMPIRES = ("FED", "GOR", "HYD", "ISC", "KLI", "KZI", "LDR", "LYR", "ROM", "THO", "WYN", "NZ")
"""The empires of the map, in the order the game lists them (the neutral zone last)."""

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
"""One ASCII letter per empire for the text map: the initial where it is free, otherwise a
letter of the name (KZinti -> Z, LYran -> Y), N for the neutral zone."""

PLANETS = {"min": "minor", "maj": "major", "capital": "capital"}

CHART = {
    "FED": ((46, 13, 5), (3, 0, 0), (8, 7)),
    "KLI": ((26, 7, 4), (0, 0, 0), (8, 5)),
    "ROM": ((31, 4, 1), (0, 0, 0), (8, 2)),
    "KZI": ((12, 5, 1), (3, 2, 1), (4, 4)),
    "GOR": ((18, 5, 0), (3, 2, 0), (3, 3)),
    "THO": ((1, 0, 0), (0, 0, 0), (0, 1)),
    "HYD": ((11, 2, 1), (2, 1, 2), (3, 3)),
    "LYR": ((16, 3, 3), (4, 2, 2), (5, 4)),
    "ISC": ((22, 3, 2), (8, 2, 1), (7, 8)),
}
"""The economics chart (753.0): (provinces, minor, major planets) on the map and off it, and
(minor, major planets) of the capital, the capital planet counted as a major one. The
converter checks the source against it and refuses to write a map that disagrees, except for
the gaps listed in `CAPITAL_GAPS`."""

CAPITAL_GAPS = {"ISC"}
"""Capitals whose systems the source leaves out: the source gives the ISC capital (5910) only
its capital planet, while 753.0 counts 7 minor and 8 major planets there. The missing planets
are added to its one system, so its income is the chart's 151 EP."""
BASES = {"sb": "SB", "bats": "BATS"}


def _colour(rgb: dict[str, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(rgb["r"], rgb["g"], rgb["b"])


def _name(text: str) -> str:
    """Names with line breaks (laid out for a map label) become one line."""
    return " ".join(text.split())


def _kinds(features: Iterable[str], table: dict[str, str]) -> list[str]:
    return sorted(table[f] for f in features if f in table)


def _empire(eid: str, nation: dict[str, Any], colours: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": eid,
        "name": _name(nation["name"]),
        "short_name": _name(nation["short_name"]),
        "glyph": GLYPHS[eid],
        "color": _colour(colours["primary_colors"][eid]),
        "color2": _colour(colours["secondary_colors"][eid]),
        "free_strategic_moves": nation.get("free_strategic_moves", 0),
        "capital_star_points": nation.get("capital_star_points", 0),
    }


def _capitals(eid: str, nation: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for spot in nation.get("capital", {}).get("hexes", []):
        systems = []
        for zone in spot["zones"]:
            unknown = set(zone["features"]) - set(PLANETS) - set(BASES)
            if unknown:
                raise ValueError(f"{eid} capital {spot['coord']}: unknown features {unknown}")
            systems.append(
                {
                    "name": _name(zone["name"]),
                    "planets": _kinds(zone["features"], PLANETS),
                    "bases": _kinds(zone["features"], BASES),
                }
            )
        out.append({"empire": eid, "hex": spot["coord"], "systems": systems})
    return sorted(out, key=lambda c: c["hex"])


def _offmap(eid: str, holding: dict[str, Any], nation: dict[str, Any]) -> dict[str, Any] | None:
    area = holding.get("offmap_area")
    owned = nation.get("offmap_possesions", {})
    if area is None and not owned:
        return None
    area = area or {}
    return {
        "empire": eid,
        "name": _name(area.get("name", "")),
        "adjacent": sorted(area.get("adjacent_hexes", [])),
        "bases": _kinds(area.get("features", []), BASES),
        "provinces": owned.get("provinces", 0),
        "minor_planets": owned.get("mins", 0),
        "major_planets": owned.get("majs", 0),
        "survey_ships": owned.get("survey_ships", 0),
        "old_shipyard": bool(owned.get("old_shipyard", False)),
        "no_offmap_capital": bool(owned.get("cannot_build_offmap_capital", False)),
    }


def _capital_counts(capitals: list[dict[str, Any]], eid: str) -> tuple[int, int]:
    kinds = [k for c in capitals if c["empire"] == eid for s in c["systems"] for k in s["planets"]]
    return kinds.count("minor"), len(kinds) - kinds.count("minor")


def _check_chart(
    provinces: list[dict[str, Any]],
    planets: dict[str, list[int]],
    capitals: list[dict[str, Any]],
    nations: dict[str, Any],
) -> None:
    """Compare the source with 753.0; fill the capitals of `CAPITAL_GAPS` (in place)."""
    for eid, (on_map, off_map, capital) in CHART.items():
        hexes = {h for p in provinces if p["empire"] == eid for h in p["hexes"]}
        found = (
            sum(p["empire"] == eid for p in provinces),
            len(hexes.intersection(planets["minor"])),
            len(hexes.intersection(planets["major"])),
        )
        owned = nations[eid].get("offmap_possesions", {})
        found_off = tuple(owned.get(k, 0) for k in ("provinces", "mins", "majs"))
        if found != on_map or found_off != off_map:
            raise ValueError(
                f"{eid}: the map gives {found} / {found_off}, 753.0 {on_map} / {off_map}"
            )
        minors, majors = _capital_counts(capitals, eid)
        if (minors, majors) == capital:
            continue
        if eid not in CAPITAL_GAPS or minors > capital[0] or majors > capital[1]:
            raise ValueError(f"{eid} capital: {minors} minor, {majors} major; 753.0 {capital}")
        system = next(c for c in capitals if c["empire"] == eid)["systems"][0]
        extra = ["minor"] * (capital[0] - minors) + ["major"] * (capital[1] - majors)
        system["planets"] = sorted(system["planets"] + extra)


def convert_map(source: Source) -> dict[str, Any]:
    """``map.json``: the strategic map in the project's own format (see engine/fe/galaxy.py)."""
    raw = source.json("default_map.json")
    nations = source.json("nations.json")["nations"]
    colours = source.json("hex_map_config.json")
    holdings = raw["starting_national_holdings"]
    if set(holdings) != set(EMPIRES) - {"NZ"}:
        raise ValueError(f"unexpected empires in the map: {sorted(holdings)}")

    provinces = []
    planets: dict[str, list[int]] = {"major": [], "minor": []}
    bases: dict[str, list[int]] = {"BATS": [], "SB": []}
    capital_hexes: dict[str, list[int]] = {}
    for eid in EMPIRES:
        for number, province in enumerate(holdings.get(eid, {}).get("provinces", []), 1):
            hexes = []
            for entry in province["hexes"]:
                h, feature = entry["hex"], entry.get("feature")
                hexes.append(h)
                if feature == "capital":
                    capital_hexes.setdefault(eid, []).append(h)
                elif feature in ("min", "maj"):
                    planets[PLANETS[feature]].append(h)
                elif feature in BASES:
                    bases[BASES[feature]].append(h)
                elif feature is not None:
                    raise ValueError(f"hex {h}: unknown feature {feature!r}")
            provinces.append({"id": f"{eid}-{number:02d}", "empire": eid, "hexes": sorted(hexes)})

    capitals = [c for eid in EMPIRES for c in _capitals(eid, nations.get(eid, {}))]
    _check_chart(provinces, planets, capitals, nations)
    for eid in EMPIRES:
        listed = sorted(c["hex"] for c in capitals if c["empire"] == eid)
        if listed != sorted(capital_hexes.get(eid, [])):
            raise ValueError(f"{eid}: capital hexes differ between the map and the nations")

    offmap = []
    for eid in EMPIRES:
        area = _offmap(eid, holdings.get(eid, {}), nations.get(eid, {}))
        if area is not None:
            offmap.append(area)

    return {
        "format": MAP_FORMAT,
        "width": raw["width"],
        "height": raw["height"],
        "empires": [_empire(eid, nations[eid], colours) for eid in EMPIRES],
        "provinces": provinces,
        "planets": {kind: sorted(hexes) for kind, hexes in planets.items()},
        "bases": {kind: sorted(hexes) for kind, hexes in bases.items()},
        "capitals": capitals,
        "neutral_zone": {"hexes": sorted(raw["nz_hexes"]), "planets": sorted(raw["nz_planets"])},
        "offmap": offmap,
    }


PARTS = [Part("map", "the strategic map -> map.json", lambda s: {"map.json": convert_map(s)})]


EXTRA_MODULES = ("convert_fe_units",)
"""Sibling modules that may add parts (``PARTS: list[Part]``)."""


def extra_parts(strict: bool = True) -> list[Part]:
    """The parts of the sibling modules that exist and define ``PARTS``.

    Imported only when asked for (an unknown ``--flag`` or ``--help``), so converting the map
    never depends on the state of the other converters. Not ``strict`` (for ``--help``), a
    sibling that fails to import is reported and left out.
    """
    parts: list[Part] = []
    for name in EXTRA_MODULES:
        try:
            module = importlib.import_module(name)
        except ImportError as exc:
            absent = isinstance(exc, ModuleNotFoundError) and exc.name == name
            if strict and not absent:
                raise
            if not absent:
                print(f"convert_fe_data: {name} left out: {exc}", file=sys.stderr)
            continue
        parts.extend(getattr(module, "PARTS", []))
    return parts


def _parser(parts: list[Part]) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    for part in parts:
        parser.add_argument(f"--{part.name}", action="store_true", help=part.help)
    parser.add_argument("--source", type=Path, help="the reference-data folder")
    parser.add_argument("--out", type=Path, default=OUT, help=f"output folder (default {OUT})")
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parts = list(PARTS)
    _, unknown = _parser(parts).parse_known_args([a for a in argv if a not in ("-h", "--help")])
    if unknown or "-h" in argv or "--help" in argv:
        parts += extra_parts(strict=bool(unknown))
    parser = _parser(parts)
    args = parser.parse_args(argv)
    chosen = [p for p in parts if getattr(args, p.name.replace("-", "_"))]
    if not chosen:
        parser.error("choose what to convert: " + " ".join(f"--{p.name}" for p in parts))
    folder = args.source or default_source()
    if folder is None or not folder.is_dir():
        print("convert_fe_data: no reference data (give --source DIR)", file=sys.stderr)
        return 1
    source = Source(folder)
    for part in chosen:
        for path in write(args.out, part.convert(source)):
            print(path)
    return 0


if __name__ == "__main__":
    # Run the copy imported under the module's own name, so that convert_fe_units (which
    # imports this module for its helpers) and this script share one set of classes.
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.exit(importlib.import_module("convert_fe_data").main())
