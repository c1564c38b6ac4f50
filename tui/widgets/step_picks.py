"""The sequence of play's steps as the orders panel lists them to pick from.

A ``done`` through a later step, and the steps and phases a standing order covers, are picked
from the sequence rather than typed: these are the lines of those lists, built from what the
screen hands the panel about each step (`StepData`), not from the engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from tui.widgets.ticklist import PickItem

THROUGH_END = "end"
"""What a ``done`` may run through instead of a step: on until the other side decides (the
core's `engine.core.through.THROUGH_END`; widgets import no engine, so the word is kept here
and a test checks the two agree)."""


class StepData(Protocol):
    """One step of the sequence as the checklist gives it (`tui.services.show.ChecklistLine`)."""

    @property
    def step(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def phase(self) -> str: ...
    @property
    def phase_title(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def headings(self) -> tuple[tuple[str, str], ...]: ...
    @property
    def status(self) -> str: ...


def step_items(
    steps: Sequence[StepData], *, later: bool = False, phases: bool = False
) -> list[PickItem]:
    """The sequence's steps as lines to pick, each with its title (``later``: only those
    after the current one; ``phases``: each phase and each heading (a group of steps) too,
    before its first step, indented by depth; secret steps, which nothing completes for a
    player, left out)."""
    rows = list(steps)
    if later:
        current = next((n for n, r in enumerate(rows) if r.status == "current"), None)
        rows = rows[current + 1 :] if current is not None else []
    items: list[PickItem] = []
    seen: set[str] = set()
    for row in rows:
        if phases and row.phase and row.phase not in seen:
            seen.add(row.phase)
            items.append((f"phase {row.phase}: {row.phase_title} (every step)", row.phase, False))
        depth = 0
        for depth, (heading, title) in enumerate(row.headings if phases else (), 1):
            if heading not in seen:  # a group of steps, named once before its first step
                seen.add(heading)
                items.append((f"{'  ' * depth}{heading}: {title} (its steps)", heading, False))
        if row.kind != "secret":
            items.append((f"{'  ' * (depth + 1)}{row.step:<7}{row.title}", row.step, False))
    return items
