"""The game the crash test kills `hexpost sync` in (`tests.saves.test_crash`), played once.

Alice and Bob play a few hundred packets of The Wind through a shared folder, in this
process: die rolls (answered by the other side's sync), a battle in the Alliance's player
turn with its secret steps, and runs of up to `MAX_STEPS` steps in one packet. Bob's home is copied
right after he accepted, before his join was sent: the old backup the crash loop restores.
"""

from __future__ import annotations

import asyncio
import os
import shutil
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engine.core.owed import pending
from engine.core.ruleset import DecisionKind
from engine.core.turn_orders import Done
from engine.fe import RULESET
from engine.fe.steps import combat_damage
from mail.folder import FolderTransport
from mail.sync import sync
from saves import joins
from saves.home import Home
from saves.replica import Replica
from tests.engine.fe.helpers import setup_items
from tests.engine.fe_play import battle_choice, scripted_retreat
from tests.saves.conftest import ATTACK

TARGET_HEAD = 250
"""Play until the chain's head is at least this packet number."""
CHAIN_LENGTH = 4096
ROLL_EVERY = 9
"""Every this many manual orders, the seat asks for a 2d6 roll instead of completing a step."""
MAX_STEPS = 8
"""Every other orders packet completes up to this many steps, the others one step each."""


def now() -> str:
    """The wall clock, as the command under test stamps its packets."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True)
class History:
    """The game as Alice holds it at the end, and where the early copy of Bob's home lies."""

    folder: Path
    bob_early: Path
    game_id: bytes
    final_seq: int
    final_hash: bytes
    early_seq: int
    """Bob's head in the early copy (his join)."""
    packets: dict[int, tuple[bytes, bytes]]
    """seq -> (packet id, state hash after it), from Alice's store."""
    events: list[tuple[int, int, bytes]]
    files: frozenset[str]
    """Every entry of the shared folder after the play."""
    early_outbox: list[tuple[int, bytes]]
    """(seq, packet id) of every outbox entry in the early copy."""
    owes_automatic: dict[int, str]
    """Heads after which Bob owes an automatic reply (entropy for a roll, or a reveal)."""


def _sync(replica: Replica, transport: FolderTransport) -> Any:
    return asyncio.run(sync(replica, transport, now))


def _settle(first: Replica, second: Replica, transport: FolderTransport, game_id: bytes) -> None:
    """Sync both sides until they hold the same head and neither has anything left to send."""
    for _ in range(10):
        sent_first = _sync(first, transport).sent
        sent_second = _sync(second, transport).sent
        same = first.game(game_id).state_hash == second.game(game_id).state_hash
        same = same and first.game(game_id).head_seq == second.game(game_id).head_seq
        if same and not sent_first and not sent_second:
            return
    raise AssertionError("the two homes did not settle on one head after 10 rounds of sync")


def play(root: Path) -> History:
    """Alice and Bob play The Wind through a shared folder until the chain's head reaches
    `TARGET_HEAD`, copying Bob's home right after he accepted (``bob_early``)."""
    folder = root / "shared"
    folder.mkdir()
    transport = FolderTransport(folder)
    homes: dict[str, Home] = {}
    for name, address in (("alice", "alice@example.org"), ("bob", "bob@example.org")):
        home = Home(root / name)
        home.create_identity(name.title(), address, None, scrypt_n=2)
        home.save_config({"transport": {"kind": "folder", "path": str(folder)}})
        homes[name] = home
    alice = homes["alice"].replica(unlock=True)
    bob = homes["bob"].replica(unlock=True)
    game_id = alice.create(
        RULESET,
        "the-wind",
        "coalition",
        "bob@example.org",
        name="crash",
        now=now(),
        chain_length=CHAIN_LENGTH,
    )
    _sync(alice, transport)
    _sync(bob, transport)
    bob.accept(game_id, now=now(), chain_length=CHAIN_LENGTH)

    # The backup: taken right after accepting, before the join packet was even sent.
    homes["bob"].close()
    shutil.copytree(root / "bob", root / "bob_early")
    early = Home(root / "bob_early")
    early_store = early.store()
    early_seq = int(early.replica().game(game_id).head_seq)
    early_outbox = [
        (int(seq), bytes(pid))
        for seq, pid in early_store.all("SELECT seq, packet_id FROM outbox ORDER BY id")
    ]
    early.close()
    bob = homes["bob"].replica(unlock=True)
    _settle(bob, alice, transport, game_id)
    if joins.accept(alice, game_id, now=now()).packet_seq is not None:
        _settle(alice, bob, transport, game_id)

    seats = {"coalition": alice, "alliance": bob}
    orders = 0
    attacked = False
    while alice.game(game_id).head_seq < TARGET_HEAD:
        decision = next(
            d for d in pending(RULESET, alice.state(game_id)) if d.kind != DecisionKind.ACCEPT
        )
        seat = decision.seats[0]
        items: list[dict[str, Any]]
        rules = alice.state(game_id).rules
        if decision.kind == DecisionKind.SECRET:
            assert rules is not None
            choice = battle_choice(rules, seat, decision.step)
            items = [{"type": "secret", "choice": choice}]
        elif rules is not None and (battle := _battle_items(rules, seat, decision.step)):
            items = battle
        elif seat == "alliance" and decision.step == "3B2" and not attacked:
            # A battle in the Alliance's player turn, so both sides have secret steps there.
            items, attacked = [ATTACK, {"type": "done"}], True
        else:
            assert decision.kind == DecisionKind.ORDERS, f"unexpected decision {decision}"
            orders += 1
            rules = alice.state(game_id).rules
            if rules is not None and rules.setup:
                items = setup_items(rules)
            elif orders % ROLL_EVERY == 0:
                items = [{"type": "roll", "dice": "2d6", "purpose": f"test roll {orders}"}]
            else:
                # One step, or up to MAX_STEPS in one packet: the game then reaches the
                # Alliance's player turn, where Bob commits first and so owes the reveals.
                most = MAX_STEPS if orders % 2 else 1
                stop = "3B2" if seat == "alliance" and not attacked else ""
                count = _steps(seat, alice.state(game_id).rules, most, stop)
                items = [{"type": "done"} for _ in range(count)]
        author = seats[seat]
        other = bob if author is alice else alice
        author.submit(game_id, items, now=now())
        _settle(author, other, transport, game_id)

    row = alice.game(game_id)
    packets = {
        int(seq): (bytes(pid), bytes(digest))
        for seq, pid, digest in alice.store.all(
            "SELECT seq, packet_id, state_hash FROM packets WHERE game_id = ?", (game_id,)
        )
    }
    history = History(
        folder=folder,
        bob_early=root / "bob_early",
        game_id=game_id,
        final_seq=row.head_seq,
        final_hash=row.state_hash,
        early_seq=early_seq,
        packets=packets,
        events=events_of(alice),
        files=frozenset(os.listdir(folder)),
        early_outbox=early_outbox,
        owes_automatic=_owes_automatic(alice, game_id, early_seq, row.head_seq),
    )
    kinds = Counter(event.kind for _, event in alice.events(game_id))
    automatic_entropy = bob.store.one(
        "SELECT COUNT(*) FROM packets WHERE seat = 'alliance' AND kind = 'entropy'"
    )
    for home in homes.values():
        home.close()

    assert sorted(packets) == list(range(history.final_seq + 1))
    assert history.final_seq not in history.owes_automatic, "the play ended unsettled"
    assert kinds["roll"] >= 5 and kinds["secret"] >= 2, f"too few rolls or secrets: {kinds}"
    owed = Counter(history.owes_automatic.values())
    assert owed["entropy"] >= 3 and owed["reveal"] >= 2, f"Bob should owe replies: {owed}"
    assert automatic_entropy is not None and automatic_entropy[0] >= 3, (
        "Bob's sync should have answered some rolls automatically"
    )
    print(
        f"\ncrash test game: {history.final_seq + 1} packets, {kinds['roll']} rolls, "
        f"{kinds['commit']} commitments, {kinds['secret']} secret steps revealed; "
        f"Bob's backup is at packet {early_seq}; Bob owes an automatic reply after "
        f"{len(history.owes_automatic)} packets ({dict(owed)})"
    )
    return history


def _battle_items(rules: Any, seat: str, step: str) -> list[dict[str, Any]]:
    """A seat's orders at a battle's own steps: the suggested allocation of the damage it owes
    (302.6), or the scripted retreat that keeps the battle short (302.71); [] elsewhere."""
    if step in combat_damage.ALLOCATION_STEPS and combat_damage.finish(rules, seat):
        order = combat_damage.suggested(rules, seat)
        assert order is not None
        return [RULESET.order_to_json(order), {"type": "done"}]
    if scripted_retreat(rules, seat, step):
        return [{"type": "retreat"}, {"type": "done"}]
    return []


def _steps(seat: str, rules: Any, most: int, before: str = "") -> int:
    """How many manual steps in a row ``seat`` may complete now (at most ``most``, stopping
    at step ``before``)."""
    count = 0
    while count < most:
        decision = RULESET.pending(rules)[0]
        if decision.kind != DecisionKind.ORDERS or decision.seats[0] != seat:
            break
        if decision.step == before or RULESET.validate(rules, seat, Done()):
            break  # e.g. damage to allocate first (302.6): the dice decide, so check each
        rules = RULESET.apply(rules, seat, Done()).state
        count += 1
    return count


def _owes_automatic(replica: Replica, game_id: bytes, first: int, last: int) -> dict[int, str]:
    """Where (as in `Replica.auto_replies`) Bob's sync would sign an answer by itself."""
    owed = {}
    for seq in range(first, last + 1):
        decisions = pending(RULESET, replica.state(game_id, at=seq))
        automatic = (DecisionKind.ENTROPY, DecisionKind.REVEAL)
        if decisions and decisions[0].seats[0] == "alliance" and decisions[0].kind in automatic:
            owed[seq] = str(decisions[0].kind)
    return owed


def events_of(replica: Replica) -> list[tuple[int, int, bytes]]:
    rows = replica.store.all("SELECT seq, idx, event FROM events ORDER BY seq, idx")
    return [(int(seq), int(idx), bytes(event)) for seq, idx, event in rows]
