"""Reminders: which games have waited on the other side for longer than their reply window.

Each game's genesis sets a reply window (72 hours unless chosen otherwise). When the seat that
owes the next packet is not ours and the game has waited that long since its last packet, a
sync by email (`mail.reminding`) emails that player a short reminder. At most one per window:
after one window, after two, and so on, counted from the last packet, and a new packet starts
again.
Only the time a packet was stored here counts; nothing about this enters the game's chain.
"""

from __future__ import annotations

from datetime import datetime

import msgspec

from saves import store_outbox
from saves.quarantine import ResendRequest
from saves.reading import Reader
from saves.store import Store

TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"
"""How the store writes times (`tui.commands.now`)."""


class Reminder(msgspec.Struct, frozen=True):
    """One reminder to send now."""

    game_id: bytes
    name: str
    seat: str
    """The seat that owes the next packet."""
    address: str
    head_seq: int
    window: int
    """How many reply windows have passed since the last packet (1 or more)."""
    hours: int
    """The game's reply window in hours."""
    since: str
    step: str
    """The step the seat owes, for the email's text."""


def _parse(text: str) -> datetime | None:
    try:
        return datetime.strptime(text, TIME_FORMAT)
    except ValueError:
        return None


def due(replica: Reader, now: str) -> list[Reminder]:
    """The reminders to send at ``now``: one per game whose other side is late, if not yet sent
    for the window that has just passed."""
    current = _parse(now)
    if current is None:
        return []
    found: list[Reminder] = []
    for row in replica.active_games():
        since = _parse(row.waiting_since)
        if since is None:
            continue
        decisions = replica.pending(row.game_id)
        if not decisions or row.my_seat in decisions[0].seats:
            continue
        state = replica.state(row.game_id)
        hours = state.core.reply_window_hours
        if hours <= 0:
            continue
        window = int((current - since).total_seconds()) // (hours * 3600)
        if window < 1 or _sent(replica.store, row.game_id, row.head_seq, window):
            continue
        owing = decisions[0].seats[0]
        address = next((s.address for s in state.core.seats if s.seat == owing and s.address), None)
        if address is None:
            continue
        found.append(
            Reminder(
                game_id=row.game_id,
                name=row.name,
                seat=owing,
                address=address,
                head_seq=row.head_seq,
                window=window,
                hours=hours,
                since=row.waiting_since,
                step=decisions[0].step,
            )
        )
    return found


def _sent(store: Store, game_id: bytes, head_seq: int, window: int) -> bool:
    return store_outbox.reminded(store, game_id, head_seq, window)


def record(store: Store, reminder: Reminder, now: str) -> None:
    """Remember that ``reminder`` went out, so the same window never sends another."""
    with store.transaction():
        store_outbox.record_reminder(
            store, reminder.game_id, reminder.head_seq, reminder.window, now
        )


def ask(reminder: Reminder) -> ResendRequest:
    """The signed ask that goes with a reminder (`saves.resend_asks`): for the packet this
    home waits for, in case it was written and its email lost. The other home sends it again
    by itself if it holds it, and says nothing is written yet if not, which costs it nothing
    (only an ask that sends counts toward the day's `MAX_AUTO_ASKS`)."""
    return ResendRequest(
        reminder.game_id,
        reminder.name,
        reminder.head_seq + 1,
        reminder.seat,
        reminder.address,
        "reminder",
    )


def text(reminder: Reminder) -> tuple[str, list[str]]:
    """The subject and body lines of a reminder email."""
    days = reminder.hours * reminder.window / 24
    subject = f"[hexpost] {reminder.name}: reminder, your move ({reminder.seat}, {reminder.step})"
    lines = [
        f"The game {reminder.name} has waited for {reminder.seat} ({reminder.step}) since "
        f"{reminder.since}, more than {days:g} days.",
        f"Its reply window is {reminder.hours} hours.",
        "",
        "Open hexpost to see the position and send your orders, or reply to say when",
        "you can. If you have moved, your move's email was lost: a signed ask went with",
        "this reminder, and your hexpost sends that move again by itself on its next sync.",
        "This reminder was written by hexpost; it carries no packet.",
    ]
    return subject, lines
