"""``hexpost sync --watch`` over a shared folder: the service a folder player runs so that the
other side's packets are applied (and the automatic replies written) as they land, without
mail. `tests/mail/test_mail_game.py` runs the same command against real mail servers.
"""

from __future__ import annotations

import asyncio
import json
import signal
from typing import Any

from mail.folder import FolderTransport
from mail.reminding import send_reminders
from saves import reminders
from tests.tui.conftest import Player, start_game
from tests.watching import output_lines, read_until, stopped, watching


def test_watch_applies_what_lands_in_the_folder_and_stops_cleanly(
    alice: Player, bob: Player
) -> None:
    game, _ = start_game(alice, bob, "watched", setup=False, in_process=True)
    short = game[:10]
    before = bob.seq(short)
    watcher = watching(bob.global_args(), bob.env())
    try:
        lines = output_lines(watcher)
        seen = read_until(lines, "watching folder:")
        note = {"orders": [{"type": "note", "text": "for the watcher"}]}
        alice.ok("orders", short, "-", stdin=json.dumps(note))
        alice.sync()
        seen += read_until(lines, "for the watcher")
        assert "1 packet from Alice (coalition)" in seen, seen
        assert bob.seq(short) == alice.seq(short) > before  # read by another process meanwhile
        watcher.send_signal(signal.SIGTERM)  # a service manager's stop
        assert watcher.wait(timeout=30) == 0
        seen += read_until(lines, "stopped watching")
    finally:
        stopped(watcher)


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
