"""A wait for new mail that is given up (the watch stopped, the app quitting, the settings
choosing another transport) must not hold the transport's close behind the IMAP IDLE it
started, against the real test Dovecot: the worker thread in IDLE is left to end on its own,
and the close runs on a thread of its own.

An IDLE lasts up to 25 minutes in the product; a close that waited for it would hang the
app's quit for as long. The bound asserted is far under the IDLE's own time (120 s) and far
over a healthy close, so a busy machine cannot make it fail.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from mail.imap import ImapFolder
from mail.mailtransport import MailTransport
from mail.watch import watch
from tests.mail.mailgame import mail_player, new_box, set_passwords
from tests.mail.servers import MailStack
from tests.mail.test_imap import admin, box, password  # noqa: F401  (fixtures)
from tests.mail.test_imap_fetch import Asked, transport
from tests.saves.conftest import now

IDLE_SECONDS = 120.0
"""How long the given-up wait would have lasted."""
CLOSE_BOUND = 30.0
"""A close that took this long waited for the IDLE (a healthy one takes well under 1 s)."""


def noted_idle(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """An event set when a folder starts its IDLE."""
    in_idle = threading.Event()
    real_idle = ImapFolder.idle

    def noted(folder: ImapFolder, timeout: float) -> bool:
        in_idle.set()
        return real_idle(folder, timeout)

    monkeypatch.setattr(ImapFolder, "idle", noted)
    return in_idle


def test_a_wait_given_up_in_idle_does_not_hold_the_close(
    mail_stack: MailStack,
    box: str,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    in_idle = noted_idle(monkeypatch)
    mail = transport(mail_stack, box)

    async def give_up() -> float:
        await mail.fetch("", Asked(set()))  # connected, the folder selected
        waiting = asyncio.create_task(mail.wait(IDLE_SECONDS))
        loop = asyncio.get_running_loop()
        assert await loop.run_in_executor(None, in_idle.wait, 60.0), "the wait never idled"
        await asyncio.sleep(0.5)  # (into the IDLE itself, past the check before it)
        waiting.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await waiting
        started = time.monotonic()
        await mail.close()
        return time.monotonic() - started

    took = asyncio.run(give_up())
    assert took < CLOSE_BOUND, f"the close waited {took:.1f} s for the IDLE given up"


def test_after_a_wait_given_up_the_transport_fetches_again(
    mail_stack: MailStack,
    box: str,  # noqa: F811
) -> None:
    """The folder the abandoned thread holds is never touched again: the next call connects
    anew, on a new worker, and works."""
    mail = transport(mail_stack, box)

    async def again() -> Any:
        await mail.fetch("", Asked(set()))
        waiting = asyncio.create_task(mail.wait(IDLE_SECONDS))
        await asyncio.sleep(1.0)
        waiting.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await waiting
        try:
            return await asyncio.wait_for(mail.fetch("", Asked(set())), CLOSE_BOUND)
        finally:
            await mail.close()

    assert asyncio.run(again()).packets == []


def test_a_watch_stopped_in_idle_lets_the_transport_close_at_once(
    mail_stack: MailStack, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """As the app stops its watch (quitting, another transport chosen): the watch ends at
    once, and so does the close after it."""
    set_passwords(mail_stack, monkeypatch)
    in_idle = noted_idle(monkeypatch)
    bob = mail_player(tmp_path / "bob", mail_stack, "bob", new_box())
    mail = bob.transport
    assert isinstance(mail, MailTransport)

    async def stop_it() -> float:
        stop = asyncio.Event()
        watching = asyncio.create_task(
            watch(bob.replica, mail, now, on_round=lambda _: None, stop=stop,
                  idle_seconds=IDLE_SECONDS)
        )  # fmt: skip
        loop = asyncio.get_running_loop()
        assert await loop.run_in_executor(None, in_idle.wait, 60.0), "the watch never idled"
        await asyncio.sleep(0.5)
        stop.set()
        await asyncio.wait_for(watching, CLOSE_BOUND)
        started = time.monotonic()
        await mail.close()
        return time.monotonic() - started

    try:
        took = asyncio.run(stop_it())
    finally:
        bob.close()
    assert took < CLOSE_BOUND, f"the close waited {took:.1f} s for the watch's IDLE"
