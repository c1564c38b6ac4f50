"""Map widget benchmark: key press to repaint for cursor moves on the full map of The Wind.

    .venv/bin/python bench/tui_map.py [--presses 100] [--size 80x24]

Opens a tiny headless Textual app holding only a `HexMap` that shows The Wind after its
set-up (every empire's starting fleets on the map, about 690 units: ``views(start())``), puts
the cursor on the map's west edge and sweeps it east across all 61 columns and back (so the
map scrolls sideways on the way), timing each press from ``pilot.press`` to the end of the
next ``pilot.pause()``, which runs the screen's compositor update, so the time includes the
repaint. It does that for the compact and the detailed drawing, and, as the floor in the
same run, for the same key on an app holding a bare `Static` (what Textual's own key
handling and refresh cost with nothing to draw). It prints medians and 90th percentiles, and
how many map lines the widget drew per press; it asserts nothing: the figures go into the
session notes.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from textual.app import App, ComposeResult  # noqa: E402
from textual.strip import Strip  # noqa: E402
from textual.widgets import Static  # noqa: E402

from tui.mapgeom import Detail  # noqa: E402
from tui.widgets.hexmap import HexMap  # noqa: E402

WEST_EDGE = 111


class CountingMap(HexMap):
    """A `HexMap` that counts the lines it is asked for and the time it spends drawing them:
    the line API's promise is that a press redraws a screenful at most, never the whole
    map."""

    lines_drawn = 0
    drawing = 0.0

    def render_line(self, y: int) -> Strip:
        started = time.perf_counter()
        strip = super().render_line(y)
        CountingMap.drawing += time.perf_counter() - started
        CountingMap.lines_drawn += 1
        return strip


class MapApp(App[None]):
    def __init__(self, view: dict[str, Any], detail: Detail) -> None:
        super().__init__()
        self.view, self.detail = view, detail

    def compose(self) -> ComposeResult:
        yield CountingMap(self.view, cursor=WEST_EDGE, detail=self.detail)


class FloorApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("nothing bound to right: Textual's own cost of a key and a refresh")


def sweep(presses: int, cols: int) -> list[str]:
    """East to the last column, then back west, for ``presses`` keys that each move."""
    east = min(presses, cols - 1)
    return ["right"] * east + ["left"] * (presses - east)


class Timings(NamedTuple):
    wall: list[float]
    """Milliseconds from each press to the end of the next pause (the repaint)."""
    cpu: list[float]
    """The process's CPU milliseconds over the same stretch."""


async def timed(app: App[None], keys: list[str], size: tuple[int, int]) -> Timings:
    """Each press timed from ``pilot.press`` to the end of the next ``pilot.pause()``."""
    timings = Timings([], [])
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        for key in keys:
            wall, cpu = time.perf_counter(), time.process_time()
            await pilot.press(key)
            await pilot.pause()
            timings.wall.append((time.perf_counter() - wall) * 1000)
            timings.cpu.append((time.process_time() - cpu) * 1000)
    return timings


def summary(name: str, timings: Timings, extra: str = "") -> str:
    wall, cpu = timings
    return (
        f"{name:<20} wall median {statistics.median(wall):6.2f} ms"
        f" (p90 {statistics.quantiles(wall, n=10)[-1]:6.2f})"
        f"   cpu median {statistics.median(cpu):5.2f} ms{extra}"
    )


async def run(presses: int, size: tuple[int, int]) -> None:
    from engine.fe.views import views
    from tests.engine.fe.helpers import start

    started = time.perf_counter()
    view = views(start())
    units = sum(1 for u in view["units"] if u["hex"] is not None)
    took = time.perf_counter() - started
    print(f"The Wind after set-up: {units} units on the map (built in {took:.1f} s)")
    print(f"{presses} presses at {size[0]}x{size[1]}, cursor swept from {WEST_EDGE:04d}")
    keys = sweep(presses, 61)
    floor = await timed(FloorApp(), keys, size)
    print(summary("floor (bare Static)", floor))
    details: tuple[Detail, ...] = ("compact", "detailed")
    for detail in details:
        CountingMap.lines_drawn, CountingMap.drawing = 0, 0.0
        timings = await timed(MapApp(view, detail), keys, size)
        lines = CountingMap.lines_drawn / presses
        drawing = CountingMap.drawing * 1000 / presses
        extra = f"\n{'':<20} {lines:.1f} lines drawn per press, {drawing:.2f} ms in render_line"
        print(summary(f"HexMap {detail}", timings, extra))
    print(
        f"(the floor is in the same run; {size[1]} screen lines is a full repaint; the pilot"
        " waits for idle in 20 ms sleeps, so wall times come in steps of about 20 ms)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presses", type=int, default=100)
    parser.add_argument("--size", default="80x24", help="terminal size, WIDTHxHEIGHT")
    args = parser.parse_args()
    width, height = (int(n) for n in args.size.lower().split("x"))
    asyncio.run(run(args.presses, (width, height)))


if __name__ == "__main__":
    main()
