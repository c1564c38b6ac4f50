"""What a fetch costs on the wire, against the real test Dovecot (issue 16): which IMAP commands
go out when nothing is new, when hexpost's own mail arrives, and when other mail floods in.

Every command a connection sends is recorded at imaplib's ``send``; the tests count commands,
never time, so a busy machine cannot make them pass or fail.
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Iterator

import pytest
from imapclient import IMAPClient

from engine.core.packets import VerifiedPacket
from mail.accounts import MailConfig, SmtpConfig
from mail.imap import FETCH_BATCH, ImapFolder
from mail.mailtransport import FIRST_BATCH, MailTransport
from tests.mail.servers import MailStack
from tests.mail.test_imap import (  # noqa: F401  (fixtures)
    PASSWORD_ENV,
    admin,
    box,
    config,
    deliver,
    foreign_mail,
    open_box,
    packet,
    packet_mail,
    password,
    tiny_packet_mail,
)


def commands(folder: ImapFolder) -> list[bytes]:
    """From now on, the command words (``NOOP``, ``UID SEARCH``...) ``folder`` sends, but
    CAPABILITY (asked once per connection by imapclient itself)."""
    sent: list[bytes] = []
    imap = folder._client._imap
    original = imap.send

    def send(data: bytes) -> None:
        words = bytes(data).rstrip(b"\r\n").split(b" ")
        if len(words) > 1 and re.fullmatch(rb"[A-Z]+[0-9]+", words[0]):  # a tagged command
            word = words[1].upper()
            if word != b"CAPABILITY":  # imapclient asks that once per connection, itself
                sent.append(word + b" " + words[2].upper() if word == b"UID" else word)
        original(data)

    imap.send = send
    return sent


@pytest.fixture
def folder(mail_stack: MailStack, box: str) -> Iterator[ImapFolder]:  # noqa: F811
    with open_box(mail_stack, box) as opened:
        yield opened


def test_a_fresh_connection_with_nothing_new_sends_no_command(
    mail_stack: MailStack,
    admin: IMAPClient,  # noqa: F811
    box: str,  # noqa: F811
    packet: VerifiedPacket,  # noqa: F811
) -> None:
    deliver(admin, box, packet_mail(mail_stack, packet), foreign_mail())
    with open_box(mail_stack, box) as first:
        found, cursor = first.fetch_new("", set())
    assert len(found) == 1
    with open_box(mail_stack, box) as again:
        sent = commands(again)
        assert again.new_uids(cursor, just_opened=True) == ([], cursor)
        assert sent == []  # the SELECT's UIDNEXT says there is nothing past the cursor
        deliver(admin, box, packet_mail(mail_stack, packet, "late"))
        found, _ = again.fetch_new(cursor, set())
        assert len(found) == 1 and sent[0] == b"NOOP"
    with open_box(mail_stack, box) as idle:
        deliver(admin, box, packet_mail(mail_stack, packet, "after the select"))
        # Not just opened: time passed since the SELECT, so the NOOP asks what came since.
        uids, _ = idle.new_uids(cursor)
        assert len(uids) == 2


def test_a_kept_connection_with_nothing_new_sends_one_noop(
    mail_stack: MailStack,
    folder: ImapFolder,
    admin: IMAPClient,  # noqa: F811
    box: str,  # noqa: F811
    packet: VerifiedPacket,  # noqa: F811
) -> None:
    deliver(admin, box, packet_mail(mail_stack, packet, "one"))
    found, cursor = folder.fetch_new("", set())
    assert len(found) == 1
    sent = commands(folder)
    for _ in range(5):
        assert folder.fetch_new(cursor, set()) == ([], cursor)
    assert sent == [b"NOOP"] * 5
    # Mail that arrives between two rounds is announced by the NOOP and found.
    deliver(admin, box, packet_mail(mail_stack, packet, "two"))
    sent.clear()
    found, later = folder.fetch_new(cursor, set())
    assert len(found) == 1 and later != cursor
    assert sent[:2] == [b"NOOP", b"UID SEARCH"]
    # An older cursor still finds what lies past it (the shortcut bounds UIDs, not cursors).
    found, _ = folder.fetch_new(cursor, set())
    assert len(found) == 1


def test_new_mail_announced_during_idle_is_searched_for(
    mail_stack: MailStack,
    folder: ImapFolder,
    admin: IMAPClient,  # noqa: F811
    box: str,  # noqa: F811
    packet: VerifiedPacket,  # noqa: F811
) -> None:
    _, cursor = folder.fetch_new("", set())
    arrived = threading.Timer(0.3, deliver, (admin, box, packet_mail(mail_stack, packet)))
    arrived.start()
    try:
        assert folder.idle(20.0) is True
    finally:
        arrived.join()
    found, _ = folder.fetch_new(cursor, set())
    assert len(found) == 1


def test_our_own_mail_is_downloaded_without_a_structure_prefetch(
    mail_stack: MailStack,
    folder: ImapFolder,
    admin: IMAPClient,  # noqa: F811
    box: str,  # noqa: F811
    packet: VerifiedPacket,  # noqa: F811
) -> None:
    deliver(admin, box, *(packet_mail(mail_stack, packet, str(n)) for n in range(5)))
    sent = commands(folder)
    found, _ = folder.fetch_new("", set())
    assert len(found) == 5
    # What arrived since the SELECT, one search for the new UIDs, one for those marked
    # hexpost's, one download.
    assert sent == [b"NOOP", b"UID SEARCH", b"UID SEARCH", b"UID FETCH"]


def test_a_flood_of_other_mail_is_judged_by_structure_and_never_downloaded(
    mail_stack: MailStack,
    folder: ImapFolder,
    admin: IMAPClient,  # noqa: F811
    box: str,  # noqa: F811
    packet: VerifiedPacket,  # noqa: F811
) -> None:
    flood = [foreign_mail(str(n), attachment=b"%PDF" * 50) for n in range(150)]
    deliver(admin, box, *flood[:75], packet_mail(mail_stack, packet, "in the middle"), *flood[75:])
    sent = commands(folder)
    lines: list[bytes] = []
    imap = folder._client._imap
    send = imap.send

    def recording(data: bytes) -> None:
        lines.append(bytes(data))
        send(data)

    imap.send = recording
    found, _ = folder.fetch_new("", set())
    assert [mail.uid for mail in found] == [76]
    downloads = [line for line in lines if b"BODY.PEEK[]" in line]
    assert len(downloads) == 1 and downloads[0].endswith(b" UID FETCH 76 (BODY.PEEK[])\r\n")
    assert any(b"BODYSTRUCTURE" in line for line in lines)  # the others judged by structure
    assert sent.count(b"UID FETCH") == 3  # two structure batches of 100 and 50, one download


class Asked:
    """A ``seen`` that records what it is asked (as `saves.outbox.SeenRefs` does, by `among`)."""

    def __init__(self, known: set[str]) -> None:
        self.known = known
        self.asked: list[list[str]] = []

    def __contains__(self, ref: object) -> bool:
        raise AssertionError("asked one ref at a time")

    def among(self, refs: list[str]) -> set[str]:
        self.asked.append(list(refs))
        return self.known & set(refs)


def transport(stack: MailStack, folder: str) -> MailTransport:
    imap = config(stack, folder)
    smtp = SmtpConfig(
        host=stack.host, port=stack.smtp_port, username="bob", password_env=PASSWORD_ENV
    )
    return MailTransport(MailConfig(address=stack.address("bob"), imap=imap, smtp=smtp))


def test_seen_mail_is_looked_up_for_new_uids_only_on_one_reused_thread(
    mail_stack: MailStack,
    admin: IMAPClient,  # noqa: F811
    box: str,  # noqa: F811
    packet: VerifiedPacket,  # noqa: F811
) -> None:
    deliver(admin, box, *(packet_mail(mail_stack, packet, str(n)) for n in range(3)))
    mail = transport(mail_stack, box)
    threads: list[int] = []

    async def rounds() -> list[int]:
        counts = []
        first = Asked(set())
        result = await mail.fetch("", first)
        counts.append(len(result.packets))
        assert len(first.asked) == 1 and len(first.asked[0]) == 3
        cursor = result.cursor
        validity = cursor.partition(":")[0]
        nothing = Asked(set())
        for _ in range(4):
            again = await mail.fetch(cursor, nothing)
            counts.append(len(again.packets))
            threads.append(await mail._in_thread(threading.get_ident))
        assert nothing.asked == []  # no new UID: nothing to look up
        deliver(admin, box, packet_mail(mail_stack, packet, "new"), packet_mail(mail_stack, packet))
        one_known = Asked({f"{validity}:4"})
        last = await mail.fetch(cursor, one_known)
        assert one_known.asked == [[f"{validity}:4", f"{validity}:5"]]
        counts.append(len(last.packets))
        await mail.close()
        return counts

    assert asyncio.run(rounds()) == [3, 0, 0, 0, 0, 1]
    assert len(set(threads)) == 1


def test_a_fetch_streams_a_small_first_batch_then_full_ones(
    mail_stack: MailStack,
    admin: IMAPClient,  # noqa: F811
    box: str,  # noqa: F811
) -> None:
    """The first batch is small, so taking packets in starts early; the rest come by
    `mail.imap.FETCH_BATCH`, each downloaded while the one before is taken in."""
    admin.multiappend(box, [tiny_packet_mail(n) for n in range(250)])
    mail = transport(mail_stack, box)

    async def sizes() -> list[int]:
        _, batches = await mail.fetch_stream("", Asked(set()))
        got = [len(batch) async for batch in batches]
        await mail.close()
        return got

    assert FIRST_BATCH < FETCH_BATCH
    first = FIRST_BATCH
    assert asyncio.run(sizes()) == [first, 100, 100, 250 - first - 200]
