"""Textual's footer, built again only when the keys it shows change.

Textual's `Footer` throws its keys away and builds them anew after every change of the
screen's bindings: each focus change, each ``refresh_bindings``, however many arrive before
the next frame. Opening a game sent five such signals before the first paint, and the footer
was built three times, its keys styled twice each time (issue 16, item 5); moving the focus
during play rebuilt it for the same keys. `KeysFooter` remembers what its last build showed
(every active binding, whether it is enabled, its tooltip) and builds again, once per frame
at most, only when that changed.

A screen whose bindings are settled when it adds the footer (the game screen, after its first
paint: `tui.screens.base.FooterSpace`) builds it ``ready``: its keys are composed as it
mounts, not a frame or two later when the screen next signals its bindings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widgets import Footer

if TYPE_CHECKING:
    from textual.app import ComposeResult
    from textual.screen import Screen

    Shown = tuple[tuple[object, bool, str], ...]


class KeysFooter(Footer):
    """A `Footer` that is recomposed only when the bindings it would show changed;
    ``ready``: the screen's bindings are settled, show them as soon as it is mounted."""

    _shown: Shown | None = None
    """The bindings of the last build (None: no build with bindings yet)."""
    _due = False
    """A build is scheduled for after the next refresh."""

    def __init__(
        self, *, compact: bool = False, show_command_palette: bool = True, ready: bool = False
    ) -> None:
        super().__init__(compact=compact, show_command_palette=show_command_palette)
        if ready:
            self.set_reactive(Footer._bindings_ready, True)

    def _bindings_now(self) -> Shown:
        active = self.screen.active_bindings.values()
        return tuple((binding, enabled, tooltip) for _, binding, enabled, tooltip in active)

    def compose(self) -> ComposeResult:
        self._shown = self._bindings_now() if self._bindings_ready else None
        yield from super().compose()

    def bindings_changed(self, screen: Screen[object]) -> None:
        # As `Footer.bindings_changed`, with the comparison and one pending build at most.
        self._bindings_ready = True
        if not screen.app.app_focus or not self.is_attached or screen is not self.screen:
            return
        if self._due or self._bindings_now() == self._shown:
            return
        self._due = True
        self.call_after_refresh(self._rebuild)

    async def _rebuild(self) -> None:
        self._due = False
        if self.is_attached and self._bindings_now() != self._shown:
            await self.recompose()
