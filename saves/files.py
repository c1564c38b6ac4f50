"""Small file-system helpers shared by the store's files and the folder transport."""

from __future__ import annotations

import os
from pathlib import Path


def fsync_directory(directory: Path) -> None:
    """Make a new name in ``directory`` durable; best effort (not every system can open one)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_synced(path: Path, data: bytes, mode: int, *, exact_mode: bool = False) -> None:
    """Create ``path`` (which must not exist) with ``mode``, write ``data`` whole, fsync it.

    The umask applies as usual unless ``exact_mode`` (key files: an odd umask must not
    change their 0600).
    """
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        if exact_mode and hasattr(os, "fchmod"):
            os.fchmod(fd, mode)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)
