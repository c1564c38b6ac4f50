"""The subject line of a packet's email: readable in an inbox, the same from every client.

Here rather than in `mail.mime` because the store writes the subject when it queues a packet
(`saves.ledger.queue`) and saves never imports mail; `mail.mime` re-exports both names. Pure:
no engine, no I/O.
"""

from __future__ import annotations

import msgspec


class Subject(msgspec.Struct, frozen=True):
    """What a person needs to see in an inbox; the caller fills it from the game's state."""

    game: str
    """The game's name, e.g. ``"border"``."""
    seat: str
    """The seat that wrote the packet, e.g. ``"coalition"``."""
    action: str
    """What the packet does, e.g. ``"orders 3B2"``, ``"die roll"``, ``"invitation"``."""
    seq: int
    when: str = ""
    """The turn in the game's own short words (``"T1 Fall Y168"``); empty before it starts."""


def format_subject(subject: Subject) -> str:
    """``[hexpost] border T1 Fall Y168 coalition: orders 3B2 (packet 24)``."""
    words = ["[hexpost]", subject.game, subject.when, f"{subject.seat}:", subject.action]
    return " ".join(w for w in words if w) + f" (packet {subject.seq})"
