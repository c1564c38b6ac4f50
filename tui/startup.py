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

During play, the full collections are put off to when the player is idle. Left to itself the
interpreter runs one after ten young collections of the middle generation, that is in the
middle of some key: measured along `bench/tui_keys.py`'s keys, one key in six paid for one,
5 to 67 ms, longer as the session went on (mostly the widgets of a screen left, which are
held in reference cycles). After `release_collector` the interpreter waits for
`FULL_AFTER` of them instead, and the app calls `collect_if_idle` twice a second: once the
player has been idle for `IDLE_SECONDS`, it runs the full collection that is due, as often as
the interpreter would have.
"""

from __future__ import annotations

import gc
from collections.abc import Callable

FALLBACK_SECONDS = 3.0
"""How long after the app's start the collector is let go whatever the screens did."""

IDLE_SECONDS = 0.5
"""How long the player must have been idle before `collect_if_idle` collects."""

FULL_AFTER = 1000
"""Young collections of the middle generation after which the interpreter runs a full one by
itself, while the idle collections are on (CPython's default is 10): a bound for an app that
is never idle, not the usual way."""

_held: set[str] = set()
"""``{"held"}`` while `hold_collector` holds the collector."""

_idle: list[tuple[int, int, int]] = []
"""The thresholds before `release_collector` put the full collections off to idle moments
(one entry while it has)."""


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
    if not _idle:
        young, middle, _ = thresholds = gc.get_threshold()
        _idle.append(thresholds)
        gc.set_threshold(young, middle, FULL_AFTER)
    gc.enable()


def collect_if_idle(idle_for: float, before: Callable[[], None] | None = None) -> bool:
    """Run the full collection that is due if the player has been idle for `IDLE_SECONDS`
    (``idle_for`` seconds since their last key or click) and `release_collector` put the full
    collections off; whether it did. Due: as often as the interpreter would have run one,
    after as many collections of the middle generation as its own threshold says. ``before``
    runs first (it may let go of what the collection is to free)."""
    if not _idle or idle_for < IDLE_SECONDS or gc.get_count()[2] < _idle[0][2]:
        return False
    if before is not None:
        before()
    gc.collect()
    return True


def thaw() -> None:
    """The app has ended: what `release_collector` froze may be collected again (a process
    that goes on after the app, a test's, would otherwise keep it for good), and the full
    collections run as the interpreter runs them."""
    gc.unfreeze()
    if _idle:
        gc.set_threshold(*_idle.pop())


def collector_held() -> bool:
    """Whether `hold_collector` stopped the collector and it was not let go yet."""
    return bool(_held)
