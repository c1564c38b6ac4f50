"""Start-up of the read-only commands against their floor, in the same run.

    .venv/bin/python bench/cli_start.py [--runs 15]

Each figure is the CPU time of a fresh interpreter, from its start to its exit (its user and
system time, read from ``RUSAGE_CHILDREN``: on a shared machine a wall clock measures the other
processes too), median over the runs (the runs alternate, so a busy moment of the machine hits
every figure alike); the wall times are printed beside them:

  (p) the bare interpreter: ``python -c pass``;
  (f) the floor of each command: ``python -c "import <the modules it needs>"``, the modules
      listed in `NEEDS` (opening the home's store, the game records, the ruleset whose games
      the home holds, JSON out);
  (c) the command through its real entry point, ``python -m tui.cli --home H games --json``
      and ``... show wind --json``.

The home is the one ``bench/tui.py`` builds (Alice's, with The Wind named ``wind``, an F&E
game at turn 1, set up), built once before timing as the app tests build it. Issue 16's
target is c / f at most 2; c / p is printed too. It also lists which of the modules that
should stay out of a read-only command (asyncio, the mail package, Textual, Rich) the command
imported, from ``-X importtime``. It asserts nothing.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.machine import describe  # noqa: E402
from bench.tui import GAME, build_home  # noqa: E402

NEEDS: dict[str, tuple[str, ...]] = {
    "games": ("saves.home", "saves.replica", "engine.fe", "json"),
    "show": ("saves.home", "saves.replica", "engine.fe", "json"),
}
"""What each command cannot do without: the home and its store (`saves.home`), the game
records and states (`saves.replica`), the ruleset of the home's games (F&E) to read their
states, and the json module to print them."""

COMMANDS: dict[str, tuple[str, ...]] = {
    "games": ("games", "--json"),
    "show": ("show", GAME, "--json"),
}

AVOID = ("asyncio", "mail", "textual", "rich")
"""Top-level packages a read-only command has no use for (it prints JSON or plain text: Rich
is the app's)."""

ENV = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def timed(*args: str) -> tuple[float, float]:
    """CPU and wall seconds for ``python args...`` to run to its end; it must succeed."""
    cpu = _children_cpu()
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=ENV, capture_output=True, check=False
    )
    took = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{args} failed: {done.stderr.decode()[-2000:]}")
    return _children_cpu() - cpu, took


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
    print(describe())
    with tempfile.TemporaryDirectory(prefix="hexpost-bench-cli-") as tmp:
        home = build_home(Path(tmp))
        bare: list[tuple[float, float]] = []
        floors: dict[str, list[tuple[float, float]]] = {name: [] for name in COMMANDS}
        figures: dict[str, list[tuple[float, float]]] = {name: [] for name in COMMANDS}
        for _ in range(args.runs):
            bare.append(timed("-c", "pass"))
            for name, command in COMMANDS.items():
                floors[name].append(timed("-c", f"import {', '.join(NEEDS[name])}"))
                figures[name].append(timed("-m", "tui.cli", "--home", str(home), *command))
        p, pw = _medians(bare)
        print(f"home: Alice's, one F&E game (The Wind, {GAME!r}, set up); {args.runs} runs")
        print(f"(p) bare interpreter, python -c pass:  {p * 1e3:6.0f} ms CPU ({pw * 1e3:.0f} wall)")
        for name, command in COMMANDS.items():
            (f, fw), (c, cw) = _medians(floors[name]), _medians(figures[name])
            print(f"hexpost {' '.join(command)}")
            print(
                f"  (f) floor, import {', '.join(NEEDS[name])}:"
                f" {f * 1e3:6.0f} ms CPU ({fw * 1e3:.0f} wall)"
            )
            print(
                f"  (c) the command:  {c * 1e3:6.0f} ms CPU ({cw * 1e3:.0f} wall)"
                f"   c/f = {c / f:.2f} (target <= 2; wall {cw / fw:.2f})"
            )
            print(f"      c/p = {c / p:.1f}")
            extra = sorted(set(AVOID) & imported(home, command))
            print(f"      imports it has no use for: {', '.join(extra) or 'none'}")


def _medians(runs: list[tuple[float, float]]) -> tuple[float, float]:
    """The median CPU time and the median wall time of ``runs``."""
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


if __name__ == "__main__":
    main()
