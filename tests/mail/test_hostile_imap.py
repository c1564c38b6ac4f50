"""Hostile email through the real test Dovecot: one stranger's email cannot stop a fetch.

The structure of every new message is fetched (BODYSTRUCTURE) and parsed by imapclient before
hexpost looks at it, so deeply nested and many-part emails reach `mail.imap` as the server
describes them; each packet email found is then read by `mail.mime`. A fetch over a folder
holding every hostile email next to a real packet email must return all of them, the packet
readable and the others handed up as unreadable (so that they are recorded and not read
again).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from imapclient import IMAPClient

from engine.core.packets import VerifiedPacket
from mail import imap
from mail.accounts import ImapConfig
from mail.mailtransport import _incoming
from mail.mime import build_message, make_message_id
from mail.transport import OutgoingPacket
from tests.engine.table import Table
from tests.engine.toy import TOY, Say
from tests.mail.hostile import HOSTILE
from tests.mail.servers import MailStack

KINDS = [
    "500 nested multiparts",
    "500 nested forwards",
    "tiny packet parts",
    "1 MiB header line",
    "dashes",
    "<script repeated",
]
"""The hostile emails that reach the server's MIME parser in the most different ways."""


@pytest.fixture
def box(mail_stack: MailStack) -> Iterator[tuple[IMAPClient, str]]:
    with IMAPClient(
        mail_stack.host,
        mail_stack.imaps_port,
        ssl=True,
        ssl_context=mail_stack.ssl_context(),
        timeout=30,
    ) as client:
        client.login("bob", mail_stack.password("bob"))
        name = f"t-{uuid.uuid4().hex[:12]}"
        client.create_folder(name)
        yield client, name


def packet_mail(packet: VerifiedPacket) -> bytes:
    out = OutgoingPacket(
        game_id=packet.body.game_id,
        seq=packet.body.seq,
        packet_id=packet.packet_id,
        data=packet.data,
        to=("bob@localhost",),
    )
    return build_message(
        out,
        sender="alice@localhost",
        subject="hexpost among hostile mail",
        message_id=make_message_id(uuid.uuid4().bytes, "localhost"),
        date=datetime.now(UTC),
    )


@pytest.mark.timeout(120)
def test_a_fetch_over_hostile_mail_hands_every_packet_mail_up(
    mail_stack: MailStack, box: tuple[IMAPClient, str]
) -> None:
    admin, name = box
    table = Table(TOY, "duel", ["north", "south"], label="hostile-imap")
    table.orders("north", Say("hold the ford"))
    packet = table.packets[-1]
    hostile = [HOSTILE[kind](imap.MAX_MAIL_BYTES - 64 * 1024) for kind in KINDS]
    for raw in [*hostile[:3], packet_mail(packet), *hostile[3:]]:
        admin.append(name, raw)
    config = ImapConfig(
        host=mail_stack.host,
        port=mail_stack.imaps_port,
        security="tls",
        username="bob",
        ca_file=str(mail_stack.ca_file),
        timeout=30.0,
        password_env="UNUSED",
        folder=name,
    )
    with imap.ImapFolder.open(config, mail_stack.password("bob")) as folder:
        found, cursor = folder.fetch_new("", set())
    assert cursor.endswith(":7")
    # The header (or, for the 1 MiB header line, the armour marker search) marks every one.
    assert len(found) == 7
    handed = [item for item in map(_incoming, found) if item is not None]
    assert len(handed) == 7  # (each bears a mark of ours: none is dropped as foreign)
    readable = [p for p in handed if p.data == packet.data]
    assert len(readable) == 1
    assert all(len(p.data) <= 64 * 1024 for p in handed if p is not readable[0])
