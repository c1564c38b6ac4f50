"""Submitting a player's packets: draft and check orders, then sign and queue them.

`submit` turns orders as read from JSON or TOML into a packet, checks it with the engine
(a dry run stops there and shows what it would do), and otherwise signs and queues that very
checked result (`saves.signing.Signer.sign_and_store`), so a sent packet is applied once.
`sign_kind` writes the packets that carry no orders: a chat line, a resignation
(`saves.resigning`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import msgspec

from engine.core import author
from engine.core.errors import GameFrozen, HexpostError
from engine.core.owed import owed_first, pending
from engine.core.packets import Chat, EntropyOnly, Kind, Resign, Turn
from engine.core.ruleset import Decision, DecisionKind, Event, Seat
from engine.core.state import AnyState
from saves import acceptance, vault
from saves.chat import CHAT_LATER, RESIGN_LATER, chat_line, check_chat_turn
from saves.registry import ruleset_for
from saves.secrets import add_commit, owed_reveals
from saves.signing import Signer


class Submitted(msgspec.Struct, frozen=True):
    """The outcome of writing orders: the packet id (None for a dry run) and its events."""

    seq: int
    state_hash: bytes
    events: list[Event]
    packet_id: bytes | None = None
    state: AnyState | None = None
    """For a dry run, the state the packet would produce (what a what-if view draws)."""
    left_open: Decision | None = None
    """The decision its seat owed before the orders, when they leave that very one owed
    by it (`left_open`): sent as they are, the packet hands the other player nothing."""
    then_owed: Decision | None = None
    """Another decision of the same seat's the orders run into (`then_owed`): the player
    goes on there (a ``done`` that played on to the builds), the other player is not asked.
    None after a secret choice, which ends its packet."""
    owed_after: Decision | None = None
    """The decision owed first once the packet is applied (None: the game is over): whose
    move it then is, which the player is told as the packet is drafted and signed."""


def submit(
    signer: Signer,
    game_id: bytes,
    items: Sequence[Mapping[str, Any]],
    *,
    now: str,
    dry_run: bool = False,
) -> Submitted:
    """Check a player's orders against the engine and, unless ``dry_run``, sign and queue them.

    ``items`` are orders as read from JSON/TOML. ``{"type": "secret", "choice": ...}``
    becomes a commitment (the choice stays in this home until it is revealed); a reveal
    this seat owes is added automatically.
    """
    row = signer.game(game_id)
    if row.frozen:
        raise GameFrozen(f"game {row.name} is frozen: {row.frozen}")
    if row.status != "active":
        raise HexpostError(f"game {row.name} is an invitation: `hexpost accept` it first")
    ruleset = ruleset_for(row.ruleset)
    state = signer.state(game_id)
    seat = row.my_seat
    owed_before = owed_first(ruleset, state)
    if not dry_run:
        acceptance.check(signer, row, ruleset, state)
    secret_at = [i for i, item in enumerate(items) if item.get("type") == "secret"]
    if len(secret_at) > 1:
        raise HexpostError(f"order {secret_at[1] + 1}: a packet may carry one secret choice")
    if secret_at and secret_at[0] != len(items) - 1:
        raise HexpostError(f"order {secret_at[0] + 1}: a secret choice must be the last order")
    orders = ruleset.parse_orders([item for item in items if item.get("type") != "secret"])
    reveals = owed_reveals(signer.store, game_id, ruleset, state, seat, signer.me().key)
    if not items:
        owed = pending(ruleset, state)
        if (
            not owed
            or owed[0].seats[0] != seat
            or owed[0].kind in (DecisionKind.ORDERS, DecisionKind.SECRET)
        ):
            raise HexpostError("no orders given: the orders list is empty")
    kind: Kind = (
        Turn(ruleset.encode_orders(orders)) if (orders or reveals or secret_at) else EntropyOnly()
    )
    try:
        value = signer.next_value(game_id, state, seat)
    except vault.VaultLocked:
        if not dry_run:
            raise
        state, value = vault.draft_stand_in(state, seat)  # a dry run without the key
    body = author.new_body(
        ruleset,
        state,
        game_id=game_id,
        seat=seat,
        kind=kind,
        entropy_value=value,
        reveals=reveals,
        written_at=now,
    )
    public = signer.me().public_key
    result = author.draft(ruleset, state, body, public)
    held = None
    if secret_at:  # the secret decision owed is known only after the orders: draft again
        body, held = add_commit(ruleset, result.state, seat, items[-1], body, len(items))
        result = author.draft(ruleset, state, body, public)
    owed_after = owed_first(ruleset, result.state)
    still = left_open(owed_before, owed_after, seat)
    # A secret choice ends its packet: nothing may follow it, so no step is run into.
    then = None if still is not None or secret_at else then_owed(owed_after, seat)
    if dry_run:
        return Submitted(
            body.seq,
            result.state_hash,
            result.events,
            state=result.state,
            left_open=still,
            then_owed=then,
            owed_after=owed_after,
        )

    def keep_secret() -> None:
        if held is not None:
            vault.write_secret(
                signer.store, signer.signing_key(), game_id, held.key, seat, held.salt, held.choice
            )

    packet, result = signer.sign_and_store(
        ruleset, state, body, automatic=False, now=now, extra=keep_secret, drafted=result
    )
    return Submitted(
        body.seq,
        result.state_hash,
        result.events,
        packet.packet_id,
        left_open=still,
        then_owed=then,
        owed_after=owed_after,
    )


def left_open(before: Decision | None, after: Decision | None, seat: Seat) -> Decision | None:
    """``before``, the orders decision ``seat`` owed, when ``after``, the decision owed first
    after its orders, is that same occurrence of the step (its ``key``) from ``seat``: orders
    that answered part of it (a note, an approach battle refused) but did not end it."""
    if before is None or before.kind != DecisionKind.ORDERS or seat not in before.seats:
        return None
    if after is None or after.key != before.key or seat not in after.seats:
        return None
    return after


def then_owed(after: Decision | None, seat: Seat) -> Decision | None:
    """``after``, the decision owed first after the orders, when it is ``seat``'s and one
    its player makes (orders, a secret choice): the step the player goes on at."""
    if after is None or seat not in after.seats:
        return None
    return after if after.kind in (DecisionKind.ORDERS, DecisionKind.SECRET) else None


def chat(signer: Signer, game_id: bytes, text: str, *, now: str) -> Submitted:
    """Sign and queue a `Chat` packet: a line to the other players, kept in the log.

    Only on this seat's move and never while a roll waits for our entropy (`saves.chat`
    says why); the same decision is owed after it. Nothing is stored when refused.
    """
    return sign_kind(signer, game_id, Chat(chat_line(text)), now=now)


def sign_kind(
    signer: Signer,
    game_id: bytes,
    kind: Chat | Resign,
    *,
    now: str,
    automatic: bool = False,
    extra: Callable[[], None] | None = None,
) -> Submitted:
    """Sign and queue a packet without orders (a chat line, a resignation) on our move.

    A resignation may answer a join that waits for acceptance (it declines it, see
    `saves.joins`); anything else first needs the player's acceptance of the joined key.
    ``automatic``: written with no player at hand (a resignation asked for earlier, which
    `saves.replies` signs); ``extra`` runs in the transaction that stores the packet.
    """
    row = signer.game(game_id)
    ruleset = ruleset_for(row.ruleset)
    state = signer.state(game_id)
    owed = pending(ruleset, state)
    is_resignation = isinstance(kind, Resign)
    check_chat_turn(
        row.name,
        row.my_seat,
        status=row.status,
        frozen=row.frozen,
        owed=owed,
        act="resign" if is_resignation else "chat",
        later=RESIGN_LATER if is_resignation else CHAT_LATER,
    )
    if not is_resignation:
        acceptance.check(signer, row, ruleset, state)
    if signer.has_buffered_own(row):
        raise HexpostError(f"game {row.name}: a packet of ours waits to be applied: sync first")
    body = author.new_body(
        ruleset,
        state,
        game_id=game_id,
        seat=row.my_seat,
        kind=kind,
        entropy_value=signer.next_value(game_id, state, row.my_seat),
        written_at=now,
    )
    packet, result = signer.sign_and_store(
        ruleset, state, body, automatic=automatic, now=now, extra=extra
    )
    return Submitted(body.seq, result.state_hash, result.events, packet.packet_id)
