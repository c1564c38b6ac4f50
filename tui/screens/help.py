"""The help screen (``?``): the keys of the screen below it, and what the map's glyphs mean.

Why it reads the keys from Textual instead of a hand-written table: a table drifts the day
someone adds a binding, and it cannot know what is legal *now*. `Screen.active_bindings` is
what the footer itself shows (the focused widget's bindings, then its ancestors', the
screen's and the app's, after each node's `check_action`), so the help lists exactly what a
key press would do at this moment, grouped by the node that answers it (the map, the
checklist, the log, the screen, the whole app). The hexpost widgets that are on the screen
but not focused (the checklist or the log under the map) get their keys listed too, marked
as needing the focus, because a player who does not know ``v`` exists will never focus the
log to find out.

The legends come from the same functions that draw the map (`tui.maptext.legend` with
`tui.mapstacks.stack_legend`, over the printed map of the game under the help: its
`MapSheet`, which the map widget holds) and the checklist (`tui.widgets.checklist.LEGEND`),
so the help cannot disagree with the drawing. Every marker form is explained, not only the
ones on the map now: help is read before the marks show up. A screen without a map (the
games list) gets the legend of a small made-up map of two sides, ``A`` and ``B``. Nothing
here needs colour: a monochrome terminal reads the same text.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable
from typing import ClassVar

import msgspec
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.dom import DOMNode
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import DataTable, Static

from tui.mapgeom import Detail
from tui.mapsheet import SheetIndex, cells_from_sheet
from tui.mapstacks import BATTLE, PLANNED, UNKNOWN, stack_legend
from tui.maptext import legend, map_frame
from tui.screens.text_box import TextBoxScreen
from tui.services.board import Board, HexGrid, MapCell, MapSheet, SideStyle
from tui.widgets.checklist import LEGEND as CHECKLIST_LEGEND
from tui.widgets.checklist import ChecklistTree
from tui.widgets.eventlog import EventLog
from tui.widgets.hexmap import HexMap
from tui.widgets.orders import OrdersPanel

WIDTH = 74
"""Text columns inside the help box at 80 columns (border, padding and scrollbar taken)."""

KEY_WIDTH = 12
"""The key column: wide enough for ``←/h`` or ``escape``, narrow enough to leave the text."""

WIDGET_GROUPS: tuple[tuple[type[Widget], str, str], ...] = (
    (HexMap, "map", "click a hex to move the cursor there, double click to choose it"),
    (OrdersPanel, "orders panel (o)", "no key here means anything on the map"),
    (
        ChecklistTree,
        "checklist",
        "arrows move, space opens or closes a phase, Enter: a step in full",
    ),
    (EventLog, "log", "arrows, page up/down, home and end scroll; end follows new events"),
    (DataTable, "list", "arrows move between the games"),
)
"""The widgets the help names, and what they do that no binding of theirs says (the keys
they inherit from Textual are hidden in the footer, but a player needs them)."""


# --- keys ------------------------------------------------------------------------------------


KeyLine = tuple[str, str, bool]
"""(keys as the footer shows them, what they do, whether they work right now)."""


def _own_actions(node: DOMNode) -> set[str]:
    """The actions hexpost's own classes bind on ``node``: shown even when the footer hides
    them (``r`` Refresh, the checklist's ``+``/``-``), unlike Textual's built-in ones (a
    table's cursor keys), which would bury the few that matter."""
    actions: set[str] = set()
    for cls in type(node).__mro__:
        if not cls.__module__.startswith("tui.") or "BINDINGS" not in cls.__dict__:
            continue
        for binding in cls.__dict__["BINDINGS"]:
            actions.add(binding.action if isinstance(binding, Binding) else binding[1])
    return actions


def class_bindings(node: DOMNode) -> list[Binding]:
    """Every binding ``node``'s classes declare, its own class first: what it would answer
    once focused (Textual offers the live bindings only along the focus chain)."""
    found: list[Binding] = []
    for cls in type(node).__mro__:
        found += Binding.make_bindings(cls.__dict__.get("BINDINGS", []))
    return found


def _wanted(node: DOMNode, binding: Binding) -> bool:
    if not binding.description:
        return False
    # The app's own keys (ctrl+q Quit, ctrl+p palette) are worth knowing though hidden.
    return binding.show or isinstance(node, App) or binding.action in _own_actions(node)


def _lines(app: App[object], pairs: Iterable[tuple[Binding, bool]]) -> list[KeyLine]:
    """One line per action, its keys joined (``←/h West``), in binding order."""
    keys: dict[str, list[str]] = {}
    about: dict[str, tuple[str, bool]] = {}
    for binding, enabled in pairs:
        shown = app.get_key_display(binding)
        if shown not in keys.setdefault(binding.action, []):
            keys[binding.action].append(shown)
        text = binding.description
        if binding.tooltip:
            text = f"{text}: {binding.tooltip[0].lower()}{binding.tooltip[1:]}"
        about.setdefault(binding.action, (text, enabled))
    return [("/".join(keys[action]), *about[action]) for action in keys]


def group_name(node: DOMNode) -> str:
    """Where a key comes from, in the player's words."""
    if isinstance(node, App):
        return "everywhere"
    if isinstance(node, Screen):
        return "this screen"
    for kind, name, _ in WIDGET_GROUPS:
        if isinstance(node, kind):
            return name
    return type(node).__name__.lower()


def key_groups(screen: Screen[object]) -> list[tuple[str, list[KeyLine]]]:
    """The keys that work on ``screen`` now, by where they come from (the focused widget
    first, the app last); then the keys of hexpost's unfocused widgets, ``(focused)``."""
    app = screen.app
    by_node: dict[DOMNode, list[tuple[Binding, bool]]] = {}
    focused = screen.focused
    if focused is not None and isinstance(focused, tuple(kind for kind, _, _ in WIDGET_GROUPS)):
        # Named even with no key of its own to list: its note says how to move in it.
        by_node[focused] = []
    for active in screen.active_bindings.values():
        if _wanted(active.node, active.binding):
            by_node.setdefault(active.node, []).append((active.binding, active.enabled))
    groups = [(group_name(node), _lines(app, pairs)) for node, pairs in by_node.items()]
    chain = set(by_node)
    if focused is not None:
        chain.update(focused.ancestors_with_self)
    for kind, name, _ in WIDGET_GROUPS[:-1]:  # the games list's table is on no game screen
        for widget in screen.query(kind):
            if widget in chain:
                continue
            pairs = [(b, True) for b in class_bindings(widget) if _wanted(widget, b)]
            if pairs:
                groups.append((f"{name}, when it has the focus", _lines(app, pairs)))
    return groups


def key_text(screen: Screen[object], width: int = WIDTH) -> list[str]:
    """`key_groups` as lines: a heading per group, then ``key  what it does``; a key that is
    bound but cannot act now (a sync already running) says so."""
    lines: list[str] = []
    notes = {name: note for _, name, note in WIDGET_GROUPS}
    for name, entries in key_groups(screen):
        lines.append(f"{name.capitalize()}:")
        for keys, text, enabled in entries:
            lines += textwrap.wrap(
                text if enabled else f"(not now) {text}",
                width,
                initial_indent=f"  {keys:<{KEY_WIDTH}} ",
                subsequent_indent=" " * (KEY_WIDTH + 3),
            )
        note = notes.get(name)
        if note:
            lines += textwrap.wrap(
                f"also: {note}", width, initial_indent="  ", subsequent_indent="    "
            )
    return lines


# --- legends ---------------------------------------------------------------------------------


EXAMPLE_SHEET = MapSheet(
    HexGrid(4, 2),
    (SideStyle("A", "Side A", "side A", "A"), SideStyle("B", "Side B", "side B", "B")),
    (
        MapCell("0101", "A", features=("capital", "major-planet", "base")),
        MapCell("0102", "A", features=("major-planet",)),
        MapCell("0201", "A", features=("minor-planet",)),
        MapCell("0202", zone="neutral", features=("minor-planet",)),
        MapCell("0301", "B", features=("base",)),
        MapCell("0302", "B"),
    ),
)
"""The map the legend explains on a screen without one: every glyph, two sides."""


def map_legend(
    sheet: MapSheet | None = None,
    board: Board | None = None,
    detail: Detail = "compact",
    width: int = WIDTH,
) -> tuple[str, ...]:
    """What every glyph of ``sheet``'s map means (`EXAMPLE_SHEET`'s without one): owners,
    planets, bases, every form of stack marker, the cursor and the marks of where an order
    may go. The markers' examples use
    the first two sides of ``board`` (the game's, in its order: the tutorial's Klingons and
    Kzintis), else of the sheet."""
    index = SheetIndex(sheet if sheet is not None else EXAMPLE_SHEET)
    owners = index.owners
    order = [side.id for side in board.sides] if board is not None else []
    order += [side.id for side in index.sheet.sides]
    glyphs = list(dict.fromkeys(index.glyphs[s] for s in order if s in index.glyphs))
    a, b = [*glyphs, UNKNOWN, UNKNOWN][:2]
    examples = [f"{a}3", f"{a}+*", f"{a}{b}", f"{a}{b}+", f"{a}2*", f"{a}2!", f"{a}2&"]
    examples += [f"{a}{b}{BATTLE}", f"{a}3{PLANNED}", PLANNED]
    frame = map_frame(index.grid, detail=detail)
    first, second = (frame.hexes() * 2)[:2]
    # One hex captured by the second example side, so the lower-case captor is explained.
    captor = next((side for side, glyph in index.glyphs.items() if glyph == b), None)
    captured = {second: captor} if captor is not None else {}
    cell_for = cells_from_sheet(index, {first: examples[0]}, captured=captured)
    cells = [cell for h in frame.hexes() if (cell := cell_for(h)) is not None]
    # One selected cell and one target so the legend explains the brackets and braces too.
    cells[0] = msgspec.structs.replace(cells[0], selected=True)
    cells[-1] = msgspec.structs.replace(cells[-1], target=True)
    units = stack_legend(examples, owners)
    odd_high = index.grid.odd_high
    return tuple(legend(cells, owners, detail=detail, width=width, units=units, odd_high=odd_high))


def checklist_legend(width: int = WIDTH) -> list[str]:
    """`tui.widgets.checklist.LEGEND`, one kind of mark per line (its parts are three spaces
    apart)."""
    lines: list[str] = []
    for part in CHECKLIST_LEGEND.split("   "):
        lines += textwrap.wrap(part.strip(), width, initial_indent="  ", subsequent_indent="  ")
    return lines


# --- the screen ------------------------------------------------------------------------------


class HelpScreen(TextBoxScreen):
    """Help for ``under``, the screen it was opened from: its keys, then the legends.

    Everything is read when the screen is built, while ``under`` still has its focus (a
    modal screen on top takes it away), and shown as plain text (``markup=False``: the
    checklist's ``[x]`` marks are not markup). Escape, ``?`` or ``q`` closes it; the arrows
    and page keys scroll.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "close", "Close", show=False),
    ]

    DEFAULT_CSS = """
    HelpScreen .help-title {
        text-style: bold underline;
        margin-top: 1;
    }
    """

    def __init__(self, under: Screen[object]) -> None:
        super().__init__(id="help-screen")
        self.keys = key_text(under)
        """The key lines, read from ``under`` at once (see the class docstring)."""
        hexmap = next(iter(under.query(HexMap)), None)
        self.detail: Detail = hexmap.detail if hexmap is not None else "compact"
        self.map_text = map_legend(
            hexmap.sheet if hexmap is not None else None,
            hexmap.board if hexmap is not None else None,
            self.detail,
        )
        """The map's legend, read from ``under``'s map at once, like the keys."""

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help", classes="text-box") as box:
            box.border_title = "Help: keys and marks"
            box.border_subtitle = "escape, ? or q closes"
            yield Static("Keys", classes="help-title")
            yield Static("\n".join(self.keys) or "(no keys)", id="help-keys", markup=False)
            yield Static("The map", classes="help-title")
            yield Static("\n".join(self.map_text), id="help-map", markup=False)
            yield Static("The checklist", classes="help-title")
            yield Static("\n".join(checklist_legend()), id="help-checklist", markup=False)

    @property
    def text(self) -> str:
        """Everything the screen says, as plain text (for tests and for reading aloud)."""
        return "\n".join(str(s.content) for s in self.query(Static))
