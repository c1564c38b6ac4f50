"""``hexpost choices GAME`` and ``hexpost find GAME TEXT``: what may be done now, and where
things are, before any order is written.

``choices`` prints the step this home's seat owes, each order kind the step takes with a
one-line JSON template (and the face's menus for it: ready-made lines, each parameter's
values), and the ruleset's lists of legal values (set-up hexes, classes to build, units that
may move), each line with the order fields it fills; with ``--to ORDER PIECE...`` it prints
instead where that order may take those pieces (`engine.core.face.Destinations`). ``find``
lists the units (or places) matching a text: hex, side, unit, class, group and states. The records
come from `tui.services.choices`; the text here is generic, so any ruleset's lists print.
"""

from __future__ import annotations

import argparse
import json
import textwrap
from collections.abc import Sequence
from typing import Any

from engine.core.errors import HexpostError
from saves.home import Home
from tui import render
from tui.services import choices as service


def cmd_choices(args: argparse.Namespace, home: Home) -> int:
    replica = home.replica()
    row = replica.find(args.game)
    if args.to:
        order, *pieces = args.to
        if not pieces:
            raise HexpostError(f"choices --to {order}: name the pieces it moves after it")
        found = service.destinations(replica, row, order, pieces, args.path or [])
        render.emit(found, args.json, destinations_text)
        return 0
    if args.path:
        raise HexpostError("choices --path goes with --to ORDER PIECE...")
    render.emit(service.choices(replica, row), args.json, choices_text)
    return 0


def destinations_text(record: dict[str, Any]) -> str:
    """``strategic KLI-0001 KLI-0002: 3 hexes: 0906 1009 1107``, or why none; then what
    the order needs besides (``; flagship KZI-0039``)."""
    what = " ".join([record["order"], *record["pieces"]])
    if record["path"]:
        what += f" along {' '.join(record['path'])}"
    fills = "".join(f"; {name} {value}" for name, value in record["fills"])
    note = f"\n  {record['note']}" if record["note"] else ""
    hexes = record["hexes"]
    if not hexes:
        return f"{what}: no hex now: {record['why']}{fills}{note}"
    count = f"{len(hexes)} hex{'' if len(hexes) == 1 else 'es'}"
    return f"{what}: {count}: {' '.join(hexes)}{fills}{note}"


def cmd_find(args: argparse.Namespace, home: Home) -> int:
    replica = home.replica()
    row = replica.find(args.game)
    render.emit(list(service.find(replica, row, " ".join(args.text))), args.json, find_text)
    return 0


def choices_text(record: dict[str, Any]) -> str:
    """The view as a player reads it: the step, the order templates, then each list."""
    step = f"{record['step']} {record['step_title']}".strip() or "no step"
    if not record["owes"]:
        return f"{record['seat']} owes nothing now (the game is at {step})"
    lines = [f"{record['seat']} owes {step}", "", "Orders this step takes:"]
    listed_orders = {listed["order"] for listed in record["lists"]}
    for kind in record["orders"]:
        rule = f" ({kind['rule']})" if kind["rule"] else ""
        lines.append(f"  {kind['order']}: {kind['title']}{rule}")
        optional = f"   optional: {', '.join(kind['optional'])}" if kind["optional"] else ""
        if len(kind["template"]) + len(optional) + 4 > WIDTH:  # (the template stays one line)
            lines += [f"    {kind['template']}", f"      {optional.strip()}"]
        else:
            lines.append(f"    {kind['template']}{optional}")
        lines += [f"    {name}: {words}" for name, words in kind.get("fields", ()) if words]
        helps = dict(kind.get("helps", ()))
        with_menu = {name for name, _ in kind.get("options", ())}
        alone = [f"    {name}: {words}" for name, words in helps.items() if name not in with_menu]
        if kind.get("destinations"):
            lines.append(f"    where to: hexpost choices GAME --to {kind['order']} PIECE...")
        if kind.get("now"):  # (a new order of this type replaces it whole)
            now = " ".join(f"{name}={value}" for name, value in kind["now"])
            lines.append(f"    in force now: {now}")
        if kind.get("picked"):  # (on a line of its own, whole: it is copied as it is)
            lines += ["    the engine's pick, ready to send:", f"    {kind['picked']}"]
        if kind["order"] in listed_orders:
            lines += alone
            continue  # (a list below shows its values and menu lines, with their facts)
        for name, values in kind.get("options", ()):  # ("": the field left out)
            words = f" ({helps[name]})" if name in helps else ""
            lines.append(f"    {name}: {', '.join(v or '(none)' for v in values)}{words}")
        lines += alone  # (the fields without a menu, after those with one)
        for item in kind.get("menu", ()):
            fills = " ".join(f"{k}={v}" for k, v in item["values"])
            lines.append(f"    - {item['label']}" + (f"   [{fills}]" if fills else ""))
    lines += _play_on_lines(record.get("play_on", ()))
    for listed in record["lists"]:
        rule = f", {listed['rule']}" if listed["rule"] else ""
        lines += ["", f"{listed['title']} ({listed['order']}{rule}):"]
        if not listed["items"]:
            lines.append("  none")
        for item in listed["items"]:
            fills = " ".join(f"{k}={v}" for k, v in item["values"])
            lines.append(f"  {item['label']}" + (f"   [{fills}]" if fills else ""))
            facts = "; ".join(f"{f['label']} {f['value']}" for f in item["facts"])
            if facts:
                lines.append(f"      {facts}")
        lines += [f"  note: {note}" for note in listed["notes"]]
    # Each line within 80 columns but an order's JSON template, which is copied whole.
    return "\n".join(
        "\n".join([line] if line.lstrip().startswith("{") else render.fit_lines([line], WIDTH))
        for line in lines
    )


WIDTH = 80
"""Columns of `choices_text`, as of the other text views (`tui.render.fit_lines`)."""


def _play_on_lines(stops: Sequence[str]) -> list[str]:
    """The steps to play on to, wrapped, with the order that stops at the last one."""
    if len(stops) < 2:  # (a plain done reaches the one: nothing to say)
        return []
    last = {"type": "done", "through": stops[-2]}
    return [
        "",
        "Steps you may play on to and still act at (a done through the one before):",
        *textwrap.wrap(" ".join(stops), 76, initial_indent="  ", subsequent_indent="  "),
        f"  e.g. {json.dumps(last)} stops at {stops[-1]}",
    ]


def find_text(rows: list[dict[str, Any]]) -> str:
    """One line per match: hex, side, unit and class, group, states, and what matched."""
    lines = []
    for row in rows:
        where = row["hex"] or "off map"
        what = f"{row['piece']} {row['kind']}".strip() or "(no unit)"
        parts = [f"{where:<7} {row['side']:<4} {what}"]
        if row["group"]:
            parts.append(row["group"])
        if row["marks"]:
            parts.append(" ".join(row["marks"]))
        if row["note"]:
            parts.append(row["note"])
        parts.append(f"[{row['matched']}]")
        lines.append("  ".join(parts))
    return "\n".join(lines)
