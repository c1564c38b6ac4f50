"""Orders signed while a sync runs get a sync of their own after it (`send_signed`). Found in
a game played in the app: the running sync had already sent the new packet, so the one after
it sent nothing, and the status line said "synced: received 0, applied 0, sent 0" as the
last word on a move just sent, which read as a move that never left. A quiet follow-up sync
now leaves the line the sync before it wrote; one that did something says so."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.tui.test_app import SIZE, Tutorial, app_for, open_game, settle, tutorial_at
from tui.services.sync import SyncOutcome

SENT = "synced: received 0, applied 0, sent 1"
QUIET = SyncOutcome("synced: received 0, applied 0, sent 0", quiet=True)


@pytest.fixture
def game(tmp_path: Path) -> Iterator[Tutorial]:
    with tutorial_at(tmp_path) as tutorial:
        yield tutorial


@pytest.mark.parametrize(
    ("after", "said"),
    [(QUIET, SENT), (SyncOutcome("synced: received 1, applied 1, sent 0"), "received 1")],
)
async def test_the_sync_after_a_signing_does_not_unsay_the_send(
    game: Tutorial, monkeypatch: pytest.MonkeyPatch, after: SyncOutcome, said: str
) -> None:
    app = app_for(game.alice)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        gate = asyncio.Event()
        calls: list[int] = []

        async def sync() -> SyncOutcome:
            calls.append(len(calls))
            if len(calls) == 1:
                await gate.wait()
                return SyncOutcome(SENT)
            return after

        monkeypatch.setattr(app.session, "sync", sync)
        screen.action_sync()
        await pilot.pause()
        assert screen.syncing
        screen.send_signed()  # a packet queued while that sync runs
        gate.set()
        await settle(pilot)
        assert calls == [0, 1]  # the follow-up ran
        assert said in screen.status.text, screen.status.text
