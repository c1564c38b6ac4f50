"""The game screen's side panel in words: the hex under the cursor and the game's status.

Plain functions from the records the screen already holds (the ruleset face's `Board` and
`MapSheet`, `engine.core.face`; the game's record for the status) to lines of text, so they
can be tested without a terminal and the panel stays a dumb `Static`. Nothing here knows a
game: a hex says its owner, its place's marks (``battle``, ``captured``...), the features
the ruleset lists there in its own words, its bases (pieces marked ``base``) and its other
pieces with their marks and group. Each
line fits the side panel (`PANEL_WIDTH`; the hex details, which scroll, `SCROLL_WIDTH`);
the marks are the map's own (`tui.mapstacks`: ``*`` crippled, ``!`` out of supply, ``&``
both), so a stack reads the same on the map and in the list, in monochrome.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from typing import TYPE_CHECKING

from engine.core.face import Board, MapCell, MapSheet, Piece, Place
from engine.core.text import counted
from tui.mapgeom import HexId, hex_label
from tui.mapstacks import (
    BASE_MARK,
    BOTH,
    CRIPPLED,
    CRIPPLED_MARK,
    OUT_OF_SUPPLY,
    OUT_OF_SUPPLY_MARKS,
    SUPPLY_PREFIX,
    board_hex,
    counter_of,
)
from tui.safe_text import safe_text
from tui.when import turn_text

if TYPE_CHECKING:
    from tui.services.show import ShowRecord

PANEL_WIDTH = 28
"""Characters per line of the side panel (its CSS width less the border and padding)."""

SCROLL_WIDTH = PANEL_WIDTH - 1
"""Characters per line of the hex details: they sit in a scroll (``#hex-scroll``) whose
scrollbar takes a column of the panel. A longer line is wrapped again by Textual at its last
space, so a note clipped to `PANEL_WIDTH` came out as a stray, unindented ``(he~``."""

LEGEND = f"{CRIPPLED} crippled {OUT_OF_SUPPLY} no supply {BOTH} both"

READING = "(supply: reading...)"
"""Under the pieces of a quick board, whose marks say nothing of supply yet: none may be
taken for in supply before the whole board has been read."""

IN_SUPPLY = f"{SUPPLY_PREFIX}main"
"""The supply mark of a piece in full supply: nothing to say about it."""
HELD = "not-released"
"""The mark of a piece its group may not move yet: the group is then said ``(held)``."""
STAY_MARKS = frozenset({HELD, "immobile"})
"""Marks of a piece that may not move now by itself (`engine.core.face.Piece`): ``m`` offers
it unticked."""
QUIET_MARKS = frozenset({CRIPPLED_MARK, BASE_MARK, IN_SUPPLY, HELD, *OUT_OF_SUPPLY_MARKS})
"""Piece marks the panel says otherwise (a flag after the kind, the group's ``(held)``) or
not at all."""


class BoardIndex:
    """A game's board and printed map, indexed by hex and piece id (built once per load)."""

    def __init__(
        self,
        board: Board | None,
        sheet: MapSheet | None = None,
        *,
        later: bool = False,
        printed: Mapping[HexId, MapCell] | None = None,
    ) -> None:
        """``printed``: the sheet's cells by hex on its grid, where the caller has them
        (`tui.widgets.hexmap.HexMap.printed`), in place of reading ``sheet`` again."""
        self.board = board
        self.later = later
        """``board`` is a quick board: what it leaves out (F&E: the supply) is still being
        read (`tui.services.board.QuickBoard`)."""
        self.has_board = board is not None and board.grid is not None
        """Whether the game has a map to show (a board on a grid)."""
        digits = board.grid.digits if board is not None and board.grid is not None else 2
        self.places: dict[HexId, Place] = {}
        self.pieces: dict[str, Piece] = {}
        if board is not None:
            self.pieces = {piece.id: piece for piece in board.pieces}
            for place in board.places:
                h = board_hex(place.hex, digits)
                if h is not None:
                    self.places[h] = place
        if printed is None and sheet is not None:
            cells: dict[HexId, MapCell] = {}
            for cell in sheet.cells:
                h = board_hex(cell.hex, sheet.grid.digits)
                if h is not None:
                    cells[h] = cell
            printed = cells
        self.printed: Mapping[HexId, MapCell] = {} if printed is None else printed


def unit_mark(piece: Piece) -> str:
    """The map's mark for one piece: crippled, out of supply, both, or nothing."""
    counter = counter_of(piece)
    cut_off = counter.supply == "none"
    if counter.crippled and cut_off:
        return BOTH
    if counter.crippled:
        return CRIPPLED
    return OUT_OF_SUPPLY if cut_off else ""


def hex_lines(board: BoardIndex, h: HexId) -> list[str]:
    """What the panel says about hex ``h``: the board's place there, or for a hex the board
    leaves out (nothing there now), the printed map's owner and zone."""
    lines = [f"Hex {hex_label(h)}"]
    place = board.places.get(h)
    printed = board.printed.get(h)
    zone = printed.zone if printed is not None else ""
    if place is None:
        owner = printed.owner if printed is not None else ""
        lines.append(clip(_owner_text(owner, zone), SCROLL_WIDTH))
        lines.append("nothing here")
        return lines
    lines.append(clip(_owner_text(place.owner, zone), SCROLL_WIDTH))
    flags = [mark for mark in place.marks if mark != BASE_MARK]
    if flags:
        lines.append(clip(", ".join(flags), SCROLL_WIDTH))
    pieces = [board.pieces[p] for p in place.pieces if p in board.pieces]
    bases = {p.id: p for p in pieces if BASE_MARK in p.marks}
    for feature in place.features:
        if not bases.keys() & set(feature.split()):  # a base's feature: said below
            lines.append(clip(feature, SCROLL_WIDTH))
    for base in bases.values():
        lines.append(clip(f"base: {base.kind}{unit_mark(base)} {base.id}", SCROLL_WIDTH))
    units = [p for p in pieces if p.id not in bases]
    if units:
        lines.append(f"units ({len(units)}):")
        for piece in units:
            lines.extend(unit_lines(piece))
    if any(unit_mark(p) for p in pieces):
        lines.append(LEGEND)
    if board.later and pieces:
        lines.append(READING)
    return lines


def _owner_text(owner: str, zone: str) -> str:
    return f"owner {owner or '-'}" + (f"  {zone} zone" if zone else "")


def unit_lines(piece: Piece) -> list[str]:
    """``KLI-0002 D7*  Strike Force``: id, kind with its mark, then its notes (its other
    marks, its supply when partial, its group, ``(held)`` when it may not move yet); when
    that is too long for the panel, each note goes on an indented line of its own under the
    piece, and a note too long for that line wraps between words onto further lines
    indented the same. Wrapped here rather than by Textual, which cannot indent a
    continuation line: ours would start at the panel's edge, under no piece."""
    notes = [m.replace("-", " ") for m in piece.marks if not _supply(m) and m not in QUIET_MARKS]
    notes += [
        f"{m.removeprefix(SUPPLY_PREFIX)} supply"
        for m in piece.marks
        if _supply(m) and m not in QUIET_MARKS
    ]
    if piece.group:
        notes.append(f"{piece.group}{' (held)' if HELD in piece.marks else ''}")
    text = f" {piece.id} {piece.kind}{unit_mark(piece)}"
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


def _supply(mark: str) -> bool:
    return mark.startswith(SUPPLY_PREFIX)


def status_lines(record: ShowRecord) -> list[str]:
    """The game in a few lines: name, turn, step, whose move, and anything alarming. The
    name, a frozen game's reason and a send error are other people's words: each is shown
    as one line with its control characters escaped (`tui.safe_text`)."""
    lines = [clip(f"{safe_text(record.name)}  #{record.seq}")]
    if record.turn is not None:
        lines.append(turn_text(record.turn))
    if record.phasing:
        lines.append(f"phasing: {safe_text(record.phasing)}")
    if record.step:
        # Not clipped: the panel wraps it, and the step's title is what the player acts on.
        lines.append(safe_text(f"step {record.step} {record.step_title or ''}".rstrip()))
    waiting = record.waiting_for
    if record.over:
        lines.append(safe_text(f"the game is {record.ended or 'over'}"))
    elif waiting == (record.my_seat,) and record.plays:
        lines.append(f"YOUR MOVE ({record.my_seat})")
    elif waiting:
        lines.append(f"waiting for {', '.join(waiting)}")
    if record.status == "invited":
        lines.append("invitation: not joined yet")
    if record.frozen:
        lines.append(f"FROZEN: {safe_text(record.frozen)}")
    unsent = record.unsent
    if unsent:
        tried = [entry for entry in unsent if entry.attempts]
        lines.append(
            f"NOT SENT: {counted(len(unsent), 'packet')}" if tried else f"{len(unsent)} to send"
        )
        if tried and tried[-1].last_error:
            lines.append(clip(safe_text(tried[-1].last_error)))
    return lines


def drafting_line(step: str, title: str) -> str:
    """The side panel's word on the later step the player's drafts go on at: with its title
    when the whole fits one line, else its id alone (at 80x24 every line of the side panel
    is one less of the orders panel under it, which names the step's orders anyway)."""
    whole = safe_text(f"drafting for {step} {title}".rstrip())
    return whole if len(whole) <= PANEL_WIDTH else safe_text(f"drafting for {step}")


def clip(text: str, width: int = PANEL_WIDTH) -> str:
    """``text`` cut to ``width`` columns, a ``~`` marking the cut (as the map marks a name
    too long for its cell)."""
    return text if len(text) <= width else text[: width - 1] + "~"


def own_pieces(board: Board, seat: str) -> list[Piece]:
    """The pieces of the sides ``seat`` plays that can move: on the board, not bases."""
    mine = {side.id for side in board.sides if side.seat == seat}
    return [p for p in board.pieces if p.side in mine and p.hex and "base" not in p.marks]


def waiting_pieces(board: Board | None, seat: str) -> list[tuple[str, str, str]]:
    """The pieces of the sides ``seat`` plays that are off the board (waiting to be set up,
    say), as (id, kind, group): what a placement may put on the map."""
    if board is None:
        return []
    mine = {side.id for side in board.sides if side.seat == seat}
    return [(p.id, p.kind, p.group) for p in board.pieces if p.side in mine and not p.hex]


def start_hex(board: Board | None, seat: str) -> int | None:
    """Where the map opens: the place the step in play is about (`Board.focus`: a battle
    being fought) when the board names one on its map, else the player's first stack
    (`first_own_hex`)."""
    if board is not None and board.grid is not None and board.grid.contains(board.focus):
        return int(board.focus)
    return first_own_hex(board, seat)


def focus_moved(before: Board | None, after: Board | None) -> int | None:
    """The place ``after`` is about (`Board.focus`) when ``before`` was about another one or
    none: a battle begun, or the next battle hex fought, since the game was last read, where
    the map's cursor goes. None when nothing new is named (the cursor stays where the player
    left it)."""
    if after is None or after.grid is None or not after.grid.contains(after.focus):
        return None
    if before is not None and before.focus == after.focus:
        return None
    return int(after.focus)


def first_own_hex(board: Board | None, seat: str) -> int | None:
    """The first hex (in id order) holding a piece ``seat`` can move: where a player's eye
    goes first when a game opens (bases do not count: they never move, and the map is full
    of them)."""
    if board is None:
        return None
    hexes = [p.hex for p in own_pieces(board, seat) if p.hex and p.hex.isdigit()]
    return int(min(hexes)) if hexes else None
