"""Start-up of the read-only commands against their floor, in the same run.

    .venv/bin/python bench/cli_start.py [--runs 15]

Each figure is the wall time of a fresh interpreter, from its start to its exit, median over
the runs (the runs alternate, so a busy moment of the machine hits every figure alike):

  (p) the bare interpreter: ``python -c pass``;
  (f) the floor of each command: ``python -c "import <the modules it needs>"``, the modules
      listed in `NEEDS` (opening the home's store, the game records, the ruleset whose games
      the home holds, JSON out);
  (c) the command through its real entry point, ``python -m tui.cli --home H games --json``
      and ``... show border --json``.

The home is Alice's with the tutorial game (``border``, an F&E game at turn 1, set up), built
once before timing as the app tests build it. Issue 16's target is c / f at most 2; c / p is
printed too. It also lists which of the modules that should stay out of a read-only command
(asyncio, the mail package, Textual) the command imported, from ``-X importtime``. It asserts
nothing.
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
sys.path.insert(0, str(ROOT))

from bench.tui import build_home  # noqa: E402

NEEDS: dict[str, tuple[str, ...]] = {
    "games": ("saves.home", "saves.replica", "engine.fe", "json"),
    "show": ("saves.home", "saves.replica", "engine.fe", "json"),
}
"""What each command cannot do without: the home and its store (`saves.home`), the game
records and states (`saves.replica`), the ruleset of the home's games (F&E) to read their
states, and the json module to print them."""

COMMANDS: dict[str, tuple[str, ...]] = {
    "games": ("games", "--json"),
    "show": ("show", "border", "--json"),
}

AVOID = ("asyncio", "mail", "textual")
"""Top-level packages a read-only command has no use for."""

ENV = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}


def timed(*args: str) -> float:
    """Seconds for ``python args...`` to run to its end; it must succeed."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=ENV, capture_output=True, check=False
    )
    took = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{args} failed: {done.stderr.decode()[-2000:]}")
    return took


def imported(home: Path, command: tuple[str, ...]) -> set[str]:
    """The top-level packages the command imports (``-X importtime``'s list)."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "tui.cli", "--home", str(home), *command],
        cwd=ROOT, env=ENV, capture_output=True, check=True,
    )  # fmt: skip
    names = set()
    for line in done.stderr.decode().splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip().split(".")[0])
    return names


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hexpost-bench-cli-") as tmp:
        home = build_home(Path(tmp))
        bare: list[float] = []
        floors: dict[str, list[float]] = {name: [] for name in COMMANDS}
        figures: dict[str, list[float]] = {name: [] for name in COMMANDS}
        for _ in range(args.runs):
            bare.append(timed("-c", "pass"))
            for name, command in COMMANDS.items():
                floors[name].append(timed("-c", f"import {', '.join(NEEDS[name])}"))
                figures[name].append(timed("-m", "tui.cli", "--home", str(home), *command))
        p = statistics.median(bare)
        print(f"home: Alice's, one F&E game (the tutorial 'border', set up); {args.runs} runs")
        print(f"(p) bare interpreter, python -c pass:  {p * 1e3:6.0f} ms (median)")
        for name, command in COMMANDS.items():
            f, c = statistics.median(floors[name]), statistics.median(figures[name])
            print(f"hexpost {' '.join(command)}")
            print(f"  (f) floor, import {', '.join(NEEDS[name])}: {f * 1e3:6.0f} ms")
            print(f"  (c) the command:  {c * 1e3:6.0f} ms   c/f = {c / f:.2f} (target <= 2)")
            print(f"      c/p = {c / p:.1f}")
            extra = sorted(set(AVOID) & imported(home, command))
            print(f"      imports it has no use for: {', '.join(extra) or 'none'}")


if __name__ == "__main__":
    main()
