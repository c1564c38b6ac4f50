"""What taking in one received item did (`saves.inbox`, `saves.claims`), for sync and its callers.

Its own module so that the modules which take items in (packets, late claims) and those which
report on them share it without importing each other.
"""

from __future__ import annotations

import msgspec

Hint = tuple[bytes | None, int | None]
"""A transport's unverified routing hint for an item: (game id, position), either unknown."""


class Outcome(msgspec.Struct, frozen=True):
    """What receiving one packet did.

    ``status`` is one of: applied, buffered, duplicate, invitation, ignored, parked,
    rejected, equivocation, desync, claim. ``game_id``, ``seq`` and ``seat`` name what the
    item was for (for a refused item, as far as its unverified bytes or the transport's
    routing hint tell). ``attention`` is true when the player should act: an item of a game
    this home holds was refused (a damaged copy, a packet the engine refused), or the game
    froze; `hexpost sync` then exits 1.
    """

    status: str
    detail: str = ""
    game_id: bytes | None = None
    seq: int | None = None
    applied: list[int] = []
    seat: str = ""
    source: str = ""
    attention: bool = False
