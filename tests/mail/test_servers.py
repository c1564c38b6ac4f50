"""Smoke tests of the real mail stack the integration tests run on (tests/mail/servers.py)."""

from __future__ import annotations

import contextlib
import email
import email.policy
import ssl
import time
import uuid
from email.message import EmailMessage

import aiosmtplib
import pytest
from imapclient import IMAPClient
from imapclient.exceptions import LoginError

from tests.mail.servers import MailStack


def message(stack: MailStack, sender: str, recipient: str) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = stack.address(sender)
    msg["To"] = stack.address(recipient)
    msg["Subject"] = "hexpost stack smoke test"
    msg["Message-ID"] = f"<{uuid.uuid4().hex}@hexpost.test>"
    msg.set_content("Turn 1 orders follow.\n")
    return msg


async def send(stack: MailStack, msg: EmailMessage, user: str, password: str) -> None:
    await aiosmtplib.send(
        msg,
        hostname=stack.host,
        port=stack.smtp_port,
        start_tls=True,
        tls_context=stack.ssl_context(),
        username=user,
        password=password,
        timeout=10,
    )


def imap(stack: MailStack, *, implicit_tls: bool) -> IMAPClient:
    if implicit_tls:
        return IMAPClient(
            stack.host, stack.imaps_port, ssl=True, ssl_context=stack.ssl_context(), timeout=10
        )
    client = IMAPClient(stack.host, stack.imap_port, ssl=False, timeout=10)
    client.starttls(ssl_context=stack.ssl_context())
    return client


def find_uid(client: IMAPClient, message_id: str, timeout: float = 5.0) -> int:
    """The UID of the message with `message_id` in the selected folder, polling until it shows."""
    deadline = time.monotonic() + timeout
    while True:
        uids = client.search(["HEADER", "Message-ID", message_id])
        if uids:
            assert len(uids) == 1
            return int(uids[0])
        if time.monotonic() > deadline:
            raise AssertionError(f"{message_id} never arrived")
        time.sleep(0.02)
        client.noop()


async def test_alice_sends_bob_reads_over_implicit_tls_and_starttls(mail_stack: MailStack) -> None:
    msg = message(mail_stack, "alice", "bob")
    await send(mail_stack, msg, "alice", mail_stack.password("alice"))

    for implicit_tls in (True, False):
        with imap(mail_stack, implicit_tls=implicit_tls) as client:
            client.login("bob", mail_stack.password("bob"))
            client.select_folder("INBOX")
            uid = find_uid(client, msg["Message-ID"])
            fetched = client.fetch([uid], [b"BODY.PEEK[]", b"FLAGS"])[uid]
            got = email.message_from_bytes(fetched[b"BODY[]"], policy=email.policy.default)
            assert got["Message-ID"] == msg["Message-ID"]
            assert got["From"] == "alice@localhost"
            assert got.get_content().splitlines() == ["Turn 1 orders follow."]
            assert b"\\Seen" not in fetched[b"FLAGS"]  # BODY.PEEK[] leaves \Seen alone


async def test_smtp_refuses_wrong_password_and_no_auth(mail_stack: MailStack) -> None:
    msg = message(mail_stack, "alice", "bob")
    with pytest.raises(aiosmtplib.SMTPAuthenticationError) as refused:
        await send(mail_stack, msg, "alice", "not-the-password")
    assert refused.value.code == 535

    with pytest.raises(aiosmtplib.SMTPResponseException) as unauthenticated:
        await aiosmtplib.send(
            msg,
            hostname=mail_stack.host,
            port=mail_stack.smtp_port,
            start_tls=True,
            tls_context=mail_stack.ssl_context(),
            timeout=10,
        )
    assert unauthenticated.value.code == 530


@pytest.mark.parametrize("implicit_tls", [True, False], ids=["imaps", "starttls"])
def test_imap_refuses_wrong_password(mail_stack: MailStack, implicit_tls: bool) -> None:
    with imap(mail_stack, implicit_tls=implicit_tls) as client, pytest.raises(LoginError):
        client.login("bob", "not-the-password")


def test_imap_client_without_the_ca_refuses_the_certificate(mail_stack: MailStack) -> None:
    with pytest.raises(ssl.SSLCertVerificationError):
        IMAPClient(
            mail_stack.host,
            mail_stack.imaps_port,
            ssl=True,
            ssl_context=ssl.create_default_context(),
            timeout=10,
        )
    client = IMAPClient(mail_stack.host, mail_stack.imap_port, ssl=False, timeout=10)
    try:
        with pytest.raises(ssl.SSLCertVerificationError):
            client.starttls(ssl_context=ssl.create_default_context())
    finally:
        with contextlib.suppress(OSError):  # the failed handshake may have closed it already
            client.shutdown()


async def test_smtp_client_without_the_ca_refuses_the_certificate(mail_stack: MailStack) -> None:
    with pytest.raises(ssl.SSLCertVerificationError):
        await aiosmtplib.send(
            message(mail_stack, "alice", "bob"),
            hostname=mail_stack.host,
            port=mail_stack.smtp_port,
            start_tls=True,
            tls_context=ssl.create_default_context(),
            username="alice",
            password=mail_stack.password("alice"),
            timeout=10,
        )


def test_imap_requires_starttls_on_the_starttls_host(mail_stack: MailStack) -> None:
    """On 127.0.0.2 Dovecot does not count the connection as secured (its two ends differ), so
    it refuses a login before STARTTLS; after STARTTLS the certificate matches that address."""
    host, port = mail_stack.imap_starttls_host, mail_stack.imap_port
    with IMAPClient(host, port, ssl=False, timeout=10) as client:
        assert client.has_capability("STARTTLS")
        assert client.has_capability("LOGINDISABLED")
        with pytest.raises(LoginError, match="PRIVACYREQUIRED"):
            client.login("bob", mail_stack.password("bob"))
    with IMAPClient(host, port, ssl=False, timeout=10) as client:
        client.starttls(ssl_context=mail_stack.ssl_context())
        client.login("bob", mail_stack.password("bob"))


def test_imap_offers_no_starttls_on_the_no_tls_host(mail_stack: MailStack) -> None:
    """127.0.0.3 is the server a client that requires STARTTLS must refuse: none offered, and a
    login in clear would be accepted."""
    with IMAPClient(
        mail_stack.imap_no_tls_host, mail_stack.imap_port, ssl=False, timeout=10
    ) as client:
        assert not client.has_capability("STARTTLS")
        client.login("bob", mail_stack.password("bob"))
