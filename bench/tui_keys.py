"""Keys beyond the map and the designer: what a review step and the panel keys cost the screen.

    .venv/bin/python bench/tui_keys.py [--presses 10]

Opens the real app headless at 80x24 on Alice's home with The Wind joined and set up (the home
`bench/tui.py` times; every starting fleet on the map), opens the game screen and times, key
by key, from ``pilot.press`` to the end of the **last** repaint that changed a cell of the
screen (a model of the terminal's cells, `bench/tui_designer.py`'s, tells a repaint that
changes what is shown from one that writes it again), and counts the repaints that changed
something (a key whose change lands in two or three of them shows the player its screen
half-made in between):

  (c) ``c`` on the game screen: the checklist opens under the map at the current step;
      ``c`` again closes it (the two are timed apart);
  (e) ``e``: the event log opens; ``e`` again closes it;
  (g) escape from the game screen back to the games list, and Enter on the list: the game's
      screen pushed once the game is read (its quick board; the whole board, with supply,
      lands in a later repaint, so this key's last repaint is that one: the first is printed
      too);
  (?) ``?``: the help screen opens over the game (the keys and the legends); escape closes it;
  (v) ``v``: the review opens at the first packet not read (its index and that packet's
      records read first, `tui.screens.review.open_review`); escape goes back to the game;
  (r) in the review (``v``), ``left`` from the last packet to the first and ``right`` back:
      a step to a packet the review has read ahead while the player looked at the one
      before (each press follows a 0.3 s pause, as a player's would).

The app starts as ``hexpost play`` starts it: the garbage collector held until the first
screen is painted, then what survived the start frozen (`tui.startup`). After each press
the pilot waits for the app to be idle and its workers done (three rounds,
`tests.tui.test_app.settle`), so a late change is measured rather than overlapped. The floor
in the same run: `bench/tui_designer.py`'s app (an `Input` whose every change rewrites one
`Static`: Textual's own cost of a key, a change message and a repaint). It prints medians,
the ratio of each to the floor, and the changing repaints a key; it asserts nothing. Issue
16's target: every widget a key changes repainted within 16 ms.
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

from bench import tui_designer  # noqa: E402  (its import wraps the screen's repaints)
from bench.machine import describe  # noqa: E402
from bench.tui import build_home  # noqa: E402

PAUSE = 0.3
"""Seconds between review steps: a player looks at a packet before the next."""


class Key(NamedTuple):
    seen: float
    """Milliseconds from the press to the end of the last repaint that changed a cell."""
    changing: int
    """Repaints that changed a cell."""
    first: float
    """Milliseconds from the press to the end of the first repaint that changed a cell."""


def _noted_counts() -> None:
    tui_designer.REFRESHED.clear()
    tui_designer.SEEN.clear()
    tui_designer.LAYOUTS.clear()


async def timed_key(pilot: Any, key: str) -> Key:
    from tests.tui.test_app import settle

    _noted_counts()
    start = time.perf_counter()
    await pilot.press(key)
    await settle(pilot)
    seen = tui_designer.SEEN
    if not seen:
        raise SystemExit(f"no repaint changed the screen after {key!r}")
    return Key((seen[-1] - start) * 1000, len(seen), (seen[0] - start) * 1000)


PANEL_KEYS = (
    ("c open", "c"),
    ("c close", "c"),
    ("e open", "e"),
    ("e close", "e"),
    ("? open", "question_mark"),
    ("? close", "escape"),
    ("v open", "v"),
    ("v close", "escape"),
)
"""The game screen's keys timed in turn: each opens something, the next closes it."""


async def keys(home: Path, presses: int) -> dict[str, list[Key]]:
    from saves.home import Home
    from tui.app import HexpostApp
    from tui.startup import hold_collector, thaw

    timings: dict[str, list[Key]] = {}
    app = HexpostApp(Home(home))
    # As `hexpost play` starts the app: the collector held until the first screen is painted,
    # then what survived the start frozen (`tui.startup`), so a full collection during play
    # walks only what came after it.
    hold_collector()
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await press_keys(pilot, presses, timings)
    finally:
        thaw()
    return timings


async def press_keys(pilot: Any, presses: int, timings: dict[str, list[Key]]) -> None:
    """Open the game, then time ``c``, ``e`` and the review's steps into ``timings``."""
    from tests.tui.test_app import open_game, settle
    from tui.screens.review import ReviewScreen

    await open_game(pilot)
    await pilot.pause(PAUSE)
    for _ in range(presses):
        for name, key in (("game close", "escape"), ("game open", "enter")):
            timings.setdefault(name, []).append(await timed_key(pilot, key))
            await pilot.pause(PAUSE)
        for name, key in PANEL_KEYS:
            timings.setdefault(name, []).append(await timed_key(pilot, key))
            await pilot.pause(PAUSE)
    await pilot.press("v")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, ReviewScreen) and screen.index is not None
    last = screen.index.last
    await pilot.pause(PAUSE)
    for _ in range(max(1, presses // max(1, last))):
        for key in ["left"] * last + ["right"] * last:
            timings.setdefault("review step", []).append(await timed_key(pilot, key))
            await pilot.pause(PAUSE)


def line(name: str, timings: list[Key], floor: float) -> str:
    seen = [key.seen for key in timings]
    median = statistics.median(seen)
    p90 = statistics.quantiles(seen, n=10)[-1] if len(seen) > 1 else median
    changing = sorted({key.changing for key in timings})
    first = statistics.median(key.first for key in timings)
    return (
        f"{name:<12} {median:7.1f} ms (p90 {p90:7.1f})  ratio {median / floor:4.1f}x"
        f"  repaints that changed the screen: {', '.join(map(str, changing))}"
        f" (the first at {first:.1f} ms)  ({len(timings)} presses)"
    )


def measured_floor() -> float:
    """The floor of this run (`bench/tui_designer.py`'s app: a key, a change message and a
    repaint), printed, in milliseconds."""
    base = asyncio.run(tui_designer.floor(40))
    floor = statistics.median(base.seen)
    print(f"floor (Input + Static), key to its last repaint: {floor:.1f} ms (median of 40)")
    return floor


def report(timings: dict[str, list[Key]], floor: float) -> None:
    """Each key's median to its last changing repaint, against ``floor``."""
    print("to the last repaint that changed the screen, median:")
    for name, each in timings.items():
        print(line(name, each, floor))
    print("issue 16's target: every widget a key changes repainted within 16 ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--presses", type=int, default=10)
    args = parser.parse_args()
    print(describe())
    with tempfile.TemporaryDirectory() as root:
        home = build_home(Path(root))
        floor = measured_floor()
        timings = asyncio.run(keys(home, args.presses))
    report(timings, floor)


if __name__ == "__main__":
    main()
