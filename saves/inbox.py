"""Taking in one received packet: verify, place in the chain, apply, store, in one transaction.

The order of checks follows the protocol: the signature is verified over the exact bytes
before anything is decoded (P1); then the packet is placed in its game's chain (P2): applied
when it is next, buffered when it is early, ignored when it is a duplicate, kept as evidence
that freezes the game when its seat signed a different packet for the same position (P3).
A packet whose author's state hash differs from ours freezes the game as a desync (P5).
Early packets wait in `saves.held`, which bounds what a flood of them can take.

A packet signed by a key this home does not know yet (for example a packet that overtook
the genesis that introduces its author) is *parked* and tried again whenever a new key
becomes known, so reordering by a transport never loses a packet.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Sequence

import msgspec

from engine.core.chain import Placement, place
from engine.core.errors import DesyncError, HexpostError, PacketError, VersionError
from engine.core.game import apply_packet
from engine.core.news import shorten
from engine.core.packets import (
    Genesis,
    Join,
    VerifiedPacket,
    open_packet,
)
from engine.core.ruleset import AnyRuleset
from engine.core.text import numbered
from saves import (
    chat_messages,
    claims,
    copies,
    held,
    invitations,
    joins,
    ledger,
    mending,
    outbox,
    quarantine,
    refusals,
    resend_asks,
    store_evidence,
    store_games,
    store_inbox,
    store_keys,
)
from saves.addresses import same_address
from saves.outcome import Hint, Outcome
from saves.reading import Reader
from saves.registry import has_ruleset, ruleset_for
from saves.store import Store, TransactionLost


def verdict(store: Store, data: bytes) -> str:
    """Check a packet's signature without applying it: ``"verified"`` (by a key a game of this
    home binds, or by the key an invitation or join carries), ``"unknown key"`` (signed by a
    key this home does not know yet) or ``"bad"`` (unreadable, or the signature fails)."""
    return copies.check(store, data).verdict


def pick_copy(store: Store, data: bytes, alternatives: Sequence[bytes]) -> bytes:
    """Which copy of one received item to take in (an email holds an attachment and an armoured
    block): the first (``data``, then each of ``alternatives``) whose signature `verdict`
    verifies; else the first signed by a key not known yet (it is parked until that key
    arrives); else ``data`` (refused and logged as usual)."""
    return copies.pick(store, data, alternatives).data


class Received(msgspec.Struct, frozen=True):
    """One item a transport fetched, as `take_many` takes it in (see `Replica.receive`)."""

    data: bytes
    source: str
    ref: tuple[str, str] | None = None
    message_id: str = ""
    hint: Hint = (None, None)
    alternatives: tuple[bytes, ...] = ()


def take(
    replica: Reader,
    data: bytes,
    source: str,
    now: str,
    ref: tuple[str, str] | None,
    message_id: str,
    hint: Hint,
    alternatives: Sequence[bytes] = (),
) -> Outcome:
    """`Replica.receive`: one item in one transaction (`take_many` of one item)."""
    item = Received(data, source, ref, message_id, hint, tuple(alternatives))
    return take_many(replica, [item], now)[0]


def take_many(replica: Reader, items: Sequence[Received], now: str) -> list[Outcome]:
    """`Replica.receive_many`: every item in one transaction (`saves.ledger.batch`: one commit
    and one head snapshot per game for the lot), each marked read with it, whatever became of
    it. Whatever taking one item in raises undoes that item's changes alone and is recorded
    against it, and the items after it go on. Should even that record fail (a full disk), the
    whole batch rolls back and the error propagates: nothing of it is stored and nothing marked
    read, so the transport offers every item again.

    The items first go in under one savepoint for the lot, not one each: SQLite keeps the
    pages a savepoint's statements change in a temporary journal file, and a savepoint per item
    wrote some 6,700 of them per 1,000 chat packets, while an item that raises is rare. When one
    does raise, that pass is rolled back and the batch taken in again with a savepoint per
    item, the failed item recorded with the error it raised, not run again; so the batch ends
    exactly as one savepoint per item from the start would leave it, and a batch whose items
    all raise costs two passes, no more.

    Of an item with ``alternatives`` (other decoded copies of one email) the copy `pick_copy`
    picks is taken in, checked once: the check that picked it is the one that counts.
    """
    store = replica.store
    with ledger.batch(store):
        threads: list[tuple[bytes, int | None, str]] = []
        try:
            with store.savepoint("batch"):
                outcomes = [
                    _take_one(replica, item, now, threads, index)
                    for index, item in enumerate(items)
                ]
        except _ItemFailed as failed:
            threads = []
            outcomes = [
                _failed(store, item.source, failed.data, failed.error, now)
                if index == failed.index
                else _take_one(replica, item, now, threads)
                for index, item in enumerate(items)
            ]
        # Whatever became of each item, it was read: marked with the batch, by one statement
        # run for every ref (as the Message-IDs of the items that were taken in).
        store_inbox.mark_seen_many(store, [item.ref for item in items if item.ref is not None])
        outbox.record_mail_ids(store, threads)
        return outcomes


class _ItemFailed(Exception):
    """Item ``index`` of a batch taken in without a savepoint of its own raised ``error``
    while taking in the copy ``data`` (`take_many` then takes the batch in item by item)."""

    def __init__(self, index: int, data: bytes, error: Exception) -> None:
        super().__init__(index)
        self.index, self.data, self.error = index, data, error


def _take_one(
    replica: Reader,
    item: Received,
    now: str,
    threads: list[tuple[bytes, int | None, str]],
    index: int | None = None,
) -> Outcome:
    """One item under its savepoint; the Message-ID to keep (``item`` was taken in, not
    refused nor ignored) is added to ``threads`` once nothing of the item can be undone.
    With an ``index`` the item runs under the caller's savepoint instead, and what it raises
    is raised again as `_ItemFailed`, for the caller to roll back."""
    store = replica.store
    data, source = item.data, item.source
    try:
        with store.savepoint() if index is None else contextlib.nullcontext():
            bound = store_keys.bound_count(store)
            if any(copy != data for copy in item.alternatives):
                chosen = copies.pick(store, data, item.alternatives)
                data = chosen.data
                outcome = take_checked(replica, chosen, source, now, item.hint)
            else:
                outcome = receive(replica, data, source, now, item.hint)
            if outcome.status == "invitation" or store_keys.bound_count(store) != bound:
                retry_parked(replica, now)
    except TransactionLost:  # the whole batch is undone: not this item's
        raise
    except Exception as exc:  # hostile input must never stop a sync: record, go on
        if index is not None:
            raise _ItemFailed(index, data, exc) from exc
        return _failed(store, source, data, exc, now)
    if (
        item.message_id
        and outcome.game_id is not None
        and outcome.status not in ("rejected", "ignored")
    ):
        threads.append((outcome.game_id, outcome.seq, item.message_id))
    return outcome


def _failed(store: Store, source: str, data: bytes, exc: Exception, now: str) -> Outcome:
    """Record an item whose taking in raised ``exc`` (its changes already undone)."""
    reason = f"could not be taken in: {type(exc).__name__}: {exc}"
    quarantine.reject(store, None, source, reason, data, now)
    return Outcome("rejected", reason, source=source, attention=True)


def receive(
    replica: Reader, data: bytes, source: str, now: str, hint: Hint = (None, None)
) -> Outcome:
    """Take in one packet; the caller holds the store transaction.

    ``hint`` is what the transport says the item is for (a file name, an ``X-Hexpost``
    header). It is never trusted; it only names the game and position of an item that turns
    out to be unreadable, so the player learns which packet to ask for again.
    """
    if claims.is_claim(data):  # a late claim is no packet: its module takes it in
        return claims.receive(replica, data, source, now)
    if chat_messages.is_chat(data):  # nor is a chat message
        return chat_messages.receive(replica, data, source, now)
    if resend_asks.is_ask(data):  # nor an ask to send packets again
        return resend_asks.receive(replica, data, source, now)
    return take_checked(replica, copies.check_packet(replica.store, data), source, now, hint)


def take_checked(
    replica: Reader, checked: copies.Checked, source: str, now: str, hint: Hint
) -> Outcome:
    """Take in a copy `saves.copies.check` looked at (the caller holds the transaction)."""
    if checked.verdict != copies.VERIFIED and mending.keys_mended(replica, checked):
        checked = copies.check(replica.store, checked.data)
    if checked.packet is not None:
        return place_packet(replica, checked.packet, source, now)
    if claims.is_claim(checked.data):
        return claims.receive(replica, checked.data, source, now, checked.claim)
    if chat_messages.is_chat(checked.data):
        return chat_messages.receive(replica, checked.data, source, now, checked.chat)
    if resend_asks.is_ask(checked.data):
        return resend_asks.receive(replica, checked.data, source, now, checked.ask)
    if checked.verdict == copies.UNKNOWN_KEY:
        return _park(replica, checked.key_id, checked.data, source, now)
    return refusals.refuse(
        replica, checked.data, source, now, checked.problem, hint, newer=checked.newer
    )


def place_packet(replica: Reader, packet: VerifiedPacket, source: str, now: str) -> Outcome:
    """Place a verified packet in its game's chain: apply, buffer, ignore, refuse or freeze."""
    store = replica.store
    body = packet.body
    replica.check_head(body.game_id)
    head = store_games.head(store, body.game_id)
    if head is None and replica.mend_lost_games():
        head = store_games.head(store, body.game_id)
    if head is None and store_games.first_stored_at(store, body.game_id):
        lost = held.of_lost_game(replica, packet, source, now)
        if lost is not None:
            return lost
    if head is None:
        return _new_game(replica, packet, source, now)
    if not has_ruleset(head.ruleset) and replica.mend_ruleset(replica.game(body.game_id)):
        head = replica.head(body.game_id)
    frozen, ruleset, missing = head.frozen, None, ""
    try:
        ruleset = ruleset_for(head.ruleset)
    except VersionError as exc:  # a plug-in uninstalled: the packet waits for it (`catch_up`)
        missing = str(exc)
    placement = place(
        head.seq, head.packet_id, packet, lambda seq: ledger.stored_at(store, body.game_id, seq)
    )
    if placement in (Placement.EQUIVOCATION, Placement.CONFLICT) and replica.refile_at(
        body.game_id, body.seq
    ):  # (what held its place was another packet, filed there since: put back where it says)
        placement = place(
            head.seq, head.packet_id, packet, lambda seq: ledger.stored_at(store, body.game_id, seq)
        )
    if placement == Placement.DUPLICATE:
        detail = f"packet {body.seq} is already in the chain"
        if mending.mended(store, packet):
            detail += "; its kept copy here was damaged, and this one takes its place"
        return Outcome("duplicate", detail, body.game_id, body.seq, seat=body.seat, source=source)
    signed_by_seat = ledger.signed_by_seat(store, packet)
    if placement in (Placement.EQUIVOCATION, Placement.FUTURE) and signed_by_seat is False:
        reason = f"packet {body.seq} claims seat {body.seat} but is not signed by its key"
        return refusals.refused(replica, packet, source, now, reason)
    if placement == Placement.EQUIVOCATION:
        stored = store_games.packet_data(store, body.game_id, body.seq)
        assert stored is not None
        return held.equivocation(replica, packet, stored, now)
    if placement == Placement.LOST:  # a packet this home lost: the chain says if this is it
        hold = functools.partial(held.hold, replica, packet, source, now, held=False, judge=True)
        filled = mending.place_lost(replica, packet, source, now, hold)
        if filled is not None:
            return filled
    if placement in (Placement.CONFLICT, Placement.LOST):
        reason = f"packet {body.seq} from {body.seat} does not fit this game's chain"
        return refusals.refused(replica, packet, source, now, reason)
    if frozen and signed_by_seat is True:
        disputed = _disputed_rival(replica, packet)
        if disputed is not None:  # a different packet for the position a desync stopped at
            return held.equivocation(replica, packet, disputed, now)
    if placement == Placement.FUTURE and body.seq - head.seq > held.HELD_AHEAD:
        reason = (
            f"packet {body.seq} not held: it is more than {held.HELD_AHEAD} positions past this "
            f"game's head ({head.seq}); a resend brings it again once the chain is nearer"
        )
        return refusals.refused(replica, packet, source, now, reason)
    if placement == Placement.FUTURE or frozen or ruleset is None:
        kept = held.hold(
            replica, packet, source, now, held=bool(frozen), judge=signed_by_seat is True
        )
        if ruleset is None and kept.status == "buffered":
            name = replica.game(body.game_id).name
            detail = (
                f"packet {body.seq} of {name} held until hexpost can load its ruleset: {missing}"
            )
            return msgspec.structs.replace(kept, detail=detail, attention=True)
        return kept
    return _apply_chain(replica, ruleset, packet, source, now)


def catch_up(replica: Reader, now: str) -> list[Outcome]:
    """Apply the held packets that follow their game's head now: those that came while the
    game's ruleset was not installed (`place_packet`), once it is. Each game under its own
    savepoint: one that fails is recorded and the others go on. Then the held invitations
    (`saves.invitations`): those held too long are dropped, those now playable taken in."""
    outcomes = []
    for game_id in store_inbox.held_next(replica.store):
        try:
            with replica.store.savepoint():
                ruleset = ruleset_for(replica.game(game_id).ruleset)
                try:
                    state = replica.state(game_id)
                except HexpostError:  # (still cannot be read: held, as it said when it came)
                    continue
                packet = held.next_held(replica, game_id, state, [])
                if packet is not None:
                    outcomes.append(_apply_chain(replica, ruleset, packet, "held", now))
        except VersionError:
            continue  # still not installed: the packet stays held, as it said when it came
        except TransactionLost:  # the whole batch is undone: not this item's
            raise
        except Exception as exc:  # (never seen) said, kept held, and the other games go on
            reason = f"a held packet could not be taken in: {type(exc).__name__}: {exc}"
            outcomes.append(Outcome("rejected", reason, game_id, source="held", attention=True))
    outcomes += invitations.expire(replica.store, now)
    for packet_hash, data in invitations.ready(replica.store):  # (`saves.invitations`)
        store_inbox.unpark(replica.store, packet_hash)
        outcome = _take_one(replica, Received(data, "held"), now, [])
        outcomes.append(outcome)
    return outcomes


def _disputed_rival(replica: Reader, packet: VerifiedPacket) -> bytes | None:
    """The packet a desync froze the game at, when ``packet`` is a different one from the same
    seat's key for that position: two signed packets for one position, so equivocation."""
    body = packet.body
    for other in store_evidence.desync_packets(replica.store, body.game_id, body.seq):
        if other != packet.data and held.same_signer(other, packet):
            try:
                rival = open_packet(other, lambda _kid: [packet.public_key])
            except PacketError:
                continue
            if rival.packet_id != packet.packet_id and rival.body.seat == body.seat:
                return other
    return None


def _apply_chain(
    replica: Reader, ruleset: AnyRuleset, packet: VerifiedPacket, source: str, now: str
) -> Outcome:
    """Apply ``packet``, then every buffered packet that now follows it."""
    store = replica.store
    game_id = packet.body.game_id
    applied: list[int] = []
    warnings: list[str] = []
    mine = replica.game(game_id).my_seat
    current: VerifiedPacket | None = packet
    while current is not None:
        try:
            state = replica.state(game_id)
        except HexpostError as exc:  # its stored packets damaged: copies of them may mend it
            kept = held.hold(replica, current, source, now, held=False, judge=False)
            if kept.status != "buffered":
                return kept
            detail = f"packet {current.body.seq} held: the game cannot be read here ({exc})"
            return msgspec.structs.replace(kept, detail=detail, attention=True)
        seq = current.body.seq
        rival = store_inbox.buffered_rival(
            store, game_id, seq, current.body.seat, current.packet_id
        )
        if (  # (one held first for this position, signed by the same seat's key: evidence)
            rival is not None
            and held.same_signer(rival, current)
            and ledger.signed_by_seat(store, current) is True
        ):
            return msgspec.structs.replace(
                held.equivocation(replica, current, rival, now), applied=applied
            )
        store_inbox.unbuffer(store, game_id, current.packet_id)
        try:
            result = apply_packet(ruleset, state, current)
        except DesyncError as exc:
            ledger.freeze(store, game_id, seq, "desync", str(exc), current.data, None, now)
            return Outcome(
                "desync", str(exc), game_id, seq, applied, current.body.seat, source, True
            )
        except HexpostError as exc:
            refused = refusals.refused(replica, current, source, now, f"packet {seq}: {exc}")
            return msgspec.structs.replace(refused, applied=applied)
        join = current.body.kind
        if isinstance(join, Join):
            warnings.extend(joins.join_notes(replica, state, current, join))
        ledger.store_applied(store, current, result, now, mine=current.body.seat == mine)
        replica.remember_head(game_id, current.packet_id, result.state)
        applied.append(seq)
        current = held.next_held(replica, game_id, result.state, warnings)
    detail = "; ".join([f"applied {numbered('packet', applied)}", *warnings])
    return Outcome("applied", detail, game_id, packet.body.seq, applied, packet.body.seat, source)


def _new_game(replica: Reader, packet: VerifiedPacket, source: str, now: str) -> Outcome:
    """A packet of a game this home lacks: an invitation to us, or someone else's business."""
    body = packet.body
    genesis = body.kind
    if not isinstance(genesis, Genesis):
        parked = _park(replica, packet.envelope.key_id, packet.data, source, now)
        detail = (
            f"packet {body.seq} of a game this home does not hold: kept aside in case its "
            "invitation arrives later" + parked.detail.partition(": kept aside")[2]
        )
        return Outcome("parked", detail, body.game_id, body.seq, seat=body.seat, source=source)
    me = replica.identity
    seats = [
        binding.seat
        for binding in genesis.seats
        if me is not None
        and binding.seat != genesis.creator
        and same_address(binding.address, me.address)
    ]
    if not seats:
        # (a stranger's genesis may name any number of seats: the line stays one short line)
        invited = shorten(", ".join(b.address for b in genesis.seats if b.seat != genesis.creator))
        if me is None:
            detail = f"an invitation addressed to {invited}, and this home has no identity yet"
        else:
            detail = (
                f"an invitation addressed to {invited}, not to this home's {me.address}: "
                f"if it is meant for you, ask its sender to invite {me.address}"
            )
        return Outcome("ignored", detail, body.game_id)
    return invitations.take(replica, packet, seats[0], source, now)


def _park(replica: Reader, kid: bytes, data: bytes, source: str, now: str) -> Outcome:
    """Keep a packet that cannot be placed yet (unknown signer, or a game not held yet), within
    the store's quota for them (`saves.quarantine`)."""
    dropped = quarantine.park(replica.store, kid, ledger.digest(data), data, now)
    detail = f"signed by a key not known yet (id {kid.hex()}): kept aside" + refusals.quota_note(
        dropped, "packets kept aside"
    )
    return Outcome("parked", detail, source=source)


def retry_parked(replica: Reader, now: str) -> list[Outcome]:
    """Offer every parked packet again (after a new game or a new key became known).

    Those that still cannot be placed are parked again; the others take their usual course.
    Each runs under a savepoint of the caller's transaction: one that raises is dropped from
    the parked packets and recorded as refused, and the others go on.
    """
    outcomes = []
    store = replica.store
    for packet_hash, data in store_inbox.parked(store, but=invitations.WAITING_FOR_RULESET):
        try:
            with store.savepoint():
                store_inbox.unpark(store, packet_hash)
                outcomes.append(receive(replica, data, "parked", now))
        except TransactionLost:  # the whole batch is undone: not this item's
            raise
        except Exception as exc:  # hostile input must never stop the others
            store_inbox.unpark(store, packet_hash)
            reason = f"could not be taken in: {type(exc).__name__}: {exc}"
            quarantine.reject(store, None, "parked", reason, data, now)
            outcomes.append(Outcome("rejected", reason, source="parked"))
    return outcomes
