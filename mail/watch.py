"""`hexpost sync --watch`: stay connected, apply packets as they arrive, answer what is automatic.

One round is a sync (pull, automatic replies, the reminders due, push of what is due); then
the loop waits on the IMAP folder with IDLE until the server announces mail, the next outbox
retry or look in the spam folder is due, or the IDLE period ends (re-issued well before the
29 minutes after which servers may drop an idle client). A server without IDLE is polled.

Network trouble never ends the watch: a failed round is reported and tried again after a
growing pause (capped), and unsent packets stay in the outbox with their backoff. Only a
refusal that waiting cannot fix (a wrong password, a refused certificate) stops it, with the
server's reason, because retrying that every few minutes would only lock the account.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Protocol

import msgspec

from mail.accounts import DEFAULT_IDLE_TIMEOUT
from mail.sync import SyncReport, sync
from mail.transport import Transport, TransportError
from saves import outbox, reminders
from saves.replica import Replica

MAX_IDLE_SECONDS = 29 * 60.0
"""IDLE is re-issued after this long at most (RFC 2177: servers may log out an idle client
after 30 minutes); the account's ``idle_timeout`` (25 minutes by default) sets it."""
RETRY_SECONDS = (5.0, 15.0, 60.0, 300.0)
"""Pauses after 1, 2, 3, 4 or more failed rounds in a row."""

_log = logging.getLogger(__name__)


class Waiting(Transport, Protocol):
    """A transport the watch can wait on: the mail transport (IMAP IDLE) or a shared folder
    (`mail.folder.FolderTransport.wait`)."""

    async def wait(self, timeout: float) -> bool: ...


class Round(msgspec.Struct, frozen=True):
    """What one round of the watch did (for the terminal or the app to show)."""

    report: SyncReport | None
    error: str | None = None
    """Why the round failed; the watch goes on after a pause."""
    retry_in: float | None = None


def _seconds_until(when: str | None, now: str) -> float | None:
    if when is None:
        return None
    try:
        due = datetime.strptime(when, reminders.TIME_FORMAT).replace(tzinfo=UTC)
        current = datetime.strptime(now, reminders.TIME_FORMAT).replace(tzinfo=UTC)
    except ValueError:
        return None
    return max(0.0, (due - current).total_seconds())


async def one_round(
    replica: Replica, transport: Waiting, now: Callable[[], str], *, auto_replies: bool
) -> Round:
    """Pull, answer, remind, push what is due (`mail.sync.sync`)."""
    report = await sync(replica, transport, now, force=False, auto_replies=auto_replies)
    return Round(report)


def _next_due(replica: Replica, now: str) -> float | None:
    """Seconds until the earliest outbox retry (None when nothing waits)."""
    waits = [_seconds_until(e.next_attempt, now) for e in outbox.unsent(replica.store)]
    known = [w for w in waits if w is not None]
    if any(e.next_attempt is None for e in outbox.unsent(replica.store)):
        return 0.0
    return min(known) if known else None


def _junk_due(transport: Transport) -> float | None:
    """Seconds until the mail transport's next look in the spam folder (`mail.imapjunk`):
    mail a filter moved there announces nothing, so the wait ends for it."""
    due = getattr(transport, "junk_look_in", None)
    return due() if callable(due) else None


async def watch(
    replica: Replica,
    transport: Waiting,
    now: Callable[[], str],
    *,
    on_round: Callable[[Round], None],
    auto_replies: bool = True,
    idle_seconds: float = DEFAULT_IDLE_TIMEOUT,
    stop: asyncio.Event | None = None,
) -> None:
    """Run rounds until ``stop`` is set (or forever); raise only on a refusal that retrying
    cannot fix."""
    stop = stop or asyncio.Event()
    idle_seconds = min(idle_seconds, MAX_IDLE_SECONDS)
    failures = 0
    while not stop.is_set():
        try:
            result = await one_round(replica, transport, now, auto_replies=auto_replies)
        except TransportError as exc:
            if not getattr(exc, "retryable", True):
                raise
            pause = RETRY_SECONDS[min(failures, len(RETRY_SECONDS) - 1)]
            failures += 1
            on_round(Round(None, error=str(exc), retry_in=pause))
            await _sleep_or_stop(pause, stop)
            continue
        failures = 0
        on_round(result)
        dues = [_next_due(replica, now()), _junk_due(transport)]
        timeout = max(1.0, min([idle_seconds, *(due for due in dues if due is not None)]))
        waiter = asyncio.ensure_future(transport.wait(timeout))
        stopper = asyncio.ensure_future(stop.wait())
        done, _ = await asyncio.wait({waiter, stopper}, return_when=asyncio.FIRST_COMPLETED)
        for task in (waiter, stopper):
            if task not in done:
                task.cancel()
        failure = waiter.exception() if waiter in done else None
        if failure is not None:
            if isinstance(failure, TransportError) and getattr(failure, "retryable", True):
                _log.info("waiting for mail failed: %s", failure)
                continue  # the next round reconnects, and backs off if the server is down
            raise failure


async def _sleep_or_stop(seconds: float, stop: asyncio.Event) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), timeout=seconds)
