"""The side panel's text about the hex under the cursor, redrawn without a layout when it can.

`Static.update` asks for a layout by default, and a layout of the game screen re-renders
every widget on it (the map, the footer, the scroll bars) in the key's frame, and a frame or
two more for the scroll bars after it (issue 16). The details fill their scroll area
(``min-height: 100%`` in app.tcss), so a hex whose details fit keeps the box's height and
only the panel's own lines are drawn again; a hex with more lines than the panel holds (a
capital's fleets) still lays the screen out, so the scroll area measures it; its scrollbar
is decided as the text is given (`settle_scrollbars`), so it comes in the same repaint.
"""

from __future__ import annotations

from textual.geometry import Size
from textual.widget import Widget
from textual.widgets import Static

from tui.widgets.scrollbars import settle_scrollbars


class HexDetails(Static):
    """A `Static` whose `show` lays out only when its height changes."""

    def show(self, text: str) -> None:
        """Show ``text``; ask for a layout only if the box's height must change."""
        before = self.content_size
        if not before.width:  # not laid out yet: nothing to compare with
            self.update(text)
            # Lines longer than the screen need the scroll's scrollbar in its first layout
            # (Textual found it there and showed it a repaint later). The lines come
            # wrapped to the width the scrollbar leaves (`tui.screens.hexinfo`).
            if isinstance(self.parent, Widget):
                settle_scrollbars(self.parent, Size(0, text.count("\n") + 1))
            return
        old = self.get_content_height(before, before, before.width)
        self.update(text, layout=False)
        new = self.get_content_height(before, before, before.width)
        box = self.size.height
        gutter = box - before.height
        if new == old or (old + gutter < box and new + gutter <= box):
            return  # the box keeps its height: content shorter than it was not its measure
        if isinstance(self.parent, Widget):
            # The scroll measures the box in the layout asked for here, and a scrollbar that
            # must come or go with it would come a repaint later: decided now, from the
            # box's new height (the lines come wrapped to the width it leaves).
            settle_scrollbars(self.parent, Size(0, new + gutter))
        self.refresh(layout=True)
