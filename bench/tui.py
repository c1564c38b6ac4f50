"""Cold start of the Textual client against a bare Textual app, in the same run.

    .venv/bin/python bench/tui.py [--runs 7]

Each run starts a fresh interpreter and times the whole process, from start to the exit that
follows the first paint of the screen being waited for (``call_after_refresh`` then exit):

  (a) the floor: a bare Textual app showing one ``Static`` ("hello");
  (b) ``hexpost play`` through the real command line (`tui.cli.main`: its imports, the home,
      the app), until the games list has been painted with its rows: what a player sees
      first when typing ``hexpost``. Issue 4's target: b/a at most 1.6;
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
from textual.app import App
from textual.widgets import Static

class Hello(App[None]):
    def compose(self):
        yield Static("hello")

    def on_mount(self) -> None:
        self.call_after_refresh(self.exit)

Hello().run(headless=True, size=(80, 24))
"""

HEXPOST = """
import sys

import textual.app

real_run = textual.app.App.run
home, wanted = sys.argv[1], sys.argv[2:]


def run(self, **_ignored):
    from textual.widgets import DataTable

    def painted():
        screen = self.screen
        if wanted:
            ready = type(screen).__name__ == "GameScreen" and screen.data is not None
        else:
            ready = type(screen).__name__ == "GamesScreen" and screen.query_one(DataTable).row_count
        if ready:
            self.call_after_refresh(self.exit)
        else:
            self.set_timer(0.005, painted)

    self.call_later(painted)
    return real_run(self, headless=True, size=(80, 24))


textual.app.App.run = run
from tui.cli import main

raise SystemExit(main(["--home", home, "play", *wanted]))
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
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", script, *args],
        cwd=ROOT,
        check=True,
        capture_output=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "TERM": "xterm-256color"},
    )
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hexpost-bench-tui-") as tmp:
        home = build_home(Path(tmp))
        hello: list[float] = []
        games: list[float] = []
        game: list[float] = []
        for _ in range(args.runs):
            hello.append(timed(HELLO))
            games.append(timed(HEXPOST, str(home)))
            game.append(timed(HEXPOST, str(home), GAME))
    a, b, c = (statistics.median(times) for times in (hello, games, game))
    print(f"(a) bare Textual app, start to first paint:         {a * 1e3:7.0f} ms (median)")
    print(f"(b) hexpost play, to the games list with its rows:  {b * 1e3:7.0f} ms (median)")
    print(f"(c) hexpost play border, to the loaded game screen: {c * 1e3:7.0f} ms (median)")
    print(f"ratio b/a = {b / a:.2f} (target <= 1.6); c/a = {c / a:.2f}")


if __name__ == "__main__":
    main()
