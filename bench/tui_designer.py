"""Ship designer benchmark: a key typed in a field, to the last repaint it causes.

    .venv/bin/python bench/tui_designer.py [--presses 40]

Opens the real app headless at 80x24 on a home of its own, opens the ship designer from the
command palette (as a player does), goes to the Hull G's field (0..30, value 1) and types
``2`` and Backspace in turn: 1, 12, 1, 12... Both values are in the field's range; 12
breaks a rule (the hull's G structure no longer fits its space), so every key changes what a
player trying values sees change: six of the fifty figures, the verdict (possible, then
impossible on two lines) and the rule's line under the field (shown, then hidden).

Each press is timed from ``pilot.press`` to the end of the **last** compositor update before
the app is idle again (``Screen._compositor_refresh`` is wrapped to note when each ends):
a key in the designer changes the field, then the figures, and the player sees the new
figures only at that last repaint. Textual repaints at most 60 times a second, so a key
that takes two repaints (the field, then what its change message changed: the floor does)
lands some 17-33 ms after the press however little work it is. CPU is the process's CPU
time over the same stretch (the pilot's own idle waits included, as in the floor: the pilot
waits on every widget of the screen twice a key, so the designer's 70-odd widgets cost it
more there than the floor's few).

A second line for each gives how many times the screen was laid out a key (each a layout
of the whole screen) and the time to the last repaint that changed what the terminal shows:
every update is applied to a model of the terminal's cells (its CPU left out of the key's),
and a repaint that writes the cells already there (Textual repaints a scrollbar whose thumb
did not move, or lays out again a screen whose sizes did not change) is not seen by the
player.

The floor, in the same run: the same keys on an app with one `Input` whose every change
rewrites one `Static` (Textual's own cost of a key, a change message and a repaint). It
prints medians and 90th percentiles of both and the ratio of the medians; it asserts
nothing. Issue 16's target for every widget a key changes: under 16 ms to repaint.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from textual._compositor import ChopsUpdate, Compositor, LayoutUpdate  # noqa: E402
from textual.app import App, ComposeResult  # noqa: E402
from textual.screen import Screen  # noqa: E402
from textual.strip import Strip  # noqa: E402
from textual.widgets import Input, Static  # noqa: E402

from bench.machine import describe  # noqa: E402

FIELD = "gs"
"""Hull G's: 0..30, 1 by default; ``2`` then Backspace keep it legal."""

REFRESHED: list[float] = []
"""When each compositor update ended (perf_counter), appended by the wrapper below."""
SEEN: list[float] = []
"""When each compositor update that changed a cell of the terminal ended."""
LAYOUTS: list[float] = []
"""When each layout of the screen began."""


class Terminal:
    """The cells the terminal shows, as the updates written to it leave them (character and
    style by line and column), to tell a repaint that changes what is shown from one that
    writes it again."""

    def __init__(self) -> None:
        self.cells: dict[tuple[int, int], tuple[str, object]] = {}

    def put(self, y: int, x: int, strip: Strip, start: int, end: int) -> int:
        """Write ``strip`` at (``x``, ``y``), only its cells in columns ``start``..``end``
        (exclusive); how many cells it changed."""
        changed = 0
        for text, style, control in strip:
            if control:
                continue
            for character in text:
                if start <= x < end and self.cells.get((y, x)) != (character, style):
                    self.cells[(y, x)] = (character, style)
                    changed += 1
                x += 1
        return changed

    def apply(self, update: object) -> int:
        """Apply one compositor update; how many cells it changed."""
        changed = 0
        if isinstance(update, ChopsUpdate):
            for y, start, end in update.spans:
                for x, strip in update.chops[y].items():
                    if strip is not None:
                        changed += self.put(y, x, strip, start, end)
        elif isinstance(update, LayoutUpdate):
            for y, line in enumerate(update.strips, update.region.y):
                x = update.region.x
                for strip in line:
                    changed += self.put(y, x, strip, 0, 1 << 30)
                    x += strip.cell_length
        return changed


TERMINAL = Terminal()
UPDATES: list[object] = []
"""The update the compositor made for the refresh under way."""

_compositor_refresh = Screen._compositor_refresh
_refresh_layout = Screen._refresh_layout
_render_update = Compositor.render_update


def _noted_render_update(compositor: Compositor, *args: Any, **kwargs: Any) -> Any:
    update = _render_update(compositor, *args, **kwargs)
    UPDATES.append(update)
    return update


MODEL_CPU = [0.0]
"""CPU seconds spent in the terminal model (left out of the keys' CPU)."""


def _noted_refresh(screen: Screen[Any]) -> None:
    UPDATES.clear()
    _compositor_refresh(screen)
    now = time.perf_counter()
    REFRESHED.append(now)
    cpu = time.process_time()
    if sum(TERMINAL.apply(update) for update in UPDATES):
        SEEN.append(now)
    MODEL_CPU[0] += time.process_time() - cpu


def _noted_layout(screen: Screen[Any], *args: Any, **kwargs: Any) -> None:
    LAYOUTS.append(time.perf_counter())
    _refresh_layout(screen, *args, **kwargs)


Screen._compositor_refresh = _noted_refresh  # type: ignore[method-assign, assignment]
Screen._refresh_layout = _noted_layout  # type: ignore[method-assign, assignment]
Compositor.render_update = _noted_render_update  # type: ignore[method-assign, assignment]


class Timings(NamedTuple):
    wall: list[float]
    """Milliseconds from each press to the end of the last repaint before idle."""
    cpu: list[float]
    """The process's CPU milliseconds over the same stretch."""
    repaints: list[int]
    """How many compositor updates each key caused."""
    seen: list[float]
    """Milliseconds from each press to the end of the last repaint that changed a cell."""
    layouts: list[int]
    """How many layouts of the screen each key caused."""


class FloorApp(App[None]):
    """One Input; each change rewrites one Static."""

    def compose(self) -> ComposeResult:
        yield Input("1", id="field")
        yield Static("", id="echo")

    def on_input_changed(self, event: Input.Changed) -> None:
        self.query_one("#echo", Static).update(f"value: {event.value}")


async def timed(pilot: Any, presses: int) -> Timings:
    """Each press timed to the last repaint before idle. The fields' cursors stop blinking
    first: a blink is a repaint no key caused, and would count as the key's."""
    for field in pilot.app.screen.query(Input):
        field.cursor_blink = False
    await pilot.pause()
    timings = Timings([], [], [], [], [])
    for n in range(presses):
        REFRESHED.clear()
        SEEN.clear()
        LAYOUTS.clear()
        MODEL_CPU[0] = 0.0
        wall, cpu = time.perf_counter(), time.process_time()
        await pilot.press("2" if n % 2 == 0 else "backspace")
        await pilot.pause()
        cpu_spent = time.process_time() - cpu - MODEL_CPU[0]
        if not REFRESHED or not SEEN:
            raise SystemExit(f"no repaint (or none that changed the screen) followed key {n}")
        timings.wall.append((REFRESHED[-1] - wall) * 1000)
        timings.cpu.append(cpu_spent * 1000)
        timings.repaints.append(len(REFRESHED))
        timings.seen.append((SEEN[-1] - wall) * 1000)
        timings.layouts.append(len(LAYOUTS))
    return timings


async def floor(presses: int) -> Timings:
    app = FloorApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.query_one("#field", Input).cursor_position = 1
        return await timed(pilot, presses)


async def designer(presses: int) -> Timings:
    from saves.home import Home
    from tests.tui.test_designer import open_designer, retype
    from tui.app import HexpostApp

    with tempfile.TemporaryDirectory() as root:
        app = HexpostApp(Home(Path(root) / "home"))
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await open_designer(pilot)
            await retype(pilot, screen, FIELD, "1")
            return await timed(pilot, presses)


def summary(name: str, timings: Timings) -> str:
    wall, cpu, repaints, seen, layouts = timings
    return (
        f"{name:<22} to the last repaint: median {statistics.median(wall):6.2f} ms"
        f" (p90 {statistics.quantiles(wall, n=10)[-1]:6.2f})"
        f"   cpu median {statistics.median(cpu):6.2f} ms"
        f"   repaints a key {statistics.median(repaints):.0f}"
        f"\n{'':<22} to the last repaint that changed the screen: median"
        f" {statistics.median(seen):6.2f} ms (p90 {statistics.quantiles(seen, n=10)[-1]:6.2f})"
        f"   layouts a key {statistics.median(layouts):.0f}"
    )


async def run(presses: int) -> None:
    print(f"{presses} keys at 80x24 in the Hull G's field: '2' and Backspace in turn (1, 12, 1...)")
    base = await floor(presses)
    print(summary("floor (Input + Static)", base))
    shown = await designer(presses)
    print(summary("ship designer", shown))
    wall = statistics.median(shown.wall) / statistics.median(base.wall)
    cpu = statistics.median(shown.cpu) / statistics.median(base.cpu)
    print(
        f"ratio to the floor's median: wall {wall:.1f}x, cpu {cpu:.1f}x"
        " (issue 16's target: every widget a key changes repainted within 16 ms)"
    )
    seen = statistics.median(shown.seen) / statistics.median(base.seen)
    print(f"ratio to the floor's median, to the last repaint that changed the screen: {seen:.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--presses", type=int, default=40)
    args = parser.parse_args()
    print(describe())
    asyncio.run(run(args.presses))


if __name__ == "__main__":
    main()
