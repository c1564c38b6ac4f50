"""Terminal columns of text, for the command line's tables.

A character of Japanese, Chinese or Korean, or an emoji, takes two columns of a terminal; a
combining mark takes none. A table padded and cut by characters puts the rest of a row that
holds such a name out of line with its headings. The widths are the Unicode East Asian Width
property's (the standard library's `unicodedata`: no import cost for ``games`` and ``pace``).
"""

from __future__ import annotations

import re
import unicodedata


def _char_columns(ch: str) -> int:
    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def columns(text: str) -> int:
    """The terminal columns ``text`` takes."""
    return sum(_char_columns(ch) for ch in text)


def cut(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` terminal columns."""
    used = 0
    for at, ch in enumerate(text):
        used += _char_columns(ch)
        if used > limit:
            return text[:at]
    return text


def pad(text: str, width: int) -> str:
    """``text`` followed by spaces to ``width`` terminal columns (none when it is wider)."""
    return text + " " * (width - columns(text))


def wrap(line: str, width: int, indent: str) -> list[str]:
    """``line`` broken at its spaces into lines of at most ``width`` terminal columns, each
    after the first beginning with ``indent``. The first keeps the line's own indent and runs
    of spaces between words are kept (a table's columns stay aligned); a word wider than a
    line is kept whole on a line of its own, never cut."""
    plain = re.sub(r"[\t\n\x0b\x0c\r]", " ", line.expandtabs())  # as textwrap reads them
    chunks = [chunk for chunk in re.split(r"( +)", plain) if chunk]
    lines: list[str] = []
    current, used, has_word = "", 0, False
    for chunk in chunks:
        taken = columns(chunk)
        if chunk.startswith(" "):
            if has_word or not lines:  # the first line's own indent, or a gap between words
                current, used = current + chunk, used + taken
            continue
        if has_word and used + taken > width:
            lines.append(current.rstrip(" "))
            current, used = indent, columns(indent)
        current, used, has_word = current + chunk, used + taken, True
    lines.append(current.rstrip(" "))
    return lines
