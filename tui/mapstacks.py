"""Stacks of counters as the map draws them: a three-character marker per hex, and its legend.

The text map (``hexpost show --map``) and the Textual map widget both draw the game's pieces
with these markers, so the rules for squeezing a stack into a hex box live in one place. It
takes plain data, never the game state: a hex's stack is a list of `Counter` (side,
crippled, supply status), which `stacks_from_board` builds from the ruleset's typed board
(`engine.core.face.Board`, the record ``show --json`` prints as ``board``), so a client
needs nothing else, whatever the game.

A marker is at most three characters (a compact box is three wide, and it is also the units'
part of a detailed box):

========= ==========================================================================
marker    meaning
========= ==========================================================================
``K3``    three Klingon units (the side's map glyph, then the count)
``K12``   twelve units; with a flag to show, ``K+*``: ten or more
``KZ``    units of two sides (a battle if they are at war); the larger stack first
``KZ+``   three or more sides (the flag gives way)
``*``     at least one unit of the stack is crippled (piece mark ``crippled``)
``!``     at least one unit is out of supply (piece mark ``supply-none`` or
          ``out-of-supply``)
``&``     both: crippled units and units out of supply
``K4~``   planned: the stack this hex would hold once the draft orders are applied
``~``     planned: the draft orders would leave this hex without units
``KZx``   a battle hex (place mark ``battle``): enemies meet here; ``K3x`` when the
          enemy is only a base (bases are not counted)
========= ==========================================================================

The battle mark (`battle_marker`) takes the third character: the crippled and supply flags
and the ``+`` of three sides give way to it (the hex details list every unit and side),
and ten or more units read ``K+x``. A battle hex whose stack counts nobody (only bases)
keeps its terrain; the map's style still marks it.

The planned marker (`plan_markers`) is the what-if the orders panel shows before signing:
only hexes whose stack the drafts change get one, so the rest of the map stays as it is.
It gives up the crippled and supply flags for the ``~``: which stack moves matters more
there, and the hex details still list every unit's marks.

Bases are not counted: the terrain already marks them (``#``, place mark ``base``), and
counting them would cover every base hex of the map with a ``K1`` hiding its planets. A
piece is a base when it carries the mark ``base`` (it never moves: a starbase, a fortress).
A hex whose only pieces are bases is drawn as its terrain.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import NamedTuple

from engine.core.face import Board, Piece
from tui.mapgeom import MAX_INDEX, HexId, hex_id

CRIPPLED = "*"
OUT_OF_SUPPLY = "!"
BOTH = "&"
MANY = "+"
UNKNOWN = "?"
PLANNED = "~"
BATTLE = "x"


CRIPPLED_MARK = "crippled"
BASE_MARK = "base"
OUT_OF_SUPPLY_MARKS = frozenset({"supply-none", "out-of-supply"})
"""Piece marks (`engine.core.face.Piece.marks`) saying a piece is out of supply."""
SUPPLY_PREFIX = "supply-"


class Counter(NamedTuple):
    """One unit of a stack, as much as the map shows of it: its side's id, whether it is
    crippled, and ``supply``: ``"main"``, ``"partial"``, ``"none"`` (out of supply) or None
    when nobody computed it."""

    side: str
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
    """The marker of one hex's stack ("" for no units); ``glyphs`` maps side ids to their
    map glyphs (an unknown side shows ``?``)."""
    if not counters:
        return ""
    counts: dict[str, int] = {}
    for counter in counters:
        counts[counter.side] = counts.get(counter.side, 0) + 1
    flag = _flag(counters)
    sides = sorted(counts, key=lambda e: (-counts[e], e))
    letters = [glyphs.get(e) or UNKNOWN for e in sides]
    if len(sides) > 1:
        return letters[0] + letters[1] + (MANY if len(sides) > 2 else flag)
    count = counts[sides[0]]
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
    if len(plain) == 3 and not _is_side(plain[1]):
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
        plain = plain[0] + (plain[1] if _is_side(plain[1]) else MANY)
    return plain + PLANNED


def plan_markers(now: Board, planned: Board, glyphs: Mapping[str, str]) -> dict[HexId, str]:
    """The planned marker of every hex whose stack differs between two boards: the game as
    it is (``now``) and as the draft orders would leave it (``planned``)."""
    before = _piece_hexes(now)
    after = _piece_hexes(planned)
    changed = {h for h in set(before) | set(after) if before.get(h) != after.get(h)}
    stacks, _ = stacks_from_board(planned)
    return {h: planned_marker(stacks.get(h, []), glyphs) for h in sorted(changed)}


def _piece_hexes(board: Board) -> dict[HexId, list[str]]:
    """Each hex's counted piece ids (bases left out), sorted."""
    fixed, digits = fixed_pieces(board), _digits(board)
    found: dict[HexId, list[str]] = {}
    for piece in board.pieces:
        h = board_hex(piece.hex, digits)
        if h is not None and piece.id not in fixed:
            found.setdefault(h, []).append(piece.id)
    return {h: sorted(ids) for h, ids in found.items()}


def _is_side(char: str) -> bool:
    return char == UNKNOWN or char.isalpha()


def stack_legend(
    markers: Iterable[str], names: Mapping[str, str] | None = None
) -> list[tuple[str, str]]:
    """``(glyph, meaning)`` entries for the marker forms that ``markers`` use, in the order of
    the table above, each illustrated by a marker of the map; ``names`` maps map glyphs to
    side names."""
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
    pair = next((m for m in seen if _is_side(m[1])), "")
    if pair:
        both = " and ".join(names.get(g, g) for g in pair[:2])
        entries.append((pair[:2], f"{both} units, the larger stack first"))
    if any(_is_side(m[1]) and m[2:] == MANY for m in seen):
        entries.append((f"{pair[:2]}{MANY}", "three or more sides"))
    flags = {m[2] for m in seen if len(m) == 3 and not (_is_side(m[1]) and m[2] == MANY)}
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


# --- reading a board -------------------------------------------------------------------------


def board_hex(text: str | None, digits: int = 2) -> HexId | None:
    """A board's hex (``"1307"``: ``digits`` digits of column, then of row) as a `HexId`;
    None for a piece off the board, or a hex written otherwise or past what a `HexId`
    holds."""
    if text is None or len(text) != 2 * digits or not text.isdigit():
        return None
    if digits == 2:
        return int(text)  # "1307" is hex_id(13, 7): read for every piece and printed hex
    col, row = int(text[:digits]), int(text[digits:])
    return hex_id(col, row) if col <= MAX_INDEX and row <= MAX_INDEX else None


def _digits(board: Board) -> int:
    return board.grid.digits if board.grid is not None else 2


def fixed_pieces(board: Board) -> set[str]:
    """The bases of the board (piece mark ``base``), which stacks leave out."""
    return {piece.id for piece in board.pieces if BASE_MARK in piece.marks}


def counter_of(piece: Piece) -> Counter:
    """What the map shows of ``piece``: its side, crippled, and its supply status."""
    supply = "main"
    for mark in piece.marks:
        if mark in OUT_OF_SUPPLY_MARKS:
            supply = "none"
            break
        if mark.startswith(SUPPLY_PREFIX):
            supply = mark.removeprefix(SUPPLY_PREFIX)
    return Counter(piece.side, CRIPPLED_MARK in piece.marks, supply)


def stacks_from_board(board: Board) -> tuple[dict[HexId, list[Counter]], set[HexId]]:
    """The stacks (bases and pieces off the board left out) and the hexes holding bases
    (place mark ``base``), from a typed board."""
    fixed, digits = fixed_pieces(board), _digits(board)
    stacks: dict[HexId, list[Counter]] = {}
    # Read once per hex written and per (side, marks): a board has many pieces on few hexes
    # and few kinds of marks (The Wind: 747 pieces, 26 hexes, 19 of these pairs), and a
    # `Counter` is immutable, so the pieces alike share one (issue 16: the first paint).
    hexes: dict[str | None, HexId | None] = {}
    counters: dict[tuple[str, tuple[str, ...]], Counter] = {}
    for piece in board.pieces:
        text = piece.hex
        try:
            h = hexes[text]
        except KeyError:
            h = hexes[text] = board_hex(text, digits)
        if h is None or piece.id in fixed:
            continue
        alike = (piece.side, piece.marks)
        counter = counters.get(alike)
        if counter is None:
            counter = counters[alike] = counter_of(piece)
        stacks.setdefault(h, []).append(counter)
    return stacks, _marked(board, BASE_MARK)


def battle_hexes(board: Board) -> set[HexId]:
    """The battle hexes of a board (place mark ``battle``)."""
    return _marked(board, "battle")


def captured_owners(board: Board) -> dict[HexId, str]:
    """The side holding each captured hex (place mark ``captured``; the place's owner is
    the captor), by hex; a hex taken back by its printed owner is no longer captured."""
    digits = _digits(board)
    return {
        h: place.owner
        for place in board.places
        if "captured" in place.marks and (h := board_hex(place.hex, digits)) is not None
    }


def _marked(board: Board, mark: str) -> set[HexId]:
    digits = _digits(board)
    return {
        h
        for place in board.places
        if mark in place.marks and (h := board_hex(place.hex, digits)) is not None
    }
