"""`bench/tui.py`'s children still start and paint.

The bench times `hexpost play` in a child process that runs the app headless and prints a
line at the first paint it waits for. When `play` began refusing to start without a
terminal (2026-12-05), every child failed and the bench printed no figure for two days
unnoticed. This runs each child once (no timing is asserted, only that it painted).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import tui as bench


@pytest.mark.parametrize("wait_for", ["game", "rows"])
def test_the_bench_s_hexpost_child_paints(tmp_path: Path, wait_for: str) -> None:
    home = bench.build_home(tmp_path)
    game = [bench.GAME] if wait_for == "game" else []
    run = bench.timed(bench.HEXPOST, str(home), wait_for, *game)
    assert run.cpu > 0 and run.peak > 0


def test_the_bench_s_bare_app_paints() -> None:
    assert bench.timed(bench.HELLO).cpu > 0
