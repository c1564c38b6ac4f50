"""The game screen's orders panel, mounted after the game's first paint.

The panel (`tui.widgets.orders.OrdersPanel`) starts closed: the side column shows the hex
details until the player presses ``o``. Composing it with the screen styled and laid out its
widgets for a paint that does not show them, and importing it brought the order forms, the
allocation editor and the tick lists along: some 15 ms of the game screen's first paint
(issue 16, item 5). `OrdersSlot` mounts it, hidden, at the end of the side column (where the
screen composed it before) once the game has been painted, or at once when the player wants
it before that (``o``, Enter on the map); what the screen told it meanwhile (`set_step`) is
handed over when it is built, so the player finds the same panel either way.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from textual.screen import Screen

if TYPE_CHECKING:
    from tui.widgets.order_flow import Waiting
    from tui.widgets.order_forms import ChoiceData, FieldsFor
    from tui.widgets.orders import OrdersPanel
    from tui.widgets.step_picks import StepData

SIDE = "#side"
"""The side column the panel goes into, after the hex details."""


class OrdersSlot:
    """The orders panel of one game screen: built once, after the first paint or on demand."""

    def __init__(self, screen: Screen[None]) -> None:
        self._screen = screen
        self._panel: OrdersPanel | None = None
        self._ready = asyncio.Event()
        """Set once the panel is mounted, composed and told the step."""
        self._step: dict[str, Any] | None = None
        """The last `set_step` arguments, kept for a panel not built yet."""

    @property
    def panel(self) -> OrdersPanel | None:
        """The panel once built (it may still be mounting), else None."""
        return self._panel

    def built(self) -> OrdersPanel:
        """The panel, for handlers of its own messages (it exists when it posts them)."""
        if self._panel is None:
            raise RuntimeError("the orders panel has not been built yet")
        return self._panel

    def set_step(
        self,
        step: str | None,
        choices: Sequence[ChoiceData] = (),
        *,
        own: Sequence[str] = (),
        secret: bool = False,
        fields: FieldsFor | None = None,
        steps: Sequence[StepData] = (),
        sides: Sequence[str] = (),
        waiting: Sequence[Waiting] = (),
        seat: str = "",
    ) -> None:
        """`OrdersPanel.set_step` now, or when the panel is built."""
        told: dict[str, Any] = {
            "step": step,
            "choices": choices,
            "own": own,
            "secret": secret,
            "fields": fields,
            "steps": steps,
            "sides": sides,
            "waiting": waiting,
            "seat": seat,
        }
        if self._panel is not None and self._ready.is_set():
            self._panel.set_step(**told)
        else:
            self._step = told

    def build_later(self) -> None:
        """Build the panel after the screen's next repaint (the first one with the game)."""
        self._screen.call_after_refresh(self._build_if_shown)

    async def _build_if_shown(self) -> None:
        # The screen may have been closed before its repaint (the player quit, or left the
        # game, in that frame): there is nothing to mount the panel in.
        if self._screen.is_attached:
            await self.build()

    async def build(self) -> OrdersPanel:
        """The panel, mounted hidden (with its unit list and text field) if it was not yet,
        told the step the screen last gave."""
        if self._panel is None:
            from tui.widgets.orders import OrdersPanel

            panel = self._panel = OrdersPanel(id="orders")
            panel.display = False
            await self._screen.query_one(SIDE).mount(panel)
            if self._step is not None:
                step, self._step = self._step, None
                panel.set_step(**step)
            panel.build_fields()
            self._ready.set()
        await self._ready.wait()
        return self._panel
