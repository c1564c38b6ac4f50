"""A transport through one directory both players see (a synced folder, a network share).

Each packet is one file whose name carries the game, the sequence number and the packet id. A
file is remembered by its name, size and modification time (`file_ref`), so a listing and one
`lstat` per name tell what is new, nothing already read is opened again, and a file that
changes after it was read (a copy still being written, damaged bytes put right) is read again.
Files appear atomically (temp file, fsync, then a no-clobber link into place), so a reader
never sees half a packet written by this program and nothing is ever overwritten.

The blocking file calls run in `asyncio.to_thread`: a synced or network folder can stall, and
the terminal's event loop must keep redrawing meanwhile.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import secrets
import stat
import time
from collections.abc import Container
from pathlib import Path
from typing import Any

from mail.transport import FetchResult, IncomingPacket, OutgoingPacket, TransportError
from saves.files import fsync_directory, write_synced

MAX_PACKET_BYTES = 1024 * 1024
"""Files larger than this are skipped on fetch: no packet is this big, and reading is bounded."""

MAX_FILES_PER_FETCH = 1000
"""Files read by one fetch at most; the rest wait for the next fetch (nothing is lost, as
unread files are not marked seen). Keeps one sync short when someone fills the folder."""

MAX_BYTES_PER_FETCH = 16 * 1024 * 1024
"""Bytes read by one fetch at most (at least one file is always read)."""

WATCH_POLL_SECONDS = 2.0
"""How often `FolderTransport.wait` looks at the folder (one ``stat`` of the directory)."""
SETTLE_SECONDS = 0.25
SETTLE_LOOKS = 20
"""Once the folder changed, `FolderTransport.wait` looks again every `SETTLE_SECONDS`, until
it holds still or `SETTLE_LOOKS` looks have passed (a folder never still: some 5 s)."""

MAX_DUPLICATE_SUFFIX = 1000
"""How many different files one (game, seq, packet id) name may hold before sending gives up."""

_NAME = re.compile(
    r"hexpost-(?P<game>[0-9a-f]{32})-(?P<seq>[0-9]{8}|[1-9][0-9]{8,})-(?P<pid>[0-9a-f]{16})"
    r"(?:-(?P<dup>[2-9]|[1-9][0-9]+))?\.hxp"
)
"""Exactly the names `_file_name` produces; everything else in the folder is not ours."""

_TEMP_PREFIX = ".hexpost-tmp-"

_SAFE_READ = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
"""Open flags for files in the shared folder: no symlink following, no blocking on a FIFO."""

_log = logging.getLogger(__name__)


def _file_name(packet: OutgoingPacket, dup: int) -> str:
    """The file name of a packet; `dup` > 1 adds the suffix for different bytes under one name."""
    suffix = f"-{dup}" if dup > 1 else ""
    return (
        f"hexpost-{packet.game_id.hex()}-{packet.seq:08d}-{packet.packet_id.hex()[:16]}{suffix}.hxp"
    )


def _check_packet(packet: OutgoingPacket) -> None:
    """Refuse a packet whose routing fields would make a wrong or unreadable file name."""
    if len(packet.game_id) != 16:
        raise TransportError(f"cannot send: game id must be 16 bytes, not {len(packet.game_id)}")
    if len(packet.packet_id) != 32:
        raise TransportError(
            f"cannot send: packet id must be 32 bytes, not {len(packet.packet_id)}"
        )
    if packet.seq < 0:
        raise TransportError(f"cannot send: sequence number {packet.seq} is negative")
    if not packet.data or len(packet.data) > MAX_PACKET_BYTES:
        raise TransportError(
            f"cannot send: packet of {len(packet.data)} bytes "
            f"(must be 1 to {MAX_PACKET_BYTES} bytes, or the other side skips it)"
        )


def _holds(target: Path, data: bytes) -> bool | None:
    """Whether `target` holds exactly `data`; None if there is no file there yet.

    A file we cannot read counts as different: writing a suffixed copy is always safe, as the
    engine recognises a packet by its id, never by its file name.
    """
    try:
        with os.fdopen(os.open(target, _SAFE_READ), "rb") as f:
            return f.read(len(data) + 1) == data
    except FileNotFoundError:
        return None
    except OSError:
        return False


def _write_temp(directory: Path, data: bytes) -> Path:
    """Write `data` to a fresh temp file in `directory` (a name fetch ignores) and fsync it."""
    temp = directory / f"{_TEMP_PREFIX}{secrets.token_hex(8)}.partial"
    write_synced(temp, data, 0o644)
    return temp


def _publish(temp: Path, target: Path) -> bool:
    """Make `temp` appear as `target` atomically, unless `target` exists; True if it did.

    A hard link fails when the name is taken, which `os.replace` cannot do (it overwrites). On
    file systems without hard links we fall back to check-then-replace, which can only lose a
    race against another writer of the very same name at the same moment.
    """
    try:
        os.link(temp, target)
        return True
    except FileExistsError:
        return False
    except OSError:
        pass
    if target.exists():
        return False
    os.replace(temp, target)
    return True


def file_ref(name: str, size: int, mtime_ns: int) -> str:
    """The ref a packet file is remembered by: its name, size and modification time.

    A file whose size or mtime changed since it was read has a new ref and is read again;
    '@' and ':' never occur in a name `_NAME` accepts, so a ref reads back unambiguously.
    """
    return f"{name}@{size}:{mtime_ns}"


def _ref_of(path: Path) -> str | None:
    """The `file_ref` of the file at ``path`` as it is now (None: gone or unreadable)."""
    try:
        info = path.lstat()
    except OSError:
        return None
    return file_ref(path.name, info.st_size, info.st_mtime_ns)


def _routing(name: str) -> dict[str, Any]:
    """The game and position a packet file's name gives: unverified hints that only say what a
    damaged file was meant to be (`IncomingPacket.game_hint`)."""
    match = _NAME.fullmatch(name)
    if match is None:
        return {}
    return {"game_hint": bytes.fromhex(match["game"]), "seq_hint": int(match["seq"])}


def _sort_key(match: re.Match[str]) -> tuple[str, int, str, int]:
    """Order by game, then seq, then packet id, then suffix as a number (-2 before -10)."""
    return (match["game"], int(match["seq"]), match["pid"], int(match["dup"] or 1))


def _read_packet_file(path: Path) -> tuple[str, bytes] | None:
    """The ref and bytes of one packet file, or None if it is unreadable, empty, oversize or
    not a regular file.

    Symlinks are not followed and a FIFO cannot block the open (O_NONBLOCK): the folder is
    shared, so its contents are not trusted. The ref comes from `fstat` *before* reading: any
    write after that moment changes the size or mtime, so the file is read again next time
    rather than its newer bytes being taken as already read. Empty files are skipped rather
    than returned: a sync tool may show a file before filling it.
    """
    try:
        with os.fdopen(os.open(path, _SAFE_READ), "rb") as f:
            info = os.fstat(f.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_PACKET_BYTES:
                _log.info(
                    "skipping %s: not a regular file, or over %d bytes", path, MAX_PACKET_BYTES
                )
                return None
            data = f.read(MAX_PACKET_BYTES + 1)
    except OSError as exc:
        _log.info("skipping unreadable packet file %s: %s", path, exc)
        return None
    if not data or len(data) > MAX_PACKET_BYTES:
        return None
    return file_ref(path.name, info.st_size, info.st_mtime_ns), data


def _listed_ref(entry: os.DirEntry[str]) -> str | None:
    """The ref of a listed packet file from one `lstat` (no open), or None when the entry is
    not a regular file of 1 to `MAX_PACKET_BYTES` bytes (nothing to read there yet, or ever)."""
    try:
        info = entry.stat(follow_symlinks=False)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode) or not 0 < info.st_size <= MAX_PACKET_BYTES:
        return None
    return file_ref(entry.name, info.st_size, info.st_mtime_ns)


STALE_TEMP_SECONDS = 3600
"""A temp file this old is left over from a writer killed mid-write (none takes an hour)."""


def _remove_if_stale(entry: os.DirEntry[str]) -> None:
    """Remove a hexpost temp file abandoned by a killed writer; best effort, never raises."""
    try:
        if entry.is_file(follow_symlinks=False) and entry.name.endswith(".partial"):
            age = time.time() - entry.stat(follow_symlinks=False).st_mtime
            if age > STALE_TEMP_SECONDS:
                os.unlink(entry.path)
    except OSError:
        pass


class FolderTransport:
    """Sends and fetches packets as files in one directory shared by the players."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(os.path.abspath(os.path.expanduser(os.fspath(path))))
        self.name = f"folder:{self.path}"
        self._watched = False
        """`wait` has taken note of the folder."""
        self._mtime: int | None = None
        """The folder's modification time when `wait` last saw it change (None: missing)."""
        self._written: tuple[bytes, str] | None = None
        """The packet id and `file_ref` of the file the last send wrote (`written_ref`)."""

    async def send(self, packet: OutgoingPacket) -> str:
        """Write the packet as one file; the same bytes again are a no-op, nothing is replaced.

        Returns "": a file has no Message-ID to thread by."""
        _check_packet(packet)
        ref = await asyncio.to_thread(self._send_sync, packet)
        self._written = None if ref is None else (packet.packet_id, ref)
        return ""

    def written_ref(self, packet: OutgoingPacket) -> str | None:
        """The `file_ref` of the file the last `send` of ``packet`` wrote (or found holding
        its bytes), None when unknown. The sender marks it read (`mail.sync.push`): both
        homes list the one folder, and each would otherwise read its own packets back on
        its next sync, verify them again and report them as duplicates. A file changed
        since gets another ref, and is read."""
        written = self._written
        return written[1] if written is not None and written[0] == packet.packet_id else None

    async def fetch(self, cursor: str, seen: Container[str]) -> FetchResult:
        """Read the packet files whose `file_ref` is not in `seen`, at most
        `MAX_FILES_PER_FETCH` of them (and `MAX_BYTES_PER_FETCH`), in game, seq, packet id
        and suffix order; the cursor is always ""."""
        packets = await asyncio.to_thread(self._fetch_sync, seen)
        return FetchResult(packets=packets, cursor="")

    async def wait(self, timeout: float, poll: float | None = None) -> bool:
        """Wait until the folder's files may have changed (True) or ``timeout`` seconds pass
        (False): what the app waits on to sync by itself, as IMAP IDLE announces mail.

        A directory's modification time moves whenever a name is added to it, renamed in or
        removed: a packet linked into place here, a synced copy renamed over its temporary
        file. So one ``stat`` of the folder every ``poll`` seconds tells, however many files
        it holds; the files are listed only by the sync that follows. The first wait takes
        note of the folder as it is (like IDLE, it announces what comes after); a folder
        missing or unreadable counts as unchanged until it is back. This transport's own
        sends move the time too: the sync after one finds nothing new. ``poll`` defaults to
        `WATCH_POLL_SECONDS`."""
        poll = WATCH_POLL_SECONDS if poll is None else poll
        if not self._watched:
            self._watched = True
            self._mtime = await asyncio.to_thread(self._folder_mtime)
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            await asyncio.sleep(min(poll, left))
            mtime = await asyncio.to_thread(self._folder_mtime)
            if mtime is not None and mtime != self._mtime:
                self._mtime = await self._settled(mtime, min(poll, SETTLE_SECONDS))
                return True
        return False

    async def _settled(self, mtime: int | None, pause: float) -> int | None:
        """The folder's modification time once it holds still for ``pause`` seconds (at most
        `SETTLE_LOOKS` looks): one file written is several changes (its temporary file, the
        link into place, the temporary file's removal), and a burst of packets more, which
        should make one sync, not one each."""
        for _ in range(SETTLE_LOOKS):
            await asyncio.sleep(pause)
            later = await asyncio.to_thread(self._folder_mtime)
            if later == mtime:
                break
            mtime = later
        return mtime

    def _folder_mtime(self) -> int | None:
        try:
            return os.stat(self.path).st_mtime_ns
        except OSError:
            return None

    async def close(self) -> None:
        """Nothing to release: every call opens and closes its own files."""

    def _send_sync(self, packet: OutgoingPacket) -> str | None:
        """Write the packet's file; its `file_ref` (None if it cannot be read back)."""
        temp: Path | None = None
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            dup = 1
            while dup <= MAX_DUPLICATE_SUFFIX:
                target = self.path / _file_name(packet, dup)
                held = _holds(target, packet.data)
                if held and not packet.resend:
                    return _ref_of(target)
                if held is not None:  # different bytes, or the same bytes asked for anew
                    dup += 1
                    continue
                if temp is None:
                    temp = _write_temp(self.path, packet.data)
                if _publish(temp, target):
                    fsync_directory(self.path)
                    return _ref_of(target)
                # Another writer took this name meanwhile: look at what it wrote.
            raise TransportError(
                f"cannot send packet {packet.seq} to {self.path}: "
                f"{MAX_DUPLICATE_SUFFIX} different files already use its name"
            )
        except OSError as exc:
            raise TransportError(f"cannot write to shared folder {self.path}: {exc}") from exc
        finally:
            if temp is not None:
                temp.unlink(missing_ok=True)

    def _fetch_sync(self, seen: Container[str]) -> list[IncomingPacket]:
        try:
            entries = list(os.scandir(self.path))
        except FileNotFoundError as exc:
            raise TransportError(f"shared folder {self.path} does not exist") from exc
        except NotADirectoryError as exc:
            raise TransportError(f"shared folder {self.path} is not a directory") from exc
        except OSError as exc:
            raise TransportError(f"cannot list shared folder {self.path}: {exc}") from exc
        candidates: list[tuple[tuple[str, int, str, int], os.DirEntry[str]]] = []
        for entry in entries:
            if entry.name.startswith(_TEMP_PREFIX):
                _remove_if_stale(entry)
                continue
            match = _NAME.fullmatch(entry.name)
            if match is None:
                continue
            ref = _listed_ref(entry)
            if ref is not None and ref not in seen:
                candidates.append((_sort_key(match), entry))
        candidates.sort(key=lambda item: item[0])
        return self._read_some([entry for _, entry in candidates], seen)

    def _read_some(
        self, entries: list[os.DirEntry[str]], seen: Container[str]
    ) -> list[IncomingPacket]:
        """Read new files in order until `MAX_FILES_PER_FETCH` or `MAX_BYTES_PER_FETCH`.

        Taking them in name order means a game's packets come lowest seq first, so what a
        bounded fetch leaves for later is the end of a chain, not holes in it.
        """
        packets: list[IncomingPacket] = []
        total = 0
        for entry in entries:
            if len(packets) >= MAX_FILES_PER_FETCH:
                break
            read = _read_packet_file(Path(entry.path))
            if read is None or read[0] in seen:
                continue
            ref, data = read
            if packets and total + len(data) > MAX_BYTES_PER_FETCH:
                break
            total += len(data)
            packets.append(IncomingPacket(ref=ref, data=data, **_routing(entry.name)))
        if len(packets) < len(entries):
            _log.info(
                "read %d of %d new files in %s; the rest wait for the next sync",
                len(packets),
                len(entries),
                self.path,
            )
        return packets
