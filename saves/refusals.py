"""Refused items: recording what could not be taken in, and telling the player what it was for.

Everything refused is kept (within the store's quota, `saves.quarantine`) with why, and the
line a sync prints for it names the game, the packet and the seat where anything tells them,
with the command that mends it: a damaged copy of a packet still to come is worth the player's
attention, a damaged copy of one already held is not.
"""

from __future__ import annotations

from engine.core.packets import MAX_SEQ, VerifiedPacket, peek_body
from saves import ledger, quarantine, store_games
from saves.outcome import Hint, Outcome
from saves.reading import Reader


def refuse(
    replica: Reader,
    data: bytes,
    source: str,
    now: str,
    reason: str,
    hint: Hint = (None, None),
    *,
    newer: bool = False,
) -> Outcome:
    """Record an item that could not be verified, and say what it was for, if anything knows.

    Its own unverified body, else the transport's hint, may name a game this home holds and
    a position: a damaged copy of a packet still to come is then worth the player's attention
    (and the games list's "last copy was damaged" note); a damaged copy of our own packet
    means the other side could not read it either; a damaged copy of a packet already held
    is harmless. Anything else is a stranger's business, recorded and otherwise ignored.
    A copy ``newer`` than this hexpost reads is no damage: it is recorded without its position,
    so no resend is asked for (the same bytes would come back), and the player is told to
    update first.
    """
    store = replica.store
    body = peek_body(data)
    game_id, seq, seat = (body.game_id, body.seq, body.seat) if body else (*hint, "")
    if seq is not None and not 0 <= seq <= MAX_SEQ:
        seq = None  # a hint, not a packet: nothing unbounded reaches the store
    row = None if game_id is None else store_games.game(store, game_id)
    if row is None or seq is None:
        dropped = quarantine.reject(store, None, source, reason, data, now)
        return Outcome("rejected", f"{reason}{quota_note(dropped, 'refused items')}", source=source)
    assert game_id is not None
    name, my_seat, head_seq = row.name, row.my_seat, row.head_seq
    held = ledger.stored_at(store, game_id, seq) if seq <= head_seq else None
    seat = seat or (held[1] if held else "")
    if held is not None and held[1] != my_seat:
        detail = f"a damaged copy of packet {seq} of {name}, which this home holds: ignored"
        return Outcome("ignored", detail, game_id, seq, seat=seat, source=source)
    if newer:  # no damage: no position recorded, so no resend is asked for
        dropped = quarantine.reject(store, game_id, source, reason, data, now, seat=seat)
        who = seat or "the other player"
        detail = (
            f"packet {seq} of {name} from {who} needs a newer hexpost: update hexpost "
            f"({reason}), then ask {who} to run `hexpost resend {name} --from {seq}`"
        ) + quota_note(dropped, "refused items")
        return Outcome("rejected", detail, game_id, seq, seat=seat, source=source, attention=True)
    dropped = quarantine.reject(store, game_id, source, reason, data, now, seq=seq, seat=seat)
    if held is not None:
        detail = (
            f"a damaged copy of our own packet {seq} of {name} ({reason}): the other side "
            f"cannot read it either; `hexpost resend {name} --from {seq}` sends it again"
        )
    else:
        who = seat or "the other player"
        detail = (
            f"packet {seq} of {name} from {who} arrived damaged ({reason}); ask {who} to run "
            f"`hexpost resend {name} --from {seq}`"
        )
    detail += quota_note(dropped, "refused items")
    return Outcome("rejected", detail, game_id, seq, seat=seat, source=source, attention=True)


def refused(replica: Reader, packet: VerifiedPacket, source: str, now: str, reason: str) -> Outcome:
    """Record a verified packet the chain or the engine refused (a game this home holds)."""
    body = packet.body
    dropped = quarantine.reject(
        replica.store, body.game_id, source, reason, packet.data, now, seq=body.seq, seat=body.seat
    )
    detail = f"{reason}{quota_note(dropped, 'refused items')}"
    return Outcome(
        "rejected",
        detail,
        body.game_id,
        body.seq,
        seat=body.seat,
        source=source,
        attention=True,
    )


def quota_note(count: int, what: str) -> str:
    """What a full quota dropped to keep ``what``, said after the line that recorded it."""
    if not count:
        return ""
    return f" (the store's quota for {what} is full: dropped the {count} oldest)"
