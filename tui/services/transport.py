"""How a home's packets travel: the configured transport, built and described.

`configured_transport` is the factory both faces hand to a sync when nothing else was given
(tests and the demo hand their own); it is called only when a sync needs it, so a home
without a transport can still list and show its games. `use_folder` is the one way to choose a
shared folder, for ``hexpost transport folder`` and the app's settings alike.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from engine.core.errors import HexpostError
from saves.home import Home

if TYPE_CHECKING:
    from mail.transport import Transport

NO_TRANSPORT = (
    "no transport is set: run `hexpost account add` (mail) or "
    "`hexpost transport folder PATH` (a shared folder)"
)


def configured_transport(home: Home) -> Transport:
    """The transport config.toml names: a shared folder, or the mail account."""
    config = home.table("transport")
    if config.get("kind") == "folder" and config.get("path"):
        # Imported here too: the app asks `configured_kind` as it starts (is there mail to
        # watch?), and that answer needs no transport module (issue 16).
        from mail.folder import FolderTransport

        return FolderTransport(Path(str(config["path"])))
    if config.get("kind") == "mail":
        # Imported here: the mail stack (SMTP, IMAP, TLS) is a good part of a start-up that
        # a folder, or a command that never syncs, does not need.
        from mail.accounts import load_mail_config
        from mail.mailtransport import MailTransport

        account = load_mail_config(home)
        if account is None:
            raise HexpostError(
                "the transport is mail but config.toml has no [mail] table: "
                "run `hexpost account add`"
            )
        return MailTransport(account)
    kind = config.get("kind")
    if kind == "folder":
        raise HexpostError(
            "the transport is a shared folder but config.toml names none: "
            "run `hexpost transport folder PATH`"
        )
    if kind is not None:
        raise HexpostError(
            f'{home.config_path}: transport.kind must be "folder" or "mail", not {kind!r}'
        )
    raise HexpostError(NO_TRANSPORT)


def configured_kind(home: Home) -> str | None:
    """``folder``, ``mail`` or None: what config.toml says without building anything."""
    kind = home.table("transport").get("kind")
    return str(kind) if kind else None


def use_folder(home: Home, path_text: str) -> Path:
    """Send and receive packets through the folder ``path_text`` (made if missing); returns
    its absolute path."""
    if not path_text.strip():
        raise HexpostError("give the path of the shared folder")
    path = Path(path_text.strip()).expanduser().absolute()
    if path.exists() and not path.is_dir():
        raise HexpostError(f"cannot use {path}: it is a file, not a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise HexpostError(f"cannot use the folder {path}: {exc.strerror}") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise HexpostError(f"cannot use the folder {path}: it is not writable for you")
    config = home.config()
    config["transport"] = {"kind": "folder", "path": str(path)}
    home.save_config(config)
    return path


def transport_text(home: Home) -> str:
    """The configured transport in a few words (``folder /path``, the mail account and its
    servers), or ``none``: what ``hexpost transport show`` and the settings screen say."""
    current = home.table("transport")
    if not current.get("kind"):
        return "none"
    if current["kind"] == "mail":
        from tui.services.accounts import mail_transport_text

        return mail_transport_text(home)
    return f"{current['kind']} {current.get('path', '')}".strip()


def transport_words(home: Home) -> str | None:
    """``folder PATH`` or ``mail ADDRESS`` for a header line, None if none is set (reads the
    config only: no account is parsed, nothing is built)."""
    config = home.config()
    transport = home.table("transport", config)
    mail = config.get("mail")
    kind = transport.get("kind")
    if not kind:
        return None
    if kind == "mail" and isinstance(mail, dict) and mail.get("address"):
        return f"mail {mail['address']}"
    return f"{kind} {transport.get('path', '')}".strip()
