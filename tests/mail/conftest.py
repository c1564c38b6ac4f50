"""Fixtures for the mail integration tests: real Dovecot and SMTP servers on loopback."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.mail.mailgame import Mailbox, close, mail_player, new_box, on_move, set_passwords, start
from tests.mail.servers import MailStack, MailStackError, find_program, start_mail_stack
from tests.saves.conftest import Player


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


@pytest.fixture
def box() -> str:
    return new_box()


def _home_of(user: str, request: pytest.FixtureRequest) -> Iterator[Player]:
    """``user``'s home on the mail stack, reading this test's folder."""
    stack: MailStack = request.getfixturevalue("mail_stack")
    set_passwords(stack, request.getfixturevalue("monkeypatch"))
    path: Path = request.getfixturevalue("tmp_path")
    player = mail_player(path / user, stack, user, request.getfixturevalue("box"))
    yield player
    close(player)


@pytest.fixture
def mail_alice(request: pytest.FixtureRequest) -> Iterator[Player]:
    yield from _home_of("alice", request)


@pytest.fixture
def mail_bob(request: pytest.FixtureRequest) -> Iterator[Player]:
    yield from _home_of("bob", request)


@pytest.fixture
def bob_box(mail_stack: MailStack, box: str, mail_bob: Player) -> Iterator[Mailbox]:
    view = Mailbox(mail_stack, "bob", box)
    yield view
    view.close()


@pytest.fixture
def played(mail_alice: Player, mail_bob: Player) -> tuple[bytes, Player, Player]:
    """A game by mail past its set-up; returns (game, the seat on move, the other seat)."""
    game_id = start(mail_alice, mail_bob)
    first, second = on_move({"coalition": mail_alice, "alliance": mail_bob}, game_id)
    return game_id, first, second
