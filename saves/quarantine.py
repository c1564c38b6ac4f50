"""Where received items wait or are kept as refused: the parked and rejected tables, bounded.

Everything that arrives by mail or through a shared folder is hostile until verified, so what
this home keeps of it must be bounded by bytes, not only by count: a stranger can send forty
1 MiB envelopes in one sync. Parked packets (signed by a key not known yet, kept in case the
invitation that introduces it arrives later) and rejected items (kept so the player can see
what was refused and why) each have a row and a byte budget; the oldest go first, and the
caller reports how many were dropped.

A rejected item that names a game this home holds (from its unverified body, or from the
transport's routing hint: a file name, an ``X-Hexpost`` header) also records the position it
was for. That is how the games list can say "waiting for packet N from SEAT (last copy was
damaged)" instead of waiting silently for a packet that already came, unusable.
"""

from __future__ import annotations

from datetime import timedelta

import msgspec

from saves import holes, store_inbox
from saves.store import Store

MAX_PARKED = 10_000
"""Parked packets kept at most."""
MAX_PARKED_BYTES = 16 * 1024 * 1024
"""Bytes of parked packets kept at most (a packet may be 1 MiB; a real one is a few KiB)."""
MAX_REJECTED = 1_000
"""Rejected items kept at most."""
MAX_REJECTED_BYTES = 4 * 1024 * 1024
"""Bytes of rejected items kept at most."""
KEEP_REJECTED_BYTES = 64 * 1024
"""Of a rejected item, only its first bytes are kept: enough to see what it was."""


class Damage(msgspec.Struct, frozen=True):
    """A refused copy of a packet this home still waits for."""

    game_id: bytes
    seq: int
    seat: str
    source: str
    reason: str
    seen_at: str


def park(store: Store, kid: bytes, digest: bytes, data: bytes, now: str) -> int:
    """Keep a packet that cannot be placed yet; returns how many old ones were dropped."""
    store_inbox.park(store, kid, digest, data, now)
    return _prune(store, "parked", MAX_PARKED, MAX_PARKED_BYTES)


def reject(
    store: Store,
    game_id: bytes | None,
    source: str,
    reason: str,
    data: bytes,
    now: str,
    *,
    seq: int | None = None,
    seat: str = "",
) -> int:
    """Record a refused item (its first bytes); returns how many old records were dropped."""
    store_inbox.reject(
        store,
        game_id,
        source[:500],
        reason[:1000],
        data[:KEEP_REJECTED_BYTES],
        now,
        seq,
        seat[:40],
    )
    return _prune(store, "rejected", MAX_REJECTED, MAX_REJECTED_BYTES)


KEEP_AFTER_PRUNING = 9
"""Tenths of a quota kept when it overflows: pruning runs once per tenth of a quota's worth of
new items, not after each one, so a flood costs each item a constant amount of work."""


def _prune(store: Store, table: str, max_rows: int, max_bytes: int) -> int:
    """Drop the oldest rows of ``table`` once it holds more than ``max_rows`` or ``max_bytes``
    (the running count in table ``quota`` says so cheaply), down to nine tenths of both;
    returns how many were dropped."""
    rows, size = store_inbox.quota(store, table)
    if rows <= max_rows and size <= max_bytes:
        return 0
    keep_rows = max_rows * KEEP_AFTER_PRUNING // 10
    keep_bytes = max_bytes * KEEP_AFTER_PRUNING // 10
    return store_inbox.prune(store, table, keep_rows, keep_bytes)


def damage_ahead(store: Store, game_id: bytes, head_seq: int) -> Damage | None:
    """The first position after ``head_seq`` of which only a damaged copy arrived, if any."""
    row = store_inbox.first_damaged_after(store, game_id, head_seq)
    if row is None:
        return None
    return Damage(game_id, int(row[0]), str(row[1] or ""), str(row[2]), str(row[3]), str(row[4]))


def damage_text(damage: Damage, name: str, seat: str) -> str:
    """``waiting for packet N from SEAT (last copy was damaged): ...`` for lists and the app."""
    who = seat or damage.seat or "the other player"
    return (
        f"waiting for packet {damage.seq} from {who} (last copy was damaged): ask {who} to run "
        f"`hexpost resend {name} --from {damage.seq}`"
    )


MAX_AUTO_RESEND = 200
"""Packets one signed resend ask may have a home send again without its player
(`saves.resend_asks`): a damaged copy asks for one run of the other seat's packets, a home
restored from a recent backup for a few turns. An ask for more (an old backup, or a hostile
asker) waits for the player's ``hexpost resend``, which the note names."""

MAX_AUTO_ASKS = 10
"""Signed resend asks of one game a home answers by itself in any `ANSWER_DAY`, and with them
at most `MAX_AUTO_RESEND` packets in all: a game sees an ask now and then (an email lost or
mangled, a restore), each worth a few packets. A seat that asks again and again, each time
for up to `MAX_AUTO_RESEND` packets, would have this home mail it thousands of times (and
its mail provider might take that for spam); past the bound, each ask waits for the player,
and the day after, asks are answered again. (Until 2026-12-06 the ten were for the game's
whole life: a months-long campaign over lossy mail could use them up.)"""

ANSWER_DAY = timedelta(hours=24)
"""The span over which `MAX_AUTO_ASKS` and `MAX_AUTO_RESEND` bound a game's answers."""

ANSWER_AGAIN_AFTER = timedelta(hours=1)
"""A position answered this long ago is answered again when asked again: the answer's emails
may have been lost in their turn, and an honest home asks again no sooner (a gap waits
`saves.behind.GAP_PATIENCE`, a reminder a reply window of at least an hour). Sooner, the ask
is taken for a second copy of the same one."""


LOST = "lost from this home's store"
GAP = "a gap the other seat's move waits behind"
"""The reason of a `ResendRequest` for a packet lost from the middle of a chain (`saves.holes`);
`GAP`, for one that never came, though later ones did (`saves.behind.gap_request`)."""
REMINDER = "reminder"
CHECKED = "check"
"""The reasons of the ask that goes with a reminder and of a silent check's ask
(`saves.reminders`): both for the packet this home waits for, which may not be written yet."""


class ResendRequest(msgspec.Struct, frozen=True):
    """A note to the author of a packet whose only copy so far came damaged; or, with
    ``every_seat``, to the other player of a game this home is behind (`saves.behind`), or
    of one a packet of which it lost (reason `LOST`). ``upto``: the last packet it asks
    for, where it knows (the positions before a packet it holds); None asks for all."""

    game_id: bytes
    name: str
    seq: int
    seat: str
    address: str
    reason: str
    every_seat: bool = False
    upto: int | None = None

    @property
    def positions(self) -> str:
        """What it asks for, in words: "packet 12", "packets 12 to 14", or "the game from
        packet 12 on"."""
        if self.upto is None:
            return (
                f"the game from packet {self.seq} on" if self.every_seat else f"packet {self.seq}"
            )
        if self.upto == self.seq:
            return f"packet {self.seq}"
        return f"packets {self.seq} to {self.upto}"

    @property
    def of_game(self) -> str:
        """`positions`, naming the game: "packets 12 to 14 of wind", "wind from packet 12
        on"."""
        if self.upto is None and self.every_seat:
            return f"{self.name} from packet {self.seq} on"
        return f"{self.positions} of {self.name}"

    @property
    def command(self) -> str:
        """The ``hexpost resend`` that answers it by hand."""
        if not self.every_seat:
            return f"hexpost resend {self.name} --from {self.seq}"
        return holes.resend_command(self.name, self.seq, self.upto)


def resend_requests(
    store: Store, games: list[tuple[bytes, str, int, str, str]]
) -> list[ResendRequest]:
    """The requests to send now: for each game ``(id, name, head, owing seat, its address)``
    whose next packet came only damaged, once per position (`record_request`)."""
    due: list[ResendRequest] = []
    for game_id, name, head, seat, address in games:
        damage = damage_ahead(store, game_id, head)
        if damage is None or damage.seq != head + 1 or not address:
            continue
        if not store_inbox.resend_asked(store, game_id, damage.seq):
            due.append(ResendRequest(game_id, name, damage.seq, seat, address, damage.reason))
    return due


def record_request(store: Store, request: ResendRequest, now: str) -> None:
    """Remember that ``request`` went out, so the same damaged position asks only once."""
    with store.transaction():
        store_inbox.record_resend_request(store, request.game_id, request.seq, now)


def request_text(request: ResendRequest) -> tuple[str, list[str]]:
    """The subject and body lines of the email that asks for a packet again."""
    if request.reason == LOST:
        return _lost_text(request)
    if request.reason == GAP:
        return _gap_text(request)
    if request.every_seat:
        return _behind_text(request)
    subject = f"[hexpost] {request.name}: packet {request.seq} came damaged, please resend"
    lines = [
        f"Your packet {request.seq} of the game {request.name} ({request.seat}) reached the "
        "other player's hexpost damaged,",
        f"so it could not be used ({request.reason[:200]}).",
        "",
        "A signed ask went with this note: your hexpost sends that packet again by itself",
        "on its next sync. If it does not (a hexpost from before resend asks), please run",
        f"`hexpost resend {request.name} --from {request.seq}`, then `hexpost sync`: it sends "
        "the same",
        "signed packet again in a new email. This note was written by hexpost; it carries",
        "no packet.",
    ]
    return subject, lines


def _behind_text(request: ResendRequest) -> tuple[str, list[str]]:
    name, what = request.name, request.positions
    missing = what if request.upto is not None else f"from packet {request.seq} on"
    subject = f"[hexpost] {name}: please send {what} again"
    lines = [
        f"The other player's hexpost holds a packet of the game {name} that follows packets",
        f"it does not have ({missing}): its home is behind the game (restored from an older",
        "copy?). It signs nothing in that game until it has them, so that it never",
        "contradicts a packet its seat signed already.",
        *_whole_chain_ask(request),
    ]
    return subject, lines


def _lost_text(request: ResendRequest) -> tuple[str, list[str]]:
    name = request.name
    what = request.positions if request.upto is not None else f"packet {request.seq}"
    subject = f"[hexpost] {name}: please send {what} again (lost or damaged here)"
    lines = [
        f"The other player's hexpost lost {what} of the game {name} from its store, or",
        "holds it damaged (a damaged disk?). It cannot check the game, show that turn, or",
        "perhaps go on at all, until a copy comes back; the chain says which packet fits.",
        *_whole_chain_ask(request),
    ]
    return subject, lines


def _gap_text(request: ResendRequest) -> tuple[str, list[str]]:
    name, what = request.name, request.positions
    subject = f"[hexpost] {name}: please send {what} again"
    lines = [
        f"Later packets of the game {name} reached the other player's hexpost, but not",
        f"{what}, for more than an hour: lost in the mail (or from that home's store).",
        "Until they come, each of you waits for the other.",
        *_whole_chain_ask(request),
    ]
    return subject, lines


def _whole_chain_ask(request: ResendRequest) -> list[str]:
    """The end of a note that asks for every seat's packets in a range."""
    return [
        "",
        f"A signed ask went with this note: your hexpost sends {request.positions} by itself",
        f"on its next sync (up to {MAX_AUTO_RESEND} packets), yours and theirs, each checked by",
        f"its signature. If it does not, please run `{request.command}`,",
        "then `hexpost sync`. This note was written by hexpost; it carries no packet.",
    ]


def request_line(request: ResendRequest) -> str:
    """What a sync says it asked for."""
    what = request.of_game
    if request.reason == GAP:
        return (
            f"asked {request.address} to send {what} again "
            "(it has not come, though later ones have)"
        )
    if request.reason == LOST:
        return (
            f"asked {request.address} to send {what} again "
            "(it was lost from this home's store, or damaged there)"
        )
    if request.every_seat:
        return f"asked {request.address} to send {what} again (this home is behind the game)"
    return (
        f"asked {request.address} to resend packet {request.seq} of {request.name} "
        "(its copy came damaged)"
    )
