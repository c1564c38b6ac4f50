"""mail.imap against the real test Dovecot: logins, what is fetched and what is left alone.

Each test works in a folder of its own (bob's mailbox is shared by the whole session), delivered
to with IMAP APPEND from a second connection.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from email.message import EmailMessage
from typing import Any

import pytest
from imapclient import IMAPClient

from engine.core.packets import VerifiedPacket
from mail.accounts import ImapConfig
from mail.imap import FETCH_BATCH, FetchError, ImapFolder
from mail.imapcheck import check_login
from mail.mime import HEADER, PACKET_TYPE, armor, build_message, make_message_id, read_message
from mail.transport import OutgoingPacket
from tests.engine.table import Table
from tests.engine.toy import TOY, Say
from tests.mail.servers import MailStack, free_ports

PASSWORD_ENV = "HEXPOST_TEST_IMAP_PASSWORD"


@pytest.fixture(scope="module")
def packet() -> VerifiedPacket:
    table = Table(TOY, "duel", ["north", "south"], label="imap")
    table.orders("north", Say("hold the ford"))
    return table.packets[-1]


@pytest.fixture
def admin(mail_stack: MailStack) -> Iterator[IMAPClient]:
    """Bob's mailbox seen by another client: delivers, inspects flags, lists folders."""
    with IMAPClient(
        mail_stack.host,
        mail_stack.imaps_port,
        ssl=True,
        ssl_context=mail_stack.ssl_context(),
        timeout=10,
    ) as client:
        client.login("bob", mail_stack.password("bob"))
        yield client


@pytest.fixture
def box(admin: IMAPClient) -> str:
    """A fresh folder of bob's for this test alone."""
    name = f"t-{uuid.uuid4().hex[:12]}"
    admin.create_folder(name)
    return name


def config(stack: MailStack, folder: str = "INBOX", **kw: Any) -> ImapConfig:
    fields: dict[str, Any] = {
        "host": stack.host,
        "port": stack.imaps_port,
        "security": "tls",
        "username": "bob",
        "ca_file": str(stack.ca_file),
        "timeout": 5.0,
        "password_env": PASSWORD_ENV,
        "folder": folder,
    }
    fields.update(kw)
    return ImapConfig(**fields)


def open_box(stack: MailStack, folder: str, **kw: Any) -> ImapFolder:
    return ImapFolder.open(config(stack, folder, **kw), stack.password("bob"))


def packet_mail(stack: MailStack, packet: VerifiedPacket, note: str = "") -> bytes:
    """A real packet email from alice to bob with a fresh Message-ID."""
    outgoing = OutgoingPacket(
        game_id=packet.body.game_id,
        seq=packet.body.seq,
        packet_id=packet.packet_id,
        data=packet.data,
        to=(stack.address("bob"),),
    )
    return build_message(
        outgoing,
        sender=stack.address("alice"),
        subject=f"hexpost imap test {note}",
        message_id=make_message_id(os.urandom(12), stack.domain),
        date=datetime.now(UTC),
        summary=[note] if note else [],
    )


def foreign_mail(note: str = "", *, attachment: bytes | None = None, pad: int = 0) -> bytes:
    """Mail that has nothing to do with hexpost (maybe with a PDF attached, maybe big)."""
    msg = EmailMessage()
    msg["From"] = "carol@example.org"
    msg["To"] = "bob@localhost"
    msg["Subject"] = f"lunch on Friday? {note}"
    msg["Message-ID"] = f"<{uuid.uuid4().hex}@example.org>"
    msg.set_content("Shall we meet at noon?\n" + "blah " * pad)
    if attachment is not None:
        msg.add_attachment(attachment, maintype="application", subtype="pdf", filename="menu.pdf")
    return msg.as_bytes()


def tiny_packet_mail(index: int) -> bytes:
    """Bytes that pass for packet mail (the header is there), for tests of routing only."""
    return (
        f"From: alice@localhost\r\nTo: bob@localhost\r\nSubject: packet {index}\r\n"
        f"Message-ID: <{uuid.uuid4().hex}@localhost>\r\n{HEADER}: game={'ab' * 16}; "
        f"seq={index}\r\n\r\npacket {index}\r\n"
    ).encode()


def deliver(admin: IMAPClient, folder: str, *messages: bytes) -> None:
    for raw in messages:
        admin.append(folder, raw)


def flags(admin: IMAPClient, folder: str) -> dict[int, set[bytes]]:
    """The flags of every message of ``folder`` by UID, but ``\\Recent`` (which only says what
    session saw a message first)."""
    admin.select_folder(folder, readonly=True)
    try:
        uids = admin.search("ALL")
        return {
            uid: set(data[b"FLAGS"]) - {b"\\Recent"}
            for uid, data in admin.fetch(uids, [b"FLAGS"]).items()
        }
    finally:
        admin.unselect_folder()


@pytest.fixture(autouse=True)
def password(mail_stack: MailStack, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(PASSWORD_ENV, mail_stack.password("bob"))


# --- connecting ----------------------------------------------------------------------------


def test_implicit_tls_and_required_starttls_log_in(mail_stack: MailStack, box: str) -> None:
    for kw in (
        {},
        {
            "host": mail_stack.imap_starttls_host,
            "port": mail_stack.imap_port,
            "security": "starttls",
        },
    ):
        with open_box(mail_stack, box, **kw) as folder:
            assert folder.uidvalidity > 0
            assert folder.fetch_new("", ()) == ([], f"{folder.uidvalidity}:0")


def test_starttls_is_required_where_the_server_does_not_offer_it(
    mail_stack: MailStack, box: str
) -> None:
    where = {"host": mail_stack.imap_no_tls_host, "port": mail_stack.imap_port}
    with pytest.raises(FetchError) as refused:
        open_box(mail_stack, box, security="starttls", **where)
    assert refused.value.retryable is False
    assert f"{mail_stack.imap_no_tls_host}:{mail_stack.imap_port} does not offer STARTTLS" in str(
        refused.value
    )
    # The same listener takes a login in clear: refusing it was the client's own decision.
    with open_box(mail_stack, box, security="plain", **where) as folder:
        assert folder.uidvalidity > 0


def test_a_login_in_clear_is_refused_where_the_server_requires_tls(
    mail_stack: MailStack, box: str
) -> None:
    with pytest.raises(FetchError) as refused:
        open_box(
            mail_stack,
            box,
            host=mail_stack.imap_starttls_host,
            port=mail_stack.imap_port,
            security="plain",
        )
    assert refused.value.retryable is False
    assert "refuses a login without encryption" in str(refused.value)


def test_plain_is_refused_for_a_host_that_is_not_loopback(mail_stack: MailStack) -> None:
    with pytest.raises(FetchError, match="loopback") as refused:
        open_box(mail_stack, "INBOX", host="imap.example.org", port=143, security="plain")
    assert refused.value.retryable is False


@pytest.mark.parametrize("security", ["tls", "starttls"])
def test_wrong_password_is_refused_and_not_retryable(mail_stack: MailStack, security: str) -> None:
    kw: dict[str, Any] = {"security": security}
    if security == "starttls":
        kw.update(host=mail_stack.imap_starttls_host, port=mail_stack.imap_port)
    with pytest.raises(FetchError) as refused:
        ImapFolder.open(config(mail_stack, **kw), "not-the-password")
    text = str(refused.value)
    assert refused.value.retryable is False
    assert f"the IMAP server {kw.get('host', mail_stack.host)}:" in text
    assert "refused the login for bob" in text
    assert f"from the environment variable {PASSWORD_ENV}" in text


def test_a_refused_oauth2_token_names_its_source(mail_stack: MailStack) -> None:
    cfg = config(mail_stack, password_env=None, oauth2_command="print-token")
    with pytest.raises(FetchError) as refused:
        ImapFolder.open(cfg, "ya29.not-a-token")
    assert refused.value.retryable is False
    assert "oauth2_command (is the token expired?)" in str(refused.value)


@pytest.mark.parametrize("security", ["tls", "starttls"])
def test_without_the_ca_file_the_certificate_is_refused(
    mail_stack: MailStack, security: str
) -> None:
    kw: dict[str, Any] = {"security": security, "ca_file": None}
    if security == "starttls":
        kw.update(host=mail_stack.imap_starttls_host, port=mail_stack.imap_port)
    with pytest.raises(FetchError) as refused:
        open_box(mail_stack, "INBOX", **kw)
    assert refused.value.retryable is False
    assert "is not trusted" in str(refused.value)
    assert "set ca_file" in str(refused.value)


def test_a_missing_folder_is_named(mail_stack: MailStack) -> None:
    with pytest.raises(FetchError) as refused:
        open_box(mail_stack, "no-such-folder")
    assert refused.value.retryable is False
    assert "'no-such-folder'" in str(refused.value)


def test_a_closed_port_is_retryable(mail_stack: MailStack) -> None:
    (port,) = free_ports(1)
    with pytest.raises(FetchError) as refused:
        open_box(mail_stack, "INBOX", port=port)
    assert refused.value.retryable is True
    assert f"{mail_stack.host}:{port} refused the connection: is the server up" in str(
        refused.value
    )


def test_check_login_says_who_and_how_many(
    mail_stack: MailStack, admin: IMAPClient, box: str
) -> None:
    deliver(admin, box, foreign_mail("1"), foreign_mail("2"), foreign_mail("3"))
    cfg = config(
        mail_stack,
        box,
        host=mail_stack.imap_starttls_host,
        port=mail_stack.imap_port,
        security="starttls",
    )
    assert check_login(cfg, mail_stack.password("bob")) == (
        f"IMAP {mail_stack.imap_starttls_host}:{mail_stack.imap_port} (starttls): "
        f"logged in as bob, folder {box} has 3 messages"
    )


# --- fetching ------------------------------------------------------------------------------


def test_fetch_is_incremental(
    mail_stack: MailStack, admin: IMAPClient, box: str, packet: VerifiedPacket
) -> None:
    first, second = packet_mail(mail_stack, packet, "one"), packet_mail(mail_stack, packet, "two")
    deliver(admin, box, first, second)
    with open_box(mail_stack, box) as folder:
        found, cursor = folder.fetch_new("", ())
        uv = folder.uidvalidity
        assert [(m.uid, m.ref) for m in found] == [(1, f"{uv}:1"), (2, f"{uv}:2")]
        assert [m.raw.replace(b"\r\n", b"\n") for m in found] == [
            first.replace(b"\r\n", b"\n"),
            second.replace(b"\r\n", b"\n"),
        ]
        read = read_message(found[0].raw)
        assert read is not None and read.candidates[0] == packet.data
        assert cursor == f"{uv}:2"
        assert folder.fetch_new(cursor, ()) == ([], cursor)

        third = packet_mail(mail_stack, packet, "three")
        deliver(admin, box, third)
        found, cursor = folder.fetch_new(cursor, ())
        assert [m.uid for m in found] == [3]
        assert cursor == f"{uv}:3"


def test_a_cursor_past_the_last_uid_finds_nothing(
    mail_stack: MailStack, admin: IMAPClient, box: str
) -> None:
    """`UID SEARCH UID 3:*` answers UID 2 when 2 is the highest: it must not come back."""
    deliver(admin, box, tiny_packet_mail(1), tiny_packet_mail(2))
    with open_box(mail_stack, box) as folder:
        uv = folder.uidvalidity
        assert folder._client.search(["UID", "3:*"]) == [2]  # the server's answer...
        assert folder.fetch_new(f"{uv}:2", ()) == ([], f"{uv}:2")  # ...filtered out
        assert folder.fetch_new(f"{uv}:1000", ()) == ([], f"{uv}:1000")


def test_seen_refs_are_not_downloaded_again(
    mail_stack: MailStack, admin: IMAPClient, box: str
) -> None:
    deliver(admin, box, *(tiny_packet_mail(i) for i in range(4)))
    with open_box(mail_stack, box) as folder:
        uv = folder.uidvalidity
        found, cursor = folder.fetch_new("", {f"{uv}:1", f"{uv}:3"})
        assert [m.uid for m in found] == [2, 4]
        assert cursor == f"{uv}:4"


def test_foreign_mail_is_not_returned_nor_marked_read_nor_downloaded(
    mail_stack: MailStack,
    admin: IMAPClient,
    box: str,
    packet: VerifiedPacket,
    caplog: pytest.LogCaptureFixture,
) -> None:
    deliver(
        admin,
        box,
        foreign_mail("plain"),
        packet_mail(mail_stack, packet, "ours"),
        foreign_mail("with a pdf", attachment=b"%PDF-1.4 " + os.urandom(3000)),
        foreign_mail("mentions hexpost in the subject and .hexpost files in the text"),
    )
    before = flags(admin, box)
    with (
        caplog.at_level(logging.DEBUG, logger="imapclient.imaplib"),
        open_box(mail_stack, box) as folder,
    ):
        found, cursor = folder.fetch_new("", ())
        assert [m.uid for m in found] == [2]
        assert cursor == f"{folder.uidvalidity}:4"
    after = flags(admin, box)
    assert after == before
    assert all(b"\\Seen" not in f for f in after.values())
    # imapclient logs each command it sends: the only whole download was the packet mail's.
    whole = [r.getMessage() for r in caplog.records if "BODY.PEEK[]" in r.getMessage()]
    assert len(whole) == 1 and "UID FETCH 2 (BODY.PEEK[])" in whole[0]


def test_a_pasted_armoured_block_without_header_or_attachment_is_found(
    mail_stack: MailStack, admin: IMAPClient, box: str, packet: VerifiedPacket
) -> None:
    msg = EmailMessage()
    msg["From"] = "alice@localhost"
    msg["To"] = "bob@localhost"
    msg["Subject"] = "Fwd: my move"
    msg.set_content("Here it is again:\n\n" + armor(packet.data, packet.packet_id) + "\n")
    deliver(admin, box, foreign_mail(), msg.as_bytes(), foreign_mail())
    with open_box(mail_stack, box) as folder:
        (found,), _ = folder.fetch_new("", ())
    assert found.uid == 2
    read = read_message(found.raw)
    assert read is not None and read.candidates == (packet.data,)


def test_an_attachment_without_the_header_is_found_by_its_type_or_name(
    mail_stack: MailStack, admin: IMAPClient, box: str, packet: VerifiedPacket
) -> None:
    by_type, by_name = EmailMessage(), EmailMessage()
    for msg in (by_type, by_name):
        msg["From"] = "alice@localhost"
        msg["Subject"] = "attached"
        msg.set_content("see attached")
    maintype, subtype = PACKET_TYPE.split("/")
    by_type.add_attachment(packet.data, maintype=maintype, subtype=subtype, filename="x.bin")
    by_name.add_attachment(
        packet.data, maintype="application", subtype="octet-stream", filename="move.hexpost"
    )
    deliver(admin, box, by_type.as_bytes(), foreign_mail(), by_name.as_bytes())
    with open_box(mail_stack, box) as folder:
        found, _ = folder.fetch_new("", ())
    assert [m.uid for m in found] == [1, 3]


def test_oversized_packet_mail_is_skipped_but_the_cursor_moves_past_it(
    mail_stack: MailStack, admin: IMAPClient, box: str, packet: VerifiedPacket
) -> None:
    small = packet_mail(mail_stack, packet, "small")
    big = packet_mail(mail_stack, packet, "big " + "x" * 20_000)
    deliver(admin, box, small, big)
    with open_box(mail_stack, box) as folder:
        found, cursor = folder.fetch_new("", (), max_bytes=len(small) + 1000)
        assert [m.uid for m in found] == [1]
        assert cursor == f"{folder.uidvalidity}:2"
        assert folder.fetch_new(cursor, (), max_bytes=len(small) + 1000) == ([], cursor)


def test_many_messages_come_in_batches_in_uid_order(
    mail_stack: MailStack, admin: IMAPClient, box: str
) -> None:
    messages = [foreign_mail(str(i)) if i % 5 == 4 else tiny_packet_mail(i) for i in range(250)]
    admin.multiappend(box, messages)
    assert FETCH_BATCH == 100
    with open_box(mail_stack, box) as folder:
        found, cursor = folder.fetch_new("", (), batch=FETCH_BATCH)
        assert cursor == f"{folder.uidvalidity}:250"
    assert [m.uid for m in found] == [i + 1 for i in range(250) if i % 5 != 4]
    assert all(f"Subject: packet {m.uid - 1}\r\n".encode() in m.raw for m in found)


def test_a_new_uidvalidity_reads_the_folder_again(
    mail_stack: MailStack, admin: IMAPClient, box: str
) -> None:
    deliver(admin, box, tiny_packet_mail(1), foreign_mail(), tiny_packet_mail(2))
    with open_box(mail_stack, box) as folder:
        old = folder.uidvalidity
        found, cursor = folder.fetch_new("", ())
        assert [m.ref for m in found] == [f"{old}:1", f"{old}:3"]
    new = old + 1000
    mail_stack.doveadm("mailbox", "update", "--uid-validity", str(new), "-u", "bob", box)
    with open_box(mail_stack, box) as folder:
        assert folder.uidvalidity == new
        again, cursor = folder.fetch_new(cursor, {f"{old}:1", f"{old}:3"})
        assert [m.ref for m in again] == [f"{new}:1", f"{new}:3"]
        assert [m.raw for m in again] == [m.raw for m in found]
        assert cursor == f"{new}:3"


# --- moving --------------------------------------------------------------------------------


@pytest.mark.parametrize("by_copy", [False, True], ids=["move", "copy-expunge"])
def test_processed_packet_mail_moves_and_foreign_mail_stays(
    mail_stack: MailStack, admin: IMAPClient, box: str, by_copy: bool
) -> None:
    deliver(admin, box, tiny_packet_mail(1), foreign_mail(), tiny_packet_mail(2))
    processed = f"{box}-done"
    with open_box(mail_stack, box) as folder:
        found, _ = folder.fetch_new("", ())
        uids = [m.uid for m in found]
        if by_copy:  # the way for servers without MOVE (Dovecot has it)
            folder._ensure_folder(processed)
            folder._move_by_copy(uids, processed)
        else:
            folder.move(uids, processed)
        assert folder.fetch_new("", ()) == ([], f"{folder.uidvalidity}:2")
    assert admin.folder_exists(processed)
    assert list(flags(admin, box)) == [2]
    assert len(flags(admin, processed)) == 2
    admin.select_folder(box, readonly=True)
    subject = admin.fetch([2], [b"BODY.PEEK[HEADER.FIELDS (SUBJECT)]"])[2]
    assert b"lunch on Friday" in subject[b"BODY[HEADER.FIELDS (SUBJECT)]"]


def test_moving_into_an_existing_folder_and_nothing(
    mail_stack: MailStack, admin: IMAPClient, box: str
) -> None:
    processed = f"{box}-done"
    admin.create_folder(processed)
    deliver(admin, box, tiny_packet_mail(1))
    with open_box(mail_stack, box) as folder:
        folder.move([], processed)
        folder.move([1], processed)
    assert len(flags(admin, processed)) == 1


# --- waiting -------------------------------------------------------------------------------


def test_idle_wakes_up_on_new_mail_and_times_out_without(
    mail_stack: MailStack, admin: IMAPClient, box: str
) -> None:
    with open_box(mail_stack, box) as folder:
        assert folder.has_idle()
        started = time.monotonic()
        assert folder.idle(0.5) is False
        assert 0.5 <= time.monotonic() - started < 2.0

        timer = threading.Timer(0.3, deliver, (admin, box, tiny_packet_mail(1)))
        timer.start()
        try:
            started = time.monotonic()
            assert folder.idle(20) is True
            waited = time.monotonic() - started
        finally:
            timer.join()
        assert waited < 5.0
        found, _ = folder.fetch_new("", ())  # the IDLE is over: the connection works again
        assert [m.uid for m in found] == [1]
        folder.noop()


def test_idle_waits_through_keepalives(mail_stack: MailStack, box: str) -> None:
    """Dovecot sends '* OK Still here' while idling (every imap_idle_notify_interval = 1 s
    here); that is no news."""
    with open_box(mail_stack, box) as folder:
        started = time.monotonic()
        assert folder.idle(2.5) is False
        assert time.monotonic() - started >= 2.5


def test_idle_on_a_connection_the_server_drops_is_a_retryable_error(
    mail_stack: MailStack, box: str
) -> None:
    with open_box(mail_stack, box) as folder:
        kick = threading.Timer(0.3, mail_stack.doveadm, ("kick", "bob"))
        kick.start()
        try:
            started = time.monotonic()
            with pytest.raises(FetchError) as dropped:
                folder.idle(20)
        finally:
            kick.join()
        assert time.monotonic() - started < 5.0
    assert dropped.value.retryable is True
    assert "lost the connection while waiting (IDLE) for new mail" in str(dropped.value)
