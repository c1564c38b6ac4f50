"""The games list's table: Textual's `DataTable`, whose Enter opens the game on its row.

The screen once bound Enter itself, as a priority binding so that the footer showed "Open"
over the table's own hidden Enter. A priority binding runs as its key arrives, ahead of the
keys before it still waiting in the table's queue, so ``down Enter`` typed in one burst (over
SSH with some lag) opened the game the cursor was on before it moved. Bound here, Enter is
read in its turn after the arrows, and the footer shows it as the focused table's key. The
table posts `DataTable.RowSelected`, which the screen answers by opening the game; the
screen's ``check_action`` hides Enter while no row is there to open.
"""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.widgets import DataTable


class GamesTable(DataTable[str]):
    """A `DataTable` of games, one row each, whose Enter says "Open" in the footer."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "screen.open", "Open", tooltip="Open the game on the cursor's row"),
    ]
