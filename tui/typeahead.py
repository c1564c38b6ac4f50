"""Keys typed ahead, in a burst, handled in order, each where the key before it left the focus.

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

`KeyOrder` covers what that does not: a key that moves the focus within one screen (Tab, or
Enter on a form's field) and the keys after it, which the old field handled itself (its
letters). It hands keys on one at a time, each once the key before it is handled, so every
key is routed where the one before it left the focus. With it the keys after ``g`` are
routed only once the dialog is up, and the keys after a dialog's Enter only once the
dialog's answer is taken (the review's ``g 5 Enter n`` ends on packet 6); `TypeAhead` stays
for a key that still comes back from a screen since covered.
"""

from __future__ import annotations

from collections import deque

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


RELEASE_SECONDS = 0.5
"""How long a key may hold back the keys typed after it, at most: a key whose handling is
not seen to end (a widget that went away with the key in its queue) lets the next go then."""

QUIET_PASSES = 8
"""Rounds of waiting, at most, for the messages a key caused to be handled before the next
key goes (`HexpostApp._quieted`): a message bubbling up a dialog's widgets takes a round per
widget; a screen that never falls quiet (a busy timer) cannot hold the keys longer."""


class KeyOrder:
    """Keys read from the terminal handed on one at a time, each once the key before it is
    handled.

    Textual routes each key, as it reads it, to the widget focused at that moment, and reads
    the next at once: in a burst (``Alice Tab alice@example.org``) the keys after Tab were
    routed to the first field while Tab still waited in that field's queue, and landed there
    when Tab then moved the focus. Here a key read while the key before it is in flight waits
    in order; once the one in flight is handled (`handled`: it went up its widget's chain of
    parents to the app and the app ran its binding, or it stopped on the way, and the
    messages it caused were handled too) and the screen on top has refreshed (a key may
    have opened a screen), the next is posted to the app again and routed then, to the
    widget focused then. Keys typed one at a time are never held: the one before has long
    been handled.
    """

    def __init__(self) -> None:
        self.in_flight: events.Key | None = None
        """The key last handed on, until it is handled."""
        self.waiting: deque[events.Key] = deque()
        """Keys read while another was in flight, in the order typed."""

    def hold(self, key: events.Key) -> bool:
        """Whether ``key``, read from the terminal, must wait: a key before it is in flight.
        If not, it is the one in flight from now on."""
        if self.in_flight is not None and self.in_flight is not key:
            self.waiting.append(key)
            return True
        self.in_flight = key
        return False

    def handled(self, key: events.Key) -> events.Key | None:
        """``key`` is handled; the next key to hand on (now in flight: post it to the app),
        or None when none waits."""
        if self.in_flight is not key:
            return None  # released already (`RELEASE_SECONDS`)
        self.in_flight = None
        if not self.waiting:
            return None
        waited = self.waiting.popleft()
        self.in_flight = events.Key(waited.key, waited.character)
        return self.in_flight
