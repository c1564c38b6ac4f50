"""Cold start of the Textual client against a bare Textual app, in the same run.

    .venv/bin/python bench/tui.py [--runs 7]

Each run starts a fresh interpreter and times it from its start to the moment the screen
being waited for has been painted: the child then writes a line on its standard output
(``call_after_refresh``, then a raw write, then exit) and the time is taken when the parent
reads that line, so the child's shutdown (closing the store, ending its thread) is left out
of every figure alike:

  (a) the floor: a bare Textual app showing one ``Static`` ("hello"), until its first frame;
  (b) ``hexpost play`` through the real command line (`tui.cli.main`: its imports, the home,
      the app), until the games list's first frame has been painted: the list with its
      columns and "reading the games...", the rows still being read on the store thread.
      This is the first paint issue 4 sets its target for: b/a at most 1.6;
  (r) the same, until the games list has been painted with its rows (the engine imported,
      every game's state read): what a player waits for before choosing a game;
  (c) ``hexpost play border``: the same, until the game screen has been painted with the game
      loaded (the map with every stack, the side panel, the checklist and log data).

The only change to the real program is that `App.run` is made headless at 80x24 and told
when to stop. The home (the tutorial game, set up) is built once before timing. Runs
alternate and the median of each counts. It prints the three and the ratios; it asserts
nothing. Key-press-to-repaint on the full map is measured by ``bench/tui_map.py``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

HELLO = """
import os

from textual.app import App
from textual.widgets import Static

class Hello(App[None]):
    def compose(self):
        yield Static("hello")

    def on_mount(self) -> None:
        self.call_after_refresh(painted, self)

def painted(app):
    os.write(1, b"painted\\n")
    app.exit()

Hello().run(headless=True, size=(80, 24))
"""

HEXPOST = """
import os
import sys

import textual.app

real_run = textual.app.App.run
home, wait_for, game = sys.argv[1], sys.argv[2], sys.argv[3:]


def run(self, **_ignored):
    from textual.widgets import DataTable

    def painted():
        screen = self.screen
        name = type(screen).__name__
        if wait_for == "game":
            ready = name == "GameScreen" and screen.data is not None
        elif wait_for == "rows":
            ready = name == "GamesScreen" and screen.query_one(DataTable).row_count
        else:
            ready = name == "GamesScreen"
        if ready:
            self.call_after_refresh(done)
        else:
            self.set_timer(0.005, painted)

    def done():
        os.write(1, b"painted\\n")
        self.exit()

    self.call_later(painted)
    return real_run(self, headless=True, size=(80, 24))


textual.app.App.run = run
from tui.cli import main

raise SystemExit(main(["--home", home, "play", *game]))
"""


GAME = "border"


def build_home(root: Path) -> Path:
    """Alice's home with the tutorial game ``GAME`` joined and set up (as the app tests
    build it)."""
    sys.path.insert(0, str(ROOT))
    from tests.tui import test_app

    assert test_app.GAME == GAME
    game = test_app.tutorial_homes(root)
    path = game.alice.home.path
    game.alice.close()
    game.bob.close()
    return Path(path)


def timed(script: str, *args: str) -> float:
    """Seconds from starting the child to reading its "painted" line."""
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
    if line != b"painted\n" or child.returncode != 0:
        raise SystemExit(f"the child failed ({child.returncode}): {errors.decode()[-2000:]}")
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hexpost-bench-tui-") as tmp:
        home = build_home(Path(tmp))
        hello: list[float] = []
        frame: list[float] = []
        rows: list[float] = []
        game: list[float] = []
        for _ in range(args.runs):
            hello.append(timed(HELLO))
            frame.append(timed(HEXPOST, str(home), "frame"))
            rows.append(timed(HEXPOST, str(home), "rows"))
            game.append(timed(HEXPOST, str(home), "game", GAME))
    a, b, r, c = (statistics.median(times) for times in (hello, frame, rows, game))
    print(f"(a) bare Textual app, start to first paint:          {a * 1e3:7.0f} ms (median)")
    print(f"(b) hexpost play, to the games list's first paint:   {b * 1e3:7.0f} ms (median)")
    print(f"(r) hexpost play, to the games list with its rows:   {r * 1e3:7.0f} ms (median)")
    print(f"(c) hexpost play border, to the loaded game screen:  {c * 1e3:7.0f} ms (median)")
    print(f"ratio b/a = {b / a:.2f} (target <= 1.6); r/a = {r / a:.2f}; c/a = {c / a:.2f}")


if __name__ == "__main__":
    main()
