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

from typing import TYPE_CHECKING

import msgspec

from engine.core.errors import HexpostError
from engine.core.game import AnyRuleset, AnyState, pending
from engine.core.packets import Resign, fingerprint
from engine.core.ruleset import DecisionKind
from engine.core.state import SeatState

if TYPE_CHECKING:
    from saves.replica import GameRow, Replica, Submitted


class Accepted(msgspec.Struct, frozen=True):
    """What `accept` did: the seats accepted, and the acceptance packet if one was signed."""

    seats: list[str]
    text: str
    packet_seq: int | None = None


def awaiting(ruleset: AnyRuleset, state: AnyState, my_seat: str) -> list[SeatState]:
    """The joined seats whose keys ``my_seat`` (the creator) must accept before its next
    packet; empty when no acceptance is owed, or not by this seat."""
    decisions = pending(ruleset, state)
    if not decisions or decisions[0].kind != DecisionKind.ACCEPT:
        return []
    if decisions[0].seats[0] != my_seat:
        return []
    return [state.core.seat_state(seat) for seat in state.core.unaccepted]


def awaiting_any(state: AnyState) -> list[SeatState]:
    """The joined seats whose keys wait for the creator's acceptance (whoever is asking)."""
    return [state.core.seat_state(seat) for seat in state.core.unaccepted]


def describe(seat: SeatState) -> str:
    """``Bob <bob@example.org> as alliance, key 3f2a ...``."""
    key = fingerprint(seat.public_key)
    return f"{seat.name or seat.seat} <{seat.address}> as {seat.seat}, key {key}"


def _accepted(replica: Replica, game_id: bytes, seat: SeatState) -> bool:
    row = replica.store.one(
        "SELECT public_key FROM accepted_joins WHERE game_id = ? AND seat = ?",
        (game_id, seat.seat),
    )
    return row is not None and bytes(row[0]) == seat.public_key


def check(replica: Replica, row: GameRow, ruleset: AnyRuleset, state: AnyState) -> None:
    """Refuse to sign while a joined key waits for this player's acceptance, saying how."""
    waiting = [
        s for s in awaiting(ruleset, state, row.my_seat) if not _accepted(replica, row.game_id, s)
    ]
    if waiting:
        who = "; ".join(describe(s) for s in waiting)
        raise HexpostError(
            f"game {row.name}: {who} joined. Compare that fingerprint with the player you "
            f"invited, then `hexpost accept {row.name}` (or `hexpost decline {row.name}` if "
            "it is not them); your next packet carries the acceptance"
        )


def _owed(
    replica: Replica, game_id: bytes
) -> tuple[GameRow, AnyRuleset, AnyState, list[SeatState]]:
    """The game, its ruleset and state, and the joined seats this player must accept now;
    refused when none waits."""
    row = replica.game(game_id)
    ruleset = replica.ruleset(game_id)
    state = replica.state(game_id)
    seats = awaiting(ruleset, state, row.my_seat)
    if not seats:
        raise HexpostError(f"game {row.name}: no joined key waits for your acceptance")
    return row, ruleset, state, seats


def accept(replica: Replica, game_id: bytes, *, now: str, expected: str = "") -> Accepted:
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
    with replica.store.transaction() as db:
        for seat in seats:
            db.execute(
                "INSERT INTO accepted_joins (game_id, seat, public_key, accepted_at) "
                "VALUES (?, ?, ?, ?) ON CONFLICT (game_id, seat) DO UPDATE SET "
                "public_key = excluded.public_key, accepted_at = excluded.accepted_at",
                (game_id, seat.seat, seat.public_key, now),
            )
    who = "; ".join(describe(s) for s in seats)
    following = pending(ruleset, state)[1:]
    if following and following[0].seats[0] == row.my_seat:
        return Accepted(
            [s.seat for s in seats],
            f"accepted {who}; your next packet ({following[0].step}) carries the acceptance",
        )
    submitted = replica.submit(game_id, [], now=now)
    return Accepted(
        [s.seat for s in seats],
        f"accepted {who}; packet {submitted.seq} (the acceptance) signed and queued: "
        "run `hexpost sync` to send it",
        submitted.seq,
    )


def decline(replica: Replica, game_id: bytes, *, now: str, reason: str = "") -> Submitted:
    """End a game whose joined key is not the invited player's (the creator resigns)."""
    _owed(replica, game_id)
    text = reason.strip() or "declined the key that joined: not the invited player"
    return replica.sign_kind(game_id, Resign(text), now=now)
