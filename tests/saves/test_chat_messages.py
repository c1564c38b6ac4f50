"""Chat messages beside the chain, between two real homes over the loopback network.

Either seat may write one at any time: it reaches the other home on the next sync, is kept
once per (game, seat, seq), changes no game state, and a forged, altered, replayed, oversized
or misaddressed one is refused and recorded while the item after it is still taken in.
"""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from engine.core.chats import (
    CHAT_DOMAIN,
    MAX_CHAT_SIZE,
    ChatEnvelope,
    open_chat,
    peek,
    sign_chat,
)
from engine.core.errors import HexpostError, PacketError
from engine.core.packets import SIGNATURE_DOMAIN, Envelope, open_packet
from mail.loopback import LoopbackMessage
from mail.transport import OutgoingPacket
from saves import chat_messages, store_chat
from saves.chat import MAX_CHAT
from saves.store import SCHEMA_VERSION, Store
from tests.saves.conftest import (
    CHAIN_LENGTH,
    Player,
    accept_join,
    create_game,
    exchange,
    now,
    owner,
)


def texts(player: Player, game_id: bytes) -> list[tuple[str, int, str]]:
    return [
        (m.body.seat, m.body.seq, m.body.text)
        for m in chat_messages.messages_of(player.replica.store, game_id)
    ]


def inject(player: Player, data: bytes, game_id: bytes) -> None:
    """Put raw bytes on the shared network as if some stranger had mailed them."""
    network = player.transport.network
    ref = f"{len(network.messages):08d}"
    packet = OutgoingPacket(game_id=game_id, seq=0, packet_id=bytes(32), data=data)
    network.messages.append(LoopbackMessage(ref=ref, sender="stranger", packet=packet))


def rejected(player: Player) -> list[str]:
    return [str(r[0]) for r in player.replica.store.all("SELECT reason FROM rejected ORDER BY id")]


def test_the_seat_that_does_not_owe_the_move_chats_and_the_other_side_gets_it(
    players: dict[str, Player], game: bytes
) -> None:
    author, waiting = owner(players, game)
    seat = waiting.row(game).my_seat
    before = (author.snapshot(game), waiting.snapshot(game))
    with pytest.raises(HexpostError, match="not your move"):  # the old packet chat needs it
        waiting.replica.chat(game, "hello", now=now())

    sent = chat_messages.write(waiting.replica, game, "  Take your time, I am off to bed.  ", now())
    assert (sent.body.seat, sent.body.seq, sent.body.text) == (
        seat,
        1,
        "Take your time, I am off to bed.",
    )
    assert sent.body.head_seq == waiting.row(game).head_seq
    assert sent.body.head_id == waiting.replica.state(game).head
    second = chat_messages.write(waiting.replica, game, "And good luck.", now())
    assert second.body.seq == 2
    exchange(waiting, author)

    expected = [(seat, 1, "Take your time, I am off to bed."), (seat, 2, "And good luck.")]
    assert texts(author, game) == expected
    assert texts(waiting, game) == expected
    assert [m.mine for m in chat_messages.messages_of(author.replica.store, game)] == [False] * 2
    # The game did not move: same heads, hashes, packets and events on both sides.
    after = (author.snapshot(game), waiting.snapshot(game))
    assert [s._replace(outbox=0) for s in after] == [s._replace(outbox=0) for s in before]
    assert author.row(game).state_hash == waiting.row(game).state_hash

    # The one who owes the move answers without moving, then moves on as usual.
    chat_messages.write(author.replica, game, "Sleep well.", now())
    exchange(author, waiting)
    assert texts(waiting, game)[-1] == (author.row(game).my_seat, 1, "Sleep well.")
    moved = author.replica.submit(game, [{"type": "done"}], now=now(), dry_run=True)
    assert moved.seq == author.row(game).head_seq + 1


def test_a_chat_message_sent_twice_is_kept_once(players: dict[str, Player], game: bytes) -> None:
    author, waiting = owner(players, game)
    sent = chat_messages.write(waiting.replica, game, "once", now())
    exchange(waiting, author)
    inject(author, sent.data, game)  # a replay of the very same bytes
    report = author.sync()
    assert [o.status for o in report.received] == ["duplicate"]
    assert len(texts(author, game)) == 1
    assert author.count("chats", game) == 1


def test_bad_chat_messages_are_refused_and_the_next_item_still_goes_in(
    players: dict[str, Player], game: bytes
) -> None:
    author, waiting = owner(players, game)
    good = chat_messages.write(waiting.replica, game, "the real one", now())
    exchange(waiting, author)
    body = good.body
    stranger = Ed25519PrivateKey.generate()
    envelope = msgspec.msgpack.decode(good.data, type=ChatEnvelope)

    forged = sign_chat(msgspec.structs.replace(body, seq=2, text="forged"), stranger)
    altered_body = msgspec.msgpack.encode(msgspec.structs.replace(body, seq=3, text="altered"))
    altered = msgspec.msgpack.encode(msgspec.structs.replace(envelope, body=altered_body))
    # Another text under a number already kept, signed by the seat's own key (a home that
    # lost its count, or a replay with other words): refused, the first is kept.
    renumbered = sign_chat(msgspec.structs.replace(body, text="other words"), waiting.key)
    wrong_seat = sign_chat(msgspec.structs.replace(body, seat="pirates", seq=4), waiting.key)
    other_game = sign_chat(msgspec.structs.replace(body, game_id=bytes(16), seq=5), waiting.key)
    other_head = sign_chat(msgspec.structs.replace(body, head_id=bytes(32), seq=6), waiting.key)
    huge = good.data + b"\x00" * MAX_CHAT_SIZE
    follow = chat_messages.write(waiting.replica, game, "after the bad ones", now())
    bad = [forged, altered, renumbered, wrong_seat, other_game, other_head, huge]
    for data in bad:
        inject(author, data, game)
    inject(author, follow.data, game)
    before = author.snapshot(game)

    report = author.sync()

    assert [o.status for o in report.received] == ["rejected"] * len(bad) + ["chat"]
    reasons = rejected(author)[-len(bad) :]
    assert "bad chat signature" in reasons[0] or "not signed by the key" in reasons[0]
    assert "bad chat signature" in reasons[1]
    assert "already sent a different chat message 1" in reasons[2]
    assert "has no key in this game" in reasons[3]
    assert "which this home does not hold" in reasons[4]
    assert "not this game's" in reasons[5]
    assert "larger than" in reasons[6]
    assert texts(author, game) == [
        (body.seat, 1, "the real one"),
        (body.seat, 2, "after the bad ones"),
    ]
    assert author.snapshot(game)._replace(outbox=0) == before._replace(outbox=0)


def test_text_limits_are_checked_when_writing_and_reading(
    players: dict[str, Player], game: bytes
) -> None:
    _, waiting = owner(players, game)
    for text, reason in [("  ", "needs some text"), ("a\nb", "one line"), ("x" * 1001, "1000")]:
        with pytest.raises(HexpostError, match=reason):
            chat_messages.write(waiting.replica, game, text, now())
    assert waiting.count("chats", game) == 0
    longest = chat_messages.write(waiting.replica, game, "é" * MAX_CHAT, now())
    assert peek(longest.data).text == "é" * MAX_CHAT
    body = msgspec.structs.replace(longest.body, text="x" * (MAX_CHAT + 1))
    with pytest.raises(PacketError, match="malformed chat body"):
        open_chat(sign_chat(body, waiting.key), waiting.public_key)


def test_a_packet_signature_is_no_chat_signature_and_the_reverse(
    players: dict[str, Player], game: bytes
) -> None:
    """The two signature domains differ, so neither kind of signed bytes passes for the other
    even when the signed body bytes are carried over unchanged."""
    author, waiting = owner(players, game)
    chat = chat_messages.write(waiting.replica, game, "hi", now())
    key, public = waiting.key, waiting.public_key
    envelope = msgspec.msgpack.decode(chat.data, type=ChatEnvelope)
    # The chat's body bytes signed in the packet domain do not verify as a chat...
    as_packet_sig = key.sign(SIGNATURE_DOMAIN + envelope.body)
    smuggled = msgspec.msgpack.encode(msgspec.structs.replace(envelope, signature=as_packet_sig))
    with pytest.raises(PacketError, match="bad chat signature"):
        open_chat(smuggled, public)
    assert key.sign(CHAT_DOMAIN + envelope.body) == envelope.signature  # the chat domain does
    # ...and a packet's body signed in the chat domain does not verify as a packet.
    seq = author.row(game).head_seq
    data = author.packet(game, seq)
    signed_by = author.opened(game, seq).public_key
    packet_key = author.key if signed_by == author.public_key else waiting.key
    real = msgspec.msgpack.decode(data, type=Envelope)
    forged = msgspec.msgpack.encode(
        msgspec.structs.replace(real, signature=packet_key.sign(CHAT_DOMAIN + real.body))
    )
    keys = [author.public_key, waiting.public_key]
    open_packet(data, lambda _kid: keys)  # the real packet verifies
    with pytest.raises(PacketError, match="bad signature"):
        open_packet(forged, lambda _kid: keys)
    # Nor do a packet's bytes read as a chat message, or a chat message's as a packet.
    with pytest.raises(PacketError):
        open_chat(data, public)
    with pytest.raises(PacketError):
        open_packet(chat.data, lambda _kid: keys)


def test_writing_needs_the_game_bound_to_this_homes_key(
    players: dict[str, Player], game: bytes, bob: Player
) -> None:
    alice = players["coalition"]
    with pytest.raises(HexpostError):
        chat_messages.write(alice.replica, bytes(16), "to no game", now())
    assert alice.count("chats") == 0
    # The message is queued in the outbox to the other seat's address, with a chat subject.
    chat_messages.write(alice.replica, game, "queued", now())
    entry = [e for e in alice.replica.store.all("SELECT subject, recipients FROM outbox")][-1]
    assert "chat message 1" in entry[0]
    assert entry[1] == bob.address


def test_nothing_is_said_or_heard_before_the_creator_accepts_the_joined_key(
    alice: Player, bob: Player
) -> None:
    """P10: the creator signs nothing, and takes no chat message, from a key that joined
    until its player accepted that key."""
    game_id = create_game(alice)
    alice.sync()
    bob.sync()
    bob.replica.accept(game_id, now=now(), chain_length=CHAIN_LENGTH)
    exchange(bob, alice)
    with pytest.raises(HexpostError, match="Compare that fingerprint"):
        chat_messages.write(alice.replica, game_id, "hello?", now())
    assert alice.count("chats") == 0

    chat_messages.write(bob.replica, game_id, "it is me, Bob", now())
    report = bob.sync(), alice.sync()
    assert [o.status for o in report[1].received] == ["rejected"]
    assert "waits for your acceptance" in rejected(alice)[-1]
    assert texts(alice, game_id) == []

    accept_join(alice, bob, game_id)
    chat_messages.write(bob.replica, game_id, "thanks", now())
    exchange(bob, alice)
    assert texts(alice, game_id) == [("alliance", 2, "thanks")]
    chat_messages.write(alice.replica, game_id, "welcome", now())
    exchange(alice, bob)
    assert texts(bob, game_id)[-1] == ("coalition", 1, "welcome")


def test_a_home_made_before_chat_messages_gets_their_table(tmp_path: Path) -> None:
    """Schema 4 adds the ``chats`` table; a schema-3 home opened again has it and is marked
    with the current schema."""
    path = tmp_path / "old.sqlite"
    store = Store(path)
    store.db.execute("DROP TABLE chats")
    store.db.execute("UPDATE meta SET value = '3' WHERE key = 'schema'")
    store.close()
    store = Store(path)
    try:
        assert store.one("SELECT value FROM meta WHERE key = 'schema'") == (str(SCHEMA_VERSION),)
        assert store_chat.keep(
            store, bytes(16), "north", 1, bytes(32), 0, "t", b"x", "t", mine=False
        )
        assert not store_chat.keep(  # the key is (game, seat, seq)
            store, bytes(16), "north", 1, b"\x01" * 32, 0, "t", b"y", "t", mine=False
        )
        assert store_chat.last_seq(store, bytes(16), "north") == 1
    finally:
        store.close()


def test_a_seat_keeps_at_most_a_bounded_number_of_chat_messages_per_game(
    players: dict[str, Player], game: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    author, waiting = owner(players, game)
    first = chat_messages.write(waiting.replica, game, "one", now())
    beyond = sign_chat(
        msgspec.structs.replace(first.body, seq=chat_messages.MAX_CHAT_MESSAGES + 1, text="x"),
        waiting.key,
    )
    exchange(waiting, author)
    inject(author, beyond, game)
    report = author.sync()
    assert [o.status for o in report.received] == ["rejected"]
    assert f"at most {chat_messages.MAX_CHAT_MESSAGES:,}" in rejected(author)[-1]

    monkeypatch.setattr(chat_messages, "MAX_CHAT_MESSAGES", 2)
    chat_messages.write(waiting.replica, game, "two", now())
    with pytest.raises(HexpostError, match="at most 2 chat messages"):
        chat_messages.write(waiting.replica, game, "three", now())
    assert [seq for _, seq, _ in texts(waiting, game)] == [1, 2]
