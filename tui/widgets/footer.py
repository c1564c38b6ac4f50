"""The screen's keys on the last line, drawn as one line of text.

Textual's `Footer` is a container of one widget per key, rebuilt (``recompose``) after the
frame in which the screen's bindings change. A change of focus (``c``, ``o``, ``tab``)
therefore showed its new keys a frame after the rest of the screen, and the rebuild of some
ten widgets cost 20-30 ms (issue 16, item 5). `KeysFooter` is one widget: when the screen
signals its bindings it reads them at once, and if what it shows changed it redraws its one
line in the same frame as the change that caused it (well under a millisecond). A mouse
press is mapped to its key by column, as the footer's keys did.

It shows what Textual's compact footer shows, in its colours (the ``$footer-*`` theme
variables): each key with its description, grouped bindings (`Binding.Group`) as their keys
and the group's description, disabled keys dimmed, the key under the mouse highlighted with
its tooltip, and optionally the command palette's key at the right end. Keys that do not fit
are cut off at the right; the mouse wheel scrolls the line sideways (``?`` lists every key).
"""

from __future__ import annotations

from itertools import groupby
from typing import TYPE_CHECKING, ClassVar, NamedTuple

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip
from textual.widget import Widget

if TYPE_CHECKING:
    from textual import events
    from textual.binding import Binding
    from textual.screen import Screen


class Key(NamedTuple):
    """One key as the footer shows it."""

    key: str
    """The key pressed when it is clicked (the binding's first key)."""
    display: str
    """How the key is written (``^p``, ``⏎``)."""
    description: str
    """What it does ("" for a key of a group: the group's label says it)."""
    enabled: bool
    """False: shown dimmed, and a click rings the bell."""
    tooltip: str
    """Shown while the mouse is over it."""
    margin: tuple[int, int]
    """Blank cells before and after it."""


class Label(NamedTuple):
    """A group's description, after its keys."""

    text: str


Shown = tuple[tuple[Key | Label, ...], Key | None]
"""What the footer shows: its pieces from the left, and the palette's key at the right end."""

Span = tuple[int, int, Key]
"""Where a key is drawn: its first column, the column after it, and the key."""


class KeysFooter(Widget, can_focus=False):
    """The active bindings of the screen, on one line docked at its bottom."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "keys-footer--key",
        "keys-footer--description",
        "keys-footer--item",
        "keys-footer--hover",
        "keys-footer--border",
    }
    DEFAULT_CSS = """
    KeysFooter {
        dock: bottom;
        height: 1;
        color: $footer-foreground;
        background: $footer-background;
        & > .keys-footer--item {
            background: $footer-item-background;
        }
        & > .keys-footer--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        & > .keys-footer--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        & > .keys-footer--hover {
            color: $footer-key-foreground;
            background: $block-hover-background;
        }
        & > .keys-footer--border {
            color: $foreground 20%;
        }
    }
    """

    def __init__(self, *, show_command_palette: bool = True) -> None:
        super().__init__()
        self.show_command_palette = show_command_palette
        self._shown: Shown | None = None
        """What the line shows (None: read the bindings when it is next drawn)."""
        self._strip: tuple[tuple[Shown, int, int, Key | None], Strip, list[Span]] | None = None
        """The last line drawn, for its (shown, width, offset, hovered key), and its keys'
        columns."""
        self._hovered: Key | None = None
        """The key under the mouse."""
        self._offset = 0
        """Cells scrolled off at the left (by the mouse wheel)."""

    # What it shows

    def shown_now(self) -> Shown:
        """The pieces the screen's active bindings give, as Textual's footer groups them:
        the first binding of each action, consecutive actions of one group together."""
        active = self.screen.active_bindings
        by_action: dict[str, list[tuple[Binding, bool, str]]] = {}
        for _, binding, enabled, tooltip in active.values():
            if binding.show:
                by_action.setdefault(binding.action, []).append((binding, enabled, tooltip))
        firsts = [found[0] for found in by_action.values()]
        pieces: list[Key | Label] = []
        for group, members in groupby(firsts, lambda first: first[0].group):
            grouped = list(members)
            if group is not None and len(grouped) > 1:
                for n, (binding, enabled, tooltip) in enumerate(grouped):
                    if group.compact:
                        margin = (1 if n == 0 else 0, 1 if n == len(grouped) - 1 else 0)
                    else:
                        margin = (1, 1)
                    pieces.append(self._key(binding, enabled, tooltip or binding.description,
                                            "", margin))  # fmt: skip
                pieces.append(Label(group.description))
                continue
            for binding, enabled, tooltip in grouped:
                pieces.append(self._key(binding, enabled, tooltip, binding.description, (0, 1)))
        palette = None
        if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE:
            found = active.get(self.app.COMMAND_PALETTE_BINDING)
            if found is not None:
                _, binding, enabled, _ = found
                tip = binding.tooltip or binding.description
                palette = self._key(binding, enabled, tip, binding.description, (0, 1))
        return tuple(pieces), palette

    def _key(
        self,
        binding: Binding,
        enabled: bool,
        tooltip: str,
        description: str,
        margin: tuple[int, int],
    ) -> Key:
        key = binding.key.split(",")[0].strip()
        return Key(key, self.app.get_key_display(binding), description, enabled, tooltip, margin)

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self.bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def bindings_changed(self, screen: Screen[object]) -> None:
        """Read the bindings now, and redraw in this frame only if what is shown changed."""
        if not screen.app.app_focus or not self.is_attached or screen is not self.screen:
            return
        shown = self.shown_now()
        if shown != self._shown:
            self._shown = shown
            self.refresh()

    # Drawing

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strip = None  # a new theme: new colours

    def render_line(self, y: int) -> Strip:
        if y != 0:
            return Strip.blank(self.size.width, self.rich_style)
        return self._line()[0]

    def _line(self) -> tuple[Strip, list[Span]]:
        if self._shown is None:
            self._shown = self.shown_now()
        width = self.size.width
        hovered = self._hovered
        cache_key = (self._shown, width, self._offset, hovered)
        if self._strip is not None and self._strip[0] == cache_key:
            return self._strip[1], self._strip[2]
        strip, spans = self._draw(self._shown, width, hovered)
        # Kept under the offset as drawn (`_draw` keeps it within the line), so the next
        # reading finds it.
        self._strip = ((self._shown, width, self._offset, hovered), strip, spans)
        return strip, spans

    def _draw(self, shown: Shown, width: int, hovered: Key | None) -> tuple[Strip, list[Span]]:
        pieces, palette = shown
        base = self.rich_style
        segments: list[Segment] = []
        spans: list[Span] = []
        column = 0
        for piece in pieces:
            if isinstance(piece, Label):
                text = piece.text
                segments.append(Segment(text, self._style("keys-footer--description")))
                column += cell_len(text)
                continue
            drawn = self._key_segments(piece, base, piece == hovered)
            segments.extend(drawn)
            size = sum(cell_len(s.text) for s in drawn)
            before, _ = piece.margin
            spans.append((column + before, column + size - piece.margin[1], piece))
            column += size
        line = Strip(segments, column)
        tail = Strip([])
        if palette is not None:
            drawn = self._key_segments(palette, base, palette == hovered)
            border = Segment("▏", self._style("keys-footer--border"))
            tail = Strip([border, *drawn])
        room = max(0, width - tail.cell_length)
        offset = self._offset = min(self._offset, max(0, column - room))
        line = line.crop(offset, offset + room).extend_cell_length(room, base)
        # Only what shows can be clicked: a key cut by the edge, or scrolled, in part.
        spans = [
            (max(0, a - offset), min(room, b - offset), key)
            for a, b, key in spans
            if a - offset < room and b - offset > 0
        ]
        if palette is not None:  # after the border, up to the margin after the key
            spans.append((room + 1, room + tail.cell_length - palette.margin[1], palette))
            line = Strip.join([line, tail]).crop(0, width)
        return line.simplify(), spans

    def _key_segments(self, key: Key, base: Style, hovered: bool) -> list[Segment]:
        """A key as Textual's compact footer draws it: its margins in the footer's style,
        the key and its description over the item's (or the hover's) background."""
        item = self._style("keys-footer--hover" if hovered else "keys-footer--item")
        key_style = item + self._partial("keys-footer--key")
        text_style = item + self._partial("keys-footer--description")
        if not key.enabled:
            key_style += Style(dim=True)
            text_style += Style(dim=True)
        before, after = key.margin
        out = [Segment(" " * before, base)] if before else []
        out.append(Segment(key.display, key_style))
        if key.description:
            out.append(Segment(" " + key.description, text_style))
        if after:
            out.append(Segment(" " * after, base))
        return out

    def _style(self, component: str) -> Style:
        return self.get_component_rich_style(component)

    def _partial(self, component: str) -> Style:
        return self.get_component_rich_style(component, partial=True)

    # The mouse

    def _key_at(self, x: int) -> Key | None:
        for start, end, key in self._line()[1]:
            if start <= x < end:
                return key
        return None

    def on_mouse_move(self, event: events.MouseMove) -> None:
        self._hover(self._key_at(event.x))

    def on_leave(self, event: events.Leave) -> None:
        self._hover(None)

    def _hover(self, key: Key | None) -> None:
        if key == self._hovered:
            return
        self._hovered = key
        self.tooltip = (key.tooltip or None) if key is not None else None
        self.refresh()

    def on_mouse_down(self, event: events.MouseDown) -> None:
        key = self._key_at(event.x)
        if key is None:
            return
        if key.enabled:
            self.app.simulate_key(key.key)
        else:
            self.app.bell()

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        self._scroll(4, event)

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        self._scroll(-4, event)

    def _scroll(self, by: int, event: events.MouseEvent) -> None:
        event.stop()
        offset = max(0, self._offset + by)
        if offset != self._offset:
            self._offset = offset  # `_draw` keeps it within the line
            self.refresh()
