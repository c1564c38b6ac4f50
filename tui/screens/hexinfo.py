"""The game screen's side panel in words: the hex under the cursor and the game's status.

Plain functions from the records the screen already holds (the ``views`` part of
`render.show_record`: ``hexes`` and ``units``) to lines of text, so they can be tested
without a terminal and the panel stays a dumb `Static`. Each line fits the side panel
(`PANEL_WIDTH`; the hex details, which scroll, `SCROLL_WIDTH`); the marks are the map's own
(`tui.mapstacks`: ``*`` crippled, ``!`` out of supply, ``&`` both), so a stack reads the
same on the map and in the list, in monochrome.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from typing import Any

from tui.mapstacks import BOTH, CRIPPLED, OUT_OF_SUPPLY
from tui.safe_text import safe_text
from tui.when import turn_text

PANEL_WIDTH = 28
"""Characters per line of the side panel (its CSS width less the border and padding)."""

SCROLL_WIDTH = PANEL_WIDTH - 1
"""Characters per line of the hex details: they sit in a scroll (``#hex-scroll``) whose
scrollbar takes a column of the panel. A longer line is wrapped again by Textual at its last
space, so a note clipped to `PANEL_WIDTH` came out as a stray, unindented ``(he~``."""

LEGEND = f"{CRIPPLED} crippled {OUT_OF_SUPPLY} no supply {BOTH} both"


class BoardIndex:
    """The ``views`` record indexed for lookups by hex and unit id (built once per load)."""

    def __init__(self, record: Mapping[str, Any]) -> None:
        self.hexes: dict[str, Mapping[str, Any]] = {h["hex"]: h for h in record.get("hexes", [])}
        self.units: dict[str, Mapping[str, Any]] = {u["id"]: u for u in record.get("units", [])}
        self.has_board = "hexes" in record
        self.battles: set[str] = {b["hex"] for b in record.get("battles", [])}

    def first_hex_of(self, empires: set[str]) -> int | None:
        """The first hex (in id order) holding a ship of one of ``empires``: where a player's
        eye goes first when a game opens. Bases do not count: they never move, and the map
        is full of them."""
        for key in sorted(self.hexes):
            entry = self.hexes[key]
            bases = {found["id"] for found in entry.get("bases", [])}
            for unit_id in entry["units"]:
                unit = self.units.get(unit_id)
                if unit is not None and unit_id not in bases and unit["empire"] in empires:
                    return int(key)
        return None


def unit_mark(unit: Mapping[str, Any]) -> str:
    """The map's mark for one unit: crippled, out of supply, both, or nothing."""
    cut_off = unit.get("supply") == "none"
    if unit.get("crippled") and cut_off:
        return BOTH
    if unit.get("crippled"):
        return CRIPPLED
    return OUT_OF_SUPPLY if cut_off else ""


def hex_lines(board: BoardIndex, h: int, printed: tuple[str, str] | None = None) -> list[str]:
    """What the panel says about hex ``h``. ``printed`` is (owner, province) from the printed
    map, for a hex the record leaves out because nothing is there (no units, no planets,
    never captured): its owner is then still the map's."""
    key = f"{h:04d}"
    lines = [f"Hex {key}"]
    entry = board.hexes.get(key)
    if entry is None:
        owner, province = printed or ("", "")
        lines.append(_clip(f"owner {owner or '-'}  province {province or '-'}", SCROLL_WIDTH))
        lines.append("no units, planets or bases")
        return lines
    flags = [
        word
        for word, on in (
            ("battle", key in board.battles),
            ("captured", entry.get("captured")),
            ("devastated", entry.get("devastated")),
            ("capital", entry.get("capital")),
        )
        if on
    ]
    owner, province = entry.get("owner") or "-", entry.get("province") or "-"
    lines.append(_clip(f"owner {owner}  province {province}", SCROLL_WIDTH))
    if flags:
        lines.append(_clip(", ".join(flags), SCROLL_WIDTH))
    for planet in entry.get("planets", []):
        name = f" {planet['name']}" if planet.get("name") else ""
        seat = " (capital)" if planet.get("capital") else ""
        lines.append(_clip(f"planet: {planet['kind']}{name}{seat}", SCROLL_WIDTH))
    base_ids = set()
    for found in entry.get("bases", []):
        base_ids.add(found["id"])
        mark = unit_mark(board.units.get(found["id"], {}))
        lines.append(_clip(f"base: {found['class']}{mark} {found['id']}", SCROLL_WIDTH))
    units = [board.units.get(unit_id) for unit_id in entry.get("units", [])]
    ships = [u for u in units if u is not None and u["id"] not in base_ids]
    if ships:
        lines.append(f"units ({len(ships)}):")
        for unit in ships:
            lines.extend(unit_lines(unit))
    if any(unit_mark(u) for u in units if u is not None):
        lines.append(LEGEND)
    return lines


def unit_lines(unit: Mapping[str, Any]) -> list[str]:
    """``KLI-0002 D7*  Strike Force``: id, class with its mark, then the fleet (or reserve,
    or partial supply); when that is too long for the panel, each note goes on an indented
    line of its own under the unit, and a note too long for that line wraps between words
    onto further lines indented the same. Wrapped here rather than by Textual, which cannot
    indent a continuation line: ours would start at the panel's edge, under no unit."""
    notes = []
    if unit.get("reserve"):
        notes.append("reserve")
    if unit.get("supply") == "partial":
        notes.append("partial supply")
    if unit.get("fleet"):
        held = "" if unit.get("released", True) else " (held)"
        notes.append(f"{unit['fleet']}{held}")
    text = f" {unit['id']} {unit['class']}{unit_mark(unit)}"
    if not notes:
        return [text]
    joined = f"{text}  {', '.join(notes)}"
    if len(joined) <= SCROLL_WIDTH:
        return [joined]
    lines = [text]
    for note in notes:
        lines.extend(
            textwrap.wrap(
                note,
                SCROLL_WIDTH,
                initial_indent="    ",
                subsequent_indent="    ",
                break_long_words=False,
                break_on_hyphens=False,
            )
        )
    return lines


def status_lines(record: Mapping[str, Any]) -> list[str]:
    """The game in a few lines: name, turn, step, whose move, and anything alarming. The
    name, a frozen game's reason and a send error are other people's words: each is shown
    as one line with its control characters escaped (`tui.safe_text`)."""
    lines = [_clip(f"{safe_text(record['name'])}  #{record['seq']}")]
    turn = record.get("turn")
    if turn:
        lines.append(turn_text(turn))
    if record.get("phasing"):
        lines.append(f"phasing: {record['phasing']}")
    if record.get("step"):
        # Not clipped: the panel wraps it, and the step's title is what the player acts on.
        lines.append(f"step {record['step']} {record.get('step_title') or ''}".rstrip())
    waiting = list(record.get("waiting_for", []))
    if record.get("over"):
        lines.append("the game is over")
    elif waiting == [record["my_seat"]]:
        lines.append(f"YOUR MOVE ({record['my_seat']})")
    elif waiting:
        lines.append(f"waiting for {', '.join(waiting)}")
    if record.get("status") == "invited":
        lines.append("invitation: not joined yet")
    if record.get("frozen"):
        lines.append(f"FROZEN: {safe_text(record['frozen'])}")
    unsent = record.get("unsent") or []
    if unsent:
        tried = [entry for entry in unsent if entry["attempts"]]
        lines.append(f"NOT SENT: {len(unsent)} packet(s)" if tried else f"{len(unsent)} to send")
        if tried and tried[-1]["last_error"]:
            lines.append(_clip(safe_text(tried[-1]["last_error"])))
    return lines


def _clip(text: str, width: int = PANEL_WIDTH) -> str:
    return text if len(text) <= width else text[: width - 1] + "~"
