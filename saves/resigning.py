"""Resigning a game: at once on this seat's move, or asked for now and signed on its next.

A `Resign` packet is a link of the chain like any other, so the engine takes it only from
the seat that owes the move (`saves.chat` says the same of chat packets). A player who
wants out while the other side is to move should not have to come back when the move
returns: `queue` keeps the wish in this home (`store_games.set_resigning`), and the
automatic replies (`saves.replies`) sign it the moment this seat owes a decision, in the
transaction that takes the wish back. Until then ``hexpost resign GAME --cancel`` (or
``R`` in the app) takes it back; nothing of it leaves the home before it is signed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from engine.core.errors import GameFrozen, HexpostError
from engine.core.owed import pending
from engine.core.packets import Resign
from engine.core.ruleset import DecisionKind
from saves import store_games
from saves.chat import RESIGN_LATER, chat_line, check_chat_turn
from saves.registry import ruleset_for
from saves.signing import Signer
from saves.store_games import GameRow
from saves.submitting import Submitted, sign_kind

REASON = "the reason for resigning"
"""How a refusal names the reason's text (held to a chat line's bounds, `chat_line`)."""

_NOT_NOW = (DecisionKind.ENTROPY, DecisionKind.REVEAL)
"""Decisions of this seat a resignation waits behind: the automatic reply goes first."""


class Resignation(NamedTuple):
    """What `check` found: the reason as it would be signed, and whether it can be signed
    now (False: on this seat's next decision, `queue`)."""

    reason: str
    now: bool


def check(reader: Signer, game_id: bytes, reason: str = "") -> Resignation:
    """Why this seat cannot resign the game at all (raised: an invitation, a frozen game, a
    game over, a reason that is not one short line), else when it can."""
    row = reader.game(game_id)
    if row.status == "invited" and not row.frozen:
        raise HexpostError(
            f"game {row.name} is an invitation: `hexpost decline {row.name}` refuses it"
        )
    text = chat_line(reason, REASON) if reason.strip() else ""
    owed = pending(ruleset_for(row.ruleset), reader.state(game_id))
    if owed and (owed[0].seats[0] != row.my_seat or owed[0].kind in _NOT_NOW):
        # Off this seat's move, or behind its own automatic reply: on its next decision.
        if row.frozen:
            raise GameFrozen(f"game {row.name} is frozen: {row.frozen}")
        return Resignation(text, False)
    check_chat_turn(
        row.name, row.my_seat, status=row.status, frozen=row.frozen, owed=owed,
        act="resign", later=RESIGN_LATER,
    )  # fmt: skip
    return Resignation(text, True)


def resign(signer: Signer, game_id: bytes, *, now: str, reason: str = "") -> Submitted:
    """Concede the game on this seat's move: a `Resign` packet, signed and queued, after
    which no seat may write (the other side's next sync shows the game over, and why).

    Before the creator accepted the key that joined, resigning declines that key, as
    ``hexpost decline`` does. Off this seat's move it is refused, saying so (`queue` asks
    for it on the next one). Nothing is stored when refused.
    """
    checked = check(signer, game_id, reason)
    if not checked.now:
        row = signer.game(game_id)
        owed = pending(ruleset_for(row.ruleset), signer.state(game_id))
        check_chat_turn(
            row.name, row.my_seat, status=row.status, frozen=row.frozen, owed=owed,
            act="resign", later=RESIGN_LATER,
        )  # fmt: skip

    # A wish kept for this move (automatic replies off) is answered by this packet.
    wished = _clear_wish(signer, game_id)
    return sign_kind(signer, game_id, Resign(checked.reason), now=now, extra=wished)


def queue(reader: Signer, game_id: bytes, *, now: str, reason: str = "") -> None:
    """Ask for the resignation on this seat's next decision (refused, saying why, where a
    resignation could not be signed then either, or where it can be signed now)."""
    checked = check(reader, game_id, reason)
    row = reader.game(game_id)
    if checked.now:
        raise HexpostError(f"game {row.name} is at your move: resign now instead")
    with reader.store.transaction():
        store_games.set_resigning(reader.store, game_id, now, checked.reason)


def cancel(reader: Signer, game_id: bytes) -> bool:
    """Take back a resignation asked for and not signed yet; whether there was one."""
    row = reader.game(game_id)
    if not row.resign_at:
        return False
    with reader.store.transaction():
        store_games.set_resigning(reader.store, game_id, "")
    return True


def due(reader: Signer, row: GameRow) -> bool:
    """Whether a resignation asked for in ``row``'s game is to be signed now: this seat owes
    a decision of its own (orders or a secret choice) in a game that goes on."""
    if not row.resign_at or row.status != "active" or row.frozen:
        return False
    owed = pending(ruleset_for(row.ruleset), reader.state(row.game_id))
    return bool(owed) and owed[0].seats[0] == row.my_seat and owed[0].kind not in _NOT_NOW


def sign_due(signer: Signer, row: GameRow, now: str) -> Submitted | None:
    """Sign the resignation ``row``'s player asked for, if it is due (`due`), taking the
    wish back in the same transaction; None when it is not due."""
    if not due(signer, row):
        return None

    wished = _clear_wish(signer, row.game_id)
    resignation = Resign(row.resign_reason)
    return sign_kind(signer, row.game_id, resignation, now=now, automatic=True, extra=wished)


def _clear_wish(signer: Signer, game_id: bytes) -> Callable[[], None]:
    """What clears the game's kept wish, run in the transaction that stores the packet
    answering it."""
    return lambda: store_games.set_resigning(signer.store, game_id, "")


def resigned_in(reader: Signer, written: list[tuple[bytes, int]]) -> list[str]:
    """The names of the games among the automatic packets ``written`` (``(game, seq)``,
    `saves.replies.auto_replies`) that this home's seat has resigned: the sync's report."""
    names: list[str] = []
    for game_id in dict.fromkeys(game for game, _ in written):
        row = reader.game(game_id)
        if reader.state(game_id).core.resigned == row.my_seat:
            names.append(row.name)
    return names
