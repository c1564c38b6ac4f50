"""Downloading whole messages by one ``UID FETCH``, read without imapclient's general parser.

imapclient reads every FETCH answer with its general tokenizer, in Python, a character at a
time, then builds a dictionary per message: for a batch of packet emails that cost about as
much as reading the emails themselves (15 ms per 1,000 on the test machine, on the IMAP worker
thread, which shares the interpreter with the thread taking the packets in). The answer to
``UID FETCH <uids> (BODY.PEEK[])`` is nearly always a run of one shape, which imaplib hands
over as ``(b'<n> (UID <uid> BODY[] {<size>}', <the message>)`` then ``b')'`` (or with the UID
after the message: ``b' UID <uid>)'``). `whole_messages` reads exactly those shapes, checking
that each message is as long as its size says; any other answer (an unsolicited flag update in
between, another order of the items, anything unexpected) is handed whole to imapclient's own
parser, so nothing is guessed. The command sent and its checks are imapclient's: the same
imaplib connection, the same errors (`imapclient.exceptions.IMAPClientError`, and the abort
error when the connection breaks).
"""

from __future__ import annotations

import imaplib
import re
from collections.abc import Sequence
from typing import Any

from imapclient.exceptions import IMAPClientError
from imapclient.response_parser import parse_fetch_response

_UID_FIRST = re.compile(rb"[0-9]{1,10} \(UID ([0-9]{1,10}) BODY\[\] \{([0-9]{1,10})\}")
_BODY_FIRST = re.compile(rb"[0-9]{1,10} \(BODY\[\] \{([0-9]{1,10})\}")
_UID_AFTER = re.compile(rb" UID ([0-9]{1,10})\)")


def whole_messages(client: Any, uids: Sequence[int]) -> dict[int, bytes]:
    """The messages ``uids`` names (UIDs of the selected folder), whole, by UID; one expunged
    meanwhile is missing. ``client`` is an `imapclient.IMAPClient` (anything else that offers
    its ``fetch`` is asked through it)."""
    if not uids:
        return {}
    imap4 = getattr(client, "_imap", None)
    if not isinstance(imap4, imaplib.IMAP4) or getattr(client, "use_uid", False) is not True:
        return _bodies(client.fetch(list(uids), [b"BODY.PEEK[]"]))
    typ, data = imap4.uid("FETCH", ",".join(str(uid) for uid in uids), "(BODY.PEEK[])")
    if typ != "OK":
        said = data[0] if data else b""
        text = said.decode("utf-8", "replace") if isinstance(said, bytes) else str(said)
        raise IMAPClientError(f"fetch failed: {text}")
    read = quick_read(data)
    if read is None:
        read = _bodies(parse_fetch_response(data, client.normalise_times, True))
    return read


def quick_read(data: list[Any]) -> dict[int, bytes] | None:
    """The messages of imaplib's FETCH answer ``data`` when every item has one of the two
    usual shapes (see the module's notes), else None."""
    found: dict[int, bytes] = {}
    items = iter(data)
    for item in items:
        if not (isinstance(item, tuple) and len(item) == 2):
            return None
        head, message = item
        if not (isinstance(head, bytes) and isinstance(message, bytes)):
            return None
        tail = next(items, None)
        if not isinstance(tail, bytes):
            return None
        first = _UID_FIRST.fullmatch(head)
        if first is not None:
            if tail != b")":
                return None
            uid, size = first.groups()
        else:
            body = _BODY_FIRST.fullmatch(head)
            after = None if body is None else _UID_AFTER.fullmatch(tail)
            if body is None or after is None:
                return None
            size, uid = body.group(1), after.group(1)
        if int(size) != len(message):
            return None
        found[int(uid)] = message
    return found


def _bodies(fetched: Any) -> dict[int, bytes]:
    """``BODY[]`` of each message of imapclient's parsed answer (keyed by UID)."""
    found: dict[int, bytes] = {}
    for uid, items in fetched.items():
        raw = items.get(b"BODY[]") if isinstance(items, dict) else None
        if isinstance(uid, int) and isinstance(raw, bytes):
            found[uid] = raw
    return found
