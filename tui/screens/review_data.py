"""The review screen's reads of the home, on the session's store thread.

The review screen steps through a game's packets; each step needs the record as it was after
one packet (`render.show_record` with ``at``) and the one before it (for the diff). Those
reads go through `Session.call`, the session's generic "run this on the store thread" door,
so they never touch SQLite from the event loop nor race a sync (see `tui.screens.session`).
They live here, not in the session, so the review can grow without the session growing.

`ReviewReader` keeps its own `Replica` on the store thread (the same connection the session
uses: a replica is only a view of the home's one store) and caches the records it built, so
stepping back and forth costs nothing after the first visit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from saves.replica import Replica
from tui import render
from tui.screens.session import EventRow, Session, phase_titles

TURN_KINDS = frozenset({"player-turn", "setup-over", "orion", "over"})
"""Event kinds that open a new part of the game: where ``[`` and ``]`` stop."""
PHASE_KINDS = frozenset({"phase"}) | TURN_KINDS
"""Event kinds that open a new phase (a new turn opens one too): where ``{`` and ``}`` stop."""


@dataclass(frozen=True)
class PacketMark:
    """One packet of the chain: who wrote it, its kind, and whether it opened a turn or phase."""

    seq: int
    seat: str
    kind: str
    turn: bool
    phase: bool


@dataclass(frozen=True)
class ReviewIndex:
    """A game's chain as the review steps through it, read once when the screen opens."""

    game_id: str
    name: str
    my_seat: str
    packets: tuple[PacketMark, ...]
    events: tuple[EventRow, ...]
    start: int
    """The first packet this player had not read yet, or the last one when all were read."""
    phase_titles: dict[str, str]
    phase_rules: dict[str, str]

    @property
    def last(self) -> int:
        return self.packets[-1].seq if self.packets else 0

    def events_of(self, seq: int) -> list[EventRow]:
        return [row for row in self.events if row[0] == seq]


def first_unread(marks: list[PacketMark], my_seat: str, unread: int) -> int:
    """Where a review starts: ``unread`` counts the other seats' packets not looked at yet
    (`saves.ledger` adds one per packet from another seat), so the first of the last
    ``unread`` such packets; the last packet when nothing is new."""
    if not marks:
        return 0
    theirs = [mark.seq for mark in marks if mark.seat != my_seat]
    if unread <= 0 or not theirs:
        return marks[-1].seq
    return theirs[-min(unread, len(theirs))]


def next_mark(marks: tuple[PacketMark, ...], seq: int, *, phase: bool, forward: bool) -> int:
    """The packet that opens the next (or the previous) turn or phase from ``seq``; the last
    (or the first) packet when there is none that way."""
    stops = [mark.seq for mark in marks if (mark.phase if phase else mark.turn)]
    if forward:
        later = [s for s in stops if s > seq]
        return later[0] if later else (marks[-1].seq if marks else seq)
    earlier = [s for s in stops if s < seq]
    return earlier[-1] if earlier else (marks[0].seq if marks else seq)


class ReviewReader:
    """The review's reads, each awaited on the session's store thread."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self._replica: Replica | None = None
        self._records: dict[tuple[str, int], dict[str, Any]] = {}

    async def index(self, game_id: str, *, mark_read: bool = True) -> ReviewIndex:
        return await self.session.call(self._index, game_id, mark_read)

    async def records(self, game_id: str, seqs: list[int]) -> dict[int, dict[str, Any]]:
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
        replica = self._reader()
        row = replica.game(bytes.fromhex(game_id))
        events = [(seq, e.seat, e.kind, e.text) for seq, e in replica.events(row.game_id)]
        kinds: dict[int, set[str]] = {}
        for seq, _, kind, _ in events:
            kinds.setdefault(seq, set()).add(kind)
        marks = [
            PacketMark(
                seq=rec["seq"],
                seat=rec["seat"],
                kind=rec["kind"],
                turn=bool(kinds.get(rec["seq"], set()) & TURN_KINDS),
                phase=bool(kinds.get(rec["seq"], set()) & PHASE_KINDS),
            )
            for rec in render.log_records(replica, row)
        ]
        start = first_unread(marks, row.my_seat, row.unread)
        if mark_read:
            replica.mark_read(row.game_id)
        return ReviewIndex(
            game_id=game_id,
            name=row.name,
            my_seat=row.my_seat,
            packets=tuple(marks),
            events=tuple(events),
            start=start,
            phase_titles=phase_titles(row.ruleset)[0],
            phase_rules=phase_titles(row.ruleset)[1],
        )

    def _build(self, game_id: str, seqs: list[int]) -> dict[int, dict[str, Any]]:
        replica = self._reader()
        row = replica.game(bytes.fromhex(game_id))
        return {seq: render.show_record(replica, row, at=seq, checklist=True) for seq in seqs}
