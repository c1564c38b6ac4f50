"""One home used by several `hexpost` processes at once, as players really use it.

The README suggests `sync --watch` as a service; the player meanwhile runs `orders`, `chat`
and `sync` in a shell, or has the app open. Each is its own process with its own connection
to the home's database, and each holds what it read (the head state) while it works. Here
two shells write orders to Alice's home at the same moment, while a third syncs it, and
Bob's home syncs and sends chat in parallel, all through real subprocesses on a shared
folder. Whatever the interleaving, no process may crash, lose what it said it stored or
fork the chain: every order a process reported as signed is in the chain exactly once, a
writer that lost the race is told so in one line (and stored nothing), and both homes end
holding the same verified game.
"""

from __future__ import annotations

import json
import subprocess
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from tests.tui.conftest import Player, describe, exchange, start_game

ROUNDS = 6
"""Commands each busy process runs. The two writers collide (one signs against a head the other
has just moved) in about one run in three on a 2-core machine; a collision is not forced, and
every assertion holds either way. With the store's transactions deferred instead of
immediate, both runs tried failed (a "database is locked" traceback); with the signer's check
of the head left out, two runs of three failed (a second packet on the same head, refused
with a traceback)."""

CHATS = 4


def _notes(player: Player, game: str) -> list[str]:
    """The texts of the notes in ``game``'s chain as ``player``'s home holds it, in order."""
    texts: list[str] = []
    for packet in player.json("log", game):
        for event in packet["events"]:
            if " noted at " in event:
                texts.append(event.split(": ", 1)[1])
    return texts


def test_processes_sharing_a_home_never_lose_or_fork_the_game(alice: Player, bob: Player) -> None:
    game, _ = start_game(alice, bob, "busy", setup=False, in_process=True)
    short = game[:10]
    assert alice.show(short)["waiting_for"] == ["coalition"]  # Alice owes the set-up step
    start = threading.Barrier(5)

    def busy(work: Callable[[int], subprocess.CompletedProcess[str]]) -> list[Any]:
        start.wait()
        return [work(i) for i in range(ROUNDS)]

    def writer(tag: str) -> Callable[[int], subprocess.CompletedProcess[str]]:
        def note(i: int) -> subprocess.CompletedProcess[str]:
            orders = {"orders": [{"type": "note", "text": f"{tag}-{i}"}]}
            return alice.run("orders", short, "-", stdin=json.dumps(orders))

        return note

    def chat(i: int) -> subprocess.CompletedProcess[str]:
        return bob.run("chat", short, f"chat {i}") if i < CHATS else bob.run("sync")

    jobs = {
        "w1": writer("w1"),
        "w2": writer("w2"),
        "alice sync": lambda i: alice.run("sync"),
        "bob sync": lambda i: bob.run("sync"),
        "bob chat": chat,
    }
    with ThreadPoolExecutor(len(jobs)) as pool:
        done = {name: pool.submit(busy, job) for name, job in jobs.items()}
        results = {name: future.result() for name, future in done.items()}

    signed: list[str] = []
    for name, runs in results.items():
        for i, run in enumerate(runs):
            assert "Traceback" not in run.stderr, f"{name} #{i}: {describe(run)}"
            assert "locked" not in run.stderr, f"{name} #{i}: {describe(run)}"
            if name in ("w1", "w2") and run.returncode != 0:
                # The other writer's packet came first: this one stored nothing.
                assert run.returncode == 1, f"{name} #{i}: {describe(run)}"
                lines = run.stderr.strip().splitlines()
                assert len(lines) == 1 and "moved on" in lines[0], describe(run)
                assert "try again" in lines[0], describe(run)
                continue
            assert run.returncode == 0, f"{name} #{i}: {describe(run)}"
            if name in ("w1", "w2"):
                assert "signed and queued" in run.stdout, describe(run)
                signed.append(f"{name}-{i}")
    assert signed, "no writer stored anything"

    for _ in range(2):
        exchange(alice, bob)
        exchange(bob, alice)
    for player in (alice, bob):
        assert "every signature, link and state hash holds" in player.ok("verify", short)
        notes = _notes(player, short)
        assert sorted(notes) == sorted(signed), f"{player.name}'s chain: {notes}"
    assert alice.show(short)["state_hash"] == bob.show(short)["state_hash"]
    assert alice.show(short)["seq"] == 1 + len(signed)  # one packet per order signed
    heard = [m["text"] for m in alice.json("chat", short) if not m["mine"]]
    assert heard == [f"chat {i}" for i in range(CHATS)]
