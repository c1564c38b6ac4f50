"""Which units of a stack an order takes: a checklist of the stack, ticked at first.

A move, a reaction, a retrograde, a strategic move and a reserve fleet each name their units,
and a player often leaves part of a stack behind (a pinning force, a crippled ship). The
orders panel shows this list when such an order starts; the player unticks what stays and
confirms. Ticking everything by default keeps the usual case, the whole stack, to one key;
pieces the board says may not move now (`tui.screens.hexinfo.STAY_MARKS`) come unticked.

Keys: up/down move, space ticks or unticks, ``*`` ticks all or none, Enter confirms (posts
`UnitPick.Picked`), Escape gives up (posts `UnitPick.Abandoned`). The widget only reports:
the panel decides what the chosen units are for.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.message import Message

from tui.widgets.ticklist import TickList


class UnitPick(TickList):
    """The units of one stack with a tick each (``[x]``: `TickList`, readable without
    colour); `offer` fills it, every unit ticked."""

    BINDINGS: ClassVar[list[BindingType]] = [
        # Enter on a selection list would tick the line: here it confirms, space ticks.
        Binding("enter", "confirm", "Take them", tooltip="The ticked units take the order"),
        # Not a: the game screen's key to accept a joined key.
        Binding(
            "asterisk",
            "toggle_all",
            "All/none",
            key_display="*",
            tooltip="Tick every unit, or none",
        ),
        Binding("escape", "abandon", "Cancel", tooltip="Give up this order"),
    ]

    DEFAULT_CSS = """
    UnitPick {
        height: auto;
        max-height: 8;
    }
    """

    class Picked(Message):
        """The player confirmed; ``units`` are the ticked ids, in the stack's order."""

        def __init__(self, units: list[str]) -> None:
            super().__init__()
            self.units = units

    class Abandoned(Message):
        """The player gave up choosing (Escape)."""

    def offer(
        self,
        units: Sequence[str],
        names: Mapping[str, str] | None = None,
        stay: Collection[str] = (),
    ) -> None:
        """Show ``units`` (ids), each with its class from ``names`` when known, all ticked
        but those that ``stay`` (pieces the board says may not move now)."""
        names = names or {}
        self.clear_options()
        self.add_options(
            [(f"{u} {names[u]}" if names.get(u) else u, u, u not in stay) for u in units]
        )
        self.highlighted = 0 if units else None

    def action_confirm(self) -> None:
        self.post_message(self.Picked(self.picked))

    def action_toggle_all(self) -> None:
        if self.selected:
            self.deselect_all()
        else:
            self.select_all()

    def action_abandon(self) -> None:
        self.post_message(self.Abandoned())
