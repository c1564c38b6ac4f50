"""Chat messages by real email (aiosmtpd into Dovecot, read back over IMAP), and their mail form.

A chat message goes out through the outbox like a packet, in an email of its own kind (its
subject says ``chat message N``, its ``X-Hexpost`` header ``chat=1`` instead of a position, its
attachment ``...-chat-...``). The seat that does not owe the move sends one and the other home
keeps it; forged, altered and replayed copies put straight into the folder are refused (or
kept once) and the good message after them still goes in.
"""

from __future__ import annotations

import email.policy
from email.message import EmailMessage
from email.parser import BytesParser

import msgspec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from engine.core.chats import ChatEnvelope, chat_id, peek, read_chat, sign_chat
from mail.mailtransport import MailTransport
from mail.mime import HEADER, armor, build_message, read_message
from mail.transport import OutgoingPacket
from saves import chat_messages
from tests.mail.mailgame import inbox_of, mark_all_sent, statuses
from tests.mail.servers import MailStack
from tests.saves.conftest import Player, now

_PARSER = BytesParser(policy=email.policy.default)


def texts(player: Player, game_id: bytes) -> list[str]:
    return [m.body.text for m in chat_messages.messages_of(player.replica.store, game_id)]


def _swap(raw: bytes, old: bytes, new: bytes) -> bytes:
    """``raw`` with the chat message in its attachment and armour replaced (same headers)."""
    original = _PARSER.parsebytes(raw)
    assert isinstance(original, EmailMessage)
    message = EmailMessage(policy=email.policy.SMTP)
    for name in ("From", "To", "Subject", HEADER):
        message[name] = original[name]
    message["Message-ID"] = f"<swap.{chat_id(read_chat(new).body).hex()[:16]}@example.org>"
    message.set_content("changed\n\n" + armor(new, chat_id(read_chat(new).body)) + "\n")
    message.add_attachment(
        new, maintype="application", subtype="x-hexpost-packet", filename="x.hexpost"
    )
    assert old != new
    return message.as_bytes()


def test_the_seat_off_its_move_chats_by_mail_and_bad_copies_are_refused(
    played: tuple[bytes, Player, Player], mail_stack: MailStack
) -> None:
    game_id, on_move, waiting = played
    head = on_move.row(game_id).head_seq
    sent = chat_messages.write(waiting.replica, game_id, "No hurry, think it over.", now())
    report = waiting.sync()
    assert report.sent == [head] and not report.failed  # the outbox names the head it had
    mail = inbox_of(mail_stack, on_move)
    try:
        message = mail.messages()[-1]
    finally:
        mail.close()
    assert "chat message 1" in str(message["Subject"])
    assert "chat=1" in str(message[HEADER]) and "seq=" not in str(message[HEADER])
    names = [part.get_filename() for part in message.iter_attachments()]
    assert names == [f"hexpost-{game_id.hex()}-chat-{head:08d}.hexpost"]
    plain = message.get_body(("plain",))
    assert plain is not None
    assert "says: No hurry, think it over." in str(plain.get_content())

    assert statuses(on_move.sync()) == ["chat"]
    assert texts(on_move, game_id) == ["No hurry, think it over."]
    assert on_move.row(game_id).head_seq == head  # the game did not move

    # Hostile copies in the folder: forged (another key), altered (text changed after
    # signing), replayed (the same email again), then a good one that must still go in.
    good = chat_messages.write(waiting.replica, game_id, "Still there?", now())
    mark_all_sent(waiting)
    raw_good = chat_email_of(waiting, good.data, on_move)
    body = sent.body
    forged = sign_chat(
        msgspec.structs.replace(body, seq=5, text="forged"), Ed25519PrivateKey.generate()
    )
    envelope = msgspec.msgpack.decode(sent.data, type=ChatEnvelope)
    altered_body = msgspec.msgpack.encode(msgspec.structs.replace(body, text="altered"))
    altered = msgspec.msgpack.encode(msgspec.structs.replace(envelope, body=altered_body))
    replay = chat_email_of(waiting, sent.data, on_move)
    mail = inbox_of(mail_stack, on_move)
    try:
        mail.append(_swap(raw_good, good.data, forged))
        mail.append(_swap(raw_good, good.data, altered))
        mail.append(replay)
        mail.append(raw_good)
    finally:
        mail.close()
    before = on_move.snapshot(game_id)
    assert statuses(on_move.sync()) == ["rejected", "rejected", "duplicate", "chat"]
    assert texts(on_move, game_id) == ["No hurry, think it over.", "Still there?"]
    assert on_move.snapshot(game_id)._replace(outbox=0) == before._replace(outbox=0)
    reasons = [str(r[0]) for r in on_move.replica.store.all("SELECT reason FROM rejected")]
    assert any("chat message 5" in r for r in reasons)
    assert any("bad chat signature" in r for r in reasons)


def chat_email_of(player: Player, data: bytes, to: Player) -> bytes:
    """The email of a chat message already marked sent (the test delivers it itself)."""
    body = read_chat(data)
    transport = player.transport
    assert isinstance(transport, MailTransport)
    peeked = peek(data)
    packet = OutgoingPacket(
        game_id=peeked.game_id,
        seq=peeked.head_seq,
        packet_id=chat_id(body.body),
        data=data,
        to=(to.address,),
        subject=f"[hexpost] test: chat message {peeked.seq}",
    )
    return transport.build(packet)[1]


def test_a_chat_email_is_read_back_with_no_position_and_its_armour_names_its_id() -> None:
    from datetime import UTC, datetime

    from engine.core.chats import ChatBody

    key = Ed25519PrivateKey.generate()
    body = ChatBody(
        game_id=bytes(range(16)),
        seat="north",
        seq=1,
        head_seq=7,
        head_id=bytes(32),
        written_at="2030-01-01T00:00:00Z",
        text="hello there",
    )
    data = sign_chat(body, key)
    cid = chat_id(read_chat(data).body)
    packet = OutgoingPacket(
        game_id=body.game_id, seq=7, packet_id=cid, data=data, to=("south@example.org",)
    )
    raw = build_message(
        packet,
        sender="north@example.org",
        subject="[hexpost] g north: chat message 1 (after packet 7)",
        message_id="<x@example.org>",
        date=datetime(2030, 1, 1, tzinfo=UTC),
    )
    read = read_message(raw)
    assert read is not None
    assert read.candidates == (data,)  # the attachment and the armour decode to one copy
    assert read.game_id == body.game_id and read.seq is None
    # The armour alone (attachment stripped by a gateway) still reads; a wrong id does not.
    text = "hexpost chat\n" + armor(data, cid) + "\n"
    alone = EmailMessage(policy=email.policy.SMTP)
    alone["From"] = "north@example.org"
    alone.set_content(text)
    found = read_message(alone.as_bytes())
    assert found is not None and found.candidates == (data,)
    wrong = EmailMessage(policy=email.policy.SMTP)
    wrong["From"] = "north@example.org"
    wrong.set_content("hexpost chat\n" + armor(data, bytes(32)) + "\n")
    assert read_message(wrong.as_bytes()) is None
