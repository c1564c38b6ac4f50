"""Reminders: which games have waited on the other side for longer than their reply window.

Each game's genesis sets a reply window (72 hours unless chosen otherwise). When the seat that
owes the next packet is not ours and the game has waited that long since its last packet, a
sync by email (`mail.reminding`) emails that player a short reminder. At most one per window:
after one window, after two, and so on, counted from the last packet, and a new packet starts
again.
Only the time a packet was stored here counts; nothing about this enters the game's chain.

Before that, a wait of `CHECK_AFTER_HOURS` sends the other home one silent check (`checks_due`):
a signed ask for the packet awaited, with no email to the person. A move whose email was lost
leaves both homes waiting, each on the other; the check finds it in half a day, where the
reminder's ask would find it only a reply window on (three days by default). When the other
player simply has not moved yet, their hexpost answers the check with nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

import msgspec

from saves import store_outbox
from saves.quarantine import CHECKED, REMINDER, ResendRequest
from saves.reading import Reader
from saves.store import Store

TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"
"""How the store writes times (`tui.commands.now`)."""

CHECK_AFTER_HOURS = 12
"""How long a wait on the other side lasts before this home checks, silently, that the move
it waits for was not written and lost (`checks_due`). Mail comes in minutes, and a player who
has not moved in half a day costs one small automatic email; a lost move found half a day on
costs the game half a day, not a reply window. Games whose reply window is no longer than
this have no check: the reminder's ask comes as soon."""

CHECK = 0
"""The window number a check is recorded under (reminders count windows from 1), so that a
reminder or a check already sent at a head sends no check there (`store_outbox.reminded`)."""


class Reminder(msgspec.Struct, frozen=True):
    """One reminder to send now."""

    game_id: bytes
    name: str
    seat: str
    """The seat that owes the next packet."""
    address: str
    head_seq: int
    window: int
    """How many reply windows have passed since the last packet (1 or more), or `CHECK` for a
    silent check."""
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
    found: list[Reminder] = []
    for reminder, waited in _waits(replica, now):
        window = waited // (reminder.hours * 3600)
        if window < 1 or _sent(replica.store, reminder.game_id, reminder.head_seq, window):
            continue
        found.append(msgspec.structs.replace(reminder, window=window))
    return found


def checks_due(replica: Reader, now: str) -> list[Reminder]:
    """The silent checks to send at ``now`` (window `CHECK`): one per game that has waited on
    the other side for `CHECK_AFTER_HOURS` at its head, less than a reply window, and longer
    than that window is, with nothing sent there yet. Past the window the reminder's ask
    does the same."""
    found: list[Reminder] = []
    for reminder, waited in _waits(replica, now):
        hours = reminder.hours
        if hours <= CHECK_AFTER_HOURS or not CHECK_AFTER_HOURS * 3600 <= waited < hours * 3600:
            continue
        if _sent(replica.store, reminder.game_id, reminder.head_seq, CHECK):
            continue
        found.append(reminder)
    return found


def _waits(replica: Reader, now: str) -> Iterator[tuple[Reminder, int]]:
    """Each game that waits on another seat at ``now``, as the reminder it would get (its
    window `CHECK`), with the seconds it has waited: none when ``now`` cannot be read."""
    current = _parse(now)
    if current is None:
        return
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
        owing = decisions[0].seats[0]
        address = next((s.address for s in state.core.seats if s.seat == owing and s.address), None)
        if address is None:
            continue
        reminder = Reminder(
            game_id=row.game_id,
            name=row.name,
            seat=owing,
            address=address,
            head_seq=row.head_seq,
            window=CHECK,
            hours=hours,
            since=row.waiting_since,
            step=decisions[0].step,
        )
        yield reminder, int((current - since).total_seconds())


def _sent(store: Store, game_id: bytes, head_seq: int, window: int) -> bool:
    return store_outbox.reminded(store, game_id, head_seq, window)


def record(store: Store, reminder: Reminder, now: str) -> None:
    """Remember that ``reminder`` went out, so the same window never sends another."""
    with store.transaction():
        store_outbox.record_reminder(
            store, reminder.game_id, reminder.head_seq, reminder.window, now
        )


def ask(reminder: Reminder) -> ResendRequest:
    """The signed ask that goes with a reminder, or is a silent check (`saves.resend_asks`):
    for the packet this home waits for, in case it was written and its email lost. The other
    home sends it again by itself if it holds it, and says nothing is written yet if not,
    which costs it nothing (only an ask that sends counts toward the day's
    `MAX_AUTO_ASKS`)."""
    return ResendRequest(
        reminder.game_id,
        reminder.name,
        reminder.head_seq + 1,
        reminder.seat,
        reminder.address,
        CHECKED if reminder.window == CHECK else REMINDER,
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
