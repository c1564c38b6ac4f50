"""``hexpost find``: the F&E board searched for a unit, a class, a fleet, a hex or a planet.

`engine.fe.face.FeFace.find` answers `engine.core.choices.Finder` from here. The neutral
search (`engine.core.choices.search_board`) already matches the face's pieces by id, class,
fleet and hex; F&E adds what a player also looks things up by: a planet's or a base's name
in a hex (``"Klinshai"``), and how far a unit has moved this phase (a ``moved-N`` mark),
which the neutral board does not carry. Pure.
"""

from __future__ import annotations

import msgspec

from engine.core.choices import Finding, search_board
from engine.core.face import Board
from engine.core.ruleset import Seat
from engine.fe.model import FeState


def find(state: FeState, board: Board, seat: Seat, text: str) -> tuple[Finding, ...]:
    """What matches ``text`` on ``board`` (the face's board of ``state``), case-insensitively.

    Every seat sees the same board (F&E hides no counter), so ``seat`` changes nothing yet."""
    found = list(search_board(board, text))
    needle = text.strip().casefold()
    if needle and not found:
        pieces = {p.id: p for p in board.pieces}
        for place in board.places:
            hits = [f for f in place.features if needle in f.casefold()]
            if not hits:
                continue
            note = ", ".join(hits)
            if not place.pieces:
                found.append(Finding("place", place.hex, place.owner, note=note))
            for piece_id in place.pieces:
                piece = pieces.get(piece_id)
                if piece is not None:
                    found.append(Finding("place", place.hex, piece.side, piece.id, piece.kind,
                                         piece.group, piece.marks, note))  # fmt: skip
    moved = dict(state.moved)
    return tuple(_with_moves(f, moved.get(f.piece, 0)) for f in found)


def _with_moves(finding: Finding, spent: int) -> Finding:
    if not spent:
        return finding
    return msgspec.structs.replace(finding, marks=(*finding.marks, f"moved-{spent}"))
