"""The armoured copy is read only when it may differ from the attachment (`mime._armor_repeats`).

A packet email carries its packet twice. On hexpost's own layout, once the attachment has given
a copy, the text's armour is not searched when its bytes show it can only repeat that copy (it
would be dropped as a repeat): ending with exactly the block written for the attachment's
bytes, with nothing before it that could open another block. Everything else is decoded as
before: a missing or unreadable attachment, a damaged or different armour, a second block.

What each copy gets is unchanged: every copy that differs from the attachment is still handed
up, and the replica checks each one it tries (`saves.copies.pick`: the first that verifies is
taken, attachment first). So two copies that disagree are both offered and both checked, and
neither can carry anything past the checks the other would get: the armour's packet is taken
only when the attachment's does not verify, and only if it verifies itself.

These tests attack the shortcut as a sender would, and compare every answer with the general
reader, which searches every part (`mime._read(raw, fast=False)`); an item handed to the
replica equal in every field means the same outcome and the same error.
"""

from __future__ import annotations

import base64
import random
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import msgspec
import pytest

from engine.core.packets import MAX_PACKET_SIZE, VerifiedPacket, packet_id, read_envelope
from mail import mime, mimeparts
from mail.imap import FoundMail
from mail.loopback import LoopbackNetwork
from mail.mailtransport import _incoming
from mail.mime import ARMOR_BEGIN, ARMOR_END, MAX_TEXT_BYTES, armor, read_message
from mail.sync import _take_batch
from mail.transport import OutgoingPacket
from tests.engine.table import Table
from tests.engine.toy import TOY, Say
from tests.mail.test_mime_fast import email
from tests.saves.conftest import Player, now, start_game


@pytest.fixture(scope="module")
def packets() -> tuple[VerifiedPacket, VerifiedPacket]:
    """Two different packets of one game (the second a stranger could put beside the first)."""
    table = Table(TOY, "duel", ["north", "south"], label="armour")
    table.orders("north", Say("hold the line " * 20))
    table.orders("south", Say("advance " * 20))
    return table.packets[-2], table.packets[-1]


@pytest.fixture(scope="module")
def packet(packets: tuple[VerifiedPacket, VerifiedPacket]) -> VerifiedPacket:
    return packets[0]


def every_copy(raw: bytes) -> mime.ReadMail | None:
    """The general reader: every part searched, every block decoded."""
    return mime._read(raw, fast=False)


def read_and_searched(
    raw: bytes, monkeypatch: pytest.MonkeyPatch
) -> tuple[mime.ReadMail | None, bool]:
    """`read_message` of ``raw``, and whether it searched a text part for armour."""
    searched = []
    search = mime._part_text

    def spy(raw: bytes, part: object, limits: object) -> tuple[bytes, bytes] | None:
        searched.append(True)
        return search(raw, part, limits)  # type: ignore[arg-type]

    with monkeypatch.context() as patch:
        patch.setattr(mime, "_part_text", spy)
        read = read_message(raw)
    return read, bool(searched)


def same(raw: bytes, monkeypatch: pytest.MonkeyPatch) -> tuple[mime.ReadMail | None, bool]:
    """Read ``raw``; assert it reads as the general reader reads it, and that what the mail
    transport hands the replica is the same item either way. Returns the read and whether the
    armour was searched."""
    read, searched = read_and_searched(raw, monkeypatch)
    assert read == every_copy(raw)
    found = FoundMail(uid=7, ref="1:7", raw=raw)
    item = _incoming(found)
    with monkeypatch.context() as patch:
        patch.setattr(mime, "read_message", every_copy)
        assert item == _incoming(found)
    return read, searched


def text_of(raw: bytes) -> tuple[int, int]:
    """Where the text part's body lies: after its blank line, up to its closing CRLF."""
    start = raw.index(b"\r\n\r\n", raw.index(b"Content-Type: text/plain")) + 4
    end = raw.index(b"\r\n--=", start)
    return start, end


def block_of(data: bytes, pid: bytes, width: int = mime.ARMOR_WIDTH) -> bytes:
    return armor(data, pid, width).replace("\n", "\r\n").encode()


def swap_attachment(raw: bytes, data: bytes) -> bytes:
    """``raw`` with the attachment's base64 replaced by ``data``'s (the layout kept)."""
    start = raw.index(b"\r\n\r\n", raw.index(b"Content-Type: application/x-hexpost")) + 4
    end = raw.index(b"\r\n--=", start)
    encoded = base64.encodebytes(data).replace(b"\n", b"\r\n")
    return raw[:start] + encoded + raw[end:]


def flipped(data: bytes) -> bytes:
    """``data`` with one bit of its signature changed: still a well-formed envelope."""
    envelope = read_envelope(data)
    signature = bytes([envelope.signature[0] ^ 1]) + envelope.signature[1:]
    bad = msgspec.msgpack.encode(msgspec.structs.replace(envelope, signature=signature))
    assert bad != data and read_envelope(bad).signature == signature
    return bad


# --- the shortcut is taken on our own emails, and reads as before ------------------------------


@pytest.mark.parametrize(
    "summary",
    [[], ["Alice moved the Strike Force to 1411."], ["\u00e9t\u00e9 \u2014 1411 hexpost"]],
)
def test_our_own_email_skips_the_armour_and_reads_as_before(
    packet: VerifiedPacket, summary: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    raw = email(packet, summary=summary)
    read, searched = same(raw, monkeypatch)
    assert not searched, "the armour of an untouched email was searched"
    assert read is not None and read.candidates == (packet.data,)


# --- the attachment missing or failing ---------------------------------------------------------


def test_attachment_missing_reads_the_armour(
    packet: VerifiedPacket, monkeypatch: pytest.MonkeyPatch
) -> None:
    raw = email(packet)
    cut = raw.rindex(b"--===", 0, raw.index(b"Content-Type: application/x-hexpost"))
    stripped = raw[:cut] + raw[raw.rindex(b"--===") :]
    read, searched = same(stripped, monkeypatch)
    assert searched and read is not None and read.candidates == (packet.data,)
    emptied = swap_attachment(raw, b"")
    read, searched = same(emptied, monkeypatch)
    assert searched and read is not None and read.candidates == (packet.data,)


def test_attachment_unreadable_but_armour_good_reads_the_armour(
    packet: VerifiedPacket, monkeypatch: pytest.MonkeyPatch
) -> None:
    raw = swap_attachment(email(packet), packet.data[: len(packet.data) // 2])
    read, searched = same(raw, monkeypatch)
    assert searched and read is not None and read.candidates == (packet.data,)


def test_attachment_badly_signed_but_armour_good_offers_both(
    packet: VerifiedPacket, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A damage that leaves the envelope readable (one bit of the signature): the attachment
    decodes and is taken first, so the armour must still be read, to be tried after it."""
    bad = flipped(packet.data)
    raw = swap_attachment(email(packet), bad)
    read, searched = same(raw, monkeypatch)
    assert searched and read is not None and read.candidates == (bad, packet.data)


def test_both_copies_damaged_alike_read_as_one_bad_copy(
    packet: VerifiedPacket, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sender's own bytes were bad (both copies equal): one copy, the replica refuses it
    with the reason the general reader's copy gets."""
    bad = flipped(packet.data)
    raw = email(packet).replace(
        base64.b64encode(packet.data)[:64], base64.b64encode(bad)[:64]
    )  # the armour's first line
    raw = swap_attachment(raw, bad)
    read, searched = same(raw, monkeypatch)
    assert not searched and read is not None and read.candidates == (bad,)


def test_both_copies_damaged_differently_offers_what_decodes(
    packet: VerifiedPacket, monkeypatch: pytest.MonkeyPatch
) -> None:
    bad = flipped(packet.data)
    start, end = text_of(email(packet))
    raw = email(packet)
    raw = swap_attachment(raw[:start] + raw[start:end].replace(b"A", b"B", 1) + raw[end:], bad)
    read, searched = same(raw, monkeypatch)
    assert searched and read is not None and read.candidates[0] == bad


# --- the two copies disagreeing ----------------------------------------------------------------


def test_a_different_packet_in_the_armour_is_offered_after_the_attachment(
    packets: tuple[VerifiedPacket, VerifiedPacket], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Attachment A, armour B (each under its own id): both offered, A first; the replica
    checks each it tries, so B is taken only if A does not verify and B does."""
    a, b = packets
    raw = email(a)
    raw = raw.replace(block_of(a.data, a.packet_id), block_of(b.data, b.packet_id))
    read, searched = same(raw, monkeypatch)
    assert searched and read is not None and read.candidates == (a.data, b.data)
    # Under A's id the armour's B is dropped (a block must name its own packet's id).
    raw = email(a).replace(block_of(a.data, a.packet_id), block_of(b.data, a.packet_id))
    read, searched = same(raw, monkeypatch)
    assert searched and read is not None and read.candidates == (a.data,)


@pytest.mark.parametrize(
    "where",
    [
        "before, full markers",
        "before, shortest markers",
        "before, quoted",
        "after",
        "after, unclosed",
    ],
)
def test_a_second_block_beside_the_repeat_is_read(
    packets: tuple[VerifiedPacket, VerifiedPacket], where: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stranger keeps the armour of A (the attachment) as written and adds a block of B
    before or after it: the text must be searched, and B offered as the general reader
    offers it."""
    a, b = packets
    raw = email(a)
    mine = block_of(a.data, a.packet_id)
    theirs = block_of(b.data, b.packet_id)
    if where == "before, shortest markers":
        theirs = theirs.replace(b"-----", b"---")
    if where == "before, quoted":
        theirs = b"> " + theirs.replace(b"\r\n", b"\r\n> ")
    if where.startswith("before"):
        changed = raw.replace(mine, theirs + b"\r\n\r\n" + mine)
    elif where == "after":
        changed = raw.replace(mine, mine + b"\r\n" + theirs)
    else:
        changed = raw.replace(mine, mine + b"\r\n" + theirs[: -len(ARMOR_END) - 2])
    assert changed != raw
    read, searched = same(changed, monkeypatch)
    assert searched and read is not None
    if where == "after, unclosed":
        assert read.candidates == (a.data,)
    else:
        assert read.candidates == (a.data, b.data)


def test_an_armour_that_repeats_the_attachment_under_any_id_line_reads_as_before(
    packet: VerifiedPacket, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ``Packet:`` line of a repeat is not checked by either reader; one that is not 64 hex
    digits makes the shortcut decline."""
    raw = email(packet)
    right = packet.packet_id.hex().encode()
    for line, skipped in (
        (bytes(32).hex().encode(), True),
        (right.upper(), True),
        (b"g" + right[1:], False),
        (right[:30] + b" " + right[31:], False),
    ):
        read, searched = same(raw.replace(right, line), monkeypatch)
        assert searched is not skipped, line
        assert read is not None and read.candidates == (packet.data,)


@pytest.mark.parametrize(
    "how",
    ["re-encoded", "short END", "END line moved", "more base64", "LF line ends", "charset", "html"],
)
def test_a_block_not_exactly_as_written_is_searched(
    packet: VerifiedPacket, how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The shortcut takes only the exact form it proves things about: a text re-encoded (its
    bytes are no longer the text), a block closed otherwise than as written, other line ends,
    a wide charset or HTML are searched, and read as the general reader reads them."""
    raw = email(packet)
    start, end = text_of(raw)
    closing = b"\r\n" + ARMOR_END.encode() + b"\r\n"
    if how == "re-encoded":
        changed = raw.replace(b"Transfer-Encoding: 7bit", b"Transfer-Encoding: quoted-printable")
    elif how == "short END":
        changed = raw[: end - len(closing)] + b"\r\n---END HEXPOST PACKET---\r\n" + raw[end:]
    elif how == "END line moved":
        changed = raw[: end - len(closing)] + closing + b"\r\n" + raw[end:]
    elif how == "more base64":  # as long as the END line it replaces
        changed = raw[: end - len(closing)] + b"\r\nAAAA\r\n---END HEXPOST PACKET---" + raw[end:]
    elif how == "LF line ends":
        changed = raw[:start] + raw[start:end].replace(b"\r\n", b"\n") + raw[end:]
    elif how == "charset":
        changed = raw.replace(b'charset="utf-8"', b'charset="utf-16"')
    else:
        changed = raw.replace(b"Content-Type: text/plain", b"Content-Type: text/html")
    assert changed != raw
    read, searched = read_and_searched(changed, monkeypatch)
    assert searched, how
    assert read == every_copy(changed)
    part = mimeparts.walk(changed)[1]
    assert not mime._armor_repeats(changed, part, packet.data), how


def test_the_armour_wrapped_otherwise_reads_as_before(
    packet: VerifiedPacket, monkeypatch: pytest.MonkeyPatch
) -> None:
    raw = email(packet)
    mine = block_of(packet.data, packet.packet_id)
    for width in (76, 60, 4):
        read, _ = same(
            raw.replace(mine, block_of(packet.data, packet.packet_id, width)), monkeypatch
        )
        assert read is not None and read.candidates == (packet.data,)


# --- oversized parts ---------------------------------------------------------------------------


def test_an_oversized_text_part_reads_as_before(
    packet: VerifiedPacket, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Text past `MAX_TEXT_BYTES` is not searched by the general reader: with the armour
    repeating the attachment or holding another packet, the answers agree."""
    padding = ["hexpost filler line " * 3] * (MAX_TEXT_BYTES // 60 + 10)
    raw = email(packet, summary=padding)
    assert text_of(raw)[1] - text_of(raw)[0] > MAX_TEXT_BYTES
    read, _ = same(raw, monkeypatch)
    assert read is not None and read.candidates == (packet.data,)
    bad = flipped(packet.data)
    read, _ = same(swap_attachment(raw, bad), monkeypatch)
    assert read is not None and read.candidates == (bad,)  # the text is too big to search


def test_an_oversized_attachment_leaves_the_armour(
    packet: VerifiedPacket, monkeypatch: pytest.MonkeyPatch
) -> None:
    raw = swap_attachment(email(packet), b"\x00" * (MAX_PACKET_SIZE + 1))
    read, searched = same(raw, monkeypatch)
    assert searched and read is not None and read.candidates == (packet.data,)


def test_an_oversized_block_beside_the_repeat_reads_as_before(
    packets: tuple[VerifiedPacket, VerifiedPacket], monkeypatch: pytest.MonkeyPatch
) -> None:
    a, _ = packets
    raw = email(a)
    mine = block_of(a.data, a.packet_id)
    huge = block_of(b"\x01" * (MAX_PACKET_SIZE + 10), bytes(32))
    read, searched = same(raw.replace(mine, huge + b"\r\n" + mine), monkeypatch)
    assert searched and read is not None and read.candidates == (a.data,)


# --- random damage -----------------------------------------------------------------------------


def test_random_edits_around_the_armour_never_make_the_readers_disagree(
    packets: tuple[VerifiedPacket, VerifiedPacket], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Thousands of edits in the text part (dashes, markers, line breaks, base64 letters) and
    in the attachment: whenever the text is not searched, the general reader finds no other
    copy in it."""
    a, b = packets
    rng = random.Random(1612)
    raw = email(a, summary=["The fleet holds."])
    start, end = text_of(raw)
    pieces = [b"-", b"---", b"\r\n", b">", b"A", b"=", b" ", ARMOR_BEGIN.encode()]
    pieces.append(block_of(b.data, b.packet_id))
    skipped = searched = 0
    for _ in range(1500):
        at = rng.randrange(start, len(raw) if rng.random() < 0.2 else end)
        cut = rng.choice((0, 0, 1, 2))
        mutated = raw[:at] + rng.choice(pieces) * rng.choice((0, 1)) + raw[at + cut :]
        _, looked = same(mutated, monkeypatch)
        skipped += not looked
        searched += looked
    assert skipped > 0 and searched > 0


# --- through the replica -----------------------------------------------------------------------


@pytest.fixture
def homes(tmp_path: Path) -> Iterator[tuple[Player, Player, bytes]]:
    network = LoopbackNetwork()
    alice = Player(tmp_path / "alice", "Alice", "alice@example.org", network)
    bob = Player(tmp_path / "bob", "Bob", "bob@example.org", network)
    try:
        yield alice, bob, start_game(alice, bob, setup=False)
    finally:
        alice.close()
        bob.close()


def test_a_badly_signed_attachment_with_a_good_armour_is_taken_in_from_the_armour(
    homes: tuple[Player, Player, bytes],
) -> None:
    """End to end: the attachment's signature broken, the armour intact: the packet goes in;
    both broken alike: refused, for its signature."""
    alice, bob, game_id = homes
    seqs = [alice.replica.chat(game_id, f"line {n}", now=now()).seq for n in range(2)]
    mails = []
    for seq in seqs:
        data = alice.packet(game_id, seq)
        pid = packet_id(read_envelope(data).body)
        outgoing = OutgoingPacket(game_id=game_id, seq=seq, packet_id=pid, data=data, to=("b",))
        mails.append((data, email_of(outgoing)))
    (good, raw), (second, raw2) = mails
    damaged = swap_attachment(raw, flipped(good))
    both = swap_attachment(
        raw2.replace(base64.b64encode(second)[:64], base64.b64encode(flipped(second))[:64]),
        flipped(second),
    )
    read = [_incoming(FoundMail(uid=n, ref=f"1:{n}", raw=m)) for n, m in enumerate((damaged, both))]
    items = [item for item in read if item is not None]
    assert len(items) == 2
    outcomes = _take_batch(bob.replica, "imap:test", items, now())
    assert [o.status for o in outcomes] == ["applied", "rejected"], outcomes
    assert bob.packet(game_id, seqs[0]) == good
    assert "signature" in outcomes[1].detail


def email_of(outgoing: OutgoingPacket) -> bytes:
    return mime.build_message(
        outgoing,
        sender="alice@example.org",
        subject="[hexpost] test",
        message_id="<t@example.org>",
        date=datetime(2030, 1, 1, tzinfo=UTC),
    )
