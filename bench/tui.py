"""Cold start of the Textual client against a bare Textual app, in the same run.

    .venv/bin/python bench/tui.py [--runs 7]

Each run starts a fresh interpreter that imports what it needs, builds its app and runs it
headless until the first screen has been painted (``call_after_refresh`` then exit), and the
wall time of the whole process is taken:

  (a) the floor: a bare Textual app showing one ``Static`` ("hello");
  (b) hexpost: ``HexpostApp`` on a home holding the tutorial game, opened on its game screen
      (the games list, then the map with every stack, the side panel, the checklist data).

The home is built once before timing. Runs alternate and the median of each counts. It
prints both and the ratio b/a (issue 4's target: at most 1.6); it asserts nothing.
Key-press-to-repaint on the full map is measured by ``bench/tui_map.py``.
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
from pathlib import Path
from saves.home import Home
from tui.app import HexpostApp
from tui.screens.game import GameScreen

home = Home(Path(sys.argv[1]))
app = HexpostApp(home, sys.argv[2])

def painted() -> None:
    if isinstance(app.screen, GameScreen) and app.screen.query("HexMap"):
        app.call_after_refresh(app.exit)
    else:
        app.set_timer(0.01, painted)

app.call_later(painted)
app.run(headless=True, size=(80, 24))
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
        ours: list[float] = []
        for _ in range(args.runs):
            hello.append(timed(HELLO))
            ours.append(timed(HEXPOST, str(home), GAME))
    a, b = statistics.median(hello), statistics.median(ours)
    print(f"(a) bare Textual app, start to first paint:   {a * 1e3:7.0f} ms (median)")
    print(f"(b) hexpost game screen, start to first paint: {b * 1e3:7.0f} ms (median)")
    print(f"ratio b/a = {b / a:.2f} (target <= 1.6)")


if __name__ == "__main__":
    main()
