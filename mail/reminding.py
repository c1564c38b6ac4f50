"""Reminders by email: the late players a sync reminds, each once per reply window, and the
silent check half a day into a wait (`saves.reminders.checks_due`).

Every sync sends them, the one-shot ``hexpost sync`` (by hand, from cron, or the app's) as
much as ``sync --watch``: two players who never watch still learn that a move is late or
lost. The store remembers each one sent (`saves.reminders`), so syncing often sends no
more of them. Each goes with a signed ask for the packet awaited (`saves.resend_asks`),
which the sync pushes with the rest of its outbox.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable

from mail.transport import TransportError
from saves import outbox, reminders, resend_asks
from saves.replica import Replica


@runtime_checkable
class Reminding(Protocol):
    """A transport that can send a plain email: the mail transport, which sends reminders.
    A shared folder cannot, and reminds no one (both players read the folder)."""

    async def send_text(
        self,
        to: tuple[str, ...] | list[str],
        subject: str,
        lines: list[str],
        references: tuple[str, ...] | list[str],
    ) -> str: ...


async def send_reminders(replica: Replica, transport: object, now: Callable[[], str]) -> list[str]:
    """Email each late player once per reply window, and queue the ask that goes with it;
    a reminder that could not be sent is tried at the next sync. One line per reminder."""
    if not isinstance(transport, Reminding):
        return []
    lines: list[str] = []
    for reminder in reminders.due(replica, now()):
        subject, body = reminders.text(reminder)
        threads = outbox.references(replica.store, reminder.game_id)
        try:
            await transport.send_text([reminder.address], subject, body, threads)
        except TransportError as exc:
            lines.append(f"reminder to {reminder.address} ({reminder.name}) not sent: {exc}")
            continue
        reminders.record(replica.store, reminder, now())
        resend_asks.queue_ask(replica, reminders.ask(reminder), now())
        lines.append(
            f"reminded {reminder.address}: {reminder.name} has waited on {reminder.seat} "
            f"since {reminder.since}"
        )
    return lines


async def send_checks(replica: Replica, transport: object, now: Callable[[], str]) -> list[str]:
    """Queue the silent checks due (`saves.reminders.checks_due`): the ask alone, no email
    to the player; one not queued (the key locked) is tried at the next sync. Only over mail
    (a `Reminding` transport): a shared folder loses nothing. One line per check."""
    if not isinstance(transport, Reminding):
        return []
    lines: list[str] = []
    for check in reminders.checks_due(replica, now()):
        if resend_asks.queue_ask(replica, reminders.ask(check), now()):
            reminders.record(replica.store, check, now())
            lines.append(
                f"{check.name} has waited on {check.seat} since {check.since}: asked "
                f"{check.seat}'s hexpost for packet {check.head_seq + 1}, in case its email "
                "was lost (no email to the player)"
            )
    return lines
