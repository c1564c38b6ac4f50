"""Keys typed ahead of a screen change are read by the screen on top when they are read.

Textual routes each key, as the app reads it, to the widget focused at that moment; the key
then bubbles back up to the app, which looks for a binding along the focus chain of the
screen on top *then*. When a key opens a screen (``g`` the map's go-to dialog, ``S`` the send
confirmation), the keys typed right after it (``1105`` and Enter) were routed before the new
screen was there: the map ignored the digits, and Enter, bubbling up, pressed the dialog's
Enter on an empty field. A player typing quickly over SSH sends such bursts, and tmux's
``send-keys`` always does.

`TypeAhead` remembers the screen each key was routed on. A key that comes back up to the app
unhandled while another screen is on top was typed for that screen: the app reads it again
(`HexpostApp.on_event`), after the keys already waiting, and routes it to the screen on top.
Keys a widget of the old screen handled (stopped) never come back and are not read again.
"""

from __future__ import annotations

from textual import events

LIMIT = 64
"""Keys remembered at most: those a widget handled never come back to be forgotten."""


class TypeAhead:
    """The screen each key the app routed was routed on, until the key comes back."""

    def __init__(self) -> None:
        self._routed: dict[int, tuple[events.Key, object]] = {}
        """By the key event's id: the event (held, so that its id is not reused while it is
        remembered) and the screen it was routed on."""

    def routed(self, key: events.Key, screen: object) -> None:
        """``key`` is being routed on ``screen``."""
        self._routed[id(key)] = (key, screen)
        while len(self._routed) > LIMIT:
            del self._routed[next(iter(self._routed))]

    def typed_for_another(self, key: events.Key, screen: object) -> bool:
        """Whether ``key``, back at the app unhandled, was routed on another screen than
        ``screen`` (the one on top now): if so the app should read it again."""
        found = self._routed.pop(id(key), None)
        return found is not None and found[0] is key and found[1] is not screen
