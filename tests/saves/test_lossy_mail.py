"""Mail that loses messages: a game still reaches both homes whole, with nobody's help.

Mail providers lose messages now and then (a spam filter, a full mailbox, a bounce nobody
reads). Two homes play The Wind's movement phase by one-shot syncs, a few hours apart on a
clock that moves forward (`tests.saves.lossy`); every packet email either of them sends
(moves, automatic replies, resend asks, answers to them) is lost with a seeded chance; on
the slow mail, the others come late, out of order, some twice. Nobody runs ``hexpost
resend`` or ``sync --watch``. Every seed must end with both homes at the same head and state
hash, neither frozen, nothing left buffered or refused, within a bound on the days it takes.
"""

from __future__ import annotations

import random

import pytest

from mail.loopback import LoopbackNetwork
from tests.saves.conftest import Player, advance
from tests.saves.lossy import play_lossy

SEEDS = range(1, 9)
LOSS = 0.25
"""The chance that one packet email is lost: far worse than any real provider, so that each
seed loses several, asks and their answers among them."""
MOVES_FROM = "3A-1A"
"""Where the lossy play starts: the coalition's movement phase, where the seats take turns
(reaction windows, the other seat's answers) every step or two."""
MOVES = 24
"""Moves (``done`` orders, each by the seat that owes one) the two players make in all."""
MAX_DAYS = 90
"""The bound: a game of ``MOVES`` moves that has not converged by then is stuck. (Measured
with ``bench/lossy_mail.py --seeds 200 --losses 0.25 [--slow]``, the same games from copies
of one set-up, on 2026-12-06: every one ended, in at most 40 days, median 21, on the slow
mail in at most 51, median 25; a lost packet that no later one reveals waits a reply window
for the next reminder.)"""


@pytest.mark.parametrize("slow", [False, True], ids=["lossy", "lossy-slow"])
@pytest.mark.parametrize("seed", SEEDS)
def test_a_game_over_mail_that_loses_packets_ends_whole_in_both_homes(
    seed: int,
    slow: bool,
    alice: Player,
    bob: Player,
    game: bytes,
    players: dict[str, Player],
    network: LoopbackNetwork,
) -> None:
    advance(players, game, MOVES_FROM)  # (delivered whole, on the tests' clock)
    homes = [alice, bob]
    run = play_lossy(
        homes,
        game,
        network,
        random.Random(seed),
        loss=LOSS,
        slow=slow,
        moves=MOVES,
        max_hours=MAX_DAYS * 24,
    )
    assert run.converged, f"seed {seed}: stuck: {run}"
    assert run.moves == MOVES
    for home in homes:
        row = home.row(game)
        assert row.frozen is None, f"seed {seed}: {home.name}'s game froze: {row.frozen}"
        assert home.count("buffered", game) == 0
        assert home.count("rejected", game) == 0, "every ask and copy was the other home's"
    assert run.lost > 0, "the seed lost nothing: pick another"
