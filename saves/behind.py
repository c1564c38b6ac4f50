"""A home behind its game's chain: it holds a later packet but not the ones before it.

That is how a home restored from an older copy (`saves.backup`, or a disk put back) learns
that the game went on without it: the other player's next packet arrives, signed, and follows
packets this home never saw, some of them perhaps signed by this very seat before the copy
was lost. Signing at this home's head then could contradict a packet this seat already
signed, which the other side takes for an equivocation and freezes the game on. So while such
a packet is held, this home signs nothing in that game (`refuse_if_behind`, called where
every packet of this home is signed), and it says what mends it: the other player sends the
whole chain from the gap on again (``hexpost resend GAME --from N --every-seat``), whose
packets fill the gap as any others do.

An ordinary gap (the other seat's packets arriving out of order) blocks nothing new: the
move is theirs then, and this home could not sign anyway. But one that lasts an hour was lost
in the mail (or from this home's store), and both sides would wait for good: a sync then asks
for the chain from the gap in the same way (`gap_request`).

A copy cannot always tell that it is behind: when its seat signed after the copy was taken
and the move stayed its own, the other player has nothing to answer yet. So a copy made by
`saves.backup` is marked, and signs nothing at all (`refuse_if_unconfirmed_copy`) until its
player confirms it as the home played from (``hexpost restored``), having asked for the
chain first where that may be so.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import NamedTuple

from engine.core.errors import HexpostError
from engine.core.state import SeatState
from saves import holes, lost_games, store_backup, store_inbox
from saves.quarantine import GAP, LOST, ResendRequest
from saves.store import Store


class Ahead(NamedTuple):
    """The first held packet beyond a home's head."""

    seq: int
    seat: str
    received_at: str


def first_ahead(store: Store, game_id: bytes, head_seq: int) -> Ahead | None:
    """The held (verified, not yet applicable) packet of the game with the lowest position
    after ``head_seq``, if any."""
    found = store_inbox.first_buffered_after(store, game_id, head_seq)
    return None if found is None else Ahead(*found)


def behind_text(name: str, head_seq: int, ahead: Ahead, me: str) -> str:
    """What is wrong and what to ask for, in one line (``me``: this home's seat)."""
    missing = (
        f"packet {head_seq + 1}"
        if ahead.seq == head_seq + 2
        else f"packets {head_seq + 1} to {ahead.seq - 1}"
    )
    held = (
        f"packet {ahead.seq} from {ahead.seat} does not follow this home's packet {head_seq}"
        if ahead.seq == head_seq + 1
        else f"packet {ahead.seq} from {ahead.seat} is here but not {missing} before it"
    )
    who = "the other player" if ahead.seat == me else ahead.seat
    last = ahead.seq - 1 if ahead.seq > head_seq + 1 else None
    behind = "this home is behind the game (restored from an older copy?) and signs"
    if ahead.seat != me:  # (a seat's modified client can sign any position: say so)
        where = "after a packet the game does not have" if last is None else "ahead of the game"
        behind = (
            f"either this home is behind the game (restored from an older copy?) or "
            f"{ahead.seat}'s client signed packet {ahead.seq} {where}, and then the resend "
            "brings nothing; this home signs"
        )
    return (
        f"{name}: {held}: {behind} nothing in it until the chain arrives: ask {who} to run "
        f"`{holes.resend_command(name, head_seq + 1, last)}`, then sync"
    )


def held_back_text(store: Store, game_id: bytes, head_seq: int, seat: str) -> str | None:
    """What a late claim by ``seat`` at this home's head (``head_seq``) leaves out, when this
    home signs nothing because it holds that very seat's packet beyond a gap: the claim holds
    (this home owes the move), but that seat's client may be what stopped it."""
    ahead = first_ahead(store, game_id, head_seq)
    if ahead is None or ahead.seat != seat:
        return None
    if ahead.seq == head_seq + 1:
        follows = f"which does not follow this home's packet {head_seq}"
    elif ahead.seq == head_seq + 2:
        follows = f"which follows a packet {head_seq + 1} it never received"
    else:
        follows = f"which follows packets {head_seq + 1} to {ahead.seq - 1} it never received"
    return (
        f"but this home signs nothing in the game while it holds {seat}'s packet {ahead.seq}, "
        f"{follows}: if {seat}'s home has none of them either, its client signed that packet "
        "ahead of the game"
    )


def refuse_if_behind(store: Store, name: str, game_id: bytes, head_seq: int, me: str) -> None:
    """Raise `HexpostError` (saying what to ask for) if the game holds a packet beyond a gap."""
    ahead = first_ahead(store, game_id, head_seq)
    if ahead is not None:
        raise HexpostError(behind_text(name, head_seq, ahead, me))


def resend_request(
    store: Store, game_id: bytes, name: str, head_seq: int, me: str, seats: Sequence[SeatState]
) -> ResendRequest | None:
    """The note that asks the other player to send the chain again from the gap, when this
    home is behind a game it owes the next move in and has not asked yet for that position
    (sent once, as a request for a damaged packet is: `saves.quarantine`)."""
    ahead = first_ahead(store, game_id, head_seq)
    if ahead is None or store_inbox.resend_asked(store, game_id, head_seq + 1):
        return None
    others = [s for s in seats if s.seat != me and s.address]
    if not others:
        return None
    other = next((s for s in others if s.seat == ahead.seat), others[0])
    return ResendRequest(
        game_id,
        name,
        head_seq + 1,
        other.seat,
        other.address,
        "behind",
        every_seat=True,
        upto=ahead.seq - 1 if ahead.seq > head_seq + 1 else None,
    )


def lost_request(
    store: Store,
    game_id: bytes,
    name: str,
    seq: int,
    me: str,
    seats: Sequence[SeatState] = (),
    upto: int | None = None,
) -> ResendRequest | None:
    """The note that asks the other player to send the game again from a packet this home
    lost from its store (`saves.holes`) or holds damaged, once for that position, up to
    ``upto`` where it knows the lost run's end; the copy the chain names there fills it
    (`saves.mending`). Whom to ask: from ``seats`` (the game's state), or, where that is what
    cannot be read, from the genesis."""
    if store_inbox.resend_asked(store, game_id, seq):
        return None
    pairs = [(s.seat, s.address) for s in seats]
    if not pairs:
        genesis = lost_games.genesis_of(store, game_id)
        pairs = [] if genesis is None else [(s.seat, s.address) for s in genesis[0].seats]
    other = next(((seat, address) for seat, address in pairs if seat != me and address), None)
    if other is None:
        return None
    return ResendRequest(game_id, name, seq, other[0], other[1], LOST, every_seat=True, upto=upto)


GAP_PATIENCE = 3600
"""Seconds a held packet waits beyond a gap on the other seat's move before this home asks for
the gap (`gap_request`). Mail arrives out of order by minutes (a greylisting server holds a
message for up to half an hour); a gap that outlasts this was lost in the mail, or from this
home's store."""


GAP_RETRY = 12 * 3600
"""Seconds after which a gap still open is asked for again: its ask, or the answer, may have
been lost in the mail too. Each later ask waits as long as the gap had lasted when it was last
asked (at 1, 13, 26, 52... hours), so a player away for two weeks gets six asks, not one a
reply window (the reminders: every 72 hours by default). Measured with `bench/lossy_mail.py
--seeds 100` at 25% loss: median days 25.5 to 21.0, worst 48.0 to 40.0, and packet emails
per move 2.06 to 1.95 (the packet comes back before the reminders start)."""


def gap_request(
    store: Store,
    game_id: bytes,
    name: str,
    head_seq: int,
    seats: Sequence[SeatState],
    now: str,
) -> ResendRequest | None:
    """The note that asks the other player to send the chain again from a gap the other
    seat's move waits behind, once the packet held beyond it has waited `GAP_PATIENCE`, and
    again while the gap stays open, less and less often (`GAP_RETRY`). (On this home's own
    move `resend_request` asks at once: it is behind.)"""
    ahead = first_ahead(store, game_id, head_seq)
    if ahead is None or ahead.seq <= head_seq + 1:  # (one that does not follow: a fork)
        return None
    waited = _seconds_between(ahead.received_at, now)
    if waited is None or waited < GAP_PATIENCE:
        return None
    asked = store_inbox.resend_asked_at(store, game_id, head_seq + 1)
    if asked is not None:
        since = _seconds_between(asked, now)
        before = _seconds_between(ahead.received_at, asked)
        if since is not None and before is not None and since < max(GAP_RETRY, before):
            return None  # (an ask time that cannot be read does not stop the next ask)
    author = next((s for s in seats if s.seat == ahead.seat and s.address), None)
    if author is None:
        return None
    return ResendRequest(
        game_id,
        name,
        head_seq + 1,
        author.seat,
        author.address,
        GAP,
        every_seat=True,
        upto=ahead.seq - 1,
    )


def _seconds_between(earlier: str, later: str) -> int | None:
    """Whole seconds from one stored time to another (None if either does not read as one:
    the tests' clock adds fractions, which are not needed here)."""
    try:
        first = datetime.strptime(earlier[:19], "%Y-%m-%dT%H:%M:%S")
        second = datetime.strptime(later[:19], "%Y-%m-%dT%H:%M:%S")
    except ValueError:
        return None
    return int((second - first).total_seconds())


def unconfirmed_text(taken_at: str) -> str:
    """Why a backup copy signs nothing yet, and what to do."""
    return (
        f"this home is a backup copy taken {taken_at}, not yet confirmed as the home you play "
        "from, so it signs nothing: if you may have signed anything in a game after that, "
        "ask the other player to run `hexpost resend GAME --from N --every-seat` (N: the "
        "packet after this copy's last one) and sync; then run `hexpost restored`"
    )


def copy_note(taken_at: str) -> str:
    """The one line heading a backup copy's list of games, until it is confirmed: that it
    signs nothing, even where no game waits for its player (the games that do say why at
    length, `unconfirmed_text`)."""
    return (
        f"This home is a backup copy taken {taken_at}: it signs nothing, automatic replies "
        "included, until you confirm you play from it (`hexpost restored`, or "
        '"Play from this copy" in the settings).'
    )


def refuse_if_unconfirmed_copy(store: Store) -> None:
    """Raise `HexpostError` if this home is a backup copy not yet confirmed as restored."""
    taken_at = store_backup.copy_taken_at(store)
    if taken_at is not None:
        raise HexpostError(unconfirmed_text(taken_at))
