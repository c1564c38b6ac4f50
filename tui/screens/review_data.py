"""The review screen's reads of the home, on the session's store thread.

The review steps through a game's packets; each step needs the record as it was after one
packet and the one before it (for the diff). What they are is `tui.services.review`'s (the
chain indexed once, `tui.services.show.show` with ``at``); this module only runs those reads
through `Session.call`, the session's "run this on the store thread" door, so they never
touch SQLite from the event loop nor race a sync (see `tui.screens.session`), and caches
what it built, so stepping back and forth costs nothing after the first visit.

`ReviewReader` reads through the session's own `Replica` (`Session.reader`), so a review
opened at the head reads the very state the game screen read, whose board the engine has
already worked out (its views are kept for the last state asked). The records are the typed
`ShowRecord`s that ``hexpost show --at N --json`` prints.

A record takes tens of ms to build (The Wind's: about 25 ms) and holds a whole board, so the
reader keeps the last `KEPT_RECORDS` used, and the screen asks for the next one the player
is likely to step to (`prefetch`) while they look at this one: a step to it is then shown in
the key's own frame. A record asked for while it is being built is awaited, not built twice.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tui.screens.session import Session
from tui.services.review import (
    PacketMark,
    ReviewIndex,
    first_unread,
    next_mark,
)

if TYPE_CHECKING:
    from saves.replica import Replica
    from tui.services.show import ShowRecord

__all__ = [
    "Opening",
    "PacketMark",
    "ReviewIndex",
    "ReviewReader",
    "first_unread",
    "next_mark",
    "seqs_for",
]


KEPT_RECORDS = 16
"""How many records the reader keeps, the last used: a step back and forth costs nothing,
and a long review does not keep every board it showed (each about 2 MB for The Wind)."""

Key = tuple[str, int]
"""A record's game (hex id) and packet number."""


def seqs_for(seq: int) -> list[int]:
    """The records packet ``seq`` is shown with: its own and the one before (the diff)."""
    return [seq - 1, seq] if seq > 0 else [seq]


@dataclass(frozen=True)
class Opening:
    """What a review shows first: the chain's index, the packet it opens at, and the records
    that packet is shown with (`seqs_for`)."""

    index: ReviewIndex
    seq: int
    records: dict[int, ShowRecord]


class ReviewReader:
    """The review's reads, each awaited on the session's store thread."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self._records: OrderedDict[Key, ShowRecord] = OrderedDict()
        """The last records used, the most recent last."""
        self._building: dict[Key, asyncio.Future[ShowRecord]] = {}
        """The records being built on the store thread."""

    async def index(self, game_id: str, *, mark_read: bool = True) -> ReviewIndex:
        return await self.session.call(self._index, game_id, mark_read)

    async def opening(self, game_id: str, start_seq: int | None = None) -> Opening:
        """The index and the records of the packet the review opens at (``start_seq``,
        clamped to the chain, or the first one not read), read in one hop to the store
        thread: a second hop for the records was a wait of its own, with the screen drawn
        empty in between. The records are kept. Marks the chain read."""
        opening = await self.session.call(self._opening, game_id, start_seq)
        for seq, record in opening.records.items():
            self._keep((game_id, seq), record)
        return opening

    def cached(self, game_id: str, seqs: list[int]) -> dict[int, ShowRecord] | None:
        """The records after each packet of ``seqs`` if all are kept (now the most recently
        used), else None: nothing is read."""
        if any((game_id, seq) not in self._records for seq in seqs):
            return None
        for seq in seqs:
            self._records.move_to_end((game_id, seq))
        return {seq: self._records[game_id, seq] for seq in seqs}

    async def records(self, game_id: str, seqs: list[int]) -> dict[int, ShowRecord]:
        """The records after each packet of ``seqs`` (with the checklist), kept or built.

        A caller that is cancelled (the player stepped on) leaves the build to finish: its
        record is kept for the next step."""
        found: dict[int, ShowRecord] = {}
        for seq in seqs:
            kept = self._records.get((game_id, seq))
            if kept is not None:
                self._records.move_to_end((game_id, seq))
                found[seq] = kept
            else:
                found[seq] = await asyncio.shield(self._build_of(game_id, seq))
        return found

    def prefetch(self, game_id: str, seq: int) -> None:
        """Start building the record after packet ``seq`` unless it is kept or under way."""
        if (game_id, seq) not in self._records:
            self._build_of(game_id, seq)

    def _build_of(self, game_id: str, seq: int) -> asyncio.Future[ShowRecord]:
        key = (game_id, seq)
        building = self._building.get(key)
        if building is None:
            building = asyncio.ensure_future(self.session.call(self._build, game_id, seq))
            self._building[key] = building
            building.add_done_callback(lambda done: self._built(key, done))
        return building

    def _built(self, key: Key, done: asyncio.Future[ShowRecord]) -> None:
        """Keep a finished build (a failed one is left to whoever awaits it: it is asked
        again, and says why, when the player steps there)."""
        self._building.pop(key, None)
        if done.cancelled() or done.exception() is not None:
            return
        self._keep(key, done.result())

    def _keep(self, key: Key, record: ShowRecord) -> None:
        self._records[key] = record
        self._records.move_to_end(key)
        while len(self._records) > KEPT_RECORDS:
            self._records.popitem(last=False)

    # --- on the store thread ------------------------------------------------------------------

    def _reader(self) -> Replica:
        return self.session.reader()

    def _index(self, game_id: str, mark_read: bool) -> ReviewIndex:
        from tui.services import review

        return review.index(self._reader(), bytes.fromhex(game_id), mark_read=mark_read)

    def _opening(self, game_id: str, start_seq: int | None) -> Opening:
        from tui.services import review

        replica, game = self._reader(), bytes.fromhex(game_id)
        index = review.index(replica, game, mark_read=True)
        seq = index.start if start_seq is None else max(0, min(start_seq, index.last))
        return Opening(index, seq, review.records(replica, game, seqs_for(seq)))

    def _build(self, game_id: str, seq: int) -> ShowRecord:
        from tui.services import review

        return review.records(self._reader(), bytes.fromhex(game_id), [seq])[seq]
