"""Text from other people, made harmless before it reaches a terminal.

Names, addresses, game names, chat lines, notes, roll purposes, event texts and the reasons a
packet was refused all come from another player's client, from mail or from a shared folder.
A hostile client can put bytes in them that a terminal obeys rather than shows: an escape
sequence that clears the screen or rewrites the title, other C0/C1 controls, a right-to-left
override that makes a line read backwards, zero-width characters, line separators that start
a fake line. The engine refuses such text on receipt, but the client does not rely on it:
whatever the command line prints and the app shows passes through here at the edge.

Nothing is dropped silently: each such character becomes a visible escape (``\\x1b``,
``\\u202e``), so the reader sees that something was there and where. Printable text, including
accents, CJK and emoji, passes unchanged, and the function is idempotent (an escape is plain
printable text), so text escaped on two paths reads the same.

Rich markup is the other hazard: text in a Textual ``Static``/``Label`` or a ``DataTable`` cell is
parsed as markup, so a name like ``[link=http://evil]`` would become a link and ``[/b]`` would
raise on rendering. `plain` hands such widgets a `rich.text.Text`, which is never parsed;
`markup_escaped` is for the few places that only take a markup string.

Pure: imports only the standard library and Rich (no Textual), so the command line can use it;
Rich only when `plain` or `markup_escaped` is called: the command line prints no markup, and
importing Rich was a twelfth of ``hexpost show``'s start (issue 16).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from rich.text import Text

ELLIPSIS = "\u2026"

_C0_BUT_NEWLINE = "\\x00-\\x09\\x0b-\\x1f"
_OTHER_UNSAFE = (
    "\\x7f-\\x9f"  # DEL, C1 controls (CSI...)
    "\\xad"  # soft hyphen
    "\\u0600-\\u0605\\u061c\\u06dd\\u070f\\u0890\\u0891\\u08e2"  # Arabic/Syriac format, ALM
    "\\u180e"  # Mongolian vowel separator (zero width)
    "\\u200b-\\u200f"  # zero-width space, joiners, LRM, RLM
    "\\u2028-\\u202e"  # line and paragraph separators, bidi embeddings and overrides
    "\\u2060-\\u206f"  # word joiner, invisible operators, bidi isolates
    "\\ud800-\\udfff"  # lone surrogates (cannot even be encoded to UTF-8)
    "\\ufeff"  # byte-order mark / zero-width no-break space
    "\\ufff9-\\ufffb"  # interlinear annotation controls
    "\\U000110bd\\U000110cd"  # Kaithi number signs
    "\\U00013430-\\U0001343f"  # Egyptian hieroglyph format controls
    "\\U0001bca0-\\U0001bca3"  # shorthand format controls
    "\\U0001d173-\\U0001d17a"  # musical symbol format controls
    "\\U000e0001-\\U000e007f"  # language tags
)
"""With C0 (ESC, BEL, CR, TAB, NL...): every character of Unicode categories Cc, Cf, Cs, Zl and
Zp (tests/tui/test_safe_text.py checks the list against the running Python's Unicode database),
and nothing printable."""


class _CharClass:
    """A character class compiled on its first use, not at import: compiling these two
    (their ranges span the whole of Unicode) costs about 10 million instructions, before the
    game screen's first paint, where every string shown is printable and neither is needed
    (issue 16)."""

    def __init__(self, source: str) -> None:
        self._source = source
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self._source)
        return self._compiled

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        return self.compiled.finditer(text)


_UNSAFE = _CharClass(f"[{_C0_BUT_NEWLINE}\\n{_OTHER_UNSAFE}]")
_UNSAFE_BUT_NEWLINE = _CharClass(f"[{_C0_BUT_NEWLINE}{_OTHER_UNSAFE}]")

_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def escape_char(ch: str) -> str:
    """The visible stand-in for one unsafe character: ``\\n``, ``\\x1b``, ``\\u202e``..."""
    short = _SHORT.get(ch)
    if short is not None:
        return short
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _escape_match(match: re.Match[str]) -> str:
    return escape_char(match.group())


def safe_text(
    text: object, *, multiline: bool = False, limit: int | None = None, ellipsis: str = ELLIPSIS
) -> str:
    """``text`` (``str()`` of anything) with every control, format, bidi and separator
    character replaced by its visible escape.

    One line by default: a newline becomes ``\\n`` too, so a name cannot start a fake line of
    output. ``multiline`` keeps ``\\n`` (for text that is several lines on purpose). ``limit``
    caps the result at that many characters, the last being ``ellipsis`` when it was cut; an
    escape is never cut in half.
    """
    if not isinstance(text, str):
        text = str(text)
    # Fast path: nearly every string is printable as it is (str.isprintable runs in C), and
    # every unsafe character is unprintable; a newline is the one kept by ``multiline``.
    printable = (text.replace("\n", "") if multiline else text).isprintable()
    pattern = (_UNSAFE_BUT_NEWLINE if multiline else _UNSAFE).compiled if not printable else None
    clean = text if pattern is None else pattern.sub(_escape_match, text)
    if limit is None or len(clean) <= limit:
        return clean
    if limit <= len(ellipsis):
        return ellipsis[:limit]
    room = limit - len(ellipsis)
    if len(clean) == len(text):  # nothing was escaped (an escape is always longer)
        return clean[:room] + ellipsis
    kept: list[str] = []
    used = 0
    for ch in text:  # at most ``room`` rounds: the cut is bounded however long the text is
        piece = escape_char(ch) if pattern is not None and pattern.match(ch) else ch
        if used + len(piece) > room:
            break
        kept.append(piece)
        used += len(piece)
    return "".join(kept) + ellipsis


def safe_lines(text: object, *, limit: int | None = None) -> str:
    """Several lines of untrusted text: `safe_text` keeping the newlines."""
    return safe_text(text, multiline=True, limit=limit)


def markup_escaped(text: object, *, multiline: bool = False, limit: int | None = None) -> str:
    """`safe_text`, then escaped for Rich/Textual markup so that ``[bold]`` or ``[link=...]``
    shows as typed. For widgets that take only markup (``notify``, a ``Label`` made with
    markup on); prefer `plain` or ``markup=False`` elsewhere."""
    from rich.markup import escape

    return escape(safe_text(text, multiline=multiline, limit=limit))


def plain(text: object, *, multiline: bool = False, limit: int | None = None) -> Text:
    """`safe_text` as a Rich `Text`: a widget (a ``DataTable`` cell, a ``RichLog`` line) shows
    it literally, brackets and all, since a `Text` is never parsed as markup."""
    from rich.text import Text

    return Text(safe_text(text, multiline=multiline, limit=limit))


def safe_record(value: Any) -> Any:
    """A copy of a JSON-like record with every string (keys too) made one-line safe.

    For the text views of the command line, which format records field by field: cleaning
    the record once keeps every field on its own line whatever formatter prints it."""
    if isinstance(value, str):
        return safe_text(value)
    if isinstance(value, dict):
        return {safe_record(key): safe_record(item) for key, item in value.items()}
    if isinstance(value, list):
        return [safe_record(item) for item in value]
    if isinstance(value, tuple):
        return tuple(safe_record(item) for item in value)
    return value


class SafeStream:
    """A text stream that escapes unsafe characters (keeping newlines) in all it is given.

    The command line's last line of defence: whatever a command prints, on purpose or not,
    reaches the terminal without escape sequences. Everything else (``fileno``, ``isatty``,
    ``buffer``, ``encoding``...) is the wrapped stream's own."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        self.stream.write(safe_text(text, multiline=True))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        self.stream.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


@contextmanager
def safe_output() -> Iterator[None]:
    """Within the block, ``sys.stdout`` and ``sys.stderr`` escape what they are given."""
    saved = sys.stdout, sys.stderr
    sys.stdout = SafeStream(saved[0])
    sys.stderr = SafeStream(saved[1])
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
