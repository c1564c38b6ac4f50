"""Convert the reference unit tables and The Wind's set-up into hexpost's own data files.

    .venv/bin/python tools/convert_fe_units.py [--source DIR] [--out DIR]

Reads ``units.json``, ``default_oob.json``, ``the_wind.json`` and the Ship Information Table
CSVs (``sit/``) of the reference folder (default: ``../shared/fe-data`` next to the repository,
or ``$HEXPOST_FE_DATA``) and writes, under ``--out`` (default ``engine/fe/data``):

- ``units.json``: `engine.fe.units.UnitTables`;
- ``setups/the-wind.json``: `engine.fe.oob.ScenarioSetup` of scenario 601.

Only facts cross over (numbers, class ids, hexes, fleet names, dates, rule numbers); the
source's prose (descriptions, note sentences) stays behind. Every key of the source is either
converted or named in ``DROPPED`` with the reason, and an unknown key stops the run, so a new
source version cannot lose a fact silently. The output is deterministic: running it twice, or
on another machine, writes the same bytes (a test checks this against the committed files).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import sys
from collections.abc import Iterable, Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
for _path in (ROOT, ROOT / "tools"):  # run as a script from anywhere: engine and its sibling
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

import msgspec  # noqa: E402
from convert_fe_setup import (  # noqa: E402
    SourceError,
    all_counts,
    check_header,
    check_keys,
    convert_the_wind,
)

from engine.fe import datacheck  # noqa: E402
from engine.fe.scenario import decode_scenario  # noqa: E402
from engine.fe.units import (  # noqa: E402
    Conversion,
    Cost,
    Date,
    EwMode,
    OtherName,
    Side,
    Substitution,
    Towable,
    UnitClass,
    UnitTables,
)

Json = Any
"""Decoded source JSON (the source's shapes vary: checked key by key below)."""

# --- what the source holds, and what is not carried over ---------------------------------------

CLASS_KEYS = {
    "name", "cmd", "uncrippled", "crippled", "escort_type", "available", "pod",
    "max_in_service", "construction", "substitutions", "conversions", "move", "carrier_type",
    "not_spaceworthy", "towable", "salvage", "notes",
}  # fmt: skip
SIDE_KEYS = {
    "att", "def", "scout", "fighters", "heavy_fighter_bonus", "pfs", "drones", "mauler",
    "tug_missions",
}  # fmt: skip
DROPPED = {
    "the_wind.name": "the title is ours (scenarios/the-wind.json)",
    "the_wind.description": "prose: the summary is written in our words",
    "the_wind.map, order_of_battle": "names of the source's files",
    "the_wind.teams, team_turn_order, start_turn": "checked against the scenario header",
    "units.notes (sentences)": "prose: only rule numbers, EW values and flags are kept",
}

SIT_FILES = {
    "FED": "msit_feds.csv", "GOR": "msit_gorns.csv", "HYD": "msit_hydrans.csv",
    "KLI": "msit_klingon.csv", "KZI": "msit_kzinti.csv", "LYR": "msit_lyran.csv",
    "ORI": "msit_orion.csv", "ROM": "msit_rom.csv", "THO": "msit_tholian.csv",
}  # fmt: skip
"""Per-empire Ship Information Tables: they print the halves that units.json truncated."""

UNLISTED_ANYWHERE = {"BS", "STB", "PGB"}
"""Bases named by conversions everywhere without a row of their own: base station, the older
starbase a v.2 starbase is rebuilt from, and the planetary ground base (441.3)."""
UNLISTED = {
    ("FED", "DNH"), ("FED", "COV"), ("GOR", "CVA"), ("GOR", "CCH"), ("HYD", "SD"),
    ("HYD", "PGS"), ("KLI", "B10-"), ("KLI", "B10S"), ("KLI", "B10V"), ("KLI", "D6S"),
    ("KLI", "D6Y"), ("LYR", "DND"), ("LYR", "CVA"), ("LYR", "DDE"), ("ORI", "SAL"),
    ("ROM", "ROC"), ("ROM", "SCS"),
}  # fmt: skip
"""Ships of later products that conversions and substitutions name (no row in these tables)."""
HULLS = {("HYD", h) for h in ("CA", "CC", "CW", "DD", "DN", "FF")}
"""The Hydran schedule names slots by hull size; their classes substitute into them."""
FOREIGN = {"ROM": "KLI"}
"""Romulan conversions of Klingon hulls (431.6) name Klingon classes."""
RENAMED = {"PBG": "PGB"}
"""Typos of the source: the notes and the tables spell the ground base PGB."""

ALLOWED_SUBSTITUTIONS = {
    "FED": "CA or CC for any DN†; CL for any DN or CC or CA; DD for any DN or CC†; "
    "DD for CA or NCL†; FF for any DN or CC†; FF for any CA or NCL or DW; NCL for NCA†; "
    "DW for NCA or NCL in Y175+; CVS or CVB for CVA; CVL* or FV for CVA",
    "KLI": "D7C or D7 for C8†; D6 for C8 or D7†; D5 for D6 or D7 or C7; F5L for F5W†; "
    "F5L for C8 or D7C; F5L for D7 or D6; F5 for C8 or D7C or D7; F5 for D6; "
    "F5 for F5W or F5L†; D5 for D5W†; E4 for D7C or C8 or D7; E4 for D6 or F5W or F5L or F5; "
    "F5W for D5W in Y175+; D5 for D5W in Y175+; DV or D7V for C8V; D6V or FV or EV for C8V",
    "ROM": "SUP or NH for CON; SN or BH for WE; FH for NH†; FH for CON; SP for CON; "
    "SP for NH or FH†; SK for CON or NH; SK for FH or SP; SEH for CON or NH; "
    "SEH for FH or SP or SK in Y174+; SUB for CNV in Y175+; SKB or SEB or SPB for CNV in Y175+",
    "KZI": "CL for any DN or BC; CL for any CM; DD for DN or BC or CM; "
    "FF for DN or BC or CM or DD; CM for NCA†; DW for NCA or CM in Fall Y175+; "
    "BC or CC for any DN†; BC for CC†; CVL or CVE for CV; CV or CVL or CVE for CVA",
    "GOR": "BC or CC for DN†; CV for SCS or CVA*; CL for DN or HD; CL for BC†; "
    "DD for DN or BC or HD; DD for BD†; HD for CM†; BD for CM or HD",
    "THO": "PC or DD or CA for DN†; PC for CW or CA†; DD for CW or CA†",
    "HYD": "CA or CC for PAL; HR for PAL or CC or CA; TR for PAL or CC or DG; "
    "LN for PAL or CC or RN or CW; KN for PAL or CC; KN for DG or TR; HN for PAL or CC or RN; "
    "HN for CW or LN or DW; CU for PAL or CC or DG; CU for TR or KN or DWH; HR for MHK†; "
    "DWF for MHK or HR; TR for IRQ†; DWH for IQR or TR; CV or UH or CVE for ID",
    "LYR": "CA or CC for DN†; CL for DN or CC or CA; CL for BC or BCH†; DD for DN or CC or CA; "
    "DD for CW†; FF for DN or CC or CA; FF for DW†; CW for NCA†; DW for NCA or CW; CV for CVA*†",
}
"""The list of allowable production substitutions (450.4), per empire, in the rulebook's own
notation: "A or B for any C or D", a dagger when the substitution is not limited to two a
turn, "in [Fall] Y175+" for a first date. A star marks a name allowed only under a condition
another rule decides (513.41, replacing lost CVLs): those names are left out. "any DN" is
read as the schedule's DN slot (I)."""

CARRIERS = {
    "single_ship_carrier": "single-ship", "light_carrier": "light",
    "medium_carrier": "medium", "heavy_carrier": "heavy",
}  # fmt: skip
ESCORTS = {"light_escort": "light", "heavy_escort": "heavy"}


def _halves(value: float | int, where: str) -> int:
    doubled = Fraction(value) * 2
    if doubled.denominator != 1:
        raise SourceError(f"{where}: {value} is not a whole number of halves")
    return int(doubled)


# --- the Ship Information Table CSVs ----------------------------------------------------------


class Sit:
    """Rows of the per-empire CSV tables by (empire, designation), to recover exact numbers."""

    def __init__(self, folder: Path) -> None:
        self.rows: dict[tuple[str, str], list[list[str]]] = {}
        for empire, name in SIT_FILES.items():
            with (folder / name).open(encoding="utf-8", newline="") as handle:
                for row in csv.reader(handle, delimiter="\t"):
                    if len(row) >= 10 and row[0].strip():
                        self.rows.setdefault((empire, row[0].strip()), []).append(row)

    def of(self, empire: str, class_id: str) -> list[list[str]]:
        return self.rows.get((empire, class_id.removesuffix("v.2")), [])


_PRICE = re.compile(
    r"(Schedule|Built|See \(\d+\.\d+\)|\(\d+\.\d+\)|For [^:]+?|From [^:]+?)\s*:\s*(\d+\.5)\b"
)


def _half_prices(rows: list[list[str]]) -> Iterator[tuple[str, tuple[str, ...], Fraction]]:
    """(kind, names, price) for every half-EP price the rows print; names may end in ``?``."""
    for row in rows:
        for cell in (row[7], row[8]):
            for label, number in _PRICE.findall(cell.replace("\n", " / ")):
                if label.startswith("For "):
                    names = re.sub(r"\(.*?\)", "", label[4:]).replace(" or ", "/").split("/")
                    yield "substitution", tuple(n.strip() for n in names), Fraction(number)
                elif label.startswith("From "):
                    names = label[5:].replace(" or ", "/").split("/")
                    yield "conversion", tuple(n.strip() for n in names), Fraction(number)
                else:
                    yield "construction", (), Fraction(number)


def _ep(price: Fraction) -> str:
    """A half-EP price as the tables print it (``2.5``)."""
    return f"{int(price)}.5" if price.denominator == 2 else str(price)


def _matches(pattern: str, name: str) -> bool:
    return name.startswith(pattern[:-1]) if pattern.endswith("?") else name == pattern


# --- unit classes -----------------------------------------------------------------------------


def _side(data: Json, where: str) -> Side:
    check_keys(where, data, SIDE_KEYS)
    missions = tuple(m.split("_")[0] for m in data.get("tug_missions", ()) if m != "no_mission")
    return Side(
        att2=_halves(data.get("att", 0), where),
        def2=_halves(data.get("def", 0), where),
        fighters2=_halves(data.get("fighters", 0), where),
        heavy2=_halves(data.get("heavy_fighter_bonus", 0), where),
        pfs=int(data.get("pfs", 0)),
        drones=int(data.get("drones", 0)),
        scout=bool(data.get("scout", False)),
        mauler=bool(data.get("mauler", False)),
        tug_missions=missions,
    )


_YEAR = re.compile(r"^(.+?)\s*\(Y(\d+)\+?\)$")
_COUNT = re.compile(r"^(\d+)x?(\D.*)$")


def _substitution(key: str, price: Json) -> Substitution:
    match = _YEAR.match(key)
    names, year = (match.group(1), int(match.group(2))) if match else (key, 0)
    return Substitution(
        instead_of=tuple(n.strip() for n in names.split(" or ")),
        cost2=2 * int(price.get("cost", 0)),
        fighter_cost2=2 * int(price.get("fighter_cost", 0)),
        from_year=year,
    )


def _conversion(key: str, price: Json, log: list[str], where: str) -> Conversion:
    count = 1
    main, *plus = re.split(r"\s+\+\s+", key)  # "CA + DND"; "DN+" is one class
    if match := _COUNT.match(main):
        count, main = int(match.group(1)), match.group(2)
    if main in RENAMED:
        log.append(f"{where}: conversion source {main} read as {RENAMED[main]}")
        main = RENAMED[main]
    cost: int | None = 2 * int(price.get("cost", 0))
    if main == "PGB":
        cost = None  # the tables give no price: rule 441.3 decides
    return Conversion(
        source=tuple(n.strip() for n in main.split(" or ")),
        count=count,
        plus=tuple(plus),
        cost2=cost,
        fighter_cost2=2 * int(price.get("fighter_cost", 0)),
    )


def _notes(text: str) -> dict[str, Any]:
    """The facts of a notes cell: rule numbers, EW values, flags (never its sentences)."""
    facts: dict[str, Any] = {
        "rules": tuple(dict.fromkeys(re.findall(r"\((\d{3}\.\d+)\)", text))),
        "ew_modes": tuple(
            EwMode(ew=int(ew), att2=None if att == "Tug" else 2 * int(att))
            for ew, att in re.findall(r"\((\d+)EW:(\d+|Tug)AF\)", text)
        ),
        "base_hull": bool(re.search(r"Bas(e|ic) Hull", text)),
        "no_early_variant": bool(re.search(r"(?i)no early variant", text)),
        "no_cloak": "No cloak" in text,
        "sit_mark": "§" in text,
    }
    if ew := re.search(r"EW\s*=\s*(\d+)", text):
        facts["ew"] = int(ew.group(1))
    if cargo := re.search(r"Cargo\s*=\s*(\d+)\s*EP", text):
        facts["cargo"] = int(cargo.group(1))
    if lease := re.search(r"Lease\s*=\s*(\d+(?:\.\d+)?)", text):
        facts["lease4"] = int(Fraction(lease.group(1)) * 4)
    return facts


def _fix_halves(unit: UnitClass, sit: Sit, log: list[str]) -> UnitClass:
    """Restore the half EP that units.json truncated (2.5 -> 2), from the CSV tables."""
    where = f"{unit.empire} {unit.id}"
    construction, subs, convs = unit.construction, list(unit.substitutions), []
    for kind, names, price in _half_prices(sit.of(unit.empire, unit.id)):
        floor2, exact2 = 2 * int(price), int(2 * price)
        if kind == "construction" and construction and construction.cost2 == floor2:
            construction = msgspec.structs.replace(construction, cost2=exact2)
            log.append(f"{where}: build cost {_ep(price)} (units.json {int(price)})")
        for i, sub in enumerate(subs):
            if kind == "substitution" and sub.cost2 == floor2 and set(sub.instead_of) & set(names):
                subs[i] = msgspec.structs.replace(sub, cost2=exact2)
                log.append(f"{where}: substitution for {'/'.join(names)} {_ep(price)}")
        if kind == "conversion":
            convs.append((names, floor2, exact2, price))
    conversions = []
    for conv in unit.conversions:
        fixed = conv
        for names, floor2, exact2, price in convs:
            if conv.cost2 == floor2 and any(_matches(n, conv.source[0]) for n in names):
                fixed = msgspec.structs.replace(conv, cost2=exact2)
                log.append(f"{where}: conversion from {conv.source[0]} {_ep(price)}")
                break
        conversions.append(fixed)
    return msgspec.structs.replace(
        unit, construction=construction, substitutions=tuple(subs), conversions=tuple(conversions)
    )


def _salvage1000(empire: str, data: Json, sit: Sit, log: list[str]) -> int:
    whole = int(data.get("salvage", 0))
    printed = set()
    for row in sit.of(empire, data["name"]):
        if re.fullmatch(r"\d+(\.\d+)?", row[9].strip()):
            printed.add(Fraction(row[9].strip()))
    if len(printed) == 1:
        (exact,) = printed
        if int(exact) == whole and (exact * 1000).denominator == 1:
            return int(exact * 1000)
        log.append(f"{empire} {data['name']}: salvage {whole} kept (tables print {exact})")
    return whole * 1000


def convert_class(empire: str, data: Json, sit: Sit, log: list[str]) -> UnitClass:
    where = f"{empire} {data['name']}"
    check_keys(where, data, CLASS_KEYS)
    available = data["available"]
    check_keys(where, available, {"year", "season"})
    construction = data.get("construction")
    towable = data.get("towable")
    unit = UnitClass(
        empire=empire,
        id=data["name"],
        available=Date(available["year"], available.get("season", "spring")),
        full=_side(data["uncrippled"], where),
        crippled=_side(data["crippled"], where) if "crippled" in data else None,
        command=int(data.get("cmd", 0)),
        move=int(data.get("move", 0)),
        towable=Towable(towable["move_cost"], towable.get("strat_move_limit", 0))
        if towable
        else None,
        not_spaceworthy=bool(data.get("not_spaceworthy", False)),
        pod=bool(data.get("pod", False)),
        max_in_service=int(data.get("max_in_service", 0)),
        construction=Cost(2 * construction["cost"], 2 * construction.get("fighter_cost", 0))
        if construction
        else None,
        substitutions=tuple(
            _substitution(k, v) for k, v in sorted(data.get("substitutions", {}).items())
        ),
        conversions=tuple(
            _conversion(k, v, log, where) for k, v in sorted(data.get("conversions", {}).items())
        ),
        carrier=CARRIERS[data["carrier_type"]] if "carrier_type" in data else "",  # type: ignore[arg-type]
        escort=ESCORTS[data["escort_type"]] if "escort_type" in data else "",  # type: ignore[arg-type]
        salvage1000=_salvage1000(empire, data, sit, log),
        **_notes(data.get("notes", "")),
    )
    return _fix_halves(unit, sit, log)


def _resolve_foreign(tables: list[UnitClass]) -> list[UnitClass]:
    """Mark conversions whose source is another empire's class (Romulan rebuilds, 431.6)."""
    names = {(c.empire, c.id) for c in tables}
    out = []
    for unit in tables:
        other = FOREIGN.get(unit.empire)
        conversions = []
        for conv in unit.conversions:
            own = all((unit.empire, n) in names for n in conv.source)
            if other and not own and all((other, n) in names for n in conv.source):
                conversions.append(msgspec.structs.replace(conv, empire=other))
            else:
                conversions.append(conv)
        out.append(msgspec.structs.replace(unit, conversions=tuple(conversions)))
    return out


_LISTED = re.compile(r"^(.+?) for (.+?)(†?)(?: in (Fall )?Y(\d+)\+)?$")


def _listed_entries(empire: str, text: str) -> Iterator[tuple[list[str], list[str], Json]]:
    """(substitutes, slots, extra fields) of each entry of one empire's 450.4 list."""
    for entry in text.split("; "):
        match = _LISTED.match(entry)
        if match is None:
            raise SourceError(f"450.4 {empire}: cannot read {entry!r}")
        subs = [n.strip() for n in match.group(1).split(" or ")]
        slots = [n.strip().removeprefix("any ") for n in match.group(2).split(" or ")]
        extra: Json = {"unlimited": bool(match.group(3))}
        if match.group(5):
            extra["from_year"] = int(match.group(5))
            extra["from_season"] = "fall" if match.group(4) else "spring"
        yield subs, slots, extra


def allowed_substitutions(classes: list[UnitClass], log: list[str]) -> list[UnitClass]:
    """The classes with the 450.4 list's substitutions added (``listed``), priced at the
    substitute's construction cost (its cheapest table substitution if it has none).

    Names without a class here (ships of later products) and conditional ones (marked with a
    star) are left out and logged once each; a slot may also be a hull slot (the Hydran CA).
    A slot the class's own row already prices alone keeps that price and takes the dagger."""
    index = {(c.empire, c.id): i for i, c in enumerate(classes)}
    out = list(classes)
    left: dict[tuple[str, str], str] = {}
    for empire, text in ALLOWED_SUBSTITUTIONS.items():
        for subs, slots, extra in _listed_entries(empire, text):
            for name in subs + slots:
                if name.endswith("*"):
                    left[(empire, name)] = "allowed only under a condition of another rule"
                elif (empire, name) not in index and (empire, name) not in HULLS:
                    left[(empire, name)] = "no class of that name in these tables"
            known = [s for s in slots if (empire, s) not in left]
            for name in subs:
                if (empire, name) in left or (empire, name) in HULLS or not known:
                    continue
                out[index[(empire, name)]] = _add_listed(out[index[(empire, name)]], known, extra)
    log += [f"450.4 {e}: {n} left out ({why})" for (e, n), why in sorted(left.items())]
    return out


def _add_listed(unit: UnitClass, slots: list[str], extra: Json) -> UnitClass:
    subs = list(unit.substitutions)
    fresh = []
    for slot in slots:
        own = next((i for i, s in enumerate(subs) if slot in s.instead_of and not s.listed), None)
        if own is None:
            fresh.append(slot)
        elif extra["unlimited"] and len(subs[own].instead_of) == 1:
            subs[own] = msgspec.structs.replace(subs[own], unlimited=True)
        elif extra["unlimited"]:
            fresh.append(slot)  # the row prices several slots: the dagger is for this one
    if fresh:
        if unit.construction is not None:
            cost2, fighters2 = unit.construction.cost2, unit.construction.fighter_cost2
        elif unit.substitutions:
            cheapest = min(unit.substitutions, key=lambda s: s.cost2 + s.fighter_cost2)
            cost2, fighters2 = cheapest.cost2, cheapest.fighter_cost2
        else:
            raise SourceError(f"450.4 {unit.empire} {unit.id}: no price to substitute at")
        subs.append(
            Substitution(
                instead_of=tuple(fresh), cost2=cost2, fighter_cost2=fighters2, listed=True, **extra
            )
        )
    return msgspec.structs.replace(unit, substitutions=tuple(subs))


def _referenced(unit: UnitClass) -> Iterable[str]:
    for conv in unit.conversions:
        if not conv.empire:
            yield from conv.source
        yield from conv.plus
    for sub in unit.substitutions:
        yield from sub.instead_of


def other_names(classes: list[UnitClass], extra: Iterable[tuple[str, str]]) -> list[OtherName]:
    """The listed non-class names that the data really uses; an unlisted one is an error."""
    names = {(c.empire, c.id) for c in classes}
    used = {(u.empire, n) for u in classes for n in _referenced(u)} | set(extra)
    others = []
    for empire, name in sorted(used - names):
        if (empire, name) in HULLS:
            others.append(OtherName(empire, name, "hull"))
        elif name in UNLISTED_ANYWHERE or (empire, name) in UNLISTED:
            others.append(OtherName(empire, name, "unlisted"))
        else:
            raise SourceError(f"{empire} {name}: named by the data but not a class")
    return others


def convert_units(source: Path, log: list[str], extra: Iterable[tuple[str, str]]) -> UnitTables:
    raw = json.loads((source / "units.json").read_text(encoding="utf-8"))
    check_keys("units.json", raw, {"nation_units"})
    sit = Sit(source / "sit")
    classes = []
    for empire, block in raw["nation_units"].items():
        check_keys(f"units.json {empire}", block, {"units"})
        classes += [convert_class(empire, data, sit, log) for data in block["units"]]
    classes = allowed_substitutions(_resolve_foreign(classes), log)
    return UnitTables(classes=tuple(classes), others=tuple(other_names(classes, extra)))


# --- output -----------------------------------------------------------------------------------


def render(value: Json, indent: int = 0, width: int = 100, lead: int = 0) -> str:
    """Readable, stable JSON: what fits in ``width`` stays on one line; long number lists wrap.

    ``lead`` is how many characters (a key) precede the value on its first line.
    """
    flat = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    nested = dict | list | tuple
    if indent + lead + len(flat) <= width or not isinstance(value, nested) or not value:
        return flat
    pad = " " * (indent + 2)
    if isinstance(value, list | tuple) and not any(isinstance(v, nested) for v in value):
        lines, line = [], ""
        for item in (json.dumps(v, ensure_ascii=False) for v in value):
            if line and len(pad) + len(line) + len(item) + 1 > width:
                lines.append(line.removesuffix(" "))
                line = ""
            line += item + ", "
        lines.append(line.removesuffix(", "))
        return "[\n" + "\n".join(pad + text for text in lines) + "\n" + " " * indent + "]"
    if isinstance(value, list | tuple):
        items = [pad + render(v, indent + 2, width) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"
    items = []
    for key, item in value.items():
        name = json.dumps(key, ensure_ascii=False) + ": "
        items.append(pad + name + render(item, indent + 2, width, len(name)))
    return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"


def encode(data: msgspec.Struct) -> bytes:
    return (render(msgspec.to_builtins(data)) + "\n").encode("utf-8")


def default_source() -> Path:
    """``$HEXPOST_FE_DATA``, else where ``tools/convert_fe_data.py`` finds the reference data."""
    env = os.environ.get("HEXPOST_FE_DATA")
    if env:
        return Path(env)
    try:
        from convert_fe_data import default_source as located  # the map converter's helper
    except ImportError:
        located = None
    found = located() if located else None
    return found or ROOT.parent / "shared" / "fe-data"


def convert(source: Path, out: Path) -> list[str]:
    """Write both files under ``out``; returns the log of corrections made to the source."""
    log: list[str] = []
    setup = convert_the_wind(source, log)
    used = {(e.empire, u.unit) for e in setup.empires for u in all_counts(e)}
    tables = convert_units(source, log, used)
    header = (ROOT / "engine/fe/data/scenarios/the-wind.json").read_bytes()
    check_header(source, header)
    units_bytes, setup_bytes = encode(tables), encode(setup)
    scenario = decode_scenario(header, setup_bytes)
    problems = datacheck.check_data(units=tables, scenarios=[scenario])
    if problems:
        raise SourceError("\n".join(str(p) for p in problems))
    (out / "setups").mkdir(parents=True, exist_ok=True)
    (out / "units.json").write_bytes(units_bytes)
    (out / "setups" / "the-wind.json").write_bytes(setup_bytes)
    return log


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=default_source())
    parser.add_argument("--out", type=Path, default=ROOT / "engine" / "fe" / "data")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    if not (args.source / "units.json").is_file():
        print(f"no reference data in {args.source}", file=sys.stderr)
        return 1
    log = convert(args.source, args.out)
    if not args.quiet:
        for line in log:
            print(line)
        print(f"wrote {args.out / 'units.json'} and {args.out / 'setups' / 'the-wind.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
