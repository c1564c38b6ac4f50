"""Chat messages in the store: writing one at any time, taking one in, listing them.

A chat message (`engine.core.chats`) is signed by a seat's identity key beside the game's
chain, so either player may write one whether or not it owes the move. It changes no game
state. This home keeps the messages it wrote and the ones it received in the ``chats`` table
(`saves.store_chat`), sends its own through the outbox like a packet (same transports, same
retries) and shows them in the log, in ``hexpost chat GAME`` and in the app, marked as words
beside the game rather than part of its record.

A received message is checked against this home's own copy of the game before it is kept:
the game must be one this home holds; the signature must verify under the key the chain binds
to the seat it names (never a key from the message), and a key that joined our game is heard
only once our player accepted it (P10); the packet it says its writer had must be
this game's packet at that position (when this home has that position). Of one seat's message
number N only the first copy is kept: the same bytes again are a duplicate, other bytes under
the same number are refused. Anything refused is recorded with the other refused input and
never stops the items after it.
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from engine.core.chats import (
    ChatBody,
    VerifiedChat,
    is_chat,
    open_chat,
    peek,
    sign_chat,
)
from engine.core.errors import HexpostError, PacketError
from engine.core.state import AnyState
from saves import (
    acceptance,
    ledger,
    side_verdicts,
    store_chat,
    store_games,
    store_keys,
    store_outbox,
)
from saves.chat import chat_line
from saves.outcome import Outcome
from saves.reading import Reader
from saves.registry import ruleset_for
from saves.store import Store

__all__ = ["ChatRow", "is_chat", "messages_of", "receive", "verdict", "write"]

MAX_CHAT_MESSAGES = 10_000
"""How many chat messages one seat may keep in one game: with the 1,000-character line limit a
hostile seat can fill at most about 10 MB of a home with them."""

SUBJECT_MARK = "chat"
"""The word the subject of a chat message's email carries where a packet's names its action."""


class ChatRow(msgspec.Struct, frozen=True):
    """One kept chat message. ``mine``: signed by this home's seat."""

    body: ChatBody
    data: bytes
    received_at: str
    mine: bool


# --- writing ------------------------------------------------------------------------------------


def write(replica: Reader, game_id: bytes, text: str, now: str) -> ChatRow:
    """Sign a chat message from this home's seat, keep it and queue it for every other seat,
    in one transaction. Any time: on our move or not, in a frozen game or a finished one.
    Refuses (nothing stored) an empty, multi-line or too long text, a game still waiting for
    our acceptance of the invitation, a game whose creator (us) has not accepted the key that
    joined it yet (P10: we sign nothing before), or a home whose key the game does not bind
    to its seat.
    """
    line = chat_line(text)
    identity = replica.me()
    row = replica.game(game_id)
    if row.status != "active":
        raise HexpostError(f"game {row.name} is an invitation: `hexpost accept` it first")
    state = replica.state(game_id)
    acceptance.check(replica, row, ruleset_for(row.ruleset), state)  # P10: nothing before
    if state.core.seat_state(row.my_seat).public_key != identity.public_key:
        raise HexpostError(
            f"this home does not sign for seat {row.my_seat} of {row.name}: the game binds "
            "another key to it"
        )
    key = replica.signing_key()
    seq = store_chat.last_seq(replica.store, game_id, row.my_seat) + 1
    _check_count(seq)
    body = ChatBody(
        game_id=game_id,
        seat=row.my_seat,
        seq=seq,
        head_seq=state.core.seq,
        head_id=state.head,
        written_at=now,
        text=line,
    )
    try:  # read back exactly as the other side will, so nothing unreadable is ever sent
        chat = open_chat(sign_chat(body, key), identity.public_key)
    except PacketError as exc:
        raise HexpostError(f"cannot write this chat message: {exc}") from None
    with replica.store.transaction():
        if not _keep(replica.store, chat, now, mine=True):
            raise HexpostError("another window wrote a chat message at the same time: try again")
        _queue(replica.store, state, chat, now)
    return ChatRow(chat.body, chat.data, now, True)


def _queue(store: Store, state: AnyState, chat: VerifiedChat, now: str) -> None:
    """Put our message in the outbox like a packet (position: the head its writer had), to
    every other seat, with a subject a person can tell from a packet's in an inbox."""
    body = chat.body
    core = state.core
    names = {seat.seat: seat.name for seat in core.seats}
    recipients = [s.address for s in core.seats if s.seat != body.seat and s.address]
    subject = (
        f"[hexpost] {core.name} {body.seat}: {SUBJECT_MARK} message {body.seq} "
        f"(after packet {body.head_seq})"
    )
    lines = [
        f"{_who(body.seat, names)} says: {body.text}",
        "A chat message is signed but changes nothing in the game; both players' logs show it.",
    ]
    store_outbox.queue(
        store,
        body.game_id,
        body.head_seq,
        chat.chat_id,
        chat.data,
        recipients="\n".join(recipients),
        subject=subject,
        automatic=False,
        now=now,
        summary="\n".join(lines),
    )


def _who(seat: str, names: Mapping[str, str]) -> str:
    name = names.get(seat, "")
    return f"{name} ({seat})" if name else seat


# --- receiving ------------------------------------------------------------------------------------


def verdict(store: Store, data: bytes) -> str:
    """`saves.inbox.verdict` for a chat message: ``"verified"`` by the key its game binds to
    its seat, ``"unknown key"`` when this home binds no key to that seat, else ``"bad"``."""
    return opened(store, data)[0]


def opened(store: Store, data: bytes) -> tuple[str, VerifiedChat | None]:
    """`verdict`, with the verified message when there is one (not checked again later)."""
    return side_verdicts.opened(store, data, peek, open_chat)


def receive(
    replica: Reader, data: bytes, source: str, now: str, verified: VerifiedChat | None = None
) -> Outcome:
    """Take in one received chat message (the caller holds the transaction): check it (see
    the module's notes) and keep it, or record it as refused; it changes nothing else."""
    store = replica.store
    try:
        body = peek(data)
    except PacketError as exc:
        reason = f"chat message refused: {exc}"
        ledger.record_rejected(store, None, source, reason, data[:4096], now)
        return Outcome("rejected", reason, source=source)
    row = store_games.game(store, body.game_id)
    if row is None:
        reason = (
            f"chat message from {body.seat} refused: it is for game {body.game_id.hex()[:8]}, "
            "which this home does not hold"
        )
        ledger.record_rejected(store, None, source, reason, data, now)
        return Outcome("rejected", reason, source=source)
    try:
        chat = check(replica, data, body, verified)
    except HexpostError as exc:
        reason = f"chat message {body.seq} from {body.seat} in {row.name} refused: {exc}"
        ledger.record_rejected(store, body.game_id, source, reason, data, now)
        return Outcome("rejected", reason, body.game_id, source=source)
    if not _keep(store, chat, now, mine=row.my_seat == body.seat):
        detail = f"chat message {body.seq} from {body.seat} in {row.name} is already kept"
        return Outcome("duplicate", detail, body.game_id, source=source)
    detail = f"chat message {body.seq} (not part of the game record): {body.text}"
    return Outcome("chat", detail, body.game_id, seat=body.seat, source=source)


def check(
    replica: Reader, data: bytes, body: ChatBody, verified: VerifiedChat | None = None
) -> VerifiedChat:
    """Verify a chat message of a game this home holds; raises `HexpostError` saying what is
    wrong. A ``verified`` message of these very bytes under the seat's key is not checked
    again."""
    store = replica.store
    _check_count(body.seq)
    key = store_keys.seat_key(store, body.game_id, body.seat)
    if key is None:
        raise PacketError(f"seat {body.seat!r} has no key in this game")
    if verified is not None and verified.data == data and verified.public_key == key:
        chat = verified
    else:
        chat = open_chat(data, key)
    kept = store_chat.kept_data(store, body.game_id, body.seat, body.seq)
    if kept is not None and kept != data:
        raise HexpostError(
            f"{body.seat} already sent a different chat message {body.seq}: a second message "
            "under the same number is a replay or a forgery"
        )
    row = replica.game(body.game_id)
    core = replica.state(body.game_id).core
    if (
        body.seat != row.my_seat
        and body.seat in core.unaccepted
        and not acceptance.accepted(replica, body.game_id, core.seat_state(body.seat))
    ):
        raise HexpostError(
            f"the key that joined as {body.seat} waits for your acceptance (`hexpost accept "
            f"{row.name}`); nothing it signs is taken before"
        )
    if body.head_seq <= row.head_seq:
        stored = ledger.stored_at(store, body.game_id, body.head_seq)
        if stored is None or stored[0] != body.head_id:
            raise HexpostError(
                f"it answers a packet {body.head_seq} (id {body.head_id.hex()[:16]}) that is not "
                "this game's"
            )
    return chat


def _check_count(seq: int) -> None:
    if seq > MAX_CHAT_MESSAGES:
        raise HexpostError(
            f"a seat may keep at most {MAX_CHAT_MESSAGES:,} chat messages in one game "
            f"(this is number {seq:,})"
        )


def restore(replica: Reader, data: bytes, now: str, *, my_seat: str) -> None:
    """Keep a chat message from an imported archive (the caller holds the transaction),
    after the same checks as one that came by mail; raises `HexpostError` if it fails them."""
    try:
        body = peek(data)
    except PacketError as exc:
        raise HexpostError(f"not a chat message: {exc}") from None
    chat = check(replica, data, body)
    _keep(replica.store, chat, now, mine=body.seat == my_seat)


def _keep(store: Store, chat: VerifiedChat, now: str, *, mine: bool) -> bool:
    body = chat.body
    return store_chat.keep(
        store,
        body.game_id,
        body.seat,
        body.seq,
        chat.chat_id,
        body.head_seq,
        body.written_at,
        chat.data,
        now,
        mine=mine,
    )


# --- reading ------------------------------------------------------------------------------------


def messages_of(store: Store, game_id: bytes) -> list[ChatRow]:
    """A game's kept messages, ordered by their writers' clocks (then seat and number)."""
    found = []
    for data, received_at, mine in store_chat.rows(store, game_id):
        try:
            body = peek(bytes(data))
        except PacketError:
            continue  # verified when kept; a damaged row is skipped rather than shown
        found.append(ChatRow(body, bytes(data), str(received_at), bool(mine)))
    return found


def message_text(body: ChatBody) -> str:
    """One message as the log shows it: words beside the game, not part of its record."""
    return f"chat message (not part of the game record): {body.text}"
