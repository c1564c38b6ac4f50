"""Two real homes (Alice for the Coalition, Bob for the Alliance) playing through loopback mail.

Everything is real: SQLite stores in ``tmp_path``, unencrypted identity key files, signed
packets, the loopback transport and `mail.sync`. The clock is a counter, so nothing depends on
the wall clock. Helpers are plain functions (import them from ``tests.saves.conftest``); the
fixtures build the homes and, for most tests, an accepted game of The Wind.
"""

from __future__ import annotations

import asyncio
import itertools
import shutil
import sqlite3
from collections.abc import Container, Iterator, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from engine.core import entropy
from engine.core.owed import pending
from engine.core.packets import VerifiedPacket, open_packet
from engine.core.ruleset import DecisionKind
from engine.core.text import said
from engine.fe import FE, RULESET
from mail.loopback import LoopbackNetwork, LoopbackTransport
from mail.sync import SyncReport, sync
from mail.transport import FetchResult, IncomingPacket
from saves import joins, outbox, vault
from saves.home import Home
from saves.replica import GameRow, Replica, lookup_in
from tests.engine.fe.helpers import setup_items

SCENARIO = "the-wind"
CHAIN_LENGTH = 1024
"""A short entropy chain keeps game creation fast; no test signs anywhere near this many."""

_TICKS = itertools.count()


class Handed:
    """A transport that hands over a fixed list of items, once (hostile input in tests)."""

    name = "handed"

    def __init__(self, items: list[IncomingPacket]) -> None:
        self.items = items

    async def send(self, packet: object) -> str:
        raise AssertionError("nothing is sent here")

    async def fetch(self, cursor: str, seen: Container[str]) -> FetchResult:
        return FetchResult([i for i in self.items if i.ref not in seen], cursor="")

    async def close(self) -> None:
        pass


class NotesTransport(LoopbackTransport):
    """A loopback transport that also sends plain notes, as mail does (what
    `mail.sync.ask_for_damaged` writes), and keeps them: ``(to, subject, lines)``."""

    def __init__(self, network: LoopbackNetwork, name: str) -> None:
        super().__init__(network, name)
        self.notes: list[tuple[list[str], str, list[str]]] = []

    async def send_text(
        self, to: Sequence[str], subject: str, lines: Sequence[str], references: Sequence[str]
    ) -> str:
        self.notes.append((list(to), subject, list(lines)))
        return f"note {len(self.notes)}"


def now() -> str:
    """A deterministic, strictly increasing clock (never the wall clock)."""
    tick = next(_TICKS)
    return f"2030-01-01T{tick // 3600 % 24:02d}:{tick // 60 % 60:02d}:{tick % 60:02d}.{tick:09d}Z"


class Snapshot(NamedTuple):
    """A game's head and the sizes of its log, as one home holds them."""

    head_seq: int
    state_hash: bytes
    frozen: str | None
    packets: int
    events: int
    snapshots: int
    outbox: int
    buffered: int


class Player:
    """One home with an unlocked replica and its own transport on the shared network."""

    def __init__(self, path: Path, name: str, address: str, network: LoopbackNetwork) -> None:
        self.name = name
        self.address = address
        self.home = Home(path)
        if self.home.identity_info() is None:
            self.home.create_identity(name, address, None, scrypt_n=2)
        self.replica: Replica = self.home.replica(unlock=True)
        self.transport = LoopbackTransport(network, f"loopback:{name.lower()}")

    @property
    def key(self) -> Ed25519PrivateKey:
        """The unlocked identity key (what opens this home's sealed seeds and secrets)."""
        identity = self.replica.identity
        assert identity is not None and identity.key is not None
        return identity.key

    @property
    def public_key(self) -> bytes:
        identity = self.replica.identity
        assert identity is not None
        return identity.public_key

    def sync(self) -> SyncReport:
        return asyncio.run(sync(self.replica, self.transport, now))

    def reopen(self) -> None:
        """Close the store and open it again (everything must come back from disk)."""
        self.home.close()
        self.replica = self.home.replica(unlock=True)

    def copy_home(self, path: Path, name: str, network: LoopbackNetwork) -> Player:
        """A second, independent home made from a copy of this one's folder (same key, seeds)."""
        self.home.close()  # checkpoints the WAL, so the copy holds every committed transaction
        shutil.copytree(self.home.path, path)
        self.replica = self.home.replica(unlock=True)
        return Player(path, name, self.address, network)

    def close(self) -> None:
        self.home.close()

    def handed_over(self, game_id: bytes) -> None:
        """Mark what this home's outbox holds for the game as sent: the test handed those
        packets over itself (`play_notes`), or means them lost in the mail."""
        for entry in outbox.unsent(self.replica.store, game_id):
            outbox.mark_sent(self.replica.store, entry.id, now())

    # --- reading the store -----------------------------------------------------------------

    def row(self, game_id: bytes) -> GameRow:
        return self.replica.game(game_id)

    def count(self, table: str, game_id: bytes | None = None) -> int:
        if game_id is None:
            found = self.replica.store.one(f"SELECT COUNT(*) FROM {table}")
        else:
            found = self.replica.store.one(
                f"SELECT COUNT(*) FROM {table} WHERE game_id = ?", (game_id,)
            )
        assert found is not None
        return int(found[0])

    def packet(self, game_id: bytes, seq: int) -> bytes:
        """The stored bytes of packet ``seq``."""
        found = self.replica.store.one(
            "SELECT data FROM packets WHERE game_id = ? AND seq = ?", (game_id, seq)
        )
        assert found is not None, f"{self.name} holds no packet {seq}"
        return bytes(found[0])

    def opened(self, game_id: bytes, seq: int) -> VerifiedPacket:
        """Packet ``seq`` verified against the keys of the state before it."""
        state = None if seq == 0 else self.replica.state(game_id, at=seq - 1)
        return open_packet(self.packet(game_id, seq), lookup_in(state))

    def snapshot(self, game_id: bytes) -> Snapshot:
        """What a refused packet must not change: head, state hash, freeze and the log's sizes."""
        row = self.row(game_id)
        return Snapshot(
            row.head_seq,
            row.state_hash,
            row.frozen,
            self.count("packets", game_id),
            self.count("events", game_id),
            self.count("snapshots", game_id),
            self.count("outbox", game_id),
            self.count("buffered", game_id),
        )


@pytest.fixture
def network() -> LoopbackNetwork:
    return LoopbackNetwork()


@pytest.fixture
def alice(tmp_path: Path, network: LoopbackNetwork) -> Iterator[Player]:
    player = Player(tmp_path / "alice", "Alice", "alice@example.org", network)
    yield player
    player.close()


@pytest.fixture
def bob(tmp_path: Path, network: LoopbackNetwork) -> Iterator[Player]:
    player = Player(tmp_path / "bob", "Bob", "bob@example.org", network)
    yield player
    player.close()


@pytest.fixture
def game(alice: Player, bob: Player) -> bytes:
    """An accepted game of The Wind: Alice (coalition) created it, Bob (alliance) joined."""
    return start_game(alice, bob)


@pytest.fixture
def joined(alice: Player, bob: Player) -> bytes:
    """An accepted game of The Wind still at its first set-up step (packet 1)."""
    return start_game(alice, bob, setup=False)


def first_setup(player: Player, game_id: bytes) -> list[dict[str, Any]]:
    """The orders that set up the empire placing now in ``game_id``."""
    rules = player.replica.state(game_id).rules
    assert rules is not None
    return setup_items(rules)


@pytest.fixture
def players(alice: Player, bob: Player) -> dict[str, Player]:
    return {"coalition": alice, "alliance": bob}


# --- helpers ---------------------------------------------------------------------------------


def create_game(alice: Player, opponent: str = "bob@example.org", name: str = "wind") -> bytes:
    return alice.replica.create(
        RULESET,
        SCENARIO,
        "coalition",
        opponent,
        name=name,
        now=now(),
        chain_length=CHAIN_LENGTH,
    )


def invite_to_tutorial(alice: Player, bob: Player, name: str) -> bytes:
    """Alice creates a tutorial game named ``name`` (coalition) and invites Bob; nothing is
    sent yet."""
    return alice.replica.create(
        RULESET, "tutorial", "coalition", bob.address, name=name, now=now(),
        chain_length=CHAIN_LENGTH,
    )  # fmt: skip


def join_tutorial(alice: Player, bob: Player, name: str, *, accept_key: bool = True) -> bytes:
    """Alice's tutorial game named ``name`` that Bob has joined; with ``accept_key`` Alice
    has accepted his key too, and Bob holds her acceptance (his alliance sets up first)."""
    game_id = invite_to_tutorial(alice, bob, name)
    alice.sync()
    bob.sync()
    bob.replica.accept(game_id, now=now(), chain_length=CHAIN_LENGTH)
    exchange(bob, alice)
    if accept_key:
        accept_join(alice, bob, game_id)
    return game_id


def start_game(alice: Player, bob: Player, *, setup: bool = True) -> bytes:
    """Alice creates a game and invites Bob; Bob accepts; both hold the started game, past
    its set-up stage unless ``setup`` is False (then coalition owes its first placement)."""
    game_id = create_game(alice)
    alice.sync()
    bob.sync()
    bob.replica.accept(game_id, now=now(), chain_length=CHAIN_LENGTH)
    exchange(bob, alice)
    accept_join(alice, bob, game_id)
    if setup:
        play_setup({"coalition": alice, "alliance": bob}, game_id)
    return game_id


def accept_join(creator: Player, joiner: Player, game_id: bytes) -> None:
    """The creator accepts the key that joined (`saves.joins`); if that signs an acceptance
    packet (the joiner moves next), it is delivered."""
    done = joins.accept(creator.replica, game_id, now=now())
    if done.packet_seq is not None:
        exchange(creator, joiner)


def play_setup(players: dict[str, Player], game_id: bytes) -> None:
    """Each seat sets up its empires (default placements) until turn 1 begins."""
    while True:
        state = next(iter(players.values())).replica.state(game_id)
        if state.rules is None or not state.rules.setup:
            return
        author, other = owner(players, game_id)
        author.replica.submit(game_id, setup_items(state.rules), now=now())
        exchange(author, other)


def exchange(first: Player, second: Player) -> None:
    """Deliver what ``first`` queued to ``second`` and bring any automatic reply back."""
    first.sync()
    second.sync()
    first.sync()


def owner(players: dict[str, Player], game_id: bytes) -> tuple[Player, Player]:
    """The player who owes the next move, and the other one."""
    state = next(iter(players.values())).replica.state(game_id)
    seat = pending(RULESET, state)[0].seats[0]
    other = next(p for s, p in players.items() if s != seat)
    return players[seat], other


def play_notes(players: dict[str, Player], game_id: bytes, packets: int) -> None:
    """``packets`` packets of one note each, every one by the seat that owes the move and
    received by the other: a chain to replay that changes nothing but its length."""
    for index in range(packets):
        author, other = owner(players, game_id)
        items = [{"type": "note", "text": f"n{index}"}]
        sub = author.replica.submit(game_id, items, now=now())
        other.replica.receive(author.packet(game_id, sub.seq), source="test", now=now())


def advance(players: dict[str, Player], game_id: bytes, target: str) -> None:
    """Both seats mark their manual steps done until the game reaches step ``target``."""
    while True:
        state = next(iter(players.values())).replica.state(game_id)
        decision = pending(RULESET, state)[0]
        if decision.step == target:
            return
        assert decision.kind == DecisionKind.ORDERS, decision
        author, other = owner(players, game_id)
        count = _dones(decision.seats[0], state, target)
        author.replica.submit(game_id, [{"type": "done"}] * count, now=now())
        exchange(author, other)


BATTLE_HEX = "0303"
ATTACK = {
    "type": "move",
    "units": ["KZI-0016", "KZI-0017", "KZI-0018"],
    "path": ["0701", "0601", "0502", "0402", "0303"],
}
"""The alliance's move in turn 1: a Kzinti carrier and its two escorts from the Count's Fleet
onto the Lyran Red Claw Fleet, so its combat phase has a battle (without one the phase passes
by itself, 302.9, and nobody commits a secret)."""
GROUPS: list[dict[str, object]] = [{"carrier": "KZI-0016", "escorts": ["KZI-0017", "KZI-0018"]}]
"""The alliance's carrier group in that battle (515.15), chosen with its force (`FORCE`)."""
SECRET_STEP = "5-3E"
"""The secret step of that battle both seats are asked at: from fe 5.10 the carrier groups,
the flagship and the battle force at once (`engine.fe.steps.force_together`)."""
FORCE: dict[str, object] = {
    "flagship": "KZI-0016",
    "groups": GROUPS,
    "units": ["KZI-0016", "KZI-0017", "KZI-0018"],
}
"""The alliance's choice there (it attacks, so it commits first): its carrier and the two
escorts, the carrier flagship. Its bytes are found nowhere else in the game (the secrecy
tests look for them); its keys are in canonical order, so the reveal event prints it as
written here (`FORCE_TEXT`)."""
FORCE_TEXT = f"alliance: {said(FORCE)}"
"""How the reveal event of 5-3E prints that choice."""
COALITION_FORCE: dict[str, object] = {"flagship": "LYR-0077", "units": ["LYR-0077"]}
"""The coalition's choice there, committed second (and so revealed at once)."""


def to_battle(players: dict[str, Player], game_id: bytes) -> None:
    """Play turn 1 to the secret step both seats owe, `SECRET_STEP`, in the battle `ATTACK`
    makes; the alliance, attacking, commits first."""
    advance(players, game_id, "3B2")  # the coalition's movement: nothing moves
    coalition, alliance = players["coalition"], players["alliance"]
    assert owner(players, game_id)[0] is coalition
    coalition.replica.submit(game_id, [{"type": "done"}], now=now())
    exchange(coalition, alliance)
    advance(players, game_id, "3B2")
    assert owner(players, game_id)[0] is alliance
    alliance.replica.submit(game_id, [ATTACK, {"type": "done"}], now=now())
    exchange(alliance, coalition)
    advance(players, game_id, SECRET_STEP)
    owed = pending(RULESET, alliance.replica.state(game_id))[0]
    assert (owed.step, owed.seats) == (SECRET_STEP, ("alliance",)), owed


def play_secrets(players: dict[str, Player], game_id: bytes) -> None:
    """From `to_battle`: both secret choices of `SECRET_STEP` (the alliance's first, as the
    attacker, then the coalition's), each revealed by the automatic replies."""
    alliance, coalition = players["alliance"], players["coalition"]
    alliance.replica.submit(game_id, [{"type": "secret", "choice": FORCE}], now=now())
    exchange(alliance, coalition)
    coalition.replica.submit(game_id, [{"type": "secret", "choice": COALITION_FORCE}], now=now())
    exchange(coalition, alliance)


def seed_chain(player: Player, game_id: bytes, seat: str) -> entropy.EntropyChain:
    """The seat's entropy chain, rebuilt from the seed its home keeps (sealed: `saves.vault`)."""
    found = vault.read_seed(player.replica.store, player.key, game_id, seat)
    assert found is not None
    return entropy.EntropyChain(found[0], found[1])


def kept_secret(player: Player, game_id: bytes) -> tuple[str, str, bytes, bytes]:
    """``(key, seat, salt, choice)`` of the secret choice a home keeps for a game's
    `SECRET_STEP`."""
    row = player.replica.store.one(
        "SELECT key, seat FROM secrets WHERE game_id = ? AND key LIKE ?",
        (game_id, f"%/{SECRET_STEP}/%"),
    )
    assert row is not None
    name, seat = str(row[0]), str(row[1])
    found = vault.read_secret(player.replica.store, player.key, game_id, name, seat)
    assert found is not None
    return name, seat, *found


def replace_choice(player: Player, game_id: bytes, choice: bytes) -> None:
    """Keep another choice (same salt, properly sealed) for the game's secret of
    `SECRET_STEP`: what a damaged home or a cheating client would hold."""
    name, seat, salt, _ = kept_secret(player, game_id)
    store = player.replica.store
    with store.transaction() as db:
        db.execute("DELETE FROM secrets WHERE game_id = ? AND key = ?", (game_id, name))
        vault.write_secret(store, player.key, game_id, name, seat, salt, choice)


def _dones(seat: str, state: Any, target: str) -> int:
    return len(FE.own_run(state.rules, seat, target))


def make_older(path: Path, table: str, column: str, schema: int) -> None:
    """Turn the closed home database at ``path`` back into one an older hexpost made: without
    ``column`` of ``table`` (added at schema ``schema`` + 1), its schema noted as ``schema``."""
    old = sqlite3.connect(path, isolation_level=None)
    try:
        old.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
        old.execute("UPDATE meta SET value = ? WHERE key = 'schema'", (str(schema),))
    finally:
        old.close()


def asks_and_is_sent(
    home: Player, other: Player, network: LoopbackNetwork, game: bytes, seq: int
) -> None:
    """``home``'s sync by mail asks ``other`` for packet ``seq`` (a lost packet: its note and
    signed ask), which ``other``'s next sync sends by itself; then ``home``'s game verifies,
    at ``other``'s state."""
    notes = NotesTransport(network, home.transport.name)
    report = asyncio.run(sync(home.replica, notes, now))
    assert [line.split(" (")[0] for line in report.requests] == [
        f"asked {other.address} to send packet {seq} of {home.row(game).name} again"
    ]
    other.sync()
    home.sync()
    assert home.replica.verify(game) == other.row(game).state_hash
