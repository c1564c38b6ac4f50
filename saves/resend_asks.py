"""Resend asks in the store: signing one beside the plain note, and answering one by itself.

A home whose next packet came only damaged, that is behind its game or has waited an hour
behind a gap in it (`saves.behind`), or that lost a packet from its store (`saves.holes`),
emails the other player a note asking for ``hexpost resend`` (`mail.sync.ask_for_damaged`);
a reminder goes with an ask for the packet awaited (`saves.reminders.ask`).
Beside the note it now queues a signed ask (`engine.core.resend_asks`), and the other home,
on its next sync, answers it without its player: it queues its own packets from the asked
position again (a damaged copy), or every stored packet from there (a home behind), to the
asker's bound address, and its sync sends them. The note stays, for a home that cannot answer
(an older hexpost, a locked key) and for the person.

An ask is hostile until checked, like any received item. It must be for a game this home
holds and plays, signed by the key the game binds to another seat (never a key from the ask;
a key still waiting for our acceptance is not heard, P10), and name as its head a packet of
this game. It then only makes this home send what the chain already holds, signed by their
authors, to the asking seat's own address, never to an address from the ask. A position is
answered once, and again only an hour later (`ANSWER_AGAIN_AFTER`: the answer may have been
lost in the mail too); an ask that would send more than `MAX_AUTO_RESEND` packets, or pass
what a game's answers may send in a day (`MAX_AUTO_ASKS` asks, `MAX_AUTO_RESEND` packets),
is left to the player (the note says how). An ask
that names a head past this home's has nothing to be sent, but says this home lacks packets
(the asker's move was lost on its way here): this home asks for those in its turn, and
again an hour or more on, if asked again (its ask may have been lost too).
Anything refused is recorded with the other refused input and never stops the items after
it.
"""

from __future__ import annotations

from engine.core.errors import HexpostError, PacketError
from engine.core.resend_asks import AskBody, VerifiedAsk, is_ask, open_ask, peek, sign_ask
from saves import (
    acceptance,
    ledger,
    side_verdicts,
    sound_copies,
    store_games,
    store_inbox,
    store_keys,
    store_outbox,
)
from saves.outbox import format_time, parse_time
from saves.outcome import Outcome
from saves.quarantine import (
    ANSWER_AGAIN_AFTER,
    ANSWER_DAY,
    CHECKED,
    MAX_AUTO_ASKS,
    MAX_AUTO_RESEND,
    REMINDER,
    ResendRequest,
)
from saves.reading import Reader
from saves.store import Store

__all__ = ["MAX_AUTO_RESEND", "is_ask", "opened", "queue_ask", "receive"]

# --- asking ---------------------------------------------------------------------------------------


def queue_ask(replica: Reader, request: ResendRequest, now: str) -> bool:
    """Sign an ask for ``request`` with this home's identity key and queue it to the seat it
    asks, in one transaction. False (nothing queued) when the key is locked or the game binds
    another key to our seat: the plain note goes alone."""
    identity = replica.identity
    if identity is None or identity.key is None:
        return False
    row = replica.game(request.game_id)
    head = replica.head(request.game_id)  # (not the state: it may be what cannot be read)
    if not _binds(replica, request.game_id, row.my_seat, identity.public_key):
        return False
    body = AskBody(
        game_id=request.game_id,
        seat=row.my_seat,
        head_seq=head.seq,
        head_id=head.packet_id,
        seq=request.seq,
        every_seat=request.every_seat,
        written_at=now,
        upto=request.upto,
    )
    try:  # read back exactly as the other side will, so nothing unreadable is ever sent
        ask = open_ask(sign_ask(body, identity.key), identity.public_key)
    except PacketError:
        return False
    what = request.positions
    subject = f"please send {what} again"
    summary = f"{row.my_seat} asks for {what} again; hexpost answers it."
    if request.reason in (REMINDER, CHECKED):  # (the packet awaited: maybe not written yet)
        subject = f"waiting for {what}"
        summary = (
            f"{row.my_seat} waits for {what}; if it was sent and its email lost, hexpost "
            "sends it again, and if not, there is nothing to do."
        )
    with replica.store.transaction():
        store_outbox.queue(
            replica.store,
            request.game_id,
            body.head_seq,
            ask.ask_id,
            ask.data,
            recipients=request.address,
            subject=f"[hexpost] {row.name} {row.my_seat}: {subject}",
            automatic=True,
            now=now,
            summary=summary,
        )
    return True


def _binds(replica: Reader, game_id: bytes, seat: str, public_key: bytes) -> bool:
    """Whether the game binds ``public_key`` to ``seat``, as far as this home can tell: its
    kept key says so, or, where that differs (a kept row damaged), the game's state, once its
    kept keys are rebuilt from it. Where the state cannot be read either, the ask goes: the
    other home checks it against the chain it holds, and an ask it refuses costs one email."""
    if store_keys.seat_key(replica.store, game_id, seat) == public_key:
        return True
    replica.check_keys(game_id)
    try:
        return replica.state(game_id).core.seat_state(seat).public_key == public_key
    except (HexpostError, KeyError):
        return True


# --- answering ----------------------------------------------------------------------------------


def opened(store: Store, data: bytes) -> tuple[str, VerifiedAsk | None]:
    """The first look at an ask (`saves.side_verdicts.opened`)."""
    return side_verdicts.opened(store, data, peek, open_ask)


def receive(
    replica: Reader, data: bytes, source: str, now: str, verified: VerifiedAsk | None = None
) -> Outcome:
    """Take in one received ask (the caller holds the transaction): check it and answer it,
    or record it as refused. Nothing in the game changes."""
    store = replica.store
    try:
        body = peek(data)
    except PacketError as exc:
        reason = f"resend ask refused: {exc}"
        ledger.record_rejected(store, None, source, reason, data[:4096], now)
        return Outcome("rejected", reason, source=source)
    row = store_games.game(store, body.game_id)
    if row is None:
        reason = (
            f"resend ask from {body.seat} refused: it is for game {body.game_id.hex()[:8]}, "
            "which this home does not hold"
        )
        ledger.record_rejected(store, None, source, reason, data[:4096], now)
        return Outcome("rejected", reason, source=source)
    if body.seat == row.my_seat and _ours(replica, data):  # read back from a folder or a copy
        return Outcome("ignored", "our own resend ask", body.game_id, source=source)
    try:
        _check(replica, data, body, verified)
    except HexpostError as exc:
        reason = f"resend ask from {body.seat} in {row.name} refused: {exc}"
        ledger.record_rejected(store, body.game_id, source, reason, data, now)
        return Outcome("rejected", reason, body.game_id, source=source)
    if body.seat == row.my_seat:  # our own ask, read back from a shared folder or a copy
        return Outcome("ignored", "our own resend ask", body.game_id, source=source)
    answered = store_inbox.ask_answered_at(store, body.game_id, body.seq, body.every_seat)
    if answered is not None and not _long_ago(answered, now):
        detail = f"{body.seat}'s ask for packet {body.seq} on was answered already"
        return Outcome("duplicate", detail, body.game_id, source=source)
    return _answer(replica, body, source, now)


def _long_ago(answered: str, now: str) -> bool:
    """Whether a position answered at ``answered`` may be answered again at ``now``
    (`ANSWER_AGAIN_AFTER`): not when ``now`` cannot be read, nor before ``answered``; yes
    when ``answered`` cannot be (a damaged record must not stop answers for good)."""
    then, current = parse_time(answered), parse_time(now)
    if current is None:
        return False
    return then is None or current - then >= ANSWER_AGAIN_AFTER


def _day_before(now: str) -> str | None:
    """The start of the `ANSWER_DAY` that ends at ``now``; None (count every answer ever)
    when ``now`` cannot be read."""
    current = parse_time(now)
    return None if current is None else format_time(current - ANSWER_DAY)


def _ours(replica: Reader, data: bytes) -> bool:
    """Whether an ask is signed by this home's own identity key (so its own, whatever the
    key kept for its seat says: that row may be damaged)."""
    identity = replica.identity
    if identity is None:
        return False
    try:
        open_ask(data, identity.public_key)
    except PacketError:
        return False
    return True


def _check(replica: Reader, data: bytes, body: AskBody, verified: VerifiedAsk | None) -> None:
    store = replica.store
    key = store_keys.seat_key(store, body.game_id, body.seat)
    if key is None:
        raise PacketError(f"seat {body.seat!r} has no key in this game")
    if verified is None or verified.data != data:
        open_ask(data, key)
    row = replica.game(body.game_id)
    state = replica.state(body.game_id)
    core = state.core
    if (
        body.seat != row.my_seat
        and body.seat in core.unaccepted
        and not acceptance.accepted(replica, body.game_id, core.seat_state(body.seat))
    ):
        raise HexpostError(
            f"the key that joined as {body.seat} waits for your acceptance; nothing it signs "
            "is taken before"
        )
    if body.head_seq <= row.head_seq:
        stored = ledger.stored_at(store, body.game_id, body.head_seq)
        if stored is None or stored[0] != body.head_id:
            raise HexpostError(
                f"it names as its head a packet {body.head_seq} (id {body.head_id.hex()[:16]}) "
                "that is not this game's"
            )


def _answer(replica: Reader, body: AskBody, source: str, now: str) -> Outcome:
    """Queue what the ask asks for, within `MAX_AUTO_RESEND`, and remember it is answered."""
    store = replica.store
    row = replica.game(body.game_id)
    if body.head_seq > row.head_seq and body.seq > row.head_seq:
        return _ask_back(replica, body, source, now)
    if body.seq == row.head_seq + 1:  # (a reminder's ask, and the move not made yet)
        detail = (
            f"{body.seat} waits for packet {body.seq} of {row.name}, which nobody has "
            "written yet: nothing to send"
        )
        return Outcome("ignored", detail, body.game_id, source=source)
    last = row.head_seq if body.upto is None else min(body.upto, row.head_seq)
    request = ResendRequest(  # (for its words and its command only)
        body.game_id, row.name, body.seq, body.seat, "", "", body.every_seat, body.upto
    )
    what = request.of_game
    count = last - body.seq + 1
    why = ""
    since = _day_before(now)
    asks, resent = store_inbox.answered_since(store, body.game_id, since, now, MAX_AUTO_RESEND)
    if asks >= MAX_AUTO_ASKS:
        why = f"hexpost answered {MAX_AUTO_ASKS} asks of this game by itself in the last 24 hours"
    elif count > MAX_AUTO_RESEND:
        why = f"that is {count} packets, more than hexpost sends by itself ({MAX_AUTO_RESEND})"
    elif resent + count > MAX_AUTO_RESEND:
        why = (
            f"that is {count} packets, and hexpost sent {resent} of this game by itself in the "
            f"last 24 hours (it sends at most {MAX_AUTO_RESEND} a day)"
        )
    if why:
        detail = (
            f"{body.seat} asks for {what} again; {why}, so this ask waits for you: run "
            f"`{request.command}`"
        )
        return Outcome("ignored", detail, body.game_id, source=source, attention=True)
    pick = sound_copies.picker(store, body.game_id)
    sent = store_outbox.requeue_from(store, body.game_id, body.seq, row.my_seat, last, pick)
    if body.every_seat:
        address = replica.state(body.game_id).core.seat_state(body.seat).address
        sent += store_outbox.queue_relays(
            store, body.game_id, body.seq, row.my_seat, address, row.name, now, last, pick
        )
    store_inbox.record_ask_answered(
        store, body.game_id, body.seq, body.every_seat, now, len(sent), since
    )  # (and forgets the log's rows from outside the day that ends now)
    if not sent:
        detail = f"{body.seat} asked for {what}: none of ours to send"
        return Outcome("ignored", detail, body.game_id, source=source)
    detail = (
        f"{body.seat} asked for {what} again: sending "
        f"{len(sent)} packet{'s' * (len(sent) != 1)} ({min(sent)}-{max(sent)})"
    )
    return Outcome("resend", detail, body.game_id, seat=body.seat, source=source)


def _ask_back(replica: Reader, body: AskBody, source: str, now: str) -> Outcome:
    """An ask whose writer holds packets past this home's head: a reminder's, whose move
    was written and whose email never came here. There is nothing to send; this home asks
    for what it lacks in its turn (every seat's packets from its head to the asker's), as a
    sync asks for a gap (`saves.behind`). Its head's next position is asked for again only
    `ANSWER_AGAIN_AFTER` after the last ask there: that ask may have been lost in the mail,
    and the asker's next reminder (a reply window on) comes with an ask that brings this
    here again. A head claimed falsely costs one ask an hour at most, to the claimer's own
    bound address, which the other home answers within its own bounds."""
    store = replica.store
    row = replica.game(body.game_id)
    first = row.head_seq + 1
    detail = (
        f"{body.seat} holds {row.name} up to packet {body.head_seq}, past this home's "
        f"{row.head_seq}"
    )
    asked = store_inbox.resend_asked_at(store, body.game_id, first)
    if asked is not None and not _long_ago(asked, now):
        return Outcome("ignored", f"{detail}: asked already", body.game_id, source=source)
    address = replica.state(body.game_id).core.seat_state(body.seat).address
    request = ResendRequest(
        body.game_id, row.name, first, body.seat, address, "behind", True, body.head_seq
    )
    if not address or not queue_ask(replica, request, now):
        return Outcome("ignored", f"{detail}: nothing asked", body.game_id, source=source)
    store_inbox.record_resend_request(store, body.game_id, first, now)
    return Outcome(
        "ignored", f"{detail}: asked for {request.positions} again", body.game_id, source=source
    )
