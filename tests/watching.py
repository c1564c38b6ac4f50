"""``hexpost sync --watch`` in a child process, for the tests that run it as a player would
(over mail in `tests/mail/test_mail_game.py`, over a shared folder in
`tests/tui/test_cli_watch_folder.py`): its output read line by line as it comes."""

from __future__ import annotations

import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def watching(global_args: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    """``hexpost GLOBAL_ARGS sync --watch`` in a child process, its output piped."""
    return subprocess.Popen(
        [sys.executable, "-m", "tui.cli", *global_args, "sync", "--watch"],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def output_lines(child: subprocess.Popen[str]) -> queue.Queue[str]:
    """The child's standard output, a line at a time, read by a thread of its own (so that a
    test waits for a line with a timeout, never on a blocking read)."""
    lines: queue.Queue[str] = queue.Queue()

    def forward() -> None:
        for line in child.stdout or ():
            lines.put(line)

    threading.Thread(target=forward, daemon=True).start()
    return lines


def read_until(lines: queue.Queue[str], needle: str, timeout: float = 60.0) -> str:
    """Lines from a child's output up to the first one containing ``needle``."""
    seen = ""
    deadline = time.monotonic() + timeout
    while needle not in seen:
        remaining = deadline - time.monotonic()
        assert remaining > 0, f"no {needle!r} in the output so far:\n{seen}"
        try:
            seen += lines.get(timeout=remaining)
        except queue.Empty:
            continue
    return seen


def stopped(child: subprocess.Popen[str]) -> None:
    """Kill the child if it still runs (a failed test), then check and close its streams."""
    if child.poll() is None:
        child.kill()
        child.wait()
    errors = child.stderr.read() if child.stderr else ""
    for stream in (child.stdout, child.stderr):
        if stream:
            stream.close()
    assert "Traceback" not in errors, errors
