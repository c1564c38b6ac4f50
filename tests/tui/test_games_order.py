"""The games list puts first the games that need their player, then those waiting for another
player, then the ended ones, the oldest first within each: with several campaigns running,
the one to answer is at the top, and a row moves only when whose move it is changes."""

from __future__ import annotations

from mail.sync import sync
from tests.saves.conftest import CHAIN_LENGTH, Player, invite_to_tutorial, now
from tui.services import games


async def test_games_that_need_you_come_first_and_ended_ones_last(
    two_homes: tuple[Player, Player],
) -> None:
    alice, bob = two_homes
    ended = invite_to_tutorial(alice, bob, "ended")
    theirs = invite_to_tutorial(alice, bob, "theirs")
    invite_to_tutorial(alice, bob, "invited")
    await sync(alice.replica, alice.transport, now)
    await sync(bob.replica, bob.transport, now)
    bob.replica.decline_invitation(ended, now=now())
    bob.replica.accept(theirs, now=now(), chain_length=CHAIN_LENGTH)  # Alice accepts next
    names = [game.name for game in games.summaries(bob.replica)]
    assert names == ["invited", "theirs", "ended"]
    listed = {game.name: game for game in games.summaries(bob.replica)}
    assert listed["theirs"].waits is not None and not listed["theirs"].waits.mine
    assert listed["ended"].ended
    await sync(bob.replica, bob.transport, now)
    await sync(alice.replica, alice.transport, now)
    # Alice created all three: her move in "theirs" (accept Bob's key) comes first, the game
    # waiting for Bob's join next, the declined one last.
    names = [game.name for game in games.summaries(alice.replica)]
    assert names == ["theirs", "invited", "ended"]
