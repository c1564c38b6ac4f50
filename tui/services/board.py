"""A game's map for the faces: the printed map of its scenario, and its board as a typed record.

The map widget and ``hexpost show --map`` draw a game from two records of the ruleset's face
(`engine.core.face`): the printed map (`MapSheet`, static data of the scenario) and the board
now (`Board`, in `tui.services.show.ShowRecord`). The screens ask here for the first, so no
widget reads a ruleset's data itself; the second comes with the game's record (`board_at`
gives it at any packet, for ``hexpost show --map --at``).

A face may also give a quick board (`QuickBoard`): the board without what takes long to work
out (F&E: every unit's supply and every side's income). A game screen's first paint shows
that one, and the whole board (`current_board`, read on the store thread while that paint is
made) replaces it (issue 16).

The face's types are re-exported so widgets name them without importing the engine.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from engine.core.face import Board, HexGrid, MapCell, MapSheet, Piece, Place, Side, SideStyle
from saves.registry import face_for
from saves.replica import GameRow, Replica

__all__ = [
    "Board",
    "HexGrid",
    "MapCell",
    "MapSheet",
    "Piece",
    "Place",
    "QuickBoard",
    "Side",
    "SideStyle",
    "board_at",
    "current_board",
    "map_sheet",
    "sheet_for",
]


def sheet_for(ruleset: str, scenario: str) -> MapSheet | None:
    """The printed map of ``scenario`` of ``ruleset`` (its id, or ``id/version`` as a
    game's record names it); None for a game without one. The face keeps it once read
    (static data), and `tui.services.rulesets.preload_maps` reads the listed games' ahead
    of time, so a screen may ask for it on the event loop."""
    return face_for(ruleset.partition("/")[0]).map_sheet(scenario)


def map_sheet(replica: Replica, game_id: str | bytes) -> MapSheet | None:
    """The printed map of a game of this home (hex id or bytes), by its ruleset and
    scenario; in the shape of the readers `tui.screens.session.Session.call` runs."""
    gid = bytes.fromhex(game_id) if isinstance(game_id, str) else game_id
    row = replica.game(gid)
    return sheet_for(row.ruleset, row.scenario)


def board_at(replica: Replica, row: GameRow, at: int | None = None) -> Board | None:
    """The board of game ``row`` after packet ``at`` (None: now); None before the game
    has begun or for a game without a board."""
    rules = replica.state(row.game_id, at).rules
    return face_for(row.ruleset).board(rules) if rules is not None else None


@runtime_checkable
class QuickBoard(Protocol):
    """A face that can give its board without what takes long to work out, for a first
    paint; what that leaves out is the ruleset's to say (F&E: every unit's supply and every
    side's income)."""

    def quick_board(self, state: Any) -> Board | None: ...


def current_board(replica: Replica, game_id: bytes) -> tuple[int, Board | None]:
    """The game's whole board now, with the packet number it is the board after (so a
    screen that read the game at another packet can leave it)."""
    row = replica.game(game_id)
    state = replica.state(game_id)
    rules = state.rules
    board = face_for(row.ruleset).board(rules) if rules is not None else None
    return state.core.seq, board
