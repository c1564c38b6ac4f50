"""imaplib's protocol trace is off on hexpost's IMAP connections unless someone listens to it.

imapclient turns imaplib's trace on at its highest level on every connection (debug 5) and
sends it to the ``imapclient.imaplib`` logger. At that level imaplib formats a message per line
read and a ``repr`` of every downloaded message, shown or not: half of the CPU time of
downloading packet mail (`mail.imap._quiet`). These tests, against the real test Dovecot,
check that a connection opened with that logger silent downloads the same mail with the trace
off, and that a logger enabled for DEBUG still gets the whole trace.
"""

from __future__ import annotations

import logging
import os
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from imapclient import IMAPClient

from engine.core.packets import VerifiedPacket
from mail.imap import ImapFolder
from mail.mime import build_message, make_message_id
from mail.transport import OutgoingPacket
from tests.engine.table import Table
from tests.engine.toy import TOY, Say
from tests.mail.servers import MailStack
from tests.mail.test_imap import config

TRACE = "imapclient.imaplib"
MAILS = 5


@pytest.fixture(scope="module")
def packet() -> VerifiedPacket:
    table = Table(TOY, "duel", ["north", "south"], label="trace")
    table.orders("north", Say("hold the ford"))
    return table.packets[-1]


@pytest.fixture
def box(mail_stack: MailStack, packet: VerifiedPacket) -> Iterator[str]:
    """A fresh folder of bob's holding `MAILS` emails of the packet (each its own Message-ID)."""
    name = f"t-{uuid.uuid4().hex[:12]}"
    with IMAPClient(
        mail_stack.host, mail_stack.imaps_port, ssl_context=mail_stack.ssl_context(), timeout=10
    ) as admin:
        admin.login("bob", mail_stack.password("bob"))
        admin.create_folder(name)
        for n in range(MAILS):
            outgoing = OutgoingPacket(
                game_id=packet.body.game_id,
                seq=packet.body.seq,
                packet_id=packet.packet_id,
                data=packet.data,
                to=(mail_stack.address("bob"),),
            )
            raw = build_message(
                outgoing,
                sender=mail_stack.address("alice"),
                subject=f"trace {n}",
                message_id=make_message_id(os.urandom(12), mail_stack.domain),
                date=datetime.now(UTC),
            )
            admin.append(name, raw)
        yield name


def download(stack: MailStack, box: str) -> tuple[int, list[bytes]]:
    """The trace level of a fresh connection and every packet email it downloads."""
    with ImapFolder.open(config(stack, box), stack.password("bob")) as folder:
        level = folder._client._imap.debug
        found, _ = folder.fetch_new("", ())
    return level, [mail.raw for mail in found]


def test_a_connection_nobody_traces_downloads_the_same_mail_without_the_trace(
    mail_stack: MailStack, box: str, caplog: pytest.LogCaptureFixture
) -> None:
    assert not logging.getLogger(TRACE).isEnabledFor(logging.DEBUG)
    quiet_level, quiet = download(mail_stack, box)
    with caplog.at_level(logging.DEBUG, logger=TRACE):
        traced_level, traced = download(mail_stack, box)
    assert quiet_level == 0, "imaplib still formats its whole trace for nobody"
    assert traced_level == 5
    assert len(quiet) == MAILS and quiet == traced


def test_a_logger_enabled_for_debug_still_gets_the_whole_trace(
    mail_stack: MailStack, box: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.DEBUG, logger=TRACE):
        level, found = download(mail_stack, box)
    assert level == 5 and len(found) == MAILS
    lines = [record.getMessage() for record in caplog.records if record.name == TRACE]
    assert any("UID FETCH" in line and "BODY.PEEK[]" in line for line in lines)
    assert any("read literal size" in line for line in lines)  # each message as it arrives
