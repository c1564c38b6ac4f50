"""One packet per email, and back: the message format of the mail transport (pure, bytes only).

`build_message` makes the bytes of one email from one signed packet. The packet travels twice:

- as a base64 attachment of type ``application/x-hexpost-packet`` named ``*.hexpost``;
- as an armoured block at the end of the plain-text body, after a short plain-language summary::

      -----BEGIN HEXPOST PACKET-----
      Packet: <the packet id, 64 hex digits>

      <base64 of the packet bytes, 64 columns>
      -----END HEXPOST PACKET-----

Mail systems mangle one or the other (gateways re-encode attachments or strip them, clients
re-wrap text, quote it with ``> `` or forward the whole message), so `read_message` collects
every copy it can decode and `packet_from_message` returns the first one the caller's verify
callback accepts. Nothing in an email is trusted (protocol property P1): the headers
(``X-Hexpost``, Subject, Message-ID) only route and thread; the packet's own signature decides.

A late claim (`engine.core.claims`) and a chat message (`engine.core.chats`) travel the same
way: the armour's ``Packet:`` line carries the claim's or message's id, and `read_message`
takes their envelopes as candidates like a packet's. A chat message's email says ``chat=1``
instead of a position in its ``X-Hexpost`` header and names its attachment ``...-chat-...``;
a resend ask (`engine.core.resend_asks`) says ``ask=1`` and ``...-resend-...``.

Anybody can send an email, so reading is built for hostile input: it never raises, and its work
is linear in the email's size with a hard bound per email. The MIME structure is walked by
`mail.mimeparts` (bounded parts, depth, header size); text is searched with `bytes.find` and
short anchored patterns, never with a pattern that can backtrack over the whole text (HTML is
turned into text by `mail.mimehtml`); the copies decoded and the armour markers examined are
counted against fixed limits.

Most email is hexpost's own, untouched: its layout is read without the standard library
(`mimeparts.read_known`), and its armour is not even searched when its bytes show it can only
repeat the attachment's copy (`_armor_repeats`, a comparison of bytes in C): searching it would
give that copy again, dropped as a repeat. Any other armour (the attachment missing, unreadable
or different, a second block, a text re-encoded) is searched and decoded as always.

This module does no I/O and reads no clock or randomness: the date, the Message-ID and every
human-readable line are passed in.
"""

from __future__ import annotations

import base64
import binascii
import email.policy
import re
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from email.message import EmailMessage
from email.utils import format_datetime

import msgspec

from engine.core.chats import chat_id, is_chat, read_chat
from engine.core.claims import claim_id, is_claim, read_claim
from engine.core.errors import PacketError, VersionError
from engine.core.packets import MAX_PACKET_SIZE, packet_id, read_envelope
from engine.core.resend_asks import ask_id, is_ask, read_ask
from mail import mimehtml, mimeparts
from mail.mimehtml import MAX_DROPPED, MAX_ENTITIES, MAX_TAGS
from mail.transport import OutgoingPacket

PACKET_TYPE = "application/x-hexpost-packet"
"""The MIME type of the attachment."""
PACKET_EXTENSION = ".hexpost"
"""The file extension of the attachment (a gateway may rename the type, rarely the file)."""
HEADER = "X-Hexpost"
"""The routing header, e.g. ``X-Hexpost: game=<32 hex>; seq=24``. Never trusted."""
ARMOR_BEGIN = "-----BEGIN HEXPOST PACKET-----"
ARMOR_END = "-----END HEXPOST PACKET-----"
ARMOR_WIDTH = 64
MAX_REFERENCES = 10
"""References keeps the thread's first message id and the latest ones, as RFC 5322 suggests."""

_POLICY = email.policy.SMTP
"""CRLF line endings: the bytes are ready for SMTP and look like what IMAP returns."""
_HEADER_FIELD = re.compile(r"\b(game|seq)\s*=\s*([0-9A-Za-z]+)", re.IGNORECASE)
_HEX = re.compile(rb"[0-9a-fA-F]+")
_MARKER_AFTER = re.compile(rb"[\s>]+packet[\s>]*---")
"""What follows ``hexpost`` in a marker (matched on lowered text, from just after it)."""
_MARKER_BEFORE = re.compile(rb"[\s>]+(nigeb|dne)[\s>]*---")
"""What precedes ``hexpost`` in a marker, read backwards (matched on the reversed window)."""


def make_message_id(token: bytes, domain: str) -> str:
    """A Message-ID from caller-supplied random bytes (a fresh token per send attempt: Gmail
    drops a second message with a Message-ID it has seen). ``domain`` is the sender's."""
    if not token:
        raise ValueError("a Message-ID needs a non-empty random token")
    return f"<hexpost.{token.hex()}@{domain}>"


def armor(data: bytes, pid: bytes, width: int = ARMOR_WIDTH) -> str:
    """The armoured text block of a packet (no trailing newline)."""
    text = base64.b64encode(data).decode("ascii")
    lines = [text[i : i + width] for i in range(0, len(text), width)]
    return "\n".join([ARMOR_BEGIN, f"Packet: {pid.hex()}", "", *lines, ARMOR_END])


def attachment_name(game_id: bytes, seq: int) -> str:
    """``hexpost-<game id hex>-<seq, 8 digits>.hexpost``."""
    return f"hexpost-{game_id.hex()}-{seq:08d}{PACKET_EXTENSION}"


def chat_name(game_id: bytes, head_seq: int) -> str:
    """``hexpost-<game id hex>-chat-<head seq, 8 digits>.hexpost``: a chat message's attachment
    (`engine.core.chats`), told apart from the packet at that position by the word."""
    return f"hexpost-{game_id.hex()}-chat-{head_seq:08d}{PACKET_EXTENSION}"


def ask_name(game_id: bytes, head_seq: int) -> str:
    """``hexpost-<game id hex>-resend-<head seq, 8 digits>.hexpost``: a resend ask's attachment
    (`engine.core.resend_asks`)."""
    return f"hexpost-{game_id.hex()}-resend-{head_seq:08d}{PACKET_EXTENSION}"


def build_message(
    packet: OutgoingPacket,
    *,
    sender: str,
    subject: str,
    message_id: str,
    date: datetime,
    summary: Sequence[str] = (),
    references: Sequence[str] = (),
    automatic: bool = False,
) -> bytes:
    """The bytes of the email carrying ``packet`` (CRLF line endings, ready for SMTP).

    ``packet.to`` are the recipients. ``references`` are the Message-IDs of the game's earlier
    packet emails, oldest first; the last one is the In-Reply-To, so clients thread the game.
    ``summary`` lines open the body (what the packet does, in plain language). ``automatic``
    marks packets no person wrote (entropy-only answers) ``Auto-Submitted: auto-generated``, so
    no vacation responder answers them and no mail loop starts. ``date`` must be timezone-aware.
    """
    if not packet.to:
        raise ValueError("a packet email needs at least one recipient")
    msg = _envelope(sender, packet.to, subject, message_id, date, references, automatic)
    chat = is_chat(packet.data)  # a chat message names no chain position it is the packet of
    ask = is_ask(packet.data)  # nor does a resend ask
    where = "chat=1" if chat else "ask=1" if ask else f"seq={packet.seq}"
    msg[HEADER] = f"game={packet.game_id.hex()}; {where}"
    body = [
        *summary,
        *([""] if summary else []),
        "This email carries a hexpost packet: hexpost reads it from the",
        "attachment or from the block below. Nothing to do by hand.",
        "",
        armor(packet.data, packet.packet_id),
        "",
    ]
    msg.set_content("\n".join(body), charset="utf-8")
    maintype, subtype = PACKET_TYPE.split("/")
    msg.add_attachment(
        packet.data,
        maintype=maintype,
        subtype=subtype,
        filename=(chat_name if chat else ask_name if ask else attachment_name)(
            packet.game_id, packet.seq
        ),
    )
    return msg.as_bytes(policy=_POLICY)


def build_note(
    *,
    sender: str,
    to: Sequence[str],
    subject: str,
    message_id: str,
    date: datetime,
    lines: Sequence[str],
    references: Sequence[str] = (),
) -> bytes:
    """A plain email that carries no packet (a reminder), threaded with the game's emails.

    It has no ``X-Hexpost`` header and is marked ``Auto-Submitted: auto-generated``: a
    machine wrote it, and the other side's hexpost never takes it for a packet."""
    if not to:
        raise ValueError("an email needs at least one recipient")
    msg = _envelope(sender, to, subject, message_id, date, references, automatic=True)
    msg.set_content("\n".join([*lines, ""]), charset="utf-8")
    return msg.as_bytes(policy=_POLICY)


def _envelope(
    sender: str,
    to: Sequence[str],
    subject: str,
    message_id: str,
    date: datetime,
    references: Sequence[str],
    automatic: bool,
) -> EmailMessage:
    """The headers every hexpost email has: addresses, subject, date, id and threading."""
    msg = EmailMessage(policy=_POLICY)
    msg["From"] = sender
    msg["To"] = ", ".join(to)
    msg["Subject"] = subject
    msg["Date"] = format_datetime(date)
    msg["Message-ID"] = message_id
    if references:
        msg["In-Reply-To"] = references[-1]
        kept = list(references)
        if len(kept) > MAX_REFERENCES:
            kept = [kept[0], *kept[-(MAX_REFERENCES - 1) :]]
        msg["References"] = " ".join(kept)
    if automatic:
        msg["Auto-Submitted"] = "auto-generated"
    return msg


class ReadMail(msgspec.Struct, frozen=True):
    """What one email holds. Nothing here is verified: the caller verifies each candidate."""

    candidates: tuple[bytes, ...]
    """Distinct packet bytes that decoded, attachments first, then armoured blocks."""
    game_id: bytes | None = None
    """From the ``X-Hexpost`` header (of the message, or of a forwarded one): routing only."""
    seq: int | None = None
    message_id: str = ""
    """The email's own Message-ID, to thread the answer to it."""


def read_message(raw: bytes) -> ReadMail | None:
    """Every packet copy in an email, or None if it is not a hexpost email at all.

    Looks into every part, including forwarded messages (``message/rfc822``): attachments of
    the packet type or with the ``.hexpost`` extension, and armoured blocks in text parts
    (whatever their transfer encoding, re-wrapped, quoted with ``>``, surrounded by other
    text, or turned into HTML). A copy that does not decode to a well-formed packet (or late
    claim) envelope, or whose armour names another id, is dropped. An email with the header
    but no readable copy (truncated, corrupt) gives an empty ``candidates``.

    Never raises, and the work is linear in the email's size with a hard bound per email
    (see `mail.mimeparts` and the ``MAX_*`` limits here): an email over `MAX_MAIL_BYTES` is
    not read at all, and what lies past a limit is left unread rather than slowing a sync.
    """
    if len(raw) > MAX_MAIL_BYTES:
        return None
    try:
        return _read(raw)
    except Exception:  # a bug must not let one email stop a sync: it just reads as nothing
        return None


def packet_from_message(raw: bytes, verify: Callable[[bytes], bool]) -> bytes | None:
    """The first packet copy in the email that ``verify`` accepts, or None.

    ``verify`` is typically ``open_packet`` with the game's known keys, returning False on
    `PacketError`; an exception it raises propagates.
    """
    read = read_message(raw)
    if read is None:
        return None
    return next((data for data in read.candidates if verify(data)), None)


def is_hexpost(data: bytes) -> bool:
    """A cheap filter for the IMAP side: do these bytes (a header block or a whole message)
    look like a hexpost email? True on the ``X-Hexpost`` header, or on the attachment type,
    extension or armour marker anywhere in the bytes (a forwarded packet). A whole message
    can still turn out to hold no readable packet: `read_message` decides."""
    if mimeparts.header_fields(data).get(HEADER) is not None:
        return True
    lowered = data.lower()
    return any(
        mark in lowered
        for mark in (
            PACKET_TYPE.encode(),
            PACKET_EXTENSION.encode(),
            ARMOR_BEGIN.lower().encode(),
        )
    )


# --- reading -----------------------------------------------------------------------------------

MAX_MAIL_BYTES = 4 * 1024 * 1024
"""Bigger emails are not read (`mail.imap` does not even download them)."""
MAX_TEXT_BYTES = 2 * MAX_PACKET_SIZE
"""A text part is searched for armour only up to this size: base64 armour and some words."""
MAX_COPIES = 16
"""Copies decoded per email, attachments and armoured blocks together."""
MAX_MARKERS = 256
"""Places where ``hexpost`` occurs that are examined as armour markers, per email."""
_MARKER_WINDOW = 256
"""How far around ``hexpost`` the rest of an armour marker may lie (quote marks included)."""


class _Limits:
    """What is left of one email's budget."""

    def __init__(self) -> None:
        self.copies = MAX_COPIES
        self.markers = MAX_MARKERS
        self.entities = MAX_ENTITIES
        self.tags = MAX_TAGS
        self.dropped = MAX_DROPPED
        self.found: list[bytes] = []
        """The copies taken so far: an armoured block that decodes to one of them is not
        checked against its ``Packet:`` line, as it would be dropped as a repeat either way."""


def _read(raw: bytes, *, fast: bool = True) -> ReadMail | None:
    """`read_message`'s work: the parts from `mimeparts.read_known` when the email is laid out
    exactly as hexpost writes one (no standard library parsing), else from the bounded general
    walk (`mimeparts.walk`); what is read from the parts is the same code either way.
    ``fast`` False always walks (the tests compare the two)."""
    known = mimeparts.read_known(raw, PACKET_TYPE) if fast else None
    parts = known or mimeparts.walk(raw)
    if not parts:
        return None
    limits = _Limits()
    game_id, seq = _routing(parts)
    found = limits.found
    for data in _known_copies(raw, parts, limits) if known else _copies(raw, parts, limits):
        if data not in found and _well_formed(data):
            found.append(data)
    if game_id is None and not found:
        return None
    return ReadMail(
        candidates=tuple(found),
        game_id=game_id,
        seq=seq,
        message_id=parts[0].field("Message-ID"),
    )


def _routing(parts: Sequence[mimeparts.Part]) -> tuple[bytes | None, int | None]:
    """Game id and seq from the first ``X-Hexpost`` header, outer message first."""
    for part in parts:
        value = part.field(HEADER) if part.message else ""
        if not value:
            continue
        fields = {k.lower(): v for k, v in _HEADER_FIELD.findall(value)}
        game_id: bytes | None = None
        try:
            game_id = bytes.fromhex(fields.get("game", "")[:64])
        except ValueError:
            game_id = None
        seq_text = fields.get("seq", "")
        seq = int(seq_text) if seq_text.isdigit() and len(seq_text) < 19 else None
        return (game_id if game_id and len(game_id) == 16 else None), seq
    return None, None


def _copies(raw: bytes, parts: Sequence[mimeparts.Part], limits: _Limits) -> Iterator[bytes]:
    """Attachment copies first (no re-wrapping can touch them), then armoured blocks."""
    leaves = [part for part in parts if part.is_leaf]
    for part in leaves:
        if _is_packet_part(part) and limits.copies > 0:
            limits.copies -= 1
            data = mimeparts.body(raw, part, MAX_PACKET_SIZE)
            if data:
                yield data
    for part in leaves:
        if part.content_type.startswith("text/") and not _is_packet_part(part):
            text = _part_text(raw, part, limits)
            if text is not None:
                yield from _armored(*text, limits)


def _known_copies(raw: bytes, parts: Sequence[mimeparts.Part], limits: _Limits) -> Iterator[bytes]:
    """`_copies` of hexpost's own layout (`mimeparts.read_known`: the message, its plain text
    part, its packet attachment): the attachment's copy, then the text's armoured blocks, as
    `_copies` finds them there, unless `_armor_repeats` shows the text can only give the copy
    the attachment gave (the caller has taken it by the time the text is reached). A repeat
    is dropped anyway: the copies are the same, and so is every check of them."""
    _, text, attachment = parts
    limits.copies -= 1
    data = mimeparts.body(raw, attachment, MAX_PACKET_SIZE)
    if data:
        yield data
    if len(limits.found) == 1 and _armor_repeats(raw, text, limits.found[0]):
        return
    searched = _part_text(raw, text, limits)
    if searched is not None:
        yield from _armored(*searched, limits)


_ARMOR_OPENING = ARMOR_BEGIN.encode() + b"\r\nPacket: "
_ARMOR_CLOSING = b"\r\n" + ARMOR_END.encode() + b"\r\n"


def _armor_repeats(raw: bytes, part: mimeparts.Part, taken: bytes) -> bool:
    """Whether searching the text ``part`` for armour could give no copy but ``taken`` (or
    none): its body is plain text sent as it is (7bit or 8bit), ends with exactly the block
    `build_message` writes for ``taken``'s bytes, and holds no ``---`` before that block.

    Why that suffices (`_armored`): a marker needs ``---`` before its ``hexpost``, so none
    starts before the block; inside the block's base64 and ``Packet:`` line no ``-`` can stand,
    so its BEGIN and END are its only markers, and the block decodes to ``taken``, which is
    returned unchecked against its ``Packet:`` line (`_decode_block`: so any 64 hex digits do)
    and dropped as a repeat. Compares bytes in C; decodes nothing."""
    if (
        part.content_type != "text/plain"
        or part.charset.replace("_", "-") in _WIDE_CHARSETS
        or part.field("content-transfer-encoding").lower() not in ("7bit", "8bit")
    ):
        return False
    encoded = binascii.b2a_base64(taken, newline=False)
    close = part.end - len(_ARMOR_CLOSING)
    start = close - len(encoded) - 2 * ((len(encoded) - 1) // ARMOR_WIDTH)  # a CRLF per line
    digits = start - 4 - 64  # "Packet: " then 64 hex digits, CRLF, an empty line
    opening = digits - len(_ARMOR_OPENING)
    return (
        bool(encoded)
        and opening >= part.start
        and raw.startswith(_ARMOR_CLOSING, close, part.end)
        and raw.startswith(_ARMOR_OPENING, opening)
        and raw.startswith(b"\r\n\r\n", start - 4)
        and _HEX.fullmatch(raw, digits, digits + 64) is not None
        and raw.find(b"---", part.start, opening) < 0
        and raw[start:close].replace(b"\r\n", b"") == encoded
    )


def _is_packet_part(part: mimeparts.Part) -> bool:
    if part.content_type == PACKET_TYPE:
        return True
    return part.filename.lower().endswith(PACKET_EXTENSION)


def _part_text(raw: bytes, part: mimeparts.Part, limits: _Limits) -> tuple[bytes, bytes] | None:
    """A text part as ASCII bytes (anything else turned into ``?``, one byte per character, so
    offsets found in a lowered copy hold in the original) and that lowered copy; None when it
    cannot hold armour (no ``hexpost`` in it).

    The charset is not used to decode, except UTF-16 and UTF-32: the armour is ASCII, every
    other charset a mail client uses keeps ASCII as it is, and some codecs Python offers for a
    charset name (``punycode``, ``idna``) are slow or refuse to replace bad input."""
    data = mimeparts.body(raw, part, MAX_TEXT_BYTES)
    if data is None:
        return None
    charset = part.charset.replace("_", "-")
    if charset in _WIDE_CHARSETS:
        data = data.decode(charset, "replace").encode("ascii", "replace")
    lowered = data.lower()
    if b"hexpost" not in lowered:
        return None
    if part.content_type != "text/html":
        return data, lowered
    text = mimehtml.html_text(data.decode("utf-8", "replace"), limits)
    if text is None:
        return None
    data = text.encode("ascii", "replace")
    return data, data.lower()


_WIDE_CHARSETS = frozenset(
    f"utf-{bits}{order}" for bits in (16, 32) for order in ("", "le", "be", "-le", "-be")
)


def _armored(text: bytes, lowered: bytes, limits: _Limits) -> Iterator[bytes]:
    """Each armoured block of a text (ASCII bytes), decoded; tolerant of quoting, wrapping,
    joining and HTML.

    A marker is found from the word ``hexpost`` (`bytes.find`, in a lowered copy), then
    checked on each side with an anchored pattern over at most `_MARKER_WINDOW` bytes: before
    it, three dashes and ``BEGIN`` or ``END`` (read backwards); after it, ``PACKET`` and three
    dashes; whitespace and quote marks (``>``) between the words. A BEGIN opens a block (a
    second BEGIN first drops an unfinished one), the next END closes it, and the text between
    is read by `_decode_block`. At most `MAX_MARKERS` places are examined and `MAX_COPIES`
    blocks decoded per email, so text made of markers costs no more than the limits.
    ``lowered`` is ``text.lower()``."""
    opened: int | None = None
    pos = 0
    while limits.markers > 0 and limits.copies > 0:
        at = lowered.find(b"hexpost", pos)
        if at < 0:
            return
        limits.markers -= 1
        pos = at + len(b"hexpost")
        after = _MARKER_AFTER.match(lowered, pos, pos + _MARKER_WINDOW)
        if after is None:
            continue
        before = _MARKER_BEFORE.match(lowered[max(0, at - _MARKER_WINDOW) : at][::-1])
        if before is None:
            continue
        if before.group(1) == b"nigeb":
            opened = after.end()
            pos = after.end()
        elif opened is not None:
            inner = text[opened : at - before.end()]
            opened = None
            pos = after.end()
            limits.copies -= 1
            data = _decode_block(inner, limits.found)
            if data is not None:
                yield data


def _decode_block(inner: bytes, taken: Sequence[bytes] = ()) -> bytes | None:
    """The packet bytes of an armoured block's inside: an optional ``Packet:`` line with the
    id (64 hex digits, possibly split), then base64; quote marks and line breaks anywhere.
    When the id is given it must be the packet's id (or, for a late claim, the claim's),
    unless the bytes are one of the copies already ``taken``: the caller drops a repeat
    whether its id matches or not, so it is returned unchecked (the usual case, the armour
    repeating the attachment, then costs no envelope reading)."""
    if len(inner) > 3 * MAX_PACKET_SIZE:  # base64 of the largest packet, quoted many times
        return None
    tokens = inner.replace(b">", b" ").strip(b"-").split()
    expected: bytes | None = None
    start = 0
    if tokens and tokens[0].lower().rstrip(b":") == b"packet":
        start = 1
        if start < len(tokens) and tokens[start] == b":":
            start += 1
        digits = b""
        while start < len(tokens) and len(digits) < 64 and _HEX.fullmatch(tokens[start]):
            digits += tokens[start]
            start += 1
        if len(digits) != 64:
            return None
        expected = bytes.fromhex(digits.decode("ascii"))
    text = b"".join(tokens[start:])
    if not text or len(text) > MAX_PACKET_SIZE * 2:
        return None
    try:  # strict: the alphabet only, padding only at the end (the tokens hold no whitespace)
        data = binascii.a2b_base64(text, strict_mode=True)
    except (binascii.Error, ValueError):
        return None
    if expected is not None and data not in taken:
        try:
            if _copy_id(data) != expected:
                return None
        except VersionError:
            return data  # a newer protocol: its envelope is not ours to read; keep it
        except PacketError:
            return None
    return data


def _copy_id(data: bytes) -> bytes:
    """The id an armour's ``Packet:`` line names: a packet's id, or a late claim's."""
    if is_claim(data):
        return claim_id(read_claim(data).body)
    if is_chat(data):
        return chat_id(read_chat(data).body)
    if is_ask(data):
        return ask_id(read_ask(data).body)
    return packet_id(read_envelope(data).body)


def _well_formed(data: bytes) -> bool:
    """Whether bytes decode as a packet envelope or a late claim's (a newer protocol version
    counts: the caller must be able to say it is too new rather than lose it)."""
    try:
        if is_claim(data):
            read_claim(data)
        elif is_chat(data):
            read_chat(data)
        elif is_ask(data):
            read_ask(data)
        else:
            read_envelope(data)
    except VersionError:
        return True
    except Exception:
        return False
    return True
