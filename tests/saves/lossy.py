"""Two homes playing over mail that loses, delays and repeats packet emails, on a clock that
moves forward: the machinery of `tests.saves.test_lossy_mail` and `bench/lossy_mail.py`.

Each home syncs once every `HOURS_PER_SYNC` (one-shot syncs, by hand or from cron: nobody
runs ``sync --watch`` or ``hexpost resend``), and makes its move (a ``done``) when its own
copy of the game says it owes one, until the two have made the moves asked for. What brings
a lost packet back is the sync itself: the ask for a gap that has lasted an hour, and the
reminder a reply window into a wait, with its ask.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import msgspec

from engine.core.ruleset import DecisionKind
from mail.loopback import LoopbackNetwork
from mail.sync import sync
from mail.transport import OutgoingPacket
from saves.replica import Replica
from tests.saves.conftest import NotesTransport, Player

HOURS_PER_SYNC = 6
"""How far the clock moves between one home's sync and the next."""
START = datetime(2031, 1, 1, tzinfo=UTC)
DELAYS = (0, 0, 0, 1, 3, 9, 30)
"""Hours a packet email may take on its way, one picked at random, on the slow mail: most
come at once, some after a greylisting server's retry, a few a day late."""
REPEATS = 0.1
"""On the slow mail, the chance that an email that arrives arrives twice."""


class LossyTransport(NotesTransport):
    """A loopback transport (with plain notes, as mail has) that loses each packet email it
    sends with chance ``loss``, after taking it: as a lost email, the sender believes it sent.
    With ``slow``, an email that is not lost comes after one of the `DELAYS` (so out of
    order), and now and then twice: it waits here until `release` reaches its hour."""

    def __init__(
        self,
        network: LoopbackNetwork,
        name: str,
        rng: random.Random,
        *,
        loss: float,
        slow: bool,
    ) -> None:
        super().__init__(network, name)
        self.rng = rng
        self.loss = loss
        self.slow = slow
        self.sent = 0
        self.lost = 0
        self.hours = 0
        self.held: list[tuple[int, OutgoingPacket]] = []

    async def send(self, packet: OutgoingPacket) -> str:
        self.sent += 1
        if self.rng.random() < self.loss:
            self.lost += 1
            return ""
        if not self.slow:
            return await super().send(packet)
        copies = 2 if self.rng.random() < REPEATS else 1
        self.held += [(self.hours + self.rng.choice(DELAYS), packet) for _ in range(copies)]
        return ""

    async def release(self, hours: int) -> None:
        """Deliver what has been on its way long enough by ``hours``, earliest first."""
        self.hours = hours
        due = sorted((entry for entry in self.held if entry[0] <= hours), key=lambda e: e[0])
        self.held = [entry for entry in self.held if entry[0] > hours]
        for _, packet in due:
            await super().send(packet)


class LossyRun(msgspec.Struct, frozen=True):
    """How one game went."""

    converged: bool
    """Both homes at one head and state hash, nothing on its way (else the bound ran out)."""
    hours: int
    moves: int
    packets: int
    """Packet emails sent (moves, automatic replies, resend asks and answers, lost or not)."""
    lost: int
    notes: int
    """Plain emails sent: reminders and the notes beside asks."""
    heads: tuple[int, int]


def at(hours: int) -> str:
    return (START + timedelta(hours=hours)).strftime("%Y-%m-%dT%H:%M:%SZ")


def _clock(hours: int) -> Callable[[], str]:
    """A clock stopped at ``hours`` into the game (for one home's sync)."""
    return lambda: at(hours)


def _owes_a_move(replica: Replica, game: bytes) -> bool:
    """Whether this home's own copy of the game says it owes orders now."""
    row = replica.game(game)
    owed = replica.pending(game)
    return bool(owed) and owed[0].seats[0] == row.my_seat and owed[0].kind == DecisionKind.ORDERS


def _waiting_since_start(home: Player, game: bytes) -> None:
    """Date the game's last packet in ``home`` at `START`: the set-up was played on the
    tests' own clock (`tests.saves.conftest.now`), whose stamps no reminder reads."""
    with home.replica.store.transaction() as db:
        db.execute("UPDATE games SET waiting_since = ? WHERE game_id = ?", (at(0), game))


def _converged(homes: list[Player], game: bytes) -> bool:
    first, second = (home.row(game) for home in homes)
    return first.head_seq == second.head_seq and first.state_hash == second.state_hash


def play_lossy(
    homes: list[Player],
    game: bytes,
    network: LoopbackNetwork,
    rng: random.Random,
    *,
    loss: float,
    slow: bool,
    moves: int,
    max_hours: int,
) -> LossyRun:
    """Play ``moves`` moves of ``game`` between the two ``homes`` over the lossy mail, until
    both hold the same game and nothing is on its way, or ``max_hours`` have passed."""
    transports = [
        LossyTransport(network, home.transport.name, rng, loss=loss, slow=slow) for home in homes
    ]
    for home in homes:
        _waiting_since_start(home, game)
    hours = made = 0
    converged = False
    while hours < max_hours:
        if made == moves and _converged(homes, game) and not any(t.held for t in transports):
            converged = True
            break
        for home, transport in zip(homes, transports, strict=True):
            clock = _clock(hours)
            for sender in transports:
                asyncio.run(sender.release(hours))
            asyncio.run(sync(home.replica, transport, clock))
            if made < moves and _owes_a_move(home.replica, game):
                home.replica.submit(game, [{"type": "done"}], now=at(hours))
                made += 1
                asyncio.run(sync(home.replica, transport, clock))
            hours += HOURS_PER_SYNC
    first, second = (home.row(game).head_seq for home in homes)
    return LossyRun(
        converged=converged,
        hours=hours,
        moves=made,
        packets=sum(t.sent for t in transports),
        lost=sum(t.lost for t in transports),
        notes=sum(len(t.notes) for t in transports),
        heads=(first, second),
    )
