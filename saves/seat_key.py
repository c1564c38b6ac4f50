"""Whether this home holds the key its seat plays with.

A home imports any game's archive (`saves.archive`): a player moving to another machine,
but also anyone handed a public export to read or to check a frozen game's evidence. Such
a home holds the game under the archive's seat without that seat's key, so it can show the
game and replay it, never sign in it. This module says so in words; the games list and the
signing code use it, so nobody is told it is their move in a game they cannot play.
"""

from __future__ import annotations

from engine.core.packets import fingerprint
from engine.core.state import AnyState
from saves.keys import Identity
from saves.store_games import GameRow


def foreign_seat(identity: Identity | None, row: GameRow, state: AnyState) -> str | None:
    """Why this home, of ``identity``, cannot play its seat of the game (another key is bound
    to it), or None when it holds that key, or the seat has no key yet (an invitation not
    answered), or the home has no identity yet (it reads the game as its seat, and
    everything that signs asks for an identity first)."""
    try:
        seat = state.core.seat_state(row.my_seat)
    except KeyError:
        return None
    if not seat.joined:
        return None
    if identity is None or identity.public_key == seat.public_key:
        return None
    held = f"this home's is {fingerprint(identity.public_key)}"
    who = f"{seat.name} <{seat.address}>" if seat.name else seat.address
    return (
        f"{row.name}: {row.my_seat} plays with the key of {who}, "
        f"{fingerprint(seat.public_key)}, and {held}: this copy shows the game, "
        "it cannot play in it"
    )
