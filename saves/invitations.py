"""An invitation: the genesis packet of a game this home does not hold yet, naming one of its
seats at this home's address.

It is taken in as a game waiting for this player's answer (status ``invited``), or refused
when it does not apply. When this hexpost lacks the game's ruleset (a plug-in not installed
yet, or an older hexpost), it is neither: it is kept, verified, among the parked packets under
a key id of its own (`WAITING_FOR_RULESET`), and the first sync that finds the ruleset
loadable takes it in (`ready`, called by `saves.inbox.catch_up`). The player only installs the
ruleset: nobody has to send the invitation again, which would cost an email round trip. One
held `HELD_DAYS` days is dropped (`expire`), so a ruleset never installed leaves no note for
ever.
"""

from __future__ import annotations

from datetime import timedelta

from engine.core.errors import HexpostError, VersionError
from engine.core.game import apply_packet
from engine.core.packets import Genesis, VerifiedPacket, fingerprint, peek_body
from engine.core.seating import check_genesis
from saves import ledger, quarantine, store_games, store_inbox
from saves.outbox import parse_time
from saves.outcome import Outcome
from saves.reading import Reader
from saves.registry import ruleset_for
from saves.store import Store

WAITING_FOR_RULESET = b"an invitation waiting for its ruleset"
"""The key id invitations wait under among the parked packets: a real key id is eight bytes
long, so no other packet is ever kept under it, and the retries of packets parked for an
unknown key pass them by."""


MAX_WAITING = 20
"""Invitations held at most: anyone may address one to this home, and each sync reads them
all; past this, one more is refused as before holding existed, saying to ask for it again."""
NOTES_SHOWN = 3
"""Held invitations named one per line in the home's notes; the others are counted."""
HELD_DAYS = 30
"""Days an invitation is held at most: a player who never installs the ruleset is not shown
its note for ever (`expire`), and its creator can send it again."""


def take(replica: Reader, packet: VerifiedPacket, seat: str, source: str, now: str) -> Outcome:
    """Take in the invitation ``packet`` to play ``seat`` (the caller holds the transaction)."""
    body = packet.body
    genesis = body.kind
    assert isinstance(genesis, Genesis)
    try:
        result = apply_packet(ruleset_for(genesis.ruleset_id), None, packet)
    except VersionError as exc:  # no damage: kept until this hexpost can play it
        store = replica.store
        if len(store_inbox.parked_under(store, WAITING_FOR_RULESET)) >= MAX_WAITING:
            reason = (
                f"{_from(genesis)} refused: {exc}: {MAX_WAITING} invitations wait for this "
                f"hexpost already: install the ruleset or update hexpost, then ask "
                f"{_creator(genesis)} to run `hexpost resend {genesis.name}`"
            )
            quarantine.reject(store, None, source, reason, packet.data, now)
            return Outcome("rejected", reason, body.game_id, seat=body.seat, source=source,
                           attention=True)  # fmt: skip
        digest = ledger.digest(packet.data)
        quarantine.park(store, WAITING_FOR_RULESET, digest, packet.data, now)
        reason = (
            f"{_from(genesis)} held until this hexpost can play it: {exc}: install the "
            "ruleset or update hexpost, and the next sync takes it in"
        )
        return Outcome("parked", reason, body.game_id, seat=body.seat, source=source,
                       attention=True)  # fmt: skip
    except HexpostError as exc:
        reason = f"invitation refused: {exc}"
        quarantine.reject(replica.store, None, source, reason, packet.data, now)
        return Outcome("rejected", reason, body.game_id, seat=body.seat, source=source)
    store_games.insert_game(
        replica.store,
        body.game_id,
        name=genesis.name,
        ruleset=genesis.ruleset_id,
        scenario=genesis.scenario_id,
        my_seat=seat,
        status="invited",
        now=now,
    )
    ledger.store_applied(replica.store, packet, result, now, mine=False)
    replica.remember_head(body.game_id, packet.packet_id, result.state)
    creator = next(b for b in genesis.seats if b.seat == genesis.creator)
    before = ledger.other_keys_of(replica.store, creator.address, packet.public_key)
    detail = (
        f"{creator.name or genesis.creator} <{creator.address}> invites you to play "
        f"{genesis.scenario_id} as {seat} (game {body.game_id.hex()[:8]}); "
        f"their key's fingerprint is {fingerprint(packet.public_key)}: compare it with them"
    )
    if before:
        detail += (
            f". WARNING: {creator.address} used another key before ({before[-1]}): make sure "
            "this invitation really comes from them"
        )
    return Outcome("invitation", detail, body.game_id, 0, [0])


def held(store: Store) -> bool:
    """Whether some invitation is held (a sync then looks at them: `saves.inbox.catch_up`)."""
    return bool(store_inbox.parked_under(store, WAITING_FOR_RULESET))


def ready(store: Store) -> list[tuple[bytes, bytes]]:
    """``(hash, bytes)`` of the held invitations this hexpost can play now."""
    return [
        (digest, data)
        for digest, data, _at in store_inbox.parked_under(store, WAITING_FOR_RULESET)
        if (genesis := _genesis(data)) is None or not _missing(genesis)
    ]  # (one no longer readable is offered too: taking it in records why it was refused)


def expire(store: Store, now: str) -> list[Outcome]:
    """Drop the invitations held `HELD_DAYS` days that this hexpost still cannot play, each
    kept among the refused items with the reason, which says what to ask for later."""
    current = parse_time(now)
    if current is None:
        return []
    outcomes = []
    for digest, data, at in store_inbox.parked_under(store, WAITING_FOR_RULESET):
        since = parse_time(at)
        genesis = _genesis(data)
        if since is None or current < since + timedelta(days=HELD_DAYS) or genesis is None:
            continue
        missing = _missing(genesis)
        if not missing:
            continue  # it is taken in instead (`ready`)
        reason = (
            f"{_from(genesis)} dropped: held {HELD_DAYS} days, and this hexpost still cannot "
            f"play it: {missing}: once it can, ask {_creator(genesis)} to run "
            f"`hexpost resend {genesis.name}`"
        )
        store_inbox.unpark(store, digest)
        quarantine.reject(store, None, "held", reason, data, now)
        outcomes.append(Outcome("rejected", reason, _game_of(data), source="held"))
    return outcomes


def drop(store: Store, name: str, now: str) -> str:
    """Drop the held invitation ``name`` (its game's name or id, or a unique prefix of the id)
    by its player's wish, kept among the refused items; what was done (the caller holds the
    transaction). Its creator cannot be told: a decline is signed over the game's state,
    which only the game's ruleset computes."""
    held = []
    for digest, data, _at in store_inbox.parked_under(store, WAITING_FOR_RULESET):
        body = peek_body(data)
        if body is not None and isinstance(body.kind, Genesis):
            held.append((digest, data, body.kind, body.game_id))
    exact = [item for item in held if name in (item[2].name, item[3].hex())]
    matches = exact or [item for item in held if item[3].hex().startswith(name.lower())]
    if len(matches) != 1:
        several = "several held invitations match" if matches else "no held invitation matches"
        raise HexpostError(f"{several} {name!r} (see `hexpost games`)")
    digest, data, genesis, game_id = matches[0]
    text = (
        f"{_from(genesis)} dropped by hand; {_creator(genesis)} is not told (declining needs "
        "the game's ruleset)"
    )
    store_inbox.unpark(store, digest)
    quarantine.reject(store, game_id, "held", text, data, now)
    return text


def waiting_notes(store: Store) -> tuple[str, ...]:
    """One line per held invitation, for the home's notes: who invites, what is missing, and
    how to drop it (`drop`)."""
    notes = []
    for _digest, data, _at in store_inbox.parked_under(store, WAITING_FOR_RULESET):
        body = peek_body(data)
        genesis = _genesis(data)
        missing = _missing(genesis) if genesis is not None else ""
        if body is not None and genesis is not None and missing:
            called = genesis.name or body.game_id.hex()[:8]
            notes.append(
                f"{_from(genesis)} waits until this hexpost can play it: {missing}; "
                f"`hexpost decline {called}` drops it"
            )
    if len(notes) > NOTES_SHOWN:
        more = len(notes) - NOTES_SHOWN
        notes[NOTES_SHOWN:] = [f"and {more} more invitations wait the same way"]
    return tuple(notes)


def _missing(genesis: Genesis) -> str:
    """What this hexpost lacks to play the game ``genesis`` begins ("" when nothing: any
    other fault is for taking it in to find and refuse)."""
    try:
        check_genesis(ruleset_for(genesis.ruleset_id), genesis)
    except VersionError as exc:
        return str(exc)
    except HexpostError:
        return ""
    return ""


def _game_of(data: bytes) -> bytes | None:
    """The game id a held invitation names."""
    body = peek_body(data)
    return body.game_id if body is not None else None


def _genesis(data: bytes) -> Genesis | None:
    """The genesis of a held invitation (verified when it was held)."""
    body = peek_body(data)
    return body.kind if body is not None and isinstance(body.kind, Genesis) else None


def _from(genesis: Genesis) -> str:
    """'invitation from NAME <ADDRESS> to play SCENARIO', as its creator's seat names them."""
    creator = next((b for b in genesis.seats if b.seat == genesis.creator), None)
    address = f" <{creator.address}>" if creator else ""
    return f"invitation from {_creator(genesis)}{address} to play {genesis.scenario_id}"


def _creator(genesis: Genesis) -> str:
    creator = next((b for b in genesis.seats if b.seat == genesis.creator), None)
    return (creator.name if creator else "") or genesis.creator
