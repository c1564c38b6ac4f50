"""The text of an HTML part, enough for `mail.mime` to find an armoured block in it.

A mail client may turn a packet email's plain text into HTML; the armour is then among tags,
character references, and perhaps script or style elements. Reading that for a stranger's
email must stay linear and bounded, so each step here counts against the email's budget
(`Budget`, kept by `mail.mime` per email): tags, character references, elements dropped.
"""

from __future__ import annotations

import html
import re
from typing import Protocol

MAX_TAGS = 100_000
"""Tags per email: an HTML part that would go past this many is not searched. The HTML of the
largest packet has about 50,000, and each tag costs a regex step."""
MAX_ENTITIES = 10_000
"""Character references decoded per email (each costs a Python call); an HTML part that would
go past this many is searched with them left as they are."""
MAX_DROPPED = 64
"""Script and style elements dropped per email (each is a step of a Python loop)."""

_TAG = re.compile(r"<[^>]*>")


class Budget(Protocol):
    """What is left of one email's HTML budget (`mail.mime` keeps it with its other limits)."""

    tags: int
    entities: int
    dropped: int


def html_text(markup: str, limits: Budget) -> str | None:
    """The text of an HTML part, enough to find an armoured block a client turned into HTML:
    script and style elements dropped (while the email's `MAX_DROPPED` last; the text of any
    later ones is left in, harmless), every tag turned into a space (the armour is read as
    whitespace-separated words, so a line break and a space are the same to it), character
    references decoded (while the email's `MAX_ENTITIES` last). None for a part with more tags
    than are left of the email's `MAX_TAGS`.

    Linear: each opening of a script or style element is searched for its end once, and the
    tag pattern is applied only up to the last ``>`` (past it, a ``<`` can close no tag: the
    pattern would search to the end from every one of them)."""
    tags = markup.count("<")
    if tags > limits.tags:
        return None
    limits.tags -= tags
    lowered = markup.encode("ascii", "replace").lower()  # one byte per character
    pieces: list[str] = []
    pos = 0
    ahead = {b"<script": -2, b"<style": -2}  # the next place of each, found again only once passed
    while limits.dropped > 0:
        for needle, at in ahead.items():
            if -1 < at < pos or at == -2:
                ahead[needle] = lowered.find(needle, pos)
        found = [at for at in ahead.values() if at >= 0]
        if not found:
            break
        limits.dropped -= 1
        opening = min(found)
        closer = b"</script" if lowered.startswith(b"<script", opening) else b"</style"
        pieces.append(markup[pos:opening])
        close = lowered.find(closer, opening)
        if close < 0:
            pos = len(markup)
            break
        gt = lowered.find(b">", close)
        pos = len(markup) if gt < 0 else gt + 1
    pieces.append(markup[pos:])
    markup = "".join(pieces)
    last = markup.rfind(">")
    markup = _TAG.sub(" ", markup[: last + 1]) + markup[last + 1 :]
    entities = markup.count("&")
    if entities <= limits.entities:
        limits.entities -= entities
        markup = html.unescape(markup)
    return markup
