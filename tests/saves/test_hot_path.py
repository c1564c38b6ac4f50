"""The hot path does each expensive thing once: a packet this home writes is applied by the engine
once (the check before signing; signing and storing reuse its result), and a received copy's
Ed25519 signature is checked once, however many copies of it an email holds or however often it
arrives.

Counting is done by wrapping the real functions wherever a module bound them, so whichever
module does the work is counted; nothing here measures time.
"""

from __future__ import annotations

import asyncio
import sqlite3
import sys
from collections import Counter
from collections.abc import Callable, Container
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from engine.core import author, packets
from engine.core.game import apply_packet
from engine.core.state import encode_state
from engine.fe import RULESET
from mail.sync import pull
from mail.transport import FetchResult, IncomingPacket, OutgoingPacket
from tests.saves.conftest import CHAIN_LENGTH, Player, create_game, now

_OUR_PACKAGES = ("engine", "saves", "mail", "tui", "tests")


def count_calls(monkeypatch: pytest.MonkeyPatch, original: Callable[..., Any]) -> list[Any]:
    """Replace ``original`` in every module of ours that bound it; returns the list of calls."""
    calls: list[Any] = []

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        return original(*args, **kwargs)

    for name, module in list(sys.modules.items()):
        if module is None or name.split(".")[0] not in _OUR_PACKAGES:
            continue
        for attribute, value in list(vars(module).items()):
            if value is original:
                monkeypatch.setattr(module, attribute, counting)
    return calls


class _CountedKey:
    """A public key that counts its signature checks by (signature, message): one per copy."""

    def __init__(self, key: Ed25519PublicKey, checks: Counter[tuple[bytes, bytes]]) -> None:
        self.key = key
        self.checks = checks

    def verify(self, signature: bytes, message: bytes) -> None:
        self.checks[(signature, message)] += 1
        self.key.verify(signature, message)


def count_signature_checks(monkeypatch: pytest.MonkeyPatch) -> Counter[tuple[bytes, bytes]]:
    """Count every Ed25519 check `engine.core.packets.open_packet` makes, per copy checked."""
    checks: Counter[tuple[bytes, bytes]] = Counter()
    real = packets._public_key

    def counted(raw: bytes) -> Any:
        return _CountedKey(real(raw), checks)

    monkeypatch.setattr(packets, "_public_key", counted)
    return checks


def flipped(data: bytes, index: int = 40) -> bytes:
    """``data`` with one byte of its signature changed: a damaged copy."""
    changed = bytearray(data)
    changed[index] ^= 0x01
    return bytes(changed)


class Copies:
    """A transport that hands out prepared items (as an email with several copies would)."""

    name = "copies"

    def __init__(self, items: list[IncomingPacket]) -> None:
        self.items = items

    async def send(self, packet: OutgoingPacket) -> str:
        return ""

    async def fetch(self, cursor: str, seen: Container[str]) -> FetchResult:
        return FetchResult([i for i in self.items if i.ref not in seen], "")

    async def close(self) -> None:
        pass


# --- a packet this home writes is applied once --------------------------------------------------


def test_a_submitted_packet_is_applied_once(
    monkeypatch: pytest.MonkeyPatch, alice: Player, bob: Player, game: bytes
) -> None:
    applied = count_calls(monkeypatch, apply_packet)
    submitted = alice.replica.submit(game, [{"type": "note", "text": "hello"}], now=now())
    assert len(applied) == 1, "the check before signing is the only application"
    assert submitted.packet_id is not None
    monkeypatch.undo()
    assert alice.replica.verify(game), "what was stored is what a replay from genesis gives"


def test_a_dry_run_applies_once_and_stores_nothing(
    monkeypatch: pytest.MonkeyPatch, alice: Player, bob: Player, game: bytes
) -> None:
    before = alice.snapshot(game)
    applied = count_calls(monkeypatch, apply_packet)
    drafted = alice.replica.submit(game, [{"type": "note", "text": "hi"}], now=now(), dry_run=True)
    assert len(applied) == 1
    assert drafted.packet_id is None and drafted.state is not None
    assert alice.snapshot(game) == before


def test_creating_and_joining_apply_each_packet_once(
    monkeypatch: pytest.MonkeyPatch, alice: Player, bob: Player
) -> None:
    applied = count_calls(monkeypatch, apply_packet)
    game_id = create_game(alice)
    assert len(applied) == 1, "the genesis"
    alice.sync()
    bob.sync()  # Bob takes the invitation in: one application, by his inbox
    assert len(applied) == 2
    bob.replica.accept(game_id, now=now(), chain_length=CHAIN_LENGTH)
    assert len(applied) == 3, "the join"


def test_a_packet_signed_once_is_what_the_engine_would_sign(
    alice: Player, bob: Player, game: bytes
) -> None:
    """Reusing the check's result must give the very bytes and state `author.write` gives (the
    engine's own writer, which applies twice): Ed25519 signatures are deterministic."""
    alice.replica.submit(game, [{"type": "note", "text": "same bytes"}], now=now())
    seq = alice.row(game).head_seq
    stored = alice.opened(game, seq)
    before = alice.replica.state(game, at=seq - 1)
    packet, result = author.write(RULESET, before, stored.body, alice.key)
    assert packet.data == stored.data
    assert encode_state(result.state) == encode_state(alice.replica.state(game))
    assert [(s, e) for s, e in alice.replica.events(game) if s == seq] == [
        (seq, e) for e in result.events
    ]
    genesis = alice.opened(game, 0)
    packet, result = author.write(RULESET, None, genesis.body, alice.key)
    assert packet.data == genesis.data
    assert encode_state(result.state) == encode_state(alice.replica.state(game, at=0))


# --- a received copy's signature is checked once ------------------------------------------------


def test_duplicate_copies_are_verified_once(
    monkeypatch: pytest.MonkeyPatch, alice: Player, bob: Player, game: bytes
) -> None:
    """An email holds a damaged copy and two good ones: each copy is checked at most once, the
    good packet once in all (the first good copy is taken in, the second never needs a look)."""
    alice.replica.submit(game, [{"type": "note", "text": "copies"}], now=now())
    data = alice.packet(game, alice.row(game).head_seq)
    checks = count_signature_checks(monkeypatch)
    item = IncomingPacket("mail-1", flipped(data), alternatives=(data, data))
    (outcome,) = asyncio.run(pull(bob.replica, Copies([item]), now))
    assert outcome.status == "applied"
    assert max(checks.values()) == 1, f"a copy was checked more than once: {checks}"
    good = packets.read_envelope(data).signature
    assert sum(n for (signature, _), n in checks.items() if signature == good) == 1


def test_a_packet_that_arrives_twice_is_verified_once(
    monkeypatch: pytest.MonkeyPatch, alice: Player, bob: Player, game: bytes
) -> None:
    alice.replica.submit(game, [{"type": "note", "text": "twice"}], now=now())
    data = alice.packet(game, alice.row(game).head_seq)
    checks = count_signature_checks(monkeypatch)
    first = bob.replica.receive(data, source="mail 1", now=now())
    second = bob.replica.receive(data, source="mail 2", now=now())
    assert (first.status, second.status) == ("applied", "duplicate")
    assert second.seq == first.seq and second.game_id == game
    assert sum(checks.values()) == 1


def test_an_early_packet_that_arrives_twice_is_verified_once(
    monkeypatch: pytest.MonkeyPatch, alice: Player, bob: Player, game: bytes
) -> None:
    """A packet held for the ones before it, delivered again, is still held: not checked anew."""
    alice.replica.submit(game, [{"type": "note", "text": "one"}], now=now())
    alice.replica.submit(game, [{"type": "note", "text": "two"}], now=now())
    head = alice.row(game).head_seq
    early = alice.packet(game, head)
    checks = count_signature_checks(monkeypatch)
    first = bob.replica.receive(early, source="mail 1", now=now())
    second = bob.replica.receive(early, source="mail 2", now=now())
    assert (first.status, second.status) == ("buffered", "buffered")
    assert second.detail == first.detail
    assert sum(checks.values()) == 1
    assert bob.count("buffered", game) == 1
    monkeypatch.undo()
    done = bob.replica.receive(alice.packet(game, head - 1), source="mail 3", now=now())
    assert done.applied == [head - 1, head]


def test_a_copy_with_a_changed_signature_is_not_taken_for_the_stored_one(
    alice: Player, bob: Player, game: bytes
) -> None:
    """Skipping the check for a copy already held must not let altered bytes pass as held: a
    copy whose signature differs from the stored packet's is checked, and refused or ignored."""
    alice.replica.submit(game, [{"type": "note", "text": "held"}], now=now())
    seq = alice.row(game).head_seq
    data = alice.packet(game, seq)
    assert bob.replica.receive(data, source="mail 1", now=now()).status == "applied"
    damaged = bob.replica.receive(flipped(data), source="mail 2", now=now())
    assert damaged.status == "ignored", damaged.detail
    assert "damaged copy" in damaged.detail
    assert bob.packet(game, seq) == data


def test_an_altered_copy_of_a_held_packet_is_checked_and_refused(
    alice: Player, bob: Player, game: bytes
) -> None:
    """The buffer's shortcut needs the very bytes held: a copy of a held packet with another
    signature is checked like any stranger's, and refused."""
    alice.replica.submit(game, [{"type": "note", "text": "one"}], now=now())
    alice.replica.submit(game, [{"type": "note", "text": "two"}], now=now())
    early = alice.packet(game, alice.row(game).head_seq)
    assert bob.replica.receive(early, source="mail 1", now=now()).status == "buffered"
    forged = bob.replica.receive(flipped(early), source="mail 2", now=now())
    assert forged.status == "rejected"
    assert "bad signature" in forged.detail
    assert bob.count("buffered", game) == 1


def test_a_packet_an_older_version_held_is_checked_when_applied(
    monkeypatch: pytest.MonkeyPatch, alice: Player, bob: Player, game: bytes
) -> None:
    """A held packet without the key it verified under (held before that was kept) is checked
    again when its turn comes, and applied as before."""
    alice.replica.submit(game, [{"type": "note", "text": "one"}], now=now())
    alice.replica.submit(game, [{"type": "note", "text": "two"}], now=now())
    head = alice.row(game).head_seq
    assert bob.replica.receive(alice.packet(game, head), source="m", now=now()).status == (
        "buffered"
    )
    with bob.replica.store.transaction() as db:
        db.execute("UPDATE buffered SET public_key = NULL")
    checks = count_signature_checks(monkeypatch)
    done = bob.replica.receive(alice.packet(game, head - 1), source="m", now=now())
    assert done.applied == [head - 1, head]
    assert sum(checks.values()) == 2, "the new packet, and the held one without its key"
    monkeypatch.undo()
    assert bob.replica.verify(game) == alice.replica.verify(game)


def test_an_older_homes_buffer_gets_the_key_column_and_its_packets_still_apply(
    alice: Player, bob: Player, game: bytes
) -> None:
    alice.replica.submit(game, [{"type": "note", "text": "one"}], now=now())
    alice.replica.submit(game, [{"type": "note", "text": "two"}], now=now())
    head = alice.row(game).head_seq
    assert bob.replica.receive(alice.packet(game, head), source="m", now=now()).status == (
        "buffered"
    )
    path = bob.replica.store.path
    bob.close()
    old = sqlite3.connect(path, isolation_level=None)
    old.execute("ALTER TABLE buffered DROP COLUMN public_key")  # as a home before it was kept
    old.close()
    bob.reopen()
    columns = {row[1] for row in bob.replica.store.all("PRAGMA table_info(buffered)")}
    assert "public_key" in columns
    done = bob.replica.receive(alice.packet(game, head - 1), source="m", now=now())
    assert done.applied == [head - 1, head]
