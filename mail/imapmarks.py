"""Which facts an IMAP server reports about a message mark it as packet mail (blocking-free).

`mail.imap` asks the server for the size, the ``X-Hexpost`` header and the BODYSTRUCTURE of
each new message that a server search did not already name as hexpost's (by that header and
its size), and downloads such a message only when these say it carries a packet. Both facts
are whatever the sender built and the server parsed, so reading them is bounded: a header is
looked at up to `MAX_HEADER_BYTES`, a structure is walked with a stack (no recursion) for at
most `MAX_STRUCTURE_NODES` entries and `MAX_STRUCTURE_DEPTH` levels.
"""

from __future__ import annotations

import contextlib
import email.header
import logging
from collections.abc import Mapping
from typing import Any

from imapclient.exceptions import IMAPClientAbortError, IMAPClientError

from mail.mime import PACKET_EXTENSION, PACKET_TYPE, is_hexpost

_log = logging.getLogger(__name__)


def searched(client: Any, criteria: list[Any]) -> list[int]:
    """The UIDs a search for hexpost's marks (its header, the armour line) names; none when
    the server refused the search (Yahoo has answered header searches NO, other servers
    reject criteria they do not index), so the caller judges those messages by their size and
    structure instead. A lost connection still raises."""
    try:
        return [int(uid) for uid in client.search(criteria)]
    except IMAPClientAbortError:
        raise
    except IMAPClientError as exc:
        _log.info("the server refused a search for hexpost's marks (%s): judging by structure", exc)
        return []


def marks_packet(fact: Mapping[bytes, Any]) -> bool:
    """Whether a message's fetched header or structure says it carries a packet."""
    header = next(
        (
            value
            for key, value in fact.items()
            if isinstance(key, bytes) and key.upper().startswith(b"BODY[HEADER")
        ),
        b"",
    )
    if isinstance(header, bytes) and header.strip() and is_hexpost(header[:MAX_HEADER_BYTES]):
        return True
    return has_packet_part(fact.get(b"BODYSTRUCTURE"))


MAX_HEADER_BYTES = 64 * 1024
"""Of the fetched ``X-Hexpost`` header, only this much is looked at (the field is one line)."""
MAX_STRUCTURE_NODES = 500
"""BODYSTRUCTURE entries examined per message: the server reports what the sender built, and
a packet email has three parts (a forward of it, six)."""
MAX_STRUCTURE_DEPTH = 24
"""Levels of a BODYSTRUCTURE followed (a multipart level nests once, a forward twice)."""
_MAX_PARAMS = 8
"""Parameter pairs examined per part for a file name."""
_MAX_NAME = 1000
"""Characters of a file name decoded (RFC 2047 decoding is not linear in hostile text)."""


def has_packet_part(structure: Any) -> bool:
    """Whether a BODYSTRUCTURE (imapclient's nested tuples) holds a part of the packet type or
    a file named ``*.hexpost``, at any depth up to `MAX_STRUCTURE_DEPTH`, forwarded messages
    included. Walks with a stack (no recursion) and stops after `MAX_STRUCTURE_NODES`."""
    stack: list[tuple[Any, int]] = [(structure, 0)]
    budget = MAX_STRUCTURE_NODES
    while stack and budget > 0:
        node, depth = stack.pop()
        budget -= 1
        if depth > MAX_STRUCTURE_DEPTH:
            continue
        if isinstance(node, list):
            stack.extend((part, depth + 1) for part in reversed(node[:MAX_STRUCTURE_NODES]))
            continue
        if not isinstance(node, tuple) or not node:
            continue
        if isinstance(node[0], list | tuple):  # multipart: the parts come first
            parts = [p for p in node[:MAX_STRUCTURE_NODES] if isinstance(p, list | tuple)]
            stack.extend((part, depth + 1) for part in reversed(parts))
            continue
        if _packet_leaf(node):
            return True
        kind = b"/".join(s for s in node[:2] if isinstance(s, bytes)).lower()
        if kind == b"message/rfc822" and len(node) > 8:
            stack.append((node[8], depth + 1))
    return False


def _packet_leaf(structure: tuple[Any, ...]) -> bool:
    """Whether one non-multipart BODYSTRUCTURE entry is a packet attachment."""
    if len(structure) < 3 or not isinstance(structure[0], bytes):
        return False
    kind = b"/".join(s for s in structure[:2] if isinstance(s, bytes)).decode("ascii", "replace")
    if kind.lower() == PACKET_TYPE:
        return True
    # The Content-Type's name, and the Content-Disposition's filename: a (type, params) pair
    # among the extension fields.
    params = [structure[2]]
    params += [f[1] for f in structure[7:16] if isinstance(f, tuple) and len(f) == 2]
    return any(_names_packet_file(p) for p in params)


def _names_packet_file(params: Any) -> bool:
    """Whether a parameter list ``(key, value, key, value...)`` names a ``*.hexpost`` file."""
    if not isinstance(params, tuple):
        return False
    params = params[: 2 * _MAX_PARAMS]
    for key, value in zip(params[::2], params[1::2], strict=False):
        if not (isinstance(key, bytes) and isinstance(value, bytes)):
            continue
        if not key.lower().startswith((b"name", b"filename")):
            continue
        text = value[: _MAX_NAME * 4].decode("utf-8", "replace")[:_MAX_NAME]
        if "=?" in text:  # an RFC 2047 encoded word, as some clients still write names
            with contextlib.suppress(Exception):
                text = str(email.header.make_header(email.header.decode_header(text)))
        if PACKET_EXTENSION in text.lower():
            return True
    return False
