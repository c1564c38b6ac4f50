"""The home's database itself unusable: one line that says which file and what to do.

A damaged file (a bad disk, a copy cut short), something else at its path, or a disk that
fills up while a command writes: SQLite raises its own errors, which reached the player as a
traceback. Each is now said in one line that names the database and what to do, and a change
under way when the disk filled is undone whole (each change is one transaction).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from engine.core.packets import VerifiedPacket
from saves import ledger, quarantine, store_inbox
from saves import store as store_module
from saves.archive import export_game
from saves.home import Home
from saves.inbox import retry_parked
from saves.store import Store, StoreError, TransactionLost
from tests.saves.conftest import Player, create_game, now, owner
from tui.cli import main


def _db(player: Player) -> Path:
    return player.home.db_path


@pytest.mark.parametrize(
    ("damage", "said"),
    [
        ("garbage", "file is not a database; it is damaged"),
        ("cut short", "it is damaged"),
        ("a folder", "unable to open database file"),
    ],
)
def test_a_database_that_cannot_be_opened_is_said_in_one_line(
    bob: Player, game: bytes, damage: str, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _db(bob)
    bob.close()
    data = path.read_bytes()
    for extra in (Path(f"{path}-wal"), Path(f"{path}-shm")):
        extra.unlink(missing_ok=True)
    if damage == "garbage":
        path.write_bytes(b"x" * 9000)
    elif damage == "cut short":
        path.write_bytes(data[: len(data) // 3])
    else:
        path.unlink()
        path.mkdir()

    with pytest.raises(StoreError, match=str(path)) as caught:
        Store(path)
    assert said in str(caught.value)

    assert main(["--home", str(bob.home.path), "games"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"hexpost: the home's database {path}: ")
    assert said in err
    assert err.count("\n") == 1 and "Traceback" not in err


def _full(monkeypatch: pytest.MonkeyPatch) -> None:
    """From now on a store opened may not grow (as on a full disk): SQLite refuses what
    needs another page, with its own error."""
    opened = Store.__init__

    def full(self: Store, *args: Any) -> None:
        opened(self, *args)
        pages = self.db.execute("PRAGMA page_count").fetchone()[0]
        self.db.execute(f"PRAGMA max_page_count = {pages}")

    monkeypatch.setattr(store_module.Store, "__init__", full)


def test_a_full_disk_while_writing_undoes_the_change_and_says_so(
    alice: Player,
    bob: Player,
    game: bytes,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Importing a game (its packets, states and events: many new pages) into a home whose
    database may not grow is refused in one line, and nothing of it is kept."""
    other = create_game(alice, name="other")
    archive = tmp_path / "other.hexpost"
    archive.write_bytes(export_game(alice.replica, other))
    path = _db(bob)
    games = len(bob.replica.games())
    bob.close()
    _full(monkeypatch)
    assert main(["--home", str(bob.home.path), "import", str(archive)]) == 1
    _, err = capsys.readouterr()
    assert err.startswith(f"hexpost: the home's database {path}: database or disk is full; ")
    assert "undone whole" in err and err.count("\n") == 1
    monkeypatch.undo()
    home = Home(bob.home.path)
    try:
        assert len(home.replica().games()) == games
    finally:
        home.close()


def test_a_change_the_database_has_no_room_for_is_undone_and_the_next_one_goes_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite ends the transaction itself when the disk is full: the store's own rollback
    must not then fail in its turn and hide the reason (it said "cannot rollback")."""
    _full(monkeypatch)
    store = Store(tmp_path / "home.sqlite3")
    try:
        full = pytest.raises(sqlite3.OperationalError, match="database or disk is full")
        with full, store.transaction() as db:
            db.execute("INSERT INTO meta VALUES ('small', 'x')")
            db.execute("INSERT INTO meta VALUES ('big', ?)", ("x" * 100_000,))
        assert store.one("SELECT COUNT(*) FROM meta WHERE key IN ('small', 'big')") == (0,)
        store.db.execute("PRAGMA max_page_count = 1000000")
        with store.transaction() as db:
            db.execute("INSERT INTO meta VALUES ('small', 'x')")
        assert store.one("SELECT value FROM meta WHERE key = 'small'") == ("x",)
    finally:
        store.close()


def test_the_database_error_is_sqlite_s_own_underneath() -> None:
    """(What the tests above read: SQLite's wording, which the line quotes.)"""
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE t (x)")
    db.execute("PRAGMA max_page_count = 2")
    with pytest.raises(sqlite3.OperationalError, match="database or disk is full"):
        db.executemany("INSERT INTO t VALUES (?)", [("x" * 4000,)] * 10)


def test_a_savepoint_whose_transaction_the_full_disk_ended_says_so_and_the_store_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One item of a batch runs under a savepoint; when the disk fills SQLite ends the whole
    transaction, so rolling back to the savepoint is no longer possible (it said "no such
    savepoint", and the batch went on writing outside any transaction). It says instead that
    the whole change is undone, and it passes the places that record one item's failure."""
    _full(monkeypatch)
    store = Store(tmp_path / "home.sqlite3")
    try:
        lost = pytest.raises(TransactionLost, match="database or disk is full")
        with lost as caught, store.transaction() as db:
            db.execute("INSERT INTO meta VALUES ('small', 'x')")
            with store.savepoint():
                db.execute("INSERT INTO meta VALUES ('big', ?)", ("x" * 100_000,))
        assert isinstance(caught.value, StoreError)
        assert not store.db.in_transaction
        assert store.one("SELECT COUNT(*) FROM meta WHERE key IN ('small', 'big')") == (0,)
    finally:
        store.close()


def test_a_batch_of_mail_into_a_full_database_keeps_nothing_and_marks_nothing_read(
    alice: Player, bob: Player, game: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bob's sync takes in Alice's packets while his database may not grow: the first fails
    whole (not stored, not marked read, so the next sync takes it in again) and says why, and
    the next sync, with room again, takes them all in."""
    for index in range(3):
        alice.replica.chat(game, f"message {index} " + "x" * 900, now=now())
    alice.sync()
    head = bob.row(game).head_seq
    bob.close()
    _full(monkeypatch)
    full = Player(bob.home.path, "Bob", bob.address, alice.transport.network)
    try:
        report = full.sync()
        rejected = [o for o in report.received if o.status == "rejected"]
        assert rejected and all("database or disk is full" in o.detail for o in rejected)
        # (A later packet may still fit, held until the first comes again: never applied.)
        assert {o.status for o in report.received} <= {"rejected", "buffered"}
        assert full.row(game).head_seq == head
    finally:
        full.close()
    monkeypatch.undo()
    again = Player(bob.home.path, "Bob", bob.address, alice.transport.network)
    try:
        report = again.sync()
        assert again.row(game).head_seq == head + 3
    finally:
        again.close()


def _unsent(author: Player, game: bytes) -> tuple[bytes, VerifiedPacket]:
    """A packet the author writes (a note too long for the other's database to grow by
    nothing) and does not send: its bytes, opened."""
    notes = [{"type": "note", "text": f"{index} " + "y" * 1900} for index in range(4)]
    sub = author.replica.submit(game, notes, now=now())
    return author.packet(game, sub.seq), author.opened(game, sub.seq)


@pytest.mark.parametrize("where", ["parked", "held"])
def test_a_full_disk_while_taking_in_a_kept_packet_undoes_the_whole_batch(
    players: dict[str, Player], game: bytes, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    """A packet kept aside (parked for its key, or held for its ruleset) that the disk has no
    room for when it is taken in again: SQLite ends the whole transaction, so the batch fails
    whole (nothing refused, nothing written outside it) instead of going on item by item."""
    author, other = owner(players, game)
    data, packet = _unsent(author, game)
    with other.replica.store.transaction():
        if where == "parked":
            quarantine.park(
                other.replica.store, packet.envelope.key_id, ledger.digest(data), data, now()
            )
        else:
            body = packet.body
            store_inbox.buffer(
                other.replica.store,
                game,
                body.seq,
                packet.packet_id,
                body.seat,
                data,
                now(),
                packet.public_key,
            )
    head = other.row(game).head_seq
    other.close()
    _full(monkeypatch)
    full = Player(other.home.path, "other", other.address, author.transport.network)
    try:
        with pytest.raises(TransactionLost, match="database or disk is full"):
            if where == "parked":
                with full.replica.store.transaction():
                    retry_parked(full.replica, now())
            else:
                full.replica.catch_up(now=now())
        assert full.row(game).head_seq == head
        assert full.count("rejected") == 0
    finally:
        full.close()
    monkeypatch.undo()
    again = Player(other.home.path, "other", other.address, author.transport.network)
    try:  # with room again, the kept packet goes in
        with again.replica.store.transaction():
            if where == "parked":
                retry_parked(again.replica, now())
        if where == "held":
            again.replica.catch_up(now=now())
        assert again.row(game).head_seq == head + 1
    finally:
        again.close()
