"""The review screen's reads of the home, on the session's store thread.

The review steps through a game's packets; each step needs the record as it was after one
packet and the one before it (for the diff). What they are is `tui.services.review`'s (the
chain indexed once, `tui.services.show.show` with ``at``); this module only runs those reads
through `Session.call`, the session's "run this on the store thread" door, so they never
touch SQLite from the event loop nor race a sync (see `tui.screens.session`), and caches
what it built, so stepping back and forth costs nothing after the first visit.

`ReviewReader` keeps its own `Replica` on the store thread (the same connection the session
uses: a replica is only a view of the home's one store). The records are the typed
`ShowRecord`s that ``hexpost show --at N --json`` prints.
"""

from __future__ import annotations

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
    "PacketMark",
    "ReviewIndex",
    "ReviewReader",
    "first_unread",
    "next_mark",
]


class ReviewReader:
    """The review's reads, each awaited on the session's store thread."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self._replica: Replica | None = None
        self._records: dict[tuple[str, int], ShowRecord] = {}

    async def index(self, game_id: str, *, mark_read: bool = True) -> ReviewIndex:
        return await self.session.call(self._index, game_id, mark_read)

    async def records(self, game_id: str, seqs: list[int]) -> dict[int, ShowRecord]:
        """The records after each packet of ``seqs`` (with the checklist), cached."""
        wanted = [seq for seq in seqs if (game_id, seq) not in self._records]
        if wanted:
            built = await self.session.call(self._build, game_id, wanted)
            for seq, record in built.items():
                self._records[game_id, seq] = record
        return {seq: self._records[game_id, seq] for seq in seqs}

    # --- on the store thread ------------------------------------------------------------------

    def _reader(self) -> Replica:
        if self._replica is None:
            self._replica = self.session.home.replica()
        return self._replica

    def _index(self, game_id: str, mark_read: bool) -> ReviewIndex:
        from tui.services import review

        return review.index(self._reader(), bytes.fromhex(game_id), mark_read=mark_read)

    def _build(self, game_id: str, seqs: list[int]) -> dict[int, ShowRecord]:
        from tui.services import review

        return review.records(self._reader(), bytes.fromhex(game_id), seqs)
