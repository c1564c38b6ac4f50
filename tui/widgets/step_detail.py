"""One step of the sequence of play in full, on its own modal screen (Enter on a checklist step).

At 80 columns the checklist's line for a step is cut at the panel's edge: a long title hides
the marks after it (whose standing order completes the step, whose policy answers it), and
the status line after Enter is cut the same way. This screen shows everything the checklist
knows of the step, one fact a line, wrapped to the screen: its title, where it sits in the
sequence of play, who acts and how, its rules, the orders it takes, and what answers it
without its player. Escape, Enter or ``q`` closes it.
"""

from __future__ import annotations

from typing import ClassVar, Protocol

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Label, Static

from tui.widgets.checklist import Item
from tui.widgets.dialog import Dialog

ACTOR_WORDS = {
    "phasing": "the phasing player",
    "non-phasing": "the non-phasing player",
    "both": "both players",
    "nobody": "no player's choice",
}
KIND_WORDS = {
    "automatic": "automatic: the engine does it, nobody is asked",
    "decision": "decision: orders from the player who acts",
    "secret": "secret choice: signed sealed, opened once the other side has answered",
    "manual": "manual: the engine does not play it; whoever owes it records what happened "
    "(notes, adjustments) and marks it done, or the standing order `manual` does",
}
STATUS_WORDS = {
    "done": "done",
    "current": "current: the game is at this step",
    "todo": "to do",
    "skipped": "skipped",
}


class DetailItem(Item, Protocol):
    """A step with what the detail shows beyond the tree (`tui.services.show.ChecklistLine`)."""

    @property
    def headings(self) -> tuple[tuple[str, str], ...]: ...
    @property
    def policy_order(self) -> str: ...
    @property
    def orders(self) -> tuple[str, ...]: ...


def detail_lines(item: DetailItem) -> list[str]:
    """The step's facts, one a line, in words (the glyphs of the tree spelled out)."""
    lines = [f"{item.step}  {item.title}", ""]
    phase = f"{item.phase} {item.phase_title}".strip()
    if item.phase_rule:
        phase += f" ({item.phase_rule})"
    lines.append(f"part of play: {phase}")
    for heading_id, heading_title in item.headings:
        lines.append(f"within: {heading_id} {heading_title}".rstrip())
    lines.append(f"who acts: {ACTOR_WORDS.get(item.actor, item.actor)}")
    lines.append(f"kind: {KIND_WORDS.get(item.kind, item.kind)}")
    lines.append(f"status: {STATUS_WORDS.get(item.status, item.status)}")
    if item.rules:
        lines.append(f"rules: {', '.join(item.rules)}")
    if item.orders:
        lines.append(f"orders it takes: {', '.join(item.orders)}, and done")
    for seat in item.standing:
        lines.append(f"{seat}'s standing order completes it when {seat} owes it")
    for seat in item.policy:
        lines.append(f"{seat}'s signed policy answers it when {seat} owes it")
    if item.policy_order and item.kind != "automatic":
        lines.append(f"a policy signed with `{item.policy_order}` can answer it")
    return lines


class StepDetail(Dialog[None]):
    """The step's `detail_lines`, scrollable; any of Escape, Enter or ``q`` closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter,q", "dismiss", "Close"),
    ]

    DEFAULT_CSS = """
    StepDetail {
        & > Vertical { width: 72; }
        & VerticalScroll { height: auto; max-height: 18; }
        & #step-detail-keys { color: $text-muted; }
    }
    """

    def __init__(self, item: DetailItem) -> None:
        super().__init__()
        self.lines = detail_lines(item)

    def compose(self) -> ComposeResult:
        with Vertical():
            with VerticalScroll():
                yield Static("\n".join(self.lines), markup=False, id="step-detail-lines")
            yield Label("Escape, Enter or q closes", id="step-detail-keys")
