"""`saves.backup`: a whole home copied in one go, taken while the home is in use, that goes on
as a home of its own; and refused, leaving nothing behind, where it cannot be made."""

from __future__ import annotations

import asyncio
import re
import sqlite3
import stat
from pathlib import Path

import pytest

from engine.core.errors import HexpostError
from mail.loopback import LoopbackNetwork, LoopbackTransport
from mail.sync import push, sync
from saves import backup, store_backup
from saves.backup import back_up, confirm
from saves.designs import designs_folder
from saves.home import Home
from saves.replies import auto_replies
from tests.saves.conftest import Player, exchange, now, owner
from tui.services.games import attention_notes
from tui.services.trust import resend


def photos_in(folder: Path) -> Path:
    """``folder`` made, holding a player's photo: a folder no backup may write into."""
    folder.mkdir()
    (folder / "holiday.jpg").write_bytes(b"\xff\xd8")
    return folder


def test_a_backup_goes_on_as_the_home_it_copied(
    alice: Player, bob: Player, game: bytes, network: LoopbackNetwork, tmp_path: Path
) -> None:
    """Alice signs a move, backs up before it is sent, and loses her disk: the copy sends
    the move from its outbox and the game goes on, both sides holding the same game."""
    (alice.home.path / "config.toml").write_text('[transport]\nkind = "loopback"\n')
    designs_folder(alice.home.path).mkdir()
    (designs_folder(alice.home.path) / "cruiser.toml").write_text("size = 10\n")
    sub = alice.replica.submit(game, [{"type": "note", "text": "before the crash"}], now=now())
    report = back_up(alice.home, tmp_path / "backup", now=now())
    assert (report.games, report.identity, report.designs) == (1, True, 1)
    assert report.packets == alice.count("packets")
    alice.close()  # the disk is gone

    copy = tmp_path / "backup"
    assert stat.S_IMODE(copy.stat().st_mode) == 0o700
    for name in ("identity.key", "hexpost.sqlite3", "config.toml"):
        assert stat.S_IMODE((copy / name).stat().st_mode) == 0o600, name
    assert (copy / "config.toml").read_bytes() == (alice.home.path / "config.toml").read_bytes()
    assert (copy / "designs" / "cruiser.toml").read_text() == "size = 10\n"
    assert sorted(p.name for p in copy.iterdir()) == [
        "config.toml",
        "designs",
        "hexpost.sqlite3",
        "identity.key",
    ]  # no journal left beside the copy, nothing half-written

    restored = Player(copy, "Alice", "alice@example.org", network)
    try:
        record = restored.replica.store.one("SELECT key_file FROM identities")
        assert record is not None and record[0] == str(copy / "identity.key")
        assert restored.row(game).head_seq == sub.seq
        restored.sync()  # the move signed before the crash leaves from the copy's outbox
        bob.sync()
        assert bob.row(game).head_seq == sub.seq
        assert restored.replica.verify(game) == bob.replica.verify(game)
        # The copy signs on once Alice confirms it as her home: its key and sealed seeds open
        # as the original's did.
        with pytest.raises(HexpostError, match="not yet confirmed as the home you play from"):
            restored.replica.submit(game, [{"type": "note", "text": "too soon"}], now=now())
        assert confirm(restored.home) is not None
        assert confirm(restored.home) is None  # (once)
        after = restored.replica.submit(game, [{"type": "note", "text": "and after"}], now=now())
        restored.sync()
        bob.sync()
        assert bob.row(game).head_seq == after.seq
        assert restored.row(game).state_hash == bob.row(game).state_hash
    finally:
        restored.close()


def test_a_backup_is_one_moment_of_a_store_another_program_is_writing(
    alice: Player, game: bytes, tmp_path: Path
) -> None:
    """`sync --watch` may hold a write open while the player backs up: the copy is taken
    beside it (the write-ahead log lets it read), holding what was committed and nothing of
    the write still open."""
    other = sqlite3.connect(alice.home.db_path, isolation_level=None, timeout=5)
    try:
        other.execute("BEGIN IMMEDIATE")
        other.execute("INSERT INTO meta (key, value) VALUES ('half-done', 'x')")
        report = back_up(alice.home, tmp_path / "backup", now=now())
        other.execute("COMMIT")
    finally:
        other.close()
    assert report.packets == alice.count("packets")
    copied = sqlite3.connect(tmp_path / "backup" / "hexpost.sqlite3")
    try:
        assert copied.execute("SELECT value FROM meta WHERE key = 'half-done'").fetchone() is None
        assert copied.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        copied.close()
    assert alice.replica.store.one("SELECT value FROM meta WHERE key = 'half-done'") == ("x",)


def test_a_backup_goes_into_a_new_or_empty_folder_outside_the_home(
    alice: Player, game: bytes, tmp_path: Path
) -> None:
    full = photos_in(tmp_path / "full")
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    link = tmp_path / "a-link"
    link.symlink_to(alice.home.path)  # (the home by another name)
    refusals = {
        full: "is not empty",
        a_file: "is not a folder",
        alice.home.path: "inside the home",
        alice.home.path / "backups" / "monday": "inside the home",
        link / "monday": "inside the home",
        tmp_path / "no-such-folder" / "backup": "is not a folder",
    }
    for target, words in refusals.items():
        with pytest.raises(HexpostError, match=words):
            back_up(alice.home, target, now=now())
    assert sorted(p.name for p in full.iterdir()) == ["holiday.jpg"]
    assert not (alice.home.path / "backups").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "a-file",
        "a-link",
        "alice",
        "bob",
        "full",
    ]
    empty = tmp_path / "empty"
    empty.mkdir()
    assert back_up(alice.home, empty, now=now()).games == 1


def test_an_empty_home_has_nothing_to_back_up(tmp_path: Path) -> None:
    home = Home(tmp_path / "nobody")
    with pytest.raises(HexpostError, match="nothing to back up"):
        back_up(home, tmp_path / "backup", now=now())
    assert not (tmp_path / "backup").exists()
    assert not (tmp_path / "nobody").exists()  # looking made no home


def test_a_backup_that_fails_halfway_leaves_nothing_that_looks_finished(
    alice: Player, game: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full_disk(source: Path, copy: Path) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(backup, "_copy_file", full_disk)
    with pytest.raises(OSError):
        back_up(alice.home, tmp_path / "backup", now=now())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["alice", "bob"]


def test_a_copy_behind_the_game_signs_nothing_until_the_chain_is_sent_again(
    alice: Player, bob: Player, game: bytes, tmp_path: Path
) -> None:
    """Alice backs up, plays on until Bob owes, then loses her disk. Her copy learns from
    Bob's next packet that the game went on without it: it refuses to sign (its next packet
    could contradict one she signed after the backup, and Bob would freeze the game), says
    what to ask for, and writes no automatic reply. Bob sends the chain again from the gap,
    his packets and hers, and the copy goes on from where the game is."""
    back_up(alice.home, tmp_path / "backup", now=now())
    gap = alice.row(game).head_seq + 1
    players = {"coalition": alice, "alliance": bob}
    while owner(players, game)[0] is alice:
        alice.replica.submit(game, [{"type": "done"}], now=now())
        exchange(alice, bob)
    theirs = bob.replica.submit(game, [{"type": "note", "text": "your move"}], now=now())
    alice.close()

    # The copy reads a mailbox of its own (named apart: its kept place in the old one is
    # not a place in this one), holding only what Bob sends from now on.
    mail = LoopbackNetwork()
    restored = Player(tmp_path / "backup", "Restored", "alice@example.org", mail)
    bob_mail = LoopbackTransport(mail, "loopback:bob-anew")
    confirm(restored.home)  # confirmed too soon: the copy's own evidence still holds it back
    try:
        asyncio.run(push(bob.replica, bob_mail, now))  # Bob's note reaches the copy
        report = restored.sync()
        assert [o.status for o in report.received] == ["buffered"]
        before = restored.snapshot(game)
        assert before.head_seq == gap - 1
        wanted = (  # (to the packet before Bob's, which it holds)
            f"ask alliance to run `hexpost resend wind --from {gap} --to {theirs.seq - 1} "
            "--every-seat`"
        )
        with pytest.raises(HexpostError, match=re.escape(wanted)):
            restored.replica.submit(game, [{"type": "note", "text": "fork"}], now=now())
        assert restored.snapshot(game) == before  # nothing signed, stored or queued
        assert auto_replies(restored.replica, now()) == ([], [])
        row = restored.row(game)
        notes = attention_notes(
            restored.replica, row, restored.replica.state(game), restored.replica.pending(game)
        )
        assert any(wanted in note for note in notes), notes

        queued = resend(bob.replica, bob.row(game), gap, now, every_seat=True)
        assert queued == list(range(gap, theirs.seq + 1))
        asyncio.run(push(bob.replica, bob_mail, now))
        restored.sync()
        assert restored.row(game).head_seq == theirs.seq
        assert restored.row(game).state_hash == bob.row(game).state_hash
        assert restored.snapshot(game).buffered == 0
        # Play goes on between the copy and Bob, with no equivocation found on either side.
        while owner({"alliance": bob, "coalition": restored}, game)[0] is bob:
            bob.replica.submit(game, [{"type": "done"}], now=now())
            asyncio.run(push(bob.replica, bob_mail, now))
            restored.sync()
        after = restored.replica.submit(game, [{"type": "note", "text": "back"}], now=now())
        restored.sync()
        asyncio.run(sync(bob.replica, bob_mail, now))
        assert bob.row(game).head_seq == after.seq
        assert bob.row(game).frozen is None and restored.row(game).frozen is None
    finally:
        restored.close()


def test_every_seat_needs_the_first_packet_missing(alice: Player, game: bytes) -> None:
    with pytest.raises(HexpostError, match="--every-seat needs --from"):
        resend(alice.replica, alice.row(game), None, now, every_seat=True)


def test_replace_swaps_an_earlier_backup_of_this_identity_and_nothing_else(
    alice: Player, bob: Player, game: bytes, tmp_path: Path
) -> None:
    target = tmp_path / "nightly"
    first = back_up(alice.home, target, now=now())
    alice.replica.submit(game, [{"type": "note", "text": "later"}], now=now())
    with pytest.raises(HexpostError, match="when asked to"):
        back_up(alice.home, target, now=now())
    second = back_up(alice.home, target, replace=True, now=now())
    assert second.packets == first.packets + 1
    copied = sqlite3.connect(target / "hexpost.sqlite3")
    try:
        assert copied.execute("SELECT COUNT(*) FROM packets").fetchone() == (second.packets,)
    finally:
        copied.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["alice", "bob", "nightly"]

    photos = photos_in(tmp_path / "photos")
    (photos / "hexpost.sqlite3").write_bytes(b"")
    with pytest.raises(HexpostError, match=r"does not hold a hexpost backup \(it holds holiday"):
        back_up(alice.home, photos, replace=True, now=now())
    assert sorted(p.name for p in photos.iterdir()) == ["hexpost.sqlite3", "holiday.jpg"]

    played = back_up(alice.home, tmp_path / "played", now=now()).destination
    in_use = Home(played)
    assert confirm(in_use) is not None  # restored and played from: a home now
    with pytest.raises(HexpostError, match="is a home in use or played from"):
        back_up(alice.home, played, replace=True, now=now())
    in_use.close()
    with pytest.raises(HexpostError, match="is a home played from"):
        back_up(alice.home, played, replace=True, now=now())
    assert not store_backup.is_marked_copy(played / "hexpost.sqlite3")

    bobs = back_up(bob.home, tmp_path / "bobs", now=now()).destination
    with pytest.raises(HexpostError, match="another identity"):
        back_up(alice.home, bobs, replace=True, now=now())
    assert (bobs / "identity.key").read_bytes() == bob.home.key_path.read_bytes()


def test_an_unconfirmed_copy_signs_nothing_even_where_nothing_shows_it_is_behind(
    alice: Player, bob: Player, game: bytes, tmp_path: Path
) -> None:
    """The case the other player's packets cannot reveal: Alice signs after the backup and
    the move stays hers, so Bob has nothing to answer. Her copy owes the same position and
    would sign a rival packet (Bob would freeze the game). It signs nothing, nor answers
    anything by itself, until Alice confirms it, and she asks Bob for the chain first."""
    back_up(alice.home, tmp_path / "backup", now=now())
    gap = alice.row(game).head_seq + 1
    signed = alice.replica.submit(game, [{"type": "note", "text": "after the backup"}], now=now())
    exchange(alice, bob)
    assert owner({"coalition": alice, "alliance": bob}, game)[0] is alice
    alice.close()

    mail = LoopbackNetwork()
    restored = Player(tmp_path / "backup", "Restored", "alice@example.org", mail)
    bob_mail = LoopbackTransport(mail, "loopback:bob-anew")
    try:
        before = restored.snapshot(game)
        with pytest.raises(HexpostError, match="ask the other player to run `hexpost resend"):
            restored.replica.submit(game, [{"type": "note", "text": "a rival"}], now=now())
        assert restored.snapshot(game) == before
        assert auto_replies(restored.replica, now()) == ([], [])  # (none owed here)

        resend(bob.replica, bob.row(game), gap, now, every_seat=True)
        asyncio.run(push(bob.replica, bob_mail, now))
        restored.sync()
        assert restored.row(game).head_seq == signed.seq
        assert confirm(restored.home) is not None
        after = restored.replica.submit(game, [{"type": "note", "text": "on"}], now=now())
        restored.sync()
        asyncio.run(sync(bob.replica, bob_mail, now))
        assert bob.row(game).head_seq == after.seq and bob.row(game).frozen is None
    finally:
        restored.close()


def test_an_unconfirmed_copy_writes_no_automatic_reply_and_says_so(
    alice: Player, bob: Player, game: bytes, tmp_path: Path
) -> None:
    players = {"coalition": alice, "alliance": bob}
    while owner(players, game)[0] is alice:
        alice.replica.submit(game, [{"type": "done"}], now=now())
        exchange(alice, bob)
    roll = {"type": "roll", "dice": "2d6", "purpose": "a test of the dice"}
    asked = bob.replica.submit(game, [roll], now=now())
    alice.replica.receive(bob.packet(game, asked.seq), source="test", now=now())
    back_up(alice.home, tmp_path / "backup", now="2030-01-02T03:04:05Z")  # owing the entropy
    alice.close()
    restored = Player(tmp_path / "backup", "Restored", "alice@example.org", LoopbackNetwork())
    try:
        written, problems = auto_replies(restored.replica, now())
        assert written == []
        assert problems == [
            "wind: no automatic reply written: this home is a backup copy taken "
            "2030-01-02T03:04:05Z, not yet confirmed as the home you play from, so it signs "
            "nothing: if you may have signed anything in a game after that, ask the other "
            "player to run `hexpost resend GAME --from N --every-seat` (N: the packet after "
            "this copy's last one) and sync; then run `hexpost restored`"
        ]
        confirm(restored.home)
        written, problems = auto_replies(restored.replica, now())
        assert (written, problems) == ([(game, asked.seq + 1)], [])
    finally:
        restored.close()
