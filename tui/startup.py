"""The app's start without the cyclic garbage collector, until the player sees the screen.

Opening a game builds some seventy thousand objects that live as long as the app: Textual's
classes and styles, the engine's modules and rules tables, the game's state. While they are
being built the collector keeps walking them, some two hundred young collections and a full
one, about a tenth of the CPU time before the game screen's first paint (issue 16, item 5);
few of them are garbage. So ``hexpost play`` holds the collector (`hold_collector`) before
it imports the app, and the first screen the player waits for lets it go once it has been
painted (`release_collector`): the start-up's garbage is collected once, and what survived
is frozen (`gc.freeze`), so later collections, during play, no longer walk it either. The app
lets it go after `FALLBACK_SECONDS` anyway (a screen that never gets its data), and
``hexpost play`` when the app ends (and thaws it then, `thaw`).

The price of the freeze: what was alive at that moment and later becomes garbage held in a
reference cycle (the first screen's widgets, once the player leaves it) is not collected
before the app ends. That is bounded, once per start, and worth it: a full collection walks
every live object, long enough to drop a frame during play.

An app started otherwise (the tests' `App.run_test`) never held the collector:
`release_collector` then does nothing.
"""

from __future__ import annotations

import gc

FALLBACK_SECONDS = 3.0
"""How long after the app's start the collector is let go whatever the screens did."""

_held: set[str] = set()
"""``{"held"}`` while `hold_collector` holds the collector."""


def hold_collector() -> None:
    """Stop automatic collection until `release_collector`."""
    if gc.isenabled():
        gc.disable()
        _held.add("held")


def release_collector() -> None:
    """Collect the start-up's garbage once, freeze what survived and collect automatically
    again; nothing if `hold_collector` did not stop the collector (or it was let go)."""
    if not _held:
        return
    _held.clear()
    gc.collect()
    gc.freeze()
    gc.enable()


def thaw() -> None:
    """The app has ended: what `release_collector` froze may be collected again (a process
    that goes on after the app, a test's, would otherwise keep it for good)."""
    gc.unfreeze()


def collector_held() -> bool:
    """Whether `hold_collector` stopped the collector and it was not let go yet."""
    return bool(_held)
