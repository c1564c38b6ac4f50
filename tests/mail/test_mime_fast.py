"""The fast reader of hexpost's own email layout (`mimeparts.read_known`) against the general one.

A packet email as `mime.build_message` writes it is cut into parts without the standard
library; any other email, including one of ours that a mail system mangled, must fall back to
the general walk with exactly the result that walk alone gives. These tests compare the two on
our own emails, on emails mangled by hand the ways gateways and clients do, on thousands of
random byte edits, and on the hostile emails, whose cost stays bounded.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest

from engine.core.packets import VerifiedPacket
from mail import mime, mimeparts
from mail.mime import PACKET_TYPE, build_message, make_message_id, read_message
from mail.transport import OutgoingPacket
from tests.call_count import counted
from tests.engine.table import Table
from tests.engine.toy import TOY, Say
from tests.mail.hostile import HOSTILE
from tests.mail.test_hostile_mail import CALL_BUDGET, at_limit

WHEN = datetime(2026, 12, 2, 1, 30, tzinfo=UTC)


@pytest.fixture(scope="module")
def packet() -> VerifiedPacket:
    table = Table(TOY, "duel", ["north", "south"], label="fast")
    table.orders("north", Say("move along " * 30))
    return table.packets[-1]


def email(packet: VerifiedPacket, **kw: object) -> bytes:
    args: dict[str, object] = {
        "sender": "Alice <alice@example.org>",
        "subject": f"[hexpost] border: packet {packet.body.seq}",
        "message_id": make_message_id(b"\x07" * 12, "example.org"),
        "date": WHEN,
        "summary": ["Alice moved the Strike Force to 1411."],
        "references": ["<first@example.org>", "<second@example.org>"],
    }
    args.update(kw)
    outgoing = OutgoingPacket(
        game_id=packet.body.game_id,
        seq=packet.body.seq,
        packet_id=packet.packet_id,
        data=packet.data,
        to=("bob@example.org",),
    )
    return build_message(outgoing, **args)  # type: ignore[arg-type]


def facts(parts: list[mimeparts.Part]) -> list[tuple[object, ...]]:
    """Everything reading asks of the parts, the standard library's answers included."""
    return [
        (
            p.fields,
            p.start,
            p.end,
            p.message,
            p.content_type,
            p.charset,
            p.filename,
            p.boundary if p.content_type.startswith("multipart/") else None,
            p.is_leaf,
        )
        for p in parts
    ]


def same_as_general(raw: bytes) -> bool:
    """Whether the fast reader, when it takes the email at all, cuts it as the walk does, and
    reading it gives what the general reader gives. Returns whether the fast reader took it."""
    known = mimeparts.read_known(raw, PACKET_TYPE)
    if known is not None:
        assert facts(known) == facts(mimeparts.walk(raw))
    assert read_message(raw) == mime._read(raw, fast=False)
    return known is not None


@pytest.mark.parametrize(
    "variant",
    [
        {},
        {"summary": []},
        {"references": []},
        {"automatic": True},
        {"summary": ["Kzinti reaction window opens: \u00e9t\u00e9 \u2014 1411"]},
        {"subject": "[hexpost] \u00fcber " + "long subject " * 20},
    ],
)
def test_our_own_emails_are_read_by_the_fast_path_as_the_general_reader_reads_them(
    packet: VerifiedPacket, variant: dict[str, object]
) -> None:
    raw = email(packet, **variant)
    assert same_as_general(raw)
    read = read_message(raw)
    assert read is not None and read.candidates == (packet.data,)
    assert read.game_id == packet.body.game_id and read.seq == packet.body.seq


def test_delivered_headers_in_front_do_not_stop_the_fast_path(packet: VerifiedPacket) -> None:
    """What a server adds on delivery (Return-Path, Received...) is none of the layout."""
    raw = (
        b"Return-Path: <alice@example.org>\r\nDelivered-To: bob@example.org\r\n"
        b"Received: from localhost by mx (Dovecot) with LMTP\r\n\tid 12; Wed, 2 Dec 2026\r\n"
        + email(packet)
    )
    assert same_as_general(raw)


def mangle(raw: bytes, how: str) -> bytes:
    """``raw`` changed as mail systems change mail (each stays a readable email)."""
    head, _, body = raw.partition(b"\r\n\r\n")
    boundary = raw.split(b'boundary="', 1)[1].split(b'"', 1)[0]
    if how == "lf line ends":
        return raw.replace(b"\r\n", b"\n")
    if how == "boundary unquoted":
        return raw.replace(b'boundary="' + boundary + b'"', b"boundary=" + boundary)
    if how == "boundary renamed":
        return raw.replace(boundary, b"gateway-0001")
    if how == "type in capitals":
        return raw.replace(b"Content-Type: multipart/mixed", b"Content-Type: Multipart/Mixed")
    if how == "text re-encoded":
        return raw.replace(
            b"Content-Transfer-Encoding: 7bit", b"Content-Transfer-Encoding: quoted-printable"
        )
    if how == "charset changed":
        return raw.replace(b'charset="utf-8"', b'charset="iso-8859-1"')
    if how == "attachment renamed":
        return raw.replace(b'.hexpost"', b'.bin"')
    if how == "attachment retyped":
        return raw.replace(PACKET_TYPE.encode() + b"\r\n", b"application/octet-stream\r\n")
    if how == "attachment stripped":
        cut = body.rfind(b"--" + boundary + b"\r\nContent-Type: application")
        return head + b"\r\n\r\n" + body[:cut] + b"--" + boundary + b"--\r\n"
    if how == "a part added":
        extra = b"--" + boundary + b"\r\nContent-Type: text/plain\r\n\r\nsigned by the gateway\r\n"
        return raw.replace(b"--" + boundary + b"--", extra + b"--" + boundary + b"--")
    if how == "closing delimiter lost":
        return raw.replace(b"--" + boundary + b"--", b"")
    if how == "second header wins nothing":
        return raw.replace(b"X-Hexpost:", b"X-Hexpost: game=00; seq=1\r\nX-Hexpost:", 1)
    if how == "quoted forward":
        return b"> " + raw.replace(b"\r\n", b"\r\n> ")
    if how == "disposition inline":
        return raw.replace(b"Content-Disposition: attachment;", b"Content-Disposition: inline;")
    if how == "truncated":
        return raw[: len(raw) * 2 // 3]
    raise AssertionError(how)


LEFT_TO_THE_GENERAL_READER = [
    "boundary unquoted",
    "boundary renamed",
    "type in capitals",
    "charset changed",
    "attachment retyped",
    "attachment stripped",
    "a part added",
    "quoted forward",
    "disposition inline",
]
"""Manglings that leave hexpost's exact layout: the fast path must decline them."""
STILL_OUR_LAYOUT = [
    "lf line ends",
    "text re-encoded",
    "attachment renamed",
    "closing delimiter lost",
    "second header wins nothing",
    "truncated",
]
"""Manglings the fast path may take or leave; either way the result must be the same."""


@pytest.mark.parametrize("how", LEFT_TO_THE_GENERAL_READER + STILL_OUR_LAYOUT)
def test_a_mangled_email_falls_back_to_the_general_reader_with_the_same_result(
    packet: VerifiedPacket, how: str
) -> None:
    raw = mangle(email(packet), how)
    assert raw != email(packet)
    taken = same_as_general(raw)
    if how in LEFT_TO_THE_GENERAL_READER:
        assert not taken, f"{how}: the fast path took a mail that is not hexpost's layout"


def test_a_mangled_email_still_gives_the_packet_where_the_general_reader_finds_it(
    packet: VerifiedPacket,
) -> None:
    """Falling back loses nothing: what the general reader finds in a mangled copy is found."""
    for how in ("boundary renamed", "text re-encoded", "attachment stripped", "lf line ends"):
        read = read_message(mangle(email(packet), how))
        assert read is not None and packet.data in read.candidates, how


def test_random_byte_edits_never_make_the_two_readers_disagree(packet: VerifiedPacket) -> None:
    """Thousands of single edits (a byte changed, dropped or doubled) anywhere in the email:
    whenever the fast path still takes it, its parts are the walk's, and the result of reading
    is always the general reader's."""
    rng = random.Random(16)
    raw = email(packet)
    taken = 0
    for _ in range(3000):
        at = rng.randrange(len(raw))
        edit = rng.choice(("change", "drop", "double"))
        if edit == "change":
            mutated = raw[:at] + bytes([rng.choice(b'\r\n -=":;aZ0/')]) + raw[at + 1 :]
        elif edit == "drop":
            mutated = raw[:at] + raw[at + 1 :]
        else:
            mutated = raw[: at + 1] + raw[at:]
        taken += same_as_general(mutated)
    assert 0 < taken < 3000  # both paths were exercised


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_email_costs_the_fast_path_little_and_reads_as_before(name: str) -> None:
    raw = at_limit(name)
    _, calls = counted(mimeparts.read_known, raw, PACKET_TYPE)
    assert calls < CALL_BUDGET // 10, f"{name}: {calls} calls"
    assert read_message(raw) == mime._read(raw, fast=False)


def test_a_flood_of_false_delimiters_in_our_layout_stays_bounded(packet: VerifiedPacket) -> None:
    """Our exact header over a text part of boundary look-alikes, up to the mail size limit."""
    raw = email(packet)
    boundary = raw.split(b'boundary="', 1)[1].split(b'"', 1)[0]
    first = raw.index(b"--" + boundary) + len(boundary) + 4
    junk = (b"--" + boundary + b"x\r\n") * ((mime.MAX_MAIL_BYTES - len(raw)) // (len(boundary) + 5))
    flooded = raw[:first] + junk + raw[first:]
    assert len(flooded) <= mime.MAX_MAIL_BYTES
    _, calls = counted(mime.read_message, flooded)
    assert calls < CALL_BUDGET
    same_as_general(flooded)


def _fields_as_before(block: bytes) -> dict[str, str]:
    """`mimeparts._fields` as it was written first (one field name searched at a time, every
    folded line followed step by step): the reference its faster form must agree with."""
    head: dict[str, str] = {}
    text = b"\n" + block
    lowered = text.lower()
    for name in mimeparts.FIELDS:
        at = lowered.find(b"\n" + name.encode() + b":")
        if at < 0:
            continue
        start = at + len(name) + 2
        stop = start
        while True:
            newline = text.find(b"\n", stop)
            if newline < 0:
                stop = len(text)
                break
            stop = newline
            if newline - start > mimeparts.MAX_FIELD or text[newline + 1 : newline + 2] not in (
                b" ",
                b"\t",
            ):
                break
            stop = newline + 1
        value = text[start:stop][: mimeparts.MAX_FIELD * 4].decode("utf-8", "replace")
        value = value.strip(" \t\r\n")[: mimeparts.MAX_FIELD]
        if value.count(";") > mimeparts.MAX_PARAMS:
            value = ";".join(value.split(";", mimeparts.MAX_PARAMS + 1)[: mimeparts.MAX_PARAMS + 1])
        head[name] = value
    return head


def _header_like_as_before(raw: bytes) -> bool:
    """Whether `mimeparts._split_head` took the first line for a header field, as written first."""
    name, colon, _ = raw[:200].partition(b":")
    return bool(colon and name and all(32 < c < 127 for c in name))


def test_header_fields_are_cut_as_before_under_random_edits(packet: VerifiedPacket) -> None:
    """Edits that fold, unfold, lengthen (past `MAX_FIELD`) and break header fields: the
    fields kept and where a header block is taken to start agree with the first forms."""
    rng = random.Random(1616)
    raw = email(packet)
    head = raw[: raw.index(b"\r\n\r\n") + 2]
    inserts = (b"\r\n ", b"\r\n\t", b"\n", b"x" * 1200, b"; a=b" * 5, b"\xc3\xa9", b":", b" ")
    for _ in range(3000):
        mutated = head
        for _ in range(rng.randrange(1, 4)):
            at = rng.randrange(len(mutated))
            if rng.random() < 0.5:
                mutated = mutated[:at] + rng.choice(inserts) + mutated[at:]
            else:
                mutated = mutated[:at] + mutated[at + rng.randrange(1, 20) :]
        assert mimeparts._fields(mutated) == _fields_as_before(mutated)
        split = mimeparts._split_head(mutated, 0, len(mutated))
        if not mutated.startswith((b"\n", b"\r\n", b"From ", b" ", b"\t")):
            assert (split != (0, 0)) == _header_like_as_before(mutated)


def test_header_fields_at_the_edges_are_cut_as_before() -> None:
    """The edges random edits seldom hit: a folded field whose line break lies just before, at
    or just past `MAX_FIELD` bytes, and a first line whose name holds each possible byte."""
    for length in range(mimeparts.MAX_FIELD - 24, mimeparts.MAX_FIELD + 6):
        for fold in (b"\r\n ", b"\n\t", b"\r\n\r\n "):
            value = b"a" * length + fold + b"b; c=d" + fold + b"f"
            block = b"Subject: x\r\nContent-Type: " + value + b"\r\nTo: e"
            assert mimeparts._fields(block) == _fields_as_before(block), (length, fold)
    for byte in range(256):
        first = b"X" + bytes([byte]) + b"Y: v\r\n\r\nbody"
        if first.startswith((b"\n", b"\r\n", b"From ", b" ", b"\t")):
            continue
        split = mimeparts._split_head(first, 0, len(first))
        assert (split != (0, 0)) == _header_like_as_before(first), byte


def _children_of(raw: bytes) -> list[tuple[int, int]]:
    split = mimeparts._split_head(raw, 0, len(raw))
    assert split is not None
    boundary = mimeparts._fields(raw[: split[0]])["content-type"].split('"')[1]
    return mimeparts._children(raw, split[1], len(raw), boundary, mimeparts._Budget())


@pytest.mark.parametrize("summary", ["plain words", "\u00e9t\u00e9 \u2014 1411", "x" * 900])
@pytest.mark.parametrize("chat", [False, True])
def test_the_exact_headers_of_our_parts_are_read_as_the_fields_say(
    packet: VerifiedPacket, summary: str, chat: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Our own text part and attachment (a packet's or a chat message's name, any text
    encoding the email package picks) take the shortcut that skips cutting their header
    blocks, and give the parts, fields included, that cutting them gives."""
    raw = email(packet, summary=[summary])
    if chat:
        name = mime.attachment_name(packet.body.game_id, packet.body.seq).encode()
        chat_name = mime.chat_name(packet.body.game_id, packet.body.seq).encode()
        assert name in raw
        raw = raw.replace(name, chat_name)
    assert mimeparts._exact_children(raw, _children_of(raw), PACKET_TYPE) is not None
    fast = mimeparts.read_known(raw, PACKET_TYPE)
    monkeypatch.setattr(mimeparts, "_exact_children", lambda *args: None)
    cut = mimeparts.read_known(raw, PACKET_TYPE)
    assert fast is not None and cut is not None
    assert facts(fast) == facts(cut) == facts(mimeparts.walk(raw))


def test_random_edits_of_our_part_headers_never_make_the_readers_disagree(
    packet: VerifiedPacket,
) -> None:
    """Edits inside the two parts' header blocks, where the shortcut compares bytes: whenever
    the fast path takes the email its parts are the walk's, and reading gives the general
    reader's result; the shortcut was taken for some and refused for others."""
    rng = random.Random(1617)
    raw = email(packet)
    children = _children_of(raw)
    spans = [(start, raw.index(b"\r\n\r\n", start) + 4) for start, _ in children]
    taken = refused = 0
    for _ in range(2000):
        start, end = rng.choice(spans)
        at = rng.randrange(start, end)
        edit = rng.choice((b"", b"\r\n", b" ", b'"', b"a", b"=", b"\r\n\t"))
        mutated = raw[:at] + edit + raw[at + rng.randrange(0, 3) :]
        same_as_general(mutated)
        exact = mimeparts._exact_children(mutated, _children_of(mutated), PACKET_TYPE)
        taken += exact is not None
        refused += exact is None
    assert taken > 0 and refused > 0


def test_an_armoured_repeat_of_the_attachment_reads_as_when_its_id_is_checked(
    packet: VerifiedPacket, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The armour's ``Packet:`` line is not checked for a block that repeats a copy already
    taken: with a right id, a wrong one, or none, and with the attachment gone (the block is
    then the first copy and is checked), reading gives what checking every block gives."""
    other = bytes(32).hex()
    right = packet.packet_id.hex()
    raw = email(packet)
    attachment = raw.rindex(b"Content-Type: application/x-hexpost-packet")
    variants = {
        "as written": raw,
        "wrong id": raw.replace(right.encode(), other.encode()),
        "no id line": raw.replace(b"Packet: " + right.encode() + b"\r\n", b""),
        "no attachment": raw[:attachment] + b"Content-Type: text/x-other\r\n\r\nnone\r\n",
        "no attachment, wrong id": (raw[:attachment] + b"\r\n").replace(
            right.encode(), other.encode()
        ),
    }
    shortcut = {name: read_message(mail) for name, mail in variants.items()}
    checking = mime._decode_block
    monkeypatch.setattr(mime, "_decode_block", lambda inner, taken=(): checking(inner))
    for name, mail in variants.items():
        assert shortcut[name] == read_message(mail), name
    assert shortcut["wrong id"] is not None and shortcut["wrong id"].candidates == (packet.data,)
    assert shortcut["no attachment"] is not None
    assert shortcut["no attachment"].candidates == (packet.data,)
    assert shortcut["no attachment, wrong id"] is not None
    assert shortcut["no attachment, wrong id"].candidates == ()


def test_a_known_part_holds_the_fields_the_dataclass_makes() -> None:
    """`Part.known` skips the frozen dataclass's ``__init__``: each field must read what that
    ``__init__`` gives (``default`` from the class), and the answers it fills in stand beside."""
    import dataclasses

    fields = {"content-type": "text/plain"}
    known = mimeparts.Part.known(fields, 3, 9, False, "text/plain")
    made = mimeparts.Part(fields, 3, 9, False)
    for f in dataclasses.fields(mimeparts.Part):
        assert getattr(known, f.name) == getattr(made, f.name), f.name
    assert known == made
    assert (known.content_type, known.boundary, known.charset) == ("text/plain", None, "")
