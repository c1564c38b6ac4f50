"""Stepping through a game's packets: the chain indexed once, and the game after any packet.

The review shows the game as it was after one packet and what changed since the one before;
``[``/``]`` jump a player turn and ``{``/``}`` a phase. `index` reads the chain and marks
where turns and phases begin; `records` builds the `ShowRecord` after each asked packet.
"""

from __future__ import annotations

import msgspec

from saves.registry import face_for
from saves.replica import Replica
from tui.services.log import EventRow, event_rows, log_heads
from tui.services.show import ShowRecord, show


class PacketMark(msgspec.Struct, frozen=True):
    """One packet of the chain: who wrote it, its kind, and whether it opened a turn or phase."""

    seq: int
    seat: str
    kind: str
    turn: bool
    phase: bool


class ReviewIndex(msgspec.Struct, frozen=True):
    """A game's chain as the review steps through it, read once when the screen opens."""

    game_id: str
    name: str
    my_seat: str
    packets: tuple[PacketMark, ...]
    events: tuple[EventRow, ...]
    start: int
    """The first packet this player had not read yet, or the last one when all were read."""

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


def index(replica: Replica, game_id: bytes, *, mark_read: bool) -> ReviewIndex:
    """The chain of ``game_id`` marked for stepping; ``mark_read``: the player has now seen
    every packet (the review starts at the first one they had not)."""
    row = replica.game(game_id)
    events = event_rows(replica, row.game_id)
    landmarks = face_for(row.ruleset).landmarks()
    turn_kinds = set(landmarks.parts)
    phase_kinds = set(landmarks.phases) | turn_kinds  # a new part opens a new phase too
    kinds: dict[int, set[str]] = {}
    for seq, _, kind, _ in events:
        kinds.setdefault(seq, set()).add(kind)
    marks = [
        PacketMark(
            seq=seq,
            seat=seat,
            kind=kind,
            turn=bool(kinds.get(seq, set()) & turn_kinds),
            phase=bool(kinds.get(seq, set()) & phase_kinds),
        )
        for seq, seat, kind in log_heads(replica, row)
    ]
    start = first_unread(marks, row.my_seat, row.unread)
    if mark_read:
        replica.mark_read(row.game_id)
    return ReviewIndex(
        game_id=game_id.hex(),
        name=row.name,
        my_seat=row.my_seat,
        packets=tuple(marks),
        events=tuple(events),
        start=start,
    )


def records(replica: Replica, game_id: bytes, seqs: list[int]) -> dict[int, ShowRecord]:
    """The game after each packet of ``seqs``, with the checklist: what the review shows,
    so without the state hash, the ruleset client's extras (F&E's work out every unit's
    supply once more) and the seat's choices (their menus read the board), which it never
    shows."""
    row = replica.game(game_id)
    states = replica.states(game_id, seqs)  # (a packet and the one before it: one replay)
    # The last first: at the head its state is the one the replica keeps, whose board views
    # the engine keeps for the last state asked (`engine.fe.views.shared_views`), so a board
    # the game screen has just worked out is not worked out again.
    built = {
        seq: show(
            replica,
            row,
            at=seq,
            checklist=True,
            extras=False,
            hashed=False,
            state=states[seq],
            choices=False,
        )
        for seq in sorted(seqs, reverse=True)
    }
    return {seq: built[seq] for seq in seqs}
