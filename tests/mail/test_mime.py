"""The packet email format, on bytes only: build, read back, and survive what mail does to it."""

from __future__ import annotations

import base64
import quopri
import re
from collections.abc import Callable
from datetime import UTC, datetime
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser

import msgspec
import pytest

from engine.core.errors import PacketError
from engine.core.packets import VerifiedPacket, key_id, open_packet
from mail.mime import (
    ARMOR_BEGIN,
    ARMOR_END,
    HEADER,
    PACKET_TYPE,
    armor,
    build_message,
    is_hexpost,
    make_message_id,
    packet_from_message,
    read_message,
)
from mail.transport import OutgoingPacket
from saves.subject import Subject, format_subject
from tests.engine.table import Table
from tests.engine.toy import TOY, Say

WHEN = datetime(2026, 11, 29, 21, 5, tzinfo=UTC)
PARSER = BytesParser(policy=policy.default)


def game(label: str = "mime") -> Table:
    table = Table(TOY, "duel", ["north", "south"], label=label)
    table.orders("north", Say("a fairly ordinary order " * 20))
    return table


def outgoing(packet: VerifiedPacket) -> OutgoingPacket:
    return OutgoingPacket(
        game_id=packet.body.game_id,
        seq=packet.body.seq,
        packet_id=packet.packet_id,
        data=packet.data,
        to=("bob@example.org",),
    )


def verifier(table: Table) -> Callable[[bytes], bool]:
    """Verification with the game's seat keys, as the receiving client does."""
    keys = {key_id(p.public): p.public for p in table.players.values()}

    def verify(data: bytes) -> bool:
        try:
            open_packet(data, lambda kid: [keys[kid]] if kid in keys else [])
        except PacketError:
            return False
        return True

    return verify


def mail(packet: VerifiedPacket, **kw: object) -> bytes:
    args: dict[str, object] = {
        "sender": "Alice <alice@example.org>",
        "subject": format_subject(
            Subject("border", "coalition", "orders 3B2", packet.body.seq, "T1 Fall Y168")
        ),
        "message_id": make_message_id(b"\x01" * 12, "example.org"),
        "date": WHEN,
        "summary": ["Alice moved the Strike Force to 1411.", "Kzinti reaction window opens."],
    }
    args.update(kw)
    return build_message(outgoing(packet), **args)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def table() -> Table:
    return game()


@pytest.fixture(scope="module")
def packet(table: Table) -> VerifiedPacket:
    return table.packets[-1]


def text_part(raw: bytes) -> str:
    msg = PARSER.parsebytes(raw)
    body = msg.get_body(("plain",))
    assert body is not None
    return str(body.get_content()).replace("\r\n", "\n")


def only(raw: bytes, keep: str) -> bytes:
    """The message with only its text part ("text") or only its attachment ("attachment")."""
    msg = PARSER.parsebytes(raw)
    out = EmailMessage(policy=policy.SMTP)
    for name in ("From", "To", "Subject", "Date", "Message-ID", HEADER):
        out[name] = str(msg[name])
    if keep == "text":
        out.set_content(text_part(raw))
    else:
        out.set_content("see attached")
        att = next(iter(msg.iter_attachments()))
        out.add_attachment(
            att.get_content(),
            maintype="application",
            subtype="x-hexpost-packet",
            filename=att.get_filename(),
        )
    return out.as_bytes()


def with_text(raw: bytes, text: str, *, qp: bool = False, header: bool = True) -> bytes:
    """The message with its text part replaced and the attachment removed; ``header=False``
    drops the hexpost header too (a forward by hand)."""
    msg = PARSER.parsebytes(raw)
    out = EmailMessage(policy=policy.SMTP)
    for name in ("From", "To", "Subject", "Date", "Message-ID", *([HEADER] if header else [])):
        out[name] = str(msg[name])
    out.set_content(text, cte="quoted-printable" if qp else None)
    return out.as_bytes()


# --- building ------------------------------------------------------------------------------------


def test_round_trip_gives_the_same_packet_bytes(table: Table, packet: VerifiedPacket) -> None:
    raw = mail(packet)
    read = read_message(raw)
    assert read is not None
    assert read.candidates == (packet.data,)  # attachment and armour agree: one candidate
    assert read.game_id == packet.body.game_id
    assert read.seq == packet.body.seq
    assert packet_from_message(raw, verifier(table)) == packet.data


def test_every_packet_of_a_game_round_trips(table: Table) -> None:
    verify = verifier(table)
    for p in table.packets:
        assert packet_from_message(mail(p), verify) == p.data


def test_headers_are_present_and_thread_the_game(packet: VerifiedPacket) -> None:
    earlier = [make_message_id(bytes([i]) * 8, "example.org") for i in range(1, 15)]
    msg = PARSER.parsebytes(mail(packet, references=earlier, automatic=True))
    assert msg["From"] == "Alice <alice@example.org>"
    assert msg["To"] == "bob@example.org"
    assert msg["Date"] == "Sun, 29 Nov 2026 21:05:00 +0000"
    assert msg["Message-ID"] == "<hexpost.010101010101010101010101@example.org>"
    assert msg["In-Reply-To"] == earlier[-1]
    refs = str(msg["References"]).split()
    assert refs[0] == earlier[0] and refs[-1] == earlier[-1] and len(refs) == 10
    assert msg["Auto-Submitted"] == "auto-generated"
    assert msg[HEADER] == f"game={packet.body.game_id.hex()}; seq={packet.body.seq}"


def test_a_person_s_packet_is_not_auto_submitted_and_has_no_thread_at_first(
    packet: VerifiedPacket,
) -> None:
    msg = PARSER.parsebytes(mail(packet))
    assert msg["Auto-Submitted"] is None
    assert msg["In-Reply-To"] is None and msg["References"] is None


def test_each_send_attempt_gets_its_own_message_id(packet: VerifiedPacket) -> None:
    ids = {make_message_id(bytes([i]) * 16, "example.org") for i in range(3)}
    assert len(ids) == 3
    assert {PARSER.parsebytes(mail(packet, message_id=m))["Message-ID"] for m in ids} == ids
    with pytest.raises(ValueError):
        make_message_id(b"", "example.org")


def test_subject_and_body_are_readable(packet: VerifiedPacket) -> None:
    raw = mail(packet)
    msg = PARSER.parsebytes(raw)
    assert msg["Subject"] == (
        f"[hexpost] border T1 Fall Y168 coalition: orders 3B2 (packet {packet.body.seq})"
    )
    assert format_subject(Subject("wind", "alliance", "invitation", 0)) == (
        "[hexpost] wind alliance: invitation (packet 0)"
    )
    assert b"Content-Transfer-Encoding: 7bit" in raw  # plain ASCII lines: readable as they are
    text = text_part(raw)
    assert text.startswith("Alice moved the Strike Force to 1411.\nKzinti reaction window")
    assert f"Packet: {packet.packet_id.hex()}" in text
    lines = text.splitlines()
    block = lines[lines.index(ARMOR_BEGIN) : lines.index(ARMOR_END) + 1]
    assert max(len(line) for line in block) <= 76
    att = next(iter(msg.iter_attachments()))
    assert att.get_content_type() == PACKET_TYPE
    assert att["Content-Transfer-Encoding"] == "base64"
    assert att.get_filename() == (
        f"hexpost-{packet.body.game_id.hex()}-{packet.body.seq:08d}.hexpost"
    )


def test_a_non_ascii_game_name_survives_the_subject(packet: VerifiedPacket) -> None:
    subject = format_subject(Subject("Grenzkrieg ☄", "coalition", "die roll", 3))
    raw = mail(packet, subject=subject)
    assert raw.isascii()
    assert PARSER.parsebytes(raw)["Subject"] == subject


# --- what mail does to it ------------------------------------------------------------------------


def test_text_part_re_encoded_as_quoted_printable(table: Table, packet: VerifiedPacket) -> None:
    raw = with_text(mail(packet), text_part(mail(packet)), qp=True)
    assert b"Content-Transfer-Encoding: quoted-printable" in raw
    assert packet_from_message(raw, verifier(table)) == packet.data


def test_whole_body_re_encoded_by_hand_as_quoted_printable(
    table: Table, packet: VerifiedPacket
) -> None:
    """A gateway re-encodes with soft line breaks at 40 columns and =3D for every '='."""
    text = text_part(mail(packet)).encode()
    encoded = quopri.encodestring(text)
    soft = b"=\r\n".join(encoded[i : i + 40] for i in range(0, len(encoded), 40))
    raw = (
        b"From: alice@example.org\r\nTo: bob@example.org\r\nSubject: fwd\r\n"
        b"MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n"
        b"Content-Transfer-Encoding: quoted-printable\r\n\r\n" + soft + b"\r\n"
    )
    assert packet_from_message(raw, verifier(table)) == packet.data


def test_armour_re_wrapped_at_40_columns(table: Table, packet: VerifiedPacket) -> None:
    text = text_part(mail(packet))
    b64 = base64.b64encode(packet.data).decode()
    rewrapped = "\n".join(b64[i : i + 40] for i in range(0, len(b64), 40))
    block = armor(packet.data, packet.packet_id)
    new = text.replace(block, block.split("\n\n")[0] + "\n\n" + rewrapped + "\n" + ARMOR_END)
    assert new != text
    assert packet_from_message(with_text(mail(packet), new), verifier(table)) == packet.data


def test_armour_lines_joined_into_one(table: Table, packet: VerifiedPacket) -> None:
    block = armor(packet.data, packet.packet_id)
    joined = "Sent from my phone " + " ".join(block.split()) + " -- Bob"
    raw = with_text(mail(packet), joined, qp=True)
    assert packet_from_message(raw, verifier(table)) == packet.data


def test_extra_text_around_the_block(table: Table, packet: VerifiedPacket) -> None:
    text = "Hi Bob, my move is below.\n\n" + armor(packet.data, packet.packet_id)
    text += "\n\n-- \nAlice\nSent from my phone, please excuse typos\n"
    assert packet_from_message(with_text(mail(packet), text), verifier(table)) == packet.data


def test_forwarded_as_an_attached_message(table: Table, packet: VerifiedPacket) -> None:
    original = PARSER.parsebytes(mail(packet))
    fwd = EmailMessage(policy=policy.SMTP)
    fwd["From"] = "bob@example.org"
    fwd["To"] = "bob@elsewhere.example"
    fwd["Subject"] = "Fwd: our game"
    fwd.set_content("Have a look at this.")
    fwd.add_attachment(original)
    raw = fwd.as_bytes()
    assert b"message/rfc822" in raw
    read = read_message(raw)
    assert read is not None and read.candidates == (packet.data,)
    assert read.game_id == packet.body.game_id  # from the forwarded message's header
    assert packet_from_message(raw, verifier(table)) == packet.data
    assert is_hexpost(raw)


def test_forwarded_as_quoted_text(table: Table, packet: VerifiedPacket) -> None:
    quoted = "\n".join("> " + line for line in text_part(mail(packet)).splitlines())
    twice = "\n".join("> " + line for line in quoted.splitlines())
    for body in (quoted, twice):
        text = "Forwarding Alice's move.\n\nOn Sunday Alice wrote:\n" + body + "\n"
        raw = with_text(mail(packet), text, header=False)
        read = read_message(raw)
        assert read is not None and read.game_id is None and read.candidates == (packet.data,)
        assert packet_from_message(raw, verifier(table)) == packet.data


def test_armour_in_an_html_only_reply(table: Table, packet: VerifiedPacket) -> None:
    lines = text_part(mail(packet)).splitlines()
    markup = "<html><body><p>My move &amp; more:</p><blockquote>"
    markup += "<br>".join(f"<span>{line}</span>" for line in lines) + "</blockquote></body></html>"
    msg = EmailMessage(policy=policy.SMTP)
    msg["From"] = "bob@example.org"
    msg.set_content(markup, subtype="html", cte="quoted-printable")
    raw = msg.as_bytes()
    assert packet_from_message(raw, verifier(table)) == packet.data


def test_only_the_armour_remains(table: Table, packet: VerifiedPacket) -> None:
    raw = only(mail(packet), "text")
    assert PACKET_TYPE.encode() not in raw
    read = read_message(raw)
    assert read is not None and read.candidates == (packet.data,)
    assert packet_from_message(raw, verifier(table)) == packet.data


def test_only_the_attachment_remains(table: Table, packet: VerifiedPacket) -> None:
    raw = only(mail(packet), "attachment")
    assert ARMOR_BEGIN.encode() not in raw
    read = read_message(raw)
    assert read is not None and read.candidates == (packet.data,)
    assert packet_from_message(raw, verifier(table)) == packet.data


def test_attachment_renamed_to_octet_stream_is_still_found_by_extension(
    table: Table, packet: VerifiedPacket
) -> None:
    raw = only(mail(packet), "attachment").replace(
        PACKET_TYPE.encode(), b"application/octet-stream"
    )
    assert packet_from_message(raw, verifier(table)) == packet.data


def test_truncated_armour_gives_nothing(table: Table, packet: VerifiedPacket) -> None:
    text = text_part(only(mail(packet), "text"))
    lines = text.splitlines()
    end = lines.index(ARMOR_END)
    cut_in_middle = "\n".join(lines[: end - 2] + lines[end:])  # END marker kept, data cut
    cut_at_end = "\n".join(lines[:end])  # no END marker
    for body in (cut_in_middle, cut_at_end):
        raw = with_text(mail(packet), body)
        read = read_message(raw)
        assert read is not None and read.candidates == ()  # header says hexpost, nothing readable
        assert packet_from_message(raw, verifier(table)) is None
        assert read_message(with_text(mail(packet), body, header=False)) is None


def test_corrupt_armour_falls_back_to_the_attachment(table: Table, packet: VerifiedPacket) -> None:
    raw = mail(packet)
    lines = base64.b64encode(packet.data).decode()
    lines_64 = [lines[i : i + 64] for i in range(0, len(lines), 64)]
    for index in (0, len(lines_64) // 2):  # in the envelope's key id, then in the signed body
        line = lines_64[index]
        flipped = line[:10] + ("A" if line[10] != "A" else "B") + line[11:]
        bad = raw.replace(line.encode(), flipped.encode(), 1)
        assert bad != raw
        read = read_message(bad)
        assert read is not None and read.candidates[0] == packet.data
        if index:
            assert read.candidates == (packet.data,)  # the armour's packet id line drops it
        assert packet_from_message(bad, verifier(table)) == packet.data
        # Without the attachment, nothing verifies.
        assert packet_from_message(only(bad, "text"), verifier(table)) is None


def test_a_tampered_attachment_falls_back_to_the_armour(
    table: Table, packet: VerifiedPacket
) -> None:
    forged = bytearray(packet.data)
    forged[40] ^= 1  # in the signature
    msg = EmailMessage(policy=policy.SMTP)
    msg["From"] = "alice@example.org"
    msg[HEADER] = f"game={packet.body.game_id.hex()}; seq={packet.body.seq}"
    msg.set_content(text_part(mail(packet)))
    msg.add_attachment(
        bytes(forged), maintype="application", subtype="x-hexpost-packet", filename="p.hexpost"
    )
    raw = msg.as_bytes()
    read = read_message(raw)
    assert read is not None and read.candidates == (bytes(forged), packet.data)
    assert packet_from_message(raw, verifier(table)) == packet.data
    assert packet_from_message(only(raw, "attachment"), verifier(table)) is None


def test_foreign_mail_is_nothing() -> None:
    msg = EmailMessage(policy=policy.SMTP)
    msg["From"] = "news@example.com"
    msg["To"] = "bob@example.org"
    msg["Subject"] = "Weekly digest"
    msg.set_content("Nothing to see here.\n-----BEGIN PGP MESSAGE-----\nabc\n")
    msg.add_attachment(b"%PDF-1.4 ...", maintype="application", subtype="pdf", filename="a.pdf")
    raw = msg.as_bytes()
    assert read_message(raw) is None
    assert packet_from_message(raw, lambda d: True) is None
    assert not is_hexpost(raw)


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"\x00\xff" * 100,
        b"Subject: hi\r\n\r\nbody",
        b"Content-Type: multipart/mixed; boundary=x\r\n\r\n--x\r\nContent-Type: text/plain; "
        b"charset=klingon-9\r\n\r\n" + ARMOR_BEGIN.encode() + b"\r\n@@@\r\n--x--",
        b"Content-Type: text/plain\r\nContent-Transfer-Encoding: base64\r\n\r\n!!!not base64",
        b"X-Hexpost: game=zz; seq=-1\r\n\r\n" + ARMOR_BEGIN.encode() + b"\nPacket: 00\n",
    ],
)
def test_garbage_never_raises(raw: bytes) -> None:
    read = read_message(raw)
    assert read is None or read.candidates == ()
    assert packet_from_message(raw, lambda d: True) is None


def test_a_mail_of_another_game_names_its_game(packet: VerifiedPacket) -> None:
    other = game("another")
    theirs = other.packets[-1]
    raw = mail(theirs)
    read = read_message(raw)
    assert read is not None
    assert read.game_id == theirs.body.game_id != packet.body.game_id
    assert read.candidates == (theirs.data,)
    # Our keys do not verify it; its own game's keys do.
    assert packet_from_message(raw, verifier(game())) is None
    assert packet_from_message(raw, verifier(other)) == theirs.data


def test_is_hexpost_on_headers_only_and_on_whole_messages(packet: VerifiedPacket) -> None:
    raw = mail(packet)
    header_block = raw.split(b"\r\n\r\n", 1)[0] + b"\r\n\r\n"
    assert is_hexpost(header_block)
    assert is_hexpost(raw)
    stripped = re.sub(rb"X-Hexpost:[^\r]*\r\n", b"", raw)
    assert not is_hexpost(stripped.split(b"\r\n\r\n", 1)[0])
    assert is_hexpost(stripped)  # the attachment type is in the body
    assert is_hexpost(only(raw, "attachment"))


def test_a_record_of_a_kind_a_newer_hexpost_added_is_kept_as_a_candidate(
    packet: VerifiedPacket,
) -> None:
    """Not dropped as unreadable: the inbox then says a newer hexpost wrote it."""
    record = msgspec.msgpack.encode(["poll-vote", 1, b"k" * 8, b"s" * 64, b"a body"])
    msg = PARSER.parsebytes(mail(packet))
    out = EmailMessage(policy=policy.SMTP)
    for name in ("From", "To", "Subject", "Date", "Message-ID", HEADER):
        out[name] = str(msg[name])
    out.set_content("see attached")
    out.add_attachment(
        record, maintype="application", subtype="x-hexpost-packet", filename="poll.hexpost"
    )
    read = read_message(out.as_bytes())
    assert read is not None and read.candidates == (record,)
