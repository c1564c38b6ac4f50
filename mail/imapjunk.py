"""Packet mail a spam filter put in the spam folder: found there, read, and reported.

A provider's filter readily takes an email from an unknown sender with an attachment of an
unknown type (an invitation, most of all) for spam, and a hand-off moved into the spam folder
was lost: the player never saw it, and the other side's reminder and resend went the same way.
So a sync also looks in the account's spam folder (every sync the player runs, the watch every
`JUNK_EVERY`) for packet mail: in the folder the server flags ``\\Junk`` (RFC 6154), else one
named as the big providers name theirs (`USUAL_NAMES`), or the account's ``junk_folder``.
Packet mail is told from spam as in the inbox (`mail.imap.ImapFolder.packet_uids`: the server's
search for the ``X-Hexpost`` header, then size and structure, never a download), nothing there
is flagged, moved or deleted, and the player is told (`mail.sync`), so that marking the mail as
not spam teaches the filter.

The look is one STATUS of the spam folder while nothing new is there; only when its UIDNEXT
moved does it select the folder (read-only), judge at most `JUNK_SCAN` new messages and
download at most `JUNK_LIMIT` packet emails, the rest waiting for the next look; then the
configured folder is selected again (`mail.imap.ImapFolder.visit`). Blocking, like
`mail.imap`: run on the transport's worker thread.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from imapclient.exceptions import IMAPClientAbortError, IMAPClientError

from mail.imap import MAX_MAIL_BYTES, FetchError, FoundMail, ImapFolder
from mail.imapfetch import whole_messages

__all__ = [
    "JUNK_EVERY",
    "JUNK_LIMIT",
    "JUNK_REF",
    "JUNK_SCAN",
    "JunkLook",
    "junk_words",
    "look_in_junk",
]

JUNK_EVERY = 15 * 60
"""Seconds between two looks in the spam folder when nobody asked: a watch round within that
time of the last look does not look again (a sync the player runs does:
`mail.mailtransport.MailTransport.look_in_junk_next`)."""
JUNK_LIMIT = 20
"""Marked emails downloaded from the spam folder per look (each at most
`mail.imap.MAX_MAIL_BYTES`); the rest are left for the next look."""
JUNK_SCAN = 200
"""New messages of the spam folder judged per look (the newest at a first look, when the
folder may hold weeks of spam; after that the oldest not yet judged): a bound on the work a
flood of spam makes, which only delays what lies past it to the next look."""
JUNK_REF = "junk:"
"""What a reference to a message of the spam folder starts with (``junk:<uidvalidity>:<uid>``):
never the same as one of the configured folder's."""
_JUNK_FLAG = b"\\Junk"

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class JunkLook:
    """What one look in the spam folder found, and where the next look starts."""

    folder: str | None
    """The spam folder looked in (None: the account has none the server would name)."""
    cursor: str
    """``<uidvalidity>:<uid>`` of the last message of that folder read ("" at first)."""
    found: tuple[FoundMail, ...] = ()
    problem: str = ""
    """Why the look failed, in words for the player ("" when it did not)."""


def look_in_junk(
    folder: ImapFolder,
    name: str | None,
    cursor: str,
    *,
    configured: bool,
    limit: int = JUNK_LIMIT,
    max_bytes: int = MAX_MAIL_BYTES,
) -> JunkLook:
    """Look in the spam folder ``name`` (None: find it; ``configured``: the account names it)
    for packet mail after ``cursor``, over ``folder``'s connection. A folder that cannot be read
    (gone, renamed, refused) is reported in ``problem``; the connection stays usable. A broken
    connection raises `mail.imap.FetchError`, as any other command on it."""
    doing = "looking for packet mail in the spam folder of"
    found = folder.visit(doing, lambda client: _status(client, name, configured), elsewhere=False)
    if isinstance(found, JunkLook):  # (none, or unreadable: the cursor stays)
        return JunkLook(found.folder, cursor, problem=found.problem) if found.problem else found
    name, validity, uidnext = found
    known_validity, _, known_uid = cursor.partition(":")
    last = int(known_uid) if known_validity == str(validity) and known_uid.isdigit() else 0
    if uidnext - 1 <= last:  # (the usual look: one STATUS, the inbox still selected)
        return JunkLook(name, f"{validity}:{last}")
    return folder.visit(
        doing,
        lambda client: _read(
            client, folder, name, cursor, validity, uidnext, last, limit, max_bytes
        ),
    )


def _status(client: Any, name: str | None, configured: bool) -> JunkLook | tuple[str, int, int]:
    """The spam folder's name, UIDVALIDITY and UIDNEXT, or the look's end (none, or unreadable)."""
    if name is None:
        name = _find(client)
        if name is None:
            return JunkLook(None, "")
    try:
        status = client.folder_status(name, [b"UIDNEXT", b"UIDVALIDITY"])
        return name, int(status[b"UIDVALIDITY"]), int(status[b"UIDNEXT"])
    except IMAPClientAbortError:
        raise  # (the connection is lost: the fetch fails and is tried again)
    except (IMAPClientError, KeyError, ValueError) as exc:
        if not configured:
            return JunkLook(None, "")  # (renamed or removed: found again next time)
        return JunkLook(name, "", problem=f"cannot read the spam folder {name!r}: {exc}")


def _read(
    client: Any,
    folder: ImapFolder,
    name: str,
    cursor: str,
    validity: int,
    uidnext: int,
    last: int,
    limit: int,
    max_bytes: int,
) -> JunkLook:
    """The packet mail of the spam folder after UID ``last``: of at most `JUNK_SCAN` new
    messages (the newest at a first look, else the oldest), judged as the configured folder's
    new mail is (`mail.imap.ImapFolder.packet_uids`: the server's search for the header first,
    then size and structure), at most ``limit`` downloaded."""
    try:
        client.select_folder(name, readonly=True)
        new = sorted(uid for uid in (int(u) for u in client.search(["UID", f"{last + 1}:*"])))
        new = [uid for uid in new if uid > last]
        window = new[-JUNK_SCAN:] if last == 0 else new[:JUNK_SCAN]
        chosen = folder.packet_uids(window, max_bytes=max_bytes, folder=name)
        uids = chosen[:limit]
        bodies = whole_messages(client, uids) if uids else {}
    except IMAPClientAbortError:
        raise
    except (IMAPClientError, FetchError) as exc:  # (a refusal: the look fails, not the fetch;
        # a lost connection fails the SELECT of the configured folder after this, and the fetch)
        return JunkLook(name, cursor, problem=f"cannot read the spam folder {name!r}: {exc}")
    if len(chosen) > limit:
        through = uids[-1]  # the rest of the packet mail waits for the next look
    elif window and window[-1] != new[-1]:
        through = window[-1]  # the messages after the window wait for the next look
    else:
        through = max([uidnext - 1, *new])
    found = tuple(
        FoundMail(uid=uid, ref=f"{JUNK_REF}{validity}:{uid}", raw=bodies[uid])
        for uid in uids
        if uid in bodies
    )
    if found:
        _log.info("%d packet email(s) in the spam folder %r", len(found), name)
    return JunkLook(name, f"{validity}:{through}", found)


def junk_words(folder: ImapFolder) -> str:
    """Where a sync looks for packet mail a spam filter took, as `hexpost account test` says
    it (`mail.imapcheck.check_login`): the folder found or configured, or why none is looked in."""
    config = folder.config
    if config.ignore_junk:
        return "the spam folder is not looked in (ignore_junk)"
    name = config.junk_folder

    def find(client: Any) -> str | None:
        if name is None:
            return _find(client)
        return name if client.folder_exists(name) else None

    found = folder.visit("looking for the spam folder on", find, elsewhere=False)
    minutes = JUNK_EVERY // 60
    if found is not None:
        return f"spam folder {found!r} looked in every {minutes} minutes for packet mail"
    if name is not None:
        return f"the spam folder {name!r} (junk_folder) does not exist"
    return "no spam folder found (set junk_folder if your provider has one)"


USUAL_NAMES = (
    "junk",
    "spam",
    "junk email",
    "junk e-mail",
    "junk mail",
    "bulk mail",
    "bulk",
    "[gmail]/spam",
    "[google mail]/spam",
)
"""Names the big providers give their spam folder, for a server that flags none (compared
without case, at the top level or under INBOX)."""


def _find(client: Any) -> str | None:
    """The folder the server flags as spam, else one with a usual name (`USUAL_NAMES`), else
    None: from one LIST of every folder."""
    try:
        listed = client.list_folders()
    except IMAPClientAbortError:
        raise
    except IMAPClientError as exc:
        _log.info("could not list the folders to find the spam folder: %s", exc)
        return None
    return spam_folder_in(listed)


def spam_folder_in(listed: Any) -> str | None:
    """The spam folder among a LIST answer's ``(flags, delimiter, name)`` entries."""
    names: dict[str, str] = {}
    for entry in listed:
        if not (isinstance(entry, tuple) and len(entry) == 3 and isinstance(entry[2], str)):
            continue  # (an entry imapclient could not read)
        flags, delimiter, name = entry
        if _JUNK_FLAG in (flags or ()):
            return str(name)
        lowered = name.lower()
        if isinstance(delimiter, bytes) and lowered.startswith("inbox"):
            lowered = lowered.removeprefix("inbox" + delimiter.decode("ascii", "replace"))
        names.setdefault(lowered, name)
    return next((names[usual] for usual in USUAL_NAMES if usual in names), None)
