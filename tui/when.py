"""The wall clock, and when things happen in a game as short words (the turn label, how long
ago a stamp was).

`now` is the one place the faces read the time packets are stamped with; they hand it to the
services as their clock (`tui.services.ports.Clock`), so a test can hand a fixed one. Apart
from `tui.render` so the games list can word its rows without importing the engine and the
store on the app's way to its first paint.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Protocol


class TurnLike(Protocol):
    """What a turn record has (`tui.services.games.TurnRecord`), named here so this module
    stays free of the services and the store."""

    @property
    def number(self) -> int: ...

    @property
    def tag(self) -> str: ...


def now() -> str:
    """The wall clock, as written into packets (informational) and the store."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def turn_text(turn: TurnLike | Mapping[str, Any] | None) -> str:
    """The turn's short tag as the ruleset gives it (``T3 Fall Y168``), or ``-`` before the
    game has started; from a turn record, or its JSON form (the command line's text views)."""
    if not turn:
        return "-"
    if isinstance(turn, Mapping):
        return str(turn.get("tag") or turn.get("number") or "-")
    return turn.tag or str(turn.number or "-")


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
