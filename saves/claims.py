"""Late claims in the store: writing one, taking one in, keeping and listing them.

A seat that waits for the other seat's move past the game's reply window can sign a *late
claim* (`engine.core.claims`): "at packet N, owed by SEAT since T, I waited past the window".
It is not a packet and changes no game state. This home keeps the claims it wrote and the ones
it received in the ``claims`` table, sends its own through the outbox like a packet (same
transports, same retries), and shows them in the log, the games list, an export and the app.

Everything a received claim says is checked against this home's own copy of the game before it
is kept: the signature by the key the game binds to the claimant's seat (never a key from the
claim), that the packet it waits at is this game's packet at that position, that the seat it
calls late is the one that owed the move there, that the step and reply window are the game's,
and that by the claim's own clock the window had passed. The times are the claimant's, as a
packet's ``written_at`` is: a claim records what a player says, and people decide what to do.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Annotated

import msgspec

from engine.core.claims import (
    MAX_CLAIM_SIZE,
    ClaimBody,
    VerifiedClaim,
    is_claim,
    open_claim,
    peek,
    sign_claim,
)
from engine.core.errors import GameFrozen, HexpostError, PacketError
from engine.core.owed import pending
from engine.core.ruleset import AnyRuleset
from engine.core.state import AnyState
from engine.core.text import SAFE_PATTERN, text_problem
from saves import (
    behind,
    ledger,
    side_verdicts,
    store_evidence,
    store_games,
    store_keys,
    store_outbox,
)
from saves.outbox import format_time, parse_time
from saves.outcome import Outcome
from saves.reading import Reader
from saves.registry import ruleset_for
from saves.store import Store
from saves.subject import Subject, format_subject

__all__ = ["is_claim", "make_claim", "receive", "verdict"]

MAX_CLAIMS_PER_GAME = 50
"""Claims kept per game; the oldest received go first (a claim is small, a flood is not)."""
MAX_NOTE = 200
"""Characters in a claim's note (`engine.core.claims.ClaimBody.note`)."""


class ClaimRow(msgspec.Struct, frozen=True):
    """One kept claim. ``mine``: signed by this home's seat."""

    claim_id: bytes
    body: ClaimBody
    data: bytes
    received_at: str
    mine: bool


class ArchivedClaim(msgspec.Struct, frozen=True):
    """A kept claim as an export carries it; an import checks it again like a received one."""

    data: Annotated[bytes, msgspec.Meta(max_length=MAX_CLAIM_SIZE)]
    received_at: Annotated[str, msgspec.Meta(max_length=64, pattern=SAFE_PATTERN)]


# --- writing ------------------------------------------------------------------------------------


def make_claim(replica: Reader, game_id: bytes, now: str, note: str = "") -> ClaimRow:
    """Sign a late claim for a game whose other seat let its reply window pass; keep it and
    queue it for sending, in one transaction. Refuses, saying why, unless this home signs for
    its seat, the game is active and not frozen, the other seat owes the next move, and the
    reply window has passed since the game's head packet was stored here (``waiting_since``)."""
    body, ruleset, state = claim_body(replica, game_id, now, note)
    identity = replica.identity
    assert identity is not None  # claim_body refuses a home without one
    if identity.key is None:
        raise HexpostError("signing a claim needs the identity key (its passphrase was not given)")
    try:  # read back exactly as the other side will, so nothing unreadable is ever sent
        claim = open_claim(sign_claim(body, identity.key), identity.public_key)
    except PacketError as exc:
        raise HexpostError(f"cannot write this claim: {exc}") from None
    with replica.store.transaction():
        _keep(replica.store, claim, now, mine=True)
        _queue(replica.store, ruleset, state, claim, now)
    return ClaimRow(claim.claim_id, claim.body, claim.data, now, True)


def claim_body(
    replica: Reader, game_id: bytes, now: str, note: str = ""
) -> tuple[ClaimBody, AnyRuleset, AnyState]:
    """The claim this home would sign at ``now`` (with the ruleset and head state), or
    `HexpostError` saying why it may not claim; needs only the identity's public key, so the
    command line can refuse before asking for a passphrase."""
    identity = replica.identity
    if identity is None:
        raise HexpostError("this home has no identity yet: run `hexpost identity create`")
    problem = text_problem(note, "the note", MAX_NOTE)
    if problem is not None:
        raise HexpostError(problem)
    row = replica.game(game_id)
    if row.frozen:
        raise GameFrozen(
            f"game {row.name} is frozen ({row.frozen}): see `hexpost evidence {row.name}`"
        )
    if row.status != "active":
        raise HexpostError(f"game {row.name} is an invitation not accepted yet: nobody is late")
    ruleset = ruleset_for(row.ruleset)
    state = replica.state(game_id)
    if state.core.seat_state(row.my_seat).public_key != identity.public_key:
        raise HexpostError(
            f"this home does not sign for seat {row.my_seat} of {row.name}: the game binds "
            "another key to it"
        )
    decisions = pending(ruleset, state)
    if not decisions:
        raise HexpostError(f"game {row.name} is over: nobody owes a move")
    owed = decisions[0]
    late = owed.seats[0]
    if late == row.my_seat:
        raise HexpostError(
            f"you owe the next move of {row.name} yourself ({owed.kind.value} at {owed.step})"
        )
    hours = state.core.reply_window_hours
    since, at = parse_time(row.waiting_since), parse_time(now)
    if since is None or at is None:
        raise HexpostError(f"unreadable time: waiting since {row.waiting_since!r}, now {now!r}")
    passes = since + timedelta(hours=hours)
    if at < passes:
        raise HexpostError(
            f"{late} has owed the move of {row.name} since {row.waiting_since}: its reply window "
            f"of {hours} hours passes at {format_time(passes)}, in {_duration(passes - at)}; "
            "no late claim before then"
        )
    for earlier in open_claims(replica.store, game_id, state.core.seq):
        made = parse_time(earlier.body.claimed_at)
        if earlier.mine and made is not None and at < made + timedelta(hours=hours):
            raise HexpostError(
                f"you already claimed at {earlier.body.claimed_at} that {late} is late at "
                f"packet {state.core.seq}: another claim may follow one reply window later, "
                f"at {format_time(made + timedelta(hours=hours))}"
            )
    body = ClaimBody(
        game_id=game_id,
        seat=row.my_seat,
        late=late,
        head_seq=state.core.seq,
        head_id=state.head,
        step=owed.step,
        key=owed.key,
        window_hours=hours,
        waiting_since=row.waiting_since,
        claimed_at=now,
        note=note,
    )
    return body, ruleset, state


def _duration(left: timedelta) -> str:
    minutes = max(1, int(left.total_seconds() + 59) // 60)
    hours, minutes = divmod(minutes, 60)
    if hours >= 48:
        return f"{hours // 24} days {hours % 24} hours"
    return f"{hours} h {minutes:02d} min" if hours else f"{minutes} min"


def _queue(
    store: Store, ruleset: AnyRuleset, state: AnyState, claim: VerifiedClaim, now: str
) -> None:
    """Put our claim in the outbox like a packet: position ``head_seq``, the claim's id, to
    every other seat, with a subject and summary a person can read in an inbox."""
    body = claim.body
    core = state.core
    names = {seat.seat: seat.name for seat in core.seats}
    recipients = [s.address for s in core.seats if s.seat != body.seat and s.address]
    subject = Subject(
        game=core.name,
        seat=body.seat,
        action="late claim",
        seq=body.head_seq,
        when=ledger.turn_tag(ruleset, state),
    )
    lines = [
        f"{_who(body.seat, names)} says that {_who(body.late, names)} is late:",
        claim_text(body),
        "A late claim changes nothing in the game; both players' logs keep it.",
    ]
    store_outbox.queue(
        store,
        body.game_id,
        body.head_seq,
        claim.claim_id,
        claim.data,
        recipients="\n".join(recipients),
        subject=format_subject(subject),
        automatic=False,
        now=now,
        summary="\n".join(lines),
    )


def _who(seat: str, names: Mapping[str, str]) -> str:
    name = names.get(seat, "")
    return f"{name} ({seat})" if name else seat


# --- receiving ------------------------------------------------------------------------------------


def verdict(store: Store, data: bytes) -> str:
    """`saves.inbox.verdict` for a claim: ``"verified"`` by the key its game binds to its seat,
    ``"unknown key"`` when this home binds no key to that seat, else ``"bad"``."""
    return opened(store, data)[0]


def opened(store: Store, data: bytes) -> tuple[str, VerifiedClaim | None]:
    """`verdict`, with the verified claim when there is one: handed to `receive`, it is not
    checked a second time."""
    return side_verdicts.opened(store, data, peek, open_claim)


def _seat_key(store: Store, body: ClaimBody) -> bytes | None:
    return store_keys.seat_key(store, body.game_id, body.seat)


def receive(
    replica: Reader, data: bytes, source: str, now: str, verified: VerifiedClaim | None = None
) -> Outcome:
    """Take in one received claim (the caller holds the transaction): check it against this
    home's game (see the module notes) and keep it; it changes nothing else. ``verified`` is
    ``data`` as `opened` verified it already (its signature is then not checked again)."""
    store = replica.store
    try:
        body = peek(data)
    except PacketError as exc:
        return Outcome("rejected", f"late claim refused: {exc}")
    row = store_games.game(store, body.game_id)
    if row is None:
        return Outcome(
            "ignored",
            f"a late claim for game {body.game_id.hex()[:8]}, which this home does not hold",
            body.game_id,
        )
    name, head = row.name, row.head_seq
    try:
        claim = check(replica, data, body, verified)
    except HexpostError as exc:
        reason = f"late claim by {body.seat} at packet {body.head_seq} of {name} refused: {exc}"
        ledger.record_rejected(store, body.game_id, source, reason, data, now)
        return Outcome("rejected", reason, body.game_id, body.head_seq)
    if not _keep(store, claim, now, mine=_is_my_seat(store, body)):
        detail = f"late claim {claim.claim_id.hex()[:8]} of {name} is already kept"
        return Outcome("duplicate", detail, body.game_id, body.head_seq)
    detail = f"in game {name} ({body.game_id.hex()[:8]}): {body.seat} says {claim_text(body)}"
    if body.head_seq > head:
        detail += (
            f" (this home has not received packet {body.head_seq} yet: ask {body.seat} to send "
            "it again)"
        )
    elif body.head_seq < head:
        detail += f" ({body.late} has moved since)"
    held_back = (
        behind.held_back_text(store, body.game_id, head, body.seat)
        if body.head_seq == head
        else None
    )
    if held_back is not None:
        detail += f" ({held_back})"
    return Outcome("claim", detail, body.game_id, body.head_seq)


def _is_my_seat(store: Store, body: ClaimBody) -> bool:
    row = store_games.game(store, body.game_id)
    return row is not None and row.my_seat == body.seat


def check(
    replica: Reader, data: bytes, body: ClaimBody, verified: VerifiedClaim | None = None
) -> VerifiedClaim:
    """Verify a claim of a game this home holds; raises `HexpostError` saying what is wrong.
    A ``verified`` claim of these very bytes under the seat's key is not verified again."""
    store = replica.store
    key = _seat_key(store, body)
    if key is None:
        raise PacketError(f"seat {body.seat!r} has no key in this game")
    if verified is not None and verified.data == data and verified.public_key == key:
        claim = verified
    else:
        claim = open_claim(data, key)
    game = replica.game(body.game_id)
    ruleset = ruleset_for(game.ruleset)
    head_state = replica.state(body.game_id)
    if not any(seat.seat == body.late for seat in head_state.core.seats):
        raise HexpostError(f"it calls late a seat the game does not have ({body.late!r})")
    if body.head_seq <= game.head_seq:
        stored = ledger.stored_at(store, body.game_id, body.head_seq)
        if stored is None or stored[0] != body.head_id:
            raise HexpostError(
                f"it waits at a packet {body.head_seq} (id {body.head_id.hex()[:16]}) that is not "
                "this game's"
            )
        state = replica.state(body.game_id, at=body.head_seq)
        decisions = pending(ruleset, state)
        if not decisions:
            raise HexpostError(f"the game was over at packet {body.head_seq}")
        owed = decisions[0]
        if owed.seats[0] != body.late:
            raise HexpostError(
                f"after packet {body.head_seq} {owed.seats[0]} owed the move, not {body.late}"
            )
        if (owed.step, owed.key) != (body.step, body.key):
            raise HexpostError(
                f"it names step {body.step}, but the move owed after packet {body.head_seq} is "
                f"step {owed.step}"
            )
    hours = head_state.core.reply_window_hours
    if body.window_hours != hours:
        raise HexpostError(
            f"it names a reply window of {body.window_hours} hours; the game's is {hours}"
        )
    since, made = parse_time(body.waiting_since), parse_time(body.claimed_at)
    if since is None or made is None:
        raise HexpostError(f"unreadable times ({body.waiting_since!r}, {body.claimed_at!r})")
    if made < since + timedelta(hours=hours):
        raise HexpostError(
            f"by its own clock the reply window had not passed (waiting since "
            f"{body.waiting_since}, claimed at {body.claimed_at}, window {hours} hours)"
        )
    return claim


def _keep(store: Store, claim: VerifiedClaim, now: str, *, mine: bool) -> bool:
    """Store a verified claim once (False: it was kept already); keep `MAX_CLAIMS_PER_GAME`."""
    body = claim.body
    return store_evidence.keep_claim(
        store,
        body.game_id,
        claim.claim_id,
        body.seat,
        body.late,
        body.head_seq,
        claim.data,
        now,
        mine=mine,
        keep=MAX_CLAIMS_PER_GAME,
    )


# --- reading and showing -------------------------------------------------------------------------


def claims_of(store: Store, game_id: bytes, head_seq: int | None = None) -> list[ClaimRow]:
    """A game's kept claims by position, then as they came (only those at ``head_seq``, when
    given)."""
    found = []
    for claim_id, data, received_at, mine in store_evidence.claim_rows(store, game_id, head_seq):
        try:
            body = peek(bytes(data))
        except PacketError:
            continue  # verified when kept; a damaged row is skipped rather than shown
        found.append(ClaimRow(bytes(claim_id), body, bytes(data), str(received_at), bool(mine)))
    return found


def open_claims(store: Store, game_id: bytes, head_seq: int) -> list[ClaimRow]:
    """The claims still open: made at the game's head ``head_seq`` (nobody has moved since)."""
    return claims_of(store, game_id, head_seq)


def claim_text(body: ClaimBody) -> str:
    """What a claim says, in one line (the log and the sync report)."""
    note = f"; note: {body.note}" if body.note else ""
    return (
        f"{body.late} has owed the move at packet {body.head_seq} (step {body.step}) since "
        f"{body.waiting_since}, past the reply window of {body.window_hours} hours (claimed "
        f"{body.claimed_at}){note}"
    )


def claim_line(body: ClaimBody, names: Mapping[str, str]) -> str:
    """The short line of an open claim for the games list and the app:
    ``late claim: Bob owes 3B2 since 2026-12-01``."""
    who = names.get(body.late) or body.late
    return f"late claim: {who} owes {body.step} since {body.waiting_since[:10]}"


def open_claim_line(store: Store, game_id: bytes, state: AnyState) -> str | None:
    """The line of the latest open claim of a game at ``state`` (its head), or None."""
    found = open_claims(store, game_id, state.core.seq)
    if not found:
        return None
    return claim_line(found[-1].body, {seat.seat: seat.name for seat in state.core.seats})


# --- in a game archive ------------------------------------------------------------------------


def for_archive(store: Store, game_id: bytes) -> list[ArchivedClaim]:
    return [ArchivedClaim(row.data, row.received_at) for row in claims_of(store, game_id)]


def restore(replica: Reader, game_id: bytes, items: Sequence[ArchivedClaim]) -> None:
    """Keep an imported game's claims, each checked as a received one is (inside the caller's
    transaction, after the game's packets are stored); one that does not hold refuses the
    import."""
    for index, item in enumerate(items, start=1):
        try:
            body = peek(item.data)
            if body.game_id != game_id:
                raise HexpostError("it belongs to another game")
            claim = check(replica, item.data, body)
        except HexpostError as exc:
            raise HexpostError(f"archive claim {index}: {exc}") from None
        _keep(replica.store, claim, item.received_at, mine=_is_my_seat(replica.store, body))
