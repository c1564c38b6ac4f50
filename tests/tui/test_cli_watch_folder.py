"""``hexpost sync --watch`` over a shared folder: the service a folder player runs so that the
other side's packets are applied (and the automatic replies written) as they land, without
mail. `tests/mail/test_mail_game.py` runs the same command against real mail servers.
"""

from __future__ import annotations

import asyncio
import json
import queue
import signal
import subprocess
import sys
import threading
import time
from typing import Any

from mail.folder import FolderTransport
from mail.watch import send_reminders
from saves import reminders
from tests.tui.conftest import ROOT, Player, start_game


def _watching(player: Player) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tui.cli", *player.global_args(), "sync", "--watch"],
        cwd=ROOT,
        env=player.env(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _read_until(lines: queue.Queue[str], needle: str, timeout: float = 60.0) -> str:
    """The child's output up to the first line containing ``needle``."""
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


def test_watch_applies_what_lands_in_the_folder_and_stops_cleanly(
    alice: Player, bob: Player
) -> None:
    game, _ = start_game(alice, bob, "watched", setup=False)
    short = game[:10]
    before = bob.seq(short)
    watcher = _watching(bob)
    try:
        lines: queue.Queue[str] = queue.Queue()

        def forward() -> None:
            for line in watcher.stdout or ():
                lines.put(line)

        threading.Thread(target=forward, daemon=True).start()
        seen = _read_until(lines, "watching folder:")
        note = {"orders": [{"type": "note", "text": "for the watcher"}]}
        alice.ok("orders", short, "-", stdin=json.dumps(note))
        alice.sync()
        seen += _read_until(lines, "for the watcher")
        assert "1 packet from Alice (coalition)" in seen, seen
        assert bob.seq(short) == alice.seq(short) > before  # read by another process meanwhile
        watcher.send_signal(signal.SIGTERM)  # a service manager's stop
        assert watcher.wait(timeout=30) == 0
        seen += _read_until(lines, "stopped watching")
    finally:
        if watcher.poll() is None:
            watcher.kill()
            watcher.wait()
    errors = watcher.stderr.read() if watcher.stderr else ""
    assert "Traceback" not in errors, errors
    for stream in (watcher.stdout, watcher.stderr):
        if stream:
            stream.close()


def test_a_folder_reminds_no_one_by_email(tutorial: Any) -> None:
    """A late player is reminded by email; a watch over a folder has no email to send, and
    goes on (unchecked, the round failed on the folder's missing ``send_text``)."""
    bob, game = tutorial.bob, tutorial.game_id  # Bob waits on Alice (1A1)
    with bob.replica.store.transaction() as db:
        db.execute(
            "UPDATE games SET waiting_since = '2030-01-01T00:00:00Z' WHERE game_id = ?", (game,)
        )
    later = "2030-01-04T01:00:00Z"
    assert len(reminders.due(bob.replica, later)) == 1  # a reminder is due
    folder = FolderTransport(tutorial.alice.home.path.parent / "shared")
    assert asyncio.run(send_reminders(bob.replica, folder, lambda: later)) == []
