"""What the game screen tells the orders panel about the step the player owes.

One value rather than nine arguments: the screen builds it once per reading of the game, and
`tui.screens.game_orders.OrdersSlot` keeps it for a panel not built yet and hands it over
when the panel is. It imports nothing at run time, so the game screen's first paint does not
load the order forms to name it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tui.widgets.order_flow import Waiting
    from tui.widgets.order_forms import ChoiceData, FieldsFor
    from tui.widgets.step_picks import StepData


@dataclass(frozen=True)
class StepOffer:
    """The step the player owes (None: nothing owed) and the orders they may give there."""

    step: str | None
    choices: Sequence[ChoiceData] = ()
    """The face's choices at the step."""
    own: Sequence[str] = ()
    """The orders that are the step's own rather than offered at every step (``1`` to ``4``
    reach them)."""
    secret: bool = False
    """A secret step (``p`` writes its choice)."""
    fields: FieldsFor | None = None
    """Narrows a form's fields: the ruleset client's choice."""
    steps: Sequence[StepData] = ()
    """The sequence of play (the checklist's rows), from which standing orders and ``done
    through`` pick."""
    sides: Sequence[str] = ()
    """The board's sides the player plays (a ``side`` parameter's menu)."""
    waiting: Sequence[Waiting] = ()
    """The player's pieces off the board, which a placement puts on it."""
    seat: str = ""
    """The player's seat (whose standing order the steps' ``standing`` names)."""
