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


MANUAL_NAME = "manual"
"""The name a standing order may give every manual step by (the core's
`engine.core.sequence.MANUAL_NAME`, kept here like `THROUGH_END`, a test checks the two)."""


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
    @property
    def standing(self) -> tuple[str, ...]: ...
    @property
    def obsolete(self) -> bool: ...


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


def stops(steps: Sequence[StepData]) -> dict[str, str]:
    """For each step after the current one, the step a ``done`` runs through to stop there,
    the step left the player's: the one before it ("" for the next step: a plain ``done``).
    A step after a secret one is left out (nothing completes a secret step for a player: the
    walk stops at it anyway)."""
    rows = list(steps)
    current = next((n for n, r in enumerate(rows) if r.status == "current"), None)
    if current is None:
        return {}
    found: dict[str, str] = {}
    for before, row in zip(rows[current:], rows[current + 1 :], strict=False):
        if before.kind != "secret":
            found[row.step] = "" if before is rows[current] else before.step
    return found


def stops_from(stops: Sequence[str]) -> dict[str, str]:
    """`stops` from the rules' own list (`engine.core.face.PlayOn`): each step a ``done``
    can leave the player at, with the step it runs through (the stop before; "" for the
    first, a plain ``done``)."""
    found: dict[str, str] = {}
    for before, step in zip(("", *stops), stops, strict=False):
        found.setdefault(step, before)
    return found


def standing_items(
    steps: Sequence[StepData], offered: Sequence[tuple[str, str]], seat: str
) -> list[PickItem]:
    """The lines a standing order is ticked from: first the names the face offers (``offered``,
    (label, name): F&E's ``manual``), then the sequence (`step_items` with phases).

    What is ticked at the start is what ``seat``'s standing order covers now, so changing
    it is a tick or two, not the whole order again: its steps, or ``manual`` in place of
    the manual steps when it covers them all (a decision ``manual`` covers besides, such
    as F&E's 5-3B, stays ticked on its own line: the rows do not say which those are). A
    seat without one finds the face's offer ticked, so ``O`` then Enter signs the recommended
    order. Obsolete steps are left out.
    """
    covered = {row.step for row in steps if seat and seat in row.standing}
    manual = {row.step for row in steps if row.kind == "manual" and not row.obsolete}
    all_manual = bool(manual) and manual <= covered
    items: list[PickItem] = [
        (label, name, name == MANUAL_NAME and all_manual if covered else True)
        for label, name in offered
    ]
    if all_manual:
        covered -= manual
    kept = [row for row in steps if not row.obsolete]  # (no standing order covers those)
    for label, value, _ in step_items(kept, phases=True):
        items.append((label, value, value in covered))
    return items
