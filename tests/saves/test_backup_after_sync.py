"""A home that keeps a backup after each sync (``hexpost backup FOLDER --after-each-sync``):
every sync that receives or sends a packet replaces that backup; one that changes nothing
leaves it be; one whose backup cannot be made still syncs, with a warning."""

from __future__ import annotations

from pathlib import Path

from tests.saves.conftest import Player, now
from tests.saves.test_backup import photos_in
from tui.services import sync as service


def _packets_in(folder: Path) -> int:
    import sqlite3

    db = sqlite3.connect(folder / "hexpost.sqlite3")
    try:
        return int(db.execute("SELECT COUNT(*) FROM packets").fetchone()[0])
    finally:
        db.close()


def test_each_sync_that_changes_the_home_replaces_its_backup(
    alice: Player, bob: Player, game: bytes, tmp_path: Path
) -> None:
    folder = tmp_path / "kept"
    service.keep_backup_after_sync(alice.home, str(folder))
    assert service.backup_folder(alice.home) == str(folder)

    alice.replica.submit(game, [{"type": "note", "text": "one"}], now=now())
    sent = alice.sync()
    assert sent.sent
    lines = service.backup_after(alice.home, sent, now)
    assert [(line.kind, line.text.split(" to ")[0]) for line in lines] == [
        ("note", f"backed up the identity key, 1 game ({alice.count('packets')} packets)")
    ]
    assert _packets_in(folder) == alice.count("packets")

    quiet = alice.sync()  # nothing new (its own packet again, a duplicate): the backup stays
    assert not quiet.sent and not any(outcome.applied for outcome in quiet.received)
    assert service.backup_after(alice.home, quiet, now) == []

    bob.sync()
    alice.replica.submit(game, [{"type": "note", "text": "two"}], now=now())
    again = alice.sync()
    assert service.backup_after(alice.home, again, now)[0].kind == "note"
    assert _packets_in(folder) == alice.count("packets")

    # Receiving counts as much as sending: Bob's home backs up when Alice's packet applies.
    service.keep_backup_after_sync(bob.home, str(tmp_path / "bobs"))
    received = bob.sync()
    assert any(outcome.applied for outcome in received.received) and not received.sent
    assert service.backup_after(bob.home, received, now)[0].kind == "note"
    assert _packets_in(tmp_path / "bobs") == bob.count("packets")

    service.keep_backup_after_sync(alice.home, None)
    assert service.backup_folder(alice.home) is None
    alice.replica.submit(game, [{"type": "note", "text": "three"}], now=now())
    assert service.backup_after(alice.home, alice.sync(), now) == []


def test_a_backup_that_cannot_be_made_warns_and_the_sync_stands(
    alice: Player, game: bytes, tmp_path: Path
) -> None:
    taken = photos_in(tmp_path / "taken")
    service.keep_backup_after_sync(alice.home, str(taken))
    alice.replica.submit(game, [{"type": "note", "text": "one"}], now=now())
    report = alice.sync()
    lines = service.backup_after(alice.home, report, now)
    assert [line.kind for line in lines] == ["warning"]
    assert "no backup after this sync" in lines[0].text and "holiday.jpg" in lines[0].text
    assert report.sent and sorted(p.name for p in taken.iterdir()) == ["holiday.jpg"]
