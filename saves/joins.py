"""The creator's explicit acceptance of the keys that joined its game (protocol rule P10).

Whoever reads an invitation (it travels by mail, or sits in a shared folder) could answer it
first and take the seat. So a join alone does not settle who plays: the engine makes the
creator's next packet after the joins the acceptance of the joined keys (`engine.core.game`,
``DecisionKind.ACCEPT``), and this home signs that packet only after its player accepted them
by name, address and fingerprint (`accept`), having compared the fingerprint with the invited
player by some other channel. Until then orders, chat and automatic replies are refused with
what to do. `decline` answers a join that is not the invited player's: the creator resigns,
which ends the game before it began.

The player's acceptance is kept in ``accepted_joins`` (for the exact key), so it survives a
restart between accepting and signing the next packet.
"""

from __future__ import annotations

import msgspec

from engine.core.errors import HexpostError
from engine.core.owed import pending
from engine.core.packets import Join, Resign, VerifiedPacket, fingerprint
from engine.core.ruleset import AnyRuleset
from engine.core.state import AnyState, SeatState
from saves import ledger, store_keys, submitting
from saves.acceptance import awaiting, awaiting_any, carried_next, check, describe
from saves.addresses import same_address
from saves.reading import Reader
from saves.signing import Signer
from saves.store_games import GameRow
from saves.submitting import Submitted

__all__ = [
    "Accepted",
    "accept",
    "awaiting",
    "awaiting_any",
    "carried_next",
    "check",
    "decline",
    "describe",
]


TO_SEND = "run `hexpost sync` to send it"
"""How `accept` ends the line of an acceptance packet it signed (the app, which sends it at
once, says so in its place)."""


class Accepted(msgspec.Struct, frozen=True):
    """What `accept` did: the seats accepted, and the acceptance packet if one was signed."""

    seats: list[str]
    text: str
    packet_seq: int | None = None


def _owed(
    replica: Signer, game_id: bytes, *, declining: bool = False
) -> tuple[GameRow, AnyRuleset, AnyState, list[SeatState]]:
    """The game, its ruleset and state, and the joined seats this player must accept (or
    may decline) now; refused when none waits."""
    row = replica.game(game_id)
    ruleset = replica.ruleset(game_id)
    state = replica.state(game_id)
    seats = awaiting(ruleset, state, row.my_seat)
    if seats:
        return row, ruleset, state, seats
    if state.core.resigned:
        nothing = "nothing to decline" if declining else "no joined key waits for your acceptance"
        raise HexpostError(f"game {row.name} is over: {nothing}")
    if declining:
        raise HexpostError(
            f"game {row.name}: nothing to decline, no invitation or joined key waits for your "
            f"answer: `hexpost resign {row.name}` concedes a game under way"
        )
    raise HexpostError(f"game {row.name}: no joined key waits for your acceptance")


def accept(replica: Signer, game_id: bytes, *, now: str, expected: str = "") -> Accepted:
    """Accept the joined keys of a game this player created.

    ``expected`` (a fingerprint, spaces optional) must match when given. When the next move
    after the acceptance is this seat's anyway, nothing is signed now: those orders will carry
    the acceptance. Otherwise an acceptance packet is signed and queued at once, so the other
    side can move.
    """
    row, ruleset, state, seats = _owed(replica, game_id)
    wanted = "".join(expected.split()).lower()
    if wanted and not any("".join(fingerprint(s.public_key).split()) == wanted for s in seats):
        shown = "; ".join(describe(s) for s in seats)
        raise HexpostError(
            f"game {row.name}: the fingerprint you gave does not match the key that joined "
            f"({shown}): do not accept it; `hexpost decline {row.name}` ends the game"
        )
    with replica.store.transaction():
        for seat in seats:
            store_keys.accept_key(replica.store, game_id, seat.seat, seat.public_key, now)
    who = "; ".join(describe(s) for s in seats)
    following = pending(ruleset, state)[1:]
    if following and following[0].seats[0] == row.my_seat:
        return Accepted(
            [s.seat for s in seats],
            f"accepted {who}; your next packet ({following[0].step}) carries the acceptance",
        )
    submitted = submitting.submit(replica, game_id, [], now=now)
    return Accepted(
        [s.seat for s in seats],
        f"accepted {who}; packet {submitted.seq} (the acceptance) signed and queued: {TO_SEND}",
        submitted.seq,
    )


def decline(replica: Signer, game_id: bytes, *, now: str, reason: str = "") -> Submitted:
    """End a game whose joined key is not the invited player's (the creator resigns)."""
    _owed(replica, game_id, declining=True)
    text = reason.strip() or "declined the key that joined: not the invited player"
    return submitting.sign_kind(replica, game_id, Resign(text), now=now)


def join_notes(replica: Reader, state: AnyState, packet: VerifiedPacket, join: Join) -> list[str]:
    """What the creator must know about a join before accepting it (rule P10): who joined,
    from which address, with which key, and loudly, anything that does not fit; for a join
    that declines, who said no and that the game is over."""
    row = replica.game(packet.body.game_id)
    invited = state.core.seat_state(packet.body.seat).address
    print_key = fingerprint(packet.public_key)
    if join.declines:
        reason = f" ({join.reason})" if join.reason else ""
        notes = [
            f"{join.name} <{join.address}> declined the invitation to {row.name}{reason}, "
            f"key {print_key}: the game is over"
        ]
        if not same_address(join.address, invited):
            notes.append(
                f"WARNING: the invitation went to {invited}, but this answer comes from "
                f"{join.address}: anyone who read the invitation can answer it; if {invited} "
                "still wants to play, start a new game"
            )
        return notes
    notes = [
        f"{join.name} <{join.address}> joined {row.name} as {packet.body.seat} with key {print_key}"
    ]
    if not same_address(join.address, invited):
        notes.append(
            f"WARNING: the invitation went to {invited}, but this join comes from "
            f"{join.address}: anyone who read the invitation can answer it; accept only if "
            f"{invited} tells you this is them"
        )
    seen = ledger.other_keys_of(replica.store, join.address, packet.public_key)
    if seen:
        notes.append(
            f"WARNING: {join.address} joined with a key this home has not seen for them "
            f"before (it saw {seen[-1]})"
        )
    if row.my_seat == state.core.creator:
        notes.append(
            f"compare the fingerprint with {invited} by another channel, then "
            f"`hexpost accept {row.name}` (or `hexpost decline {row.name}`)"
        )
    return notes
