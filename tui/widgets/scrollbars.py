"""A scroll's scrollbars decided when its content changes, not in the layout after.

Textual decides whether a widget with ``overflow: auto`` shows its scrollbars while laying
it out, from its virtual size. When new content changes the virtual size, the layout it asks
for finds that a scrollbar must come or go, and that change asks for a second layout: the
screen shows the new content in one repaint and the scrollbar a frame later (issue 16, item
5: a review step, the review's first map). `settle_scrollbars` applies Textual's own rule at
once, so the layout the new size asks for already has the scrollbars it will keep.
"""

from __future__ import annotations

from textual.geometry import Size
from textual.widget import Widget


def settle_scrollbars(widget: Widget, content: Size | None = None) -> None:
    """Show or hide ``widget``'s scrollbars for its current virtual size (or ``content``, the
    size of what it holds where the caller knows it first: a container's, which Textual
    measures in the layout), as Textual's layout will; nothing on an axis whose overflow is
    not auto.

    Before its first layout a widget has no size, and only a scrollbar its content makes
    certain is shown: content larger than the whole screen on an axis overflows whatever
    part of the screen the layout gives the widget (a map shown before a screen's first
    paint). The rest is left to that layout."""
    styles = widget.styles
    virtual = widget.virtual_size if content is None else content
    auto_x, auto_y = styles.overflow_x == "auto", styles.overflow_y == "auto"
    width, height = widget.container_size
    if not width or not height:
        if widget.is_attached:
            screen = widget.app.size
            if auto_x and virtual.width > screen.width:
                widget.show_horizontal_scrollbar = True
            if auto_y and virtual.height > screen.height:
                widget.show_vertical_scrollbar = True
        return
    across = virtual.width > width
    down = virtual.height > height
    # One scrollbar takes room from the other axis (Textual's rule in `_refresh_scrollbars`).
    if auto_x and down and not across:
        across = virtual.width > width - styles.scrollbar_size_vertical
    if auto_y and across and not down:
        down = virtual.height > height - styles.scrollbar_size_horizontal
    if auto_x:
        widget.show_horizontal_scrollbar = across
    if auto_y:
        widget.show_vertical_scrollbar = down
