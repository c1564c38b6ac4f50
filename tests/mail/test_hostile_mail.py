"""Email built to hurt: reading one must stay linear in its size with a hard bound per email.

Each hostile email of tests/mail/hostile.py is built at the size limit and read under a
timeout the old reader overran by far (it spent minutes on some), while every function call
made during the read is counted: the count does not depend on the machine's speed, and the
old reader made hundreds of thousands to millions of calls on most of these emails (one or
more per line or per part). Other tests count the work of each stage against its limit, and
check that honest packet emails are still read next to hostile content.
"""

from __future__ import annotations

import base64
import functools
import html
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from engine.core.claims import ClaimBody, claim_id, read_claim, sign_claim
from engine.core.packets import VerifiedPacket
from mail import imap, imapmarks, mime, mimeparts
from mail.accounts import parse_mail_config
from mail.mailtransport import UNREADABLE_BYTES, MailTransport
from mail.mime import (
    ARMOR_BEGIN,
    MAX_COPIES,
    MAX_MAIL_BYTES,
    armor,
    build_message,
    make_message_id,
    read_message,
)
from mail.transport import OutgoingPacket
from tests.call_count import counted
from tests.engine.table import Table
from tests.engine.toy import TOY, Say
from tests.mail import hostile
from tests.mail.hostile import HOSTILE

CALL_BUDGET = 50_000
"""Function calls (Python and C) one read may make, whatever the email: a few hundred per part
walked (the standard library reading a header's parameters is most of it), at most
`mimeparts.MAX_PARTS` parts, plus two per character reference decoded, at most
`mimehtml.MAX_ENTITIES` per email. The worst email here makes about 36,000; the old reader made
390,000 to 24 million on most of them."""


@functools.cache
def at_limit(name: str) -> bytes:
    raw = HOSTILE[name](MAX_MAIL_BYTES)
    assert len(raw) <= MAX_MAIL_BYTES
    return raw


@pytest.fixture(scope="module")
def table() -> Table:
    table = Table(TOY, "duel", ["north", "south"], label="hostile")
    table.orders("north", Say("hold the ford"))
    return table


@pytest.fixture(scope="module")
def packet(table: Table) -> VerifiedPacket:
    return table.packets[-1]


def packet_mail(packet: VerifiedPacket) -> bytes:
    out = OutgoingPacket(
        game_id=packet.body.game_id,
        seq=packet.body.seq,
        packet_id=packet.packet_id,
        data=packet.data,
        to=("bob@example.org",),
    )
    return build_message(
        out,
        sender="alice@example.org",
        subject="[hexpost] packet",
        message_id=make_message_id(b"\x02" * 12, "example.org"),
        date=datetime(2026, 1, 1, tzinfo=UTC),
    )


def text_mail(text: str, *, subtype: str = "plain", charset: str = "utf-8") -> bytes:
    msg = EmailMessage(policy=policy.SMTP)
    msg["From"] = "bob@example.org"
    msg["Subject"] = "re: hexpost"
    msg.set_content(text.encode(charset), maintype="text", subtype=subtype, cte="base64")
    msg.set_param("charset", charset)
    return msg.as_bytes()


def forwarded(raw: bytes, times: int) -> bytes:
    """``raw`` forwarded as an attached message, ``times`` times over."""
    for _ in range(times):
        fwd = EmailMessage(policy=policy.SMTP)
        fwd["From"] = "carol@example.org"
        fwd["Subject"] = "Fwd: our game"
        fwd.set_content("Have a look at this.")
        fwd.add_attachment(_parse(raw))
        raw = fwd.as_bytes()
    return raw


def _parse(raw: bytes) -> EmailMessage:
    parsed = BytesParser(policy=policy.SMTP).parsebytes(raw)
    assert isinstance(parsed, EmailMessage)
    return parsed


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[Any, str], list[int]]]:
    """Count the calls of a module's function: ``spy(module, "name")`` gives a list whose
    length grows by one per call."""

    def install(module: Any, name: str) -> list[int]:
        calls: list[int] = []
        real = getattr(module, name)

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            calls.append(1)
            return real(*args, **kwargs)

        monkeypatch.setattr(module, name, wrapper)
        return calls

    yield install


# --- every class of hostile email, at the size limit ------------------------------------------


@pytest.mark.timeout(10)
@pytest.mark.parametrize("name", list(HOSTILE))
def test_a_hostile_email_is_read_with_bounded_work(name: str) -> None:
    raw = at_limit(name)
    read, calls = counted(read_message, raw)
    assert calls < CALL_BUDGET, f"{name}: {calls} calls"
    assert read is None or read.candidates == ()
    if read is not None:
        assert read.game_id == bytes.fromhex(hostile.GAME)


@pytest.mark.timeout(10)
@pytest.mark.parametrize("name", list(HOSTILE))
def test_the_imap_filter_is_bounded_too(name: str) -> None:
    raw = at_limit(name)
    header = raw.split(b"\r\n\r\n", 1)[0]
    marked, calls = counted(mime.is_hexpost, raw)
    assert calls < 200
    # A header block over the limit is not read; every other one is marked.
    assert marked == (name not in ("1 MiB header line", "long Content-Type"))
    assert counted(mime.is_hexpost, header)[1] < 200


def test_an_email_over_the_limit_is_not_read(packet: VerifiedPacket) -> None:
    raw = packet_mail(packet)
    padded = raw.replace(b"\r\n\r\n", b"\r\nX-Pad: " + b"a" * MAX_MAIL_BYTES + b"\r\n\r\n", 1)
    assert read_message(raw) is not None
    assert read_message(padded) is None


# --- each stage counts its work --------------------------------------------------------------


@pytest.mark.parametrize("name", ["500 nested multiparts", "500 nested forwards"])
def test_nesting_is_followed_to_a_fixed_depth_without_recursion(name: str) -> None:
    parts = mimeparts.walk(at_limit(name))
    # The email, then one part per level followed: nothing below MAX_DEPTH is looked at (the
    # multiparts stop sooner, when the bytes searched for their boundaries reach the budget).
    assert len(parts) <= mimeparts.MAX_DEPTH + 1
    if name == "500 nested forwards":
        assert len(parts) == mimeparts.MAX_DEPTH + 1


def test_the_standard_parser_is_not_used_on_the_body(monkeypatch: pytest.MonkeyPatch) -> None:
    """It is recursive (RecursionError near 1,000 levels) and tests each line against every
    enclosing boundary: reading must not call it."""
    import email.parser

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the standard parser was called")

    monkeypatch.setattr(email.parser.BytesParser, "parsebytes", refuse)
    monkeypatch.setattr(email.parser.Parser, "parsestr", refuse)
    read = read_message(hostile.nested_multiparts(200_000, depth=2_000))
    assert read is not None and read.candidates == ()


@pytest.mark.parametrize("name", ["tiny parts", "tiny packet parts", "max-size fake attachments"])
def test_parts_walked_and_decoded_are_bounded(
    name: str, spy: Callable[[Any, str], list[int]]
) -> None:
    bodies = spy(mimeparts, "body")
    checks = spy(mime, "_well_formed")
    raw = at_limit(name)
    assert len(mimeparts.walk(raw)) <= mimeparts.MAX_PARTS
    read = read_message(raw)
    assert read is not None and read.candidates == ()
    assert len(bodies) <= mimeparts.MAX_PARTS
    assert len(checks) <= MAX_COPIES


@pytest.mark.parametrize(
    "name", ["empty BEGIN/END pairs", "max-size fake armour", "hexpost repeated"]
)
def test_armour_blocks_tried_are_bounded(name: str, spy: Callable[[Any, str], list[int]]) -> None:
    blocks = spy(mime, "_decode_block")
    read = read_message(at_limit(name))
    assert read is not None and read.candidates == ()
    assert len(blocks) <= MAX_COPIES


def test_entities_and_tags_past_their_limits_are_not_processed(
    spy: Callable[[Any, str], list[int]],
) -> None:
    unescapes = spy(html, "unescape")
    assert read_message(at_limit("&amp; repeated")) is not None
    assert read_message(at_limit("<a> repeated")) is not None
    assert unescapes == []


def test_header_fields_are_cut_before_the_standard_library_reads_them() -> None:
    """`Message.get_param` is quadratic in a header's length: it only ever sees MAX_FIELD."""
    raw = hostile.long_content_type(mimeparts.MAX_HEADER_BYTES - 1000)
    (top,) = mimeparts.walk(raw)
    assert len(str(top.head["content-type"])) <= mimeparts.MAX_FIELD
    read, calls = counted(read_message, raw)
    assert read is not None and calls < 1000


def test_many_parts_with_long_parameter_lists_cost_a_bounded_read() -> None:
    params = "; ".join(f"p{i}=v" for i in range(200))
    unit = (
        f"--b\r\nContent-Type: text/plain; {params}\r\n"
        f"Content-Disposition: attachment; {params}\r\n\r\nhexpost\r\n"
    ).encode()
    head = hostile.HEAD + b"Content-Type: multipart/mixed; boundary=b\r\n\r\n"
    raw = head + unit * 1_000 + b"--b--\r\n"
    assert len(raw) <= MAX_MAIL_BYTES
    read, calls = counted(read_message, raw)
    assert read is not None and read.candidates == ()
    assert calls < CALL_BUDGET


def test_a_header_block_over_the_limit_skips_the_part() -> None:
    assert mimeparts.walk(at_limit("1 MiB header line")) == []
    assert read_message(at_limit("1 MiB header line")) is None


def test_look_alike_boundaries_stop_the_split() -> None:
    """Lines that start like the boundary but are not one are given up on after a budget."""
    head = hostile.HEAD + b"Content-Type: multipart/mixed; boundary=b\r\n\r\n"
    raw = head + b"--bX\r\n" * 500_000 + b"--b\r\nContent-Type: text/plain\r\n\r\nhexpost\r\n"
    parts, calls = counted(mimeparts.walk, raw)
    assert len(parts) == 1 and calls < 10 * mimeparts.MAX_FALSE_DELIMITERS


# --- honest mail next to hostile content -----------------------------------------------------


def test_a_packet_after_thousands_of_tiny_parts_is_found_only_within_the_limit(
    packet: VerifiedPacket,
) -> None:
    attachment = (
        b"--b\r\nContent-Type: application/x-hexpost-packet\r\n"
        b"Content-Transfer-Encoding: base64\r\n\r\n" + base64.encodebytes(packet.data) + b"\r\n"
    )
    head = hostile.HEAD + b"Content-Type: multipart/mixed; boundary=b\r\n\r\n"
    first = head + attachment + b"--b\r\n\r\n" * 100_000 + b"--b--\r\n"
    last = head + b"--b\r\n\r\n" * 100_000 + attachment + b"--b--\r\n"
    read = read_message(first)
    assert read is not None and read.candidates == (packet.data,)
    read = read_message(last)
    assert read is not None and read.candidates == ()


def test_a_packet_forwarded_three_times_is_found(packet: VerifiedPacket) -> None:
    raw = forwarded(packet_mail(packet), 3)
    read = read_message(raw)
    assert read is not None and read.candidates == (packet.data,)
    assert read.game_id == packet.body.game_id


def test_a_packet_forwarded_past_the_depth_limit_is_not_read(packet: VerifiedPacket) -> None:
    raw = forwarded(packet_mail(packet), mimeparts.MAX_DEPTH)
    assert mime.is_hexpost(raw)
    read = read_message(raw)
    assert read is None or read.candidates == ()


def test_a_packet_next_to_a_hostile_html_part_is_found(packet: VerifiedPacket) -> None:
    msg = _parse(packet_mail(packet))
    msg.add_attachment(
        ("hexpost " + "<script" * 200_000).encode(),
        maintype="text",
        subtype="html",
        disposition="inline",
    )
    read = read_message(msg.as_bytes())
    assert read is not None and read.candidates == (packet.data,)


def test_a_complete_block_after_an_unfinished_one_is_found(packet: VerifiedPacket) -> None:
    block = armor(packet.data, packet.packet_id)
    cut = "\n".join(block.splitlines()[:4])
    read = read_message(text_mail(f"hexpost\n{cut}\n\n> {block.replace(chr(10), chr(10) + '> ')}"))
    assert read is not None and read.candidates == (packet.data,)


@pytest.mark.parametrize("charset", ["utf-16", "utf-32-le"])
def test_armour_in_a_wide_charset_is_read(packet: VerifiedPacket, charset: str) -> None:
    raw = text_mail("hexpost\n" + armor(packet.data, packet.packet_id), charset=charset)
    read = read_message(raw)
    assert read is not None and read.candidates == (packet.data,)


@pytest.mark.parametrize("charset", ["idna", "punycode", "x-unknown", "rot13"])
def test_armour_under_a_hostile_charset_name_is_read_as_ascii(
    packet: VerifiedPacket, charset: str
) -> None:
    """The charset name is not handed to Python's codecs (idna refuses to replace bad input,
    punycode is quadratic): the armour is ASCII and read as such."""
    text = "hexpost\n" + armor(packet.data, packet.packet_id)
    msg = EmailMessage(policy=policy.SMTP)
    msg["From"] = "bob@example.org"
    msg.set_content(text.encode(), maintype="text", subtype="plain", cte="base64")
    msg.set_param("charset", charset)
    read = read_message(msg.as_bytes())
    assert read is not None and read.candidates == (packet.data,)


def test_bytes_a_charset_codec_refuses_do_not_make_reading_raise() -> None:
    """The idna codec raises on any error handler but "strict": the old reader let that
    UnicodeError out of `read_message`, and so out of the whole fetch."""
    raw = b"Content-Type: text/plain; charset=idna\r\n\r\nhexpost \xff\xfe " + ARMOR_BEGIN.encode()
    assert read_message(raw) is None


def test_a_file_name_no_codec_can_read_does_not_hide_the_packet(packet: VerifiedPacket) -> None:
    """RFC 2231 lets a parameter name its charset; with ``idna`` the standard library raises
    UnicodeError from `Message.get_filename` even in "replace" mode."""
    msg = _parse(packet_mail(packet))
    msg.add_attachment(b"junk", maintype="application", subtype="octet-stream")
    raw = msg.as_bytes().replace(
        b"Content-Disposition: attachment\r\n",
        b"Content-Disposition: attachment; filename*=idna''%ff%fe.hexpost\r\n",
    )
    assert b"idna" in raw
    read = read_message(raw)
    assert read is not None and read.candidates == (packet.data,)


# --- late claims travel like packets ---------------------------------------------------------


def claim_bytes() -> bytes:
    body = ClaimBody(
        game_id=bytes(range(16)),
        seat="south",
        late="north",
        head_seq=4,
        head_id=bytes(32),
        step="orders",
        key="north",
        window_hours=48,
        waiting_since="2026-01-01T00:00:00Z",
        claimed_at="2026-01-03T00:00:01Z",
    )
    return sign_claim(body, Ed25519PrivateKey.generate())


def test_an_armoured_late_claim_names_its_claim_id() -> None:
    claim = claim_bytes()
    cid = claim_id(read_claim(claim).body)
    read = read_message(text_mail("hexpost late claim\n" + armor(claim, cid)))
    assert read is not None and read.candidates == (claim,)
    wrong = read_message(text_mail("hexpost late claim\n" + armor(claim, bytes(32))))
    assert wrong is None  # no routing header, and the one block names another id


def test_a_late_claim_attachment_is_a_candidate() -> None:
    claim = claim_bytes()
    msg = EmailMessage(policy=policy.SMTP)
    msg["From"] = "bob@example.org"
    msg.set_content("a late claim")
    msg.add_attachment(
        claim, maintype="application", subtype="x-hexpost-packet", filename="c.hexpost"
    )
    read = read_message(msg.as_bytes())
    assert read is not None and read.candidates == (claim,)


# --- one email cannot stop the others of a fetch ---------------------------------------------


class FakeFolder:
    uidvalidity = 7

    def __init__(self, mails: list[imap.FoundMail]) -> None:
        self.mails = mails

    def bodies(self, uids: list[int]) -> list[imap.FoundMail]:
        return [mail for mail in self.mails if mail.uid in uids]

    def close(self) -> None:
        pass


def transport_with(mails: list[imap.FoundMail]) -> MailTransport:
    config = parse_mail_config(
        {
            "address": "bob@example.org",
            "imap": {"host": "imap.example.org", "password_env": "HEXPOST_TEST_NONE"},
            "smtp": {"host": "smtp.example.org", "password_env": "HEXPOST_TEST_NONE"},
        }
    )
    transport = MailTransport(config)
    transport._folder = FakeFolder(mails)  # type: ignore[assignment]
    return transport


def test_every_packet_mail_of_a_fetch_is_handed_up_whatever_one_of_them_does(
    packet: VerifiedPacket, monkeypatch: pytest.MonkeyPatch
) -> None:
    good = packet_mail(packet)
    exploding = good.replace(b"Subject:", b"X-Explode: yes\r\nSubject:", 1)
    mails = [
        imap.FoundMail(uid=1, ref="7:1", raw=good),
        imap.FoundMail(uid=2, ref="7:2", raw=exploding),
        imap.FoundMail(uid=3, ref="7:3", raw=at_limit("500 nested multiparts")),
        imap.FoundMail(uid=4, ref="7:4", raw=good),
    ]
    real = mime.read_message

    def read(raw: bytes) -> mime.ReadMail | None:
        if b"X-Explode" in raw:
            raise RecursionError("a bug deep in the parser")
        return real(raw)

    monkeypatch.setattr(mime, "read_message", read)
    packets = transport_with(mails)._download_blocking(7, [1, 2, 3, 4])
    assert [p.ref for p in packets] == ["7:1", "7:2", "7:3", "7:4"]
    assert packets[0].data == packets[3].data == packet.data
    assert packets[1].data == exploding[:UNREADABLE_BYTES]
    assert packets[2].data == mails[2].raw[:UNREADABLE_BYTES]
    assert len(packets[2].data) == UNREADABLE_BYTES
    # The routing header names what the unreadable email was meant to be (untrusted).
    assert packets[2].game_hint == bytes.fromhex(hostile.GAME)
    assert packets[2].seq_hint == 3
    assert packets[0].game_hint == packet.body.game_id
    assert packets[0].seq_hint == packet.body.seq
    assert packets[1].game_hint == b"" and packets[1].seq_hint == -1


# --- the IMAP side: what the server says about a message is bounded too ---------------------


def test_a_deep_bodystructure_is_walked_without_recursion() -> None:
    leaf = (b"text", b"plain", (b"charset", b"utf-8"), None, None, b"7bit", 10)
    deep: Any = leaf
    for _ in range(100_000):
        deep = ([deep], b"mixed")
    assert imapmarks.has_packet_part(deep) is False
    packet_part = (b"application", b"x-hexpost-packet", None, None, None, b"base64", 10)
    shallow: Any = packet_part
    for _ in range(5):
        shallow = ([leaf, shallow], b"mixed")
    assert imapmarks.has_packet_part(shallow) is True


def test_a_wide_bodystructure_costs_a_bounded_walk() -> None:
    leaf = (b"text", b"plain", (b"name", b"x.txt") * 100_000, None, None, b"7bit", 10)
    wide = ([leaf] * 200_000, b"mixed")
    found, calls = counted(imapmarks.has_packet_part, wide)
    assert found is False and calls < 100 * imapmarks.MAX_STRUCTURE_NODES


def test_a_huge_fetched_header_is_looked_at_only_in_part() -> None:
    header = b"X-Hexpost: game=" + b"a" * (16 * 1024 * 1024) + b"\r\n\r\n"
    marked, calls = counted(imapmarks.marks_packet, {b"BODY[HEADER.FIELDS (X-HEXPOST)]": header})
    assert marked and calls < 200
    junk = {b"BODY[HEADER.FIELDS (X-HEXPOST)]": b"X-Other: " + b"-" * (16 * 1024 * 1024)}
    assert imapmarks.marks_packet(junk) is False


class DeepServer:
    """A server whose structure answer is nested deeper than imapclient can parse: its
    parser is recursive, so the fetch raises RecursionError."""

    header = b"BODY[HEADER.FIELDS (X-HEXPOST)]"

    def __init__(self, raw: bytes) -> None:
        self.raw = raw

    def noop(self) -> None:
        pass

    def search(self, criteria: list[Any]) -> list[int]:
        return [1, 2] if len(criteria) == 2 else []

    def fetch(self, uids: list[int], items: list[bytes]) -> dict[int, dict[bytes, Any]]:
        if b"BODYSTRUCTURE" in items:
            raise RecursionError("maximum recursion depth exceeded")
        if items == [b"BODY.PEEK[]"]:
            return {uid: {b"BODY[]": self.raw} for uid in uids}
        return {
            1: {b"RFC822.SIZE": len(self.raw), self.header: b"X-Hexpost: game=ab\r\n\r\n"},
            2: {b"RFC822.SIZE": 10, self.header: b"\r\n"},
        }


def test_a_structure_too_deep_for_imapclient_does_not_stop_the_fetch(
    packet: VerifiedPacket,
) -> None:
    config = transport_with([]).config.imap
    folder = imap.ImapFolder(DeepServer(packet_mail(packet)), config, uidvalidity=7, exists=2)
    found, cursor = folder.fetch_new("", set())
    assert [mail.ref for mail in found] == ["7:1"] and cursor == "7:2"
