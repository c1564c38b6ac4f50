"""Random damage to any rows of a home's database, then the game goes on and is made whole.

A failing disk does not choose which table it hurts. Each case damages one to three random
rows of any table of Bob's home (a bit flipped, bytes cut short or replaced, a number or a
letter changed, or the row deleted), then the two players play on. Bob must end holding
Alice's game, checked by ``hexpost verify``, in one of three ways:

- by himself: the rows his packets derive are rebuilt from them;
- by mail with nobody's help: his sync asks for what it lost, or for a gap that lasts,
  Alice's answers, and his next syncs take the copies in;
- by following what ``verify`` says: where a stored packet no longer opens but the game
  reads on, it names the command, and the copy that command sends puts it right.

A longer run of this soak (thousands of seeds, kept out of the suite for time) found the
faults each mended with a test of its own; this is the net under them. The last seeds are
the numbers of that run's findings, though on this base game they damage other rows.
"""

from __future__ import annotations

import asyncio
import random
import re
import shutil
import sqlite3
from pathlib import Path
from typing import NamedTuple

import pytest

from engine.core.errors import HexpostError
from mail.loopback import LoopbackNetwork
from mail.sync import sync
from tests.saves.conftest import NotesTransport, Player, now, play_notes, start_game
from tui.services import games as listing
from tui.services.trust import resend

TABLES = (
    "games",
    "packets",
    "events",
    "snapshots",
    "game_keys",
    "entropy_seeds",
    "secrets",
    "known_keys",
    "mail_ids",
    "outbox",
    "meta",
    "identities",
)

SEEDS = (*range(120), 2027, 2208, 5125, 5157, 5245, 5317, 5352, 5355, 5378, 6342, 6445)


class Base(NamedTuple):
    root: Path
    game: bytes
    network: LoopbackNetwork


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Base:
    root = tmp_path_factory.mktemp("damage")
    network = LoopbackNetwork()
    alice = Player(root / "alice", "Alice", "alice@example.org", network)
    bob = Player(root / "bob", "Bob", "bob@example.org", network)
    try:
        game = start_game(alice, bob)
        play_notes({"coalition": alice, "alliance": bob}, game, 3)
    finally:
        alice.close()
        bob.close()
    return Base(root, game, network)


def _damage(path: Path, rng: random.Random) -> list[str]:
    """Damage one to three random rows of the database at ``path``; what was done."""
    db = sqlite3.connect(path)
    done: list[str] = []
    try:
        hits = rng.randint(1, 3)
        for _ in range(30 * hits):
            if len(done) >= hits:
                break
            table = rng.choice(TABLES)
            columns = [str(row[1]) for row in db.execute(f"PRAGMA table_info({table})")]
            rows = db.execute(f"SELECT rowid FROM {table}").fetchall()
            if not rows:
                continue
            rowid = rng.choice(rows)[0]
            if rng.random() < 0.1:
                db.execute(f"DELETE FROM {table} WHERE rowid = ?", (rowid,))
                done.append(f"{table} row {rowid} deleted")
                continue
            column = rng.choice(columns)
            (value,) = db.execute(
                f"SELECT {column} FROM {table} WHERE rowid = ?", (rowid,)
            ).fetchone()
            new: object
            if isinstance(value, bytes) and value:
                data = bytearray(value)
                how = rng.randrange(3)
                if how == 0:
                    data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
                elif how == 1:
                    data = data[: rng.randrange(len(data))]
                else:
                    data = bytearray(rng.randbytes(len(data)))
                new = bytes(data)
            elif isinstance(value, str) and value:
                at = rng.randrange(len(value))
                new = value[:at] + chr(ord(value[at]) ^ 1) + value[at + 1 :]
            elif isinstance(value, int):
                new = value + rng.choice((-1, 1, 7, -100))
            else:
                continue
            try:
                db.execute(f"UPDATE {table} SET {column} = ? WHERE rowid = ?", (new, rowid))
            except sqlite3.Error:
                continue  # (a constraint said no: no damage done)
            done.append(f"{table}.{column} row {rowid}")
        db.commit()
    finally:
        db.close()
    return done


def _mail_sync(player: Player, network: LoopbackNetwork, when: str) -> None:
    notes = NotesTransport(network, player.transport.name)
    asyncio.run(sync(player.replica, notes, lambda: when))


@pytest.mark.parametrize("seed", SEEDS)
def test_random_damage_is_mended_by_the_home_by_mail_or_by_what_verify_says(
    base: Base, tmp_path: Path, seed: int
) -> None:
    rng = random.Random(seed)
    shutil.copytree(base.root, tmp_path, dirs_exist_ok=True)
    done = _damage(tmp_path / "bob" / "hexpost.sqlite3", rng)
    network = LoopbackNetwork()
    network.messages = list(base.network.messages)  # (so new mail gets refs not seen before)
    alice = Player(tmp_path / "alice", "Alice", "alice@example.org", network)
    bob = Player(tmp_path / "bob", "Bob", "bob@example.org", network)
    game = base.game
    try:
        listing.summaries(bob.replica)
        play_notes({"coalition": alice, "alliance": bob}, game, 4)
        alice.handed_over(game)  # (handed over by play_notes)
        if bob.row(game).state_hash != alice.row(game).state_hash:
            _mail_sync(bob, network, "2099-01-01T00:00:00Z")  # (gaps have waited long)
            alice.sync()
            bob.sync()
            bob.sync()  # (what came while the game could not be read is held until now)
        try:
            bob.replica.verify(game)
        except HexpostError as exc:
            asked = re.search(
                r"`hexpost resend \S+ --from (\d+)(?: --to (\d+))? --every-seat`", str(exc)
            )
            assert asked is not None, f"{done}: {exc}"
            to_seq = None if asked[2] is None else int(asked[2])
            queued = resend(
                alice.replica, alice.row(game), int(asked[1]), now, every_seat=True, to_seq=to_seq
            )
            assert queued
            assert to_seq is None or max(queued) <= to_seq
            alice.sync()
            bob.sync()
        assert bob.row(game).state_hash == alice.row(game).state_hash, done
        assert bob.replica.verify(game) == alice.row(game).state_hash, done
    finally:
        alice.close()
        bob.close()
