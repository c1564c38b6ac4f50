"""The IMAP half of ``hexpost account test``: log in and select as reading would, say what
worked, change nothing (`mail.imap.ImapFolder`)."""

from __future__ import annotations

from collections.abc import Callable

from mail.accounts import ImapConfig
from mail.imap import ImapFolder

__all__ = ["check_login"]


def check_login(
    config: ImapConfig, secret: str, also: Callable[[ImapFolder], str] | None = None
) -> str:
    """Connect, log in and select the folder as reading would, then log out.

    Returns one line saying what worked (and what ``also`` says of the open folder), or raises
    `FetchError`. Nothing is read or changed.
    """
    with ImapFolder.open(config, secret) as folder:
        count = folder.exists
        more = f"; {also(folder)}" if also is not None else ""
    plural = "" if count == 1 else "s"
    return (
        f"IMAP {config.host}:{config.port} ({config.security}): logged in as "
        f"{config.username}, folder {config.folder} has {count} message{plural}{more}"
    )
