"""`hexpost demo`: a whole game set-up played by two local seats, with no account.

Two homes in a temporary folder (Alice for the Coalition, Bob for the Alliance) exchange
packets through the in-memory loopback transport: Alice creates a game of The Wind and invites
Bob, Bob accepts, they walk the first steps of the sequence of play, Alice asks for a die roll
(Bob's client answers it automatically with fresh entropy), Bob signs a standing order so the
engine completes his routine steps, both make a secret choice at a secret step of the combat
phase, and finally both replay and verify the whole chain and show that they hold the same
state hash.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

from engine.core.game import pending
from engine.core.packets import fingerprint
from engine.fe import FE, RULESET
from mail.loopback import LoopbackNetwork, LoopbackTransport
from mail.sync import sync
from saves.home import Home
from saves.replica import Replica
from tui.commands import now

SCENARIO = "the-wind"


class Seat:
    """One demo player: a home, a replica able to sign, and its view of the transport."""

    def __init__(self, root: Path, name: str, address: str, network: LoopbackNetwork) -> None:
        self.name = name
        self.home = Home(root / name.lower())
        info = self.home.create_identity(name, address, None, scrypt_n=2)
        self.fingerprint = fingerprint(info.public_key)
        self.replica: Replica = self.home.replica(unlock=True)
        self.transport = LoopbackTransport(network, f"loopback:{name.lower()}")

    def sync(self) -> list[str]:
        report = asyncio.run(sync(self.replica, self.transport, now))
        return [f"{o.status}: {o.detail}" for o in report.received if o.status != "duplicate"]


def say(text: str) -> None:
    print(text, flush=True)


def exchange(first: Seat, second: Seat) -> None:
    """Deliver what ``first`` queued to ``second`` and bring any automatic reply back."""
    first.sync()
    for line in second.sync():
        say(f"    {second.name} received: {line}")
    for line in first.sync():
        say(f"    {first.name} received: {line}")


def advance(players: dict[str, Seat], game_id: bytes, target: str) -> None:
    """Both seats mark their manual steps done until the game reaches step ``target``."""
    while True:
        any_replica = next(iter(players.values())).replica
        state = any_replica.state(game_id)
        decision = pending(RULESET, state)[0]
        if decision.step == target:
            return
        owner = players[decision.seats[0]]
        count = len(FE.own_run(state.rules, decision.seats[0], target))
        orders: list[dict[str, Any]] = [{"type": "done"} for _ in range(count)]
        orders[0]["note"] = "nothing to do here in the demo"
        result = owner.replica.submit(game_id, orders, now=now())
        say(f"  {owner.name} completes {count} step(s) from {decision.step} (packet {result.seq})")
        other = next(p for p in players.values() if p is not owner)
        exchange(owner, other)


def run_demo(keep: Path | None = None) -> int:
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        return _play(keep)
    with tempfile.TemporaryDirectory(prefix="hexpost-demo-") as root:
        return _play(Path(root))


def _play(root: Path) -> int:
    network = LoopbackNetwork()
    say("hexpost demo: two local players, one game of Federation & Empire, no mail account")
    say(f"  homes in {root}")
    alice = Seat(root, "Alice", "alice@example.org", network)
    bob = Seat(root, "Bob", "bob@example.org", network)
    say(f"  Alice (Coalition) fingerprint {alice.fingerprint}")
    say(f"  Bob   (Alliance)  fingerprint {bob.fingerprint}")

    say("\n1. Alice creates a game of The Wind and invites Bob")
    game_id = alice.replica.create(
        RULESET, SCENARIO, "coalition", "bob@example.org", name="demo-wind", now=now()
    )
    alice.sync()
    for line in bob.sync():
        say(f"    Bob received: {line}")
    say("2. Bob checks Alice's fingerprint and accepts")
    bob.replica.accept(game_id, now=now())
    exchange(bob, alice)
    players = {"coalition": alice, "alliance": bob}

    say("\n3. Alice completes step 1A1 with a note, then asks for a die roll")
    alice.replica.submit(
        game_id,
        [
            {"type": "done", "note": "no bases or PDUs were being deployed"},
            {"type": "roll", "dice": "2d6", "purpose": "survey points 505.21"},
        ],
        now=now(),
    )
    say("    Bob's client answers the roll with its next entropy value, automatically:")
    exchange(alice, bob)
    for seq, event in alice.replica.events(game_id):
        if event.kind == "roll":
            say(f"    roll recorded in packet {seq}: {event.text}")

    say("\n4. Alice completes her part of step 1A2; Bob answers his part with a standing order")
    alice.replica.submit(game_id, [{"type": "done"}], now=now())
    exchange(alice, bob)
    routine = ["1", "2", "3A", "5-1A", "5-1C", "5-1D", "5-1E", "5-2A3", "5-6", "6", "10"]
    bob.replica.submit(game_id, [{"type": "standing", "steps": routine}], now=now())
    say(f"    the engine now completes Bob's steps in {', '.join(routine)} for him")
    exchange(bob, alice)

    say("\n5. Both walk the sequence of play to the secret step 5-3C")
    advance(players, game_id, "5-3C")

    say("\n6. Secret step 5-3C: each seat commits its choice; they are revealed together")
    alice.replica.submit(
        game_id, [{"type": "secret", "choice": "escort group: D7 with two F5s"}], now=now()
    )
    exchange(alice, bob)
    bob.replica.submit(
        game_id, [{"type": "secret", "choice": "escort group: CV with DD and FF"}], now=now()
    )
    exchange(bob, alice)
    for seq, event in bob.replica.events(game_id):
        if event.kind in ("commit", "secret"):
            say(f"    packet {seq}: {event.text}")

    say("\n7. Both replay the whole chain and compare")
    hashes = {}
    for player in (alice, bob):
        digest = player.replica.verify(game_id)
        count = len(player.replica.packets(game_id))
        hashes[player.name] = digest
        say(f"    {player.name}: {count} packets verified, state hash {digest.hex()[:32]}")
    state = alice.replica.state(game_id)
    decision = pending(RULESET, state)[0]
    summary = RULESET.summary(state.rules)
    say(
        f"    now: turn {summary['turn']['number']}, step {summary['step']}, "
        f"waiting for {decision.seats[0]}"
    )
    same = len(set(hashes.values())) == 1
    say("\nBoth players hold the same game." if same else "\nThe players' states DIFFER.")
    for player in (alice, bob):
        player.home.close()
    return 0 if same else 1
