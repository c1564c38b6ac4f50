"""The sequence of play as a collapsible checklist: phases, then their steps, with where we are.

F&E's turn is long (about 190 steps in ten phases, plus the set-up and the optional Orion
phase), so a flat list would bury the one line that matters. The tree folds each phase into
one line with its progress and opens the phase of the current step, so a player in an 80x24
terminal sees where the game stands, what is done and what comes next at a glance.

The widget only shows data: `ChecklistTree.show_items` takes the checklist rows as
``hexpost show GAME --json --checklist`` prints them (``step``, ``title``, ``phase``,
``actor``, ``kind``, ``rules``, ``status``, ``phase_title``, ``phase_rule``), never the
engine's objects, so any ruleset with a sequence of play gets its checklist drawn; selecting
a step posts `ChecklistTree.StepSelected` for the app to act on. Refreshing it after every
packet is cheap and keeps what the player opened.

Every line reads in monochrome; colour and text style only repeat what the glyphs say::

    ▼ [>]  3 Operations  (105.0)  12/49        a phase: its status, id, title, rule, progress
        [x] 3A-6D  M P  Deploy battle forces...  a step: status, id, kind, who acts, title
        [>] 3B2    D P  Operational movement...

Status: ``[x]`` done, ``[>]`` current, ``[ ]`` to do, ``[-]`` skipped (obsolete).
Kind: ``A`` automatic (the engine does it), ``D`` decision (orders the engine checks),
``S`` secret (committed, then revealed), ``M`` manual (players' bookkeeping).
Who acts: ``P`` phasing, ``N`` non-phasing, ``B`` both, ``-`` nobody; or the seat names
when the app passes them for the current player turn.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar, Protocol

from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.widgets import Tree
from textual.widgets.tree import NodeID, TreeNode

STATUS_MARKS: Mapping[str, str] = {"done": "[x]", "current": "[>]", "todo": "[ ]", "skipped": "[-]"}
"""Checklist status -> the mark at the start of a line."""
STATUS_NAMES: Mapping[str, str] = {"todo": "to do"}
"""Checklist status -> its words (as the legend says them), where they differ from it."""
KIND_MARKS: Mapping[str, str] = {"automatic": "A", "decision": "D", "secret": "S", "manual": "M"}
"""Step kind -> one letter: letters survive any terminal, font and colour scheme."""
STANDING_MARK = "(standing)"
"""Ends the line of a step a standing order covers, before the seats whose order it is."""
POLICY_MARK = "(policy)"
"""Ends the line of a step a signed policy answers, before the seats whose policy it is."""
DRAFTING_MARK = "(your drafts)"
"""Ends the line of the later step the player's unsigned drafts run on to and go on at
(`ChecklistTree.mark_drafting`): the game's current step is still the one marked ``[>]``."""
ACTOR_MARKS: Mapping[str, str] = {"phasing": "P", "non-phasing": "N", "both": "B", "nobody": "-"}
"""Who acts -> one letter, when no seat names are given."""
LEGEND = (
    "[x] done  [>] current  [ ] to do  [-] skipped   "
    "A automatic  D decision  S secret  M manual   "
    "P phasing  N non-phasing  B both  - nobody   "
    f"{STANDING_MARK} SEAT its standing order completes the step  "
    f"{POLICY_MARK} SEAT its signed policy answers it   "
    f"{DRAFTING_MARK} the later step your unsigned drafts go on at"
)
"""The key to the glyphs, for a help screen or a footer."""

STEP_WIDTH = 6
"""Step ids are at most six characters (``5-4A7A``); padding keeps the titles in a column."""


class Item(Protocol):
    """One step as the checklist shows it (`tui.services.show.ChecklistLine` is one): named
    here by what it has, so the widget needs neither the services nor the engine."""

    @property
    def step(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def phase(self) -> str: ...
    @property
    def actor(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def status(self) -> str:
        """``done``, ``current``, ``todo`` or ``skipped``."""
        ...

    @property
    def phase_title(self) -> str: ...
    @property
    def phase_rule(self) -> str: ...
    @property
    def rules(self) -> tuple[str, ...]: ...
    @property
    def standing(self) -> tuple[str, ...]:
        """The seats whose standing order completes the step."""
        ...

    @property
    def policy(self) -> tuple[str, ...]:
        """The seats whose signed policy answers the step."""
        ...


class ChecklistTree(Tree[str]):
    """The sequence of play: phases (collapsible) and their steps, the current step marked.

    Step nodes carry their step id as ``data``; phase nodes carry none. Feed it with
    `show_items`; listen for `ChecklistTree.StepSelected`.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "reveal_current", "Current step"),
        Binding("plus", "expand_all", "Open all phases", show=False),
        Binding("minus", "collapse_others", "Close other phases", show=False),
    ]
    """``c`` goes back to the current step; ``+`` opens every phase; ``-`` closes all but the
    current step's phase. Tree's own keys stay: arrows move, space opens or closes a phase,
    enter selects a step."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "checklist--current",
        "checklist--done",
        "checklist--skipped",
        "checklist--phase",
    }
    """Styles for current, done and skipped steps and for phase lines (the cursor's style
    is laid over them)."""

    DEFAULT_CSS = """
    ChecklistTree {
        & > .checklist--current { text-style: bold; color: $accent; }
        & > .checklist--done { text-style: dim; }
        & > .checklist--skipped { text-style: dim italic; }
        & > .checklist--phase { text-style: bold; }
    }
    """

    class StepSelected(Message):
        """The player chose a step (enter or click): the app may show its rules or orders."""

        def __init__(self, step_id: str, tree: ChecklistTree | None = None) -> None:
            super().__init__()
            self.step_id = step_id
            """The chosen step's id, e.g. ``"3B2"``."""
            self.tree = tree

        @property
        def control(self) -> ChecklistTree | None:
            """The tree that posted it, so ``@on(..., "#id")`` selectors work."""
            return self.tree

    def __init__(
        self,
        label: str = "Sequence of play",
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
        disabled: bool = False,
    ) -> None:
        super().__init__(Text(label), name=name, id=id, classes=classes, disabled=disabled)
        self.set_reactive(Tree.show_root, False)  # phases are the top level
        self._reveal_due: TreeNode[str] | None = None
        """The step `action_reveal_current` scrolls to once the tree has a height."""
        self._phase_nodes: dict[str, TreeNode[str]] = {}
        self._step_nodes: dict[str, TreeNode[str]] = {}
        self._styles: dict[NodeID, str] = {}
        """Node -> component class of its status, read when a line is drawn."""
        self._shape: tuple[tuple[str, str], ...] = ()
        """(phase, step) pairs of the last items: the same shape means labels change only."""
        self._current: str | None = None
        self._items: Sequence[Item] = ()
        self._seats: Mapping[str, str] | None = None
        self._drafting: str | None = None

    # --- data in ----------------------------------------------------------------------------

    @property
    def current_step(self) -> str | None:
        """The id of the step marked current in the last items, if any."""
        return self._current

    def step_node(self, step_id: str) -> TreeNode[str] | None:
        return self._step_nodes.get(step_id)

    def phase_node(self, phase_id: str) -> TreeNode[str] | None:
        return self._phase_nodes.get(phase_id)

    def show_items(self, items: Sequence[Item], seats: Mapping[str, str] | None = None) -> None:
        """Show the checklist ``items`` (in play order) grouped by phase.

        Each item names its phase, and may give the phase's title and rule number
        (``phase_title``, ``phase_rule``: the first item of a phase that has them wins; a
        phase without a title is called by its id). ``seats`` maps the roles (``phasing``,
        ``non-phasing``, maybe ``both``) to seat names for this player turn, shown instead
        of the role letters.

        Phases the player opened or closed stay so. When the current step has moved (or on
        the first call) its phase opens and the cursor jumps to it; otherwise the cursor stays
        where the player left it, so a refresh never yanks them away while reading.
        """
        phases = _by_phase(items)
        self._items, self._seats = items, seats
        shape = tuple((item.phase, item.step) for item in items)
        current = next((i.step for i in items if i.status == "current"), None)
        labels = self._labels(phases)
        if shape != self._shape:
            self._rebuild(phases, labels)
            self._shape = shape
        else:
            self._relabel(labels)
        moved = current != self._current
        self._current = current
        if moved and current is not None:
            self.action_reveal_current()

    def mark_drafting(self, step_id: str | None) -> None:
        """Mark ``step_id`` as the step the player's unsigned drafts run on to (the orders
        panel offers its orders), or no step: only labels change, the cursor stays."""
        if step_id == self._drafting:
            return
        self._drafting = step_id
        if self._items:
            self._relabel(self._labels(_by_phase(self._items)))

    def _labels(self, phases: Mapping[str, Sequence[Item]]) -> dict[str, tuple[Text, str]]:
        """Node key (a step id, or ``phase:`` and its id) -> its label and style."""
        actors = _actor_texts(self._items, self._seats)
        labels: dict[str, tuple[Text, str]] = {}
        for phase_id, steps in phases.items():
            title = next((i.phase_title for i in steps if i.phase_title), f"Phase {phase_id}")
            rule = next((i.phase_rule for i in steps if i.phase_rule), "")
            labels[f"phase:{phase_id}"] = _phase_label(phase_id, title, rule, steps)
            for item in steps:
                labels[item.step] = _step_label(item, actors, drafting=item.step == self._drafting)
        return labels

    def _rebuild(
        self, phases: Mapping[str, Sequence[Item]], labels: dict[str, tuple[Text, str]]
    ) -> None:
        """Build the nodes anew, opening the phases that were open before."""
        opened = {pid for pid, node in self._phase_nodes.items() if node.is_expanded}
        cursor = self.cursor_node
        cursor_key = self._key_of(cursor) if cursor is not None else None
        self.clear()
        self._phase_nodes.clear()
        self._step_nodes.clear()
        self._styles.clear()
        for phase_id, steps in phases.items():
            label, style = labels[f"phase:{phase_id}"]
            phase = self.root.add(label, expand=phase_id in opened)
            self._phase_nodes[phase_id] = phase
            self._styles[phase.id] = style
            for item in steps:
                step_id = item.step
                label, style = labels[step_id]
                node = phase.add_leaf(label, data=step_id)
                self._step_nodes[step_id] = node
                self._styles[node.id] = style
        self._lay_out_lines()
        target = self._node_of(cursor_key) if cursor_key else None
        self.move_cursor(target if target is not None and target.line >= 0 else None)

    def _relabel(self, labels: dict[str, tuple[Text, str]]) -> None:
        """Same steps as before: change only the labels that differ."""
        for key, (label, style) in labels.items():
            node = self._node_of(key)
            if node is None:
                continue
            self._styles[node.id] = style
            if not isinstance(node.label, Text) or node.label.plain != label.plain:
                node.set_label(label)

    def _key_of(self, node: TreeNode[str]) -> str | None:
        if node.data is not None:
            return node.data
        return next((f"phase:{p}" for p, n in self._phase_nodes.items() if n is node), None)

    def _node_of(self, key: str) -> TreeNode[str] | None:
        if key.startswith("phase:"):
            return self._phase_nodes.get(key.removeprefix("phase:"))
        return self._step_nodes.get(key)

    def _lay_out_lines(self) -> None:
        """Have the tree number its visible lines now (it does so lazily on the next paint),
        so that ``node.line`` is right for moving the cursor straight after a change."""
        _ = self.last_line

    # --- drawing ----------------------------------------------------------------------------

    def render_label(self, node: TreeNode[str], base_style: Style, style: Style) -> Text:
        """The status style under the cursor's (so the cursor still shows on any line)."""
        component = self._styles.get(node.id)
        if component and self.is_mounted:  # no CSS yet before mounting: plain widths only
            style = self.get_component_rich_style(component, partial=True) + style
        return super().render_label(node, base_style, style)

    # --- actions and messages ---------------------------------------------------------------

    def action_reveal_current(self) -> None:
        """Open the current step's phase, put the cursor on it and scroll it into view, a
        third of the way down so that most of what is visible is still to come."""
        node = self._step_nodes.get(self._current or "")
        if node is None:
            return
        phase = node.parent
        if phase is not None and not phase.is_expanded:
            phase.expand()
        self._lay_out_lines()
        self.move_cursor(node)
        self._reveal_due = node
        if self.display and self.scrollable_content_region.height:
            self._scroll_near_top()

    def _scroll_near_top(self) -> None:
        """Scroll the step `action_reveal_current` asked for to a third of the way down, at
        once: the repaint that shows the tree shows it there. (Left for after that repaint,
        Textual's default, the tree showed its top first and the step a frame later.)"""
        node, self._reveal_due = self._reveal_due, None
        if node is not None and node.line >= 0:
            height = self.scrollable_content_region.height
            self.scroll_to(y=max(0, node.line - height // 3), animate=False, immediate=True)

    def _size_updated(
        self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
    ) -> bool:
        """Textual's hook for a new size, in the layout before its paint: a tree just shown
        (by ``c``) learns its height here, and the step due is scrolled to in that paint."""
        resized = super()._size_updated(size, virtual_size, container_size, layout)
        if self._reveal_due is not None and self.scrollable_content_region.height:
            self._scroll_near_top()
        return resized

    def action_expand_all(self) -> None:
        for phase in self._phase_nodes.values():
            phase.expand()

    def action_collapse_others(self) -> None:
        current = self._step_nodes.get(self._current or "")
        keep = current.parent if current is not None else None
        for phase in self._phase_nodes.values():
            if phase is not keep:
                phase.collapse()
        if current is not None:
            self.action_reveal_current()
        else:
            self._lay_out_lines()
            self.move_cursor(next(iter(self._phase_nodes.values()), None))

    def on_tree_node_selected(self, event: Tree.NodeSelected[str]) -> None:
        """Turn the tree's selection of a step line into our own message (phases only open
        and close, which the tree already does)."""
        if event.node.data is not None and event.node.tree is self:
            self.post_message(self.StepSelected(event.node.data, self))


def _actor_texts(items: Sequence[Item], seats: Mapping[str, str] | None) -> dict[str, str]:
    """Role -> the text shown for it, padded to one width so the titles line up."""
    roles = {item.actor for item in items}
    if seats:
        spelled = {"both": "both", "nobody": "-"}
        texts = {r: seats.get(r) or spelled.get(r) or ACTOR_MARKS.get(r, "?") for r in roles}
    else:
        texts = {r: ACTOR_MARKS.get(r, "?") for r in roles}
    width = max((len(t) for t in texts.values()), default=1)
    return {role: text.ljust(width) for role, text in texts.items()}


def _by_phase(items: Sequence[Item]) -> dict[str, list[Item]]:
    """Phase id -> its items, both in play order."""
    phases: dict[str, list[Item]] = {}
    for item in items:
        phases.setdefault(item.phase, []).append(item)
    return phases


def _step_label(
    item: Item, actors: Mapping[str, str], *, drafting: bool = False
) -> tuple[Text, str]:
    status = item.status
    mark = STATUS_MARKS.get(status, "[?]")
    kind = KIND_MARKS.get(item.kind, "?")
    # A step some seat's standing order completes, or its policy answers, is marked in words,
    # not by colour alone.
    # The drafts' mark first: it is about the moment, and a narrow panel cuts the line's end.
    standing = f"  {DRAFTING_MARK}" if drafting else ""
    standing += f"  {STANDING_MARK} {', '.join(item.standing)}" if item.standing else ""
    standing += f"  {POLICY_MARK} {', '.join(item.policy)}" if item.policy else ""
    label = Text.assemble(
        mark,
        " ",
        item.step.ljust(STEP_WIDTH),
        " ",
        kind,
        " ",
        actors[item.actor],
        "  ",
        item.title,
        standing,
    )
    return label, _STATUS_STYLES.get(status, "")


def step_words(item: Item) -> str:
    """One step in a line, for the status line when it is chosen, in the order of what the
    tree shows least: its id and whole title, whose standing order and whose policy answer
    it (marks a narrow panel cuts), its rules, then who acts, its kind and status in words
    (the tree's letters): at 80 columns the line's end is what is lost."""
    parts = [
        " and ".join(seat + "'s" for seat in seats) + f" {what} it"
        for seats, what in (
            (item.standing, "standing order completes"),
            (item.policy, "policy answers"),
        )
        if seats
    ]
    if item.rules:
        parts.append(f"rules {', '.join(item.rules)}")
    parts.append(f"{item.actor}, {item.kind}, {STATUS_NAMES.get(item.status, item.status)}")
    return f"{item.step} {item.title}: {'; '.join(parts)}"


def _phase_label(
    phase_id: str, title: str, rule: str | None, steps: Sequence[Item]
) -> tuple[Text, str]:
    statuses = [item.status for item in steps]
    finished = sum(1 for s in statuses if s in ("done", "skipped"))
    if "current" in statuses:
        status = "current"
    elif statuses and all(s == "skipped" for s in statuses):
        status = "skipped"
    elif finished == len(statuses):
        status = "done"
    else:
        status = "todo"
    rule_text = f"  ({rule})" if rule else ""
    label = Text.assemble(
        STATUS_MARKS[status],
        " ",
        phase_id.rjust(2),
        " ",
        title,
        rule_text,
        f"  {finished}/{len(statuses)}",
    )
    return label, "checklist--current" if status == "current" else "checklist--phase"


_STATUS_STYLES = {
    "current": "checklist--current",
    "done": "checklist--done",
    "skipped": "checklist--skipped",
}
