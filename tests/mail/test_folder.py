"""The shared-folder transport: file names, atomic no-clobber writes, and incremental reading."""

from __future__ import annotations

import hashlib
import os
import re
import time
from collections.abc import Container
from pathlib import Path
from typing import Any

import pytest

import mail.folder
from mail.folder import MAX_PACKET_BYTES, FolderTransport, file_ref
from mail.loopback import LoopbackNetwork
from mail.transport import FetchResult, OutgoingPacket, Transport, TransportError
from saves import outbox
from tests.saves.conftest import Player, create_game, now, owner, start_game

GAME_A = bytes(range(16))
GAME_B = bytes(range(16, 32))


def packet(data: bytes, *, game: bytes = GAME_A, seq: int = 0) -> OutgoingPacket:
    return OutgoingPacket(game_id=game, seq=seq, packet_id=hashlib.sha256(data).digest(), data=data)


def name_of(p: OutgoingPacket, suffix: str = "") -> str:
    return f"hexpost-{p.game_id.hex()}-{p.seq:08d}-{p.packet_id.hex()[:16]}{suffix}.hxp"


def ref_of(path: Path) -> str:
    """The ref the folder transport gives the file at `path` as it is now."""
    info = path.lstat()
    return file_ref(path.name, info.st_size, info.st_mtime_ns)


def named(refs: list[str]) -> list[str]:
    """The file names in a list of refs (a ref is ``NAME@SIZE:MTIME_NS``)."""
    return [ref.partition("@")[0] for ref in refs]


def spy_on_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the files the folder transport opens from now on, in order."""
    opened: list[str] = []
    real_read = mail.folder._read_packet_file

    def spy(path: Path) -> tuple[str, bytes] | None:
        opened.append(path.name)
        return real_read(path)

    monkeypatch.setattr(mail.folder, "_read_packet_file", spy)
    return opened


async def fetch(transport: Transport, seen: Container[str] = frozenset()) -> FetchResult:
    return await transport.fetch("", seen)


async def test_is_a_transport_named_after_its_absolute_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    transport: Transport = FolderTransport("shared")
    assert transport.name == f"folder:{tmp_path / 'shared'}"
    await transport.close()


async def test_round_trip_sorted_by_game_then_seq(tmp_path: Path) -> None:
    transport = FolderTransport(tmp_path)
    sent = [
        packet(b"b-one", game=GAME_B, seq=1),
        packet(b"a-ten", seq=10),
        packet(b"a-two", seq=2),
        packet(b"b-zero", game=GAME_B, seq=0),
    ]
    for p in sent:
        await transport.send(p)

    result = await fetch(FolderTransport(tmp_path))

    assert [p.data for p in result.packets] == [b"a-two", b"a-ten", b"b-zero", b"b-one"]
    assert {p.ref for p in result.packets} == {ref_of(tmp_path / name_of(p)) for p in sent}
    assert result.cursor == ""


async def test_send_creates_a_missing_directory(tmp_path: Path) -> None:
    folder = tmp_path / "not" / "yet"
    await FolderTransport(folder).send(packet(b"x"))
    assert [p.data for p in (await fetch(FolderTransport(folder))).packets] == [b"x"]


async def test_fetch_from_a_missing_directory_names_it(tmp_path: Path) -> None:
    folder = tmp_path / "gone"
    with pytest.raises(TransportError, match=re.escape(str(folder))):
        await fetch(FolderTransport(folder))


async def test_fetch_from_a_file_instead_of_a_directory_fails(tmp_path: Path) -> None:
    (tmp_path / "plain").write_bytes(b"")
    with pytest.raises(TransportError, match="not a directory"):
        await fetch(FolderTransport(tmp_path / "plain"))


async def test_foreign_names_are_ignored(tmp_path: Path) -> None:
    transport = FolderTransport(tmp_path)
    real = packet(b"real")
    await transport.send(real)
    base = name_of(real).removesuffix(".hxp")
    foreign = [
        "notes.txt",
        "hexpost-zz.hxp",
        f"{base}.hxp.bak",
        f"{base.upper()}.hxp",
        f"{base}-1.hxp",
        f"{base}-02.hxp",
        f"{base} (conflicted copy).hxp",
        f"{base}.sync-conflict-20240101-000000-ABCDEFG.hxp",
        ".hexpost-tmp-0123456789abcdef.partial",
    ]
    for name in foreign:
        (tmp_path / name).write_bytes(b"foreign")
    other = packet(b"dir", seq=5)
    (tmp_path / name_of(other)).mkdir()
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / name_of(packet(b"nested"))).write_bytes(b"nested")

    found = (await fetch(transport)).packets
    assert [(p.ref, p.data) for p in found] == [(ref_of(tmp_path / name_of(real)), b"real")]


async def test_symlinks_are_not_followed(tmp_path: Path) -> None:
    secret = tmp_path / "outside"
    secret.write_bytes(b"not for the other player")
    folder = tmp_path / "shared"
    folder.mkdir()
    (folder / name_of(packet(b"link"))).symlink_to(secret)
    assert (await fetch(FolderTransport(folder))).packets == []


async def test_seen_files_are_never_opened(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    transport = FolderTransport(tmp_path)
    old, new = packet(b"old", seq=0), packet(b"new", seq=1)
    await transport.send(old)
    await transport.send(new)
    opened = spy_on_reads(monkeypatch)

    result = await fetch(transport, seen={ref_of(tmp_path / name_of(old))})

    assert [p.data for p in result.packets] == [b"new"]
    assert opened == [name_of(new)]


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read a mode-000 file")
async def test_seen_unreadable_file_is_not_touched(tmp_path: Path) -> None:
    transport = FolderTransport(tmp_path)
    locked = packet(b"locked")
    await transport.send(locked)
    (tmp_path / name_of(locked)).chmod(0)
    try:
        seen = {ref_of(tmp_path / name_of(locked))}
        assert (await fetch(transport, seen=seen)).packets == []
    finally:
        (tmp_path / name_of(locked)).chmod(0o600)


async def test_unreadable_file_is_skipped_without_raising(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    transport = FolderTransport(tmp_path)
    locked, fine = packet(b"locked", seq=0), packet(b"fine", seq=1)
    await transport.send(locked)
    await transport.send(fine)
    real_open = os.open

    def deny(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if Path(path).name == name_of(locked):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", deny)
    assert [p.data for p in (await fetch(transport)).packets] == [b"fine"]


async def test_oversize_and_empty_files_are_skipped(tmp_path: Path) -> None:
    transport = FolderTransport(tmp_path)
    (tmp_path / name_of(packet(b"big", seq=0))).write_bytes(b"x" * (MAX_PACKET_BYTES + 1))
    (tmp_path / name_of(packet(b"empty", seq=1))).write_bytes(b"")
    largest = packet(b"largest", seq=2)
    (tmp_path / name_of(largest)).write_bytes(b"y" * MAX_PACKET_BYTES)

    assert named([p.ref for p in (await fetch(transport)).packets]) == [name_of(largest)]


async def test_writes_leave_no_temp_files(tmp_path: Path) -> None:
    transport = FolderTransport(tmp_path)
    for seq in range(3):
        await transport.send(packet(f"p{seq}".encode(), seq=seq))
    await transport.send(packet(b"p0", seq=0))
    assert sorted(os.listdir(tmp_path)) == sorted(
        name_of(packet(f"p{seq}".encode(), seq=seq)) for seq in range(3)
    )


async def test_failed_write_leaves_no_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(temp: Path, target: Path) -> bool:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(mail.folder, "_publish", broken)
    with pytest.raises(TransportError, match="No space left"):
        await FolderTransport(tmp_path).send(packet(b"x"))
    assert os.listdir(tmp_path) == []


async def test_same_bytes_twice_is_one_file(tmp_path: Path) -> None:
    transport = FolderTransport(tmp_path)
    p = packet(b"same")
    assert await transport.send(p) == "", "a file has no Message-ID to thread by"
    assert await transport.send(p) == ""
    assert os.listdir(tmp_path) == [name_of(p)]


async def test_different_bytes_under_one_name_get_suffixes(tmp_path: Path) -> None:
    transport = FolderTransport(tmp_path)
    first = packet(b"first")
    second = OutgoingPacket(game_id=GAME_A, seq=0, packet_id=first.packet_id, data=b"second")
    third = OutgoingPacket(game_id=GAME_A, seq=0, packet_id=first.packet_id, data=b"third")
    for p in (first, second, third, second):
        await transport.send(p)

    assert (tmp_path / name_of(first)).read_bytes() == b"first"
    assert (tmp_path / name_of(first, "-2")).read_bytes() == b"second"
    assert (tmp_path / name_of(first, "-3")).read_bytes() == b"third"
    assert len(os.listdir(tmp_path)) == 3
    assert [p.data for p in (await fetch(transport)).packets] == [b"first", b"second", b"third"]


async def test_a_directory_in_the_way_is_not_replaced(tmp_path: Path) -> None:
    p = packet(b"x")
    (tmp_path / name_of(p)).mkdir()
    await FolderTransport(tmp_path).send(p)
    assert (tmp_path / name_of(p)).is_dir()
    assert (tmp_path / name_of(p, "-2")).read_bytes() == b"x"


async def test_without_hard_links_it_still_never_overwrites(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_links(src: Any, dst: Any, *args: Any, **kwargs: Any) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    transport = FolderTransport(tmp_path)
    first = packet(b"first")
    other = OutgoingPacket(game_id=GAME_A, seq=0, packet_id=first.packet_id, data=b"other")
    await transport.send(first)
    await transport.send(other)
    await transport.send(first)
    assert (tmp_path / name_of(first)).read_bytes() == b"first"
    assert (tmp_path / name_of(first, "-2")).read_bytes() == b"other"
    assert len(os.listdir(tmp_path)) == 2


async def test_large_sequence_numbers_keep_matching(tmp_path: Path) -> None:
    transport = FolderTransport(tmp_path)
    p = packet(b"far", seq=123_456_789)
    await transport.send(p)
    assert named([r.ref for r in (await fetch(transport)).packets]) == [name_of(p)]


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (OutgoingPacket(game_id=b"short", seq=0, packet_id=bytes(32), data=b"x"), "game id"),
        (OutgoingPacket(game_id=GAME_A, seq=0, packet_id=bytes(8), data=b"x"), "packet id"),
        (OutgoingPacket(game_id=GAME_A, seq=-1, packet_id=bytes(32), data=b"x"), "negative"),
        (OutgoingPacket(game_id=GAME_A, seq=0, packet_id=bytes(32), data=b""), "0 bytes"),
    ],
)
async def test_malformed_packets_are_refused(
    tmp_path: Path, bad: OutgoingPacket, message: str
) -> None:
    with pytest.raises(TransportError, match=message):
        await FolderTransport(tmp_path).send(bad)
    assert os.listdir(tmp_path) == []


async def test_suffixes_sort_as_numbers(tmp_path: Path) -> None:
    p = packet(b"base")
    for suffix in ("-10", "", "-2"):
        (tmp_path / name_of(p, suffix)).write_bytes(suffix.encode() or b"base")
    refs = named([r.ref for r in (await fetch(FolderTransport(tmp_path))).packets])
    assert refs == [name_of(p), name_of(p, "-2"), name_of(p, "-10")]


async def test_stale_temp_files_of_killed_writers_are_removed(tmp_path: Path) -> None:
    transport = FolderTransport(tmp_path)
    stale = tmp_path / ".hexpost-tmp-0123456789abcdef.partial"
    fresh = tmp_path / ".hexpost-tmp-fedcba9876543210.partial"
    stale.write_bytes(b"half a packet")
    fresh.write_bytes(b"being written right now")
    old = time.time() - 2 * 3600
    os.utime(stale, (old, old))
    result = await transport.fetch("", set())
    assert result.packets == []
    assert not stale.exists(), "an abandoned temp file is cleaned up"
    assert fresh.exists(), "a temp file that may still be written is left alone"


def _set_mtime(path: Path, mtime_ns: int) -> None:
    """Give a file a chosen mtime: the kernel's clock is coarse, so two writes in a row may
    otherwise share one (a real rewrite minutes later never does)."""
    os.utime(path, ns=(mtime_ns, mtime_ns))


async def test_garbage_file_is_read_once_then_never_opened_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    junk = tmp_path / name_of(packet(b"whatever"))
    junk.write_bytes(b"not a packet at all")
    transport = FolderTransport(tmp_path)
    opened = spy_on_reads(monkeypatch)

    first = (await fetch(transport)).packets
    assert [(p.ref, p.data) for p in first] == [(ref_of(junk), b"not a packet at all")]
    seen = {first[0].ref}
    for _ in range(3):
        assert (await fetch(transport, seen)).packets == []
    assert opened == [junk.name], "a file read once is not opened again while it is unchanged"


async def test_damaged_file_with_the_true_bytes_put_back_is_read_again(tmp_path: Path) -> None:
    """Damage keeps the size (one byte changed), so the mtime alone must tell the change."""
    transport = FolderTransport(tmp_path)
    true = packet(b"the true packet bytes")
    await transport.send(true)
    path = tmp_path / name_of(true)
    written = path.stat().st_mtime_ns
    seen = {p.ref for p in (await fetch(transport)).packets}

    path.write_bytes(b"the true packet bytez")
    _set_mtime(path, written + 1_000_000_000)
    damaged = (await fetch(transport, seen)).packets
    assert [p.data for p in damaged] == [b"the true packet bytez"]
    seen |= {p.ref for p in damaged}
    assert (await fetch(transport, seen)).packets == []

    path.write_bytes(true.data)
    _set_mtime(path, written + 2_000_000_000)
    again = (await fetch(transport, seen)).packets
    assert [(p.ref, p.data) for p in again] == [(ref_of(path), true.data)]


async def test_a_file_still_growing_is_read_again_once_complete(tmp_path: Path) -> None:
    transport = FolderTransport(tmp_path)
    whole = b"a packet that a sync tool delivers in two pieces"
    path = tmp_path / name_of(packet(whole))
    path.write_bytes(whole[:10])
    early = (await fetch(transport)).packets
    assert [p.data for p in early] == [whole[:10]]

    with path.open("ab") as f:
        f.write(whole[10:])
    complete = (await fetch(transport, {p.ref for p in early})).packets
    assert [p.data for p in complete] == [whole], "the size changed, so it is read again"


async def test_refs_of_older_homes_name_files_only_and_no_longer_match(tmp_path: Path) -> None:
    """A home that remembered bare names reads each file once more (the inbox sees duplicates)."""
    transport = FolderTransport(tmp_path)
    p = packet(b"read by an older version")
    await transport.send(p)
    again = (await fetch(transport, seen={name_of(p)})).packets
    assert [r.data for r in again] == [p.data]


async def test_one_fetch_reads_a_bounded_number_of_files_in_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(mail.folder, "MAX_FILES_PER_FETCH", 4)
    transport = FolderTransport(tmp_path)
    sent = [packet(f"p{seq}".encode(), seq=seq) for seq in range(10)]
    for p in reversed(sent):
        await transport.send(p)
    opened = spy_on_reads(monkeypatch)
    seen: set[str] = set()
    batches = []
    for _ in range(4):
        found = (await fetch(transport, seen)).packets
        batches.append([p.data for p in found])
        seen |= {p.ref for p in found}
    assert batches == [
        [b"p0", b"p1", b"p2", b"p3"],
        [b"p4", b"p5", b"p6", b"p7"],
        [b"p8", b"p9"],
        [],
    ]
    assert sorted(opened) == sorted(name_of(p) for p in sent), "each file opened once"


async def test_one_fetch_reads_a_bounded_number_of_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(mail.folder, "MAX_BYTES_PER_FETCH", 250)
    transport = FolderTransport(tmp_path)
    for seq in range(3):
        await transport.send(packet(bytes([seq]) * 100, seq=seq))
    big = packet(b"x" * 400, seq=3)
    await transport.send(big)
    first = (await fetch(transport)).packets
    assert [len(p.data) for p in first] == [100, 100]
    second = (await fetch(transport, {p.ref for p in first})).packets
    assert [len(p.data) for p in second] == [100]
    seen = {p.ref for p in first + second}
    third = (await fetch(transport, seen)).packets
    assert [p.data for p in third] == [big.data], "a file over the budget alone is still read"


async def test_empty_oversize_and_special_files_are_not_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What cannot be a packet is told from the listing and one lstat, every sync, unopened."""
    (tmp_path / name_of(packet(b"e", seq=0))).write_bytes(b"")
    (tmp_path / name_of(packet(b"o", seq=1))).write_bytes(b"o" * (MAX_PACKET_BYTES + 1))
    os.mkfifo(tmp_path / name_of(packet(b"f", seq=2)))
    (tmp_path / name_of(packet(b"d", seq=3))).mkdir()
    opened: list[Path] = []
    monkeypatch.setattr(mail.folder, "_read_packet_file", opened.append)
    assert (await fetch(FolderTransport(tmp_path))).packets == []
    assert opened == []


def _folder_players(tmp_path: Path) -> tuple[Player, Player, Path]:
    """Alice and Bob with real homes, both using one shared folder."""
    folder = tmp_path / "shared"
    folder.mkdir()
    network = LoopbackNetwork()
    alice = Player(tmp_path / "alice", "Alice", "alice@example.org", network)
    bob = Player(tmp_path / "bob", "Bob", "bob@example.org", network)
    alice.transport = bob.transport = FolderTransport(folder)  # type: ignore[assignment]
    return alice, bob, folder


def test_sync_takes_in_a_damaged_packet_once_its_true_bytes_are_back(
    tmp_path: Path,
) -> None:
    """The issue's scenario: one byte of a packet file changed, then the file put right."""
    alice, bob, folder = _folder_players(tmp_path)
    try:
        game_id = create_game(alice)
        alice.sync()
        [path] = list(folder.iterdir())
        true = path.read_bytes()
        written = path.stat().st_mtime_ns
        damaged = bytearray(true)
        damaged[len(damaged) // 2] ^= 0x01
        path.write_bytes(bytes(damaged))
        _set_mtime(path, written + 1_000_000_000)

        refused = bob.sync()
        assert [o.status for o in refused.received] == ["rejected"]
        assert bob.sync().received == [], "the damaged copy is read once"

        path.write_bytes(true)
        _set_mtime(path, written + 2_000_000_000)
        taken = bob.sync()
        assert [(o.status, o.game_id) for o in taken.received] == [("invitation", game_id)]
    finally:
        alice.close()
        bob.close()


def test_a_home_never_reads_back_the_files_it_wrote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both homes list the one folder, so each would find its own packets there on its next
    sync: verified again for nothing and reported as a received duplicate ("received 1" in
    the app for a sync that brought nothing). The file a send writes is marked read as the
    send is recorded, so only the other side reads it; a resend writes a new file, for the
    other side again."""
    alice, bob, folder = _folder_players(tmp_path)
    try:
        game_id = start_game(alice, bob, setup=False)
        players = {"coalition": alice, "alliance": bob}
        opened = spy_on_reads(monkeypatch)
        author, other = owner(players, game_id)
        move = author.replica.submit(game_id, [{"type": "note", "text": "n"}], now=now())
        assert author.sync().sent == [move.seq]
        assert author.sync().received == [], "its own file is not read back"
        assert opened == []
        assert [o.status for o in other.sync().received] == ["applied"]
        assert len(opened) == 1

        seat = author.row(game_id).my_seat
        assert outbox.requeue(author.replica.store, game_id, seat, move.seq) == [move.seq]
        assert author.sync().sent == [move.seq]
        assert len([p for p in folder.iterdir() if f"-{move.seq:08d}-" in p.name]) == 2
        assert author.sync().received == []
        assert [o.status for o in other.sync().received] == ["duplicate"]
        assert len(opened) == 2
    finally:
        alice.close()
        bob.close()


def test_sync_reads_a_garbage_file_only_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, bob, folder = _folder_players(tmp_path)
    try:
        junk = folder / name_of(packet(b"junk"))
        junk.write_bytes(b"\x00garbage that no decoder accepts")
        opened = spy_on_reads(monkeypatch)
        first = bob.sync()
        assert [o.status for o in first.received] == ["rejected"]
        for _ in range(3):
            assert bob.sync().received == []
        assert opened == [junk.name]
    finally:
        alice.close()
        bob.close()


def test_an_older_home_reads_its_files_once_more_as_duplicates(tmp_path: Path) -> None:
    """Refs kept by an older version are bare names: after the upgrade every file is read once
    more, each is a duplicate the inbox ignores, and nothing in the home changes."""
    alice, bob, folder = _folder_players(tmp_path)
    try:
        game_id = start_game(alice, bob, setup=False)
        bob.sync()
        db = bob.replica.store.db
        with bob.replica.store.transaction():
            db.execute("UPDATE transport_seen SET ref = substr(ref, 1, instr(ref, '@') - 1)")
        before = bob.snapshot(game_id)
        files = sorted(path.name for path in folder.iterdir())

        again = bob.sync()

        assert {o.status for o in again.received} == {"duplicate"}
        assert len(again.received) == len(files), "its own packets come back as well"
        assert bob.snapshot(game_id) == before
        assert bob.count("rejected") == bob.count("parked") == 0
        assert bob.sync().received == [], "each file is read once more, not on every sync"
    finally:
        alice.close()
        bob.close()


# --- waiting for the folder to change (the app's own watch) -----------------------------------


async def test_wait_announces_a_packet_written_by_the_other_side(tmp_path: Path) -> None:
    import asyncio

    folder = tmp_path / "shared"
    folder.mkdir()
    mine, theirs = FolderTransport(folder), FolderTransport(folder)
    assert await mine.wait(0.05, poll=0.01) is False  # nothing came: the timeout
    waiting = asyncio.create_task(mine.wait(30.0, poll=0.01))
    await asyncio.sleep(0.05)
    assert not waiting.done()
    await theirs.send(packet(b"from the other side"))
    assert await asyncio.wait_for(waiting, 5.0) is True
    assert await mine.wait(0.05, poll=0.01) is False  # announced once, not again
    assert [p.data for p in (await fetch(mine)).packets] == [b"from the other side"]


async def test_wait_on_a_missing_folder_announces_it_once_it_is_there(tmp_path: Path) -> None:
    folder = tmp_path / "not yet"
    transport = FolderTransport(folder)
    assert await transport.wait(0.05, poll=0.01) is False
    folder.mkdir()
    assert await transport.wait(1.0, poll=0.01) is True
