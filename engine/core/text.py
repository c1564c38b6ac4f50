"""Text that travels in packets: one line of printable characters, bounded in length.

Names, addresses, chat lines, notes and roll purposes are written by one player and shown on
the other player's terminal. A modified client could put terminal escape sequences, other
control characters, bidirectional overrides or line separators into them, to redraw the other
player's screen or make a line read differently from what was signed. The engine refuses such
text on receipt (as the sending client does), so it never enters a game's log; the client
escapes text again at its edge in any case (defence in depth).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Annotated

import msgspec

_UNSAFE_CLASS = "\\x00-\\x1f\\x7f-\\x9f\\u200b-\\u200f\\u2028-\\u202e\\u2060-\\u206f\\ufeff"
"""C0 and C1 controls, DEL, zero-width and direction marks, line and paragraph separators,
bidirectional embeddings, overrides and isolates, and the byte-order mark."""

SAFE_PATTERN = f"^[^{_UNSAFE_CLASS}]*\\Z"
"""A regular expression (for `msgspec.Meta`) that matches text free of those characters.
It ends in ``\\Z``, not ``$``: msgspec searches with Python's `re`, whose ``$`` also matches
before a final newline, so ``"name\\n"`` passed as one clean line until 2026-12-04."""

_UNSAFE = re.compile(f"[{_UNSAFE_CLASS}]")

MAX_NAME = 200
"""Characters in a player's name, a game's name or a seat binding's address."""


def line(max_length: int, min_length: int = 0) -> object:
    """A `msgspec.Meta` for one line of safe text of at most ``max_length`` characters."""
    return msgspec.Meta(min_length=min_length, max_length=max_length, pattern=SAFE_PATTERN)


Name = Annotated[str, msgspec.Meta(max_length=MAX_NAME, pattern=SAFE_PATTERN)]
"""A name or address as packets carry it."""


def text_problem(text: str, what: str, max_length: int) -> str | None:
    """Why ``text`` may not travel as ``what`` (None when it may): too long, or unsafe."""
    if len(text) > max_length:
        return f"{what} is at most {max_length} characters, not {len(text)}"
    found = _UNSAFE.search(text)
    if found is not None:
        return (
            f"{what} holds a control or formatting character "
            f"(U+{ord(found.group()):04X} at position {found.start() + 1})"
        )
    return None


PATTERN_WORDS: dict[str, str] = {
    SAFE_PATTERN: "one line of text without control or formatting characters",
}
"""What the text patterns of the core's records ask for, in words (`worded`)."""


def worded(message: str, words: Mapping[str, str] = PATTERN_WORDS) -> str:
    """A msgspec validation message with each pattern it names replaced by what the pattern
    asks for (``words``: pattern to words), so that a player reads "Expected one line of
    text without control or formatting characters - at `$.text`", not the regular
    expression."""
    for pattern, wanted in words.items():
        message = message.replace(
            f"Expected `str` matching regex {pattern!r}", f"Expected {wanted}"
        )
    return message


def counted(count: int, word: str) -> str:
    """``1 packet``, ``2 packets``, ``6 hexes``: a count with its noun, singular for one."""
    if count == 1:
        return f"{count} {word}"
    ending = "es" if word.endswith(("s", "x", "ch", "sh")) else "s"
    return f"{count} {word}{ending}"


def numbered(word: str, numbers: Sequence[int]) -> str:
    """``packet 3``, ``packets 3, 4``: a noun with the numbers it names, singular for one."""
    noun = word if len(numbers) == 1 else counted(2, word).partition(" ")[2]
    return f"{noun} {', '.join(str(n) for n in numbers)}"


def said(value: object) -> str:
    """A choice as a log line says it, not as Python prints it: an object's keys each with
    its value (``flagship KZI-0001, units KZI-0001 KZI-0002``), an object within it in
    brackets, a list's items with spaces between them, nothing as "none". Deterministic:
    keys in the order the choice gave them."""
    if isinstance(value, Mapping):
        return ", ".join(f"{key} {_inner(item)}" for key, item in value.items()) or "none"
    return _inner(value)


def _inner(value: object) -> str:
    if isinstance(value, Mapping):
        return f"({said(value)})" if value else "none"
    if isinstance(value, list | tuple):
        return " ".join(_inner(item) for item in value) or "none"
    if value is None or value == "":
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)
