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
from typing import TYPE_CHECKING, Any

from textual.screen import Screen

from tui.widgets.step_offer import StepOffer

if TYPE_CHECKING:
    from tui.widgets.orders import OrdersPanel

SIDE = "#side"
"""The side column the panel goes into, after the hex details."""


class OrdersSlot:
    """The orders panel of one game screen: built once, after the first paint or on demand."""

    def __init__(self, screen: Screen[None]) -> None:
        self._screen = screen
        self._panel: OrdersPanel | None = None
        self._ready = asyncio.Event()
        """Set once the panel is mounted, composed and told the step."""
        self._offer: StepOffer | None = None
        """The last `set_step` offer, kept for a panel not built yet."""
        self._drafts: list[dict[str, Any]] = []
        """Drafts kept from an earlier visit (`restore`), for a panel not built yet."""

    @property
    def panel(self) -> OrdersPanel | None:
        """The panel once built (it may still be mounting), else None."""
        return self._panel

    def built(self) -> OrdersPanel:
        """The panel, for handlers of its own messages (it exists when it posts them)."""
        if self._panel is None:
            raise RuntimeError("the orders panel has not been built yet")
        return self._panel

    def set_step(self, offer: StepOffer) -> None:
        """`OrdersPanel.set_step` now, or when the panel is built."""
        if self._panel is not None and self._ready.is_set():
            self._panel.set_step(offer)
        else:
            self._offer = offer

    def restore(self, items: list[dict[str, Any]]) -> None:
        """`OrdersPanel.restore` now, or when the panel is built."""
        if self._panel is not None and self._ready.is_set():
            self._panel.restore(items)
        else:
            self._drafts = items

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
            if self._offer is not None:
                offer, self._offer = self._offer, None
                panel.set_step(offer)
            panel.build_fields()
            if self._drafts:
                drafts, self._drafts = self._drafts, []
                panel.restore(drafts)
            self._ready.set()
        await self._ready.wait()
        return self._panel
