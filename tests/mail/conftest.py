"""Fixtures for the mail integration tests: real Dovecot and SMTP servers on loopback."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest

from tests.mail.servers import MailStack, MailStackError, find_program, start_mail_stack


@pytest.fixture(scope="session")
def mail_stack() -> Iterator[MailStack]:
    """Dovecot (IMAP with STARTTLS and implicit TLS, LMTP) and an SMTP server (STARTTLS + AUTH)
    delivering to it, on free loopback ports, with users alice and bob; shared by the session, so
    a test picks out its own messages (by a unique subject or Message-ID)."""
    if find_program("dovecot") is None:
        pytest.skip("dovecot is not installed (apt-get install dovecot-imapd dovecot-lmtpd)")
    with start_mail_stack() as stack:
        yield stack
        # A session still connected at the end (a watch test's IDLE waits out its timeout on a
        # thread nobody joins) keeps Dovecot's processes alive after its master stopped, and
        # the stop waits 15 s before it kills them: disconnect every session first.
        for user in stack.users:
            with contextlib.suppress(MailStackError):
                stack.doveadm("kick", user)
