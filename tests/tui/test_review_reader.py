"""The review's reader keeps the last records used, builds each once, and reads ahead.

`ReviewReader` is driven here with a stand-in for the session (its ``call`` runs the build on
the event loop's default executor, as the session runs it on its store thread) and a build
that counts and can be held, so a test decides when a build ends. The real reads are the
review screen's tests' (`tests.tui.test_review`).
"""

from __future__ import annotations

import asyncio
import functools
import threading
from collections.abc import Callable
from typing import Any, cast

import pytest

from engine.core.errors import HexpostError
from tui.screens.review_data import KEPT_RECORDS, Opening, ReviewIndex, ReviewReader
from tui.screens.session import Session
from tui.services.show import ShowRecord

GAME = "00ff"


class StoreThread:
    """What `ReviewReader` uses of a session: ``call`` runs ``fn`` off the event loop."""

    async def call(self, fn: Callable[..., Any], *args: Any) -> Any:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(None, functools.partial(fn, *args))


class Builds:
    """A stand-in for `ReviewReader._build`: counts the builds of each packet, fails those in
    ``failing``, and holds every build until ``release`` is set."""

    def __init__(self) -> None:
        self.count: dict[int, int] = {}
        self.failing: set[int] = set()
        self.release = threading.Event()
        self.release.set()

    def __call__(self, game_id: str, seq: int) -> ShowRecord:
        self.count[seq] = self.count.get(seq, 0) + 1
        self.release.wait(10)
        if seq in self.failing:
            raise HexpostError(f"packet {seq} cannot be read")
        return cast(ShowRecord, ("record", game_id, seq))  # (only its identity is read)


def record(seq: int) -> object:
    """What the stand-in builds for packet ``seq``."""
    return ("record", GAME, seq)


def reader_with(builds: Builds) -> ReviewReader:
    reader = ReviewReader(cast(Session, StoreThread()))
    reader._build = builds  # type: ignore[method-assign]
    return reader


async def test_the_last_records_used_are_kept_and_no_more() -> None:
    builds = Builds()
    reader = reader_with(builds)
    for seq in range(KEPT_RECORDS + 4):
        await reader.records(GAME, [seq])
    assert reader.cached(GAME, [0]) is None  # the first four are gone
    assert reader.cached(GAME, [3]) is None
    kept = reader.cached(GAME, [4, KEPT_RECORDS + 3])
    assert kept is not None and kept[4] == record(4)
    assert len(reader._records) == KEPT_RECORDS
    await reader.records(GAME, [4, 5])  # kept: not built again
    assert builds.count[4] == builds.count[5] == 1
    await reader.records(GAME, [0])  # gone: built again (and 6 is now the oldest)
    assert builds.count[0] == 2
    assert reader.cached(GAME, [4]) is not None  # used last: kept


async def test_a_record_under_way_is_awaited_not_built_twice() -> None:
    builds = Builds()
    builds.release.clear()
    reader = reader_with(builds)
    reader.prefetch(GAME, 7)  # the screen reads ahead...
    first = asyncio.ensure_future(reader.records(GAME, [6, 7]))  # ...and the player steps
    second = asyncio.ensure_future(reader.records(GAME, [7]))
    await asyncio.sleep(0.05)
    assert not first.done() and not second.done()
    builds.release.set()
    records = await first
    assert records[7] is (await second)[7]
    assert builds.count == {6: 1, 7: 1}
    reader.prefetch(GAME, 7)  # kept now: nothing to do
    assert builds.count == {6: 1, 7: 1}


async def test_a_step_cancelled_leaves_its_record_to_be_kept() -> None:
    builds = Builds()
    builds.release.clear()
    reader = reader_with(builds)
    step = asyncio.ensure_future(reader.records(GAME, [9]))
    await asyncio.sleep(0.05)
    step.cancel()  # the player stepped on before the record came
    with pytest.raises(asyncio.CancelledError):
        await step
    builds.release.set()
    for _ in range(100):
        if reader.cached(GAME, [9]) is not None:
            break
        await asyncio.sleep(0.01)
    assert reader.cached(GAME, [9]) is not None
    assert builds.count == {9: 1}


async def test_a_failed_read_says_why_and_is_tried_again() -> None:
    builds = Builds()
    builds.failing.add(3)
    reader = reader_with(builds)
    reader.prefetch(GAME, 3)  # fails with no one waiting: nothing kept, nothing raised
    await asyncio.sleep(0.05)
    assert reader.cached(GAME, [3]) is None
    with pytest.raises(HexpostError, match="packet 3"):
        await reader.records(GAME, [3])
    builds.failing.clear()
    assert (await reader.records(GAME, [3]))[3] == record(3)
    assert builds.count[3] == 3


async def test_the_opening_is_read_in_one_call_and_its_records_kept() -> None:
    """`ReviewReader.opening` reads the index and the first packet's records in one call on
    the store thread; a step back to that packet then needs no build."""
    builds = Builds()
    reader = reader_with(builds)
    index = cast(ReviewIndex, "index")
    calls: list[tuple[str, int | None]] = []

    def opening(game_id: str, start_seq: int | None) -> Opening:
        calls.append((game_id, start_seq))
        return Opening(index, 5, {4: cast(ShowRecord, record(4)), 5: cast(ShowRecord, record(5))})

    reader._opening = opening  # type: ignore[method-assign]
    opened = await reader.opening(GAME, 5)
    assert calls == [(GAME, 5)]
    assert opened.index is index and opened.seq == 5
    assert reader.cached(GAME, [4, 5]) == {4: record(4), 5: record(5)}
    assert builds.count == {}


def test_the_reader_reads_through_the_sessions_replica() -> None:
    """Not a replica of its own: the head state (and the board the engine worked out for
    it when the game screen read it) is the session's, so a review at the head reuses it."""
    replica = object()

    class Session:
        def reader(self) -> object:
            return replica

    assert ReviewReader(cast(Any, Session()))._reader() is replica
