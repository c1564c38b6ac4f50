"""Hostile emails, built to a given size: what a stranger can send to make reading slow.

Shared by tests/mail/test_hostile_mail.py (which reads each under a timeout and counts the
work) and bench/hostile.py (which times each at the size limit). Every email carries the
``X-Hexpost`` header and the word ``hexpost``, so it passes the IMAP filter and reaches the
armour scan. ``size`` is the target length of the whole email in bytes.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Callable

from mail.mime import (
    ARMOR_BEGIN,
    ARMOR_END,
    HEADER,
    MAX_TEXT_BYTES,
)
from mail.mimehtml import MAX_ENTITIES, MAX_TAGS

GAME = "ab" * 16
HEAD = (
    f"From: stranger@example.net\r\nTo: bob@example.org\r\nSubject: hexpost\r\n"
    f"Message-ID: <hostile@example.net>\r\n{HEADER}: game={GAME}; seq=3\r\nMIME-Version: 1.0\r\n"
).encode()


def _text(body: bytes, *, subtype: str = "plain") -> bytes:
    return HEAD + f"Content-Type: text/{subtype}; charset=utf-8\r\n\r\nhexpost\r\n".encode() + body


def _fill(
    unit: bytes, size: int, *, subtype: str = "plain", count: int = 0, part: int = MAX_TEXT_BYTES
) -> bytes:
    """Text parts made of ``unit``, each as big as a text part that is still read, as many
    as fit in ``size`` (so every byte is searched). With ``count``, each part holds ``unit``
    that many times, then spaces. ``part`` is the size of each part (at most the limit)."""
    head = HEAD + b"Content-Type: multipart/mixed; boundary=b\r\n\r\n"
    part_head = f"--b\r\nContent-Type: text/{subtype}; charset=utf-8\r\n\r\nhexpost ".encode()
    room = size - len(head) - len(b"\r\n--b--\r\n")
    parts: list[bytes] = []
    while room > len(part_head) + len(unit):
        fits = min(part - len(b"hexpost "), room - len(part_head) - 2)
        times = min(count, fits // len(unit)) if count else fits // len(unit)
        text = unit * times + b" " * (fits - times * len(unit) if count else 0)
        parts.append(part_head + text + b"\r\n")
        room -= len(parts[-1])
    return head + b"".join(parts) + b"--b--\r\n"


def dashes(size: int) -> bytes:
    """One line of dashes: the old BEGIN pattern tried every dash as the start of a marker."""
    return _fill(b"-", size)


def dash_lines(size: int) -> bytes:
    return _fill(b"-" * 75 + b"\r\n", size)


def begin_without_end(size: int) -> bytes:
    return _fill(ARMOR_BEGIN.encode() + b"\r\n", size)


def begin_word(size: int) -> bytes:
    return _fill(b"-----BEGIN", size)


def begin_end_pairs(size: int) -> bytes:
    """Empty blocks, each one a decode attempt."""
    return _fill(f"{ARMOR_BEGIN}\r\n{ARMOR_END}\r\n".encode(), size)


def hexpost_words(size: int) -> bytes:
    return _fill(b"hexpost ", size)


def quoted(size: int) -> bytes:
    """Lines of nothing but quote marks, each part an unfinished block."""
    return _fill(ARMOR_BEGIN.encode() + b"\r\n" + b"> " * 38 + b"\r\n", size)


def script_tags(size: int) -> bytes:
    return _fill(b"<script", size, subtype="html")


def open_angles(size: int) -> bytes:
    return _fill(b"<", size, subtype="html")


def short_tags(size: int) -> bytes:
    return _fill(b"<a>", size, subtype="html")


def entities(size: int) -> bytes:
    return _fill(b"&amp;", size, subtype="html")


def entities_at_the_limit(size: int) -> bytes:
    """As many character references as are still decoded."""
    return _fill(b"&amp;", size, subtype="html", count=MAX_ENTITIES)


def entities_in_many_parts(size: int) -> bytes:
    """HTML parts each holding as many character references as one part may decode."""
    return _fill(b"&amp;", size, subtype="html", count=MAX_ENTITIES, part=size // 64)


def tags_at_the_limit(size: int) -> bytes:
    """As many tags as an HTML part may hold and still be read."""
    return _fill(b"<a>", size, subtype="html", count=MAX_TAGS)


def tags_in_many_parts(size: int) -> bytes:
    return _fill(b"<a>", size, subtype="html", part=size // 64)


def closed_styles(size: int) -> bytes:
    """Style elements, each closed: each one is a step of the loop that drops them."""
    return _fill(b"<style></style>", size, subtype="html", count=MAX_TAGS // 2)


def nested_multiparts(size: int, depth: int = 500) -> bytes:
    """Multipart inside multipart, ``depth`` levels, short lines filling the innermost part:
    the standard parser tested each line against every enclosing boundary."""
    opening = b"".join(
        b"Content-Type: multipart/mixed; boundary=b%d\r\n\r\n--b%d\r\n" % (i, i)
        for i in range(depth)
    )
    closing = b"".join(b"\r\n--b%d--\r\n" % i for i in reversed(range(depth)))
    inner = b"Content-Type: text/plain\r\n\r\nhexpost\r\n"
    room = size - len(HEAD) - len(opening) - len(closing) - len(inner)
    return HEAD + opening + inner + b"x\r\n" * max(0, room // 3) + closing


def nested_forwards(size: int, depth: int = 500) -> bytes:
    """Forwarded message inside forwarded message, ``depth`` levels."""
    level = b"Content-Type: message/rfc822\r\n\r\nSubject: fwd\r\n"
    inner = b"Content-Type: text/plain\r\n\r\nhexpost\r\n"
    room = size - len(HEAD) - depth * len(level) - len(inner)
    return HEAD + level * depth + inner + b"x\r\n" * max(0, room // 3)


def tiny_parts(size: int) -> bytes:
    """As many empty parts as fit: the standard parser built an object for each."""
    head = HEAD + b"Content-Type: multipart/mixed; boundary=b\r\n\r\n"
    unit = b"--b\r\n\r\n"
    return head + unit * ((size - len(head) - 7) // len(unit)) + b"--b--\r\n"


def tiny_packet_parts(size: int) -> bytes:
    """Parts that each claim to be a packet attachment, each one a decode attempt."""
    head = HEAD + b"Content-Type: multipart/mixed; boundary=b\r\n\r\n"
    unit = b"--b\r\nContent-Type: application/x-hexpost-packet\r\n\r\nAAAA\r\n"
    return head + unit * ((size - len(head) - 7) // len(unit)) + b"--b--\r\n"


def long_header_line(size: int) -> bytes:
    """A header line of ``size`` bytes (1 MiB is plenty to have hurt)."""
    line = b"X-Junk: " + b"a" * max(0, size - len(HEAD) - 40) + b"\r\n"
    return HEAD + line + b"\r\nhexpost\r\n"


def long_content_type(size: int) -> bytes:
    """A Content-Type with as many parameters as fit: quadratic in `Message.get_param`."""
    params = b"a=b;" * max(0, (size - len(HEAD) - 80) // 4)
    return HEAD + b"Content-Type: text/plain; " + params + b"charset=utf-8\r\n\r\nhexpost\r\n"


def big_fake_armour(size: int) -> bytes:
    """Armoured blocks holding base64 of the largest packet size, but not a packet."""
    noise = base64.b64encode(os.urandom(1024 * 1024)).decode()
    lines = "\r\n".join(noise[i : i + 64] for i in range(0, len(noise), 64))
    block = f"{ARMOR_BEGIN}\r\nPacket: {'cd' * 32}\r\n\r\n{lines}\r\n{ARMOR_END}\r\n".encode()
    return _fill(block, size)


def big_fake_attachments(size: int) -> bytes:
    """Base64 attachments of the largest packet size, named like packets, not packets."""
    head = HEAD + b"Content-Type: multipart/mixed; boundary=b\r\n\r\n"
    data = base64.encodebytes(os.urandom(1024 * 1024))
    unit = (
        b"--b\r\nContent-Type: application/x-hexpost-packet\r\n"
        b"Content-Transfer-Encoding: base64\r\n\r\n" + data.replace(b"\n", b"\r\n")
    )
    return head + unit * max(1, (size - len(head)) // len(unit)) + b"--b--\r\n"


HOSTILE: dict[str, Callable[[int], bytes]] = {
    "dashes": dashes,
    "dash lines": dash_lines,
    "BEGIN without END": begin_without_end,
    "-----BEGIN repeated": begin_word,
    "empty BEGIN/END pairs": begin_end_pairs,
    "hexpost repeated": hexpost_words,
    "quote marks": quoted,
    "<script repeated": script_tags,
    "< repeated": open_angles,
    "<a> repeated": short_tags,
    "&amp; repeated": entities,
    "&amp; at the decoded limit": entities_at_the_limit,
    "&amp; in 64 parts": entities_in_many_parts,
    "<a> at the tag limit": tags_at_the_limit,
    "<a> in 64 parts": tags_in_many_parts,
    "closed <style> elements": closed_styles,
    "500 nested multiparts": nested_multiparts,
    "500 nested forwards": nested_forwards,
    "tiny parts": tiny_parts,
    "tiny packet parts": tiny_packet_parts,
    "1 MiB header line": lambda size: long_header_line(min(size, 1024 * 1024)),
    "long Content-Type": long_content_type,
    "max-size fake armour": big_fake_armour,
    "max-size fake attachments": big_fake_attachments,
}
"""Every class of hostile email, by name."""
