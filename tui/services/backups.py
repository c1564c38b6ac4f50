"""A backup of the home from the app, worded for its status line (`saves.backup`).

The command line words the same operations itself (``hexpost backup``, ``hexpost
restored``); the backup after each sync is `tui.services.sync.backup_after`'s.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from engine.core.errors import HexpostError

if TYPE_CHECKING:
    from saves.home import Home
    from tui.services.ports import Clock


def back_up(home: Home, path: str, *, replace: bool, keep: bool, clock: Clock) -> tuple[bool, str]:
    """Copy ``home`` into ``path`` (``replace``: over an earlier backup; ``keep``: and again
    after each sync from now on, else no more); whether it was made, and what it holds or
    why not."""
    from saves.backup import back_up as copy_home
    from tui.services import sync

    try:
        report = copy_home(home, Path(path), replace=replace or keep, now=clock())
    except HexpostError as exc:
        return False, f"no backup made: {exc}"
    except OSError as exc:
        return False, f"no backup made: {exc.strerror or exc}"
    if keep:
        sync.keep_backup_after_sync(home, str(report.destination))
        return True, f"{report.summary()}; again after each sync"
    if sync.backup_folder(home) is not None:
        sync.keep_backup_after_sync(home, None)
        return True, f"{report.summary()}; no backup after each sync any more"
    return True, report.summary()


def confirm_restored(home: Home) -> str:
    """Confirm ``home``, a backup copy, as the one played from (``hexpost restored``)."""
    from saves.backup import confirm

    taken_at = confirm(home)
    if taken_at is None:
        return "this home is not a backup copy waiting for confirmation: nothing to do"
    return f"this home (a backup copy taken {taken_at}) is now the home you play from"
