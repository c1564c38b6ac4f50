"""Stacks of counters as the map draws them: a three-character marker per hex, and its legend.

The text map (``hexpost show --map``) and the Textual map widget both draw the game's units
with these markers, so the rules for squeezing a stack into a hex box live in one place. It
takes plain data, never the game state: a hex's stack is a list of `Counter` (empire,
crippled, supply status), which `stacks_from_views` builds from the ruleset's ``views``
record (the same record ``show --json`` prints), so a client needs nothing else.

A marker is at most three characters (a compact box is three wide, and it is also the units'
part of a detailed box):

========= ==========================================================================
marker    meaning
========= ==========================================================================
``K3``    three Klingon units (the empire's map letter, then the count)
``K12``   twelve units; with a flag to show, ``K+*``: ten or more
``KZ``    units of two empires (a battle if they are at war); the larger stack first
``KZ+``   three or more empires (the flag gives way)
``*``     at least one unit of the stack is crippled
``!``     at least one unit is out of supply (no path to any grid)
``&``     both: crippled units and units out of supply
``K4~``   planned: the stack this hex would hold once the draft orders are applied
``~``     planned: the draft orders would leave this hex without units
``KZx``   a battle hex (``views["battles"]``): enemies meet here; ``K3x`` when the
          enemy is only a base (bases are not counted)
========= ==========================================================================

The battle mark (`battle_marker`) takes the third character: the crippled and supply flags
and the ``+`` of three empires give way to it (the hex details list every unit and empire),
and ten or more units read ``K+x``. A battle hex whose stack counts nobody (only bases)
keeps its terrain; the map's style still marks it.

The planned marker (`plan_markers`) is the what-if the orders panel shows before signing:
only hexes whose stack the drafts change get one, so the rest of the map stays as it is.
It gives up the crippled and supply flags for the ``~``: which stack moves matters more
there, and the hex details still list every unit's marks.

Bases are not counted: the terrain already marks them (``#``), and counting them would cover
every base hex of the map with a ``K1`` hiding its planets. A hex whose only units are bases
shows its terrain.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from tui.mapgeom import HexId

CRIPPLED = "*"
OUT_OF_SUPPLY = "!"
BOTH = "&"
MANY = "+"
UNKNOWN = "?"
PLANNED = "~"
BATTLE = "x"


class Counter(NamedTuple):
    """One unit of a stack, as much as the map shows of it. ``supply`` is ``"main"``,
    ``"partial"``, ``"none"`` (out of supply) or None when nobody computed it."""

    empire: str
    crippled: bool = False
    supply: str | None = "main"


Stacks = Mapping[HexId, Sequence[Counter]]


def _flag(counters: Sequence[Counter]) -> str:
    crippled = any(c.crippled for c in counters)
    unsupplied = any(c.supply == "none" for c in counters)
    if crippled and unsupplied:
        return BOTH
    return CRIPPLED if crippled else OUT_OF_SUPPLY if unsupplied else ""


def stack_marker(counters: Sequence[Counter], glyphs: Mapping[str, str]) -> str:
    """The marker of one hex's stack ("" for no units); ``glyphs`` maps empire codes to
    their map letters (an unknown empire shows ``?``)."""
    if not counters:
        return ""
    counts: dict[str, int] = {}
    for counter in counters:
        counts[counter.empire] = counts.get(counter.empire, 0) + 1
    flag = _flag(counters)
    empires = sorted(counts, key=lambda e: (-counts[e], e))
    letters = [glyphs.get(e) or UNKNOWN for e in empires]
    if len(empires) > 1:
        return letters[0] + letters[1] + (MANY if len(empires) > 2 else flag)
    count = counts[empires[0]]
    if count <= 9:
        return f"{letters[0]}{count}{flag}"
    if count <= 99 and not flag:
        return f"{letters[0]}{count}"
    return f"{letters[0]}{MANY}{flag}"


def battle_marker(counters: Sequence[Counter], glyphs: Mapping[str, str]) -> str:
    """The marker of a battle hex's stack: its first two characters (``KZ``, ``K3``, ``K+``)
    then ``x``; "" for no units counted."""
    plain = stack_marker([c._replace(crippled=False, supply="main") for c in counters], glyphs)
    if not plain:
        return ""
    if len(plain) == 3 and not _is_empire(plain[1]):
        plain = plain[0] + MANY  # "K12": ten or more
    return plain[:2] + BATTLE


def stack_markers(
    stacks: Stacks, glyphs: Mapping[str, str], battles: Collection[HexId] = ()
) -> dict[HexId, str]:
    """Every non-empty stack's marker, by hex; ``battles`` are the battle hexes, whose
    stacks get `battle_marker`."""
    markers = {}
    for h, counters in stacks.items():
        marker = (battle_marker if h in battles else stack_marker)(counters, glyphs)
        if marker:
            markers[h] = marker
    return markers


def planned_marker(counters: Sequence[Counter], glyphs: Mapping[str, str]) -> str:
    """The marker of a planned stack: its usual marker without the flag, ending in ``~``
    (``K4~``, ``KZ~``, ``K+~`` for ten or more); ``~`` alone for a hex the drafts empty."""
    plain = stack_marker([c._replace(crippled=False, supply="main") for c in counters], glyphs)
    if not plain:
        return PLANNED
    if len(plain) == 3:
        plain = plain[0] + (plain[1] if _is_empire(plain[1]) else MANY)
    return plain + PLANNED


def plan_markers(
    now: Mapping[str, Any], planned: Mapping[str, Any], glyphs: Mapping[str, str]
) -> dict[HexId, str]:
    """The planned marker of every hex whose stack differs between two ``views`` records:
    the game as it is (``now``) and as the draft orders would leave it (``planned``)."""
    before = _unit_hexes(now)
    after = _unit_hexes(planned)
    changed = {h for h in set(before) | set(after) if before.get(h) != after.get(h)}
    stacks, _ = stacks_from_views(planned)
    return {h: planned_marker(stacks.get(h, []), glyphs) for h in sorted(changed)}


def _unit_hexes(view: Mapping[str, Any]) -> dict[HexId, list[str]]:
    """Each hex's unit ids (bases left out) in a ``views`` record, sorted."""
    base_ids = {b["id"] for entry in view.get("hexes", []) for b in entry["bases"]}
    found: dict[HexId, list[str]] = {}
    for unit in view.get("units", []):
        if unit["hex"] is not None and unit["id"] not in base_ids:
            found.setdefault(int(unit["hex"]), []).append(unit["id"])
    return {h: sorted(ids) for h, ids in found.items()}


def _is_empire(char: str) -> bool:
    return char == UNKNOWN or char.isalpha()


def stack_legend(
    markers: Iterable[str], names: Mapping[str, str] | None = None
) -> list[tuple[str, str]]:
    """``(glyph, meaning)`` entries for the marker forms that ``markers`` use, in the order of
    the table above, each illustrated by a marker of the map; ``names`` maps map letters to
    empire names."""
    names = names or {}
    markers_seen = set(markers)
    seen = sorted({m for m in markers_seen if len(m) >= 2})
    entries: list[tuple[str, str]] = []
    single = next((m for m in seen if m[1].isdigit()), "")
    if single:
        count = int("".join(ch for ch in single[1:] if ch.isdigit()))
        who = " ".join(filter(None, [str(count), names.get(single[0], ""), "unit"]))
        entries.append((f"{single[0]}{count}", who + ("" if count == 1 else "s")))
    many = next((m for m in seen if m[1] == MANY), "")
    if many:
        entries.append((many[:2], "ten or more units"))
    pair = next((m for m in seen if _is_empire(m[1])), "")
    if pair:
        both = " and ".join(names.get(g, g) for g in pair[:2])
        entries.append((pair[:2], f"{both} units, the larger stack first"))
    if any(_is_empire(m[1]) and m[2:] == MANY for m in seen):
        entries.append((f"{pair[:2]}{MANY}", "three or more empires"))
    flags = {m[2] for m in seen if len(m) == 3 and not (_is_empire(m[1]) and m[2] == MANY)}
    for glyph, meaning in (
        (CRIPPLED, "some crippled"),
        (OUT_OF_SUPPLY, "some out of supply"),
        (BOTH, "crippled and out of supply"),
        (BATTLE, "battle hex: enemies meet here"),
    ):
        if glyph in flags:
            entries.append((glyph, meaning))
    planned = next((m for m in seen if m.endswith(PLANNED)), "")
    if planned:
        entries.append((planned, "planned: the stack after the draft orders"))
    if PLANNED in markers_seen:
        entries.append((PLANNED, "planned: the draft orders empty the hex"))
    return entries


def battle_hexes(view: Mapping[str, Any]) -> set[HexId]:
    """The battle hexes of a ``views`` record (its ``battles``)."""
    return {int(battle["hex"]) for battle in view.get("battles", [])}


def captured_owners(view: Mapping[str, Any]) -> dict[HexId, str]:
    """The empire holding each captured hex of a ``views`` record (``hexes`` flagged
    ``captured``, whose ``owner`` is the captor), by hex; a hex taken back by its printed
    owner is no longer captured."""
    return {
        int(entry["hex"]): entry["owner"] or ""
        for entry in view.get("hexes", [])
        if entry.get("captured")
    }


def stacks_from_views(view: Mapping[str, Any]) -> tuple[dict[HexId, list[Counter]], set[HexId]]:
    """The stacks (bases left out) and the hexes holding bases, from a ``views`` record
    (``units`` and ``hexes`` lists as `engine.fe.views` builds them)."""
    base_ids: set[str] = set()
    base_hexes: set[HexId] = set()
    for entry in view.get("hexes", []):
        if entry["bases"]:
            base_hexes.add(int(entry["hex"]))
            base_ids.update(b["id"] for b in entry["bases"])
    stacks: dict[HexId, list[Counter]] = {}
    for unit in view.get("units", []):
        if unit["hex"] is None or unit["id"] in base_ids:
            continue
        counter = Counter(unit["empire"], bool(unit["crippled"]), unit.get("supply"))
        stacks.setdefault(int(unit["hex"]), []).append(counter)
    return stacks, base_hexes
