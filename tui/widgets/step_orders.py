"""The orders of the orders panel that are picked from the sequence of play: a ``done`` that
plays on to a later step (``D``), and a standing order's steps (``O``).

`StepOrders` is the part of the orders panel (`tui.widgets.orders.OrdersPanel`, which
extends it) that builds those lists, kept apart so the panel's module stays small. ``D``
lists only steps the player can reach: which of their steps they could complete in a row is
the rules' to say (`engine.core.face.PlayOn`), so the panel posts `ThroughWanted` and the
screen, which reads the rules on the store thread, answers with `pick_through`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from textual.message import Message

from tui.widgets.order_flow import MapOrders
from tui.widgets.order_forms import ChoiceData
from tui.widgets.order_text import param_named
from tui.widgets.step_picks import THROUGH_END, StepData, step_items, stops, stops_from
from tui.widgets.ticklist import PickDialog, PickItem

END_ITEM: PickItem = (
    "end: on until the other side decides (the turn's end at most)",
    THROUGH_END,
    False,
)


class StepOrders(MapOrders):
    """The sequence-picked orders of the orders panel; the panel supplies the hooks."""

    class ThroughWanted(Message):
        """``D`` was pressed: the screen reads which of the player's steps could be
        completed in a row now (after the drafts) and calls `pick_through` with them."""

    _steps: tuple[StepData, ...]
    items: list[dict[str, Any]]

    def action_through(self) -> None:
        """A ``done`` that plays on to a step picked from the rest of the sequence, which
        stays the player's (the draft runs through the step before it: `step_picks.stops`),
        instead of typing a step's id; first in the list, ``end``: on until the other side
        has a decision to make. The list waits for the screen's `pick_through`."""
        if self._through_param() is None:
            self._not_offered("done through")
            return
        self.post_message(self.ThroughWanted())

    def pick_through(self, found: Sequence[str] | None) -> None:
        """The list of ``D``, given ``found``, the steps the rules say the player may be
        left at (`engine.core.face.PlayOn`; None: they cannot say, and every later step
        is listed, each reached through the one before it)."""
        through = self._through_param()
        if through is None:
            return
        before = stops(self._steps) if found is None else stops_from(found)
        items = [item for item in self.step_items(later=True) if item[1] in before]
        if not items:
            after = "after these drafts: S signs them" if self.items else "now: d ends this step"
            self.notice(f"no later step is yours to play on to {after}")
            return

        def picked(values: list[str] | None) -> None:
            self.focus()
            if values:
                stop = before.get(values[0], values[0])  # (end: as it is)
                self._add({"type": "done", through: stop} if stop else {"type": "done"})

        title = "Play on to which step? It stays yours"
        if found is not None:  # the rules' own list: it ends where a done goes no further
            title += f" to {items[-1][1]}; past it the game needs more than your done"
        self.app.push_screen(PickDialog(title, [END_ITEM, *items]), picked)

    def _through_param(self) -> str | None:
        """The name of the ``done`` order's step parameter, when the step offers one."""
        choice = self.choice("done")
        return param_named(choice, "step") if choice is not None else None

    def step_items(self, *, later: bool = False, phases: bool = False) -> list[PickItem]:
        """The sequence's steps as lines to pick (`tui.widgets.step_picks.step_items`)."""
        return step_items(self._steps, later=later, phases=phases)

    def _pick_steps(
        self, choice: ChoiceData, param: str, items: list[PickItem], *, multiple: bool
    ) -> None:
        """A list of steps for ``choice``'s ``param``; the order is drafted with those picked."""

        def picked(values: list[str] | None) -> None:
            self.focus()
            if values is None:
                return
            if multiple:
                self._add({"type": choice.order, param: values})
            elif values:
                self._add({"type": choice.order, param: values[0]})

        what = "tick steps and phases; none ticked cancels it" if multiple else "up to which step?"
        self.app.push_screen(
            PickDialog(f"{choice.title}: {what}", items, multiple=multiple), picked
        )

    # --- the panel's -----------------------------------------------------------------------

    def _add(self, item: dict[str, Any]) -> None:
        raise NotImplementedError
