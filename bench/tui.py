"""Cold start of the Textual client against a bare Textual app, in the same run.

    .venv/bin/python bench/tui.py [--runs 7] [--game-only]

Each run starts a fresh interpreter and times it from its start to the moment the screen
being waited for has been painted: the child wraps ``Screen._compositor_refresh`` and, at
the end of the first repaint that drew the awaited screen, writes a line on its standard
output (a raw write, then exit), and the time is taken when the parent reads that line, so
the child's shutdown (closing the store, ending its thread) is left out of every figure
alike. (It waited for ``call_after_refresh`` before, which also counted whatever other
callbacks were queued after that repaint: the game screen's checklist and log, built once
the map is painted.) With the line the child reports its CPU time (both threads) and its
peak memory (``VmHWM``) at that moment:

  (a) the floor: a bare Textual app showing one ``Static`` ("hello"), until its first frame;
  (b) ``hexpost play`` through the real command line (`tui.cli.main`: its imports, the home,
      the app), until the games list's first frame has been painted: the list with its
      columns and "reading the games...", the rows still being read on the store thread.
      This is the first paint issue 4 sets its target for: b/a at most 1.6;
  (r) the same, until the games list has been painted with its rows (the engine imported,
      every game's state read): what a player waits for before choosing a game;
  (c) ``hexpost play wind``: the same, until the game screen has been painted with The Wind's
      game loaded (the map with every stack, scrolled to the player's first stack: the paint
      must show the cursor's hex; the side panel; the checklist, the log and the closed orders
      panel are hidden at 80x24 and built and filled after that paint).

With ``--game-only`` only (a) and (c) are timed. The figure of issue 16 is c/a, in CPU time
(on this shared machine a wall clock measures the other processes too): the bare app and the
game screen each until the first paint that shows what a player came for.

The only change to the real program is that `App.run` is made headless at 80x24 and told
when to stop. The home (Alice's, with The Wind joined and set up: every starting fleet on
the map, turn 1, as `tests.saves.conftest.start_game` builds it) is built once before
timing. Runs alternate and the median of each counts. It prints the four, the ratios, and
the CPU time and peak memory of (a) and (c) (issue 16: the game screen within 1.6x of (a));
it asserts nothing. Key-press-to-repaint on the full map is measured by ``bench/tui_map.py``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]

REPORT = """
import os
import time

from textual.screen import Screen

real_refresh = Screen._compositor_refresh
reported = []


def report(app):
    if reported:
        return
    reported.append(True)
    cpu = time.process_time()
    # VmHWM, not ru_maxrss: Linux carries the parent's peak over an exec into ru_maxrss.
    with open("/proc/self/status") as status:
        peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
    os.write(1, f"painted {cpu:.4f} {peak}\\n".encode())
    app.exit()


def noted_refresh(screen):
    real_refresh(screen)
    if screen.app.screen is screen and painted_enough(screen):
        report(screen.app)


Screen._compositor_refresh = noted_refresh
"""

HELLO = (
    REPORT
    + """
from textual.app import App
from textual.widgets import Static


def painted_enough(screen):
    return True


class Hello(App[None]):
    def compose(self):
        yield Static("hello")

Hello().run(headless=True, size=(80, 24))
"""
)

HEXPOST = (
    REPORT
    + """
import sys

import textual.app

real_run = textual.app.App.run
home, wait_for, game = sys.argv[1], sys.argv[2], sys.argv[3:]


def painted_enough(screen):
    name = type(screen).__name__
    if wait_for == "game":
        # The game opens on the player's first stack: a paint of the map's top left corner
        # before it scrolls there is not yet what the player came for.
        loaded = name == "GameScreen" and screen.data is not None
        return loaded and screen.query_one("#map").cursor_in_view()
    if wait_for == "rows":
        # Imported here only: (c) must not pay for a table its screen does not show.
        from textual.widgets import DataTable

        return name == "GamesScreen" and screen.query_one(DataTable).row_count > 0
    return name == "GamesScreen"


def run(self, **_ignored):
    return real_run(self, headless=True, size=(80, 24))


textual.app.App.run = run
import tui.cli

# The app runs headless here, drawing nowhere: `hexpost play` without a terminal refuses to
# start (it would wait for keys for ever), so the child says it has one.
tui.cli.on_terminal = lambda: True
raise SystemExit(tui.cli.main(["--home", home, "play", *game]))
"""
)


GAME = "wind"


def build_home(root: Path) -> Path:
    """Alice's home with The Wind (named ``GAME``) joined and set up by both seats, at turn 1
    (as the saves tests build it)."""
    sys.path.insert(0, str(ROOT))
    from mail.loopback import LoopbackNetwork
    from tests.saves import conftest as saves

    network = LoopbackNetwork()
    alice = saves.Player(root / "alice", "Alice", "alice@example.org", network)
    bob = saves.Player(root / "bob", "Bob", "bob@example.org", network)
    saves.start_game(alice, bob)
    assert [row.name for row in alice.replica.games()] == [GAME]
    path = alice.home.path
    alice.close()
    bob.close()
    return Path(path)


class Run(NamedTuple):
    wall: float
    """Seconds from starting the child to reading its "painted" line."""
    cpu: float
    """The child's CPU seconds (every thread) when it painted."""
    peak: int
    """Its peak resident memory then, in KB (``VmHWM`` of ``/proc/self/status``)."""


def timed(script: str, *args: str) -> Run:
    """Start the child and read its "painted" line."""
    started = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-c", script, *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "TERM": "xterm-256color"},
    )
    assert child.stdout is not None
    line = child.stdout.readline()
    took = time.perf_counter() - started
    _, errors = child.communicate()
    said = line.split()
    if not said or said[0] != b"painted" or child.returncode != 0:
        raise SystemExit(f"the child failed ({child.returncode}): {errors.decode()[-2000:]}")
    return Run(took, float(said[1]), int(said[2]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument(
        "--game-only", action="store_true", help="time only (a) and (c), not the games list"
    )
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from bench.machine import describe

    print(describe())
    with tempfile.TemporaryDirectory(prefix="hexpost-bench-tui-") as tmp:
        home = build_home(Path(tmp))
        hello: list[Run] = []
        frame: list[Run] = []
        rows: list[Run] = []
        game: list[Run] = []
        for _ in range(args.runs):
            hello.append(timed(HELLO))
            if not args.game_only:
                frame.append(timed(HEXPOST, str(home), "frame"))
                rows.append(timed(HEXPOST, str(home), "rows"))
            game.append(timed(HEXPOST, str(home), "game", GAME))
    a, b, r, c = (
        statistics.median(run.wall for run in runs) if runs else float("nan")
        for runs in (hello, frame, rows, game)
    )
    cpu_a, cpu_c = (statistics.median(run.cpu for run in runs) for runs in (hello, game))
    mem_a, mem_c = (statistics.median(run.peak for run in runs) / 1024 for runs in (hello, game))
    print(f"(a) bare Textual app, start to first paint:          {a * 1e3:7.0f} ms (median)")
    if not args.game_only:
        print(f"(b) hexpost play, to the games list's first paint:   {b * 1e3:7.0f} ms (median)")
        print(f"(r) hexpost play, to the games list with its rows:   {r * 1e3:7.0f} ms (median)")
    print(f"(c) hexpost play {GAME}, to the loaded game screen:    {c * 1e3:7.0f} ms (median)")
    lists = "" if args.game_only else f"b/a = {b / a:.2f}; r/a = {r / a:.2f}; "
    print(f"ratio {lists}c/a = {c / a:.2f} (target for the game screen: c/a <= 1.6)")
    print(
        f"cpu at the paint: (a) {cpu_a * 1e3:.0f} ms, (c) {cpu_c * 1e3:.0f} ms,"
        f" c/a = {cpu_c / cpu_a:.2f}"
    )
    print(f"peak memory:      (a) {mem_a:.1f} MB, (c) {mem_c:.1f} MB, c/a = {mem_c / mem_a:.2f}")
    print(
        f"(home: Alice's, one game: The Wind named {GAME!r}, set up, turn 1;"
        f" {args.runs} runs each, alternating)"
    )


if __name__ == "__main__":
    main()
