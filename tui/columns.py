"""Terminal columns of text, for the command line's tables.

A character of Japanese, Chinese or Korean, or an emoji, takes two columns of a terminal; a
combining mark takes none. A table padded and cut by characters puts the rest of a row that
holds such a name out of line with its headings. The widths are the Unicode East Asian Width
property's (the standard library's `unicodedata`: no import cost for ``games`` and ``pace``).
"""

from __future__ import annotations

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
