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

This module does no I/O and reads no clock or randomness: the date, the Message-ID and every
human-readable line are passed in. Reading never raises on any input bytes.
"""

from __future__ import annotations

import base64
import binascii
import email.policy
import html
import re
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from email.message import EmailMessage, Message
from email.parser import BytesParser
from email.utils import format_datetime

import msgspec

from engine.core.errors import PacketError, VersionError
from engine.core.packets import MAX_PACKET_SIZE, packet_id, read_envelope
from mail.transport import OutgoingPacket
from saves.subject import Subject, format_subject  # noqa: F401  (re-exported for callers)

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
_PARSER = BytesParser(policy=email.policy.compat32)
"""Reading uses the plain policy: the modern one parses every structured header into objects,
which made parsing 80% of a sync's time (about 7 ms per email) for nothing reading needs."""
_HEADER_FIELD = re.compile(r"\b(game|seq)\s*=\s*([0-9A-Za-z]+)", re.IGNORECASE)
_QUOTE = re.compile(r"^[ \t]*(?:>[ \t]?)*")
_B64 = re.compile(r"[A-Za-z0-9+/=]+")
_HEX = re.compile(r"[0-9a-fA-F]+")


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
    msg[HEADER] = f"game={packet.game_id.hex()}; seq={packet.seq}"
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
        filename=attachment_name(packet.game_id, packet.seq),
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
    text, or turned into HTML). A copy that does not decode to a well-formed packet envelope,
    or whose armour names another packet id, is dropped. An email with the header but no
    readable copy (truncated, corrupt) gives an empty ``candidates``. Never raises.
    """
    try:
        msg = _PARSER.parsebytes(raw)
    except Exception:
        return None
    game_id, seq = _routing(msg)
    found: list[bytes] = []
    for data in _copies(msg):
        if data not in found and _well_formed(data):
            found.append(data)
    if game_id is None and not found:
        return None
    return ReadMail(
        candidates=tuple(found),
        game_id=game_id,
        seq=seq,
        message_id=_header(msg, "Message-ID"),
    )


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
    try:
        headers = _PARSER.parsebytes(data, headersonly=True)
        if headers.get(HEADER) is not None:
            return True
    except Exception:
        pass
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


def _header(msg: Message, name: str) -> str:
    try:
        value = msg.get(name)
        return "" if value is None else str(value).strip()
    except Exception:
        return ""


def _routing(msg: Message) -> tuple[bytes | None, int | None]:
    """Game id and seq from the first ``X-Hexpost`` header, outer message first."""
    for part in _messages(msg):
        value = _header(part, HEADER)
        if not value:
            continue
        fields = {k.lower(): v for k, v in _HEADER_FIELD.findall(value)}
        game_id: bytes | None = None
        try:
            game_id = bytes.fromhex(fields.get("game", ""))
        except ValueError:
            game_id = None
        seq_text = fields.get("seq", "")
        seq = int(seq_text) if seq_text.isdigit() and len(seq_text) < 19 else None
        return (game_id if game_id and len(game_id) == 16 else None), seq
    return None, None


def _messages(msg: Message) -> Iterator[Message]:
    """The message and every message forwarded inside it, outermost first."""
    yield msg
    for part in msg.walk():
        if part is not msg and part.get_content_type() == "message/rfc822":
            payload = part.get_payload()
            if isinstance(payload, list):
                for inner in payload:
                    if isinstance(inner, Message):
                        yield from _messages(inner)


def _copies(msg: Message) -> Iterator[bytes]:
    """Attachment copies first (no re-wrapping can touch them), then armoured blocks."""
    parts = list(msg.walk())
    for part in parts:
        if _is_packet_part(part):
            data = _part_bytes(part)
            if data:
                yield data
    for part in parts:
        if part.get_content_maintype() == "text" and not _is_packet_part(part):
            text = _part_text(part)
            if text and "hexpost" in text.lower():
                if part.get_content_subtype() == "html":
                    text = _html_text(text)
                yield from _armored(text)


def _is_packet_part(part: Message) -> bool:
    try:
        if part.is_multipart():
            return False
        if part.get_content_type() == PACKET_TYPE:
            return True
        name = part.get_filename()
        return bool(name) and str(name).lower().endswith(PACKET_EXTENSION)
    except Exception:
        return False


def _part_bytes(part: Message, limit: int = MAX_PACKET_SIZE) -> bytes | None:
    try:
        payload = part.get_payload(decode=True)
    except Exception:
        return None
    return payload if isinstance(payload, bytes) and len(payload) <= limit else None


def _part_text(part: Message) -> str | None:
    """A text part's content, decoded from its transfer encoding and its charset."""
    raw = _part_bytes(part, 2 * MAX_PACKET_SIZE)  # base64 armour and a few words around it
    if raw is None:
        return None
    charset = part.get_content_charset() or "utf-8"
    try:
        return raw.decode(charset, "replace")
    except LookupError:  # a charset Python does not know: the armour is ASCII anyway
        return raw.decode("utf-8", "replace")


def _html_text(markup: str) -> str:
    """The text of an HTML part, enough to find an armoured block a client turned into HTML."""
    markup = re.sub(r"(?is)<(script|style)\b.*?</\1\s*>", "", markup)
    markup = re.sub(r"(?i)<br\s*/?>|</(p|div|li|tr|blockquote|pre)\s*>", "\n", markup)
    return html.unescape(re.sub(r"<[^>]*>", "", markup))


def _armored(text: str) -> Iterator[bytes]:
    """Each armoured block of a text, decoded; tolerant of quoting, wrapping and joining.

    Quote markers are stripped from each line, then the block between the markers is read as
    whitespace-separated tokens: ``Packet:`` and its 64 hex digits (possibly split), then base64.
    """
    flat = "\n".join(_QUOTE.sub("", line) for line in text.splitlines())
    begin = re.compile(r"-{3,}\s*BEGIN\s+HEXPOST\s+PACKET\s*-{3,}", re.IGNORECASE)
    end = re.compile(r"-{3,}\s*END\s+HEXPOST\s+PACKET\s*-{3,}", re.IGNORECASE)
    pos = 0
    while True:
        start = begin.search(flat, pos)
        if start is None:
            return
        stop = end.search(flat, start.end())
        if stop is None:
            return  # a truncated block: nothing after it can be a whole block either
        pos = stop.end()
        data = _decode_block(flat[start.end() : stop.start()])
        if data is not None:
            yield data


def _decode_block(inner: str) -> bytes | None:
    tokens = inner.split()
    expected: bytes | None = None
    if tokens and tokens[0].lower().rstrip(":") == "packet":
        tokens = tokens[1:]
        if tokens and tokens[0] == ":":
            tokens = tokens[1:]
        digits = ""
        while tokens and len(digits) < 64 and _HEX.fullmatch(tokens[0]):
            digits += tokens.pop(0)
        if len(digits) != 64:
            return None
        expected = bytes.fromhex(digits)
    text = "".join(tokens)
    if not text or not _B64.fullmatch(text) or len(text) > MAX_PACKET_SIZE * 2:
        return None
    try:
        data = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None
    if expected is not None:
        try:
            if packet_id(read_envelope(data).body) != expected:
                return None
        except VersionError:
            return data  # a newer protocol: its envelope is not ours to read; keep it
        except PacketError:
            return None
    return data


def _well_formed(data: bytes) -> bool:
    """Whether bytes decode as a packet envelope (a newer protocol version counts: the caller
    must be able to say the packet is too new rather than lose it)."""
    try:
        read_envelope(data)
    except VersionError:
        return True
    except Exception:
        return False
    return True
