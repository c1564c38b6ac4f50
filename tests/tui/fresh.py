"""A fresh interpreter for the tests that check what a command or a module imports.

What a process imports can only be seen from a process that has imported nothing else, so
these tests run a short script in a child: with the project on its path and no other
environment (no stray ``PYTHON*`` or hexpost settings from the caller's shell), from the
repository's root. A child reports in JSON on the last line of its standard error, so the
command's own output stays apart on standard output.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def run_child(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -c script args...`` in a clean environment, its output captured as text."""
    return subprocess.run(
        [sys.executable, "-c", script, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )


def child_report(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    """The JSON object a child printed last on its standard error."""
    report: dict[str, Any] = json.loads(done.stderr.strip().splitlines()[-1])
    return report
