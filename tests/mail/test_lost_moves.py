"""Moves lost in the mail, found without a player: reminders, their asks, and the silent check.

A move whose email is lost leaves both homes waiting, each on the other. Half a day into a
wait a sync sends the other home a silent check (a signed ask for the packet awaited, with no
email to its player); a reply window into it, a reminder to the player with the same ask. The
other home answers either by itself: it sends the move again if it was written, and nothing if
not. All over the test mail stack (aiosmtpd into Dovecot, read back over IMAP).
"""

from __future__ import annotations

import asyncio
from typing import Any

from engine.core.owed import pending
from engine.fe import RULESET
from mail.mailtransport import MailTransport
from mail.mime import HEADER
from mail.reminding import send_checks, send_reminders
from mail.sync import SyncReport, sync
from tests.mail.mailgame import chat, inbox_of, mark_all_sent, same_game, statuses
from tests.mail.servers import MailStack
from tests.saves.conftest import Player, now


def _sends_at(player: Player, when: str) -> list[str]:
    """What ``player``'s reminders and checks say they sent at ``when``."""
    transport = player.transport
    assert isinstance(transport, MailTransport)

    def at() -> str:
        return when

    async def both() -> list[str]:
        return [
            *await send_reminders(player.replica, transport, at),
            *await send_checks(player.replica, transport, at),
        ]

    return asyncio.run(both())


def _pass_the_move_and_lose_it(first: Player, second: Player, game_id: bytes) -> int:
    """``first`` plays on until its move passes the game to ``second``, and the email of that
    packet is lost; its position."""
    me = first.row(game_id).my_seat
    while True:
        seq = first.replica.submit(game_id, [{"type": "done"}], now=now()).seq
        if pending(RULESET, first.replica.state(game_id))[0].seats[0] != me:
            break
        first.sync()
        second.sync()
    mark_all_sent(first)
    return seq


def _asked_back_and_answered(first: Player, second: Player, game_id: bytes, seq: int) -> None:
    """``first``'s ask (pushed already) names a head past ``second``'s: ``second``'s sync asks
    for packet ``seq``, ``first``'s sends it, and ``second`` applies it."""
    asked = second.sync()
    assert [o.detail.split(": ")[-1] for o in asked.received] == [f"asked for packet {seq} again"]
    answered = first.sync()
    assert statuses(answered) == ["resend"] and answered.sent == [seq]
    assert statuses(second.sync()) == ["applied"]
    same_game(first, second, game_id)


def _lost_then_one_shot_sync(
    first: Player, second: Player, game_id: bytes, when: str
) -> tuple[int, SyncReport]:
    """``first`` chats and the email is lost; ``second``, waiting since 2030-01-01, runs a
    one-shot sync at ``when``: the chat's position and what the sync did."""
    seq = chat(first, game_id, "lost in the mail")
    mark_all_sent(first)
    _waiting_since_2030(second, game_id)
    transport = second.transport
    assert isinstance(transport, MailTransport)
    return seq, asyncio.run(sync(second.replica, transport, lambda: when))


def _waiting_since_2030(player: Player, game_id: bytes) -> None:
    """Make the game look as if it has waited on the other side since 2030-01-01."""
    with player.replica.store.transaction() as db:
        db.execute(
            "UPDATE games SET waiting_since = '2030-01-01T00:00:00Z' WHERE game_id = ?", (game_id,)
        )


def _remind_after_a_window(player: Player, game_id: bytes) -> list[str]:
    """``player``'s watch sends its reminders a little over one reply window (72 hours) into
    a wait for the other side that began on 2030-01-01; what it says it sent."""
    _waiting_since_2030(player, game_id)
    transport = player.transport
    assert isinstance(transport, MailTransport)
    return asyncio.run(send_reminders(player.replica, transport, lambda: "2030-01-04T01:00:00Z"))


def test_a_late_player_gets_one_reminder_per_reply_window(
    played: tuple[bytes, Player, Player], mail_stack: MailStack
) -> None:
    game_id, first, second = played
    # ``second`` waits on ``first``; make the wait look four days long (window: 72 hours).
    _waiting_since_2030(second, game_id)
    transport = second.transport
    assert isinstance(transport, MailTransport)

    def at(when: str) -> Any:
        return lambda: when

    lines = asyncio.run(send_reminders(second.replica, transport, at("2030-01-04T01:00:00Z")))
    assert len(lines) == 1 and first.address in lines[0]
    assert asyncio.run(send_reminders(second.replica, transport, at("2030-01-06T23:00:00Z"))) == []
    again = asyncio.run(send_reminders(second.replica, transport, at("2030-01-07T01:00:00Z")))
    assert len(again) == 1, "a second window has passed"
    box = inbox_of(mail_stack, first)
    try:
        reminders = [m for m in box.messages() if "reminder" in m["Subject"]]
    finally:
        box.close()
    assert len(reminders) == 2
    assert reminders[0]["Auto-Submitted"] == "auto-generated"
    assert reminders[0][HEADER] is None, "a reminder is never taken for a packet"
    report = first.sync()
    assert report.received == [], "the reminders are not packets"


def test_a_move_lost_in_the_mail_is_sent_again_by_the_reminder_s_ask(
    played: tuple[bytes, Player, Player], mail_stack: MailStack
) -> None:
    """``first`` moves, but the email is lost; both wait. The reminder ``second``'s watch
    sends after a reply window goes with a signed ask for that packet, which ``first``'s
    next sync answers by itself: the game goes on with nobody running ``resend``."""
    game_id, first, second = played
    seq = chat(first, game_id, "lost in the mail")
    mark_all_sent(first)
    lines = _remind_after_a_window(second, game_id)
    assert len(lines) == 1
    second.sync()  # (pushes the ask)
    answered = first.sync()
    assert statuses(answered) == ["resend"] and answered.sent == [seq]
    assert statuses(second.sync()) == ["applied"]
    same_game(first, second, game_id)


def test_a_move_lost_in_the_mail_is_asked_for_by_the_home_its_author_s_reminder_reaches(
    played: tuple[bytes, Player, Player], mail_stack: MailStack
) -> None:
    """The other way round: ``first``'s move passes the game to ``second``, but its email is
    lost, and only ``first``'s watch sends reminders. The reminder's ask names ``first``'s
    head, past ``second``'s: ``second``'s sync asks for the packet it lacks, ``first``'s sends
    it by itself, and the game goes on with nobody running ``resend``."""
    game_id, first, second = played
    seq = _pass_the_move_and_lose_it(first, second, game_id)
    lines = _remind_after_a_window(first, game_id)
    assert len(lines) == 1 and second.address in lines[0]
    first.sync()  # (pushes the ask)
    _asked_back_and_answered(first, second, game_id, seq)


def test_a_move_lost_between_homes_that_never_watch_is_asked_for_by_a_one_shot_sync(
    played: tuple[bytes, Player, Player], mail_stack: MailStack
) -> None:
    """Neither player runs ``sync --watch`` (a sync now and then, by hand or from cron), and
    ``first``'s move is lost in the mail. ``second``'s one-shot sync a reply window into the
    wait sends the reminder, and its ask goes out in the same sync; ``first``'s next sync
    answers by itself, and a later one-shot sync does not remind again in that window."""
    game_id, first, second = played
    seq, report = _lost_then_one_shot_sync(first, second, game_id, "2030-01-04T01:00:00Z")
    transport = second.transport
    assert len(report.reminders) == 1 and first.address in report.reminders[0]
    answered = first.sync()
    assert statuses(answered) == ["resend"] and answered.sent == [seq]
    again = asyncio.run(sync(second.replica, transport, lambda: "2030-01-04T02:00:00Z"))
    assert statuses(again) == ["applied"] and again.reminders == []
    same_game(first, second, game_id)
    box = inbox_of(mail_stack, first)
    try:
        assert len([m for m in box.messages() if "reminder" in m["Subject"]]) == 1
    finally:
        box.close()


def test_a_reminder_s_ask_for_a_move_not_made_sends_nothing(
    played: tuple[bytes, Player, Player], mail_stack: MailStack
) -> None:
    game_id, first, second = played
    _remind_after_a_window(second, game_id)
    second.sync()
    report = first.sync()
    assert statuses(report) == ["ignored"] and report.sent == []
    assert "nobody has written yet" in report.received[0].detail
    assert not report.received[0].attention


# --- the silent check -----------------------------------------------------------------------------


def test_a_move_lost_in_the_mail_is_found_by_the_silent_check_half_a_day_on(
    played: tuple[bytes, Player, Player], mail_stack: MailStack
) -> None:
    """``first`` moves and the email is lost: both wait. Twelve hours into ``second``'s wait
    its sync sends a check, no email to ``first``'s player, and ``first``'s next sync sends
    the move again by itself; three days sooner than the reminder's ask."""
    game_id, first, second = played
    seq = chat(first, game_id, "lost in the mail")
    mark_all_sent(first)
    _waiting_since_2030(second, game_id)
    assert _sends_at(second, "2030-01-01T11:59:00Z") == [], "half a day not gone"
    lines = _sends_at(second, "2030-01-01T12:00:00Z")
    assert len(lines) == 1 and f"packet {seq}" in lines[0] and "no email" in lines[0]
    assert _sends_at(second, "2030-01-01T18:00:00Z") == [], "one check a head"
    second.sync()  # (pushes the check)
    answered = first.sync()
    assert statuses(answered) == ["resend"] and answered.sent == [seq]
    assert statuses(second.sync()) == ["applied"]
    same_game(first, second, game_id)
    box = inbox_of(mail_stack, first)
    try:
        subjects = [str(m["Subject"]) for m in box.messages()]
    finally:
        box.close()
    assert not [s for s in subjects if "reminder" in s], "the check emails nobody"
    assert [s for s in subjects if f"waiting for packet {seq}" in s], subjects


def test_the_check_of_a_move_not_made_sends_nothing_and_the_reminder_still_comes(
    played: tuple[bytes, Player, Player], mail_stack: MailStack
) -> None:
    """``first`` has simply not moved: its home answers the check with nothing and asks its
    player nothing. The reminder comes at the reply window, as before."""
    game_id, first, second = played
    _waiting_since_2030(second, game_id)
    assert len(_sends_at(second, "2030-01-01T13:00:00Z")) == 1
    second.sync()
    report = first.sync()
    assert statuses(report) == ["ignored"] and report.sent == []
    assert "nobody has written yet" in report.received[0].detail
    assert not report.received[0].attention
    reminded = _sends_at(second, "2030-01-04T01:00:00Z")
    assert len(reminded) == 1 and reminded[0].startswith(f"reminded {first.address}")


def test_the_author_s_check_brings_its_lost_move_to_the_other_home(
    played: tuple[bytes, Player, Player], mail_stack: MailStack
) -> None:
    """The other way round: the email of ``first``'s move that passed the game on is lost,
    and only ``first``'s home checks. Its ask names a head past ``second``'s, whose sync
    asks for what it lacks; ``first``'s sends it."""
    game_id, first, second = played
    seq = _pass_the_move_and_lose_it(first, second, game_id)
    _waiting_since_2030(first, game_id)
    assert len(_sends_at(first, "2030-01-01T12:30:00Z")) == 1
    first.sync()
    _asked_back_and_answered(first, second, game_id, seq)


def test_a_one_shot_sync_sends_the_check(
    played: tuple[bytes, Player, Player], mail_stack: MailStack
) -> None:
    """`mail.sync.sync` (what ``hexpost sync`` and the app run) sends the check and lists it
    with the reminders."""
    game_id, first, second = played
    seq, report = _lost_then_one_shot_sync(first, second, game_id, "2030-01-01T14:00:00Z")
    assert len(report.checks) == 1 and f"packet {seq}" in report.checks[0]
    assert report.reminders == [], "no player is reminded"
    answered = first.sync()
    assert statuses(answered) == ["resend"] and answered.sent == [seq]
