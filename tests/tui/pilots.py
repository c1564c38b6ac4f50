"""Waiting in the app tests: shorter idle windows for Textual's pilot, and waits on conditions.

Textual's pilot decides that the app has settled by sleeping in windows of
`textual._wait.SLEEP_GRANULARITY` (20 ms in production) until one window in which the process
used less than `textual._wait.SLEEP_IDLE` (1 ms) of CPU. Every ``pilot.press`` waits like this
twice per key and every ``pilot.pause`` once, so most of an app test's wall time was spent
asleep in those windows (a test of 15 s wall used 4 s of CPU). `shorter_idle_windows` makes
the windows `TEST_WINDOW` long for the test session only; the app itself never calls
``wait_for_idle``, so what a player sees keeps its timing.

A shorter window is a weaker promise: "idle for 5 ms" can end before a timer the app set
(Textual refreshes the screen 60 times a second, `call_after_refresh` runs after that
refresh) or before the store thread's answer comes back. A test that checks such an outcome
must not count on a fixed number of pauses: it waits with `settle_until` for the condition it
checks, with a timeout generous enough for a loaded machine.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import textual._wait
from rich.style import Style
from textual.pilot import Pilot
from textual.screen import Screen
from textual.worker import WorkerCancelled

PRODUCTION_WINDOW = 1 / 50
"""Textual's own `SLEEP_GRANULARITY` (seconds), given back after the session
(`tests.tui.test_pilots` checks it against the installed Textual)."""
TEST_WINDOW = float(os.environ.get("HEXPOST_PILOT_WINDOW_MS", "5")) / 1000
"""The idle window of the test session (seconds); ``HEXPOST_PILOT_WINDOW_MS=20`` runs the
app tests with Textual's production window, to tell a timing failure from a real one."""
SETTLE_TIMEOUT = 30.0
"""How long `settle_until` waits before it fails (seconds): far above any healthy wait, so
that only a condition that never comes true fails, even on a busy machine."""


@contextmanager
def shorter_idle_windows(window: float = TEST_WINDOW) -> Iterator[None]:
    """Textual's pilot idle windows shortened to ``window`` while the block runs.

    `SLEEP_GRANULARITY` is read by `wait_for_idle` on every call, so one assignment to the
    module reaches `Pilot.press`, `Pilot.pause` and `App._press_keys` (the 20 ms minimum of
    `Pilot.exit` and `Pilot.wait_for_scheduled_animations` is a default argument and stays).
    `SLEEP_IDLE` (the CPU a window may use and still count as idle) stays 1 ms: an absolute
    amount of work, not a share of the window."""
    saved = textual._wait.SLEEP_GRANULARITY
    textual._wait.SLEEP_GRANULARITY = window
    try:
        yield
    finally:
        textual._wait.SLEEP_GRANULARITY = saved


async def settle_until(
    pilot: Pilot[Any],
    holds: Callable[[], object],
    what: str = "",
    timeout: float = SETTLE_TIMEOUT,
) -> None:
    """Pause until ``holds()`` is true; fail with ``what`` (and the last answer) if it is
    still false after ``timeout`` seconds.

    It pauses at least once before the first check, as the fixed pause it replaces did; the
    condition must describe the state after the change (a condition the state before it
    already met would pass at once, whatever the app then did)."""
    deadline = time.monotonic() + timeout
    while True:
        await pilot.pause()
        answer = holds()
        if answer:
            return
        if time.monotonic() > deadline:
            raise AssertionError(
                f"not true after {timeout:.0f} s: {what or holds.__name__} (last: {answer!r})"
            )


async def refreshed(pilot: Pilot[Any]) -> None:
    """Wait until the screen has refreshed and run what was waiting for that refresh.

    For a check that something did *not* happen (a rebuild, a scroll) that the app would do
    with ``call_after_refresh``: those callbacks run in the order they were asked for, so
    once this one ran, any asked for before it ran too. A fixed pause proves nothing there
    once the idle windows are short."""
    done: list[bool] = []
    pilot.app.screen.call_after_refresh(done.append, True)
    await settle_until(pilot, lambda: done, "the screen refreshed")
    await pilot.pause()


def after_each_repaint(screen: Screen[Any], note: Callable[[], None]) -> None:
    """Call ``note`` at the end of each repaint of ``screen`` from now on: what a test reads
    there is what that frame showed. (Textual's private repaint, wrapped on this screen
    only: an upgrade that renames it fails here loudly.)"""
    repaint = screen._compositor_refresh

    def noted() -> None:
        repaint()
        note()

    screen._compositor_refresh = noted  # type: ignore[method-assign]


def screen_cells(screen: Screen[Any]) -> list[tuple[str, Style | None]]:
    """The screen as its last repaint drew it: every cell's character and style, in order
    (to compare a first repaint with the one the screen settles on)."""
    return [
        (char, segment.style)
        for strip in screen._compositor.render_strips()
        for segment in strip
        for char in segment.text
    ]


LIFELONG_GROUPS = frozenset({"mail-watch"})
"""Worker groups that run as long as the app does (the watch for new mail or a changed shared
folder): a test waiting for "every worker" waits for the others."""


def passing_workers(app: Any) -> list[Any]:
    """The app's workers but the lifelong ones (`LIFELONG_GROUPS`)."""
    return [w for w in app.workers if w.group not in LIFELONG_GROUPS]


async def workers_done(app: Any) -> None:
    """Wait for the app's workers to finish, but the lifelong ones. A worker cancelled on the
    way is finished too: an exclusive worker is cancelled when the app starts another of its
    group (the games list read again while a read is under way, on a slow machine), and
    Textual's own wait would raise `WorkerCancelled` for it. A worker that failed still
    raises."""
    for worker in passing_workers(app):
        try:
            await worker.wait()
        except WorkerCancelled:
            continue
