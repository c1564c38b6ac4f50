"""Orders signed while a sync runs get a sync of their own after it (`send_signed`). Found in
a game played in the app: the running sync had already sent the new packet, so the one after
it sent nothing, and the status line said "synced: received 0, applied 0, sent 0" as the
last word on a move just sent, which read as a move that never left. The same came from the
watch, which saw our own packet land in the shared folder. A quiet sync nobody pressed a key
for now leaves the line as it was; one that did something says so, and ``s`` always does."""

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


async def test_a_quiet_sync_the_watch_started_leaves_the_line(
    game: Tutorial, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seen with the shared folder: the watch saw our own packet land there and synced;
    nothing came, and "sent 0" replaced the line that said the packet was sent."""
    app = app_for(game.alice)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_game(pilot)
        outcomes = [SyncOutcome(SENT), QUIET]

        async def sync() -> SyncOutcome:
            return outcomes.pop(0)

        monkeypatch.setattr(app.session, "sync", sync)
        screen.action_sync()  # s: what it did is said
        await settle(pilot)
        assert screen.status.text == SENT
        app.sync_arrivals()  # the watch: nothing came
        await settle(pilot)
        assert outcomes == [] and screen.status.text == SENT
