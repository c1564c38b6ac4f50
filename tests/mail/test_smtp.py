"""mail.smtp against the real test servers: aiosmtpd (STARTTLS + AUTH) relaying to Dovecot."""

from __future__ import annotations

import base64
import os
import socket
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, AuthResult, Envelope, Session
from imapclient import IMAPClient

from engine.core.packets import VerifiedPacket
from mail.accounts import SmtpConfig
from mail.mime import build_message, make_message_id, read_message
from mail.smtp import SendError, check_login, classify, send_message
from mail.transport import OutgoingPacket
from tests.engine.table import Table
from tests.engine.toy import TOY, Say
from tests.mail.servers import HOST, MailStack, free_ports

PASSWORD_ENV = "HEXPOST_TEST_SMTP_PASSWORD"


@pytest.fixture(scope="module")
def packet() -> VerifiedPacket:
    table = Table(TOY, "duel", ["north", "south"], label="smtp")
    table.orders("north", Say("hold the line"))
    return table.packets[-1]


def config(stack: MailStack, **kw: Any) -> SmtpConfig:
    fields: dict[str, Any] = {
        "host": stack.host,
        "port": stack.smtp_port,
        "security": "starttls",
        "username": "alice",
        "ca_file": str(stack.ca_file),
        "timeout": 5.0,
        "password_env": PASSWORD_ENV,
    }
    fields.update(kw)
    return SmtpConfig(**fields)


def email(stack: MailStack, packet: VerifiedPacket) -> tuple[str, bytes]:
    """A fresh Message-ID and the packet email carrying it, from alice to bob."""
    message_id = make_message_id(os.urandom(12), stack.domain)
    outgoing = OutgoingPacket(
        game_id=packet.body.game_id,
        seq=packet.body.seq,
        packet_id=packet.packet_id,
        data=packet.data,
        to=(stack.address("bob"),),
    )
    raw = build_message(
        outgoing,
        sender=f"Alice <{stack.address('alice')}>",
        subject=f"hexpost smtp test {message_id}",
        message_id=message_id,
        date=datetime.now(UTC),
        summary=["North holds the line."],
    )
    return message_id, raw


def fetch(stack: MailStack, message_id: str, timeout: float) -> bytes | None:
    """Bob's copy of the message with `message_id`, polling up to `timeout` seconds."""
    deadline = time.monotonic() + timeout
    with IMAPClient(
        stack.host, stack.imaps_port, ssl=True, ssl_context=stack.ssl_context(), timeout=10
    ) as client:
        client.login("bob", stack.password("bob"))
        client.select_folder("INBOX", readonly=True)
        while True:
            uids = client.search(["HEADER", "Message-ID", message_id])
            if uids:
                assert len(uids) == 1
                data = client.fetch(uids, ["BODY.PEEK[]"])[uids[0]][b"BODY[]"]
                assert isinstance(data, bytes)
                return data
            if time.monotonic() > deadline:
                return None
            time.sleep(0.02)
            client.noop()


@pytest.fixture
def alice_password(mail_stack: MailStack, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(PASSWORD_ENV, mail_stack.password("alice"))


async def send(stack: MailStack, smtp: SmtpConfig, raw: bytes, **kw: Any) -> None:
    await send_message(smtp, stack.address("alice"), [stack.address("bob")], raw, **kw)


@pytest.mark.usefixtures("alice_password")
async def test_starttls_send_arrives_in_bobs_inbox_with_the_packet(
    mail_stack: MailStack, packet: VerifiedPacket
) -> None:
    message_id, raw = email(mail_stack, packet)
    await send(mail_stack, config(mail_stack), raw)
    arrived = fetch(mail_stack, message_id, timeout=5)
    assert arrived is not None, "the message never reached bob's INBOX"
    read = read_message(arrived)
    assert read is not None
    assert read.message_id == message_id
    assert packet.data in read.candidates
    assert read.game_id == packet.body.game_id


@pytest.mark.usefixtures("alice_password")
async def test_an_explicit_secret_is_used_instead_of_the_source(
    mail_stack: MailStack, packet: VerifiedPacket, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(PASSWORD_ENV)
    message_id, raw = email(mail_stack, packet)
    await send(mail_stack, config(mail_stack), raw, secret=mail_stack.password("alice"))
    assert fetch(mail_stack, message_id, timeout=5) is not None


async def test_wrong_password_is_refused_and_not_retryable(
    mail_stack: MailStack, packet: VerifiedPacket, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(PASSWORD_ENV, "not-the-password")
    message_id, raw = email(mail_stack, packet)
    with pytest.raises(SendError) as refused:
        await send(mail_stack, config(mail_stack), raw)
    text = str(refused.value)
    assert "authentication refused" in text
    assert "535" in text
    assert PASSWORD_ENV in text
    assert refused.value.code == 535
    assert not refused.value.retryable
    assert classify(refused.value) == "permanent"
    assert fetch(mail_stack, message_id, timeout=0.3) is None


async def test_missing_password_variable_is_a_send_error(
    mail_stack: MailStack, packet: VerifiedPacket, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(PASSWORD_ENV, raising=False)
    _, raw = email(mail_stack, packet)
    with pytest.raises(SendError, match=f"{PASSWORD_ENV} is not set") as refused:
        await send(mail_stack, config(mail_stack), raw)
    assert classify(refused.value) == "permanent"


@pytest.mark.usefixtures("alice_password")
async def test_without_the_ca_file_the_certificate_is_refused_and_nothing_sent(
    mail_stack: MailStack, packet: VerifiedPacket
) -> None:
    message_id, raw = email(mail_stack, packet)
    with pytest.raises(SendError) as refused:
        await send(mail_stack, config(mail_stack, ca_file=None), raw)
    text = str(refused.value)
    assert "certificate" in text
    assert "not trusted" in text
    assert "set ca_file" in text
    assert classify(refused.value) == "permanent"
    assert fetch(mail_stack, message_id, timeout=0.3) is None


async def test_a_bad_ca_file_is_named(
    mail_stack: MailStack, packet: VerifiedPacket, tmp_path: Any
) -> None:
    _, raw = email(mail_stack, packet)
    missing = str(tmp_path / "no-such-ca.pem")
    with pytest.raises(SendError, match="ca_file") as refused:
        await send(mail_stack, config(mail_stack, ca_file=missing), raw, secret="x")
    assert missing in str(refused.value)


@pytest.mark.usefixtures("alice_password")
async def test_closed_port_cannot_connect_and_is_retryable(
    mail_stack: MailStack, packet: VerifiedPacket
) -> None:
    (port,) = free_ports(1)
    _, raw = email(mail_stack, packet)
    with pytest.raises(SendError, match="cannot connect") as refused:
        await send(mail_stack, config(mail_stack, port=port), raw)
    assert f"{HOST}:{port}" in str(refused.value)
    assert refused.value.retryable
    assert classify(refused.value) == "retry"


@pytest.mark.usefixtures("alice_password")
async def test_implicit_tls_against_the_starttls_port_fails_quickly_and_clearly(
    mail_stack: MailStack, packet: VerifiedPacket
) -> None:
    message_id, raw = email(mail_stack, packet)
    started = time.monotonic()
    with pytest.raises(SendError) as refused:
        await send(mail_stack, config(mail_stack, security="tls", timeout=3.0), raw)
    assert time.monotonic() - started < 4
    text = str(refused.value)
    assert "TLS" in text or "timed out" in text
    assert 'security = "tls"' in text
    assert fetch(mail_stack, message_id, timeout=0.3) is None


class Recorder:
    """aiosmtpd handler keeping every message it accepts."""

    def __init__(self) -> None:
        self.received: list[bytes] = []

    async def handle_DATA(  # noqa: N802 - aiosmtpd's hook name
        self, server: SMTP, session: Session, envelope: Envelope
    ) -> str:
        content = envelope.original_content or envelope.content
        assert isinstance(content, bytes)
        self.received.append(content)
        return "250 OK"


@pytest.fixture
def plain_server() -> Iterator[tuple[int, Recorder]]:
    """A real SMTP server on loopback without STARTTLS and without AUTH."""
    recorder = Recorder()
    (port,) = free_ports(1)
    controller = Controller(recorder, hostname=HOST, port=port, ready_timeout=10)
    controller.start()
    try:
        yield port, recorder
    finally:
        controller.stop()


async def test_starttls_not_offered_refuses_and_sends_nothing(
    mail_stack: MailStack, packet: VerifiedPacket, plain_server: tuple[int, Recorder]
) -> None:
    port, recorder = plain_server
    _, raw = email(mail_stack, packet)
    with pytest.raises(SendError, match="does not offer STARTTLS") as refused:
        await send(mail_stack, config(mail_stack, port=port), raw, secret="x")
    assert classify(refused.value) == "permanent"
    assert recorder.received == []


TOKEN = "ya29.test-token"


class OAuthRecorder(Recorder):
    """Also accepts AUTH XOAUTH2 for alice with `TOKEN`."""

    async def auth_XOAUTH2(self, server: SMTP, args: list[str]) -> AuthResult:  # noqa: N802
        if len(args) != 2:
            return AuthResult(success=False, handled=False)
        fields = base64.b64decode(args[1]).decode().split("\x01")
        ok = "user=alice" in fields and f"auth=Bearer {TOKEN}" in fields
        return AuthResult(success=ok, handled=False, auth_data="alice" if ok else None)


def refuse(*args: Any) -> AuthResult:
    return AuthResult(success=False, handled=False)


@pytest.fixture
def oauth_server() -> Iterator[tuple[int, OAuthRecorder]]:
    """A real SMTP server on loopback, plain (no TLS), requiring AUTH, offering XOAUTH2."""
    recorder = OAuthRecorder()
    (port,) = free_ports(1)
    controller = Controller(
        recorder,
        hostname=HOST,
        port=port,
        ready_timeout=10,
        auth_required=True,
        auth_require_tls=False,
        authenticator=refuse,
    )
    controller.start()
    try:
        yield port, recorder
    finally:
        controller.stop()


@pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")
async def test_xoauth2_token_login_on_a_plain_loopback_server(
    mail_stack: MailStack, packet: VerifiedPacket, oauth_server: tuple[int, OAuthRecorder]
) -> None:
    port, recorder = oauth_server
    smtp = config(
        mail_stack,
        port=port,
        security="plain",
        ca_file=None,
        password_env=None,
        oauth2_command=("print-token",),
    )
    _, raw = email(mail_stack, packet)
    with pytest.raises(SendError, match="authentication refused") as refused:
        await send(mail_stack, smtp, raw, secret="expired-token")
    assert "oauth2_command" in str(refused.value)
    assert recorder.received == []
    await send(mail_stack, smtp, raw, secret=TOKEN)
    assert len(recorder.received) == 1
    read = read_message(recorder.received[0])
    assert read is not None and packet.data in read.candidates


def test_classify_plain_exceptions() -> None:
    assert classify(TimeoutError()) == "retry"
    assert classify(ConnectionRefusedError()) == "retry"
    assert classify(socket.gaierror()) == "retry"
    assert classify(ValueError("bad address")) == "permanent"


# --- check_login: the same connection and login, nothing sent ---------------------------------


@pytest.mark.usefixtures("alice_password")
async def test_check_login_logs_in_and_says_so(mail_stack: MailStack) -> None:
    line = await check_login(config(mail_stack))
    assert line == f"SMTP {HOST}:{mail_stack.smtp_port} (starttls): logged in as alice"


async def test_check_login_wrong_password_is_explained_as_send_message_does(
    mail_stack: MailStack, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(PASSWORD_ENV, "not-the-password")
    with pytest.raises(SendError) as refused:
        await check_login(config(mail_stack))
    text = str(refused.value)
    assert "refused the login of alice" in text
    assert PASSWORD_ENV in text
    assert refused.value.code == 535
    with pytest.raises(SendError, match="authentication refused"):
        await check_login(config(mail_stack), secret="not-it")


async def test_check_login_missing_secret_and_untrusted_certificate(
    mail_stack: MailStack, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(PASSWORD_ENV, raising=False)
    with pytest.raises(SendError, match=rf"cannot log in: .*{PASSWORD_ENV} is not set"):
        await check_login(config(mail_stack))
    with pytest.raises(SendError, match=r"not trusted.*set ca_file"):
        await check_login(config(mail_stack, ca_file=None), secret="x")


async def test_check_login_closed_port(mail_stack: MailStack) -> None:
    (port,) = free_ports(1)
    with pytest.raises(SendError, match=f"cannot connect to the SMTP server {HOST}:{port}"):
        await check_login(config(mail_stack, port=port), secret="x")


async def test_check_login_unknown_host_says_the_name_was_not_found(mail_stack: MailStack) -> None:
    """As the IMAP side says it: a host name no resolver knows (``.invalid`` is reserved for
    that) is named, without aiosmtplib's wrapping of the lookup error."""
    unknown = "smtp.nonexistent.invalid"
    with pytest.raises(SendError) as raised:
        await check_login(config(mail_stack, host=unknown), secret="x")
    said = str(raised.value)
    assert said.startswith(f"cannot find the SMTP server {unknown} ("), said
    assert said.endswith("): check the host name, and that the network is up"), said
    assert "Error connecting" not in said
