"""When a home checks, silently, that the move it waits for was not lost (`saves.reminders`).

Half a day into a wait on the other seat, once per head, and only while the reply window has
not passed (the reminder's ask does the same then) and is longer than half a day. The mail
side, that the check goes and is answered, is in `tests.mail.test_lost_moves`.
"""

from __future__ import annotations

import pytest

from engine.fe import RULESET
from saves import reminders
from saves.quarantine import CHECKED
from tests.saves.conftest import (
    CHAIN_LENGTH,
    SCENARIO,
    Player,
    accept_join,
    exchange,
    now,
    owner,
    play_setup,
)


def _waiting(player: Player, game_id: bytes, since: str = "2030-01-01T00:00:00Z") -> None:
    with player.replica.store.transaction() as db:
        db.execute("UPDATE games SET waiting_since = ? WHERE game_id = ?", (since, game_id))


def _game(alice: Player, bob: Player, window: int) -> tuple[bytes, Player]:
    """A game past its set-up with this reply window; the player who waits."""
    game_id = alice.replica.create(
        RULESET, SCENARIO, "coalition", bob.address, name=f"w{window}", now=now(),
        chain_length=CHAIN_LENGTH, reply_window_hours=window,
    )  # fmt: skip
    alice.sync()
    bob.sync()
    bob.replica.accept(game_id, now=now(), chain_length=CHAIN_LENGTH)
    exchange(bob, alice)
    accept_join(alice, bob, game_id)
    players = {"coalition": alice, "alliance": bob}
    play_setup(players, game_id)
    _, waiting = owner(players, game_id)
    _waiting(waiting, game_id)
    return game_id, waiting


@pytest.mark.parametrize(
    ("at", "checks"),
    [
        ("2030-01-01T11:59:59Z", 0),  # not half a day yet
        ("2030-01-01T12:00:00Z", 1),
        ("2030-01-03T23:59:59Z", 1),  # the last second before the reply window
        ("2030-01-04T00:00:00Z", 0),  # the reminder's ask does it now
        ("not a time", 0),
    ],
)
def test_a_check_is_due_half_a_day_into_a_wait_until_the_reply_window(
    alice: Player, bob: Player, at: str, checks: int
) -> None:
    game_id, waiting = _game(alice, bob, 72)
    due = reminders.checks_due(waiting.replica, at)
    assert len(due) == checks
    for check in due:
        assert check.window == reminders.CHECK and check.head_seq == waiting.row(game_id).head_seq
        request = reminders.ask(check)
        assert request.reason == CHECKED and request.seq == check.head_seq + 1


def test_one_check_a_head_and_the_reminder_still_comes(alice: Player, bob: Player) -> None:
    _, waiting = _game(alice, bob, 72)
    (check,) = reminders.checks_due(waiting.replica, "2030-01-01T13:00:00Z")
    reminders.record(waiting.replica.store, check, "2030-01-01T13:00:00Z")
    assert reminders.checks_due(waiting.replica, "2030-01-02T13:00:00Z") == []
    assert len(reminders.due(waiting.replica, "2030-01-04T01:00:00Z")) == 1


def test_no_check_at_a_head_a_reminder_went_from(alice: Player, bob: Player) -> None:
    game_id, waiting = _game(alice, bob, 72)
    (reminder,) = reminders.due(waiting.replica, "2030-01-04T01:00:00Z")
    reminders.record(waiting.replica.store, reminder, "2030-01-04T01:00:00Z")
    _waiting(waiting, game_id, "2030-01-04T00:00:00Z")  # (as if its wait began again there)
    assert reminders.checks_due(waiting.replica, "2030-01-04T13:00:00Z") == []


def test_a_reply_window_of_half_a_day_or_less_has_no_check(alice: Player, bob: Player) -> None:
    _, waiting = _game(alice, bob, reminders.CHECK_AFTER_HOURS)
    assert reminders.checks_due(waiting.replica, "2030-01-01T12:00:00Z") == []
    assert len(reminders.due(waiting.replica, "2030-01-01T12:00:00Z")) == 1


def test_no_check_while_this_home_owes_the_move(alice: Player, bob: Player) -> None:
    game_id, _ = _game(alice, bob, 72)
    players = {"coalition": alice, "alliance": bob}
    on_move, _ = owner(players, game_id)
    _waiting(on_move, game_id)
    assert reminders.checks_due(on_move.replica, "2030-01-01T13:00:00Z") == []
