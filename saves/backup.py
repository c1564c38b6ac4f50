"""A whole home copied to another folder in one go: a campaign kept safe from a lost disk.

`hexpost export` writes one game; a player with several games, months into them, wants one
command that copies everything a home needs to go on: the identity key, the settings, every
game's packets, snapshots and sealed seeds and secrets, the outbox, the saved designs. The
copy is a home itself: restoring it is using it as the home (``--home``).

It can be taken at any time, even while ``hexpost sync --watch`` or the app writes to the
home: the database is copied through SQLite's online backup (one read transaction, so the
copy is one moment of the store, never half of a packet), then checked whole (``PRAGMA
integrity_check``) before it counts. The copy is written into a hidden folder beside the
destination and renamed into place last, so an interrupted backup never looks like a
finished one. It refuses to write into a folder that holds anything, or inside the home.

The seeds and secrets stay sealed under the identity key as the store keeps them
(`saves.vault`), and the key file stays encrypted if it was: the copy is as safe as the home.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from engine.core.errors import HexpostError
from engine.core.text import counted
from saves import store_backup
from saves.designs import designs_folder
from saves.home import Home


@dataclass(frozen=True)
class BackupReport:
    """What a backup holds, counted in the copy itself."""

    destination: Path
    games: int
    packets: int
    identity: bool
    """Whether the identity key was copied (a home may have none yet)."""
    designs: int

    def summary(self) -> str:
        """``backed up the identity key, 2 games (61 packets) to FOLDER``."""
        games = f"{counted(self.games, 'game')} ({counted(self.packets, 'packet')})"
        held = ["the identity key", games] if self.identity else [games]
        if self.designs:
            held.append(counted(self.designs, "design"))
        return f"backed up {', '.join(held)} to {self.destination}"


BACKUP_NAMES = frozenset({"hexpost.sqlite3", "identity.key", "config.toml", "designs"})
"""What a backup folder holds: a folder with anything else is never replaced."""


def back_up(home: Home, destination: Path, *, now: str, replace: bool = False) -> BackupReport:
    """Copy ``home`` into ``destination`` (a new or empty folder; with ``replace``, also one
    holding an earlier backup of this identity, swapped for the new one only once the new
    one is whole) and check the copy, marked as a copy taken ``now`` (`confirm`)."""
    target = destination.expanduser().absolute()
    _check_destination(home, target, replace=replace)
    if not home.db_path.exists() and not home.key_path.exists():
        raise HexpostError(f"nothing to back up: {home.path} holds no identity and no games")
    partial = target.parent / f".{target.name}.partial-{os.getpid()}"
    if partial.exists():
        shutil.rmtree(partial)
    try:
        partial.mkdir(mode=0o700)
    except OSError as exc:
        raise HexpostError(f"cannot write the backup beside {target}: {exc.strerror}") from None
    try:
        report = _fill(home, partial, target, now)
        _fsync(partial)
        _swap_in(partial, target)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    return report


def _swap_in(partial: Path, target: Path) -> None:
    """Put the finished copy in place: an earlier backup there goes only after the rename."""
    if target.exists() and any(target.iterdir()):  # (an earlier backup: checked)
        old = target.parent / f".{target.name}.old-{os.getpid()}"
        os.replace(target, old)
        os.replace(partial, target)
        shutil.rmtree(old, ignore_errors=True)
    else:
        if target.exists():
            target.rmdir()
        os.replace(partial, target)
    _fsync(target.parent)


def _check_destination(home: Home, target: Path, *, replace: bool) -> None:
    inside = home.path.resolve()
    if target.resolve() == inside or inside in target.resolve().parents:
        raise HexpostError(f"{target} is inside the home {home.path}: back it up elsewhere")
    if target.exists():
        if not target.is_dir():
            raise HexpostError(f"{target} exists and is not a folder")
        names = {entry.name for entry in target.iterdir()}
        if names and not replace:
            raise HexpostError(
                f"{target} is not empty: a backup goes into a new or empty folder, or "
                "replaces an earlier backup there when asked to (--replace)"
            )
        if names:
            _check_earlier_backup(home, target, names)
    elif not target.parent.is_dir():
        raise HexpostError(f"{target.parent} is not a folder")


JOURNALS = frozenset({"hexpost.sqlite3-wal", "hexpost.sqlite3-shm", "hexpost.sqlite3-journal"})
"""Files SQLite keeps beside a database in use: a backup, never opened, has none."""


def _check_earlier_backup(home: Home, target: Path, names: set[str]) -> None:
    """Refuse to replace anything but a backup of this home's identity never played from."""
    if names & JOURNALS:
        raise HexpostError(f"{target} is a home in use or played from: nothing replaced")
    if not names <= BACKUP_NAMES or not names & {"hexpost.sqlite3", "identity.key"}:
        raise HexpostError(
            f"{target} does not hold a hexpost backup (it holds "
            f"{', '.join(sorted(names - BACKUP_NAMES) or sorted(names))}): nothing replaced"
        )
    if "hexpost.sqlite3" in names and not store_backup.is_marked_copy(target / "hexpost.sqlite3"):
        raise HexpostError(
            f"{target} is a home played from (or not a copy hexpost made): nothing replaced"
        )
    if "identity.key" in names and home.key_path.exists():
        theirs = Home(target).identity_info()
        ours = home.identity_info()
        if theirs is None or ours is None or theirs.public_key != ours.public_key:
            raise HexpostError(
                f"{target} holds a backup of another identity than this home's: nothing replaced"
            )


def _fill(home: Home, folder: Path, target: Path, now: str) -> BackupReport:
    games = packets = 0
    if home.db_path.exists():
        games, packets = _copy_database(
            home, folder / home.db_path.name, target / home.key_path.name, now
        )
    identity = home.key_path.exists()
    if identity:
        _copy_file(home.key_path, folder / home.key_path.name)
    if home.config_path.exists():
        _copy_file(home.config_path, folder / home.config_path.name)
    designs = 0
    source = designs_folder(home.path)
    if source.is_dir():
        copied = folder / source.name
        copied.mkdir(mode=0o700)
        for path in sorted(source.iterdir()):
            if path.is_file() and not path.is_symlink():
                _copy_file(path, copied / path.name)
                designs += 1
    return BackupReport(target, games, packets, identity, designs)


def _copy_database(home: Home, copy: Path, key_path: Path, now: str) -> tuple[int, int]:
    """The store copied in one read transaction and checked; its games and packets."""
    os.close(os.open(copy, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    counts = store_backup.copy_database(home.store(), copy, key_path, now)
    _fsync(copy)
    return counts


def _copy_file(source: Path, copy: Path) -> None:
    """``source``'s bytes in a new file readable by its owner only, made durable."""
    data = source.read_bytes()
    with open(os.open(copy, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600), "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def _fsync(path: Path) -> None:
    """Make a file's bytes, or a folder's entries (a rename changes them), durable."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def confirm(home: Home) -> str | None:
    """Confirm this home, a backup copy, as the one played from (``hexpost restored``): it
    signs again. Returns when the copy was taken, or None if the home is not a copy."""
    if not home.db_path.exists():
        return None
    store = home.store()
    taken_at = store_backup.copy_taken_at(store)
    if taken_at is not None:
        store_backup.forget_copy_mark(store)
    return taken_at
