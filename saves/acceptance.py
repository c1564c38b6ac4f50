"""Whether this player accepted the keys that joined its game (protocol rule P10).

The engine makes the creator's next packet after the joins the acceptance of the joined keys
(``DecisionKind.ACCEPT``); this home signs that packet only once its player accepted those
keys by name, address and fingerprint (`saves.joins.accept`). This module answers the question
every signing job asks first (`check`), and lists who waits; it signs nothing itself.
"""

from __future__ import annotations

from engine.core.errors import HexpostError
from engine.core.owed import pending
from engine.core.packets import fingerprint
from engine.core.ruleset import AnyRuleset, Decision, DecisionKind
from engine.core.state import AnyState, SeatState
from saves import store_keys
from saves.reading import Reader
from saves.store_games import GameRow


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


def accepted(reader: Reader, game_id: bytes, seat: SeatState) -> bool:
    """Whether the player accepted exactly the key this seat joined with."""
    return store_keys.accepted_key(reader.store, game_id, seat.seat) == seat.public_key


def carried_next(reader: Reader, row: GameRow, state: AnyState, decisions: list[Decision]) -> bool:
    """Whether the acceptance owed first (``decisions``, the game's pending ones) is this
    home's, its player accepted every joined key, and the decision after it is this seat's
    too: then nothing was signed for it (`saves.joins.accept`), the seat's next packet
    carries it, and what the player does next is that following decision."""
    if len(decisions) < 2 or decisions[0].kind != DecisionKind.ACCEPT:
        return False
    if decisions[0].seats[0] != row.my_seat or decisions[1].seats[:1] != (row.my_seat,):
        return False
    seats = awaiting_any(state)
    return bool(seats) and all(accepted(reader, row.game_id, s) for s in seats)


def check(reader: Reader, row: GameRow, ruleset: AnyRuleset, state: AnyState) -> None:
    """Refuse to sign while a joined key waits for this player's acceptance, saying how."""
    waiting = [
        s for s in awaiting(ruleset, state, row.my_seat) if not accepted(reader, row.game_id, s)
    ]
    if waiting:
        who = "; ".join(describe(s) for s in waiting)
        raise HexpostError(
            f"game {row.name}: {who} joined. Compare that fingerprint with the player you "
            f"invited, then `hexpost accept {row.name}` (or `hexpost decline {row.name}` if "
            "it is not them); your next packet carries the acceptance"
        )
