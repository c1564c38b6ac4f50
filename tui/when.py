"""When things happen in a game, as short words: the turn label and how long ago a stamp was.

Apart from `tui.render` so the games list can word its rows without importing the engine and
the store on the app's way to its first paint; the command line reads them through
`tui.render` as before.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any


def turn_text(turn: Any) -> str:
    """``T3 Fall Y168``, or ``-`` before the game has started."""
    if not turn:
        return "-"
    return f"T{turn['number']} {str(turn['season']).capitalize()} Y{turn['year']}"


def age(stamp: str, now: datetime | None = None) -> str:
    """How long ago an ISO time was, in the largest whole unit: ``5m``, ``3h``, ``2d``
    (fractions of seconds ignored)."""
    try:
        then = datetime.strptime(stamp[:19], "%Y-%m-%dT%H:%M:%S").replace(tzinfo=UTC)
    except ValueError:
        return ""
    seconds = max(0, int(((now or datetime.now(UTC)) - then).total_seconds()))
    for size, unit in ((86400, "d"), (3600, "h"), (60, "m")):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return "now"
