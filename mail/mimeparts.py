"""A bounded walk over the MIME parts of an email: never more work than the email's size.

`mail.mime` looks for packet copies in email anybody can send, so the parser it uses must give
a stranger no lever. The standard library's parser gives several (measured on Python 3.11):

- it is recursive: about 1,000 nested multiparts or forwarded messages raise RecursionError;
- it tests every body line against the boundary of every enclosing multipart, so nesting
  times lines is the cost: 300 levels around 200,000 short lines took 6 s;
- it builds an object per part: 500,000 empty parts (3.5 MB) took 4.4 s;
- `Message.get_param` copies the rest of the header for each parameter it reads, so it is
  quadratic in a header's length: a Content-Type of 250,000 parameters (1 MB) took 6.7 s.

This module walks the structure itself, with a stack instead of recursion, on offsets into the
raw bytes (no copies of bodies). Each part's header block is at most `MAX_HEADER_BYTES`; only
the few fields reading needs are kept, each cut to `MAX_FIELD` characters, in a small
`email.message.Message`, so the standard library's parameter decoding (quoting, RFC 2231 file
names) still applies, but to short text. A multipart body is cut at its boundary lines with
`bytes.find`. The walk stops at `MAX_PARTS` parts, `MAX_DEPTH` levels of nesting and
`SCAN_BUDGET` bytes searched for boundaries, and gives up on a boundary after
`MAX_FALSE_DELIMITERS` look-alike lines. Bodies are decoded (base64, quoted-printable) by
`binascii`, in C, and only when their encoded size can hold what the caller wants.

Pure: bytes in, parts out; nothing here raises on any input.
"""

from __future__ import annotations

import binascii
import functools
import re
from dataclasses import dataclass, field
from email.message import Message

MAX_PARTS = 64
"""Parts looked at per email. A packet email has three, a forward of it six."""
MAX_DEPTH = 12
"""Levels of nesting followed: a forwarded email adds two (the message part, its multipart)."""
MAX_HEADER_BYTES = 128 * 1024
"""A part whose header block is longer is skipped whole (real mail has a few kilobytes)."""
MAX_FIELD = 1000
"""Characters kept of each header field reading uses (RFC 5322 lines are under 998)."""
MAX_PARAMS = 8
"""Parameters kept of each header field (``; name=value``): a long file name split by RFC 2231
takes a few; the standard library reads them with Python steps per parameter."""
SCAN_BUDGET = 16 * 1024 * 1024
"""Bytes searched for boundary lines per email, nested multiparts searching again."""
MAX_FALSE_DELIMITERS = 256
"""Lines that start like a boundary but are not one, per email, before the walk stops."""
FIELDS = (
    "content-type",
    "content-transfer-encoding",
    "content-disposition",
    "x-hexpost",
    "message-id",
)
"""The header fields kept (the first of each, as `Message.get` returns)."""

_WHITESPACE = b" \t"
_NAME_BYTES = bytes(range(33, 127))
"""The bytes a header field's name is made of (printable ASCII but space): deleting them from a
name leaves nothing exactly when the name is one (`bytes.translate`, in C)."""
_NEEDLES = tuple((name, b"\n" + name.encode() + b":") for name in FIELDS)
"""Each kept field's name as it opens a line of a lowered header block."""
_BLANK_LINE = re.compile(rb"\n\r?\n")
_BASE64_JUNK = bytes(
    c for c in range(256) if not (chr(c).isascii() and (chr(c).isalnum() or chr(c) in "+/"))
)
"""What a base64 body may hold besides its alphabet: line breaks, padding, and junk that
lenient decoders skip."""


@dataclass(frozen=True)
class Part:
    """One MIME part: its kept header fields and where its body lies in the raw bytes.

    What reading asks of a part is worked out once (the standard library parses a header's
    parameters again on every question), and only when asked: `read_known` fills the answers
    in itself for the layout hexpost writes, and no Message is ever made."""

    fields: dict[str, str]
    """The first of each of `FIELDS` (lower-case names) the header block holds, as `_fields`
    cuts them."""
    start: int
    end: int
    message: bool
    """Whether this header block is a whole message's (the email or a forwarded one)."""
    default: str = "text/plain"
    """The content type of a part that names none (``message/rfc822`` in a digest)."""

    @functools.cached_property
    def head(self) -> Message:
        """A small Message holding only the kept fields; it answers types, parameters and file
        names as the standard library reads them."""
        head = Message()
        head.set_default_type(self.default)
        for name, value in self.fields.items():
            head[name] = value
        return head

    @classmethod
    def known(
        cls,
        fields: dict[str, str],
        start: int,
        end: int,
        message: bool,
        content_type: str,
        boundary: str | None = None,
        *,
        charset: str = "",
        filename: str = "",
    ) -> Part:
        """A part whose answers `read_known` read from fields of an exact form it knows.

        Made as the dataclass's own ``__init__`` makes it, in one step: that ``__init__`` sets
        each field of a frozen dataclass through ``object.__setattr__``, which cost more than
        reading the part. A field left out (``default``) reads its default, which the
        dataclass keeps on the class. The answers go where the cached properties keep what
        they work out."""
        part = object.__new__(cls)
        part.__dict__.update(
            fields=fields,
            start=start,
            end=end,
            message=message,
            content_type=content_type,
            boundary=boundary,
            charset=charset,
            filename=filename,
        )
        return part

    @functools.cached_property
    def content_type(self) -> str:
        return self.head.get_content_type()

    @functools.cached_property
    def filename(self) -> str:
        """The file name, "" if none or if it cannot be decoded (RFC 2231 names a charset,
        and some of Python's codecs raise even when told to replace what they cannot read)."""
        try:
            return str(self.head.get_filename() or "")
        except Exception:
            return ""

    @functools.cached_property
    def charset(self) -> str:
        try:
            return str(self.head.get_content_charset() or "")
        except Exception:
            return ""

    @functools.cached_property
    def boundary(self) -> str | None:
        try:
            return self.head.get_boundary()
        except Exception:
            return None

    @property
    def is_leaf(self) -> bool:
        """Neither a multipart nor a forwarded message: its body is content."""
        kind = self.content_type
        return not kind.startswith("multipart/") and kind != "message/rfc822"

    def field(self, name: str) -> str:
        return self.fields.get(name.lower(), "").strip()


@dataclass
class _Budget:
    parts: int = MAX_PARTS
    scan: int = SCAN_BUDGET
    false_delimiters: int = MAX_FALSE_DELIMITERS
    stack: list[tuple[int, int, int, bool, str]] = field(default_factory=list)


def walk(raw: bytes) -> list[Part]:
    """The parts of an email in document order (a part before the parts inside it), bounded
    as the module says: parts past a limit are left out, never an error."""
    budget = _Budget()
    budget.stack.append((0, len(raw), 0, True, "text/plain"))
    parts: list[Part] = []
    while budget.stack and budget.parts > 0:
        start, end, depth, message, default = budget.stack.pop()
        split = _split_head(raw, start, end)
        if split is None:
            continue
        head_end, body_start = split
        part = Part(_fields(raw[start:head_end]), body_start, end, message, default)
        parts.append(part)
        budget.parts -= 1
        if depth >= MAX_DEPTH:
            continue
        kind = part.content_type
        if kind == "message/rfc822":
            budget.stack.append((body_start, end, depth + 1, True, "text/plain"))
        elif kind.startswith("multipart/"):
            inner = "message/rfc822" if kind == "multipart/digest" else "text/plain"
            children = _children(raw, body_start, end, part.boundary, budget)
            for child_start, child_end in reversed(children):
                budget.stack.append((child_start, child_end, depth + 1, False, inner))
    return parts


def header_fields(raw: bytes) -> Message:
    """The kept fields of an email's own header block (empty when it is too long)."""
    split = _split_head(raw, 0, len(raw))
    return _head(raw[: split[0]] if split else b"", "text/plain")


def body(raw: bytes, part: Part, limit: int) -> bytes | None:
    """A leaf part's content, decoded from its transfer encoding; None when it (or even its
    encoded form) is bigger than ``limit`` bytes. Unknown encodings are taken as they are."""
    size = part.end - part.start
    encoding = part.field("content-transfer-encoding").lower()
    if encoding == "base64":
        if size > limit * 2 + 4096:  # 4/3 of the data, plus line breaks
            return None
        data = _base64(raw[part.start : part.end])
    elif encoding == "quoted-printable":
        if size > limit * 3 + 4096:  # "=XX" per byte at worst
            return None
        data = binascii.a2b_qp(raw[part.start : part.end])
    else:
        if size > limit:
            return None
        data = raw[part.start : part.end]
    return data if len(data) <= limit else None


def _base64(encoded: bytes) -> bytes:
    """Lenient base64 as mail readers do it: junk skipped, missing padding forgiven."""
    text = encoded.translate(None, _BASE64_JUNK)
    text = text[: len(text) - len(text) % 4] if len(text) % 4 == 1 else text
    text += b"=" * (-len(text) % 4)
    try:
        return binascii.a2b_base64(text)
    except binascii.Error:  # pragma: no cover - the text is clean alphabet, padded
        return b""


def _split_head(raw: bytes, start: int, end: int) -> tuple[int, int] | None:
    """Where a part's header block ends and its body starts; None if the block is too long.

    The block ends at the first empty line. A part whose first line cannot be a header field
    (no name and colon) has no header block: its body starts at once, as the standard parser
    reads it. A part with no empty line within its size is all header."""
    if raw.startswith(b"\n", start, end):
        return start, start + 1
    if raw.startswith(b"\r\n", start, end):
        return start, start + 2
    first = raw[start : min(end, start + 200)]
    name, colon, _ = first.partition(b":")
    header_like = colon and name and not name.translate(None, _NAME_BYTES)
    if not header_like and not first.startswith((b"From ", b" ", b"\t")):
        return start, start
    limit = min(end, start + MAX_HEADER_BYTES)
    blank = _BLANK_LINE.search(raw, start, limit)  # stops at the first: the header's length
    if blank is not None:
        return blank.start() + 1, blank.end()
    if limit == end:
        return end, end
    return None


def _head(block: bytes, default: str) -> Message:
    """A Message with the kept fields of ``block`` (see `_fields`)."""
    return Part(_fields(block), 0, 0, False, default).head


def _fields(block: bytes) -> dict[str, str]:
    """The first of each of `FIELDS` in ``block``, unfolded lines kept as the compat32 parser
    keeps them, each cut to `MAX_FIELD` characters."""
    head: dict[str, str] = {}
    text = b"\n" + block
    lowered = text.lower()
    for name, needle in _NEEDLES:
        at = lowered.find(needle)
        if at < 0:
            continue
        start = at + len(needle)
        stop = text.find(b"\n", start)
        if stop < 0:
            stop = len(text)
        elif stop - start <= MAX_FIELD and text.startswith((b" ", b"\t"), stop + 1):
            stop = _unfolded_end(text, start, stop + 1)
        value = text[start : min(stop, start + MAX_FIELD * 4)].decode("utf-8", "replace")
        value = value.strip(" \t\r\n")[:MAX_FIELD]
        if value.count(";") > MAX_PARAMS:
            value = ";".join(value.split(";", MAX_PARAMS + 1)[: MAX_PARAMS + 1])
        head[name] = value
    return head


def _unfolded_end(text: bytes, start: int, stop: int) -> int:
    """Where a folded field that starts at ``start`` ends: at the first line break not followed
    by a space or tab, or at the first one past `MAX_FIELD` bytes from the start (searching from
    ``stop``, just past a break that was followed by one)."""
    while True:
        newline = text.find(b"\n", stop)
        if newline < 0:
            return len(text)
        if newline - start > MAX_FIELD or not text.startswith((b" ", b"\t"), newline + 1):
            return newline
        stop = newline + 1


def _children(
    raw: bytes, start: int, end: int, boundary: str | None, budget: _Budget
) -> list[tuple[int, int]]:
    """The body ranges of a multipart's parts, at most as many as the budget still allows.

    A delimiter is ``--boundary`` at the start of a line, then optionally ``--`` (the last
    one), then only spaces or tabs to the end of the line. Text before the first delimiter
    and after the last one is not a part. Without a closing delimiter, the last part runs to
    the end, as the standard parser reads it."""
    if not boundary or len(boundary) > 200 or budget.scan < end - start:
        return []
    budget.scan -= end - start
    delimiter = b"--" + boundary.encode("utf-8", "replace")
    children: list[tuple[int, int]] = []
    current: int | None = None
    pos = start
    while len(children) < budget.parts:
        at = raw.find(delimiter, pos, end)
        if at < 0:
            break
        pos = at + 1
        after = at + len(delimiter)
        closing = raw.startswith(b"--", after, end)
        newline = raw.find(b"\n", after, end)
        line_end = end if newline < 0 else newline
        rest = raw[after + 2 if closing else after : line_end]
        if (at > start and raw[at - 1] != 0x0A) or rest.strip(_WHITESPACE + b"\r"):
            budget.false_delimiters -= 1
            if budget.false_delimiters <= 0:
                break
            continue
        if current is not None:
            stop = at - 1 if at > start else at
            if stop > current and raw[stop - 1] == 0x0D:
                stop -= 1
            children.append((current, max(current, stop)))
        if closing:
            return children
        current = pos = min(end, line_end + 1)
    if current is not None and len(children) < budget.parts:
        children.append((current, end))
    return children


# --- hexpost's own layout, read without the standard library -----------------------------------

_KNOWN_MULTIPART = re.compile(r'multipart/mixed; boundary="(=+[0-9]{1,30}=+)"')
"""The top Content-Type the email package writes for a packet email."""
_KNOWN_TEXT = re.compile(r'text/plain; charset="(utf-8|us-ascii)"')
_KNOWN_ENCODINGS = frozenset({"7bit", "8bit", "base64", "quoted-printable"})
_KNOWN_DISPOSITION = re.compile(r'attachment;\r?\n? filename="([0-9A-Za-z._-]{1,200})"')


def read_known(raw: bytes, packet_type: str) -> list[Part] | None:
    """The parts of an email laid out exactly as hexpost writes one (a multipart/mixed of a
    UTF-8 plain text part, then one ``packet_type`` attachment), as `walk` would find them; or
    None for any other email, which `walk` then reads.

    The same bounded steps as `walk` (`_split_head`, `_fields`, `_children`) cut the email, so
    the parts' places and fields are `walk`'s; only the questions `walk` hands to the standard
    library (content type, boundary, charset, file name) are answered from fields that match
    the few exact forms hexpost writes, which say the same as the library would. A field of any
    other form (a gateway's rewrite, a stranger's mail) gives None: nothing is guessed. The
    two parts' header blocks, when they are byte for byte what the email package writes, are
    not even cut (`_exact_children`)."""
    split = _split_head(raw, 0, len(raw))
    if split is None:
        return None
    top = _fields(raw[: split[0]])
    known = _KNOWN_MULTIPART.fullmatch(top.get("content-type", ""))
    if known is None or "content-disposition" in top:
        return None
    budget = _Budget()
    children = _children(raw, split[1], len(raw), known.group(1), budget)
    if len(children) != 2:
        return None
    parts = [Part.known(top, split[1], len(raw), True, "multipart/mixed", known.group(1))]
    exact = _exact_children(raw, children, packet_type)
    if exact is not None:
        return parts + exact
    for index, (start, end) in enumerate(children):
        split = _split_head(raw, start, end)
        if split is None:
            return None
        fields = _fields(raw[start : split[0]])
        if fields.get("content-transfer-encoding", "").lower() not in _KNOWN_ENCODINGS:
            return None
        kind = fields.get("content-type", "")
        disposition = fields.get("content-disposition")
        if index == 0:
            text = _KNOWN_TEXT.fullmatch(kind)
            if text is None or disposition is not None:
                return None
            part = Part.known(fields, split[1], end, False, "text/plain", charset=text.group(1))
        else:
            named = None if disposition is None else _KNOWN_DISPOSITION.fullmatch(disposition)
            if kind != packet_type or named is None:
                return None
            part = Part.known(fields, split[1], end, False, kind, filename=named.group(1))
        parts.append(part)
    return parts


def _text_heads() -> list[tuple[bytes, dict[str, str], str]]:
    """The text part's header blocks the email package writes, byte for byte, each with the
    blank line that ends it, the fields `_fields` keeps of it and its charset."""
    heads = []
    for charset in ("utf-8", "us-ascii"):
        for encoding in ("7bit", "8bit", "quoted-printable", "base64"):
            block = (
                f'Content-Type: text/plain; charset="{charset}"\r\n'
                f"Content-Transfer-Encoding: {encoding}\r\n"
            ).encode()
            heads.append((block + b"\r\n", _fields(block), charset))
    return heads


_TEXT_HEADS = _text_heads()
_FILE_NAME = re.compile(rb"[0-9A-Za-z._-]{1,200}")
_ATTACHMENT_END = b'"\r\nMIME-Version: 1.0\r\n\r\n'


def _exact_children(
    raw: bytes, children: list[tuple[int, int]], packet_type: str
) -> list[Part] | None:
    """The text part and the attachment when their header blocks are byte for byte what the
    email package writes (only the attachment's file name varies): their parts are made
    without cutting the blocks into fields, with the fields `_fields` finds in such a block
    (the tests compare them). None when either block differs at all: `read_known` then cuts
    them as `walk` does, and judges the fields it finds.

    Each block is followed by its blank line within its part, so `_split_head` would end it
    there: the first line is a header field and no blank line comes earlier."""
    (text_start, text_end), (file_start, file_end) = children
    for head, fields, charset in _TEXT_HEADS:
        if raw.startswith(head, text_start, text_end):
            text = Part.known(
                dict(fields), text_start + len(head), text_end, False, "text/plain", charset=charset
            )
            break
    else:
        return None
    opening = (
        f"Content-Type: {packet_type}\r\nContent-Transfer-Encoding: base64\r\n"
        'Content-Disposition: attachment;\r\n filename="'
    ).encode()
    if not raw.startswith(opening, file_start, file_end):
        return None
    name_start = file_start + len(opening)
    name_end = raw.find(b'"', name_start, min(file_end, name_start + 201))
    if name_end < 0 or _FILE_NAME.fullmatch(raw, name_start, name_end) is None:
        return None
    if not raw.startswith(_ATTACHMENT_END, name_end, file_end):
        return None
    name = raw[name_start:name_end].decode("ascii")
    fields = {
        "content-type": packet_type,
        "content-transfer-encoding": "base64",
        "content-disposition": f'attachment;\r\n filename="{name}"',
    }
    body_start = name_end + len(_ATTACHMENT_END)
    attachment = Part.known(fields, body_start, file_end, False, packet_type, filename=name)
    return [text, attachment]
